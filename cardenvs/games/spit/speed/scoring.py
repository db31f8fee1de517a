"""Speed: the end of a game and of a match, scores.  Whole-batch numpy
(see :mod:`.deal`); the end of the episode (+1 / -1, or a draw) and the
``max_ticks`` cut are Spit's (:mod:`cardenvs.games.spit.scoring`).

The winner of a game scores a point per card left in the opponent's stock
(cards in the opponent's hand do not count).  Without ``target_score`` one game is the episode; with it,
games repeat until a player has that many points.
"""

from __future__ import annotations

import numpy as np

from ....core.game import BatchState


def score_game(state: BatchState, rows: np.ndarray, seats: np.ndarray) -> None:
    """``seats`` played every card of hand and stock: they win the game in
    ``rows``, scoring the cards left in the opponent's stock."""
    other = 1 - seats
    state.scores[rows, seats] += state.stock_count[rows, other]
    state.hand_number[rows] += 1


def match_won(state: BatchState, rows: np.ndarray, seats: np.ndarray, target_score: int | None) -> np.ndarray:
    """``(k,)`` bool: the game ``seats`` just won in ``rows`` ends the
    episode (always without a target score)."""
    if target_score is None:
        return np.ones(len(rows), bool)
    return state.scores[rows, seats] >= target_score
