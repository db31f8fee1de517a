"""Push: the observation encoding (what one seat legitimately knows).

The observation is one int16 array (``PushRules.obs_dtype``; int32 only if
``max_turns`` exceeds int16): every entry is a one-hot, a count, a size or a
raw score (at most 5 x 960 points), all integers.

Seats are *relative* to the viewer: 0 = the viewer, 1 = the next player
clockwise (the one a push goes to), 2 = the partner, 3 = the player on the
right.  Card blocks use the 53 card types ``2C 3C .. AC 2D .. AS JK``
(``suit * 13 + rank``, joker last).  Run positions are 0 = ace low,
1 = two, .., 12 = king, 13 = ace high.

==========  ======  ==========================================================
index       size    meaning
==========  ======  ==========================================================
0           53      own hand (count per card type)
53          53      top card of the discard pile (one-hot; empty pile: zeros)
106         53      the discard pile's cards (count per type; every card in
                    it was seen going in)
159         1       stock size (cards)
160         4x3     per relative seat k at 160 + 3k: hand size, contract laid
                    this round (0/1), its team's total score (raw points)
172         5       round number 1..5 (one-hot)
177         2       turn phase: draw, meld
179         1       a contract is being laid this turn
180         1       melds of that contract finished so far
181         3       pending meld being built: none, set, run
184         5       owed wild (swapped out, must be used): 2C 2D 2H 2S JK
189         4       dealer (relative seat, one-hot)
193         1       turns played this round
194         14      next position of the pending run (one-hot)
208         36x132  table meld slots in table order (the pending meld, if
                    any, is the slot after the finished ones); slot m at
                    208 + 132m:
                    +0   1   slot used
                    +1   1   meld still being built (pending)
                    +2   4   owner (relative seat)
                    +6   2   kind: set, run
                    +8   13  set rank (one-hot over 2..A; never 2)
                    +21  4   run suit
                    +25  14  run positions covered (declared span while
                             pending)
                    +39  14x6 run position p at +39 + 6p: natural, or the
                             wild standing there: 2C 2D 2H 2S JK (so a wild's
                             meaning is its position)
                    +123 9   set cards: naturals of the rank in C D H S,
                             wilds 2C 2D 2H 2S JK (counts; set wilds stand
                             for the rank)
==========  ======  ==========================================================

Never encoded: other hands, the stock order.
"""
from __future__ import annotations

import numpy as np

NT = 53
M = 36
F = 132
HAND, TOP, PILE, STOCK, SEATS = 0, 53, 106, 159, 160
ROUND, PHASE, IN_CONTRACT, CONTRACT_IDX, PEND, OWED, DEALER, TURN, PEND_NEXT = \
    172, 177, 179, 180, 181, 184, 189, 193, 194
MELDS = 208
OBS_SIZE = MELDS + M * F  # 4960
# meld slot offsets
USED, PENDING, OWNER, KIND, SET_RANK, RUN_SUIT, SPAN, POS, SET_CARDS = 0, 1, 2, 6, 8, 21, 25, 39, 123

OBS_LOW = np.zeros(OBS_SIZE, np.float32)
OBS_HIGH = np.ones(OBS_SIZE, np.float32)
OBS_HIGH[HAND:HAND + NT] = 4
OBS_HIGH[PILE:PILE + NT] = 4
OBS_HIGH[STOCK] = 108
OBS_HIGH[SEATS:SEATS + 12:3] = 108
OBS_HIGH[SEATS + 2:SEATS + 12:3] = np.inf
OBS_HIGH[CONTRACT_IDX] = 3
OBS_HIGH[TURN] = np.inf
for _m in range(M):
    OBS_HIGH[MELDS + _m * F + SET_CARDS:MELDS + (_m + 1) * F] = 4

# card type -> 0 natural / 1..5 wild index (a 2 in its own run place is natural: see refresh_slots)
_WILD_INDEX = np.zeros(NT + 1, np.int64)
_WILD_INDEX[[0, 13, 26, 39, 52]] = [1, 2, 3, 4, 5]
_RELATIVE = np.arange(4)


def encode(rules, state, seats: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """Observation ``(len(seats), OBS_SIZE)`` (dtype ``rules.obs_dtype``) of the
    games in ``rows`` (default: every row), row i seen by seat ``seats[i]``."""
    every = rows is None
    if every:
        rows = np.arange(len(seats))
    rows = np.asarray(rows, np.int64)
    B = len(rows)
    b = np.arange(B)
    seats = np.maximum(seats, 0)
    out = np.empty((B, OBS_SIZE), rules.obs_dtype)
    # table melds: the slot blocks kept up to date by the rules, plus the owner
    # (relative to the viewer, so it is the one part written here)
    melds = out[:, MELDS:].reshape(B, M, F)
    melds[...] = state.meld_obs if every else state.meld_obs[rows]
    bi, mi = np.nonzero(state.meld_kind if every else state.meld_kind[rows])  # used slots
    melds[bi, mi, OWNER + (state.meld_owner[rows[bi], mi] - seats[bi]) % 4] = 1
    order = (seats[:, None] + _RELATIVE) % 4  # absolute seat of each relative seat

    out[:, :MELDS] = 0
    out[:, HAND:HAND + NT] = state.hands[rows, seats]
    ps = state.pile_size[rows]
    top = state.pile[rows, np.maximum(ps - 1, 0)]
    out[b[ps > 0], TOP + top[ps > 0]] = 1
    out[:, PILE:PILE + NT] = state.pile_counts[rows]
    out[:, STOCK] = state.stock_size[rows]
    hands = state.hands if every else state.hands[rows]
    sizes = hands.sum(-1, dtype=np.int64)  # (B, 4)
    scores = state.scores if every else state.scores[rows]
    seat_block = out[:, SEATS:SEATS + 12].reshape(B, 4, 3)
    seat_block[:, :, 0] = np.take_along_axis(sizes, order, 1)
    seat_block[:, :, 1] = np.take_along_axis(state.contract_done[rows], order, 1)
    seat_block[:, :, 2] = scores[:, rules.team][b[:, None], order]
    rn = rules.rounds[state.round_i[rows]]
    out[b, ROUND + rn - 1] = 1
    phase = state.phase[rows]
    active = phase < 2
    out[b[active], PHASE + phase[active]] = 1
    in_contract = state.in_contract[rows]
    out[:, IN_CONTRACT] = in_contract
    out[:, CONTRACT_IDX] = np.where(in_contract, state.contract_idx[rows], 0)
    pend = state.pend[rows]
    out[b, PEND + pend] = 1
    owed = state.owed[rows]
    o = owed >= 0
    out[b[o], OWED + _WILD_INDEX[owed[o]] - 1] = 1
    out[b, DEALER + (state.dealer[rows] - seats) % 4] = 1
    out[:, TURN] = state.turns[rows]
    pr = pend == 2
    out[b[pr], PEND_NEXT + np.minimum(state.pend_next[rows][pr], 13)] = 1
    return out


# table meld slots: apart from its owner (relative to the viewer, written by
# ``encode``) a slot's block depends only on the meld, so the rules keep every
# slot's block in ``state.meld_obs`` (B, M, F) int8, rewritten by
# :func:`refresh_slots` whenever that meld changes; observing copies it.


def refresh_slots(state, rows: np.ndarray, slots: np.ndarray) -> None:
    """Re-encode meld slot ``slots[i]`` of game ``rows[i]`` into ``state.meld_obs``
    (all but the owner; an unused slot is all zeros)."""
    from .rules import POS_TYPE, WILD  # noqa: PLC0415 - rules imports this module

    K = len(rows)
    if not K:
        return
    k = np.arange(K)
    kk = state.meld_kind[rows, slots].astype(np.int64)
    blk = np.zeros((K, F), np.int8)
    used = kk > 0
    blk[:, USED] = used
    blk[:, PENDING] = used & (slots >= state.n_melds[rows])
    blk[k[used], KIND + kk[used] - 1] = 1
    ks = k[kk == 1]
    if ks.size:
        r, m = rows[ks], slots[ks]
        R = state.meld_rank[r, m].astype(np.int64)
        blk[ks, SET_RANK + R] = 1
        counts = state.meld_counts[r, m]  # (ks, 53)
        nat = np.take_along_axis(counts, np.arange(4)[None, :] * 13 + R[:, None], 1)
        blk[ks, SET_CARDS:SET_CARDS + 9] = np.concatenate([nat, counts[:, WILD]], 1)
    kr = k[kk == 2]
    if kr.size:
        r, m = rows[kr], slots[kr]
        s = state.meld_suit[r, m].astype(np.int64)
        blk[kr, RUN_SUIT + s] = 1
        posn = np.arange(14)
        lo = state.meld_lo[r, m].astype(np.int64)
        hi = state.meld_hi[r, m].astype(np.int64)
        blk[kr, SPAN:SPAN + 14] = (posn >= lo[:, None]) & (posn <= hi[:, None])
        mp = state.meld_pos[r, m].astype(np.int64)  # (kr, 14)
        code = np.where(mp == POS_TYPE[s[:, None], posn], 0, _WILD_INDEX[np.maximum(mp, 0)])
        fi, pi = np.nonzero(mp >= 0)
        blk[kr[fi], POS + 6 * pi + code[fi, pi]] = 1
    state.meld_obs[rows, slots] = blk
