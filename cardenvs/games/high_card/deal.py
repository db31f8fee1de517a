"""High Card: dealing a hand and opening it (compiled kernel).

Three cards each, one at a time clockwise from the dealer's left; the other
ten cards are the stock, face down.  The deck orders come from the rules:
a kernel never draws a random number (every draw is the rules', through
``state.random``, so seeded games are the same with and without numba).
"""

from __future__ import annotations

from cardenvs.core.cards import deal_round_robin
from cardenvs.core.jit import kernel

from .legal import refresh_legal
from .tables import HAND_SIZE, NUM_PLAYERS, SWAPPING, unpack_arrays


@kernel
def deal_hands(rows, orders, arrays):
    """Deal deck ``orders[i]`` (card ids, top first) in game ``rows[i]`` (its
    dealer already set) and open the hand: the seat left of the dealer
    swaps first."""
    state = unpack_arrays(arrays)
    dealt = NUM_PLAYERS * HAND_SIZE
    for i in range(rows.shape[0]):
        row = rows[i]
        deal_round_robin(state.hands, row, orders[i], dealt, state.dealer[row])
        for k in range(dealt, orders.shape[1]):
            state.stock[row, k - dealt] = orders[i, k]
        state.stock_top[row] = 0
        state.discards[row] = 0
        state.table[row] = -1
        state.turns[row] = 0
        state.phase[row] = SWAPPING
        state.current[row] = (state.dealer[row] + 1) % NUM_PLAYERS
        refresh_legal(row, state)
