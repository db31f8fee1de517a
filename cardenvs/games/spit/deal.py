"""Spit: the compiled kernels of a deal (see :mod:`cardenvs.core.jit`):
gathering each player's cards at the end of a deal and laying out a new one.

Each is a loop over batch rows that reads and writes the state's arrays (a
pack of a :class:`~cardenvs.games.spit.tables.SpitArrays`, see :mod:`.tables`) in
place.  No kernel draws a random number: the deck orders are drawn by the
rules with the batch's numpy generator and passed in.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import kernel
from .tables import NONE, PLAYING, unpack_arrays, unpack_layout, unpack_stall


@kernel
def gather_cards(rows, taker, orders, arrays, cards, counts):
    """End of a deal in ``rows``: each player's cards for the next layout,
    written to ``cards`` (k, 2, 52) with ``counts`` (k, 2).

    A player gathers their stockpile and spit cards plus the spit piles
    they take (``taker`` (k, 2): the seat taking pile 0 and pile 1), in the
    order the cards have in the row's deck order ``orders`` (k, 52).
    """
    state = unpack_arrays(arrays)
    owner = np.empty(NONE + 1, np.int64)  # column NONE takes the writes of empty slots
    size = state.stockpiles.shape[2]
    for k in range(rows.shape[0]):
        r = rows[k]
        for seat in range(2):
            for i in range(size):
                for h in range(size):
                    owner[state.stockpiles[r, seat, i, h]] = seat
            for h in range(state.spit_cards.shape[2]):
                owner[state.spit_cards[r, seat, h]] = seat
        for p in range(2):
            for h in range(state.centre.shape[2]):
                owner[state.centre[r, p, h]] = taker[k, p]
        counts[k, 0] = 0
        counts[k, 1] = 0
        for t in range(orders.shape[1]):
            card = orders[k, t]
            seat = owner[card]
            cards[k, seat, counts[k, seat]] = card
            counts[k, seat] += 1


@kernel
def note_gathered(rows, taker, arrays, gathered):
    """Before :func:`gather_cards`: the face-up cards each player gathers --
    the spit piles it takes (``taker`` (k, 2)) and its stockpile tops -- go
    to that player's new layout in everyone's sight (``gathered[r, card]``
    the seat); its face-down cards keep what was known of them."""
    state = unpack_arrays(arrays)
    for k in range(rows.shape[0]):
        r = rows[k]
        for p in range(2):
            for h in range(state.centre_count[r, p]):
                gathered[r, state.centre[r, p, h]] = taker[k, p]
        for seat in range(2):
            for i in range(state.stockpile_top.shape[2]):
                if state.stockpile_top[r, seat, i] != NONE:
                    gathered[r, state.stockpile_top[r, seat, i]] = seat


@kernel
def lay_out(rows, cards, counts, layout_tables, arrays):
    """Each player of ``rows`` lays out ``cards`` (k, 2, 52) (``counts`` of
    them, in order): position t of the layout goes to the flat stockpile
    slot ``layout_slot[t]`` (piles of 1, 2, 3, ... cards, the last laid on
    a pile its face-up top), as far as the cards go; the rest, in order, are
    the spit cards (first = top), and the top one is turned onto the
    player's own spit pile at once.  The games are playing again, the
    stall rule's count from 0.
    ``layout_tables``: the pack of a :class:`~.tables.LayoutTables`."""
    tables, state, stall = unpack_layout(layout_tables), unpack_arrays(arrays), unpack_stall(arrays)
    size = state.stockpiles.shape[2]
    layout_size = tables.layout_slot.shape[0]
    for k in range(rows.shape[0]):
        r = rows[k]
        for seat in range(2):
            count = counts[k, seat]
            laid = min(count, layout_size)
            state.stockpiles[r, seat] = NONE
            for t in range(laid):
                slot = tables.layout_slot[t]
                state.stockpiles[r, seat, slot // size, slot % size] = np.int8(cards[k, seat, t])
            for i in range(size):
                height = tables.pile_sizes[laid, i]
                state.stockpile_count[r, seat, i] = np.int8(height)
                top = state.stockpiles[r, seat, i, height - 1] if height > 0 else np.int8(NONE)
                state.stockpile_top[r, seat, i] = top
            state.layout_count[r, seat] = laid
            state.layout_shape[r, seat] = tables.shape_of_laid[laid]
            # spit cards: stored bottom first, the top one turned at once
            left = count - laid
            state.spit_cards[r, seat] = NONE
            for h in range(left - 1):
                state.spit_cards[r, seat, h] = np.int8(cards[k, seat, layout_size + left - 1 - h])
            state.spit_count[r, seat] = max(left - 1, 0)
            state.centre[r, seat] = NONE
            if left > 0:
                state.centre[r, seat, 0] = np.int8(cards[k, seat, layout_size])
                state.centre_count[r, seat] = 1
                state.centre_top[r, seat] = cards[k, seat, layout_size]
            else:
                state.centre_count[r, seat] = 0
                state.centre_top[r, seat] = NONE
        state.phase[r] = PLAYING
        stall[r] = 0
