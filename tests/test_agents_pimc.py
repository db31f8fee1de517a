"""The PIMC agent: its options, legal decisions with every rollout policy in
Pepper, Cancellation Hearts and Push (whose samplers need the tracker of
what each seat saw), reproducible with a seed, which decisions it
searches, and it plays far better than random legal play."""

from __future__ import annotations

import numpy as np
import pytest

from cardenvs.agents.base import RandomAgent
from cardenvs.agents.pimc import PIMCAgent, play_match
from cardenvs.agents.registry import make_agent
from cardenvs.games.push.tables import DISCARD0, DRAW, MELD, NUM_TYPES
from cardenvs.registry import rules_class
from cardenvs.search import cancellation_hearts, push

TRACKERS = {"cancellation_hearts_v0": cancellation_hearts.Tracker, "push_v0": push.Tracker}


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="rollout"):
        PIMCAgent("pepper_v0", rollout="greedy")
    with pytest.raises(ValueError, match="PIMC plays"):
        PIMCAgent("spit_v0")
    with pytest.raises(NotImplementedError):
        PIMCAgent("pepper_v0").act_batch(np.zeros((1, 299)), np.ones((1, 39), bool))
    with pytest.raises(ValueError, match="rounds"):
        PIMCAgent("push_v0", rounds=[6])  # the game's config is checked by its rules


def states_in_play(game: str, batch: int, steps: int, seed: int, **config):
    """A batch of games after ``steps`` random legal moves (and the tracker, if the game has one)."""
    rules = rules_class(game)(**config)
    state = rules.new_state(batch, np.random.default_rng(seed))
    rules.reset(state, np.arange(batch))
    tracker = TRACKERS[game](rules, batch) if game in TRACKERS else None
    rng = np.random.default_rng(seed + 1)
    for _ in range(steps):
        actions = np.where(state.legal, rng.random(state.legal.shape), -1).argmax(axis=1)
        if tracker is not None:
            tracker.step(rules, state, actions)
        else:
            rules.step(state, actions)
    return rules, state, ({"tracker": tracker} if tracker is not None else {})


def searched_rows(game: str, rules, state, rows) -> np.ndarray:
    """Which of ``rows`` PIMC searches: Pepper's and Hearts' card play; Push's
    draw, and its discard when the rule agent would discard (not meld)."""
    if game == "pepper_v0":
        return state.phase[rows] == 2
    if game == "cancellation_hearts_v0":
        return state.phase[rows] == 1
    rule = make_agent(game, "rule").act_batch(rules.observe(state, state.current[rows], rows), state.legal[rows])
    discard = (rule >= DISCARD0) & (rule < DISCARD0 + NUM_TYPES)
    return (state.phase[rows] == DRAW) | ((state.phase[rows] == MELD) & discard)


@pytest.mark.parametrize("game, steps", [("pepper_v0", 9), ("cancellation_hearts_v0", 40), ("push_v0", 40)])
@pytest.mark.parametrize("rollout", ["random", "rule", "agent"])
def test_decisions_are_legal_and_reproducible(game, steps, rollout):
    rules, state, known = states_in_play(game, 8 if game == "push_v0" else 6, steps, seed=3)
    rows = np.flatnonzero(~state.done)
    picks = []
    for _ in range(2):
        policy = RandomAgent(5) if rollout == "agent" else rollout
        agent = PIMCAgent(game, worlds=4, rollout=policy, seed=11)
        picks.append(agent.act_states(rules, state, rows, **known))
    assert state.legal[rows, picks[0]].all()
    np.testing.assert_array_equal(picks[0], picks[1])
    searched = searched_rows(game, rules, state, rows)
    assert agent.searched == searched.sum() > 0  # the rest went to the fallback
    if game == "push_v0":  # both kinds of Push decision searched, and a meld left to the rule agent
        assert (state.phase[rows[searched]] == DRAW).any() and (state.phase[rows[searched]] == MELD).any()
        assert (~searched).any()
        discards = picks[0][searched & (state.phase[rows] == MELD)]
        assert ((discards >= DISCARD0) & (discards < DISCARD0 + NUM_TYPES)).all()


def test_the_trained_policy_can_play_the_rollouts():
    from cardenvs.agents.registry import make_agent

    rules, state, known = states_in_play("pepper_v0", 4, 9, seed=5)
    rows = np.flatnonzero(~state.done)
    agent = PIMCAgent("pepper_v0", worlds=2, rollout=make_agent("pepper_v0", "ppo"), seed=1)
    assert agent.name == "pimc2-ppo"
    assert state.legal[rows, agent.act_states(rules, state, rows, **known)].all()


@pytest.mark.parametrize("rollout", ["random", "rule"])
def test_pimc_beats_random_play_in_pepper(rollout):
    wins, games = play_match("pepper_v0", PIMCAgent("pepper_v0", worlds=8, rollout=rollout), RandomAgent(1), 16, seed=9)
    assert wins >= 14, (wins, games)


def test_hearts_match_runs_with_the_tracker():
    agent = PIMCAgent("cancellation_hearts_v0", worlds=4, rollout="rule", seed=2)
    wins, games = play_match("cancellation_hearts_v0", agent, RandomAgent(3), 6, seed=4)
    assert games == 6 and wins >= 4  # one PIMC seat against five random players


class Spy(PIMCAgent):
    """A PIMC agent that records what it was told besides the state."""

    def act_states(self, rules, state, rows, **known):
        self.told = known
        return super().act_states(rules, state, rows, **known)


def test_push_match_runs_with_the_tracker():
    agent = Spy("push_v0", worlds=2, rollout="rule", seed=2, rounds=[1])
    wins, games = play_match("push_v0", agent, RandomAgent(3), 4, seed=4, rounds=[1])
    assert isinstance(agent.told["tracker"], push.Tracker)  # the sampler sees what the seat saw taken
    assert games == 4 and wins >= 3 and agent.searched > 0  # against random players


@pytest.mark.parametrize("options", [{}, {"push_naturals": True, "run_discards": True}], ids=["default", "options"])
@pytest.mark.parametrize("steps", [1, 37, 120, 400])
def test_push_rule_agent_reads_the_state_as_the_observation(steps, options):
    """Its rollouts read the state (cheaper than observing): the same actions
    as from the observations, for every row and for a subset in any order
    (with the options too, which also read the round and the contract)."""
    rules, state, _ = states_in_play("push_v0", 48, steps, seed=7)
    agent = make_agent("push_v0", "rule", **options)
    for rows in (np.flatnonzero(~state.done), np.flatnonzero(~state.done)[::-3]):
        seen = agent.act_batch(rules.observe(state, state.current[rows], rows), state.legal[rows])
        np.testing.assert_array_equal(agent.act_states(rules, state, rows), seen)


def test_match_outcomes_tell_ties_apart_and_play_match_counts_them_as_won():
    """match_outcomes: 1 won, 0.5 tied at the top, 0 lost, per game; the
    same games as play_match, which counts a tie as won."""
    from cardenvs.agents.pimc import match_outcomes

    agent = PIMCAgent("cancellation_hearts_v0", worlds=2, rollout="rule", seed=2)
    outcomes = match_outcomes("cancellation_hearts_v0", agent, RandomAgent(3), 6, seed=4)
    assert outcomes.shape == (6,) and set(np.unique(outcomes)) <= {0.0, 0.5, 1.0}
    agent = PIMCAgent("cancellation_hearts_v0", worlds=2, rollout="rule", seed=2)
    wins, games = play_match("cancellation_hearts_v0", agent, RandomAgent(3), 6, seed=4)
    assert (wins, games) == (int((outcomes > 0).sum()), 6)
