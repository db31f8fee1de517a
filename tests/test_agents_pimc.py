"""The PIMC agent: its options, legal decisions with every rollout policy in
Pepper and Cancellation Hearts (whose sampler needs the tracker of what
each seat saw), reproducible with a seed, and it plays far better than
random legal play."""

from __future__ import annotations

import numpy as np
import pytest

from cardenvs.agents.base import RandomAgent
from cardenvs.agents.pimc import PLAY_PHASE, PIMCAgent, play_match
from cardenvs.registry import rules_class
from cardenvs.search.cancellation_hearts import Tracker


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="rollout"):
        PIMCAgent("pepper_v0", rollout="greedy")
    with pytest.raises(ValueError, match="PIMC plays"):
        PIMCAgent("spit_v0")
    with pytest.raises(NotImplementedError):
        PIMCAgent("pepper_v0").act_batch(np.zeros((1, 299)), np.ones((1, 39), bool))


def states_in_play(game: str, batch: int, steps: int, seed: int, **config):
    """A batch of games after ``steps`` random legal moves (and the Hearts tracker)."""
    rules = rules_class(game)(**config)
    state = rules.new_state(batch, np.random.default_rng(seed))
    rules.reset(state, np.arange(batch))
    tracker = Tracker(rules, batch) if game == "cancellation_hearts_v0" else None
    rng = np.random.default_rng(seed + 1)
    for _ in range(steps):
        actions = np.where(state.legal, rng.random(state.legal.shape), -1).argmax(axis=1)
        if tracker is not None:
            tracker.step(rules, state, actions)
        else:
            rules.step(state, actions)
    return rules, state, ({"tracker": tracker} if tracker is not None else {})


@pytest.mark.parametrize("game, steps", [("pepper_v0", 9), ("cancellation_hearts_v0", 40)])
@pytest.mark.parametrize("rollout", ["random", "rule", "agent"])
def test_decisions_are_legal_and_reproducible(game, steps, rollout):
    rules, state, known = states_in_play(game, 6, steps, seed=3)
    rows = np.flatnonzero(~state.done)
    picks = []
    for _ in range(2):
        policy = RandomAgent(5) if rollout == "agent" else rollout
        agent = PIMCAgent(game, worlds=4, rollout=policy, seed=11)
        picks.append(agent.act_states(rules, state, rows, **known))
    assert state.legal[rows, picks[0]].all()
    np.testing.assert_array_equal(picks[0], picks[1])
    assert agent.searched == (state.phase[rows] == PLAY_PHASE[game]).sum() > 0  # the rest went to the fallback


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
