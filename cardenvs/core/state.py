"""The whole game as one flat array, for centralised critics (MAPPO-style
methods): PettingZoo's ``state()`` and ``state_space`` on every env, and
``states()`` / ``single_state_space`` / ``state_space`` on the vector engine.

The state is the game from a *neutral* view: seats are absolute (block k is
``player_k``'s), every card is located (every hand, stock, widow, dead hand,
pile), and what every seat sees is in it too.  Each game lays it out as it
lays out its observation, as data (a :class:`~.layout.Layout`: the index
table in its docs page is generated from it), in three kinds of fields:

- per seat what only that seat (or nobody) sees: hands, cards set aside;
- ordered stacks (a stock, a discard pile, Spit's piles) as card codes in
  order, ``card id + 1`` per card (0 past the end): the order of a face-down
  stock is hidden from every seat but it is part of the game (it decides
  the next draws), so the state holds it;
- ``public``: ``player_0``'s observation without its own fields (its hand,
  ...).  Seen from seat 0 the observation's relative seats are the absolute
  seats, so this part is the table as everyone sees it, in absolute seats,
  with the observation's own encoding (its table rows are the observation's).

It is computed only when asked (never on the step path), in the game's
compact integer dtype (the observations'), or in float32 with
``obs_dtype="float32"``; its bounds are finite in either.

A game's encoder lives in the ``state`` module beside its rules
(``cardenvs.games.pepper.rules`` -> ``cardenvs.games.pepper.state``; a rules class may
name another in ``state_module``), which holds ``STATE_LAYOUT`` (the default
config's layout, for the docs), ``state_layout(rules)``, ``encode(rules,
state, rows, out)`` (write the states of games ``rows`` into the zeros of
``out``) and ``decode(rules, values)`` (where every card of one state is:
``{location: [card texts]}``, the inverse the tests check against
``state_dict()``).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import numpy as np
from gymnasium import spaces

from .layout import Layout


def state_module(rules: Any) -> ModuleType:
    """The module of ``rules``' state encoder (see the module doc);
    ``NotImplementedError`` (PettingZoo's for a missing ``state()``) if the
    game has none."""
    name = getattr(rules, "state_module", None) or type(rules).__module__.rpartition(".")[0] + ".state"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name != name:
            raise
        raise NotImplementedError(f"{type(rules).__name__} has no state encoder (module {name})") from None


def state_layout(rules: Any) -> Layout:
    """The layout of ``rules``' state (its config's bounds)."""
    return state_module(rules).state_layout(rules)


def state_box(rules: Any, dtype: Any = None) -> spaces.Box:
    """The space of one game's state: the layout's bounds in ``dtype``
    (default: the game's compact observation dtype), unbounded entries
    (raw scores) bounded by the compact dtype's range, as the observation
    space's are (:func:`~.spaces.observation_box`)."""
    compact = np.dtype(rules.obs_dtype)
    dtype = np.dtype(dtype if dtype is not None else compact)
    low, high = state_layout(rules).bounds()
    if np.issubdtype(compact, np.integer):
        info = np.iinfo(compact)
        low, high = np.clip(low, info.min, info.max), np.clip(high, info.min, info.max)
    return spaces.Box(low.astype(dtype), high.astype(dtype), low.shape, dtype)


def encode_states(rules: Any, state: Any, rows: np.ndarray | None = None, dtype: Any = None) -> np.ndarray:
    """The states ``(len(rows), size)`` of the games ``rows`` of the batched
    ``state`` (default: every game), in ``dtype`` (default: the compact one)."""
    module = state_module(rules)
    rows = np.arange(state.batch) if rows is None else np.asarray(rows, np.int64)
    out = np.zeros((len(rows), module.state_layout(rules).size), np.dtype(rules.obs_dtype))
    module.encode(rules, state, rows, out)
    return out if dtype is None else out.astype(dtype)


def decode_state(rules: Any, values: np.ndarray) -> dict[str, list[str]]:
    """Where every card of the state ``values`` (one game's, any dtype) is:
    ``{location: [card texts]}`` (see the game's ``decode``)."""
    return state_module(rules).decode(rules, np.asarray(values).astype(np.int64))


# --- helpers the games' encoders share ----------------------------------------
def public_part(layout: Layout, *own: str) -> tuple[Layout, np.ndarray]:
    """An observation ``layout`` without the viewer's ``own`` fields, and
    where its entries are in the observation (see the module doc)."""
    public = layout.without(*own)
    return public, layout.indices(f.name for f in public)


def seat_one_hot(out: np.ndarray, seats: np.ndarray) -> None:
    """Write the one-hot of each row's seat into ``out`` ``(k, width)``
    (a seat -1, nobody: all zero)."""
    some = np.flatnonzero(seats >= 0)
    out[some, seats[some]] = 1


def stack_codes(cards: np.ndarray, first: np.ndarray, count: np.ndarray, step: int = 1) -> np.ndarray:
    """Stacks as the state shows them: entry j of a stack is
    ``cards[..., first + step * j] + 1`` for ``j < count`` (its card id + 1,
    in the order the state documents), 0 past its end.  ``cards`` ``(..., L)``
    card ids; ``first``, ``count`` ``(...)``; ``step`` 1 or -1 (a stack
    stored bottom first shown top first: ``first = count - 1``, step -1)."""
    width = cards.shape[-1]
    j = np.arange(width)
    at = np.clip(np.asarray(first)[..., None] + step * j, 0, width - 1)
    codes = np.take_along_axis(cards.astype(np.int64), at, axis=-1) + 1
    return np.where(j < np.asarray(count)[..., None], codes, 0)


def stack_texts(texts: tuple[str, ...], codes: np.ndarray) -> list[str]:
    """The card texts of a stack's codes (see :func:`stack_codes`), in order."""
    return [texts[c - 1] for c in codes.tolist() if c > 0]


def counts_texts(texts: tuple[str, ...], counts: np.ndarray) -> list[str]:
    """The card texts of counts per card type (``texts[t]`` ``counts[t]`` times)."""
    return [texts[t] for t, n in enumerate(counts.tolist()) for _ in range(n)]


def one_hot_index(values: np.ndarray) -> int:
    """The index of a one-hot's 1 (-1: all zero)."""
    hot = np.flatnonzero(values)
    return int(hot[0]) if len(hot) else -1
