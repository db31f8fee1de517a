"""Pepper: the observation encoding (what one seat legitimately knows).

Seats are *relative* to the viewer: relative seat 0 is the viewer, 1 the
next player clockwise, and so on (at 4 players relative seat 2 is the
partner).  Blocks for relative seats that do not exist at 2-3 players are
zero.  Card blocks use the card types ``9C TC JC QC KC AC 9D .. AS``.

=========  =====  ==========================================================
index      size   meaning
=========  =====  ==========================================================
0          24     own hand (1 = held)
24         4x60   one block of 60 per relative seat k, at 24 + 60k:
                  +0   24  its card on the table in the current trick
                  +24  24  cards it played to earlier tricks of this hand
                  +48  10  its auction state: +48 passed, +49..+57 its last
                           bid (1..7, little, big); all zero = not spoken yet
                  +58  1   tricks it won this hand
                  +59  1   its side's game score (raw points)
264        10     current high bid one-hot (0 = none, 1..9 as above)
274        4      high bidder, relative seat one-hot
278        6      trump: not chosen yet, C, D, H, S, no-trump
284        3      phase: bidding, choosing trump, playing
287        4      leader of the current trick, relative seat one-hot
291        4      dealer, relative seat one-hot
295        3      number of players one-hot: 2, 3, 4
=========  =====  ==========================================================

Never encoded: another player's hand, the dead hand (2 players).
"""

from __future__ import annotations

import numpy as np

from ..core.jit import kernel

# ``state.public`` (B, P, SEAT_PLANES): what every player can see of each
# seat, kept up to date by the rules; it is the observation's per-seat block,
# so observing is one gather.
TABLE = 0  # 24: the card this seat has on the table in the current trick
PLAYED = 24  # 24: cards this seat played to earlier tricks of this hand
BID = 48  # 10: one-hot of its auction state: 0 passed, 1..9 its last bid
TRICKS = 58  # tricks it won this hand
SCORE = 59  # its side's game score
SEAT_PLANES = 60

HAND, SEATS = 0, 24
HIGH_BID, BIDDER, TRUMP, PHASE, LEADER, DEALER, NUM_PLAYERS = 264, 274, 278, 284, 287, 291, 295
OBS_SIZE = 298
PHASE_SIZE = 3  # the phase one-hot: bidding, choosing trump, playing
# Every entry is 0/1 or a small count, except the scores: raw points, unbounded.
OBS_DTYPE = np.int16  # the rules' planes are int16 (scores); no float pass when observing
OBS_LOW = np.zeros(OBS_SIZE, np.float32)
OBS_HIGH = np.ones(OBS_SIZE, np.float32)
OBS_HIGH[SEATS + TRICKS : SEATS + 4 * SEAT_PLANES : SEAT_PLANES] = 8
OBS_LOW[SEATS + SCORE : SEATS + 4 * SEAT_PLANES : SEAT_PLANES] = -np.inf
OBS_HIGH[SEATS + SCORE : SEATS + 4 * SEAT_PLANES : SEAT_PLANES] = np.inf


def encode(rules, state, seats: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """Observation ``(len(seats), OBS_SIZE)`` int16 of the games in ``rows``
    (default: every row), row i seen by seat ``seats[i]``.

    One kernel pass (:func:`encode_rows`) writes each result row straight
    from the state: the viewer's hand, the rules' public planes in
    relative-seat order and the single one-hots.
    """
    seats = np.asarray(seats, np.int64)
    rows = np.arange(len(seats)) if rows is None else np.asarray(rows, np.int64)
    out = np.empty((len(seats), OBS_SIZE), OBS_DTYPE)
    encode_rows(
        rows,
        seats,
        rules.num_players,
        state.hands,
        state.public,
        state.high_bid,
        state.bidder,
        state.trump,
        state.phase,
        state.leader,
        state.dealer,
        out,
    )
    return out


@kernel
def encode_rows(rows, seats, n, hands, public, high_bid, bidder, trump, phase, leader, dealer, out):
    """Fill every entry of ``out[i]``: game ``rows[i]`` seen by seat ``seats[i]``
    (a seat -1 counts from the end, as numpy indexing does: seat n - 1).

    Relative seat j is absolute seat ``(viewer + j) % n``, so the per-seat
    blocks are the row's public planes rotated: the viewer's seat and those
    after it, then the seats before it (two contiguous copies; the blocks of
    relative seats that do not exist are zero).  No high bidder (-1) and the
    finished game's phase have no one-hot; no high bid is the one-hot 0 and
    no trump the one-hot "not chosen".

    The copies run on flat views with unsigned offsets: numba checks every
    signed index for a negative value (to count from the end), and that
    check keeps LLVM from vectorizing them.
    """
    num_seats = np.uint64(n)
    seat_size = np.uint64(SEAT_PLANES)
    width = np.uint64(OBS_SIZE)
    flat_out = out.reshape(-1)
    flat_public = public.reshape(-1)
    for i in range(rows.shape[0]):
        row = rows[i]
        seat = seats[i]
        if seat < 0:
            seat += n
        o = out[i]
        hand = hands[row, seat]
        for t in range(np.uint64(24)):
            o[np.uint64(HAND) + t] = hand[t]
        start = np.uint64(i) * width + np.uint64(SEATS)
        planes = np.uint64(row) * num_seats * seat_size  # the row's public planes, seat 0 first
        viewer = np.uint64(seat) * seat_size
        after = num_seats * seat_size - viewer  # the viewer's seat and those after it ...
        for c in range(after):
            flat_out[start + c] = flat_public[planes + viewer + c]
        for c in range(viewer):  # ... then the seats before it
            flat_out[start + after + c] = flat_public[planes + c]
        for c in range(np.uint64(SEATS) + num_seats * seat_size, width):
            o[c] = 0
        o[HIGH_BID + high_bid[row]] = 1
        if bidder[row] >= 0:
            o[BIDDER + relative(bidder[row], seat, n)] = 1
        o[TRUMP + trump[row] + 1] = 1
        if phase[row] < PHASE_SIZE:  # bidding, choosing trump, playing (not the finished game)
            o[PHASE + phase[row]] = 1
        o[LEADER + relative(leader[row], seat, n)] = 1
        o[DEALER + relative(dealer[row], seat, n)] = 1
        o[NUM_PLAYERS + n - 2] = 1


@kernel
def relative(seat, viewer, n):
    """``seat`` (0..n-1) as seen from ``viewer``: 0 self, 1 next clockwise, ...
    (a comparison instead of ``%``: no integer division)."""
    r = seat - viewer
    return r + n if r < 0 else r
