"""The learners trained from scratch (#31 item 6): examples/selfplay_ppo.py
with either critic (the seat's observation, or the MAPPO-style centralised
critic on ``states()``) in every game, its CPU budget and snapshots, and
:class:`cardenvs.agents.mlp.MLPAgent`, which plays a snapshot (its file
format checked, nothing unpickled)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import pathlib
import pickle

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import cardenvs.vector as V  # noqa: E402
from cardenvs.agents.mlp import MLPAgent, build_mlp, read_policy, save_policy, symlog  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "selfplay_ppo.py"
# Every game, short: 4 games x 16 steps a rollout, small networks.
GAMES = {
    "pepper_v0": {},
    "cancellation_hearts_v0": {"num_players": 6},
    "push_v0": {},
    "spit_v0": {"max_ticks": 40},
}


@pytest.fixture(scope="module")
def ppo():
    spec = importlib.util.spec_from_file_location("selfplay_ppo_learners", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def quick_args(ppo, game: str, critic: str, *extra: str):
    return ppo.parse_args(
        ["--game", game, "--critic", critic, "--config", json.dumps(GAMES[game]), "--num-envs", "4"]
        + ["--num-steps", "16", "--hidden", "32", "--eval-games", "0", "--quiet", *extra]
    )


def play_legal(agent: MLPAgent, game: str, config: dict, steps: int = 40) -> int:
    """``steps`` steps of 4 games with ``agent`` at every seat through the
    vector engine (which raises on an illegal action); every action is also
    checked against its mask.  Returns the decisions taken."""
    venv = V.make(game, 4, seed=3, **config)
    obs, info = venv.reset()
    taken = 0
    for _ in range(steps):
        mask = info["action_mask"]
        if obs.ndim == 3:  # Spit: one seat's observations per call, as the evaluation feeds agents
            actions = np.stack([agent.act_batch(obs[:, s], mask[:, s]) for s in range(obs.shape[1])], axis=1)
        else:
            actions = agent.act_batch(obs, mask)
        assert np.take_along_axis(mask, actions[..., None], axis=-1).all()
        taken += actions.size
        obs, _, _, _, info = venv.step(actions)
    venv.close()
    return taken


@pytest.mark.parametrize("critic", ["obs", "state"])
@pytest.mark.parametrize("game", list(GAMES))
def test_every_game_trains_and_its_snapshot_plays(ppo, game, critic, tmp_path):
    """Two iterations in every game with either critic give finite losses;
    the snapshot saved at the end loads with MLPAgent (checked against the
    game) and plays legal actions at every seat through the vector engine."""
    args = quick_args(ppo, game, critic, "--total-steps", str(4 * 16 * 2), "--run-dir", str(tmp_path / "run"))
    summary = ppo.train(args)
    assert summary["stop_reason"] == "total_steps" and summary["iterations"] == 2
    assert len(summary["losses"]) == 2
    assert all(math.isfinite(v) for stats in summary["losses"] for v in stats.values())
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["stop_reason"] == "total_steps" and run["critic"] == critic
    (snap,) = run["snapshots"]
    assert snap["final"] and snap["steps"] == 4 * 16 * 2
    agent = MLPAgent.load(tmp_path / "run" / snap["file"], game=game, **args.config)
    assert agent.meta["training"]["critic"] == critic and agent.config == args.config
    assert play_legal(agent, game, args.config) > 0


@pytest.mark.parametrize("game", list(GAMES))
def test_state_critic_reads_the_state_and_the_seat(ppo, game):
    """With --critic state the critic's input is the state and the seat's
    one-hot (its width state_size + num_players; the actor's the
    observation's), and each decision's value is the critic's value of its
    own game's states() row, read at that step, and its seat."""
    args = quick_args(ppo, game, "state")
    venv = ppo.make_engine(args, 0)
    size, players = venv.single_state_space.shape[0], venv.num_players
    calls = []

    def marked_states():  # game row r at the c-th call: every entry 10 c + r (a step, a row, told apart)
        calls.append(len(calls) + 1)
        return (10 * calls[-1] + np.arange(venv.num_envs))[:, None] * np.ones((1, size), np.int64)

    venv.states = marked_states
    wrapped = venv if game == "spit_v0" else V.SeatRewards(venv)
    agent = ppo.make_agent(args, wrapped)
    assert agent.critic[0].in_features == size + players
    assert agent.actor[0].in_features == venv.single_observation_space.shape[0]
    batch = ppo.SelfPlayCollector(wrapped, agent, 16, seed=0).collect(0.99, 0.95, 0.1)
    assert len(calls) == 16  # one state per step
    mark = batch["state"][:, 0].astype(np.int64)
    assert (batch["state"] == mark[:, None]).all()
    np.testing.assert_array_equal(mark % 10, batch["row"])
    step = mark // 10
    for r in range(venv.num_envs):  # each seat's decisions read the state of their own step
        for s in range(players):
            mine = step[(batch["row"] == r) & (batch["seat"] == s)]
            assert len(np.unique(mine)) == len(mine)
    seat = np.eye(players, dtype=np.float32)[batch["seat"]]
    with torch.no_grad():
        expected = agent.value(torch.cat([symlog(batch["state"]), torch.as_tensor(seat)], dim=1)).numpy()
    np.testing.assert_allclose(batch["value"], expected, rtol=1e-5, atol=1e-6)
    venv.close()


def test_a_state_of_the_wrong_size_raises(ppo):
    args = quick_args(ppo, "pepper_v0", "state")
    venv = V.SeatRewards(ppo.make_engine(args, 0))
    agent = ppo.make_agent(args, venv)
    collector = ppo.SelfPlayCollector(venv, agent, 4, seed=0)
    real = venv.venv.states
    venv.venv.states = lambda: real()[:, :-1]
    with pytest.raises(ValueError, match="critic reads"):
        collector.collect(0.99, 0.95, 0.1)
    venv.close()


class RecordingEngine:
    """An engine that records, per game that ends, the sum of the rewards
    each seat got on its steps (the truth the rollouts must reproduce)."""

    def __init__(self, venv):
        self.venv = venv
        self.totals = np.zeros((venv.num_envs, venv.num_players))
        self.ended: list[np.ndarray] = []

    def __getattr__(self, name):
        return getattr(self.venv, name)

    def step(self, actions):
        out = self.venv.step(actions)
        self.totals += out[1]
        for i in np.flatnonzero(out[2] | out[3]):
            self.ended.append(self.totals[i].copy())
            self.totals[i] = 0.0
        return out


@pytest.mark.parametrize("critic", ["obs", "state"])
def test_spit_returns_are_the_games_rewards(ppo, critic):
    """In Spit both seats decide on every step: the returns the rollouts
    assign per game and seat are the sums of the engine's rewards of that
    game, games spanning rollouts included."""
    args = quick_args(ppo, "spit_v0", critic, "--config", json.dumps({"max_ticks": 24, "reward": "cards_shed"}))
    venv = RecordingEngine(ppo.make_engine(args, 0))
    collector = ppo.SelfPlayCollector(venv, ppo.make_agent(args, venv), 16, seed=0)
    games = [g for _ in range(5) for g in collector.collect(0.99, 0.95, 0.1)["games"]]
    assert len(games) == len(venv.ended) >= 8 and max(g["rollouts"] for g in games) > 1
    assert any(np.abs(t).sum() > 0 for t in venv.ended)
    for g, truth in zip(games, venv.ended):
        np.testing.assert_allclose(g["returns"], truth, rtol=1e-6, atol=1e-6)


def test_zero_sum_pays_each_seat_less_the_mean(ppo):
    """``--zero-sum`` (Spit): each seat's returns are its rewards less the
    mean of both seats', so they sum to zero and a won game is still worth
    1; a turn-based game refuses the option before anything is built."""
    config = json.dumps({"max_ticks": 24, "reward": "cards_shed"})
    args = quick_args(ppo, "spit_v0", "obs", "--config", config, "--zero-sum")
    venv = RecordingEngine(ppo.make_engine(args, 0))
    collector = ppo.SelfPlayCollector(venv, ppo.make_agent(args, venv), 16, seed=0, zero_sum=args.zero_sum)
    games = [g for _ in range(5) for g in collector.collect(0.99, 0.95, 0.1)["games"]]
    assert len(games) == len(venv.ended) >= 8
    assert any(np.abs(t[0] - t[1]) > 0 for t in venv.ended)
    for g, truth in zip(games, venv.ended):
        np.testing.assert_allclose(g["returns"], truth - truth.mean(), rtol=1e-6, atol=1e-6)
    with pytest.raises(SystemExit) as exc:
        quick_args(ppo, "pepper_v0", "obs", "--zero-sum")
    assert exc.value.code == 2


def test_cpu_budget_stops_the_run(ppo, tmp_path):
    """A tiny CPU budget stops the run long before its steps: the run
    records that the budget stopped it, and saves the policy at the end."""
    total = 10**9
    args = quick_args(ppo, "pepper_v0", "obs", "--cpu-minutes", "1e-6", "--total-steps", str(total))
    args.run_dir = str(tmp_path / "run")
    summary = ppo.train(args)
    assert summary["stop_reason"] == "cpu_budget"
    assert summary["steps"] < total
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["stop_reason"] == "cpu_budget" and run["snapshots"][-1]["final"]
    assert MLPAgent.load(tmp_path / "run" / run["snapshots"][-1]["file"], game="pepper_v0")


def test_budget_and_run_dir_arguments_are_checked(ppo, tmp_path):
    for bad in (
        ["--cpu-minutes", "0"],
        ["--total-steps", "0"],
        ["--snapshot-every", "10"],  # no --run-dir
        ["--snapshot-every", "0.5", "--run-dir", str(tmp_path / "a")],
    ):
        with pytest.raises(SystemExit) as exc:
            ppo.parse_args(bad)
        assert exc.value.code == 2
    assert not (tmp_path / "a").exists()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "run.json").write_text("{}")
    with pytest.raises(SystemExit):
        ppo.parse_args(["--run-dir", str(tmp_path / "b")])
    args = ppo.parse_args(["--cpu-minutes", "5"])
    assert args.total_steps is None  # the budget alone decides
    assert ppo.parse_args([]).total_steps == 200_000


# --- the policy file ---------------------------------------------------------------------------
def saved(
    tmp_path, game="pepper_v0", obs_size=299, num_actions=39, config=None
) -> tuple[torch.nn.Module, pathlib.Path]:
    torch.manual_seed(0)
    actor = build_mlp(obs_size, [16, 8], num_actions)
    with torch.no_grad():
        for p in actor.parameters():
            p.add_(torch.randn_like(p))  # (not the initial near-zero logits: the argmax must tell)
    path = save_policy(
        tmp_path / "policy_000001",
        actor,
        game=game,
        config={"max_hands": 2} if config is None else config,
        obs_size=obs_size,
        num_actions=num_actions,
        hidden=[16, 8],
        training={"steps": 7},
    )
    return actor, path


def test_weights_round_trip_exactly_and_play_the_same(tmp_path):
    actor, path = saved(tmp_path)
    assert path.name == "policy_000001.json" and (tmp_path / "policy_000001.pt").is_file()
    loaded, meta = read_policy(tmp_path / "policy_000001.pt")
    assert meta["training"] == {"steps": 7} and meta["config"] == {"max_hands": 2}
    for (name, a), (name_b, b) in zip(actor.state_dict().items(), loaded.state_dict().items()):
        assert name == name_b and torch.equal(a, b)
    venv = V.make("pepper_v0", 8, seed=0)
    obs, info = venv.reset()
    mask = info["action_mask"]
    agent = MLPAgent.load(path, game="pepper_v0")
    with torch.no_grad():
        logits = actor(symlog(obs)).numpy()
    expected = np.where(mask, logits, -np.inf).argmax(axis=1)
    np.testing.assert_array_equal(agent.act_batch(obs, mask), expected)
    for stem in (tmp_path / "policy_000001", path):  # the stem or the JSON load the same policy
        np.testing.assert_array_equal(MLPAgent.load(stem).act_batch(obs, mask), expected)


def test_sampling_is_seeded_and_legal(tmp_path):
    _, path = saved(tmp_path)
    venv = V.make("pepper_v0", 64, seed=0)
    obs, info = venv.reset()
    mask = info["action_mask"]
    a = MLPAgent.load(path, greedy=False, seed=5).act_batch(obs, mask)
    b = MLPAgent.load(path, greedy=False, seed=5).act_batch(obs, mask)
    np.testing.assert_array_equal(a, b)
    assert mask[np.arange(64), a].all()


def test_loading_never_unpickles(tmp_path, monkeypatch):
    _, path = saved(tmp_path)

    def refuse(*args, **kwargs):
        raise AssertionError("pickle was called")

    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "Unpickler", refuse)
    agent = MLPAgent.load(path, game="pepper_v0")
    assert agent.obs_size == 299


def rewrite(path: pathlib.Path, **changes) -> None:
    meta = json.loads(path.read_text())
    meta.update(changes)
    path.write_text(json.dumps(meta))


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"format": "other"}, "not a cardenvs MLP policy"),
        ({"version": 2}, "version"),
        ({"obs_size": True}, "obs_size"),
        ({"obs_size": -3}, "obs_size"),
        ({"num_actions": "39"}, "num_actions"),
        ({"hidden": []}, "hidden"),
        ({"hidden": [16, 0]}, "hidden"),
        ({"activation": "relu"}, "activation"),
        ({"game": "chess_v0"}, "unknown game"),
        ({"config": [1]}, "config"),
        ({"weights": "../elsewhere.pt"}, "weights"),
        ({"sha256": "abc"}, "sha256"),
        ({"obs_size": 300}, "shape|is \\("),  # the digest still matches: the shapes do not
    ],
)
def test_a_tampered_json_is_a_value_error(tmp_path, changes, message):
    _, path = saved(tmp_path)
    rewrite(path, **changes)
    with pytest.raises(ValueError, match=message):
        MLPAgent.load(path)


def test_malformed_files_are_value_errors(tmp_path):
    _, path = saved(tmp_path)
    weights = tmp_path / "policy_000001.pt"
    with pytest.raises(ValueError, match="no such policy"):
        MLPAgent.load(tmp_path / "missing.json")
    text = path.read_text()
    path.write_text("{not json")
    with pytest.raises(ValueError, match="not JSON"):
        MLPAgent.load(path)
    path.write_text(json.dumps({k: v for k, v in json.loads(text).items() if k != "hidden"}))
    with pytest.raises(ValueError, match="missing"):
        MLPAgent.load(path)
    path.write_text(text)
    data = bytearray(weights.read_bytes())
    data[len(data) // 2] ^= 0xFF
    weights.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="sha256"):  # any change to the weights, before torch reads them
        MLPAgent.load(path)
    weights.unlink()
    with pytest.raises(ValueError, match="no such weights"):
        MLPAgent.load(path)


PADDING = torch.zeros(8000)  # (32 KB: more than the 21 KB of weights saved() declares)


class Smuggled:
    """An object torch.save pickles: weights_only loading must refuse it."""

    def __reduce__(self):
        return (print, ("code ran",))


@pytest.mark.parametrize(
    "content, message",
    [
        ([1, 2, 3, PADDING], "are not the network's"),
        ({"0.weight": torch.zeros(2, 2), "padding": PADDING}, "are not the network's"),
        ("shapes", "the network needs"),
        ("nan", "non-finite"),
        ([Smuggled(), PADDING], "not a torch state dict"),
        ({"0.weight": torch.zeros(2, 2)}, "fewer than"),  # (smaller than the declared weights: not even read)
    ],
)
def test_weights_that_do_not_fit_are_value_errors(tmp_path, content, message, capsys):
    """Weights replaced (and the digest updated to match, so the checks after
    it are reached): another object, other names, other shapes, NaNs, or a
    pickled callable, which is refused without being called; each as large
    as the declared weights (``PADDING``), else its size is refused first."""
    actor, path = saved(tmp_path)
    weights = tmp_path / "policy_000001.pt"
    state = actor.state_dict()
    if content == "shapes":
        content = {k: torch.zeros(*(s + 1 for s in v.shape)) for k, v in state.items()}
    elif content == "nan":
        content = {k: v.clone().fill_(float("nan")) for k, v in state.items()}
    torch.save(content, weights)
    rewrite(path, sha256=hashlib.sha256(weights.read_bytes()).hexdigest())
    with pytest.raises(ValueError, match=message):
        MLPAgent.load(path)
    assert "code ran" not in capsys.readouterr().out


def test_a_policy_for_another_game_is_refused(tmp_path):
    _, path = saved(tmp_path, game="spit_v0", obs_size=235, num_actions=33, config={"max_ticks": 40})
    agent = MLPAgent.load(path, game="spit_v0")
    with pytest.raises(ValueError, match="not pepper_v0"):
        MLPAgent.load(path, game="pepper_v0")
    with pytest.raises(ValueError, match="observations of 235"):  # Speed's observation is another size
        agent.check_game("spit_v0", variant="speed")
    venv = V.make("spit_v0", 2, seed=0)
    obs, info = venv.reset()
    with pytest.raises(ValueError, match="needs observations"):
        agent.act_batch(obs, info["action_mask"])  # both seats at once: not one seat's rows
    with pytest.raises(ValueError, match="no legal action"):
        agent.act_batch(obs[:, 0], np.zeros_like(info["action_mask"][:, 0]))
    assert play_legal(agent, "spit_v0", {}, steps=10) == 4 * 2 * 10  # 4 games, 2 seats, 10 steps


def test_the_arena_makes_a_saved_policy_from_its_spec(ppo, tmp_path):
    """``mlp:PATH`` in the arena's agent specs loads the policy (checked
    against the game); a missing file is the arena's clear AgentSpecError."""
    from cardenvs.agents.specs import AgentSpecError, agent_factory

    game = "pepper_v0"
    args = quick_args(ppo, game, "obs", "--total-steps", str(4 * 16), "--run-dir", str(tmp_path / "run"))
    ppo.train(args)
    (snap,) = json.loads((tmp_path / "run" / "run.json").read_text())["snapshots"]
    agent = agent_factory(game, f"mlp:{tmp_path / 'run' / snap['file']}", args.config)(3)
    assert isinstance(agent, MLPAgent) and play_legal(agent, game, args.config) > 0
    with pytest.raises(AgentSpecError, match="cannot be made"):
        agent_factory(game, f"mlp:{tmp_path / 'nothing.json'}", args.config)
