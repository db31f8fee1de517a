"""Spit and Speed: the observation encoding (what one player can see).

A *card code* is 17 numbers: the rank one-hot (``2 3 4 5 6 7 8 9 T J Q K A``)
then the suit one-hot (``C D H S``); no card (an empty pile) is all zeros.
"Own" is the observing player, "opponent" the other one; the centre piles
keep their absolute numbers (pile P of the actions, pile 0 started by
``player_0``), so the observation carries the observer's seat.

Spit (``variant="spit"``), 234 numbers: 13 *slots* of 18 (written by the
compiled :func:`_write_spit`):

=========  =====  ==========================================================
index      size   meaning
=========  =====  ==========================================================
0          5x18   own stockpiles 0..4, 18 each: the code of the face-up top
                  card (17), then the number of face-down cards below it
90         5x18   the opponent's stockpiles 0..4, the same
180        2x18   spit piles 0, 1: the code of the top card (17), then the
                  number of cards in the pile
216        18     +0 own spit cards left, +1 the opponent's, +2 phase is
                  playing, +3 phase is slapping (both 0: game over),
                  +4 +5 own seat one-hot, +6..+17 zero (slot padding)
=========  =====  ==========================================================

With ``stockpiles=4`` stockpile 4 is always empty (zeros).

Speed (``variant="speed"``), 98 numbers:

=========  =====  ==========================================================
index      size   meaning
=========  =====  ==========================================================
0          52     own hand (1 = held), cards ``2C 3C .. AC 2D .. AS``
52         2x17   centre piles 0, 1: code of the top card
86         8      counts: own hand, opponent's hand, own stock, opponent's
                  stock, side pile 0, side pile 1, centre pile 0, centre
                  pile 1
94         2      own seat one-hot
96         2      game score (points): own, opponent's
=========  =====  ==========================================================

Every number is a small integer: Spit observations are ``int8``; Speed
observations are ``int8`` too unless the scores can pass 127 (a
``target_score`` above 75), then ``int16`` (``int32`` past 32715; see
:func:`speed_obs_dtype`).

Never encoded: a face-down stockpile card, a spit card, the order of the
piles below their tops, the opponent's Speed hand, a stock or side-pile card.
"""

from __future__ import annotations

import numpy as np

from ..core.jit import kernel
from .kernels import PLAYING, SLAPPING

NO_CARD = 52
CODE = 17

# CARD_CODE[card id] -> the 17 numbers of a card; row 52 (no card) is zeros.
CARD_CODE = np.zeros((NO_CARD + 1, CODE), np.int8)
CARD_CODE[np.arange(52), np.arange(52) % 13] = 1
CARD_CODE[np.arange(52), 13 + np.arange(52) // 13] = 1

# Spit: 13 slots of 18 numbers
SLOT = 18
SPIT_SLOTS = 13
SPIT_OBS_SIZE = SPIT_SLOTS * SLOT
SPIT_OBS_DTYPE = np.int8  # counts are at most 52
OWN_PILES, OPP_PILES, SPIT_PILES, MISC = 0, 5 * SLOT, 10 * SLOT, 12 * SLOT

SPIT_OBS_HIGH = np.ones(SPIT_OBS_SIZE, np.float32)
SPIT_OBS_HIGH[CODE:SPIT_PILES:SLOT] = 4
SPIT_OBS_HIGH[SPIT_PILES + CODE : MISC : SLOT] = 52
SPIT_OBS_HIGH[MISC : MISC + 2] = 52

# Speed
HAND, CENTRE_TOPS, COUNTS, SPEED_SEAT, SCORES = 0, 52, 86, 94, 96
SPEED_OBS_SIZE = 98


def speed_obs_dtype(max_score: int) -> type:
    """The smallest integer dtype that holds every Speed number (scores up
    to ``max_score``; every other number is at most 52)."""
    for dtype in (np.int8, np.int16, np.int32):
        if max_score <= np.iinfo(dtype).max:
            return dtype
    return np.int64


def speed_obs_high(max_score: int) -> np.ndarray:
    high = np.ones(SPEED_OBS_SIZE, np.float32)
    high[COUNTS : COUNTS + 8] = 52
    high[SCORES : SCORES + 2] = max_score
    return high


def encode_spit(rules, state, rows: np.ndarray | None) -> np.ndarray:
    """Spit observations ``(k, 2, 234)`` int8 of the games in ``rows`` (all if None)."""
    rows = np.arange(state.batch) if rows is None else np.asarray(rows, np.int64)
    out = np.empty((len(rows), 2, SPIT_OBS_SIZE), SPIT_OBS_DTYPE)
    _write_spit(rows, state.top, state.pile_n, state.ctop, state.centre_n, state.spit_n, state.phase, out)
    return out


@kernel
def _write_slot(obs, at, card, count):
    """One slot at ``obs[at:at + 18]``: the code of ``card`` (no card:
    zeros), then ``count``.  The offsets are unsigned (see
    :mod:`.kernels`: no negative-index check, the copy is vectorized)."""
    code = CARD_CODE[card]
    start = np.uint64(at)
    for j in range(np.uint64(CODE)):
        obs[start + j] = code[j]
    obs[start + np.uint64(CODE)] = np.int8(count)


@kernel
def _write_spit(rows, top, pile_n, ctop, centre_n, spit_n, phase, out):
    """Write every number of both players' Spit observations of the games
    ``rows`` into ``out`` (k, 2, 234)."""
    size = top.shape[2]  # stockpiles; with 4, the fifth slots show no card
    for k in range(rows.shape[0]):
        r = rows[k]
        for viewer in range(2):
            obs = out[k, viewer]
            for side in range(2):  # own stockpiles, then the opponent's
                seat = viewer ^ side
                for i in range(5):
                    at = (OWN_PILES if side == 0 else OPP_PILES) + i * SLOT
                    if i < size:  # the face-up top and the face-down cards below it
                        _write_slot(obs, at, top[r, seat, i], max(pile_n[r, seat, i] - 1, 0))
                    else:
                        _write_slot(obs, at, NO_CARD, 0)
            for p in range(2):
                _write_slot(obs, SPIT_PILES + p * SLOT, ctop[r, p], centre_n[r, p])
            obs[MISC:] = 0
            obs[MISC] = np.int8(spit_n[r, viewer])
            obs[MISC + 1] = np.int8(spit_n[r, 1 - viewer])
            obs[MISC + 2] = phase[r] == PLAYING
            obs[MISC + 3] = phase[r] == SLAPPING
            obs[MISC + 4 + viewer] = 1


def encode_speed(rules, state, rows: np.ndarray | None) -> np.ndarray:
    """Speed observations ``(k, 2, 98)`` (dtype ``rules.obs_dtype``) of the games in ``rows`` (all if None)."""
    pick = (lambda a: a) if rows is None else (lambda a: a[rows])
    hand, ctop = pick(state.hand), pick(state.ctop)
    k = hand.shape[0]
    out = np.empty((k, 2, SPEED_OBS_SIZE), rules.obs_dtype)
    out[:, :, HAND : HAND + 52] = hand
    out[:, :, CENTRE_TOPS : CENTRE_TOPS + 2 * CODE] = np.take(CARD_CODE, ctop, axis=0).reshape(k, 1, 2 * CODE)
    hand_n, stock_n = pick(state.hand_n), pick(state.stock_n)
    out[:, :, COUNTS] = hand_n
    out[:, :, COUNTS + 1] = hand_n[:, ::-1]
    out[:, :, COUNTS + 2] = stock_n
    out[:, :, COUNTS + 3] = stock_n[:, ::-1]
    out[:, :, COUNTS + 4 : COUNTS + 6] = pick(state.side_n)[:, None, :]
    out[:, :, COUNTS + 6 : COUNTS + 8] = pick(state.centre_n)[:, None, :]
    out[:, :, SPEED_SEAT : SPEED_SEAT + 2] = np.eye(2, dtype=out.dtype)
    scores = pick(state.scores)
    out[:, :, SCORES] = scores
    out[:, :, SCORES + 1] = scores[:, ::-1]
    return out
