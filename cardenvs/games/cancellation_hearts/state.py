"""Cancellation Hearts' state (the whole game, for centralised critics) as
data: :data:`STATE_LAYOUT` names, places and explains every entry (the table
in docs/cancellation_hearts.md is generated from it); :func:`encode` writes
it and :func:`decode` reads where every card is (see
:mod:`cardenvs.core.state`).

One fixed size for every player count (blocks for 11 seats, zero for seats
that do not exist); seats are absolute (seat k is ``player_k``).  Card blocks
use the 52 card types ``2C 3C .. AS`` (counts 0..2: two decks).  The
``public`` part is ``player_0``'s observation without its own fields (hand,
passed, received): points, scores, leader, dealer, widow holder in absolute
seats, the trick, the cards seen, the carried pile's size, the phase.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.game import BatchState
from ...core.layout import Field, Layout
from ...core.state import counts_texts, one_hot_index, public_part, seat_one_hot
from . import observation as ob
from .observation import CARD, LAYOUT
from .tables import DECK, MAX_SEATS, NUM_TYPES

PUBLIC, PUBLIC_INDEX = public_part(LAYOUT, "hand", "passed", "received")

STATE_LAYOUT = Layout(
    [
        Field(
            "hands",
            NUM_TYPES,
            "each seat's hand: count of each card type 2C .. AS, seat 0 first",
            count=MAX_SEATS,
            high=2,
        ),
        Field(
            "passing",
            NUM_TYPES,
            "each seat's cards set aside to pass, until the exchange (not in its hand meanwhile)",
            count=MAX_SEATS,
            high=2,
        ),
        Field("received", NUM_TYPES, "each seat's cards received in this hand's pass", count=MAX_SEATS, high=2),
        Field(
            "taken",
            NUM_TYPES,
            "each seat's cards won in tricks this hand (the widow not included)",
            count=MAX_SEATS,
            high=2,
        ),
        Field(
            "carried",
            NUM_TYPES,
            "the unclaimed pile waiting for the next trick won (the current trick not included)",
            high=2,
        ),
        Field("uncollected", NUM_TYPES, "cards nobody collected (a hand's last trick cancelled out)", high=2),
        Field(
            "widow", NUM_TYPES, "the widow's cards, wherever they went (see `widow_waiting`, `widow_holder`)", high=2
        ),
        Field("points_taken", MAX_SEATS, "each seat's points this hand, the widow's included once taken", high=52),
        Field("moon_shooter", MAX_SEATS, "the seat choosing how to shoot the moon, one-hot (all zero: nobody)"),
        Field("current_player", MAX_SEATS, "the seat to act, one-hot (all zero: the game is over)"),
        Field(
            "public",
            0,
            "what every seat sees: `player_0`'s observation without `hand`, `passed`, `received` "
            "(its relative seats are the absolute seats)",
            parts=PUBLIC,
        ),
    ]
)
HANDS, PASSING, RECEIVED, TAKEN, CARRIED, UNCOLLECTED, WIDOW, POINTS, MOON, CURRENT, PUBLIC_AT = (
    STATE_LAYOUT[f.name].offset for f in STATE_LAYOUT
)
TRICK_AT = PUBLIC_AT + PUBLIC["trick"].offset  # the trick's cards in play order, a CARD block each
SUIT, RANK = CARD["suit"].offset, CARD["rank"].offset


def state_layout(rules: Any) -> Layout:
    """The layout of every config (one size for 6-11 players)."""
    return STATE_LAYOUT


def encode(rules: Any, state: BatchState, rows: np.ndarray, out: np.ndarray) -> None:
    """Write the states of the games ``rows`` into ``out`` (zeros)."""
    k, n = len(rows), rules.num_players
    seats = n * NUM_TYPES
    out[:, HANDS : HANDS + seats] = state.hands[rows].reshape(k, seats)
    out[:, PASSING : PASSING + seats] = state.pass_chosen[rows].reshape(k, seats)
    received = state.private[rows, :, ob.RECEIVED : ob.RECEIVED + NUM_TYPES]
    out[:, RECEIVED : RECEIVED + seats] = received.reshape(k, seats)
    out[:, TAKEN : TAKEN + seats] = state.taken[rows].reshape(k, seats)
    out[:, CARRIED : CARRIED + NUM_TYPES] = state.pile[rows] - trick_counts(state, rows)
    out[:, UNCOLLECTED : UNCOLLECTED + NUM_TYPES] = state.uncollected[rows]
    out[:, WIDOW : WIDOW + NUM_TYPES] = state.widow[rows]
    out[:, POINTS : POINTS + n] = state.points[rows]
    seat_one_hot(out[:, MOON : MOON + MAX_SEATS], state.moon_seat[rows])
    seat_one_hot(out[:, CURRENT : CURRENT + MAX_SEATS], state.current[rows])
    out[:, PUBLIC_AT:] = rules.observe(state, np.zeros(k, np.int64), rows)[:, PUBLIC_INDEX]


def trick_counts(state: BatchState, rows: np.ndarray) -> np.ndarray:
    """The cards of each game's current trick, as counts per card type ``(k, 52)``
    (the rules keep the trick in ``state.pile`` too, as ``state_dict`` reads it)."""
    trick = state.trick[rows]
    played = np.arange(trick.shape[1]) < state.in_trick[rows][:, None]
    counts = np.zeros((len(rows), NUM_TYPES), np.int64)
    game, position = np.nonzero(played)
    np.add.at(counts, (game, trick[game, position]), 1)
    return counts


def decode(rules: Any, values: np.ndarray) -> dict[str, list[str]]:
    """Where every card of one state is: ``hand s``, ``passing s``, ``taken s``
    for each seat s, ``carried``, ``uncollected``, ``widow`` and ``trick`` (in
    play order)."""
    texts = DECK.texts

    def field(at: int) -> list[str]:
        return counts_texts(texts, values[at : at + NUM_TYPES])

    cards = {"carried": field(CARRIED), "uncollected": field(UNCOLLECTED), "widow": field(WIDOW), "trick": []}
    for s in range(rules.num_players):
        for name, at in (("hand", HANDS), ("passing", PASSING), ("taken", TAKEN)):
            cards[f"{name} {s}"] = field(at + s * NUM_TYPES)
    for position in range(MAX_SEATS):
        block = values[TRICK_AT + position * CARD.size : TRICK_AT + (position + 1) * CARD.size]
        suit, rank = one_hot_index(block[SUIT : SUIT + 4]), one_hot_index(block[RANK : RANK + 13])
        if suit >= 0:
            cards["trick"].append(texts[13 * suit + rank])
    return cards


def places(sd: dict[str, Any]) -> dict[str, list[str]]:
    """Where every card of ``state_dict()`` ``sd`` is, named as :func:`decode`
    names them (the conformance kit's ``state_decode``)."""
    out = {"carried": sd["carried"], "uncollected": sd["uncollected"], "widow": sd["widow"]}
    out["trick"] = [t["card"] for t in sd["trick"]]
    for s in range(sd["num_players"]):
        out.update({f"hand {s}": sd["hands"][s], f"passing {s}": sd["passing"][s], f"taken {s}": sd["taken"][s]})
    return out
