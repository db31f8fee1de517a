"""Speed's constants and tables (no numba).  The deck, phases, "no card",
``wait`` and the adjacency of ranks are Spit's (:mod:`cardenvs.games.spit.tables`).

Speed actions (105): 0 ``"wait"``; ``1 + 2*card + P`` ``"play CARD P"``
(card id ``suit * 13 + rank`` as in Spit, played from the hand onto centre
pile P).
"""

from __future__ import annotations

import numpy as np

from ....core.actions import ActionTable
from ..tables import DECK, adjacency

SIDE_PILE_CHOICES = (10, 5)
NUM_ACTIONS = 1 + 52 * 2
HAND_SIZE = 5  # a hand is refilled from the own stock up to five cards
SPEED_ACTIONS = ActionTable(
    ["wait"] + [f"play {DECK.texts[c]} {p}" for c in range(52) for p in range(2)], "speed", ("wait", "play QS 1")
)


def card_of(actions: np.ndarray) -> np.ndarray:
    """The card a ``"play CARD P"`` action plays."""
    return (actions - 1) // 2


def pile_of(actions: np.ndarray) -> np.ndarray:
    """The centre pile a ``"play CARD P"`` action plays onto."""
    return (actions - 1) % 2


def stock_size(side_pile_size: int) -> int:
    """Cards in each player's stock: 15 with side piles of 10, 20 with 5
    (52 cards = 2 stocks + 2 side piles + the 2 middle cards)."""
    return (52 - 2 - 2 * side_pile_size) // 2


def fitting_cards(alternate_colors: bool) -> np.ndarray:
    """``fits[top, card]`` (53, 52): ``card`` may be played on a centre pile
    whose top is ``top`` (row 52, no card: none)."""
    return np.ascontiguousarray(adjacency(alternate_colors)[:, :52])
