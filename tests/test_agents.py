"""Agents, the training environments' reward accounting, masks handed to
MaskablePPO, evaluation, and a short training run that must learn."""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs.vector as V
from cardenvs import pepper_v0
from cardenvs.agents.base import RandomAgent
from cardenvs.evaluation.matches import match, wilson_interval
from cardenvs.games.pepper.agent import PepperRuleAgent
from cardenvs.training.seat_env import SeatEnv

sb3 = pytest.importorskip("sb3_contrib", reason="training extras (sb3-contrib) not installed")


def play_seat_env(env: SeatEnv, rng, episodes: int):
    """Random learner; returns per episode (seat, summed reward, final state)."""
    out = []
    env.reset(seed=int(rng.integers(1000)))
    for _ in range(episodes):
        total, done = 0.0, False
        while not done:
            mask = env.action_masks()
            _, r, done, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            total += r
        out.append((info["seat"], total, info["final_state"]))
        env.reset()
    return out


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_seat_env_rewards_sum_to_the_learners_score(num_players):
    """score_delta over whole games: the learner's summed rewards equal its
    seat's final score, whichever seat it plays and whoever ended the hands."""
    env = SeatEnv(
        "pepper_v0",
        num_players=num_players,
        max_hands=3,
        reward="score_delta",
        opponents=PepperRuleAgent(),
        seed=num_players,
    )
    seats = set()
    for seat, total, final in play_seat_env(env, np.random.default_rng(0), 12):
        seats.add(seat)
        assert total == final["scores"][seat]
    assert len(seats) > 1  # the learner's seat varies


def test_seat_env_terminal_win_loss_reward_is_delivered():
    env = SeatEnv("pepper_v0", max_hands=1, opponents=RandomAgent(1), seed=3)
    for seat, total, final in play_seat_env(env, np.random.default_rng(1), 20):
        won = seat in final["winners"]
        assert total == (1.0 if won else -1.0)


def test_seat_env_fixed_seat_and_masks():
    env = SeatEnv("pepper_v0", seat=2, max_hands=1, seed=0)
    obs, info = env.reset(seed=0)
    assert info["seat"] == 2 and obs.shape == env.observation_space.shape
    assert env.raw.agent_selection == "player_2"
    mask = env.action_masks()
    assert mask.dtype == bool and np.array_equal(mask, env.raw._state.legal[0])
    with pytest.raises(ValueError):
        env.step(int(np.flatnonzero(~mask)[0]))
    with pytest.raises(ValueError):
        SeatEnv("pepper_v0", seat=4)


def test_seat_vec_env_reward_accounting_per_seat():
    """Every game's summed learner rewards equal the learner seat's final
    score (score_delta), for learners in every seat, and episode infos carry
    the terminal observation."""
    from cardenvs.training.seat_env import SeatVecEnv

    env = SeatVecEnv("pepper_v0", 16, opponents=PepperRuleAgent(), seed=0, max_hands=2, reward="score_delta")
    env.reset()
    rng = np.random.default_rng(0)
    totals = np.zeros(16)
    checked = set()
    for _ in range(400):
        masks = np.stack(env.env_method("action_masks"))
        assert masks.shape == (16, 39)
        actions = (rng.random(masks.shape) * masks).argmax(1)
        _, rewards, dones, infos = env.step(actions)
        totals += rewards
        for i in np.flatnonzero(dones):
            seat = infos[i]["seat"]
            assert seat == i % 4
            assert totals[i] == infos[i]["final_scores"][seat] == infos[i]["episode"]["r"]
            assert infos[i]["terminal_observation"].shape == (299,)
            checked.add(seat)
            totals[i] = 0
    assert checked == {0, 1, 2, 3}


@pytest.mark.parametrize("num_players", [3, 4])
def test_seat_vec_env_relative_reward_is_zero_sum(num_players):
    """reward_mode="relative": the learner's summed rewards equal its seat's
    final score minus the mean of its opponents' (partners are not opponents)."""
    from cardenvs.training.seat_env import SeatVecEnv

    env = SeatVecEnv(
        "pepper_v0", 8, seed=1, reward_mode="relative", num_players=num_players, max_hands=2, reward="score_delta"
    )
    env.reset()
    rng = np.random.default_rng(1)
    totals = np.zeros(8)
    ended = 0
    for _ in range(300):
        masks = env.action_masks()
        _, rewards, dones, infos = env.step((rng.random(masks.shape) * masks).argmax(1))
        totals += rewards
        for i in np.flatnonzero(dones):
            seat, scores = infos[i]["seat"], infos[i]["final_scores"]
            opponents = [s for s in range(num_players) if s != seat and (num_players < 4 or s % 2 != seat % 2)]
            assert totals[i] == pytest.approx(scores[seat] - np.mean([scores[s] for s in opponents]))
            totals[i] = 0
            ended += 1
    assert ended > 8
    with pytest.raises(ValueError):
        SeatVecEnv("pepper_v0", 2, reward_mode="own")


def test_maskable_ppo_gets_the_learners_masks_and_acts_legally():
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    from cardenvs.training.seat_env import SeatVecEnv

    env = SeatVecEnv("pepper_v0", 8, seed=1, max_hands=1)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, seed=0, device="cpu")
    obs = env.reset()
    for _ in range(60):
        masks = get_action_masks(env)
        np.testing.assert_array_equal(masks, env.engine.state.legal)
        assert (env.engine.state.current == env.learner_seat).all()
        actions, _ = model.predict(obs, action_masks=masks)
        assert masks[np.arange(8), actions].all()
        obs, _, _, _ = env.step(actions)
    model.learn(256)  # a rollout and an update go through


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_agents_only_choose_legal_actions(num_players):
    rule, rnd = PepperRuleAgent(), RandomAgent(0)
    env = pepper_v0.env(num_players=num_players, max_hands=3)
    for seed in range(5):
        env.reset(seed=seed)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            choices = {
                rule.act(obs["observation"], obs["action_mask"]),
                rnd.act(obs["observation"], obs["action_mask"]),
            }
            assert all(obs["action_mask"][a] for a in choices)
            env.step(choices.pop())


RULE_CASES = [
    ("cancellation_hearts_v0", {"num_players": 6, "max_hands": 2}),
    ("cancellation_hearts_v0", {"num_players": 11, "max_hands": 1}),
    ("push_v0", {"rounds": [1, 3]}),
    ("spit_v0", {}),
    ("spit_v0", {"variant": "speed"}),
    ("spit_v0", {"stockpiles": 4, "alternate_colors": True}),
]


@pytest.mark.parametrize("game,config", RULE_CASES, ids=[f"{g}-{c}" for g, c in RULE_CASES])
def test_every_games_agents_choose_only_legal_actions(game, config):
    """Random play of whole games where, in every state met, the rule-based and
    random agents' choices are legal (the engine would raise otherwise)."""
    import cardenvs
    from cardenvs.agents.registry import make_agent

    rule, rnd = make_agent(game, "rule", **config), RandomAgent(0)
    parallel = game == "spit_v0"
    for seed in range(2):
        if parallel:
            from cardenvs import spit_v0

            env = spit_v0.parallel_env(**config)
            obs, _ = env.reset(seed=seed)
            while env.agents:
                acts = {}
                for k, ag in enumerate(env.agents):
                    o, m = obs[ag]["observation"], obs[ag]["action_mask"]
                    choices = [rule.act(o, m), rnd.act(o, m)]
                    assert all(m[a] for a in choices)
                    acts[ag] = choices[k % 2]
                obs, *_ = env.step(acts)
        else:
            env = cardenvs.make(game, **config)
            env.reset(seed=seed)
            for k, _agent in enumerate(env.agent_iter()):
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                choices = [
                    rule.act(obs["observation"], obs["action_mask"]),
                    rnd.act(obs["observation"], obs["action_mask"]),
                ]
                assert all(obs["action_mask"][a] for a in choices)
                env.step(choices[k % 2])


@pytest.mark.parametrize(
    "game,config", [c for c in RULE_CASES if "max_hands" not in c[1] or c[1]["max_hands"] > 1], ids=lambda x: str(x)
)
def test_every_rule_agent_beats_random(game, config):
    from cardenvs.agents.registry import make_agent

    res = match(game, make_agent(game, "rule", **config), RandomAgent(3), num_games=24, seed=5, **config)
    n = V.rules_class(game)(**config).num_players
    chance = 0.5 if game in ("push_v0", "spit_v0") else 1 / n
    assert res.ci[0] > chance, str(res)


def test_partnership_games_put_one_agent_on_a_whole_team():
    """Push and 4-player Pepper are partnership games: evaluation puts one
    agent on a whole team and training gives the learner its `partner`."""
    assert V.rules_class("push_v0")().partnerships
    assert V.rules_class("pepper_v0")(num_players=4).partnerships
    assert not V.rules_class("pepper_v0")(num_players=3).partnerships
    assert not V.rules_class("cancellation_hearts_v0")().partnerships

    from cardenvs.training.seat_env import SeatVecEnv

    env = SeatVecEnv("push_v0", 4, rounds=[1])
    assert env._partner_rel == 2


def test_rule_agent_beats_random_and_evaluation_reports_ci():
    res = match("pepper_v0", PepperRuleAgent(), RandomAgent(0), num_games=60, seed=1)
    lo, hi = res.ci
    assert res.games == 60 and lo > 0.8 and res.mean_score > res.mean_opponent_score
    assert wilson_interval(50, 100) == pytest.approx((0.4038, 0.5962), abs=1e-3)
    # random against itself is an even match
    even = match("pepper_v0", RandomAgent(1), RandomAgent(2), num_games=60, seed=2, max_hands=2)
    assert even.ci[0] < 0.5 < even.ci[1]


def test_short_training_run_learns_against_random(tmp_path):
    """A short MaskablePPO run on single hands must beat random in full
    2-player games by a clear margin (an untrained policy is random)."""
    from cardenvs.agents.policy import PolicyAgent
    from cardenvs.training.ppo import TrainConfig, train

    cfg = TrainConfig(
        game="pepper_v0",
        env_config={"num_players": 2, "max_hands": 1, "reward": "score_delta"},
        eval_config={"num_players": 2, "max_hands": 10},
        fixed_steps=24_576,
        selfplay_steps=4096,
        snapshot_every=2048,
        num_envs=32,
        n_steps=64,
        batch_size=512,
        eval_games=100,
        seed=0,
    )
    summary = train(
        cfg,
        PepperRuleAgent(),
        tmp_path,
        tmp_path / "model.zip",
        opponent="random",
        progress_bar=False,
        log=lambda *a: None,
    )
    vs_random = summary["results"][0]
    assert vs_random["opponent"] == "random"
    assert vs_random["ci95"][0] > 0.6, vs_random
    assert (tmp_path / "learning_curve.png").stat().st_size > 0
    assert (tmp_path / "model.zip").exists()
    reloaded = PolicyAgent(tmp_path / "model.zip")
    again = match("pepper_v0", reloaded, RandomAgent(5), num_games=40, seed=3, num_players=2, max_hands=10)
    assert again.win_rate > 0.5


@pytest.mark.parametrize("script", ["train_spit.py", "train_cancellation_hearts.py", "train_push.py"])
def test_train_scripts_run_end_to_end(script, tmp_path):
    """Each game's training script trains (a rollout and a self-play update),
    saves (a policy file, or an SB3 zip for a path ending in .zip), plots
    and evaluates, on a tiny budget."""
    import json
    import pathlib
    import subprocess
    import sys

    from cardenvs.agents.checkpoint import read_checkpoint

    root = pathlib.Path(__file__).resolve().parents[1]
    saved = "model.zip" if script == "train_spit.py" else "model.npz"
    out = subprocess.run(
        [
            sys.executable,
            str(root / "examples" / script),
            "--fixed-steps",
            "256",
            "--selfplay-steps",
            "256",
            "--eval-games",
            "2",
            "--num-envs",
            "4",
            "--no-progress",
            "--run-dir",
            str(tmp_path),
            "--save",
            str(tmp_path / saved),
            "--set",
            "n_epochs=2",
            *(
                [
                    "--env",
                    "max_ticks=700",
                    "--advice",
                    "--advisor",
                    "deny=True",
                    "--set",
                    "advice_weight=2.5",
                    "--set",
                    "checkpoint_every=128",
                    "--select-every",
                    "128",
                    "--select-games",
                    "6",
                ]
                if script == "train_spit.py"
                else []
            ),
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert [r["opponent"] for r in summary["results"]] == ["random", "rule"]
    assert (tmp_path / saved).exists() and (tmp_path / "learning_curve.png").exists()
    assert read_checkpoint(tmp_path / saved).kind == ("sb3" if saved.endswith(".zip") else "cardenvs")
    assert read_checkpoint(tmp_path / "final_model.zip").kind == "sb3"  # (to train on)
    assert summary["config"]["n_epochs"] == 2  # --set reached the run and its record
    if script == "train_spit.py":
        assert summary["config"]["env_config"]["max_ticks"] == 700
        assert abs(summary["advice_weight_kept"] - 2.5) < 0.5  # started at 2.5, a few updates since
        assert "256 steps, " in out.stdout and "CPU-min" in out.stdout  # progress lines without the bar
        from cardenvs.agents.registry import make_agent
        from cardenvs.evaluation.matches import match

        rule = make_agent("spit_v0", "rule")
        selection = summary["selection"]
        assert len(selection["history"]) >= 2 and selection["games"] == 6
        assert selection["rule_reference"] == match("spit_v0", rule, rule, 6, seed=selection["seed"]).win_rate
        # the teacher's options are saved with the policy: make_agent plays it with the same teacher
        assert summary["config"]["advisor_options"] == {"deny": True}
        trained = make_agent("spit_v0", f"ppo:{tmp_path / 'model.zip'}")
        assert trained.advisor.deny and not rule.deny


def test_train_script_refuses_advisor_options_without_advice(tmp_path):
    import pathlib
    import subprocess
    import sys

    root = pathlib.Path(__file__).resolve().parents[1]
    out = subprocess.run(
        [
            sys.executable,
            str(root / "examples" / "train_spit.py"),
            "--advisor",
            "deny=True",
            "--run-dir",
            str(tmp_path),
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode != 0 and "it needs --advice" in out.stderr
    assert not (tmp_path / "summary.json").exists()


def test_training_overrides_parse_literals_and_refuse_unknown_fields_and_types():
    from cardenvs.training.ppo import TRAIN_FIELDS, parse_overrides

    got = parse_overrides(["advice_weight=2", "net_arch=(64, 64)", "reward_mode=seat"], TRAIN_FIELDS, "--set")
    assert got == {"advice_weight": 2, "net_arch": (64, 64), "reward_mode": "seat"}
    assert parse_overrides(["max_ticks=900", "reward=cards_shed"], None, "--env") == {
        "max_ticks": 900,
        "reward": "cards_shed",
    }
    for bad, words in [
        (["advice_wieght=2"], "unknown field 'advice_wieght'"),
        (["n_epochs=2.5"], "n_epochs takes a int"),
        (["advice=1"], "advice takes a bool"),
        (["net_arch=wide"], "net_arch takes a tuple"),
        (["n_epochs"], "NAME=VALUE"),
    ]:
        with pytest.raises(ValueError, match=words):
            parse_overrides(bad, TRAIN_FIELDS, "--set")


@pytest.mark.slow
def test_full_pepper_training_wins_90_percent_against_random(tmp_path):
    """The long version (make test-full, ~10 min): 4-player Pepper trained on
    single hands against the rule-based agent wins >= 90% of full games
    against random (lower end of the 95% interval)."""
    from cardenvs.training.ppo import TrainConfig, train

    cfg = TrainConfig(
        game="pepper_v0",
        env_config={"max_hands": 1, "reward": "score_delta"},
        fixed_steps=300_000,
        reward_mode="relative",
        gamma=1.0,
        eval_games=200,
        seed=0,
    )
    summary = train(cfg, PepperRuleAgent(), tmp_path, None, progress_bar=False, log=lambda *a: None)
    assert summary["results"][0]["ci95"][0] >= 0.9, summary["results"]


# ---------------------------------------------------------------- rule advice
ADVICE_CASES = [
    ("pepper_v0", {"num_players": 4}),
    ("cancellation_hearts_v0", {"num_players": 6}),
    ("spit_v0", {}),
    ("push_v0", {"rounds": [1]}),
]


@pytest.mark.parametrize("game,config", ADVICE_CASES, ids=[g for g, _ in ADVICE_CASES])
def test_advised_observation_appends_the_rule_agents_action(game, config):
    from cardenvs.agents.advice import advised_observation
    from cardenvs.agents.registry import rule_agent
    from cardenvs.training.seat_env import learner_vec_env

    rule = rule_agent(game, **config)
    env = learner_vec_env(game, 6, opponents=RandomAgent(0), seed=2, advisor=rule, **config)
    obs = env.reset()
    rules = env.rules
    assert obs.shape == (6, rules.obs_size + rules.num_actions) and obs.dtype == np.float32
    assert env.observation_space.shape == obs.shape[1:]
    for _ in range(20):
        masks = env.action_masks()
        advice = obs[:, rules.obs_size :]
        # exactly one advised action per game, legal, and the rule agent's own choice
        assert (advice.sum(axis=1) == 1).all()
        chosen = advice.argmax(axis=1)
        assert masks[np.arange(6), chosen].all()
        np.testing.assert_array_equal(chosen, rule.act_batch(obs[:, : rules.obs_size], masks))
        obs, _, _, _ = env.step(RandomAgent(1).act_batch(None, masks))
    # a finished game (no legal action) gets no advice
    none = advised_observation(rule, obs[:2, : rules.obs_size], np.zeros((2, rules.num_actions), bool))
    assert not none[:, rules.obs_size :].any()


def test_fresh_advised_policy_plays_like_the_rule_agent_and_round_trips(tmp_path):
    """A new AdvisedPolicy's logits are ~0 except the advice bonus, so played
    greedily it makes exactly the rule agent's choices; saved and loaded it
    keeps its advice size, needs its advisor, and make_agent supplies it."""
    from sb3_contrib import MaskablePPO

    from cardenvs.agents.advice import AdvisedPolicy, advice_size
    from cardenvs.agents.policy import PolicyAgent
    from cardenvs.agents.registry import make_agent
    from cardenvs.training.seat_env import learner_vec_env

    rule = PepperRuleAgent()
    env = learner_vec_env("pepper_v0", 8, opponents=rule, partner=rule, seed=0, advisor=rule, max_hands=1)
    model = MaskablePPO(
        AdvisedPolicy,
        env,
        n_steps=16,
        batch_size=64,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [32, 32], "advice_size": env.action_space.n},
    )
    agent = PolicyAgent(model, advisor=rule)
    venv = V.make("pepper_v0", num_envs=64, seed=4)
    obs, info = venv.reset()
    for _ in range(40):
        mask = info["action_mask"]
        np.testing.assert_array_equal(agent.act_batch(obs, mask), rule.act_batch(obs, mask))
        obs, _, _, _, info = venv.step(RandomAgent(2).act_batch(obs, mask))
    model.learn(256)  # a rollout and an update go through (the advice weight is trained too)
    path = tmp_path / "advised.zip"
    model.save(path)
    loaded = MaskablePPO.load(path, device="cpu")
    assert advice_size(loaded) == env.action_space.n
    with pytest.raises(ValueError, match="advisor"):
        PolicyAgent(loaded)
    again = make_agent("pepper_v0", f"ppo:{path}")
    assert again.advisor is not None
    res = match("pepper_v0", again, RandomAgent(3), num_games=4, seed=1, max_hands=5)
    assert res.games == 4
    # as a policy file: the same actions as the SB3 zip (and as the model itself)
    from cardenvs.agents.policy import save_policy

    safe = make_agent("pepper_v0", f"ppo:{save_policy(model, tmp_path / 'advised.npz')}")
    obs, info = venv.reset()
    for _ in range(20):
        mask = info["action_mask"]
        played = agent.act_batch(obs, mask)
        np.testing.assert_array_equal(safe.act_batch(obs, mask), played)
        np.testing.assert_array_equal(again.act_batch(obs, mask), played)
        obs, _, _, _, info = venv.step(RandomAgent(2).act_batch(obs, mask))


def test_match_verdict_claims_a_win_only_above_chance():
    from cardenvs.evaluation.matches import MatchResult

    def result(wins: int, chance: float = 0.5) -> MatchResult:
        return MatchResult("ppo", "rule", 1000, wins, 0, 0.0, 0.0, chance=chance)

    assert result(560).verdict().startswith("ppo beats rule")  # [52.9%, 59.0%]
    assert result(520).verdict().startswith("ppo does not beat rule yet")  # [48.9%, 55.1%]
    assert result(440).verdict().startswith("ppo loses to rule")
    assert result(200, chance=1 / 6).verdict().startswith("ppo beats rule")  # [17.6%, 22.6%] vs 16.7%


def test_tournament_rows_plays_only_those_agents_matches():
    from cardenvs.agents.registry import make_agent
    from cardenvs.evaluation.matches import format_table, tournament

    agents = [make_agent("spit_v0", "random", seed=1), make_agent("spit_v0", "rule")]
    table = tournament("spit_v0", agents, 4, seed=0, rows=["rule"])
    assert table[0] == [None, None] and table[1][0] is not None and table[1][1] is None
    lines = format_table(agents, table).splitlines()
    assert len(lines) == 3 and lines[2].startswith("| rule |")


def test_training_on_from_an_advised_model_keeps_its_teacher(tmp_path):
    """``init_model``: the saved teacher's options are used (and recorded);
    other options given for it are refused before anything trains."""
    from cardenvs.agents.registry import make_agent, rule_agent
    from cardenvs.training.ppo import TrainConfig, train

    small = dict(fixed_steps=64, num_envs=4, n_steps=16, batch_size=64, eval_games=2, advice=True)
    first = TrainConfig("spit_v0", advisor_options={"deny": True}, **small)
    train(first, rule_agent("spit_v0"), tmp_path / "a", tmp_path / "a.zip", progress_bar=False, log=lambda *a: None)
    on = TrainConfig("spit_v0", init_model=str(tmp_path / "a.zip"), **small)
    summary = train(
        on, rule_agent("spit_v0"), tmp_path / "b", tmp_path / "b.zip", progress_bar=False, log=lambda *a: None
    )
    assert summary["config"]["advisor_options"] == {"deny": True}
    assert make_agent("spit_v0", f"ppo:{tmp_path / 'b.zip'}").advisor.deny
    other = TrainConfig("spit_v0", init_model=str(tmp_path / "a.zip"), advisor_options={"deny": False}, **small)
    with pytest.raises(ValueError, match="its own teacher"):
        train(other, rule_agent("spit_v0"), tmp_path / "c", None, progress_bar=False, log=lambda *a: None)
    assert not (tmp_path / "c" / "summary.json").exists()


def test_a_wall_time_budget_stops_training_and_skips_later_stages(tmp_path):
    """wall_seconds (``--minutes``): once the time is up, learning stops
    (SB3's callback returns False) and later stages are skipped; the run
    still evaluates. The budget is far below one rollout, so the run stops
    at its first step whatever the machine's speed."""
    from cardenvs.training.ppo import TrainConfig, train

    lines: list[str] = []
    cfg = TrainConfig(
        game="pepper_v0",
        env_config={"num_players": 2, "max_hands": 1, "reward": "score_delta"},
        eval_config={"num_players": 2, "max_hands": 2},
        fixed_steps=10**9,
        selfplay_steps=10**9,
        wall_seconds=1e-9,
        num_envs=8,
        n_steps=16,
        batch_size=64,
        eval_games=4,
        seed=0,
    )
    summary = train(cfg, PepperRuleAgent(), tmp_path, None, opponent="random", progress_bar=False, log=lines.append)
    assert summary["run_timesteps"] <= cfg.num_envs * cfg.n_steps
    assert any(line.startswith("time is up") for line in lines)
    assert not any(line.startswith("stage 2") for line in lines)
    assert len(summary["results"]) == 2
