"""Spit's ``reward="cards_held"``: a potential-based reward (1/52 per card a
player's holding shrinks by, minus as much per card it grows by) on top of
the +-1 for the game, on the vector engine and the one-game env alike."""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs.vector as V
from cardenvs import spit_v0
from cardenvs.games.spit.agent import SpitRuleAgent


def _games(num_envs: int, ticks: int, seed: int):
    """Rule-vs-rule ticks on the vector engine: per finished game, each seat's
    summed reward and the cards each held at its start (after the opening
    spits); plus every non-terminal reward."""
    env = V.make("spit_v0", num_envs=num_envs, seed=seed, reward="cards_held")
    agent = SpitRuleAgent()
    obs, info = env.reset()
    start = env.rules.held_cards(env.state).copy()
    totals = np.zeros((num_envs, 2))
    finished, midgame = [], []
    for _ in range(ticks):
        mask = info["action_mask"]
        actions = np.stack([agent.act_batch(obs[:, s], mask[:, s]) for s in range(2)], axis=1)
        obs, rew, term, trunc, info = env.step(actions)
        totals += rew
        ended = term | trunc
        midgame.append(rew[~ended])
        for i in np.flatnonzero(term):
            finished.append((totals[i].copy(), start[i].copy()))
        totals[ended] = 0
        start[ended] = env.rules.held_cards(env.state)[ended]  # the next game's (reset automatically)
    return finished, np.concatenate(midgame)


def test_cards_held_sums_to_the_holdings_change():
    finished, midgame = _games(16, 400, seed=3)
    assert len(finished) >= 10
    for total, held in finished:
        winner = int(np.argmax(total))
        assert held.min() >= 20 and held.max() <= 25  # 26 cards each, less the opening spits
        # the winner got rid of every card it held: +1 for the game, 1/52 a card on the way
        assert total[winner] == pytest.approx(1 + held[winner] / 52, abs=1e-4)
        # the loser still holds at least one card
        assert total[1 - winner] <= -1 + (held[1 - winner] - 1) / 52 + 1e-4
    # taking a pile back after a slap costs: some ticks pay less than nothing
    assert (midgame < -1e-6).any() and (midgame > 1e-6).any()


def test_cards_held_in_the_one_game_env():
    """The one-game env (its compiled one-tick path) pays the same: a whole
    game sums to +1 and 1/52 for each of the 20-25 cards the winner held."""
    env = spit_v0.parallel_env(reward="cards_held")
    obs, _ = env.reset(seed=1)
    agent = SpitRuleAgent()
    totals = dict.fromkeys(env.agents, 0.0)
    while env.agents:
        acts = {a: agent.act(obs[a]["observation"], obs[a]["action_mask"]) for a in env.agents}
        obs, rew, term, trunc, _ = env.step(acts)
        for a in rew:
            totals[a] += rew[a]
        assert not any(trunc.values())
    winner = max(totals, key=totals.get)
    cards = (totals[winner] - 1) * 52
    assert cards == pytest.approx(round(cards), abs=1e-3) and 20 <= round(cards) <= 25
    assert min(totals.values()) < -0.5


def test_cards_held_is_for_spit_only():
    with pytest.raises(ValueError, match="Spit only"):
        V.make("spit_v0", num_envs=2, variant="speed", reward="cards_held")
    with pytest.raises(ValueError, match="reward"):
        V.make("spit_v0", num_envs=2, reward="cards_kept")
