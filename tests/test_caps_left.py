"""Episodes that say where they end: each game's observation shows what is
left before the cap that cuts it (Pepper's and Cancellation Hearts' hands,
Push's turns of the round, Spit's and Speed's ticks), counted from the
state on every step of random play, and 0 once the cap has cut the game."""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs.vector as V
from cardenvs.core.layout import LEFT_MAX
from cardenvs.games.cancellation_hearts import observation as hearts_obs
from cardenvs.games.pepper import observation as pepper_obs
from cardenvs.games.push import observation as push_obs
from cardenvs.games.spit import observation as spit_obs
from cardenvs.games.spit.speed import observation as speed_obs

TURN_BASED = [
    # game, config, where the field is, the cap, the state's counter of what is used up
    ("pepper_v0", {"max_hands": 2}, pepper_obs.HANDS_LEFT, 2, "hand_number"),
    ("cancellation_hearts_v0", {"max_hands": 1}, hearts_obs.HANDS_LEFT, 1, "hand_number"),
    ("push_v0", {"max_turns": 12, "rounds": [1, 2]}, push_obs.TURNS_LEFT, 12, "turns"),
]


def random_actions(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in mask])


@pytest.mark.parametrize("game, config, at, cap, counter", TURN_BASED, ids=[t[0] for t in TURN_BASED])
def test_turn_based_observation_counts_down_to_the_cap(game, config, at, cap, counter):
    venv = V.make(game, 12, seed=5, **config)
    obs, info = venv.reset()
    rng = np.random.default_rng(0)
    seen, cut = set(), 0
    for _ in range(400):
        used = getattr(venv.state, counter)
        np.testing.assert_array_equal(obs[:, at], cap - used)
        seen.update(obs[:, at].tolist())
        obs, _, term, _, info = venv.step(random_actions(rng, info["action_mask"]))
        for row in np.flatnonzero(term):
            final = info["final_obs"][row]
            cut += int((final[:, at] == 0).all())
    assert seen == set(range(1, cap + 1)) or (counter == "turns" and {cap, cap - 1, 1} <= seen)
    if counter == "hand_number":  # the hand cap ends these games: their last observation shows 0
        assert cut > 0


@pytest.mark.parametrize("game, config, at", [(g, {**c, "max_hands": None}, a) for g, c, a, _, _ in TURN_BASED[:2]])
def test_no_cap_shows_zero(game, config, at):
    venv = V.make(game, 4, seed=1, **config)
    obs, info = venv.reset()
    rng = np.random.default_rng(1)
    for _ in range(100):
        assert (obs[:, at] == 0).all()
        obs, *_, info = venv.step(random_actions(rng, info["action_mask"]))


def test_a_cap_past_the_largest_shown_is_shown_as_the_largest():
    venv = V.make("pepper_v0", 2, seed=0, max_hands=LEFT_MAX + 10)
    obs, _ = venv.reset()
    assert (obs[:, pepper_obs.HANDS_LEFT] == LEFT_MAX).all()
    assert venv.single_observation_space.high[pepper_obs.HANDS_LEFT] == LEFT_MAX


@pytest.mark.parametrize("variant, at", [("spit", spit_obs.TICKS_LEFT), ("speed", speed_obs.TICKS_LEFT)])
def test_spit_ticks_left_reach_zero_at_the_cut(variant, at):
    venv = V.make("spit_v0", 8, seed=3, variant=variant, max_ticks=25, illegal_action="wait")
    obs, info = venv.reset()
    rng = np.random.default_rng(2)
    truncations = 0
    for _ in range(120):
        np.testing.assert_array_equal(obs[:, :, at], (25 - venv.state.ticks)[:, None].repeat(2, 1))
        masks = info["action_mask"]
        actions = np.array([[rng.choice(np.flatnonzero(m)) for m in row] for row in masks])
        obs, _, _, trunc, info = venv.step(actions)
        for row in np.flatnonzero(trunc):
            assert (info["final_obs"][row][:, at] == 0).all()
            truncations += 1
    assert truncations > 0
