"""Push's state (the whole game, for centralised critics) as data:
:data:`STATE_LAYOUT` names, places and explains every entry (the table in
docs/push.md is generated from it); :func:`encode` writes it and
:func:`decode` reads where every card is (see :mod:`cardenvs.core.state`).

Seats are absolute (seat k is ``player_k``).  Card blocks use the 53 card
types ``2C 3C .. AS JK``; the stock and the discard pile are in order, as
card codes (type + 1, 0 past the end).  The ``public`` part is
``player_0``'s observation without its hand: the discard pile's top and
contents, the seats' hand sizes, contracts and scores, the turn, and every
meld slot, in absolute seats.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.game import BatchState
from ...core.layout import Field, Layout
from ...core.state import counts_texts, public_part, seat_one_hot, stack_codes, stack_texts
from .observation import LAYOUT, POS, POSITION_SIZE, RUN_SUIT, SET_CARDS, SET_RANK, SLOT, USED
from .tables import DECK, NATURAL_TYPE, NUM_MELDS, NUM_POSITIONS, NUM_TYPES, WILD_TYPES

PUBLIC, PUBLIC_INDEX = public_part(LAYOUT, "hand")
CARDS = DECK.num_cards  # 108

STATE_LAYOUT = Layout(
    [
        Field("hands", NUM_TYPES, "each seat's hand (count per card type), seat 0 first", count=4, high=4),
        Field(
            "stock",
            CARDS,
            "the stock in order, top first: each card's type + 1 (1..53 for 2C .. JK; 0 past the end)",
            high=NUM_TYPES,
        ),
        Field("discard", CARDS, "the discard pile in order, bottom first (codes as `stock`)", high=NUM_TYPES),
        Field("current_player", 4, "the seat to act, one-hot (all zero: the game is over)"),
        Field(
            "public",
            0,
            "what every seat sees: `player_0`'s observation without `hand` (its relative seats are the absolute seats)",
            parts=PUBLIC,
        ),
    ]
)
HANDS, STOCK, DISCARD, CURRENT, PUBLIC_AT = (STATE_LAYOUT[f.name].offset for f in STATE_LAYOUT)
MELDS_AT = PUBLIC_AT + PUBLIC["melds"].offset  # the meld slots, a SLOT block each


def state_layout(rules: Any) -> Layout:
    """The layout of every config."""
    return STATE_LAYOUT


def encode(rules: Any, state: BatchState, rows: np.ndarray, out: np.ndarray) -> None:
    """Write the states of the games ``rows`` into ``out`` (zeros)."""
    k = len(rows)
    out[:, HANDS : HANDS + 4 * NUM_TYPES] = state.hands[rows].reshape(k, 4 * NUM_TYPES)
    out[:, STOCK : STOCK + CARDS] = stack_codes(state.stock[rows], state.stock_top[rows], state.stock_size[rows])
    out[:, DISCARD : DISCARD + CARDS] = stack_codes(state.pile[rows], np.zeros(k, np.int64), state.pile_size[rows])
    seat_one_hot(out[:, CURRENT : CURRENT + 4], state.current[rows])
    out[:, PUBLIC_AT:] = rules.observe(state, np.zeros(k, np.int64), rows)[:, PUBLIC_INDEX]


def decode(rules: Any, values: np.ndarray) -> dict[str, list[str]]:
    """Where every card of one state is: ``hand s`` for each seat s,
    ``stock`` (top first), ``discard`` (bottom first) and ``meld m`` for each
    meld slot in use (its cards, read off the slot's block)."""
    texts = DECK.texts
    cards = {
        "stock": stack_texts(texts, values[STOCK : STOCK + CARDS]),
        "discard": stack_texts(texts, values[DISCARD : DISCARD + CARDS]),
    }
    for s in range(4):
        cards[f"hand {s}"] = counts_texts(texts, values[HANDS + s * NUM_TYPES : HANDS + (s + 1) * NUM_TYPES])
    for m in range(NUM_MELDS):
        block = values[MELDS_AT + m * SLOT.size : MELDS_AT + (m + 1) * SLOT.size]
        if block[USED]:
            cards[f"meld {m}"] = [texts[t] for t in meld_types(block)]
    return cards


def meld_types(block: np.ndarray) -> list[int]:
    """The card types of a meld slot's block (see ``observation.SLOT``): a
    set's naturals (one count per suit) and wilds; a run's card at each
    position, natural or the wild standing there."""
    ranks, suits = block[SET_RANK : SET_RANK + 13], block[RUN_SUIT : RUN_SUIT + 4]
    if ranks.any():
        rank = int(np.flatnonzero(ranks)[0])
        naturals = [suit * 13 + rank for suit in range(4) for _ in range(block[SET_CARDS + suit])]
        return naturals + [int(WILD_TYPES[w]) for w in range(5) for _ in range(block[SET_CARDS + 4 + w])]
    suit = int(np.flatnonzero(suits)[0])
    types = []
    for p in range(NUM_POSITIONS):
        what = np.flatnonzero(block[POS + p * POSITION_SIZE : POS + (p + 1) * POSITION_SIZE])
        if len(what):
            types.append(int(NATURAL_TYPE[suit, p]) if what[0] == 0 else int(WILD_TYPES[what[0] - 1]))
    return types


def places(sd: dict[str, Any]) -> dict[str, list[str]]:
    """Where every card of ``state_dict()`` ``sd`` is, named as :func:`decode`
    names them (the conformance kit's ``state_decode``)."""
    out = {"stock": sd["stock"], "discard": sd["discard"]}
    out.update({f"hand {s}": hand for s, hand in enumerate(sd["hands"])})
    out.update({f"meld {m}": meld["cards"] for m, meld in enumerate(sd["melds"])})
    return out
