"""The learners' plumbing (no strength asserted): with opponents, only the
learner's own decisions are trained on, and the rule agent is never a
teacher; Deep Monte-Carlo's targets are each seat's own returns."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
from helpers import load_script

torch = pytest.importorskip("torch")

ROOT = pathlib.Path(__file__).resolve().parents[1]


def load(name: str):
    return load_script(f"examples/{name}.py", f"{name}_plumbing")


@pytest.fixture(scope="module")
def ppo():
    return load("selfplay_ppo")


@pytest.fixture(scope="module")
def dmc():
    return load("dmc")


@pytest.mark.parametrize("game, config", [("pepper_v0", {}), ("cancellation_hearts_v0", {"num_players": 6})])
def test_opponents_decisions_are_never_trained_on(ppo, game, config):
    """Against the rule agent in every game (share 1), the batch holds only
    the learner's side's decisions: never one of a seat the rule agent plays."""
    args = ppo.parse_args(
        ["--game", game, "--config", json.dumps(config), "--num-envs", "8", "--num-steps", "40", "--hidden", "16"]
        + ["--eval-games", "0", "--quiet", "--opponents", "rule=1"]
    )
    venv = ppo.V.SeatRewards(ppo.make_engine(args, 0))
    opponents = ppo.Opponents(args.opponent_mix, args, args.num_envs, 0)
    collector = ppo.SelfPlayCollector(venv, ppo.make_agent(args, venv), args.num_steps, 0, opponents)
    asked = []
    rule = opponents.agents["rule"]
    real = rule.act_batch
    rule.act_batch = lambda obs, mask: asked.append(len(obs)) or real(obs, mask)
    seen = 0
    for _ in range(3):
        batch = collector.collect(0.99, 0.95, 0.1)
        # a seat the rule agent plays never has a decision awaiting its reward: none is ever stored for training
        assert (collector.waiting[opponents.seats] == -1).all()
        seen += len(batch["action"])
    assert seen > 0 and sum(asked) > 0  # both sides played
    assert opponents.seats.any(axis=1).all()  # every game had an opponent side
    learner_seats = ~opponents.seats
    sides = opponents.sides
    for row in learner_seats:  # the learner holds exactly one side
        assert len(set(sides[row])) == 1


def test_the_rule_agent_is_no_teacher_by_default(ppo):
    """Plain self-play: no opponent, so no rule agent anywhere in the learner."""
    args = ppo.parse_args(["--eval-games", "0", "--quiet"])
    assert args.opponent_mix == {}
    for bad in ("teacher=1", "rule", "rule=2", "pool=0.6,random=0.6"):
        with pytest.raises(SystemExit):
            ppo.parse_args(["--opponents", bad])


def test_dmc_returns_are_each_seats_own(dmc):
    """Two seats alternate; rewards paid to each seat's decisions sum backwards along that seat only."""
    ep = dmc.Episodes(1, 2, 3, 4, simultaneous=False)
    obs, mask = np.zeros((1, 3)), np.ones((1, 4), bool)
    for t, seat in enumerate([0, 1, 0, 1, 0]):
        ep.record(np.array([0]), np.array([seat]), obs, mask, np.array([t % 4]))
        ep.pay(np.array([0]), np.array([seat]), np.array([float(10 * seat + t)]))
    _, _, actions, returns = ep.finish(np.array([0]))
    # seat 0's decisions earned 0, 2, 4; seat 1's 11, 13
    np.testing.assert_allclose(returns, [6, 24, 6, 13, 4])
    assert ep.finish(np.array([0])) is None  # the row starts afresh


def test_dmc_discount_weighs_a_reward_by_the_seats_own_later_decisions(dmc):
    """``--discount 0.5``: a reward k decisions of the same seat later counts
    0.5**k (the other seat's decisions in between do not count)."""
    ep = dmc.Episodes(1, 2, 3, 4, simultaneous=False, discount=0.5)
    obs, mask = np.zeros((1, 3)), np.ones((1, 4), bool)
    for t, seat in enumerate([0, 1, 0, 1, 0]):
        ep.record(np.array([0]), np.array([seat]), obs, mask, np.array([t % 4]))
        ep.pay(np.array([0]), np.array([seat]), np.array([float(10 * seat + t)]))
    _, _, _, returns = ep.finish(np.array([0]))
    # seat 0 earned 0, 2, 4 at its decisions; seat 1 earned 11, 13
    np.testing.assert_allclose(returns, [0 + 0.5 * (2 + 0.5 * 4), 11 + 0.5 * 13, 2 + 0.5 * 4, 13, 4])
    np.testing.assert_allclose(dmc.discounted_returns(np.array([1.0, 2.0, 3.0]), 1.0), [6, 5, 3])
    with pytest.raises(SystemExit):
        dmc.parse_args(["--discount", "0"])
    with pytest.raises(SystemExit):
        dmc.parse_args(["--discount", "1.5"])


def test_dmc_zero_sum_pays_a_seat_its_gain_on_the_other_sides(dmc):
    class Engine:
        def step(self, actions):
            return None, np.array([[3.0, 1.0, 3.0, 1.0]]), None, None, {}

    four = dmc.ZeroSum(Engine(), "pepper_v0", {"num_players": 4})  # partners 0, 2 against 1, 3
    np.testing.assert_allclose(four.step(None)[1], [[2.0, -2.0, 2.0, -2.0]])
    three = dmc.ZeroSum(Engine(), "cancellation_hearts_v0", {"num_players": 6})
    three.venv = type("E", (), {"step": lambda self, a: (None, np.arange(6.0)[None], None, None, {})})()
    got = three.step(None)[1][0]
    np.testing.assert_allclose(got, [i - (15 - i) / 5 for i in range(6)])


@pytest.mark.parametrize("game", ["pepper_v0", "spit_v0"])
def test_dmc_trains_briefly_and_its_policy_plays(dmc, game, tmp_path):
    from cardenvs.agents.mlp import MLPAgent

    args = dmc.parse_args(
        ["--game", game, "--total-steps", "4000", "--num-envs", "16", "--batch-size", "64", "--hidden", "16"]
        + ["--run-dir", str(tmp_path / "run"), "--quiet", "--updates-per-step", "1"]
    )
    record = dmc.train(args)
    assert record["steps"] >= 4000 and record["stop_reason"] == "total_steps"
    policy = tmp_path / "run" / record["snapshots"][-1]["file"]
    agent = MLPAgent.load(policy, game=game)
    assert agent.meta["training"]["algorithm"] == "dmc"


@pytest.mark.parametrize("game", ["cancellation_hearts_v0", "spit_v0"])
def test_dmc_learns_only_its_own_side_against_opponents(dmc, game, monkeypatch):
    """With ``--opponents rule=1`` every game has the rule agent on the other
    side(s), and no decision of a seat it plays is ever recorded (so never
    fitted): Deep Monte-Carlo learns from its own side only."""
    made, recorded = [], []

    class Spy(dmc.GreedyOpponents):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    real = dmc.Episodes.record

    def record(self, rows, seats, *rest):
        recorded.append((made[0].seats[rows, seats].copy(), len(rows)))
        return real(self, rows, seats, *rest)

    monkeypatch.setattr(dmc, "GreedyOpponents", Spy)
    monkeypatch.setattr(dmc.Episodes, "record", record)
    args = dmc.parse_args(
        ["--game", game, "--total-steps", "3000", "--num-envs", "8", "--batch-size", "32", "--hidden", "16"]
        + ["--quiet", "--opponents", "rule=1"]
    )
    record_ = dmc.train(args)
    assert record_["games"] > 0
    assert sum(n for _, n in recorded) > 0  # the learner decided
    assert not any(theirs.any() for theirs, _ in recorded)  # ... and only on its own seats
    opponents = made[0]
    assert opponents.seats.any(axis=1).all()  # every game had the rule agent on the other side
    for row in ~opponents.seats:  # the learner holds exactly one side
        assert len(set(opponents.sides[row])) == 1


def test_dmc_pool_snapshots_play_their_greedy_policy(dmc):
    """A past snapshot, drawn as an opponent, plays the legal action its
    Q-network values most (selfplay_ppo's population samples its logits)."""
    args = dmc.parse_args(["--game", "pepper_v0", "--opponents", "pool=1", "--num-envs", "3"])
    opponents = dmc.GreedyOpponents(args.opponent_mix, args, 3, 0)
    q = torch.nn.Linear(3, 4)
    with torch.no_grad():
        q.weight.zero_(), q.bias.copy_(torch.tensor([5.0, 5.001, 9.0, 2.0]))
    opponents.snapshot(q)
    mask = np.array([[1, 1, 1, 1], [1, 1, 0, 1], [1, 0, 0, 1]], bool)
    for _ in range(50):
        rows = np.arange(3)
        opponents.new_games(rows)
        seats = opponents.seats.argmax(1)  # a seat the opponent plays in each game
        action = np.full(3, -1)
        theirs = opponents.play(rows, seats, np.zeros((3, 3), np.float32), mask, action)
        assert theirs.all()
        np.testing.assert_array_equal(action, [2, 1, 0])


def test_dmc_keeps_snapshots_for_its_pool(dmc, monkeypatch):
    """``pool=1``: a snapshot is kept every ``--pool-every-steps``, the last ``--pool-size`` of them."""
    made = []

    class Spy(dmc.GreedyOpponents):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(dmc, "GreedyOpponents", Spy)
    args = dmc.parse_args(
        ["--game", "pepper_v0", "--total-steps", "4000", "--num-envs", "16", "--batch-size", "32", "--hidden", "16"]
        + ["--quiet", "--opponents", "pool=1", "--pool-every-steps", "500", "--pool-size", "3"]
    )
    dmc.train(args)
    assert len(made[0].pool) == 3  # 8 snapshots taken, the last 3 kept
    with pytest.raises(SystemExit):
        dmc.parse_args(["--opponents", "teacher=1"])
