"""Duplicate matches (cardenvs.evaluation.duplicate): the same deals in every
seating, replays from the seed, the outcomes and the paired interval."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from cardenvs.agents.base import Agent, RandomAgent
from cardenvs.agents.registry import make_agent
from cardenvs.evaluation.duplicate import (
    AgentError,
    DuplicateRecord,
    duplicate_match,
    duplicate_seatings,
    finishing_ranks,
    pair_values,
    paired_interval,
    play_duplicate,
    summarise_pair,
    t_quantile,
    win_shares,
)
from cardenvs.evaluation.duplicate_play import Copy
from cardenvs.vector import rules_class

TURN_BASED = [
    ("pepper_v0", {}),
    ("pepper_v0", {"num_players": 3}),
    ("cancellation_hearts_v0", {}),
    ("push_v0", {}),
]


def deal_seen(game: str, config: dict, agent: Agent, key: int, deal: int, rows: int = 3) -> list[dict]:
    """Each row's state_dict right after its ``deal``-th deal (0: at reset),
    the games played by ``agent`` at every seat."""
    copy = Copy(game, config, rows, key, False)
    seen: dict[int, dict] = {}
    try:
        while len(seen) < rows:
            for row in range(rows):
                if row not in seen and copy.state.hand_number[row] == deal:
                    seen[row] = copy.engine.state_dict(row)
            live = copy.live()
            obs, mask = copy.observe(live, None)
            actions = np.zeros(rows, np.int64)
            actions[live] = agent.act_batch(obs, mask)
            copy.step(actions)
    finally:
        copy.close()
    return [seen[row] for row in range(rows)]


def cards_by_seat(d: dict) -> dict:
    keep = ("hands", "dealer", "stock", "discard", "widow", "dead_hand")
    return {k: d[k] for k in keep if k in d}


@pytest.mark.parametrize("game, config", TURN_BASED)
def test_the_same_deal_by_seat_in_every_copy(game, config):
    # two copies keyed alike, played differently (the rule agent everywhere, random play everywhere):
    # the same cards at every seat at the reset and right after the 2nd deal
    rule, rand = make_agent(game, "rule", **config), RandomAgent(5)
    for deal in (0, 1):
        a = deal_seen(game, config, rule, key=77, deal=deal)
        b = deal_seen(game, config, rand, key=77, deal=deal)
        assert [cards_by_seat(x) for x in a] == [cards_by_seat(x) for x in b]
        assert all(x["hand_number"] == deal for x in a + b)
    other = deal_seen(game, config, rand, key=78, deal=0)
    assert [cards_by_seat(x) for x in other] != [cards_by_seat(x) for x in a]


@pytest.mark.parametrize("variant", ["spit", "speed"])
def test_spit_copies_share_the_first_deal(variant):
    def first(key: int) -> list[dict]:
        copy = Copy("spit_v0", {"variant": variant}, 3, key, False)
        try:
            return [copy.engine.state_dict(row) for row in range(3)]
        finally:
            copy.close()

    strip = ("tick",)
    a, b = first(5), first(5)
    assert [{k: v for k, v in d.items() if k not in strip} for d in a] == [
        {k: v for k, v in d.items() if k not in strip} for d in b
    ]
    assert first(6) != a


def test_seatings_per_game():
    pepper4 = duplicate_seatings(rules_class("pepper_v0")())
    assert pepper4.tolist() == [[0, 1, 0, 1], [1, 0, 1, 0]]
    assert duplicate_seatings(rules_class("spit_v0")()).tolist() == [[0, 1], [1, 0]]
    assert duplicate_seatings(rules_class("pepper_v0")(num_players=2)).tolist() == [[0, 1], [1, 0]]
    hearts_rules = rules_class("cancellation_hearts_v0")(num_players=7)
    hearts = duplicate_seatings(hearts_rules)
    # free-for-all: agent 0 alone at every seat once among copies of agent 1, never the other way round
    assert hearts.shape == (7, 7) and (hearts == 1 - np.eye(7)).all()
    mirror = duplicate_seatings(hearts_rules, mirror=True)  # (two agents that cannot collude: both ways)
    assert mirror.shape == (14, 7)
    assert (mirror[:7] == 1 - np.eye(7)).all() and (mirror[7:] == np.eye(7)).all()


def test_a_run_replays_from_its_seed():
    def run(seed: int) -> DuplicateRecord:
        agents = [RandomAgent(seed + 1), RandomAgent(seed + 2)]
        return play_duplicate("pepper_v0", agents, 6, seed=seed, batch=4, num_players=3, max_hands=3)

    a, b, c = run(3), run(3), run(4)
    assert a.to_json() == b.to_json()
    assert a.scores.shape == (6, 3, 3)  # (free-for-all: agent 0 alone at each of the 3 seats)
    assert not np.array_equal(a.scores, c.scores)
    assert DuplicateRecord.from_json(a.to_json()).to_json() == a.to_json()


def test_copies_played_alike_are_the_same_game():
    # one deterministic agent in every seat of both seatings: each deal's copies are one game (coins included)
    rule = make_agent("spit_v0", "rule")
    b = play_duplicate("spit_v0", [rule, rule], 5, seed=9, batch=5)
    assert b.deals == 5
    assert (b.winners[:, 0] == b.winners[:, 1]).all() and (b.scores[:, 0] == b.scores[:, 1]).all()


def test_plain_callables_and_independent_deals():
    def first_legal(obs, mask):
        return np.asarray(mask).argmax(axis=1)

    result = duplicate_match("push_v0", make_agent("push_v0", "rule"), first_legal, deals=4, seed=1, batch=4)
    assert result.a == "rule" and result.b == "first_legal" and result.deals == 4 and result.games == 8
    assert result.mean > 0
    ind = play_duplicate("spit_v0", [RandomAgent(1), RandomAgent(2)], 4, seed=1, independent=True)
    dup = play_duplicate("spit_v0", [RandomAgent(1), RandomAgent(2)], 4, seed=1)
    assert ind.independent and not dup.independent
    assert ind.scores.shape == dup.scores.shape


class Faulty(Agent):
    """Random play, but on its ``bad_call``-th call it raises (or plays an illegal action)."""

    def __init__(self, bad_call: int, how: str = "raise"):
        super().__init__()
        self.name, self.calls, self.bad_call, self.how = "faulty", 0, bad_call, how
        self.random = RandomAgent(0)

    def act_batch(self, obs, mask):
        self.calls += 1
        actions = self.random.act_batch(obs, mask)
        if self.calls == self.bad_call:
            if self.how == "raise":
                raise RuntimeError("boom")
            actions[0] = int(np.flatnonzero(~np.asarray(mask[0], bool))[0])
        return actions


@pytest.mark.parametrize("how", ["raise", "illegal"])
def test_faults_forfeit_games_or_stop_a_strict_match(how):
    record = play_duplicate("pepper_v0", [Faulty(3, how), RandomAgent(1)], 4, seed=0, num_players=2)
    lost = record.forfeited()
    assert lost[0] >= 1 and lost[1] == 0
    ranks = record.ranks()
    faulted = record.forfeits.any(axis=2)
    # the forfeiting side finishes last, the other first
    for d, s in zip(*np.nonzero(faulted)):
        seat = int(np.flatnonzero(record.forfeits[d, s])[0])
        assert ranks[d, s, seat] == 1 and ranks[d, s, 1 - seat] == 0
    with pytest.raises(AgentError, match=r"agent faulty .* in deal \d"):
        play_duplicate("pepper_v0", [Faulty(3, how), RandomAgent(1)], 4, seed=0, strict=True, num_players=2)


def test_finishing_places_and_win_shares_on_given_games():
    sides = np.arange(3)
    scores = np.array([[10.0, 30.0, 20.0], [5.0, 5.0, 1.0], [3.0, 3.0, 3.0]])
    winners = np.array([[0, 1, 0], [1, 1, 0], [0, 0, 0]], bool)  # the last: no winner (a draw)
    none = np.zeros((3, 3), bool)
    ranks = finishing_ranks(scores, winners, none, sides, low_score_wins=False)
    assert ranks.tolist() == [[2, 0, 1], [0, 0, 2], [0, 0, 0]]
    assert win_shares(ranks, sides).tolist() == [[0, 1, 0], [0.5, 0.5, 0], [1 / 3, 1 / 3, 1 / 3]]
    # the lowest score wins: the others placed by their score, lowest first
    low = finishing_ranks(np.array([[40.0, 9.0, 20.0]]), np.array([[0, 1, 0]], bool), none[:1], sides, True)
    assert low.tolist() == [[2, 0, 1]]
    # a forfeit: that seat last, the others tied first (whatever the scores)
    lost = finishing_ranks(scores[:1], winners[:1], np.array([[0, 1, 0]], bool), sides, False)
    assert lost.tolist() == [[0, 2, 0]]
    # teams: partners share a place, a team counts once
    team = finishing_ranks(
        np.array([[7.0, 3.0, 7.0, 3.0]]),
        np.array([[1, 0, 1, 0]], bool),
        np.zeros((1, 4), bool),
        np.array([0, 1, 0, 1]),
        False,
    )
    assert team.tolist() == [[0, 1, 0, 1]]


def test_pair_values_on_given_games():
    # two deals of 2-player Spit: deal 0 agent 0 won both seatings; deal 1 each won once
    seatings = np.array([[0, 1], [1, 0]])
    winners = np.array([[[1, 0], [0, 1]], [[1, 0], [1, 0]]], bool)
    record = DuplicateRecord(
        "spit_v0",
        {},
        0,
        64,
        ["a", "b"],
        seatings,
        np.arange(2),
        False,
        winners.astype(float),
        winners,
        np.zeros_like(winners),
    )
    assert pair_values(record).tolist() == [1.0, 0.0]
    result = summarise_pair(record)
    assert result.mean == 0.5 and result.games == 4 and result.deals == 2


def test_paired_interval_arithmetic():
    mean, low, high = paired_interval([1, 0, -1, 1, 1])
    # mean 0.4, sd sqrt(3.2 / 4), t(0.975, 4) = 2.7764
    half = 2.7764451 * np.sqrt(0.8) / np.sqrt(5)
    assert mean == pytest.approx(0.4)
    assert (low, high) == pytest.approx((0.4 - half, 0.4 + half), abs=1e-5)
    assert paired_interval([2.0, 2.0, 2.0]) == (2.0, 2.0, 2.0)
    with pytest.raises(ValueError):
        paired_interval([])


T_TABLE = [(1, 12.7062), (2, 4.3027), (3, 3.1824), (4, 2.7764), (9, 2.2622), (30, 2.0423), (999, 1.9623)]


@pytest.mark.parametrize("df, value", T_TABLE)
def test_t_quantiles(df, value):
    assert t_quantile(0.975, df) == pytest.approx(value, abs=1e-4)
    assert t_quantile(0.025, df) == pytest.approx(-value, abs=1e-4)
    assert t_quantile(0.975, 10**6) == pytest.approx(1.959964, abs=1e-5)


def test_bad_arguments():
    with pytest.raises(ValueError, match="deals must be a positive integer"):
        play_duplicate("spit_v0", [RandomAgent(0), RandomAgent(1)], 0)
    with pytest.raises(ValueError, match="seatings must be"):
        play_duplicate("spit_v0", [RandomAgent(0), RandomAgent(1)], 1, seatings=[[0, 2]])
    with pytest.raises(TypeError, match="an agent must be"):
        play_duplicate("spit_v0", [RandomAgent(0), 3], 1)


def test_agents_that_read_the_state_play_with_the_games_tracker():
    # PIMC reads the engine state and, in Cancellation Hearts, the tracker of what each seat saw
    from cardenvs.agents.pimc import PIMCAgent

    config = {"num_players": 6, "target_score": 10}
    pimc = PIMCAgent("cancellation_hearts_v0", worlds=2, seed=1, **config)
    record = play_duplicate("cancellation_hearts_v0", [pimc, RandomAgent(2)], 1, seed=0, strict=True, **config)
    assert pimc.searched > 0 and not record.forfeits.any()
    assert record.winners.any(axis=2).all()  # every copy played to its end


CRN_GAMES = [
    ("pepper_v0", {"max_hands": 2}),
    ("pepper_v0", {"num_players": 3, "max_hands": 2}),
    ("cancellation_hearts_v0", {"max_hands": 1}),
    ("push_v0", {"rounds": [1]}),
    ("spit_v0", {}),  # (simultaneous: every seat decides every tick)
]


@pytest.mark.parametrize("game, config", CRN_GAMES)
def test_common_random_numbers_make_identical_random_agents_play_alike(game, config):
    # two random agents, seeded apart: with the match's streams every copy of a deal is the same game
    # (the pair's value is 0 on every deal, whatever their own seeds); with their own generators it is not
    def run(streams: bool, seeds=(1, 2)) -> DuplicateRecord:
        agents = [RandomAgent(seeds[0]), RandomAgent(seeds[1])]
        return play_duplicate(game, agents, 8, seed=5, batch=4, streams=streams, **config)

    crn, own = run(True), run(False)
    assert crn.streams and not own.streams
    assert (crn.scores == crn.scores[:, :1]).all()
    for measure in ("score", "win"):  # (0 up to the rounding of the means over seats)
        assert np.abs(pair_values(crn, measure)).max() < 1e-12
    assert not (own.scores == own.scores[:, :1]).all()
    # the streams are the run's (seed, deal, seat), not the agents': other agent seeds, the same games
    assert run(True, (7, 8)).to_json() == crn.to_json()
    assert run(True).to_json() == crn.to_json()  # replays from its seed


def test_common_random_numbers_are_per_copy_generators_of_the_same_numbers():
    a, b = (Copy("pepper_v0", {}, 2, 1234, False) for _ in range(2))
    other = Copy("pepper_v0", {}, 2, 999, False)
    try:
        ga, gb = a.stream(0, 1, 2), b.stream(1, 1, 2)  # the agents at seat 2 of row 1 in two copies of a deal
        assert ga is not gb and a.stream(1, 1, 2) is not ga  # each copy and agent owns its generator
        assert a.stream(0, 1, 2) is ga  # ... and keeps it for the seat's next decisions
        assert np.array_equal(ga.random(5), gb.random(5))  # the same numbers
        first = [c.stream(0, 1, 2).random(3) for c in (Copy("pepper_v0", {}, 2, 1234, False), other)]
        assert not np.array_equal(first[0], first[1])  # another deal's key: other numbers
        assert not np.array_equal(a.stream(0, 1, 3).random(3), a.stream(0, 0, 2).random(3))
    finally:
        for c in (a, b, other):
            c.close()


def test_random_agent_streams_draw_uniformly_among_the_legal_actions():
    agent = RandomAgent(0)
    mask = np.zeros((3000, 5), bool)
    mask[:, [1, 3, 4]] = True
    rngs = [np.random.default_rng([9, i]) for i in range(len(mask))]
    acts = agent.act_streams(np.zeros((len(mask), 2)), mask, rngs)
    counts = np.bincount(acts, minlength=5)
    assert counts[[0, 2]].sum() == 0 and abs(counts[[1, 3, 4]] - 1000).max() < 120
    with pytest.raises(ValueError, match="one generator per row"):
        agent.act_streams(np.zeros((3, 2)), mask[:3], rngs[:2])


def test_identical_agents_estimate_zero_without_streams():
    # unbiasedness: two random agents on their own generators -- the pair's mean is 0 in expectation;
    # the paired 95% interval covers 0 on most of a few seeds
    covered = 0
    for seed in range(8):
        record = play_duplicate(
            "pepper_v0", [RandomAgent(seed), RandomAgent(seed + 100)], 24, seed=seed, batch=24, streams=False
        )
        _, low, high = paired_interval(pair_values(record, "score"))
        covered += low <= 0 <= high
    assert covered >= 6


def test_records_say_whether_they_used_streams():
    record = play_duplicate("pepper_v0", [RandomAgent(1), make_agent("pepper_v0", "rule")], 2, seed=1, streams=False)
    data = record.to_json()
    assert data["streams"] is False and DuplicateRecord.from_json(data).streams is False
    del data["streams"]  # a record written before common random numbers: played without them
    assert DuplicateRecord.from_json(data).streams is False


def test_the_score_per_hand_measure():
    rule = make_agent("pepper_v0", "rule")
    record = play_duplicate("pepper_v0", [RandomAgent(1), rule], 4, seed=2, batch=4, max_hands=3, target_score=100)
    assert (record.hands == 3).all()  # every game plays its three hands (nobody reaches 100)
    assert np.allclose(pair_values(record, "hand"), pair_values(record, "score") / 3)
    again = DuplicateRecord.from_json(record.to_json())
    assert np.array_equal(again.hands, record.hands)
    # hands differ between the copies: each copy's score over its own hands
    record.hands = np.array([[1, 2], [3, 3], [2, 1], [1, 1]])
    per_hand = (record.scores * np.where(record.seatings == 0, 1, -1)[None]).sum(axis=2) / 2 / record.hands
    assert np.allclose(pair_values(record, "hand"), per_hand.mean(axis=1))
    record.hands = None
    with pytest.raises(ValueError, match="needs the hands"):
        pair_values(record, "hand")
    assert "score per hand" in str(summarise_pair(again, "hand"))


def test_sampling_learners_take_the_streams_too():
    pytest.importorskip("torch")
    from cardenvs.agents.mlp import MLPAgent

    root = pathlib.Path(__file__).resolve().parents[1]
    folder = root / "benchmarks" / "league" / "pepper_v0" / "policies" / "selfplay"
    path = sorted(folder.glob("policy_*.pt"))[-1]  # (the committed league's final snapshot)
    sampled = [MLPAgent.load(path, "pepper_v0", greedy=False, seed=seed) for seed in (1, 2)]
    crn = play_duplicate("pepper_v0", sampled, 6, seed=4, batch=6, max_hands=1)
    assert (crn.scores == crn.scores[:, :1]).all()  # one sampling policy, the same noise at each seat: alike
    own = play_duplicate("pepper_v0", sampled, 6, seed=4, batch=6, max_hands=1, streams=False)
    assert not (own.scores == own.scores[:, :1]).all()
    greedy = MLPAgent.load(path, "pepper_v0")
    copy = Copy("pepper_v0", {}, 4, 11, False)
    try:
        obs, mask = copy.observe(copy.live(), None)
        rngs = [copy.stream(0, row, 0) for row in range(4)]
        assert np.array_equal(greedy.act_streams(obs, mask, rngs), greedy.act_batch(obs, mask))
        assert mask[np.arange(4), sampled[0].act_streams(obs, mask, rngs)].all()
    finally:
        copy.close()
