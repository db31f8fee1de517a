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
# Every entry is 0/1 or a small count, except the scores: raw points, unbounded.
OBS_DTYPE = np.int16  # the rules' planes are int16 (scores); no float pass when observing
OBS_LOW = np.zeros(OBS_SIZE, np.float32)
OBS_HIGH = np.ones(OBS_SIZE, np.float32)
OBS_HIGH[SEATS + TRICKS:SEATS + 4 * SEAT_PLANES:SEAT_PLANES] = 8
OBS_LOW[SEATS + SCORE:SEATS + 4 * SEAT_PLANES:SEAT_PLANES] = -np.inf
OBS_HIGH[SEATS + SCORE:SEATS + 4 * SEAT_PLANES:SEAT_PLANES] = np.inf


def encode(rules, state, seats: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """Observation ``(len(seats), OBS_SIZE)`` int16 of the games in ``rows``
    (default: every row), row i seen by seat ``seats[i]``.

    Dense over the batch, no per-game work: the per-seat blocks are the rules'
    public planes gathered in relative-seat order, and the few single
    one-hots are set by one scatter.
    """
    n = rules.num_players
    pick = (lambda a: a) if rows is None else (lambda a: a[rows])
    B = len(seats)
    b = np.arange(B)
    order = (seats[:, None] + np.arange(n)) % n  # absolute seat of relative seat k, (B, n)
    out = np.zeros((B, OBS_SIZE), OBS_DTYPE)
    out[:, HAND:HAND + 24] = pick(state.hands)[b, seats]
    out[:, SEATS:SEATS + n * SEAT_PLANES] = pick(state.public)[b[:, None], order].reshape(B, -1)

    rel = rules.relative_seat[seats]  # (B, n + 1): each absolute seat seen from the viewer; -1 -> -1
    values = np.stack([pick(state.high_bid), rel[b, pick(state.bidder)], pick(state.trump) + 1, pick(state.phase),
                       rel[b, pick(state.leader)], rel[b, pick(state.dealer)]], axis=1)
    # an absent value (-1, or the DONE phase) lands in a column that is zero
    # for this player count and is cleared again
    spare = NUM_PLAYERS + (1 if n == 2 else 0)
    cols = np.array([HIGH_BID, BIDDER, TRUMP, PHASE, LEADER, DEALER])
    valid = (values >= 0) & ((cols != PHASE) | (values < 3))
    out[b[:, None], np.where(valid, cols + values, spare)] = 1
    out[:, spare] = 0
    out[:, NUM_PLAYERS + n - 2] = 1
    return out
