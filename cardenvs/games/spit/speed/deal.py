"""Speed: dealing a game, in whole-batch numpy over a set of rows.

Speed's rules core is whole-batch numpy (branches are row subsets), not
compiled kernels: its per-tick work is a few array operations on every row.
No function here draws a random number: the deck orders are drawn by the
rules with the batch's numpy generator and passed in.
"""

from __future__ import annotations

import numpy as np

from ....core.game import BatchState
from ..tables import NONE, PLAYING
from .tables import HAND_SIZE


def deal_games(state: BatchState, rows: np.ndarray, order: np.ndarray, stock_size: int, side_pile_size: int) -> None:
    """Deal a game in ``rows`` from the deck orders ``order`` (k, 52), top
    first: seat 0's stock, seat 1's stock, side pile 0, side pile 1, then
    the two middle cards (the centre piles); each player then takes a hand
    of five from the top of their stock."""
    state.phase[rows] = PLAYING
    state.stall[rows] = 0
    state.side_rebuilt[rows] = False
    blocks = (
        (state.stock, state.stock_count, 0, stock_size),
        (state.side_piles, state.side_count, 2 * stock_size, side_pile_size),
    )
    for stack, count, start, size in blocks:
        stack[rows] = NONE
        for seat in (0, 1):
            block = order[:, start + seat * size : start + (seat + 1) * size]
            stack[rows, seat, :size] = block[:, ::-1]  # stored bottom first
            count[rows, seat] = size
    state.centre[rows] = NONE
    state.centre[rows, :, 0] = order[:, 50:52]
    state.centre_count[rows] = 1
    state.centre_top[rows] = order[:, 50:52]
    state.hand[rows] = False
    for seat in (0, 1):
        top = order[:, seat * stock_size : seat * stock_size + HAND_SIZE]
        state.hand[rows[:, None], seat, top] = True
        state.stock[rows, seat, stock_size - HAND_SIZE : stock_size] = NONE
        state.stock_count[rows, seat] = stock_size - HAND_SIZE
    state.hand_count[rows] = HAND_SIZE
