"""High Card's state (the whole game, for centralised critics) as data:
:data:`STATE_LAYOUT` names, places and explains every entry (the table in
docs/high_card.md is generated from it); :func:`encode` writes it and
:func:`decode` reads where every card is (see :mod:`cardenvs.core.state`).

Seats are absolute (seat k is ``player_k``).  The ``public`` part is
``player_0``'s observation without its hand: seen from seat 0 its relative
seats are the absolute seats.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardenvs.core.game import BatchState
from cardenvs.core.layout import Field, Layout
from cardenvs.core.state import counts_texts, public_part, seat_one_hot, stack_codes, stack_texts

from .observation import LAYOUT
from .tables import DECK, NUM_CARDS, NUM_PLAYERS, STOCK_SIZE

PUBLIC, PUBLIC_INDEX = public_part(LAYOUT, "hand")

STATE_LAYOUT = Layout(
    [
        Field("hands", NUM_CARDS, "each seat's hand: 1 per card held, seat 0 first", count=NUM_PLAYERS),
        Field("stock", STOCK_SIZE, "the stock top first: card id + 1 (JC = 1 .. AS = 16), 0 past its end", high=16),
        Field("trick", NUM_PLAYERS, "the trick in play order: card id + 1, 0 not played", high=16),
        Field("current_player", NUM_PLAYERS, "the seat to act, one-hot (all zero: the game is over)"),
        Field(
            "public",
            0,
            "what every seat sees: `player_0`'s observation without `hand` (its relative seats are the absolute seats)",
            parts=PUBLIC,
        ),
    ]
)
HANDS, STOCK, TRICK, CURRENT, PUBLIC_AT = (STATE_LAYOUT[f.name].offset for f in STATE_LAYOUT)
DISCARDS = PUBLIC_AT + PUBLIC["discards"].offset


def state_layout(rules: Any) -> Layout:
    """The layout of every config."""
    return STATE_LAYOUT


def encode(rules: Any, state: BatchState, rows: np.ndarray, out: np.ndarray) -> None:
    """Write the states of the games ``rows`` into ``out`` (zeros)."""
    k = len(rows)
    out[:, HANDS:STOCK] = state.hands[rows].reshape(k, NUM_PLAYERS * NUM_CARDS)
    left = STOCK_SIZE - state.stock_top[rows]
    out[:, STOCK:TRICK] = stack_codes(state.stock[rows], state.stock_top[rows], left)
    out[:, TRICK:CURRENT] = state.table[rows] + 1
    seat_one_hot(out[:, CURRENT:PUBLIC_AT], state.current[rows])
    out[:, PUBLIC_AT:] = rules.observe(state, np.zeros(k, np.int64), rows)[:, PUBLIC_INDEX]


def decode(rules: Any, values: np.ndarray) -> dict[str, list[str]]:
    """Where every card of one state is: ``hand s`` for each seat s,
    ``stock`` (top first), ``discards`` and ``trick`` (in play order)."""
    cards = {}
    for s in range(NUM_PLAYERS):
        cards[f"hand {s}"] = counts_texts(DECK.texts, values[HANDS + s * NUM_CARDS : HANDS + (s + 1) * NUM_CARDS])
    cards["stock"] = stack_texts(DECK.texts, values[STOCK:TRICK])
    cards["discards"] = counts_texts(DECK.texts, values[DISCARDS : DISCARDS + NUM_CARDS])
    cards["trick"] = stack_texts(DECK.texts, values[TRICK:CURRENT])
    return cards
