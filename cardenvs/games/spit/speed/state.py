"""Speed's state (the whole game, for centralised critics) as data:
:func:`state_layout` names, places and explains every entry (the bound of
the scores depends on ``target_score``: :data:`STATE_LAYOUT` is the default
config's, whose table is in docs/spit.md); :func:`encode` writes it and
:func:`decode` reads where every card is (see :mod:`cardenvs.core.state`).

Every stack is in order, as card codes: a card's id + 1 (1..52 for
``2C 3C .. AC 2D .. AS``), 0 past its end.  Seats are absolute.  The
``public`` part is ``player_0``'s observation without its hand and seat:
the centre tops, every count, the scores (``own`` is seat 0's) and the ticks
left.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from ....core.game import BatchState
from ....core.layout import Field, Layout
from ....core.state import public_part, stack_codes, stack_texts
from .observation import LAYOUT, score_bound, speed_layout
from .tables import DECK

OWN = ("hand", "seat")
PUBLIC_INDEX = public_part(LAYOUT, *OWN)[1]


@cache
def layout_for(max_score: int) -> Layout:
    """The state with scores bounded by ``max_score``."""
    return Layout(
        [
            Field("hands", 52, "each seat's hand (1 = held), cards 2C 3C .. AS", count=2),
            Field(
                "stocks",
                52,
                "each seat's stock in order, top first: codes card id + 1, 0 past the end",
                count=2,
                high=52,
            ),
            Field("side_piles", 52, "side piles 0 and 1 in order, top first (codes as `stocks`)", count=2, high=52),
            Field(
                "centre_piles", 52, "centre piles 0 and 1 in order, bottom first (codes as `stocks`)", count=2, high=52
            ),
            Field(
                "public",
                0,
                "what both players see: `player_0`'s observation without `hand` and `seat` (`own` is seat 0)",
                parts=public_part(speed_layout(max_score), *OWN)[0],
            ),
        ]
    )


STATE_LAYOUT = layout_for(score_bound(None))
HANDS, STOCKS, SIDE_PILES, CENTRE_PILES, PUBLIC_AT = (STATE_LAYOUT[f.name].offset for f in STATE_LAYOUT)


def state_layout(rules: Any) -> Layout:
    """The layout of ``rules``' config (its scores' bound)."""
    return layout_for(score_bound(rules.target_score))


def encode(rules: Any, state: BatchState, rows: np.ndarray, out: np.ndarray) -> None:
    """Write the states of the games ``rows`` into ``out`` (zeros)."""
    k = len(rows)
    out[:, HANDS : HANDS + 104] = state.hand[rows].reshape(k, 104)
    count = state.stock_count[rows]
    out[:, STOCKS : STOCKS + 104] = stack_codes(state.stock[rows], count - 1, count, step=-1).reshape(k, 104)
    count = state.side_count[rows]
    out[:, SIDE_PILES : SIDE_PILES + 104] = stack_codes(state.side_piles[rows], count - 1, count, step=-1).reshape(
        k, 104
    )
    centre = stack_codes(state.centre[rows], np.zeros((k, 2), np.int64), state.centre_count[rows])
    out[:, CENTRE_PILES : CENTRE_PILES + 104] = centre.reshape(k, 104)
    out[:, PUBLIC_AT:] = rules.observe(state, rows)[:, 0, PUBLIC_INDEX]


def decode(rules: Any, values: np.ndarray) -> dict[str, list[str]]:
    """Where every card of one state is: ``hand s``, ``stock s`` (top first)
    for each seat s, ``side_pile p`` (top first) and ``centre_pile p``
    (bottom first)."""
    texts = DECK.texts

    def stack(at: int, k: int) -> list[str]:
        return stack_texts(texts, values[at + 52 * k : at + 52 * (k + 1)])

    cards = {}
    for k in range(2):
        cards[f"hand {k}"] = [texts[c] for c in np.flatnonzero(values[HANDS + 52 * k : HANDS + 52 * (k + 1)])]
        cards[f"stock {k}"] = stack(STOCKS, k)
        cards[f"side_pile {k}"] = stack(SIDE_PILES, k)
        cards[f"centre_pile {k}"] = stack(CENTRE_PILES, k)
    return cards


def places(sd: dict[str, Any]) -> dict[str, list[str]]:
    """Where every card of ``state_dict()`` ``sd`` is, named as :func:`decode`
    names them (the conformance kit's ``state_decode``)."""
    out = {}
    for k in range(2):
        out[f"hand {k}"], out[f"stock {k}"] = sd["hands"][k], sd["stocks"][k]
        out[f"side_pile {k}"], out[f"centre_pile {k}"] = sd["side_piles"][k], sd["spit_piles"][k]
    return out
