"""The batched rule agents make exactly the decisions of their per-row
reference (``act_row``, run by ``reference=True``), on thousands of
reachable decision states per game and config: half from random play, half
from rule-guided play (the rule agents with 20% random moves, which reaches
the states of sensible play: long auctions, trumps in play, full spit piles).

Random and rule-guided play never reach a Cancellation Hearts moon choice
(one seat must take all 26 hearts and both Black Marias), so that branch is
checked on reached states turned into moon choices (the mask of the moon
phase, scores drawn around the target).  Pepper's Little Pepper bid needs an
estimate of every trick, which no hand reaches: that branch is unreachable.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from cardenvs.agents.cancellation_hearts import MOON_OTHERS, MOON_SELF
from cardenvs.agents.registry import rule_agent
from cardenvs.agents.states import decision_states
from cardenvs.cancellation_hearts import observation as HO

ROWS = 3000  # per source (random, rule-guided): 6,000 decisions per config
CONFIGS = [
    ("pepper_v0", {"num_players": 2}),
    ("pepper_v0", {"num_players": 3}),
    ("pepper_v0", {"num_players": 4}),
    ("cancellation_hearts_v0", {"num_players": 6}),
    ("cancellation_hearts_v0", {"num_players": 11}),
    ("spit_v0", {}),
    ("spit_v0", {"stockpiles": 4}),
    ("spit_v0", {"variant": "speed"}),
]
IDS = [
    f"{game.removesuffix('_v0')}-{'-'.join(f'{k}={v}' for k, v in config.items()) or 'default'}"
    for game, config in CONFIGS
]


@functools.cache
def states(game: str, items: tuple) -> tuple[np.ndarray, np.ndarray]:
    config = dict(items)
    guide = rule_agent(game, **config)
    played = decision_states(game, ROWS, seed=1, **config)
    guided = decision_states(game, ROWS, seed=2, guide=guide, explore=0.2, **config)
    return np.concatenate([played[0], guided[0]]), np.concatenate([played[1], guided[1]])


def decisions(game: str, config: dict, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(batched, per-row reference) decisions."""
    batched = rule_agent(game, **config).act_batch(obs, mask)
    reference = rule_agent(game, reference=True, **config).act_batch(obs, mask)
    return batched, reference


@pytest.mark.parametrize(("game", "config"), CONFIGS, ids=IDS)
def test_batched_rule_agent_equals_the_per_row_reference(game, config):
    obs, mask = states(game, tuple(config.items()))
    assert len(obs) == 2 * ROWS and mask.any(axis=1).all()
    batched, reference = decisions(game, config, obs, mask)
    np.testing.assert_array_equal(batched, reference)
    assert mask[np.arange(len(mask)), batched].all()
    # the decisions are varied: most of the game's actions are chosen somewhere
    assert len(np.unique(batched)) >= 0.6 * mask.any(axis=0).sum()
    agent = rule_agent(game, **config)
    # float32 observations, as the advised learner holds them (a strided slice)
    wide = np.concatenate([obs.astype(np.float32), np.zeros((len(obs), 3), np.float32)], axis=1)
    np.testing.assert_array_equal(agent.act_batch(wide[:, : obs.shape[1]], mask), reference)
    # one row at a time (the AEC envs' act)
    for i in range(0, len(obs), 101):
        assert agent.act(obs[i], mask[i]) == reference[i]


def test_pepper_decisions_cover_every_kind():
    """Bids, passes, every trump choice (no-trump too), leads and follows."""
    for n in (2, 3, 4):
        obs, mask = states("pepper_v0", (("num_players", n),))
        chosen = set(rule_agent("pepper_v0", num_players=n).act_batch(obs, mask).tolist())
        assert {0, 1, 2, 3, 10, 11, 12, 13} <= chosen
        assert len(chosen & set(range(15, 39))) == 24
    assert 14 in chosen  # no-trump (4 players)


@pytest.mark.parametrize("num_players", [6, 11])
@pytest.mark.parametrize("target_score", [150, 60])
def test_hearts_moon_choice_batched_equals_reference(num_players, target_score):
    obs, mask = states("cancellation_hearts_v0", (("num_players", num_players),))
    rng = np.random.default_rng(num_players + target_score)
    obs = obs.copy()
    scores = HO.PRIVATE_AT + HO.SCORES
    obs[:, scores : scores + num_players] = rng.integers(-30, target_score + 30, (len(obs), num_players))
    moon = np.zeros_like(mask)
    moon[:, [MOON_SELF, MOON_OTHERS]] = True
    config = {"num_players": num_players, "target_score": target_score}
    batched, reference = decisions("cancellation_hearts_v0", config, obs, moon)
    np.testing.assert_array_equal(batched, reference)
    assert 0.001 < (batched == MOON_OTHERS).mean() < 0.999


@pytest.mark.parametrize(("game", "config"), [CONFIGS[0], CONFIGS[3], CONFIGS[5]], ids=[IDS[0], IDS[3], IDS[5]])
def test_a_row_without_a_legal_action_is_refused(game, config):
    obs, mask = states(game, tuple(config.items()))
    mask = mask[:8].copy()
    mask[5] = False
    with pytest.raises(ValueError, match="no legal action"):
        rule_agent(game, **config).act_batch(obs[:8], mask)
    assert len(rule_agent(game, **config).act_batch(obs[:0], mask[:0])) == 0
