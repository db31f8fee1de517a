"""High Card: the observation (what one seat legitimately knows), as data:
:data:`LAYOUT` names, places and bounds every entry (the table in
``docs/high_card.md`` is generated from it, and the observation space's
bounds come from it); :func:`encode` writes observations.

Seats are *relative* to the viewer: relative seat 0 is the viewer, 1 the
other player.  Never encoded: the other player's hand and the stock.
"""

from __future__ import annotations

import numpy as np

from cardenvs.core.game import BatchState
from cardenvs.core.jit import kernel
from cardenvs.core.layout import Field, Layout

from .tables import DONE, MAX_HANDS, NUM_CARDS, NUM_PLAYERS, ArrayValues, unpack_arrays

LAYOUT = Layout(
    [
        Field("hand", NUM_CARDS, "own hand: 1 per card held, JC QC KC AC JD .. AS"),
        Field("discards", NUM_CARDS, "cards swapped away this hand, face up (by either seat)"),
        Field("led", NUM_CARDS, "the card led to this hand's trick, one-hot (all zero: none yet)"),
        Field("scores", NUM_PLAYERS, "tricks won this game per relative seat", high=MAX_HANDS),
        Field("dealer", NUM_PLAYERS, "dealer, relative seat one-hot (the other seat swaps first and leads)"),
        Field("phase", 2, "phase one-hot: swapping, playing (all zero: over)"),
        Field("hands_left", 1, "hands left in the game, the current one included (0: over)", high=MAX_HANDS),
    ]
)
OBS_SIZE = LAYOUT.size  # 55
OBS_DTYPE = np.int8  # every entry is at most MAX_HANDS (100)
OBS_LOW, OBS_HIGH = (bound.astype(np.float32) for bound in LAYOUT.bounds())
HAND, DISCARDS, LED, SCORES, DEALER, PHASE, HANDS_LEFT = (LAYOUT[f.name].offset for f in LAYOUT)


def encode(
    state: BatchState, hands: int, seats: np.ndarray, rows: np.ndarray | None = None, out: np.ndarray | None = None
) -> np.ndarray:
    """Observation ``(len(seats), OBS_SIZE)`` of the games in ``rows``
    (default: every row), row i seen by seat ``seats[i]``; written into
    ``out`` if given (int8, C-contiguous)."""
    seats = np.asarray(seats, np.int64)
    rows = np.arange(len(seats)) if rows is None else np.asarray(rows, np.int64)
    if out is None:
        out = np.empty((len(seats), OBS_SIZE), OBS_DTYPE)
    encode_rows(rows, seats, hands, state.bundle(ArrayValues), out)
    return out


@kernel
def encode_rows(rows, seats, hands, arrays, out):
    """Fill ``out[i]`` with game ``rows[i]`` seen by seat ``seats[i]``."""
    state = unpack_arrays(arrays)
    for i in range(rows.shape[0]):
        row, seat, obs = rows[i], seats[i], out[i]
        obs[:] = 0
        for card in range(NUM_CARDS):
            obs[HAND + card] = state.hands[row, seat, card]
            obs[DISCARDS + card] = state.discards[row, card]
        if state.table[row, 0] >= 0:
            obs[LED + state.table[row, 0]] = 1
        for j in range(NUM_PLAYERS):  # relative seat j is absolute seat (seat + j) % 2
            obs[SCORES + j] = state.scores[row, (seat + j) % NUM_PLAYERS]
        obs[DEALER + (state.dealer[row] - seat) % NUM_PLAYERS] = 1
        if state.phase[row] != DONE:
            obs[PHASE + state.phase[row]] = 1
            obs[HANDS_LEFT] = hands - state.hand_number[row]
