"""Batched information-set sampling: complete states consistent with what
one seat per game has seen (docs/search.md).

:func:`sample_worlds` dispatches to the game's sampler
(:mod:`.pepper`, :mod:`.cancellation_hearts`, :mod:`.push`, :mod:`.spit`
for Spit and Speed); the game-free core is :mod:`.base` (the deals) and
:mod:`.worlds` (the states)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.game import BatchState


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
    the seat saw -- ``tracker=`` a :class:`.cancellation_hearts.Tracker`
    (Cancellation Hearts), a :class:`.push.Tracker` (Push) or a
    :class:`.spit.Tracker` (Speed).  ValueError
    for a game without a sampler, a seat out of range, ``worlds`` < 1, or a
    position no deal fits; TypeError if ``rng`` is not a numpy Generator."""
    name = rules.name
    if name == "pepper_v0":
        from . import pepper as game
    elif name == "cancellation_hearts_v0":
        from . import cancellation_hearts as game
    elif name == "push_v0":
        from . import push as game
    elif name == "spit_v0":
        from . import spit as game
    else:
        raise ValueError(f"no information-set sampler for {name}")
    return game.sample(rules, state, seats, worlds, rng, out=out, **known)


__all__ = ["sample_worlds"]
