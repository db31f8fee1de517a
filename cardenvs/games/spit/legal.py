"""Spit: the compiled legal-action masks (see :mod:`cardenvs.core.jit`).

While playing: wait, the plays that fit (``fits[pile top, card]``)
and the moves from a filled stockpile into an empty one; while slapping:
both slaps; nothing once the game is over.  The same pass finds the games
that are *stuck* (a stalemate the rules resolve by spitting).

The offsets of the byte copies that fill the masks are unsigned
(``np.uint64``): numba checks every signed index for a negative value (to
count from the end), and that check keeps LLVM from vectorizing the copy;
with unsigned offsets the mask and observation kernels take clearly less
time.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import kernel, scalar
from .tables import PLAYING, SLAPPING, STALL_TICKS_AT, unpack_arrays, unpack_masks, unpack_stall, unpack_tick


@kernel
def masks(rows, mask_tables, arrays, stuck):
    """The legal actions ``legal[r, seat]`` of the games ``rows``, in the
    order of the action ids.

    A seat's plays are its *play bits* (bit 2I+P: stockpile I's top fits
    spit pile P), its moves its filled-stockpile bits (from the layout
    shape); ``play_mask[play bits]`` and ``move_mask[filled bits]`` are
    the corresponding parts of the mask.  Also writes ``stuck`` (k,):
    playing, and nobody can play nor expose a card by moving into an
    empty space, or (the stall rule) no card was played or spat for the
    rules' ``stall_ticks`` ticks.  ``mask_tables``, ``arrays``: the packs of the
    :class:`~.tables.MaskTables` and of the state (see :mod:`.tables`).  Returns how many games are stuck (the caller
    looks no further when none is)."""
    tables, state = unpack_masks(mask_tables), unpack_arrays(arrays)
    stockpile_top, centre_top, layout_shape, phase = (
        state.stockpile_top,
        state.centre_top,
        state.layout_shape,
        state.phase,
    )
    legal, stall, stall_ticks = unpack_tick(arrays)[0], unpack_stall(arrays), scalar(mask_tables, STALL_TICKS_AT)
    fits, play_mask, move_mask = tables.fits, tables.play_mask, tables.move_mask
    filled_of_shape, expose_of_shape = tables.filled_of_shape, tables.expose_of_shape
    size = stockpile_top.shape[2]
    plays_end = np.uint64(1 + 2 * size)  # actions 1.. are the plays, then the moves, then the slaps
    moves_end = plays_end + np.uint64(size * (size - 1))
    stuck_games = 0
    for k in range(rows.shape[0]):
        r = rows[k]
        pile0, pile1 = centre_top[r, 0], centre_top[r, 1]
        playing = phase[r] == PLAYING
        slapping = phase[r] == SLAPPING
        anyone_plays = False
        can_expose = False
        for seat in range(2):
            bits = 0  # the play bits (see above)
            for i in range(size):
                card = stockpile_top[r, seat, i]
                bits |= (np.int64(fits[pile0, card]) | (np.int64(fits[pile1, card]) << 1)) << (2 * i)
            shape = layout_shape[r, seat]
            anyone_plays |= bits != 0
            can_expose |= expose_of_shape[shape]
            mask = legal[r, seat]
            mask[0] = playing
            if playing:
                fitting, movable = play_mask[bits], move_mask[filled_of_shape[shape]]
                for a in range(np.uint64(fitting.shape[0])):
                    mask[np.uint64(1) + a] = fitting[a]
                for a in range(np.uint64(movable.shape[0])):
                    mask[plays_end + a] = movable[a]
            else:
                mask[1:moves_end] = False
            mask[moves_end] = slapping
            mask[moves_end + np.uint64(1)] = slapping
        stalled = stall_ticks > 0 and stall[r] >= stall_ticks
        stuck[k] = playing and ((not anyone_plays and not can_expose) or stalled)
        stuck_games += stuck[k]
    return stuck_games
