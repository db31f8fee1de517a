"""Per-game random streams: the opt-in seeding mode of the vector engine
(``cardenvs.vector.make(..., rng="per_game")``).

By default a batch draws from one numpy ``Generator``: what a draw returns
depends on every draw before it, in every game, so the draws stay in the
calling thread in one fixed order (:mod:`.shards`) -- the serial part that
bounds the engine's thread scaling.  In the per-game mode every game slot
has a stream of its own, counter-based: the k-th number slot ``s`` draws is
a hash of (seed, s, k) (SplitMix64's mix), so a draw depends only on that
game's own history and a row shard can draw for its rows itself, in its
thread, with no order to keep.  Results are then identical for every thread
count by construction -- but they are other games than the shared
generator's for the same seed, hence a mode of its own.

A state in this mode holds the streams (``state.streams``), each slot's
number of draws so far (``state.draws``, carried to the next game of the
slot, so a slot never repeats a stream) and each row's slot
(``state.slot``: a subset of rows stepped on its own keeps its slots).
The rules draw through :meth:`BatchState.random
<cardenvs.core.game.BatchState.random>` and :meth:`~cardenvs.core.game.BatchState.integers`,
which take the rows the draws are for.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .jit import COMPILED, kernel

#: The two rngs a vector engine can draw from (``vector.make(..., rng=...)``).
RNG_MODES = ("shared", "per_game")

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_STEP = np.uint64(0xD1B54A32D192ED03)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def _mix(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser over a uint64 array (wrapping arithmetic)."""
    x = (x ^ (x >> np.uint64(30))) * _M1
    x = (x ^ (x >> np.uint64(27))) * _M2
    return x ^ (x >> np.uint64(31))


class RowStreams:
    """The streams of one seed: :meth:`random` draws for rows of a state."""

    def __init__(self, seed: int):
        self.seed = int(seed)
        self._key = _mix(np.array([self.seed & (2**64 - 1)], np.uint64) * _GOLDEN + _GOLDEN)[0]

    def random(self, state: Any, rows: np.ndarray, width: int | None = None) -> np.ndarray:
        """Uniform floats in [0, 1) for the games ``rows`` of ``state``
        (distinct): ``(len(rows),)``, or ``(len(rows), width)`` -- each row's
        next numbers from its slot's stream, whose counter moves on."""
        rows = np.asarray(rows, np.int64)
        w = 1 if width is None else int(width)
        values = np.empty((len(rows), w), np.float64)
        if COMPILED:  # one call, no GIL: a shard draws while the others run
            _draw_rows(self._key, rows, state.slot, state.draws, values)
        else:
            values[:] = stream_values(self._key, state.slot[rows], state.draws[rows], w)
            state.draws[rows] += w
        return values[:, 0] if width is None else values

    def __repr__(self) -> str:
        return f"RowStreams(seed={self.seed})"


def stream_values(key: np.uint64, slots: np.ndarray, start: np.ndarray, width: int) -> np.ndarray:
    """The numbers ``start[i] .. start[i] + width - 1`` of the streams of
    ``slots[i]`` (numpy, wrapping uint64 arithmetic): ``(len(slots), width)``
    floats in [0, 1), the top 53 bits of each hash."""
    count = start.astype(np.uint64)[:, None] + np.arange(width, dtype=np.uint64)
    slot = slots.astype(np.uint64)[:, None]
    bits = _mix(_mix(key ^ (slot * _GOLDEN)) + count * _STEP)
    return (bits >> np.uint64(11)).astype(np.float64) * 2.0**-53


@kernel
def _draw_rows(key, rows, slot, draws, values):
    """:func:`stream_values` for the games ``rows`` into ``values``, their counters moved on (compiled)."""
    golden, step = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xD1B54A32D192ED03)
    m1, m2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
    s30, s27, s31, s11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
    for i in range(rows.shape[0]):
        row = rows[i]
        x = key ^ (np.uint64(slot[row]) * golden)
        x = (x ^ (x >> s30)) * m1
        x = (x ^ (x >> s27)) * m2
        base = x ^ (x >> s31)
        start = np.uint64(draws[row])
        for k in range(values.shape[1]):
            z = base + (start + np.uint64(k)) * step
            z = (z ^ (z >> s30)) * m1
            z = (z ^ (z >> s27)) * m2
            z = z ^ (z >> s31)
            values[i, k] = np.float64(z >> s11) * 2.0**-53
        draws[row] += values.shape[1]


def check_rng_mode(mode: Any) -> str:
    """``mode`` if it is one of :data:`RNG_MODES`, else ValueError."""
    if not isinstance(mode, str) or mode not in RNG_MODES:
        raise ValueError(f"rng must be one of {list(RNG_MODES)}, got {mode!r}")
    return mode
