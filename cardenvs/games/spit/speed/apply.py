"""Speed: applying a tick, in whole-batch numpy over a set of rows (see
:mod:`.deal` for why Speed is not compiled): the plays of one hand of the
tick, and the automatic side-pile flips of a stalemate.

No function here draws a random number: the shuffle keys of rebuilt side
piles are drawn by the rules and passed in.
"""

from __future__ import annotations

import numpy as np

from ....core.game import BatchState
from ..tables import NONE
from .tables import card_of, pile_of


def play_cards(
    state: BatchState,
    rows: np.ndarray,
    seats: np.ndarray,
    actions: np.ndarray,
    second: bool,
    fits_flat: np.ndarray,
    shed: np.float32,
    rewards: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """``seats`` play ``actions`` (``"play CARD P"``) in ``rows``, earning
    ``shed`` each (0: none); the hand is refilled from the own stock at
    once.  The ``second`` (slower) hand's card lands only if it still fits
    (``fits_flat[top * 53 + card]``).  Returns the rows and seats that
    played their last card."""
    card, pile = card_of(actions), pile_of(actions)
    if second:
        fit = fits_flat[state.centre_top[rows, pile] * 53 + card]
        rows, seats, card, pile = rows[fit], seats[fit], card[fit], pile[fit]
    state.hand[rows, seats, card] = False
    state.centre[rows, pile, state.centre_count[rows, pile]] = card
    state.centre_count[rows, pile] += 1
    state.centre_top[rows, pile] = card
    state.stall[rows] = 0
    if shed:
        rewards[rows, seats] += shed
    draw = state.stock_count[rows, seats] > 0
    drawn_rows, drawn_seats = rows[draw], seats[draw]
    left = state.stock_count[drawn_rows, drawn_seats] - 1
    state.hand[drawn_rows, drawn_seats, state.stock[drawn_rows, drawn_seats, left]] = True
    state.stock[drawn_rows, drawn_seats, left] = NONE
    state.stock_count[drawn_rows, drawn_seats] = left
    state.hand_count[rows[~draw], seats[~draw]] -= 1
    out = ~draw & (state.hand_count[rows, seats] == 0)
    return rows[out], seats[out]


def flip_side_piles(state: BatchState, rows: np.ndarray) -> None:
    """Each non-empty side pile of ``rows`` turns its top card onto the
    centre pile beside it; the stall rule's count starts again."""
    state.stall[rows] = 0
    game, pile = np.nonzero(state.side_count[rows] > 0)
    game = rows[game]
    left = state.side_count[game, pile] - 1
    card = state.side_piles[game, pile, left]
    state.side_piles[game, pile, left] = NONE
    state.side_count[game, pile] = left
    state.centre[game, pile, state.centre_count[game, pile]] = card
    state.centre_count[game, pile] += 1
    state.centre_top[game, pile] = card


def rebuild_side_piles(state: BatchState, rows: np.ndarray, keys: np.ndarray) -> None:
    """The cards under both centre tops of ``rows``, ordered by the random
    ``keys`` (k, 104), become side pile 0 (the first half, rounded up) and
    side pile 1; the centre piles keep their tops."""
    under = state.centre_count[rows] - 1  # (k, 2) cards under each top
    below = np.arange(52)[None, None, :] < under[:, :, None]
    cards = np.where(below, state.centre[rows].astype(np.int64), NONE).reshape(len(rows), -1)
    keys = np.where(cards < NONE, keys, 2.0)
    cards = np.take_along_axis(cards, np.argsort(keys, axis=1), axis=1)  # the shuffled cards first
    total = under.sum(axis=1)
    half = (total + 1) // 2
    state.side_piles[rows] = NONE
    position = np.arange(cards.shape[1])[None, :]
    game, at = np.nonzero(position < half[:, None])
    state.side_piles[rows[game], 0, at] = cards[game, at]
    game, at = np.nonzero((position >= half[:, None]) & (position < total[:, None]))
    state.side_piles[rows[game], 1, at - half[game]] = cards[game, at]
    state.side_count[rows, 0] = half
    state.side_count[rows, 1] = total - half
    tops = state.centre_top[rows]
    state.centre[rows] = NONE
    state.centre[rows, :, 0] = tops
    state.centre_count[rows] = 1
    state.side_rebuilt[rows] = True
