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

import os

import numpy as np

from ..core.buffers import read_only, recycled_rows
from ..core.jit import kernel

NT = 53
M = 36
F = 132
HAND, TOP, PILE, STOCK, SEATS = 0, 53, 106, 159, 160
ROUND, PHASE, IN_CONTRACT, CONTRACT_IDX, PEND, OWED, DEALER, TURN, PEND_NEXT = (
    172,
    177,
    179,
    180,
    181,
    184,
    189,
    193,
    194,
)
MELDS = 208
OBS_SIZE = MELDS + M * F  # 4960
# meld slot offsets
USED, PENDING, OWNER, KIND, SET_RANK, RUN_SUIT, SPAN, POS, SET_CARDS = 0, 1, 2, 6, 8, 21, 25, 39, 123

OBS_LOW = np.zeros(OBS_SIZE, np.float32)
OBS_HIGH = np.ones(OBS_SIZE, np.float32)
OBS_HIGH[HAND : HAND + NT] = 4
OBS_HIGH[PILE : PILE + NT] = 4
OBS_HIGH[STOCK] = 108
OBS_HIGH[SEATS : SEATS + 12 : 3] = 108
OBS_HIGH[SEATS + 2 : SEATS + 12 : 3] = np.inf
OBS_HIGH[CONTRACT_IDX] = 3
OBS_HIGH[TURN] = np.inf
for _m in range(M):
    OBS_HIGH[MELDS + _m * F + SET_CARDS : MELDS + (_m + 1) * F] = 4

# card type -> 0 natural / 1..5 wild index (a 2 in its own run place is natural: see refresh_block)
_WILD_INDEX = np.zeros(NT + 1, np.int64)
_WILD_INDEX[[0, 13, 26, 39, 52]] = [1, 2, 3, 4, 5]


# Writing only what changed.  A 4096-game batch of observations is 40 MB, and
# most of it -- the meld slots -- is the same as the last time the recycled
# output array was written: a step changes one meld at most.  So every kept
# slot block carries a *stamp* (``state.meld_stamp``): 0 for an empty slot,
# else a number drawn from the process-wide counter ``STAMP_CLOCK`` each time
# :func:`refresh_block` rewrites the block.  Equal stamps mean equal blocks,
# whichever state or game they are in (a state's copy keeps its stamps, and
# either copy gets new ones when it changes a meld), so the output array's
# record (``core.buffers.recycled_rows``) only has to note, per row, the viewer
# and the stamp of each slot written there: a slot whose stamp is unchanged is
# skipped, or only has its owner moved when the viewer changed.  The counter
# starts at a random point in each process, so that a state pickled in one
# process carries no stamps another has issued, and the kernels that draw
# from it keep the GIL, so that two threads never draw the same number.
STAMP_CLOCK = np.array([1 + int.from_bytes(os.urandom(6), "little")], np.int64)
_SEAT, _USED, _STAMPS = 0, 1, 2  # a row's record: viewer, slots in use, each slot's stamp
RECORD = _STAMPS + M


def encode(rules, state, seats: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """Observation ``(len(seats), OBS_SIZE)`` (dtype ``rules.obs_dtype``) of the
    games in ``rows`` (default: every row), row i seen by seat ``seats[i]``.
    A large batch is a recycled array, handed out read-only (``core.buffers``)."""
    seats = np.asarray(seats, np.int64)
    rows = np.arange(len(seats)) if rows is None else np.asarray(rows, np.int64)
    out, record = recycled_rows((len(rows), OBS_SIZE), rules.obs_dtype, "push.observation", -1, (RECORD,))
    _encode_rows(
        out,
        record,
        rows,
        seats,
        rules.team,
        rules.rounds,
        state.hands,
        state.held,
        state.pile,
        state.pile_size,
        state.pile_counts,
        state.stock_size,
        state.contract_done,
        state.scores,
        state.round_i,
        state.phase,
        state.in_contract,
        state.contract_idx,
        state.pend,
        state.owed,
        state.dealer,
        state.turns,
        state.pend_next,
        state.n_melds,
        state.meld_owner,
        state.meld_obs,
        state.meld_stamp,
    )
    return read_only(out)


@kernel
def _encode_rows(
    out,
    record,
    rows,
    seats,
    team,
    rounds,
    hands,
    held,
    pile,
    pile_size,
    pile_counts,
    stock_size,
    contract_done,
    scores,
    round_i,
    phase,
    in_contract,
    contract_idx,
    pend,
    owed,
    dealer,
    turns,
    pend_next,
    n_melds,
    meld_owner,
    meld_obs,
    meld_stamp,
):
    """Write ``out[i]``: game ``rows[i]`` seen by seat ``seats[i]`` (a negative
    seat, in a finished game, reads as seat 0).  ``record[i]`` is what row i
    of ``out`` holds (viewer, slots in use, stamps; -1 throughout: unknown),
    updated here: the head is written in full, a meld slot only where its
    stamp changed (see above)."""
    for i in range(rows.shape[0]):
        b = rows[i]
        seat = max(seats[i], 0)
        o = out[i]
        rec = record[i]
        o[:MELDS] = 0
        for t in range(NT):
            o[HAND + t] = hands[b, seat, t]
            o[PILE + t] = pile_counts[b, t]
        if pile_size[b] > 0:
            o[TOP + pile[b, pile_size[b] - 1]] = 1
        o[STOCK] = stock_size[b]
        for k in range(4):  # relative seat k
            a = (seat + k) % 4
            o[SEATS + 3 * k] = held[b, a]
            o[SEATS + 3 * k + 1] = contract_done[b, a]
            o[SEATS + 3 * k + 2] = scores[b, team[a]]
        o[ROUND + rounds[round_i[b]] - 1] = 1
        if phase[b] < 2:
            o[PHASE + phase[b]] = 1
        o[IN_CONTRACT] = in_contract[b]
        o[CONTRACT_IDX] = contract_idx[b] if in_contract[b] else 0
        o[PEND + pend[b]] = 1
        if owed[b] >= 0:
            o[OWED + _WILD_INDEX[owed[b]] - 1] = 1
        o[DEALER + (dealer[b] - seat) % 4] = 1
        o[TURN] = turns[b]
        if pend[b] == 2:
            o[PEND_NEXT + min(pend_next[b], 13)] = 1
        # table melds: the kept slot blocks plus the owner (relative to the
        # viewer, so the one part written here).  Slots fill in order: past
        # n_melds + 1 every slot is empty (stamp 0), here and in the record.
        used = min(np.int64(n_melds[b]) + 1, M)
        old_seat = rec[_SEAT]
        top = M if old_seat < 0 else max(used, rec[_USED])
        for m in range(top):
            at = MELDS + m * F
            stamp = meld_stamp[b, m]
            if stamp != rec[_STAMPS + m]:
                if stamp == 0:
                    o[at : at + F] = 0
                else:
                    for f in range(F):
                        o[at + f] = meld_obs[b, m, f]
                    o[at + OWNER + (meld_owner[b, m] - seat) % 4] = 1
                rec[_STAMPS + m] = stamp
            elif stamp != 0 and seat != old_seat:  # same meld, another viewer
                o[at + OWNER + (meld_owner[b, m] - old_seat) % 4] = 0
                o[at + OWNER + (meld_owner[b, m] - seat) % 4] = 1
        rec[_SEAT] = seat
        rec[_USED] = used


# table meld slots: apart from its owner (relative to the viewer, written by
# ``encode``) a slot's block depends only on the meld, so the rules keep every
# slot's block in ``state.meld_obs`` (B, M, F) int8, with its stamp in
# ``state.meld_stamp``: the action kernel rewrites a meld's block with
# :func:`refresh_block` whenever that meld changes, and observing copies it.
# :func:`refresh_slots` re-encodes any slots from scratch (the tests check the
# kept blocks against it).


def refresh_slots(state, rows: np.ndarray, slots: np.ndarray) -> None:
    """Re-encode meld slot ``slots[i]`` of game ``rows[i]`` into ``state.meld_obs``
    (all but the owner; an unused slot is all zeros), with new stamps."""
    from .rules import POS_TYPE, WILD  # noqa: PLC0415 - rules imports this module

    _refresh_blocks(
        state.meld_obs,
        state.meld_stamp,
        STAMP_CLOCK,
        np.asarray(rows, np.int64),
        np.asarray(slots, np.int64),
        state.n_melds,
        state.meld_kind,
        state.meld_rank,
        state.meld_counts,
        state.meld_suit,
        state.meld_lo,
        state.meld_hi,
        state.meld_pos,
        POS_TYPE,
        WILD,
    )


@kernel(keep_gil=True)  # it draws stamps from STAMP_CLOCK: one thread at a time
def _refresh_blocks(
    meld_obs,
    meld_stamp,
    stamp_clock,
    rows,
    slots,
    n_melds,
    meld_kind,
    meld_rank,
    meld_counts,
    meld_suit,
    meld_lo,
    meld_hi,
    meld_pos,
    natural_type,
    wild_types,
):
    """:func:`refresh_block` of each (``rows[i]``, ``slots[i]``)."""
    for i in range(rows.shape[0]):
        refresh_block(
            meld_obs,
            meld_stamp,
            stamp_clock,
            rows[i],
            slots[i],
            n_melds,
            meld_kind,
            meld_rank,
            meld_counts,
            meld_suit,
            meld_lo,
            meld_hi,
            meld_pos,
            natural_type,
            wild_types,
        )


@kernel
def refresh_block(
    meld_obs,
    meld_stamp,
    stamp_clock,
    b,
    m,
    n_melds,
    meld_kind,
    meld_rank,
    meld_counts,
    meld_suit,
    meld_lo,
    meld_hi,
    meld_pos,
    natural_type,
    wild_types,
):
    """Re-encode the kept block of meld slot ``m`` of game ``b`` from the meld,
    and stamp it (0 if empty, else the next number of ``stamp_clock``);
    ``natural_type[suit, position]`` and ``wild_types`` are the rules'
    ``POS_TYPE`` and ``WILD``."""
    blk = meld_obs[b, m]
    blk[:] = 0
    kind = meld_kind[b, m]
    if kind == 0:
        meld_stamp[b, m] = 0
        return
    meld_stamp[b, m] = stamp_clock[0]
    stamp_clock[0] += 1
    blk[USED] = 1
    blk[PENDING] = m >= n_melds[b]
    blk[KIND + kind - 1] = 1
    if kind == 1:  # set
        R = np.int64(meld_rank[b, m])
        blk[SET_RANK + R] = 1
        for x in range(4):
            blk[SET_CARDS + x] = meld_counts[b, m, x * 13 + R]
        for w in range(5):
            blk[SET_CARDS + 4 + w] = meld_counts[b, m, wild_types[w]]
    else:  # run
        s = np.int64(meld_suit[b, m])
        blk[RUN_SUIT + s] = 1
        for p in range(np.int64(meld_lo[b, m]), np.int64(meld_hi[b, m]) + 1):
            blk[SPAN + p] = 1
        for p in range(14):
            card = np.int64(meld_pos[b, m, p])
            if card >= 0:  # natural (a 2 in its own place too), or which wild
                blk[POS + 6 * p + (0 if card == natural_type[s, p] else _WILD_INDEX[card])] = 1
