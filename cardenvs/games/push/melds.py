"""Push: the meld-feasibility searches (compiled kernels), Push's own
machinery: can a pending meld, and the rest of a contract, still be completed
from the cards in hand?  ``legal.py`` offers a declare/add/fill only when the
answer after it is yes.

Feasibility (exact): a meld needs each of its slots filled by its natural or
a wild (2s and jokers), and at least one natural (a 2 in its own run position
counts).  For a group of melds the cards that can cover slots as naturals
form a transversal matroid, so the group can be completed iff
``slots - max natural cover <= wilds`` and one natural per meld can be
matched to distinct cards (Hall's condition); using a 2 in its own place never
changes the count (it fills a slot a wild would fill).  Sets of one rank
share naturals, solved by greedy marginal costs (``max(0, 3c - n)`` is convex
in the number of sets c, see ``tables.MARGINAL_COST``); a set + a run
(round 2) share one card type; two runs of one suit share per-rank counts.
Minimal shapes suffice for melds not yet declared (a longer meld contains a
minimal one with a natural).

A hand is given as ``suit_counts`` (4, 13) int64, its naturals per (suit,
rank) (the 2s stay at rank 0 there, but they are wilds: they count in
``wilds`` and never as a run's natural cover), ``rank_counts`` (13,) its
naturals per rank, and ``wilds``, its number of wilds.  Windows: the minimal
runs of ``run_length`` positions, ``lo = 0 .. 14 - run_length``.
"""

from __future__ import annotations

from ...core.jit import kernel
from .tables import BIG, NUM_POSITIONS, PACKED_MARGINAL_COSTS, POPCOUNT, POSITION_RANK, SPAN_RANKS


@kernel
def cheapest_sets(packed, count):
    """Fewest wilds that complete ``count`` (1..3) more sets of 3, given how
    many marginal costs of 0..3 wilds the ranks offer, packed as in
    ``PACKED_MARGINAL_COSTS``: the sum of the ``count`` cheapest (each rank's
    are nondecreasing, so any ``count`` cheapest can be taken in order); BIG
    when fewer than ``count`` sets are possible."""
    left = max(count - (packed & 63), 0)  # sets still wanted after the free ones
    cost = 0
    for value in range(1, 4):
        take = min(left, (packed >> (6 * value)) & 63)
        cost += value * take
        left -= take
    return BIG if left > 0 else cost


@kernel
def sets_feasible(rank_counts, wilds, rank, missing, has_natural, whole_sets):
    """Can a pending set of ``rank`` (1..12; no sets of 2s) needing
    ``missing`` more cards (with a natural already iff ``has_natural``) and
    ``whole_sets`` whole sets of 3 all be completed?"""
    naturals = rank_counts[rank]
    others = 0  # marginal costs of the whole sets, counted by value (packed), this rank left out
    if whole_sets:
        for r in range(1, 13):
            others += PACKED_MARGINAL_COSTS[min(rank_counts[r], 8)]
        others -= PACKED_MARGINAL_COSTS[min(naturals, 8)]
    for taken in range(4):  # naturals the pending set takes
        if taken <= missing and taken <= naturals and (has_natural or taken >= 1):
            left = PACKED_MARGINAL_COSTS[min(naturals - taken, 8)]
            cost = cheapest_sets(others + left, whole_sets) if whole_sets else 0
            if (missing - taken) + cost <= wilds:
                return True
    return False


@kernel
def window_counts(suit_counts, run_length, cover, naturals):
    """For every suit ``t`` and window ``w`` of ``run_length`` positions:
    ``cover[t, w]`` its ranks held as a natural other than a 2 (what covers
    slots beyond the wilds), ``naturals[t, w]`` its naturals held (2s
    included)."""
    for t in range(4):
        for lo in range(NUM_POSITIONS + 1 - run_length):
            covered = 0
            held = 0
            for p in range(lo, lo + run_length):
                r = POSITION_RANK[p]
                count = suit_counts[t, r]
                held += count
                if r > 0 and count >= 1:
                    covered += 1
            cover[t, lo] = covered
            naturals[t, lo] = held


@kernel
def best_other_cover(suit, run_length, cover, naturals):
    """The most ranks covered (:func:`window_counts`) by a window of
    ``run_length`` positions holding a natural in a suit other than ``suit``;
    -BIG if none."""
    best = -BIG
    for t in range(4):
        if t != suit:
            for w in range(NUM_POSITIONS + 1 - run_length):
                if naturals[t, w] >= 1 and cover[t, w] > best:
                    best = cover[t, w]
    return best


@kernel
def suit_rank_masks(suit_counts, suit):
    """Rank masks of ``suit`` in a hand: (the ranks held once other than a 2
    (a natural covering one slot only), held at least once, held twice)."""
    single = 0
    at_least_once = 0
    twice = 0
    for r in range(13):
        if suit_counts[suit, r] >= 1:
            at_least_once |= 1 << r
            if suit_counts[suit, r] >= 2:
                twice |= 1 << r
            elif r > 0:
                single |= 1 << r
    return single, at_least_once, twice


@kernel
def second_run_same_suit(wilds, pending, run_length, suit_cover, suit_naturals, rank_masks):
    """Can a pending run and a whole run of ``run_length`` cards in the same
    suit both be completed?  ``pending`` = (the ranks it still wants (mask),
    its slots left, how many of them naturals cover, its naturals held, a
    natural placed already); ``suit_cover``/``suit_naturals``: the suit's
    :func:`window_counts`; ``rank_masks``: its :func:`suit_rank_masks`.  A
    rank wanted by both runs is covered twice only by two cards."""
    want, slots, covered, held, has_natural = pending
    single, at_least_once, twice = rank_masks
    for w in range(NUM_POSITIONS + 1 - run_length):
        if suit_naturals[w] < 1:
            continue
        both = want & SPAN_RANKS[w, w + run_length - 1]  # ranks both runs want
        once = POPCOUNT[both & single]
        both_naturals = POPCOUNT[both & at_least_once] + POPCOUNT[both & twice]  # (2 copies at most)
        cover = covered + suit_cover[w] - once
        union = held + suit_naturals[w] - both_naturals
        if slots + run_length - cover <= wilds and (has_natural or (held >= 1 and union >= 2)):
            return True
    return False


@kernel
def runs_feasible(suit_counts, wilds, suit, demand, has_natural, more_runs, run_length, cover, naturals):
    """Can a pending run of ``suit`` whose unfilled positions have rank
    ``demand`` (13,) (0/1: a run holds one ace at most; a natural placed
    already iff ``has_natural``), plus ``more_runs`` (0 or 1) whole runs of
    ``run_length`` cards, be completed?  ``cover`` and ``naturals``:
    :func:`window_counts` of the hand for ``run_length`` (read only when
    ``more_runs``)."""
    slots = 0
    covered = 0
    held = 0
    want = 0
    for r in range(13):
        if demand[r]:
            want |= 1 << r
            slots += 1
            held += suit_counts[suit, r]
            if r > 0 and suit_counts[suit, r] >= 1:
                covered += 1
    if not has_natural and held < 1:
        return False
    # a second run can only add its own slots and cover, never fewer slots
    # than it covers, so the pending run must already fit the wilds
    if slots - covered > wilds:
        return False
    if more_runs == 0:
        return True
    # the other run in another suit: its best window holding a natural
    other = best_other_cover(suit, run_length, cover, naturals)
    if other >= 0 and slots + run_length - covered - other <= wilds:
        return True
    pending = (want, slots, covered, held, has_natural)
    rank_masks = suit_rank_masks(suit_counts, suit)
    return second_run_same_suit(wilds, pending, run_length, cover[suit], naturals[suit], rank_masks)


@kernel
def mixed_feasible(suit_counts, rank_counts, wilds, rank, missing, has_natural, cover, naturals):
    """Round 2: a pending set of ``rank`` needing ``missing`` more cards plus
    a whole run of 4 (``cover``, ``naturals``: :func:`window_counts` for 4).
    The run's only shared card type is (rank, run suit); giving it to the run
    first maximises the natural cover."""
    set_naturals = rank_counts[rank]
    # cover needed: missing + 4 - wilds, less the set's naturals
    # min(missing, naturals - taken), the run taking one shared card when it has one
    short = missing + 4 - wilds
    need_kept = short - min(missing, set_naturals)
    need_taken = short - min(missing, set_naturals - 1)
    for t in range(4):
        for w in range(NUM_POSITIONS + 1 - 4):
            shared = suit_counts[t, rank] if (SPAN_RANKS[w, w + 3] >> rank) & 1 else 0  # cards of the shared type
            need = need_taken if shared >= 1 else need_kept
            if (
                cover[t, w] >= need
                and naturals[t, w] >= 1
                and (has_natural or (set_naturals >= 1 and naturals[t, w] - shared >= 2 - set_naturals))
            ):
                return True
    return False
