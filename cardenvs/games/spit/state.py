"""Spit's state (the whole game, for centralised critics) as data:
:data:`STATE_LAYOUT` names, places and explains every entry (the table in
docs/spit.md is generated from it); :func:`encode` writes it and
:func:`decode` reads where every card is (see :mod:`cardenvs.core.state`).
Speed's is :mod:`cardenvs.games.spit.speed.state`.

Every pile is in order, as card codes: a card's id + 1 (1..52 for
``2C 3C .. AC 2D .. AS``), 0 past the pile's end.  Seats are absolute.  The
``public`` part is ``player_0``'s observation without its seat and padding:
the stockpiles' tops and sizes (``own`` is seat 0's, ``opponent`` seat 1's),
the spit piles' tops and sizes, the spit cards left, the phase and the ticks
left.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.game import BatchState
from ...core.layout import Field, Layout
from ...core.state import public_part, stack_codes, stack_texts
from .observation import LAYOUT, MAX_STOCKPILES
from .tables import DECK

PUBLIC, PUBLIC_INDEX = public_part(LAYOUT, "seat", "padding")
PILE = MAX_STOCKPILES  # a stockpile holds at most as many cards as there are stockpiles (pile i starts with i + 1)

STATE_LAYOUT = Layout(
    [
        Field(
            "stockpiles",
            PILE,
            "each stockpile in order, bottom first (its last card is the face-up top): seat 0's piles 0..4, then "
            "seat 1's (`stockpiles=4`: each seat's fifth all 0); codes: card id + 1, 0 past the end",
            count=2 * MAX_STOCKPILES,
            high=52,
        ),
        Field("spit_cards", 52, "each seat's spit cards in order, top first (codes as `stockpiles`)", count=2, high=52),
        Field("spit_piles", 52, "spit piles 0 and 1 in order, bottom first (codes as `stockpiles`)", count=2, high=52),
        Field(
            "public",
            0,
            "what both players see: `player_0`'s observation without `seat` and `padding` (`own` is seat 0)",
            parts=PUBLIC,
        ),
    ]
)
STOCKPILES, SPIT_CARDS, SPIT_PILES, PUBLIC_AT = (STATE_LAYOUT[f.name].offset for f in STATE_LAYOUT)


def state_layout(rules: Any) -> Layout:
    """The layout of every Spit config."""
    return STATE_LAYOUT


def encode(rules: Any, state: BatchState, rows: np.ndarray, out: np.ndarray) -> None:
    """Write the states of the games ``rows`` into ``out`` (zeros)."""
    k, size = len(rows), rules.stockpiles
    counts = state.stockpile_count[rows].astype(np.int64)
    piles = np.zeros((k, 2, MAX_STOCKPILES, PILE), np.int64)
    piles[:, :, :size, :size] = stack_codes(state.stockpiles[rows], np.zeros_like(counts), counts)
    out[:, STOCKPILES : STOCKPILES + piles[0].size] = piles.reshape(k, -1)
    spit_count = state.spit_count[rows]
    codes = stack_codes(state.spit_cards[rows], spit_count - 1, spit_count, step=-1)
    out[:, SPIT_CARDS : SPIT_CARDS + 104] = codes.reshape(k, 104)
    centre = stack_codes(state.centre[rows], np.zeros((k, 2), np.int64), state.centre_count[rows])
    out[:, SPIT_PILES : SPIT_PILES + 104] = centre.reshape(k, 104)
    out[:, PUBLIC_AT:] = rules.observe(state, rows)[:, 0, PUBLIC_INDEX]


def decode(rules: Any, values: np.ndarray) -> dict[str, list[str]]:
    """Where every card of one state is: ``stockpile s i`` (bottom first),
    ``spit_cards s`` (top first) for each seat s and pile i, and
    ``spit_pile p`` (bottom first)."""
    texts = DECK.texts
    cards = {}
    for s in range(2):
        for i in range(rules.stockpiles):
            at = STOCKPILES + (s * MAX_STOCKPILES + i) * PILE
            cards[f"stockpile {s} {i}"] = stack_texts(texts, values[at : at + PILE])
        cards[f"spit_cards {s}"] = stack_texts(texts, values[SPIT_CARDS + 52 * s : SPIT_CARDS + 52 * (s + 1)])
    for p in range(2):
        cards[f"spit_pile {p}"] = stack_texts(texts, values[SPIT_PILES + 52 * p : SPIT_PILES + 52 * (p + 1)])
    return cards


def places(sd: dict[str, Any]) -> dict[str, list[str]]:
    """Where every card of ``state_dict()`` ``sd`` is, named as :func:`decode`
    names them (the conformance kit's ``state_decode``)."""
    out = {}
    for s in range(2):
        out.update({f"stockpile {s} {i}": pile for i, pile in enumerate(sd["stockpiles"][s])})
        out[f"spit_cards {s}"] = sd["spit_cards"][s]
    out.update({f"spit_pile {p}": sd["spit_piles"][p] for p in range(2)})
    return out
