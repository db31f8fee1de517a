"""Spit and Speed: the observation encoding (what one player can see).

A *card code* is 17 numbers: the rank one-hot (``2 3 4 5 6 7 8 9 T J Q K A``)
then the suit one-hot (``C D H S``); no card (an empty pile) is all zeros.
"Own" is the observing player, "opponent" the other one; the centre piles
keep their absolute numbers (pile P of the actions, pile 0 started by
``player_0``), so the observation carries the observer's seat.

Spit (``variant="spit"``), 234 numbers: 13 *slots* of 18 (so that an
observation is one gather from a table of slot values):

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

NO_CARD = 52
CODE = 17

# CARD_CODE[card id] -> the 17 numbers of a card; row 52 (no card) is zeros.
CARD_CODE = np.zeros((NO_CARD + 1, CODE), np.int8)
CARD_CODE[np.arange(52), np.arange(52) % 13] = 1
CARD_CODE[np.arange(52), 13 + np.arange(52) // 13] = 1

# Spit: slot values.  A slot's row in SPIT_TABLE is
#   stockpile:  card * 5 + face-down count
#   spit pile:  PILE_ROWS + card * 53 + pile size
#   misc:       MISC_ROWS + ((own spit * 53 + other's spit) * 3 + phase) * 2 + seat
SLOT = 18
SPIT_SLOTS = 13
SPIT_OBS_SIZE = SPIT_SLOTS * SLOT
SPIT_OBS_DTYPE = np.int8  # counts are at most 52
OWN_PILES, OPP_PILES, SPIT_PILES, MISC = 0, 5 * SLOT, 10 * SLOT, 12 * SLOT
PILE_ROWS = 53 * 5
MISC_ROWS = PILE_ROWS + 53 * 53


def _spit_table() -> np.ndarray:
    card = np.arange(53)
    stock = np.zeros((53, 5, SLOT), SPIT_OBS_DTYPE)
    stock[:, :, :CODE] = CARD_CODE[:, None, :]
    stock[:, :, CODE] = np.arange(5)
    pile = np.zeros((53, 53, SLOT), SPIT_OBS_DTYPE)
    pile[:, :, :CODE] = CARD_CODE[card][:, None, :]
    pile[:, :, CODE] = np.arange(53)
    misc = np.zeros((53, 53, 3, 2, SLOT), SPIT_OBS_DTYPE)
    misc[..., 0] = np.arange(53)[:, None, None, None]
    misc[..., 1] = np.arange(53)[None, :, None, None]
    misc[:, :, 0, :, 2] = 1
    misc[:, :, 1, :, 3] = 1
    misc[..., 0, 4] = 1
    misc[..., 1, 5] = 1
    return np.concatenate([stock.reshape(-1, SLOT), pile.reshape(-1, SLOT), misc.reshape(-1, SLOT)])


SPIT_TABLE = _spit_table()
SPIT_OBS_HIGH = np.ones(SPIT_OBS_SIZE, np.float32)
SPIT_OBS_HIGH[CODE:SPIT_PILES:SLOT] = 4
SPIT_OBS_HIGH[SPIT_PILES + CODE:MISC:SLOT] = 52
SPIT_OBS_HIGH[MISC:MISC + 2] = 52

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
    high[COUNTS:COUNTS + 8] = 52
    high[SCORES:SCORES + 2] = max_score
    return high


def encode_spit(rules, state, rows: np.ndarray | None) -> np.ndarray:
    """Spit observations ``(k, 2, 234)`` int8 of the games in ``rows`` (all if None).

    Dense over the batch: each view's 13 slot rows are computed from the
    state, then the whole observation is one ``np.take`` from SPIT_TABLE.
    """
    S = rules.stockpiles
    pick = (lambda a: a) if rows is None else (lambda a: a[rows])
    top, pile_n, ctop = pick(state.top), pick(state.pile_n), pick(state.ctop)
    k = top.shape[0]
    stock = top.astype(np.int64) * 5 + np.maximum(pile_n - 1, 0)  # (k, 2, S); top is int8
    idx = np.empty((k, 2, SPIT_SLOTS), np.int64)
    if S == 5:
        flat = stock.reshape(k, 10)
        idx[:, 0, 0:10] = flat
        idx[:, 1, 0:5], idx[:, 1, 5:10] = flat[:, 5:], flat[:, :5]
    else:
        idx[:, :, 0:10] = NO_CARD * 5
        idx[:, 0, 0:S], idx[:, 0, 5:5 + S] = stock[:, 0], stock[:, 1]
        idx[:, 1, 0:S], idx[:, 1, 5:5 + S] = stock[:, 1], stock[:, 0]
    idx[:, :, 10:12] = (PILE_ROWS + ctop * 53 + pick(state.centre_n))[:, None, :]
    spit_n = pick(state.spit_n)
    misc = MISC_ROWS + (spit_n * 53 + spit_n[:, ::-1]) * 6 + pick(state.phase)[:, None] * 2
    idx[:, :, 12] = misc + np.arange(2)
    return np.take(SPIT_TABLE, idx, axis=0).reshape(k, 2, SPIT_OBS_SIZE)


def encode_speed(rules, state, rows: np.ndarray | None) -> np.ndarray:
    """Speed observations ``(k, 2, 98)`` (dtype ``rules.obs_dtype``) of the games in ``rows`` (all if None)."""
    pick = (lambda a: a) if rows is None else (lambda a: a[rows])
    hand, ctop = pick(state.hand), pick(state.ctop)
    k = hand.shape[0]
    out = np.empty((k, 2, SPEED_OBS_SIZE), rules.obs_dtype)
    out[:, :, HAND:HAND + 52] = hand
    out[:, :, CENTRE_TOPS:CENTRE_TOPS + 2 * CODE] = np.take(CARD_CODE, ctop, axis=0).reshape(k, 1, 2 * CODE)
    hand_n, stock_n = pick(state.hand_n), pick(state.stock_n)
    out[:, :, COUNTS] = hand_n
    out[:, :, COUNTS + 1] = hand_n[:, ::-1]
    out[:, :, COUNTS + 2] = stock_n
    out[:, :, COUNTS + 3] = stock_n[:, ::-1]
    out[:, :, COUNTS + 4:COUNTS + 6] = pick(state.side_n)[:, None, :]
    out[:, :, COUNTS + 6:COUNTS + 8] = pick(state.centre_n)[:, None, :]
    out[:, :, SPEED_SEAT:SPEED_SEAT + 2] = np.eye(2, dtype=out.dtype)
    scores = pick(state.scores)
    out[:, :, SCORES] = scores
    out[:, :, SCORES + 1] = scores[:, ::-1]
    return out
