"""Batched information-set sampling: complete states consistent with what
one seat per game has seen (docs/search.md).

:func:`sample_worlds` dispatches to the game's sampler, ``sampler.py`` in
its folder (named by its ``GameSpec.sampler``: e.g.
:mod:`cardenvs.games.push.sampler`; Spit's serves Spit and Speed); the
game-free core is :mod:`cardenvs.core.sampling` (``base``: the deals,
``streams``: the random streams, ``worlds``: the states; the old paths
``cardenvs.search.base``, ``.streams`` and ``.worlds`` are aliases of them)."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from ..core.game import BatchState

MAX_WORLDS = 1024  # worlds a search spec may sample per decision (memory grows with them)


def sample_worlds(
    rules: Any,
    state: BatchState,
    seats: Any,
    worlds: int,
    rng: np.random.Generator,
    out: BatchState | None = None,
    **known: Any,
) -> BatchState:
    """``worlds`` complete states per row of ``state``, each drawn uniformly
    from the deals consistent with what ``seats[i]`` has seen in row i, as
    a new state of ``B * worlds`` rows the rules can step (row i's worlds
    at ``i * worlds .. (i + 1) * worlds - 1``; the worlds deal their future
    hands from a generator of their own).  ``seats``: one seat per row or
    one for all.  ``out``: the result of an earlier call with the same
    batch and ``worlds``, written over instead of new memory (faster; that
    state is then this one's).  ``known``: what the state does not keep but
    the seat saw -- ``tracker=`` a
    :class:`cardenvs.games.cancellation_hearts.sampler.Tracker`
    (Cancellation Hearts), a :class:`cardenvs.games.push.sampler.Tracker`
    (Push) or a :class:`cardenvs.games.spit.sampler.Tracker` (Speed).  ValueError
    for a game without a sampler, a seat out of range, ``worlds`` < 1, or a
    position no deal fits; TypeError if ``rng`` is not a numpy Generator."""
    game = sampler(rules.name)
    return game.sample(rules, state, seats, worlds, rng, out=out, **known)


def sampler(game: str) -> Any:
    """The sampler module of game ``game`` (a registry name): its
    ``GameSpec.sampler``.  ValueError, saying so, for a game without one."""
    from ..registry import spec

    found = spec(game).sampler
    if found is None:
        raise ValueError(f"no information-set sampler for {game}: its GameSpec names none (sampler=None)")
    return importlib.import_module(found)


__all__ = ["sample_worlds", "sampler"]
