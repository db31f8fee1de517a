"""Pepper: the observation encoding (what one seat legitimately knows).

Seats are *relative* to the viewer: relative seat 0 is the viewer, 1 the
next player clockwise, and so on (at 4 players relative seat 2 is the
partner).  Blocks for relative seats that do not exist at 2-3 players are
zero.  Card blocks use the card types ``9C TC JC QC KC AC 9D .. AS``.

=========  =====  ==========================================================
index      size   meaning
=========  =====  ==========================================================
0          24     own hand (1 = held)
24         4x24   current trick: card played by relative seat k at 24k + type
120        4x24   earlier tricks this hand: cards played by relative seat k
216        4x10   bids: relative seat k at 10k + j: j=0 passed, j=1..9 its
                  last bid (1..7, little, big)
256        10     current high bid one-hot (0 = none, 1..9 as above)
266        4      high bidder, relative seat one-hot
270        6      trump: not chosen yet, C, D, H, S, no-trump
276        3      phase: bidding, choosing trump, playing
279        4      leader of the current trick, relative seat one-hot
283        4      dealer, relative seat one-hot
287        4      tricks won this hand per relative seat (counts)
291        4      game score per relative seat (its side's total, raw points)
295        3      number of players one-hot: 2, 3, 4
=========  =====  ==========================================================

Never encoded: another player's hand, the dead hand (2 players).
"""
from __future__ import annotations

import numpy as np

HAND, TRICK, PLAYED, BIDS, HIGH_BID, BIDDER = 0, 24, 120, 216, 256, 266
TRUMP, PHASE, LEADER, DEALER, TRICKS_WON, SCORES, NUM_PLAYERS = 270, 276, 279, 283, 287, 291, 295
OBS_SIZE = 298
# Every entry is 0/1 or a small count, except the scores: raw points, unbounded.
OBS_LOW = np.zeros(OBS_SIZE, np.float32)
OBS_HIGH = np.ones(OBS_SIZE, np.float32)
OBS_HIGH[TRICKS_WON:TRICKS_WON + 4] = 8
OBS_LOW[SCORES:SCORES + 4], OBS_HIGH[SCORES:SCORES + 4] = -np.inf, np.inf


def encode(rules, state, seats: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """Observation ``(len(seats), OBS_SIZE)`` float32 of the games in ``rows``
    (default: every row), row i seen by seat ``seats[i]``."""
    n = rules.num_players
    pick = (lambda a: a) if rows is None else (lambda a: a[rows])
    hands, trick, played_by, trick_of, trick_no = (pick(state.hands), pick(state.trick), pick(state.played_by),
                                                   pick(state.trick_of), pick(state.trick_no))
    passed, seat_bid, high_bid, bidder = pick(state.passed), pick(state.seat_bid), pick(state.high_bid), \
        pick(state.bidder)
    B = len(seats)
    b = np.arange(B)
    out = np.zeros((B, OBS_SIZE), np.float32)
    out[:, HAND:HAND + 24] = hands[b, seats]

    rel = (np.arange(n)[None, :] - seats[:, None]) % n  # (B, P) relative seat of each seat

    # cards on the table and cards already played, each by who played it
    bi, si = np.nonzero(trick >= 0)
    out[bi, TRICK + rel[bi, si] * 24 + trick[bi, si]] = 1
    bi, ci = np.nonzero((played_by >= 0) & (trick_of < trick_no[:, None]))
    out[bi, PLAYED + ((played_by[bi, ci] - seats[bi]) % n) * 24 + ci] = 1

    # the auction
    bid_slot = np.where(passed, 0, seat_bid)  # (B, P), 0 = passed
    bi, si = np.nonzero(passed | (seat_bid > 0))
    out[bi, BIDS + rel[bi, si] * 10 + bid_slot[bi, si]] = 1
    out[b, HIGH_BID + high_bid] = 1
    has_bidder = bidder >= 0
    out[b[has_bidder], BIDDER + rel[b, np.maximum(bidder, 0)][has_bidder]] = 1
    out[b, TRUMP + pick(state.trump) + 1] = 1

    phase = pick(state.phase)
    playing = phase < 3
    out[b[playing], PHASE + phase[playing]] = 1
    out[b, LEADER + rel[b, pick(state.leader)]] = 1
    out[b, DEALER + rel[b, pick(state.dealer)]] = 1

    # per relative seat: tricks won and the side's score
    order = (seats[:, None] + np.arange(n)[None, :]) % n  # absolute seat of relative seat k
    out[:, TRICKS_WON:TRICKS_WON + n] = np.take_along_axis(pick(state.tricks_won), order, axis=1)
    out[:, SCORES:SCORES + n] = pick(state.scores)[:, rules.side_of_seat][b[:, None], order]
    out[:, NUM_PLAYERS + n - 2] = 1
    return out
