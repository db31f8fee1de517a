"""The state side of sampling, game-free: a batch of worlds made from a
batch of states (every array of row i repeated ``worlds`` times), and the
worlds' own future.

A world is a whole state the rules can step, so every array of its row is
copied, except the arrays the game's sampler writes in full itself (its
hidden places, whose copies would be overwritten: ``fill`` leaves those
uninitialised).  The copy broadcasts each array into fresh memory, one
numpy copy per array (several times faster than indexing the rows).

The worlds' future: a sampled world must not know what the real game will
deal next, so its deals are fresh shuffles from a generator of its own (a
child of the caller's ``rng``), not the state's fixed decks (decks given
for the real game's future deals are the real future) nor the state's
generator (stepping the worlds must not move the real game's draws), nor
the state's per-game streams (:mod:`cardenvs.core.streams`: counter-based,
so a world that kept its row's slot and count would draw the very numbers
the real game will draw next -- in Spit, which hand is faster at every
tick to come).
"""

from __future__ import annotations

import copy
from collections.abc import Collection

import numpy as np

from ..game import BatchState


def repeat_rows(
    state: BatchState, worlds: int, rng: np.random.Generator, fill: Collection[str] = (), out: BatchState | None = None
) -> BatchState:
    """A state of ``state.batch * worlds`` rows, row i's copies at
    ``i * worlds .. (i + 1) * worlds - 1``; the arrays named in ``fill`` are
    left for the caller to write in full.  Its deals are its own (module
    doc).  A state with its own output buffers (Push's ``outputs``) gets new
    ones (``outputs.fork()``).  ``out``: an earlier result of the same shape
    whose arrays are written over instead of new ones (fresh memory costs
    the system as much again as the copy: it zeroes every page first)."""
    new = copy.copy(state)
    rows = state.batch * worlds
    for name, value in vars(state).items():
        if not isinstance(value, np.ndarray):
            continue
        if name == "fixed_decks":  # (the worlds deal fresh shuffles: module doc)
            setattr(new, name, np.zeros((rows, 0, 0), value.dtype))
            continue
        target = reusable(out, name, (rows, *value.shape[1:]), value)
        if name not in fill:
            flat = value.reshape(state.batch, 1, -1)  # (one long inner copy per world: several times faster)
            target.reshape(state.batch, worlds, flat.shape[2])[...] = flat
        setattr(new, name, target)
    new.batch = rows
    new.rng = np.random.default_rng(rng.integers(0, 2**63 - 1))
    new.streams = None  # (the worlds draw from their own generator: module doc)
    new.fixed_count[:] = 0
    if hasattr(state, "outputs"):
        new.outputs = state.outputs.fork()
    return new


def reusable(out: BatchState | None, name: str, shape: tuple[int, ...], source: np.ndarray) -> np.ndarray:
    """``out``'s array ``name`` if it has that shape and dtype, is writeable,
    contiguous and apart from ``source``; else a new one."""
    old = getattr(out, name, None)
    if (
        isinstance(old, np.ndarray)
        and old.shape == shape
        and old.dtype == source.dtype
        and old.flags.writeable
        and old.flags.c_contiguous
        and not np.may_share_memory(old, source)
    ):
        return old
    return np.empty(shape, source.dtype)


def seat_array(seats, batch: int, num_players: int) -> np.ndarray:
    """``seats`` (one per row, or one for all) as (batch,) int64; ValueError
    if a seat is not an integer seat of the game or the shape does not fit."""
    array = np.asarray(seats)
    if array.dtype.kind not in "iu":
        raise ValueError(f"seats must be integers, got {array.dtype}")
    try:
        out = np.broadcast_to(array.astype(np.int64), (batch,)).copy()
    except ValueError:
        raise ValueError(f"seats must be one seat or one per row ({batch}), got shape {array.shape}") from None
    if ((out < 0) | (out >= num_players)).any():
        raise ValueError(f"seats must be in 0..{num_players - 1}, got {sorted(set(out.tolist()))}")
    return out


def check_request(worlds: int, rng: np.random.Generator) -> None:
    """ValueError unless ``worlds`` is a positive integer; TypeError unless
    ``rng`` is a numpy ``Generator`` (the worlds' seeds come from it)."""
    if isinstance(worlds, (bool, np.bool_)) or not isinstance(worlds, (int, np.integer)) or worlds < 1:
        raise ValueError(f"worlds must be a positive integer, got {worlds!r}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator (np.random.default_rng(seed)), got {type(rng).__name__}")
