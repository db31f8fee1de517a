"""Pepper's state (the whole game, for centralised critics) as data:
:data:`STATE_LAYOUT` names, places and explains every entry (the table in
docs/pepper.md is generated from it); :func:`encode` writes it and
:func:`decode` reads where every card is (see :mod:`cardenvs.core.state`).

Seats are absolute (seat k is ``player_k``); blocks of seats that do not
exist at 2-3 players are zero.  The ``public`` part is ``player_0``'s
observation without its hand: its per-seat blocks (cards on the table,
cards played to earlier tricks, bids, tricks, scores) in absolute seats.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.game import BatchState
from ...core.layout import Field, Layout
from ...core.state import counts_texts, one_hot_index, public_part, seat_one_hot
from .observation import LAYOUT, MAX_SEATS, SEAT
from .tables import DECK, NUM_TYPES

PUBLIC, PUBLIC_INDEX = public_part(LAYOUT, "hand")

STATE_LAYOUT = Layout(
    [
        Field("hands", NUM_TYPES, "each seat's hand (1 = held), seat 0 first", count=MAX_SEATS),
        Field("dead_hand", NUM_TYPES, "the dead hand (2 players; nobody sees it)"),
        Field("current_player", MAX_SEATS, "the seat to act, one-hot (all zero: the game is over)"),
        Field(
            "public",
            0,
            "what every seat sees: `player_0`'s observation without `hand` (its relative seats are the absolute seats)",
            parts=PUBLIC,
        ),
    ]
)
HANDS, DEAD, CURRENT, PUBLIC_AT = (
    STATE_LAYOUT[name].offset for name in ("hands", "dead_hand", "current_player", "public")
)
# Where each absolute seat's public block starts in the state, and its fields' offsets in the block.
SEATS_AT = PUBLIC_AT + PUBLIC["seats"].offset
TABLE, PLAYED = SEAT["table"].offset, SEAT["played"].offset


def state_layout(rules: Any) -> Layout:
    """The layout of every config (one size for 2-4 players)."""
    return STATE_LAYOUT


def encode(rules: Any, state: BatchState, rows: np.ndarray, out: np.ndarray) -> None:
    """Write the states of the games ``rows`` into ``out`` (zeros)."""
    k, n = len(rows), rules.num_players
    out[:, HANDS : HANDS + n * NUM_TYPES] = state.hands[rows].reshape(k, n * NUM_TYPES)
    out[:, DEAD : DEAD + NUM_TYPES] = state.dead[rows]
    seat_one_hot(out[:, CURRENT : CURRENT + MAX_SEATS], state.current[rows])
    out[:, PUBLIC_AT:] = rules.observe(state, np.zeros(k, np.int64), rows)[:, PUBLIC_INDEX]


def decode(rules: Any, values: np.ndarray) -> dict[str, list[str]]:
    """Where every card of one state is: ``hand s``, ``dead_hand``,
    ``table s`` (its card in the current trick) and ``played s`` (its cards
    in earlier tricks of the hand), for each seat s."""
    cards = {"dead_hand": counts_texts(DECK.texts, values[DEAD : DEAD + NUM_TYPES])}
    for s in range(rules.num_players):
        block = values[SEATS_AT + s * SEAT.size : SEATS_AT + (s + 1) * SEAT.size]
        at = HANDS + s * NUM_TYPES
        cards[f"hand {s}"] = counts_texts(DECK.texts, values[at : at + NUM_TYPES])
        on_table = one_hot_index(block[TABLE : TABLE + NUM_TYPES])
        cards[f"table {s}"] = [] if on_table < 0 else [DECK.texts[on_table]]
        cards[f"played {s}"] = counts_texts(DECK.texts, block[PLAYED : PLAYED + NUM_TYPES])
    return cards


def places(sd: dict[str, Any]) -> dict[str, list[str]]:
    """Where every card of ``state_dict()`` ``sd`` is, named and ordered as
    :func:`decode` gives them (the conformance kit's ``state_decode``):
    ``played s`` in the deck's order."""
    out = {"dead_hand": sd["dead_hand"]}
    for s in range(sd["num_players"]):
        out[f"hand {s}"] = sd["hands"][s]
        out[f"table {s}"] = [c["card"] for c in sd["trick"] if c["seat"] == s]
        played = (c["card"] for t in sd["tricks"] for c in t["cards"] if c["seat"] == s)
        out[f"played {s}"] = sorted(played, key=DECK.texts.index)
    return out
