"""``VectorEnv.restart(rows)``: new games in some rows wherever their games
stand (a time limit's cut, what TorchRL's ``StepCounter(max_steps)`` asks
for), the other rows untouched; a turn-based game and Spit's simultaneous one."""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs.vector as V


def played(game: str, steps: int, **config):
    """An engine of 6 games after ``steps`` masked random steps."""
    venv = V.make(game, 6, seed=3, **config)
    _, info = venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(steps):
        mask = info["action_mask"]
        _, _, _, _, info = venv.step(np.where(mask, rng.random(mask.shape), -1).argmax(-1))
    return venv


@pytest.mark.parametrize("game, config", [("pepper_v0", {"max_hands": 3}), ("spit_v0", {})])
def test_restart_deals_new_games_in_those_rows_only(game, config):
    venv = played(game, 12, **config)
    rows, kept = np.array([1, 4]), [0, 2, 3, 5]
    before = [venv.state_dict(i) for i in range(6)]
    fresh = V.make(game, 1, seed=0, **config)
    fresh.reset()
    start = fresh.state_dict(0)
    assert any(
        before[i]["phase"] != start["phase"]
        or before[i]["hand_number"] != start["hand_number"]
        or before[i].get("tick") != start.get("tick")
        for i in rows
    )  # fmt: skip  (games under way)
    obs, info = venv.restart(rows)
    after = [venv.state_dict(i) for i in range(6)]
    for i in kept:
        assert repr(after[i]) == repr(before[i])
    for i in rows:
        assert after[i]["phase"] == start["phase"] and after[i]["hand_number"] == start["hand_number"]
        assert after[i].get("tick") == start.get("tick") and not after[i]["done"]
    np.testing.assert_array_equal(info["action_mask"], venv.state.legal)
    assert obs.shape[0] == 6


def test_restart_refuses_bad_rows_and_changes_nothing():
    venv = played("pepper_v0", 5)
    before = [repr(venv.state_dict(i)) for i in range(6)]
    for rows, error in (([6], ValueError), ([1, 1], ValueError), (np.array([0.5]), TypeError)):
        with pytest.raises(error):
            venv.restart(rows)
    assert [repr(venv.state_dict(i)) for i in range(6)] == before
    venv.step(venv.state.legal.argmax(1))  # (the engine plays on)
