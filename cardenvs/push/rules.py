"""Push: the batched rules core (every rule of ``shared/rules/push.md``).

State is a :class:`~cardenvs.core.game.BatchState` of arrays, one row per
game; :class:`PushRules` applies the rules to all rows at once.  The per-row
work (applying the actions, the legal masks with their feasibility checks,
the deal, scoring a round) is done by compiled kernels (:func:`apply_actions`,
:func:`legal_masks`, :func:`deal_rows`, :func:`score_rounds`: loops over the
rows, see :mod:`cardenvs.core.jit`); the shuffles are whole-batch numpy.  The
PettingZoo env (:mod:`cardenvs.push.env`) and the vector engine are views
over this class.

Card types (local ids, 53): ``suit * 13 + rank`` with suits ``C D H S`` and
ranks ``2 3 4 5 6 7 8 9 T J Q K A`` (0..12); the joker is 52.  Two copies of
each standard card, four jokers.  Hands are counts per type.

Action-space plan
=================
A turn is a sequence of actions: a draw choice, melding actions, a discard.
Melds are built card by card in a *pending meld* whose shape is declared
first; the mask only offers an action if, after it, the pending meld (and,
inside a contract, the rest of the contract) can still be completed from the
cards left in hand.  That is decided exactly by :func:`sets_feasible`,
:func:`mixed_feasible` and :func:`runs_feasible` (see "feasibility" below), so
no declared meld or started contract is ever a dead end.

Run positions: ``0`` = ace low, ``1`` = two, .. ``12`` = king, ``13`` = ace
high.  A run covers positions ``lo..hi`` (3 to 13 of them: ``0..13`` would
be a wrap-around).  A position's *natural* card is its rank in the run's
suit (position 1: the 2 of the suit, which there is natural, not wild).

=============  =====  ========================================================
ids            count  text / meaning
=============  =====  ========================================================
0              1      ``take``: take the top card of the discard pile
1              1      ``push``: stock top + discard top to the left-hand
                      player, then draw the next stock card
2..54          53     ``discard 7H`` (2 + card type): discard, end the turn
55..66         12     ``set 3`` .. ``set A``: declare a pending set of a rank
67..374        308    ``run H 5-8``: declare a pending run of a suit over
                      positions lo..hi (lo/hi written as ranks; a low ace
                      ``A-3``, a high ace ``Q-A``); 77 spans per suit, ordered
                      by suit, lo, hi
375..383       9      ``add C`` .. ``add S`` (a natural of the pending set's
                      rank in that suit), ``add 2C`` .. ``add 2S``, ``add JK``
                      (a wild)
384            1      ``end set``: finish the pending set (3+ cards)
385..390       6      ``fill nat`` (the natural card of the pending run's next
                      position), ``fill 2C`` .. ``fill JK`` (a wild there)
391 + 55m + j  36x55  actions on table meld ``m`` (0..35, table order):
                      j 0..8   ``layoff m C`` .. ``layoff m S`` (a natural of
                               a set's rank), ``layoff m 2C`` .. ``layoff m JK``
                      j 9..14  ``layoff m low nat``, ``layoff m low 2C`` ..
                               ``layoff m low JK`` (extend a run downwards)
                      j 15..20 ``layoff m high nat`` .. ``layoff m high JK``
                      j 21..34 ``swap m Alo``, ``swap m 2`` .. ``swap m K``,
                               ``swap m Ahi``: give the natural card of that
                               run position, take the wild standing there
                      j 35..54 ``swap m C 2D`` (natural suit x 5 + wild): give
                               a natural of a set's rank, take that wild
=============  =====  ========================================================

Why this shape:

* Cards are chosen by type (duplicates are interchangeable); the meld
  declared by its shape makes every wild placement reachable: a run's wilds
  stand for the positions they fill, chosen one position at a time in order
  ``lo..hi``.  A set's cards are added in any order; its first card must be a
  natural (no loss: every set holds one), so a set is never left without one.
* Dead-end freedom: a declare/add/fill is offered only if the completion
  check passes for the hand after it; a contract is started by declaring its
  first meld (in the order of the contract: sets before runs) and that is
  offered only if the whole contract can be completed.  Discarding is not
  offered while a meld or a contract is unfinished.  Melding the last card is
  going out (no discard needed), so emptying the hand is never a dead end.
* Bounded turns: no action returns cards to the hand except a swap (which
  gives one card for one) and a swap is not offered again until the wild it
  gave has left the hand; every declare is followed by 3+ cards leaving the
  hand.  So a turn has at most ``2 + 3 * cards held`` actions or so.
* Swap: a swapped-out wild is *owed*: until a card of its type goes to the
  table (laid off, or placed in a meld) no discard and no other swap is
  offered.  A swap is offered only if some table meld can take a wild (a set,
  or a run shorter than 13; the meld the wild came from counts), and a
  lay-off that would make the last such run full is not offered while a wild
  is owed.  Table melds only grow, so the owed wild can always be laid off.
* Meld slots: 36 = 108 / 3.  Every finished meld holds 3+ cards and a meld is
  declared only with 3+ cards in hand, so at most 35 melds exist when one is
  declared: the cap can never be reached.

Feasibility (exact): a meld needs each of its slots filled by its natural or
a wild (2s and jokers, "W"), and at least one natural (a 2 in its own run
position counts).  For a group of melds the cards that can cover slots as
naturals form a transversal matroid, so the group can be completed iff
``slots - max natural cover <= W`` and one natural per meld can be matched to
distinct cards (Hall's condition); using a 2 in its own place never changes
the count (it fills a slot a wild would fill).  Sets of one rank share
naturals, solved by greedy marginal costs (``max(0, 3c - n)`` is convex in
the number of sets c); a set + a run (round 2) share one card type; two runs
of one suit share per-rank counts.  Minimal shapes suffice for melds not yet
declared (a longer meld contains a minimal one with a natural).

Other decisions (see the README rules notes): two contract sets may have
the same rank; sets cannot be of 2s (no natural); a swapped-out wild may be
laid off on any meld, the one it came from included; a set's wild stands for
the set's rank, so any natural of that rank may be swapped for it;
``max_turns`` (default 200) ends a round like an exhausted stock when that
many turns have been played in it (taking the discard forever never ends).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.buffers import RECYCLE_BYTES, pooled, read_only, recycled_rows
from ..core.cards import deal_round_robin, standard_deck
from ..core.game import BatchState, TurnBasedRules, choice, positive_int
from ..core.jit import kernel
from . import observation
from .observation import refresh_block

DECK = standard_deck(copies=2, jokers=4)
NT = DECK.num_types  # 53
JOKER_T = 52
RANK_CH = "23456789TJQKA"
SUIT_CH = "CDHS"
WILD = np.array([0, 13, 26, 39, 52])  # 2C 2D 2H 2S JK
WILD_NAMES = ("2C", "2D", "2H", "2S", "JK")
IS_WILD = np.zeros(NT, bool)
IS_WILD[WILD] = True
# Penalty value per card type: 2 (wild) 20, 3-9 5, T-K 10, A 15, joker 20.
VALUE = np.array([[20, 5, 5, 5, 5, 5, 5, 5, 10, 10, 10, 10, 15][t % 13] for t in range(52)] + [20], np.int64)

NUM_MELDS = 36
NUM_POS = 14
POS_RANK = np.array([12] + list(range(12)) + [12])  # position -> rank index
POS_TYPE = np.arange(4)[:, None] * 13 + POS_RANK[None, :]  # (suit, position) -> natural type
POS_TOKEN = ["Alo"] + list("23456789TJQK") + ["Ahi"]
POS_CH = ["A"] + list("23456789TJQK") + ["A"]

# Spans of a run (same 77 for every suit): lo..hi, 3..13 positions.
SPANS = [(lo, hi) for lo in range(NUM_POS) for hi in range(lo + 2, NUM_POS) if hi - lo + 1 <= 13]
NSP = len(SPANS)  # 77
SPAN_INDEX = np.full((NUM_POS, NUM_POS), -1, np.int64)  # (lo, hi) -> span j
for _j, (_lo, _hi) in enumerate(SPANS):
    SPAN_INDEX[_lo, _hi] = _j
SPAN_LO = np.array([s[0] for s in SPANS])
SPAN_HI = np.array([s[1] for s in SPANS])
SPAN_D = np.zeros((NSP, 13), np.int64)  # rank demand of each span (0/1; a span holds one ace at most)
for _j, (_lo, _hi) in enumerate(SPANS):
    for _p in range(_lo, _hi + 1):
        SPAN_D[_j, POS_RANK[_p]] += 1
assert SPAN_D.max() == 1
# Ranks as bit masks (bit r = rank r): SPAN_RANKS[lo, hi] the ranks of the
# positions lo..hi (a window of L positions from lo is SPAN_RANKS[lo, lo + L - 1]);
# POPCOUNT[x] the number of ranks in a mask.
SPAN_RANKS = np.zeros((NUM_POS, NUM_POS), np.int64)
for _lo in range(NUM_POS):
    for _hi in range(_lo, NUM_POS):
        SPAN_RANKS[_lo, _hi] = SPAN_RANKS[_lo, _hi - 1] | (1 << POS_RANK[_hi]) if _hi > _lo else 1 << POS_RANK[_lo]
POPCOUNT = np.array([bin(_x).count("1") for _x in range(1 << 13)], np.int64)

# Actions.
TAKE, PUSH, DISCARD0 = 0, 1, 2
SET0 = DISCARD0 + NT  # 55
RUN0 = SET0 + 12  # 67
ADD0 = RUN0 + 4 * NSP  # 375
END = ADD0 + 9  # 384
FILL0 = END + 1  # 385
MELD0 = FILL0 + 6  # 391
LAY_SET, LAY_LOW, LAY_HIGH, SWAP_RUN, SWAP_SET = 0, 9, 15, 21, 35
BLOCK = 55
NUM_ACTIONS = MELD0 + NUM_MELDS * BLOCK  # 2371

# Action categories, for dispatch in ``step``.
(C_TAKE, C_PUSH, C_DISCARD, C_SET, C_RUN, C_ADD, C_END, C_FILL, C_LAY_SET, C_LAY_RUN, C_SWAP_RUN, C_SWAP_SET) = range(
    12
)

# Phases.
DRAW, MELD, DONE = 0, 1, 2
PHASE_NAMES = ("draw", "meld", "done")
NO_MELD, SET, RUN = 0, 1, 2
KIND_NAMES = {SET: "set", RUN: "run"}

# Contracts: kinds in the order they are laid, and the minimum run length.
CONTRACT = {1: (SET, SET), 2: (SET, RUN), 3: (RUN, RUN), 4: (SET, SET, SET), 5: (RUN, RUN)}
RUN_MIN = {1: 3, 2: 4, 3: 4, 4: 3, 5: 5}
CON_KIND = np.zeros((6, 3), np.int64)
CON_LEN = np.zeros(6, np.int64)
CON_RUNLEN = np.full(6, 3, np.int64)
for _r, _k in CONTRACT.items():
    CON_KIND[_r, : len(_k)] = _k
    CON_LEN[_r] = len(_k)
    CON_RUNLEN[_r] = RUN_MIN[_r]

BIG = 1000
# Marginal wild cost of the c-th set (c = 1..3) of a rank with n naturals.
MARG = np.full((9, 3), BIG, np.int64)
for _n in range(9):
    for _c in range(1, 4):
        if _c <= _n:
            MARG[_n, _c - 1] = max(0, 3 * _c - _n) - max(0, 3 * _c - 3 - _n)
# MARG_COUNT[n, v]: how many of a rank's three marginal costs MARG[n] are v
# wilds (v = 0..3; impossible sets are not counted).  The cheapest k sets of
# a hand only depend on these counts summed over the ranks.
MARG_COUNT = np.zeros((9, 4), np.int64)
for _n in range(9):
    for _c in range(3):
        if MARG[_n, _c] < BIG:
            MARG_COUNT[_n, MARG[_n, _c]] += 1
# The same four counts packed in one integer, 6 bits each (a hand's 12 ranks
# count at most 36 of any value), so summing them over the ranks is one add.
MARG_PACKED = MARG_COUNT @ (64 ** np.arange(4))


def _action_tables():
    texts, cat, arg1, arg2 = [], [], [], []

    def add(text, c, x=0, y=0):
        texts.append(text), cat.append(c), arg1.append(x), arg2.append(y)

    add("take", C_TAKE)
    add("push", C_PUSH)
    for t in range(NT):
        add(f"discard {DECK.texts[t]}", C_DISCARD, t)
    for r in range(1, 13):
        add(f"set {RANK_CH[r]}", C_SET, r)
    for s in range(4):
        for j, (lo, hi) in enumerate(SPANS):
            add(f"run {SUIT_CH[s]} {POS_CH[lo]}-{POS_CH[hi]}", C_RUN, s, j)
    for k in range(9):
        add(f"add {SUIT_CH[k] if k < 4 else WILD_NAMES[k - 4]}", C_ADD, k)
    add("end set", C_END)
    for k in range(6):
        add(f"fill {'nat' if k == 0 else WILD_NAMES[k - 1]}", C_FILL, k)
    for m in range(NUM_MELDS):
        for k in range(9):
            add(f"layoff {m} {SUIT_CH[k] if k < 4 else WILD_NAMES[k - 4]}", C_LAY_SET, m, k)
        for end, name in ((0, "low"), (1, "high")):
            for k in range(6):
                add(f"layoff {m} {name} {'nat' if k == 0 else WILD_NAMES[k - 1]}", C_LAY_RUN, m, end * 6 + k)
        for p in range(NUM_POS):
            add(f"swap {m} {POS_TOKEN[p]}", C_SWAP_RUN, m, p)
        for x in range(4):
            for w in range(5):
                add(f"swap {m} {SUIT_CH[x]} {WILD_NAMES[w]}", C_SWAP_SET, m, x * 5 + w)
    assert len(texts) == NUM_ACTIONS
    return tuple(texts), np.array(cat), np.array(arg1), np.array(arg2)


ACTION_TEXTS, ACT_CAT, ACT_A1, ACT_A2 = _action_tables()
ACTION_IDS = {t: i for i, t in enumerate(ACTION_TEXTS)}


# ---------------------------------------------------------------- feasibility
# Compiled kernels (:func:`cardenvs.core.jit.kernel`): loops over one hand at a
# time.  A hand is given as ``hs`` (4, 13) int64, its naturals per (suit, rank)
# (the 2s stay at rank 0 there, but they are wilds: they count in ``W`` and
# never as a run's natural cover), and ``W``, its number of wilds.
# Windows: the minimal runs of ``L`` positions, ``lo = 0 .. 14 - L``.
MAX_WINDOWS = NUM_POS - 3 + 1  # 12 windows of 3 positions (11 of 4, 10 of 5)


@kernel
def cheapest_sets(packed, k):
    """Fewest wilds that complete ``k`` (1..3) more sets of 3, given how many
    marginal costs (see ``MARG``) of 0..3 wilds the ranks offer, packed as in
    ``MARG_PACKED``: the sum of the ``k`` cheapest (each rank's are
    nondecreasing, so any ``k`` cheapest can be taken in order); BIG when
    fewer than ``k`` sets are possible."""
    left = max(k - (packed & 63), 0)  # sets still wanted after the free ones
    cost = 0
    for v in range(1, 4):
        take = min(left, (packed >> (6 * v)) & 63)
        cost += v * take
        left -= take
    return BIG if left > 0 else cost


@kernel
def sets_feasible(n, W, R, m, has_nat, k):
    """Can a pending set of rank ``R`` (1..12; no sets of 2s) needing ``m``
    more cards (with a natural already iff ``has_nat``) and ``k`` whole sets
    of 3 all be completed?  ``n`` (13,) naturals per rank, ``W`` wilds."""
    nR = n[R]
    others = 0  # marginal costs of the whole sets, counted by value (packed), rank R left out
    if k:
        for r in range(1, 13):
            others += MARG_PACKED[min(n[r], 8)]
        others -= MARG_PACKED[min(nR, 8)]
    for x in range(4):  # naturals the pending set takes
        if x <= m and x <= nR and (has_nat or x >= 1):
            cost = cheapest_sets(others + MARG_PACKED[min(nR - x, 8)], k) if k else 0
            if (m - x) + cost <= W:
                return True
    return False


@kernel
def window_counts(hs, L, cover, nat):
    """For every suit ``t`` and window ``w`` of ``L`` positions:
    ``cover[t, w]`` its ranks held as a natural other than a 2 (what covers
    slots beyond the wilds), ``nat[t, w]`` its naturals held (2s included)."""
    for t in range(4):
        for lo in range(NUM_POS + 1 - L):
            c = 0
            x = 0
            for p in range(lo, lo + L):
                r = POS_RANK[p]
                held = hs[t, r]
                x += held
                if r > 0 and held >= 1:
                    c += 1
            cover[t, lo] = c
            nat[t, lo] = x


@kernel
def best_other_cover(s, L, cover, nat):
    """The most ranks covered (:func:`window_counts`) by a window of ``L``
    positions holding a natural in a suit other than ``s``; -BIG if none."""
    other = -BIG
    for t in range(4):
        if t != s:
            for w in range(NUM_POS + 1 - L):
                if nat[t, w] >= 1 and cover[t, w] > other:
                    other = cover[t, w]
    return other


@kernel
def suit_rank_masks(hs, s):
    """Rank masks of suit ``s`` in hand ``hs``: the ranks held once other than
    a 2 (a natural covering one slot only), held at least once, held twice."""
    single = 0
    ge1 = 0
    ge2 = 0
    for r in range(13):
        if hs[s, r] >= 1:
            ge1 |= 1 << r
            if hs[s, r] >= 2:
                ge2 |= 1 << r
            elif r > 0:
                single |= 1 << r
    return single, ge1, ge2


@kernel
def second_run_same_suit(W, want, has_nat, len1, cov1, nat1, L, cover_s, nat_s, single, ge1, ge2):
    """Can a pending run (``len1`` slots of the ranks ``want`` (mask) still to
    fill, ``cov1`` of them covered by naturals, ``nat1`` naturals of them held;
    a natural placed already iff ``has_nat``) and a whole run of ``L`` cards in
    the same suit both be completed?  ``cover_s``/``nat_s``: the suit's
    :func:`window_counts`; ``single``/``ge1``/``ge2``: its
    :func:`suit_rank_masks`.  A rank wanted by both runs is covered twice only
    by two cards."""
    for w in range(NUM_POS + 1 - L):
        if nat_s[w] < 1:
            continue
        both = want & SPAN_RANKS[w, w + L - 1]  # ranks both runs want
        once = POPCOUNT[both & single]
        both_nat = POPCOUNT[both & ge1] + POPCOUNT[both & ge2]  # naturals of those ranks (2 copies at most)
        cov = cov1 + cover_s[w] - once
        union = nat1 + nat_s[w] - both_nat
        if len1 + L - cov <= W and (has_nat or (nat1 >= 1 and union >= 2)):
            return True
    return False


@kernel
def runs_feasible(hs, W, s, d, has_nat, k_more, L, cover, nat):
    """Can a pending run of suit ``s`` whose unfilled positions have rank
    demand ``d`` (13,) (0/1: a run holds one ace at most; a natural placed
    already iff ``has_nat``), plus ``k_more`` (0 or 1) whole runs of ``L``
    cards, be completed?  ``cover`` and ``nat``: :func:`window_counts` of the
    hand for ``L`` (read only when ``k_more``)."""
    len1 = 0
    cov1 = 0
    nat1 = 0
    want = 0
    for r in range(13):
        if d[r]:
            want |= 1 << r
            len1 += 1
            nat1 += hs[s, r]
            if r > 0 and hs[s, r] >= 1:
                cov1 += 1
    if not has_nat and nat1 < 1:
        return False
    # a second run can only add its own slots and cover, never fewer slots
    # than it covers, so the pending run must already fit the wilds
    if len1 - cov1 > W:
        return False
    if k_more == 0:
        return True
    # the other run in another suit: its best window holding a natural
    other = best_other_cover(s, L, cover, nat)
    if other >= 0 and len1 + L - cov1 - other <= W:
        return True
    single, ge1, ge2 = suit_rank_masks(hs, s)
    return second_run_same_suit(W, want, has_nat, len1, cov1, nat1, L, cover[s], nat[s], single, ge1, ge2)


@kernel
def mixed_feasible(hs, n, W, R, m, has_nat, cover, nat):
    """Round 2: a pending set of rank ``R`` needing ``m`` more cards plus a
    whole run of 4 (``cover``, ``nat``: :func:`window_counts` for 4).  The
    run's only shared card type is (R, run suit); giving it to the run first
    maximises the natural cover."""
    nR = n[R]
    # cover needed: m + 4 - W, less the set's naturals min(m, nR - taken), the
    # run taking one shared card when it has one
    short = m + 4 - W
    need_kept = short - min(m, nR)
    need_taken = short - min(m, nR - 1)
    for t in range(4):
        for w in range(NUM_POS + 1 - 4):
            shared = hs[t, R] if (SPAN_RANKS[w, w + 3] >> R) & 1 else 0  # cards of the shared type
            need = need_taken if shared >= 1 else need_kept
            if cover[t, w] >= need and nat[t, w] >= 1 and (has_nat or (nR >= 1 and nat[t, w] - shared >= 2 - nR)):
                return True
    return False


@kernel
def _declare_runs(legal, b, hs, W, min_len, k_more, L, cover, nat):
    """``legal[b, run declares]``: a run of each suit over each span of
    ``min_len``+ positions that can be completed, with ``k_more`` whole runs
    of ``L`` after it (:func:`runs_feasible` of the span).

    A span must hold a natural and have no more uncovered positions than
    ``W`` (:func:`runs_feasible`'s conditions for the run itself, exactly its
    answer when ``k_more`` is 0).  Both only improve / worsen as a span grows
    upwards, so the spans from each ``lo`` are walked until the gaps exceed
    ``W``: sparse hands visit a few spans, not all 77 per suit.  The walk
    keeps the span's counts, and the best window of another suit is found
    once per suit, so a span costs the same-suit check only when a run in
    another suit does not fit."""
    for s in range(4):
        other = -BIG
        single = ge1 = ge2 = 0
        if k_more:
            other = best_other_cover(s, L, cover, nat)
            single, ge1, ge2 = suit_rank_masks(hs, s)
        for lo in range(NUM_POS):
            gaps = 0
            held = 0
            for hi in range(lo, min(lo + 13, NUM_POS)):  # 13 positions at most (no wrap-around)
                r = POS_RANK[hi]
                held += hs[s, r]
                if r == 0 or hs[s, r] == 0:  # (a 2 covers as a wild, not as a natural)
                    gaps += 1
                    if gaps > W:
                        break
                length = hi - lo + 1
                if length < min_len or held < 1:
                    continue
                ok = (
                    k_more == 0
                    or (other >= 0 and gaps + L - other <= W)
                    or second_run_same_suit(
                        W, SPAN_RANKS[lo, hi], False, length, length - gaps, held, L, cover[s], nat[s], single, ge1, ge2
                    )
                )
                if ok:
                    legal[b, RUN0 + s * NSP + SPAN_INDEX[lo, hi]] = True


@kernel
def _table_mask(legal, b, h, owed, n_melds, meld_kind, meld_rank, meld_suit, meld_lo, meld_hi, meld_pos, meld_counts):
    """Legal lay-offs and swaps on the finished table melds of game ``b``
    (hand ``h`` (53,), owed wild ``owed``), written into ``legal[b]``.  A
    meld is only looked into when the hand holds a card it could take (a
    natural of a set's rank, a natural of a run's suit in or next to its
    span, a wild): a hand holds few cards, the table many melds."""
    # wild targets: a set, or a run with room
    n_target = 0
    for m in range(n_melds):
        if meld_kind[m] == SET or meld_hi[m] - meld_lo[m] + 1 < 13:
            n_target += 1
    has_owed = owed >= 0
    can_swap = not has_owed and n_target >= 1  # (the wild must have somewhere to go)
    wilds_held = 0
    for w in range(5):
        wilds_held += h[WILD[w]]
    suit_held = np.zeros(4, np.int64)  # per suit, the ranks held (mask)
    for t in range(4):
        for r in range(13):
            if h[t * 13 + r] > 0:
                suit_held[t] |= 1 << r
    for m in range(n_melds):
        base = MELD0 + BLOCK * m
        if meld_kind[m] == SET:
            R = np.int64(meld_rank[m])
            nat_held = h[R] + h[13 + R] + h[26 + R] + h[39 + R]
            if nat_held == 0 and wilds_held == 0:
                continue
            wilds_in = 0  # wilds standing in the meld (what a swap takes)
            if can_swap and nat_held:
                for w in range(5):
                    wilds_in += meld_counts[m, WILD[w]]
            for x in range(4):  # a natural of the rank in a suit
                if h[x * 13 + R] > 0:
                    legal[b, base + LAY_SET + x] = True
                    if wilds_in:
                        for w in range(5):
                            if meld_counts[m, WILD[w]] > 0:
                                legal[b, base + SWAP_SET + 5 * x + w] = True
            if wilds_held:
                for w in range(5):
                    if h[WILD[w]] > 0:
                        legal[b, base + LAY_SET + 4 + w] = True
            continue
        s = np.int64(meld_suit[m])
        lo = np.int64(meld_lo[m])
        hi = np.int64(meld_hi[m])
        length = hi - lo + 1
        # extend at either end; a lay-off filling the last run with room (no
        # set) is not offered while a wild is owed, unless it is that wild
        last_target = has_owed and length + 1 == 13 and n_target - 1 < 1
        if length < 13:
            for end in range(2):
                newp = lo - 1 if end == 0 else hi + 1
                if newp < 0 or newp > 13:
                    continue
                at = base + (LAY_LOW if end == 0 else LAY_HIGH)
                nat_t = POS_TYPE[s, newp]
                if h[nat_t] > 0 and (not last_target or nat_t == owed):
                    legal[b, at] = True
                if wilds_held:
                    for w in range(5):
                        own_two = newp == 1 and WILD[w] == s * 13  # a 2 in its own place is the natural
                        if h[WILD[w]] > 0 and not own_two and (not last_target or WILD[w] == owed):
                            legal[b, at + 1 + w] = True
        if can_swap and suit_held[s] & SPAN_RANKS[lo, hi]:  # a natural of some position is held
            wilds_in = 0
            for w in range(5):
                wilds_in += meld_counts[m, WILD[w]]
            if wilds_in:  # give a position's natural, take the wild standing there
                for p in range(lo, hi + 1):
                    c = np.int64(meld_pos[m, p])
                    if c >= 0 and IS_WILD[c] and not (p == 1 and c == s * 13) and h[POS_TYPE[s, p]] > 0:
                        legal[b, base + SWAP_RUN + p] = True


@kernel
def legal_extent(n_melds):
    """How far a mask row can hold legal actions with ``n_melds`` finished melds
    on the table: every action before the blocks of the melds not laid yet."""
    return MELD0 + BLOCK * n_melds


# Mask rows and how far they reach.  ``state.legal_written[b]``: no action at
# or past it is legal in row b (the actions on melds not laid yet never are:
# :func:`legal_masks` sets it to :func:`legal_extent`), so rows are cleared,
# copied and read only up to it.  A recycled mask array keeps the same record
# per row (``core.buffers``), so rewriting a row clears only as far as the
# row reached before.


@kernel
def copy_masks(out, out_written, legal, legal_written):
    """``out[:] = legal``, reading each row only up to ``legal_written`` and
    clearing only what ``out``'s row held past it (``out_written``, updated)."""
    for b in range(legal.shape[0]):
        end = legal_written[b]
        for a in range(end):
            out[b, a] = legal[b, a]
        if out_written[b] > end:
            out[b, end : out_written[b]] = False
        out_written[b] = end


@kernel
def clear_masks(legal, legal_written, rows):
    """Nothing legal in the games ``rows``."""
    for i in range(rows.shape[0]):
        b = rows[i]
        legal[b, : legal_written[b]] = False
        legal_written[b] = 0


@kernel
def legal_masks(
    legal,
    legal_written,
    rows,
    phase,
    current,
    rounds,
    round_i,
    hands,
    pend,
    pend_nat,
    pend_next,
    in_contract,
    contract_idx,
    contract_done,
    owed,
    n_melds,
    meld_kind,
    meld_rank,
    meld_suit,
    meld_lo,
    meld_hi,
    meld_pos,
    meld_counts,
    meld_len,
):
    """Write the legal actions of the games ``rows`` into ``legal`` (their rows
    are cleared first, as far as ``legal_written`` says they reach; it is set
    to :func:`legal_extent`): the draw choice, or every melding action that
    keeps the pending meld (and contract) completable, discards and table
    moves."""
    h = np.zeros(NT, np.int64)
    hs = np.zeros((4, 13), np.int64)
    n = np.zeros(13, np.int64)
    d = np.zeros(13, np.int64)
    cover = np.zeros((4, MAX_WINDOWS), np.int64)
    nat = np.zeros((4, MAX_WINDOWS), np.int64)
    for i in range(rows.shape[0]):
        b = rows[i]
        end = legal_extent(n_melds[b])
        legal[b, : max(end, legal_written[b])] = False
        legal_written[b] = end
        if phase[b] == DRAW:
            legal[b, TAKE] = True
            legal[b, PUSH] = True
            continue
        if phase[b] != MELD:
            continue
        seat = max(current[b], 0)
        W = 0
        for t in range(NT):
            h[t] = hands[b, seat, t]
            if IS_WILD[t]:
                W += h[t]
        for r in range(13):
            n[r] = 0
            for t in range(4):
                hs[t, r] = h[t * 13 + r]
                n[r] += hs[t, r]
        rn = rounds[round_i[b]]
        inc = in_contract[b]
        idx = contract_idx[b] if inc else 0
        con_kind = CON_KIND[rn, min(idx, 2)]
        k_after = CON_LEN[rn] - idx - 1  # whole contract melds after the next/pending one
        runlen = CON_RUNLEN[rn]
        slot = n_melds[b]

        if pend[b] == NO_MELD:
            if not inc and owed[b] < 0:  # discard: between melds, outside a contract, no owed wild
                for t in range(NT):
                    if h[t] > 0:
                        legal[b, DISCARD0 + t] = True
            if contract_done[b, seat]:  # free melding: any meld, lay-offs and swaps
                for R in range(1, 13):
                    if n[R] >= 1 and n[R] + W >= 3:
                        legal[b, SET0 + R - 1] = True
                _declare_runs(legal, b, hs, W, 3, 0, 3, cover, nat)
                _table_mask(
                    legal,
                    b,
                    h,
                    owed[b],
                    slot,
                    meld_kind[b],
                    meld_rank[b],
                    meld_suit[b],
                    meld_lo[b],
                    meld_hi[b],
                    meld_pos[b],
                    meld_counts[b],
                )
            elif con_kind == SET:  # the next contract meld
                if rn == 2:  # the set is followed by a run
                    window_counts(hs, 4, cover, nat)
                for R in range(1, 13):
                    if rn == 2:
                        ok = mixed_feasible(hs, n, W, R, 3, False, cover, nat)
                    else:
                        ok = sets_feasible(n, W, R, 3, False, k_after)
                    if ok:
                        legal[b, SET0 + R - 1] = True
            else:
                if k_after:
                    window_counts(hs, runlen, cover, nat)
                _declare_runs(legal, b, hs, W, runlen, k_after, runlen, cover, nat)

        elif pend[b] == SET:  # add (the hand after adding each of the 9 must still finish) / end
            R = np.int64(meld_rank[b, slot])
            cnt = np.int64(meld_len[b, slot])
            m2 = max(0, 3 - (cnt + 1))
            ka = k_after if inc else 0
            mixed = inc and rn == 2
            for x in range(9):
                typ = x * 13 + R if x < 4 else WILD[x - 4]
                if h[typ] <= 0 or (x >= 4 and cnt == 0):  # the first card of a set is a natural
                    continue
                W2 = W
                if x < 4:
                    n[R] -= 1
                else:
                    W2 -= 1
                if mixed:
                    if typ < 52:
                        hs[typ // 13, typ % 13] -= 1
                    window_counts(hs, 4, cover, nat)
                    ok = mixed_feasible(hs, n, W2, R, m2, pend_nat[b] or x < 4, cover, nat)
                    if typ < 52:
                        hs[typ // 13, typ % 13] += 1
                else:
                    ok = sets_feasible(n, W2, R, m2, pend_nat[b] or x < 4, ka)
                if x < 4:
                    n[R] += 1
                if ok:
                    legal[b, ADD0 + x] = True
            if cnt >= 3:
                legal[b, END] = True

        else:  # pending run: fill its next position p
            s = np.int64(meld_suit[b, slot])
            hi = np.int64(meld_hi[b, slot])
            p = pend_next[b]
            for r in range(13):
                d[r] = 0
            for q in range(p + 1, hi + 1):  # the positions still to fill after p
                d[POS_RANK[q]] += 1
            ka = k_after if inc else 0
            for x in range(6):
                typ = POS_TYPE[s, p] if x == 0 else WILD[x - 1]
                if h[typ] <= 0 or (x >= 1 and p == 1 and typ == s * 13):  # a 2 in its place is "nat"
                    continue
                W2 = W - 1 if IS_WILD[typ] else W
                if typ < 52:
                    hs[typ // 13, typ % 13] -= 1
                if ka:
                    window_counts(hs, runlen, cover, nat)
                ok = runs_feasible(hs, W2, s, d, pend_nat[b] or x == 0, ka, runlen, cover, nat)
                if typ < 52:
                    hs[typ // 13, typ % 13] += 1
                if ok:
                    legal[b, FILL0 + x] = True


# -------------------------------------------------------------------- actions
@kernel(keep_gil=True)  # it draws meld stamps from the process-wide counter (observation.py)
def apply_actions(
    rows,
    actions,
    ended,
    out_seat,
    max_turns,
    rounds,
    round_i,
    current,
    phase,
    turns,
    hands,
    held,
    stock,
    stock_top,
    stock_size,
    pile,
    pile_size,
    pile_counts,
    n_melds,
    meld_kind,
    meld_owner,
    meld_rank,
    meld_suit,
    meld_lo,
    meld_hi,
    meld_pos,
    meld_counts,
    meld_len,
    meld_obs,
    meld_stamp,
    stamp_clock,
    pend,
    pend_next,
    pend_nat,
    in_contract,
    contract_idx,
    contract_done,
    owed,
):
    """Apply ``actions[i]`` (legal) to game ``rows[i]``: move the cards, build
    the melds, advance the turn; a round that ends (a player out:
    ``out_seat``, or the stock or the turn limit exhausted) is marked in
    ``ended`` for :meth:`PushRules._end_round`.  The meld an action touches
    gets its observation block re-encoded."""
    for i in range(rows.shape[0]):
        b = rows[i]
        a = actions[i]
        cat = ACT_CAT[a]
        seat = current[b]
        complete = False  # the pending meld is finished
        check_out = False  # the hand may be empty
        m = ACT_A1[a] if cat >= C_LAY_SET else n_melds[b]  # the meld a melding action touches
        card = -1  # the card going from the hand to meld m
        if cat == C_TAKE:
            top = pile[b, pile_size[b] - 1]
            pile_size[b] -= 1
            pile_counts[b, top] -= 1
            hands[b, seat, top] += 1
            held[b, seat] += 1
            phase[b] = MELD
        elif cat == C_PUSH:
            if stock_size[b] < 2:
                ended[b] = True  # the stock is exhausted: the round ends at once
                continue
            left = (seat + 1) % 4
            c1 = stock[b, stock_top[b]]
            c3 = stock[b, stock_top[b] + 1]
            c2 = pile[b, pile_size[b] - 1]
            pile_size[b] -= 1
            pile_counts[b, c2] -= 1
            hands[b, left, c1] += 1
            hands[b, left, c2] += 1
            hands[b, seat, c3] += 1
            held[b, left] += 2
            held[b, seat] += 1
            stock_top[b] += 2
            stock_size[b] -= 2
            phase[b] = MELD
        elif cat == C_DISCARD:
            card = ACT_A1[a]
            hands[b, seat, card] -= 1
            held[b, seat] -= 1
            pile[b, pile_size[b]] = card
            pile_size[b] += 1
            pile_counts[b, card] += 1
            turns[b] += 1
            if held[b, seat] == 0:
                ended[b] = True
                out_seat[b] = seat
            elif turns[b] >= max_turns:
                ended[b] = True
            else:
                current[b] = (seat + 1) % 4
                phase[b] = DRAW
            continue
        elif cat in (C_SET, C_RUN):  # declare: a new pending meld at slot m
            if not contract_done[b, seat] and not in_contract[b]:
                in_contract[b] = True
                contract_idx[b] = 0
            meld_kind[b, m] = SET if cat == C_SET else RUN
            meld_owner[b, m] = seat
            meld_len[b, m] = 0
            meld_counts[b, m, :] = 0
            meld_pos[b, m, :] = -1
            pend[b] = SET if cat == C_SET else RUN
            pend_nat[b] = False
            if cat == C_SET:
                meld_rank[b, m] = ACT_A1[a]
            else:
                meld_suit[b, m] = ACT_A1[a]
                meld_lo[b, m] = SPAN_LO[ACT_A2[a]]
                meld_hi[b, m] = SPAN_HI[ACT_A2[a]]
                pend_next[b] = SPAN_LO[ACT_A2[a]]
        elif cat == C_ADD:
            kk = ACT_A1[a]
            card = kk * 13 + meld_rank[b, m] if kk < 4 else WILD[kk - 4]
            pend_nat[b] = pend_nat[b] or kk < 4
        elif cat == C_END:
            complete = True
        elif cat == C_FILL:
            kk = ACT_A1[a]
            p = pend_next[b]
            card = POS_TYPE[meld_suit[b, m], p] if kk == 0 else WILD[kk - 1]
            meld_pos[b, m, p] = card
            pend_nat[b] = pend_nat[b] or kk == 0
            pend_next[b] += 1
            complete = p == meld_hi[b, m]
        elif cat == C_LAY_SET:
            kk = ACT_A2[a]
            card = kk * 13 + meld_rank[b, m] if kk < 4 else WILD[kk - 4]
            check_out = True
        elif cat == C_LAY_RUN:
            kk = ACT_A2[a] % 6
            if ACT_A2[a] < 6:  # low end
                p = meld_lo[b, m] - 1
                meld_lo[b, m] = p
            else:
                p = meld_hi[b, m] + 1
                meld_hi[b, m] = p
            card = POS_TYPE[meld_suit[b, m], p] if kk == 0 else WILD[kk - 1]
            meld_pos[b, m, p] = card
            check_out = True
        else:  # swap: give the natural, take the wild (owed until it is used)
            if cat == C_SWAP_RUN:
                p = ACT_A2[a]
                wild = np.int64(meld_pos[b, m, p])
                natural = POS_TYPE[meld_suit[b, m], p]
                meld_pos[b, m, p] = natural
            else:
                natural = (ACT_A2[a] // 5) * 13 + meld_rank[b, m]
                wild = WILD[ACT_A2[a] % 5]
            hands[b, seat, natural] -= 1
            hands[b, seat, wild] += 1
            meld_counts[b, m, natural] += 1
            meld_counts[b, m, wild] -= 1
            owed[b] = wild
        if card >= 0:  # a card from the hand into meld m
            hands[b, seat, card] -= 1
            held[b, seat] -= 1
            meld_counts[b, m, card] += 1
            meld_len[b, m] += 1
            if owed[b] == card:
                owed[b] = -1
        if complete:  # the pending meld is finished: it joins the table
            n_melds[b] += 1
            pend[b] = NO_MELD
            if in_contract[b]:
                contract_idx[b] += 1
                if contract_idx[b] == CON_LEN[rounds[round_i[b]]]:
                    contract_done[b, seat] = True
                    in_contract[b] = False
            check_out = True
        if check_out and held[b, seat] == 0:
            ended[b] = True
            out_seat[b] = seat
        if cat >= C_SET:
            refresh_block(
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
                POS_TYPE,
                WILD,
            )


# ----------------------------------------------------------------------- deal
@kernel
def deal_rows(
    rows,
    orders,
    per_seat,
    dealer,
    hands,
    held,
    pile,
    pile_size,
    pile_counts,
    stock,
    stock_top,
    stock_size,
    n_melds,
    meld_kind,
    meld_owner,
    meld_rank,
    meld_suit,
    meld_lo,
    meld_hi,
    meld_pos,
    meld_counts,
    meld_len,
    meld_obs,
    meld_stamp,
    pend,
    pend_next,
    pend_nat,
    in_contract,
    contract_idx,
    contract_done,
    owed,
    turns,
    phase,
    current,
):
    """Deal game ``rows[i]`` from the deck order ``orders[i]`` (top first),
    ``per_seat[i]`` cards each, one at a time clockwise from the dealer's
    left; the upcard is the first natural after the deal, the wilds turned
    before it go (in turn order) to the bottom of the stock.  The table and
    the turn state start afresh; the player left of the dealer draws first."""
    num_cards = orders.shape[1]
    for i in range(rows.shape[0]):
        b = rows[i]
        start = 4 * per_seat[i]
        deal_round_robin(hands, b, orders[i], start, dealer[b])
        held[b, :] = per_seat[i]
        first = start  # the upcard: the first natural after the deal
        while first < num_cards and IS_WILD[orders[i, first]]:
            first += 1
        if first == num_cards:  # (no natural left: cannot happen with 12 wilds in 108 cards)
            first = 0
        upcard = orders[i, first]
        pile[b, :] = 0
        pile[b, 0] = upcard
        pile_size[b] = 1
        pile_counts[b, :] = 0
        pile_counts[b, upcard] = 1
        size = num_cards - start  # cards left after the deal, the upcard among them
        for j in range(num_cards):  # the stock: the cards after the upcard, then the buried wilds
            src = start + (first - start + 1 + j) % size
            stock[b, j] = orders[i, min(src, num_cards - 1)] if j < size - 1 else 0
        stock_top[b] = 0
        stock_size[b] = size - 1
        n_melds[b] = 0
        meld_kind[b, :] = 0
        meld_owner[b, :] = 0
        meld_rank[b, :] = 0
        meld_suit[b, :] = 0
        meld_lo[b, :] = 0
        meld_hi[b, :] = 0
        meld_pos[b, :, :] = -1
        meld_counts[b, :, :] = 0
        meld_len[b, :] = 0
        meld_obs[b, :, :] = 0
        meld_stamp[b, :] = 0  # (stamp 0: an empty slot)
        pend[b] = NO_MELD
        pend_next[b] = 0
        pend_nat[b] = False
        in_contract[b] = False
        contract_idx[b] = 0
        contract_done[b, :] = False
        owed[b] = -1
        turns[b] = 0
        phase[b] = DRAW
        current[b] = (dealer[b] + 1) % 4


@kernel
def score_rounds(rows, out_seat, reward_delta, hands, scores, last_penalty, went_out, hand_number, rewards):
    """Score the round just ended in game ``rows[i]``: each team's penalty is
    the value of its two hands, 0 for the team of ``out_seat[i]`` (the player
    who went out; -1 none); with ``reward_delta`` each seat is rewarded minus
    its team's penalty.  Teams: seats 0 and 2, seats 1 and 3."""
    for i in range(rows.shape[0]):
        b = rows[i]
        pen0 = 0
        pen1 = 0
        for t in range(NT):
            pen0 += (np.int64(hands[b, 0, t]) + np.int64(hands[b, 2, t])) * VALUE[t]
            pen1 += (np.int64(hands[b, 1, t]) + np.int64(hands[b, 3, t])) * VALUE[t]
        out = out_seat[i]
        if out >= 0:
            if out % 2 == 0:
                pen0 = 0
            else:
                pen1 = 0
        scores[b, 0] += pen0
        scores[b, 1] += pen1
        last_penalty[b, 0] = pen0
        last_penalty[b, 1] = pen1
        went_out[b] = out
        hand_number[b] += 1
        if reward_delta:
            for seat in range(4):
                rewards[b, seat] -= pen0 if seat % 2 == 0 else pen1


# --------------------------------------------------------------------- rules
class PushRules(TurnBasedRules):
    """Batched Push rules for one configuration.

    Config: ``rounds`` (list of round numbers 1..5 to play, in order; default
    all five), ``reward`` ``"win_loss"``/``"score_delta"``, ``max_turns``
    (turns per round before it ends as if the stock were exhausted; 200).
    """

    name = "push_v0"
    deck = DECK
    num_players = 4
    num_actions = NUM_ACTIONS
    obs_size = observation.OBS_SIZE
    obs_low, obs_high = observation.OBS_LOW, observation.OBS_HIGH
    obs_dtype = np.int16  # scores reach 5 x 960 points; see __init__ for the turn counter

    def __init__(self, rounds=(1, 2, 3, 4, 5), reward: str = "win_loss", max_turns: int = 200):
        if isinstance(rounds, (str, bytes)) or not hasattr(rounds, "__iter__"):
            raise ValueError(f"rounds must be a non-empty list of distinct round numbers 1..5, got {rounds!r}")
        rounds = list(rounds)
        if (
            not rounds
            or len(set(map(repr, rounds))) != len(rounds)
            or any(
                isinstance(r, (bool, np.bool_)) or not isinstance(r, (int, np.integer)) or not 1 <= r <= 5
                for r in rounds
            )
        ):
            raise ValueError(f"rounds must be a non-empty list of distinct round numbers 1..5, got {rounds!r}")
        self.rounds = np.array([int(r) for r in rounds], np.int64)
        self.reward = choice("reward", reward, ("win_loss", "score_delta"))
        self.max_turns = positive_int("max_turns", max_turns)
        if self.max_turns > np.iinfo(np.int16).max:  # the observed turn counter must fit
            self.obs_dtype = np.int32
        self.team = np.arange(4) % 2
        self.partnerships = True  # team 0 = seats {0, 2}, team 1 = seats {1, 3}
        self.relative_seat = (np.arange(4)[None, :] - np.arange(4)[:, None]) % 4

    # ------------------------------------------------------------------ state
    def new_state(self, batch: int, rng: np.random.Generator) -> BatchState:
        B, M = batch, NUM_MELDS
        s = self.common_state(batch, rng, 2)  # scores per team; hand_number = rounds completed
        s.phase[:] = DONE
        s.round_i = np.zeros(B, np.int64)  # index into self.rounds
        s.turns = np.zeros(B, np.int64)  # turns completed this round
        s.last_penalty = np.zeros((B, 2), np.int64)
        s.went_out = np.full(B, -1, np.int64)  # who went out last round (-1 none)
        s.hands = np.zeros((B, 4, NT), np.int8)
        s.held = np.zeros((B, 4), np.int16)  # cards in each hand (kept with hands: read every observation)
        s.stock = np.zeros((B, DECK.num_cards), np.int64)  # top at stock_top
        s.stock_top = np.zeros(B, np.int64)
        s.stock_size = np.zeros(B, np.int64)
        s.pile = np.zeros((B, DECK.num_cards), np.int64)  # bottom first
        s.pile_size = np.zeros(B, np.int64)
        s.pile_counts = np.zeros((B, NT), np.int8)
        s.n_melds = np.zeros(B, np.int64)  # finished melds (a pending one sits at slot n_melds)
        s.meld_kind = np.zeros((B, M), np.int8)
        s.meld_owner = np.zeros((B, M), np.int8)
        s.meld_rank = np.zeros((B, M), np.int8)
        s.meld_suit = np.zeros((B, M), np.int8)
        s.meld_lo = np.zeros((B, M), np.int8)
        s.meld_hi = np.zeros((B, M), np.int8)
        s.meld_pos = np.full((B, M, NUM_POS), -1, np.int8)
        s.meld_counts = np.zeros((B, M, NT), np.int8)
        s.meld_len = np.zeros((B, M), np.int8)
        s.meld_obs = np.zeros((B, M, observation.F), np.int8)  # each slot's observation block
        s.meld_stamp = np.zeros((B, M), np.int64)  # which version of its block a slot holds (observation.py)
        s.legal_written = np.zeros(B, np.int64)  # how far each mask row reaches (see copy_masks)
        s.handed_legal = 0  # id() of the mask array legal_copy last handed out (see own_legal)
        s.pend = np.zeros(B, np.int64)  # NO_MELD / SET / RUN being built
        s.pend_next = np.zeros(B, np.int64)  # next run position to fill
        s.pend_nat = np.zeros(B, bool)
        s.in_contract = np.zeros(B, bool)
        s.contract_idx = np.zeros(B, np.int64)  # contract melds finished this turn
        s.contract_done = np.zeros((B, 4), bool)
        s.owed = np.full(B, -1, np.int64)  # wild type swapped out and not yet used
        return s

    def start_game(self, state: BatchState, rows: np.ndarray) -> None:
        state.round_i[rows] = 0
        state.last_penalty[rows] = 0
        state.went_out[rows] = -1
        self._deal(state, rows)
        self._update_legal(state, rows)

    def round_number(self, state: BatchState) -> np.ndarray:
        return self.rounds[np.minimum(state.round_i, len(self.rounds) - 1)]

    def _deal(self, state: BatchState, rows: np.ndarray) -> None:
        """Deal the round ``rounds[round_i]`` in ``rows`` (dealer already set):
        the deck orders are drawn here (numpy), the cards dealt by
        :func:`deal_rows`."""
        orders = self.deck_orders(state, rows)
        deal_rows(
            np.asarray(rows, np.int64),
            np.asarray(orders, np.int64),
            5 + self.rounds[state.round_i[rows]],
            state.dealer,
            state.hands,
            state.held,
            state.pile,
            state.pile_size,
            state.pile_counts,
            state.stock,
            state.stock_top,
            state.stock_size,
            state.n_melds,
            state.meld_kind,
            state.meld_owner,
            state.meld_rank,
            state.meld_suit,
            state.meld_lo,
            state.meld_hi,
            state.meld_pos,
            state.meld_counts,
            state.meld_len,
            state.meld_obs,
            state.meld_stamp,
            state.pend,
            state.pend_next,
            state.pend_nat,
            state.in_contract,
            state.contract_idx,
            state.contract_done,
            state.owed,
            state.turns,
            state.phase,
            state.current,
        )

    # ------------------------------------------------------------ legal mask
    def _update_legal(self, state: BatchState, rows: np.ndarray) -> None:
        """Recompute ``state.legal`` of the games ``rows`` (see :func:`legal_masks`)."""
        legal_masks(
            state.legal,
            state.legal_written,
            np.asarray(rows, np.int64),
            state.phase,
            state.current,
            self.rounds,
            state.round_i,
            state.hands,
            state.pend,
            state.pend_nat,
            state.pend_next,
            state.in_contract,
            state.contract_idx,
            state.contract_done,
            state.owed,
            state.n_melds,
            state.meld_kind,
            state.meld_rank,
            state.meld_suit,
            state.meld_lo,
            state.meld_hi,
            state.meld_pos,
            state.meld_counts,
            state.meld_len,
        )

    def legal_copy(self, state: BatchState) -> np.ndarray:
        """The masks for the caller to keep.  A large batch (4096 games: 10 MB)
        is not copied: the state's own array is handed out read-only, and the
        state moves to another recycled array before its masks are next
        written (:meth:`own_legal`; a step just clears the finished games in
        it and recomputes the rest)."""
        if state.legal.nbytes < RECYCLE_BYTES:
            return state.legal.copy()
        if not pooled(state.legal):
            self._move_legal(state)
        state.handed_legal = id(state.legal)
        return read_only(state.legal)

    def own_legal(self, state: BatchState, clear_only: np.ndarray | None = None) -> None:
        """If ``state.legal`` is the array :meth:`legal_copy` handed out, move it
        into a recycled array nobody holds: a copy, or, when every row but
        ``clear_only`` is about to be recomputed (a step), with only those
        rows cleared."""
        if state.handed_legal == id(state.legal):
            self._move_legal(state, clear_only)

    def _move_legal(self, state: BatchState, clear_only: np.ndarray | None = None) -> None:
        """Move ``state.legal`` into a recycled array (see :meth:`own_legal`)."""
        legal, written = recycled_rows(state.legal.shape, np.bool_, "push.legal", self.num_actions)
        if clear_only is None:
            copy_masks(legal, written, state.legal, state.legal_written)
        else:
            clear_masks(legal, written, np.asarray(clear_only, np.int64))
        state.legal, state.legal_written = legal, written  # (the array's record is the state's)

    # ------------------------------------------------------------------ step
    def step(self, state: BatchState, actions: np.ndarray) -> np.ndarray:
        actions = np.asarray(actions, np.int64)
        self.own_legal(state, clear_only=np.flatnonzero(state.done))  # every unfinished game gets new masks
        rewards = np.zeros((state.batch, 4), np.float32)
        active = np.flatnonzero(~state.done)
        ended = np.zeros(state.batch, bool)  # round over
        out_seat = np.full(state.batch, -1, np.int64)
        apply_actions(
            active,
            actions[active],
            ended,
            out_seat,
            self.max_turns,
            self.rounds,
            state.round_i,
            state.current,
            state.phase,
            state.turns,
            state.hands,
            state.held,
            state.stock,
            state.stock_top,
            state.stock_size,
            state.pile,
            state.pile_size,
            state.pile_counts,
            state.n_melds,
            state.meld_kind,
            state.meld_owner,
            state.meld_rank,
            state.meld_suit,
            state.meld_lo,
            state.meld_hi,
            state.meld_pos,
            state.meld_counts,
            state.meld_len,
            state.meld_obs,
            state.meld_stamp,
            observation.STAMP_CLOCK,
            state.pend,
            state.pend_next,
            state.pend_nat,
            state.in_contract,
            state.contract_idx,
            state.contract_done,
            state.owed,
        )
        e = np.flatnonzero(ended)
        if e.size:
            self._end_round(state, e, out_seat[e], rewards)
        upd = active[~state.done[active]]
        self._update_legal(state, upd)
        return rewards

    # round end
    def _end_round(self, state, rows, out_seat, rewards):
        """Score the round in ``rows``: a team with a player out scores 0, the
        other team(s) the values of their hands; then deal on or end."""
        score_rounds(
            np.asarray(rows, np.int64),
            np.asarray(out_seat, np.int64),
            self.reward == "score_delta",
            state.hands,
            state.scores,
            state.last_penalty,
            state.went_out,
            state.hand_number,
            rewards,
        )
        state.round_i[rows] += 1
        over = state.round_i[rows] >= len(self.rounds)
        end = rows[over]
        if end.size:
            self.end_games(state, end, DONE)
            state.round_i[end] = len(self.rounds) - 1
            if self.reward == "win_loss":
                sc = state.scores[end]
                res = np.sign(sc[:, 1] - sc[:, 0]).astype(np.float32)  # +1: team 0 lower (wins)
                rewards[end] += np.stack([res, -res], 1)[:, self.team]
        nxt = rows[~over]
        if nxt.size:
            self.pass_the_deal(state, nxt)

    # ------------------------------------------------------------ observation
    def observe(self, state: BatchState, seats: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        return observation.encode(self, state, np.asarray(seats, np.int64), rows)

    def seat_scores(self, state: BatchState) -> np.ndarray:
        return state.scores[:, self.team]

    def winners(self, state: BatchState, row: int = 0) -> list[int]:
        if not state.done[row]:
            return []
        sc = state.scores[row]
        return [s for s in range(4) if sc[self.team[s]] == sc.min()]

    # ------------------------------------------------------------ texts
    def action_to_str(self, action: int) -> str:
        if (
            isinstance(action, (bool, np.bool_))
            or not isinstance(action, (int, np.integer))
            or not 0 <= action < NUM_ACTIONS
        ):
            raise ValueError(f"action {action!r} out of range 0..{NUM_ACTIONS - 1}")
        return ACTION_TEXTS[int(action)]

    def str_to_action(self, text: str) -> int:
        try:
            return ACTION_IDS[text]
        except (KeyError, TypeError):
            raise ValueError(f"unknown Push action {text!r}") from None

    # ------------------------------------------------------------ state_dict / render
    def meld_dicts(self, state: BatchState, row: int = 0) -> list[dict]:
        b = row
        out = []
        count = int(state.n_melds[b]) + (1 if state.pend[b] != NO_MELD else 0)
        for m in range(count):
            kind = int(state.meld_kind[b, m])
            d = {"owner": int(state.meld_owner[b, m]), "kind": KIND_NAMES[kind], "complete": bool(m < state.n_melds[b])}
            if kind == SET:
                cards = DECK.counts_to_texts(state.meld_counts[b, m])
                cards = [c for c in cards if c[0] != "2" and c != "JK"] + [c for c in cards if c[0] == "2" or c == "JK"]
                d.update(
                    cards=cards,
                    ranks=[RANK_CH[state.meld_rank[b, m]]] * len(cards),
                    suit=None,
                    rank=RANK_CH[state.meld_rank[b, m]],
                )
            else:
                lo, hi = int(state.meld_lo[b, m]), int(state.meld_hi[b, m])
                filled = [p for p in range(lo, hi + 1) if state.meld_pos[b, m, p] >= 0]
                d.update(
                    cards=[DECK.texts[state.meld_pos[b, m, p]] for p in filled],
                    ranks=[RANK_CH[POS_RANK[p]] for p in filled],
                    suit=SUIT_CH[state.meld_suit[b, m]],
                    positions=filled,
                    span=[lo, hi],
                )
            out.append(d)
        return out

    def state_dict(self, state: BatchState, row: int = 0) -> dict[str, Any]:
        b = row
        top, size = int(state.stock_top[b]), int(state.stock_size[b])
        pend = int(state.pend[b])
        return {
            "game": self.name,
            "num_players": 4,
            "phase": PHASE_NAMES[state.phase[b]],
            "dealer": int(state.dealer[b]),
            "hand_number": int(state.hand_number[b]),
            "round": int(self.rounds[state.round_i[b]]),
            "rounds": [int(r) for r in self.rounds],
            "turn": int(state.turns[b]),
            "scores": [int(state.scores[b, self.team[s]]) for s in range(4)],
            "done": bool(state.done[b]),
            "current_player": int(state.current[b]),
            "hands": [DECK.counts_to_texts(state.hands[b, s]) for s in range(4)],
            "melds": self.meld_dicts(state, b),
            "discard": DECK.texts_of(state.pile[b, : state.pile_size[b]]),
            "stock": DECK.texts_of(state.stock[b, top : top + size]),
            "stock_size": size,
            "contract_done": [bool(x) for x in state.contract_done[b]],
            "in_contract": bool(state.in_contract[b]),
            "contract_melds_laid": int(state.contract_idx[b]) if state.in_contract[b] else 0,
            "pending": None if pend == NO_MELD else KIND_NAMES[pend],
            "owed_wild": None if state.owed[b] < 0 else "wild " + DECK.texts[state.owed[b]],
            "last_round_penalty": [int(x) for x in state.last_penalty[b]],
            "went_out": int(state.went_out[b]),
            "winners": self.winners(state, b),
        }

    def render(self, state: BatchState, row: int = 0) -> str:
        d = self.state_dict(state, row)
        lines = [
            f"Push round {d['round']} (deal {d['hand_number'] + 1} of {len(self.rounds)}), dealer {d['dealer']}, "
            f"phase {d['phase']}, turn {d['turn']}, scores {d['scores']}",
            f"discard pile ({len(d['discard'])}): top {d['discard'][-1] if d['discard'] else '-'}; "
            f"stock {d['stock_size']}",
        ]
        for s in range(4):
            mark = "*" if s == d["current_player"] else " "
            lines.append(
                f"{mark} player_{s}: {' '.join(d['hands'][s]) or '-'}  "
                f"contract {'done' if d['contract_done'][s] else 'not yet'}"
            )
        for m, meld in enumerate(d["melds"]):
            what = (
                f"set of {meld['ranks'][0] if meld['ranks'] else '?'}"
                if meld["kind"] == "set"
                else f"run {meld['suit']} " + " ".join(f"{c}={r}" for c, r in zip(meld["cards"], meld["ranks"]))
            )
            cards = " ".join(meld["cards"]) if meld["kind"] == "set" else ""
            lines.append(
                f"  meld {m} (player_{meld['owner']}{'' if meld['complete'] else ', being built'}): "
                f"{what} {cards}".rstrip()
            )
        if d["owed_wild"]:
            lines.append(f"  must use the {d['owed_wild']} this turn")
        if d["done"]:
            lines.append(f"game over, winners: {['player_' + str(s) for s in d['winners']]}")
        return "\n".join(lines)
