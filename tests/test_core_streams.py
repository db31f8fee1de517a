"""The vector engine's opt-in per-game random streams (``rng="per_game"``,
``cardenvs.core.streams``): each game slot draws from a counter-based
stream of its own, so the row shards deal and reset their own games --
and the games are still the same for every thread count, reproducible
from the seed, and independent of the other games of the batch."""

from __future__ import annotations

import numpy as np
import pytest
from test_core_threads import CASES, IDS, SHORT, assert_same, play

import cardenvs.vector as V
from cardenvs.core.jit import COMPILED
from cardenvs.core.streams import RowStreams, stream_values
from cardenvs.registry import GAMES


@pytest.fixture
def per_game(monkeypatch):
    """``vector.make`` with ``rng="per_game"`` for :func:`play`."""
    make = V.make
    monkeypatch.setattr(V, "make", lambda *args, **kwargs: make(*args, rng="per_game", **kwargs))


@pytest.mark.parametrize(("name", "config"), CASES, ids=IDS)
def test_every_thread_count_gives_the_same_games(per_game, name, config):
    """1 thread (the batch stepped whole), 2 and 3 (each shard deals and
    resets its own games): identical steps, through hundreds of resets,
    ``rows=`` steps included."""
    reference, finished = play(name, config, 1)
    assert finished > 257
    for k in (2, 3):
        assert_same(reference, play(name, config, k)[0], f"{k} threads")


@pytest.mark.parametrize("name", list(GAMES))
def test_forfeits_are_the_same_with_threads(per_game, name):
    config = {**SHORT.get(name, {}), "illegal_action": "terminate"}
    reference, finished = play(name, config, 1, steps=120, rows=False, bad=0.02)
    assert finished > 50
    assert_same(reference, play(name, config, 3, steps=120, rows=False, bad=0.02)[0], "3 threads")


def first_legal_play(venv, steps: int, row: int = 0) -> list:
    """Play the first legal action(s) in every game; the state dicts of ``row``."""
    _, info = venv.reset(seed=5)
    seen = []
    for _ in range(steps):
        info = venv.step(info["action_mask"].argmax(-1))[-1]
        seen.append(venv.state_dict(row))
    return seen


@pytest.mark.parametrize("name", list(GAMES))
def test_a_game_does_not_depend_on_the_others(name):
    """A slot's games come from its own stream: slot 0 plays the very same
    games in a batch of 3 as in a batch of 300 (with the shared generator
    its deals depend on how many games draw before it)."""
    config = SHORT.get(name, {})
    small = first_legal_play(V.make(name, num_envs=3, rng="per_game", **config), 150)
    large = first_legal_play(V.make(name, num_envs=300, num_threads=2, rng="per_game", **config), 150)
    assert small == large
    shared = first_legal_play(V.make(name, num_envs=300, **config), 150, row=1)
    assert shared != first_legal_play(V.make(name, num_envs=3, **config), 150, row=1)


@pytest.mark.parametrize("name", list(GAMES))
def test_seeded_games_repeat_and_go_on(name):
    """The same seed replays the same games (``make(seed=)`` or
    ``reset(seed=)``); a reset without a seed starts new ones; the
    per-game games differ from the shared generator's."""
    config = SHORT.get(name, {})

    def observations(venv, seed):
        obs, info = venv.reset(seed=seed)
        out, rng = [obs], np.random.default_rng(0)
        for _ in range(30):
            mask = info["action_mask"]
            obs, *_, info = venv.step((rng.random(mask.shape) * mask).argmax(-1))
            out.append(obs)
        return np.stack(out)

    venv = V.make(name, num_envs=8, rng="per_game", **config)
    first = observations(venv, 3)
    assert np.array_equal(first, observations(V.make(name, num_envs=8, rng="per_game", **config), 3))
    assert not np.array_equal(venv.reset()[0], first[0])  # (counters go on: new deals)
    assert np.array_equal(observations(venv, 3), first)
    assert not np.array_equal(observations(V.make(name, num_envs=8, **config), 3), first)


@pytest.mark.parametrize("bad", ["shared ", "per-game", None, 1, True])
def test_unknown_rng_modes_are_refused(bad):
    with pytest.raises(ValueError, match="rng must be one of"):
        V.make("pepper_v0", num_envs=4, rng=bad)


def test_the_generator_is_not_used_per_game():
    """In the per-game mode every draw goes through the streams: the
    batch's generator refuses (a draw from it would depend on the order of
    the games)."""
    venv = V.make("pepper_v0", num_envs=16, seed=0, rng="per_game")
    venv.reset()
    with pytest.raises(RuntimeError, match="drew random numbers"):
        venv.state.rng.random()
    draws = venv.state.draws.copy()
    keys = venv.state.random(np.array([2, 5]), 24)
    assert keys.shape == (2, 24) and ((keys >= 0) & (keys < 1)).all()
    assert (venv.state.draws - draws).tolist() == [0, 0, 24, 0, 0, 24] + [0] * 10


def test_the_compiled_streams_are_the_numpy_ones():
    """The kernel (compiled, when numba is there) and the numpy formula of
    :func:`stream_values` give the same numbers, and the counters move on."""

    class Rows:
        slot = np.arange(40)
        draws = np.random.default_rng(1).integers(0, 2**40, 40)

    streams, rows = RowStreams(2**70 + 9), np.array([39, 0, 17])
    start = Rows.draws[rows].copy()
    want = stream_values(streams._key, Rows.slot[rows], start, 52)
    got = streams.random(Rows, rows, 52)
    assert np.array_equal(got, want), COMPILED
    assert np.array_equal(Rows.draws[rows], start + 52)
    assert 0.4 < got.mean() < 0.6 and len(np.unique(got)) == got.size
