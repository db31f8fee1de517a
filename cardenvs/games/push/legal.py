"""Push: the legal-action masks (compiled kernels), one function per phase
of the turn: the draw choice; between melds, the contract not laid (the
next contract meld) or laid (free melding, lay-offs and swaps); a pending
set; a pending run (discards are offered between melds, outside a
contract).  A declare/add/fill is offered only if the meld (and the rest of
the contract) can still be completed after it (:mod:`cardenvs.games.push.melds`).

Mask rows and how far they reach: no action on a table meld not laid yet is
ever legal, so a row holds legal actions only before
:func:`legal_extent`; ``legal_written[b]`` records how far row ``b`` of the
mask array may reach, and a row is cleared only up to it (see
:mod:`cardenvs.games.push.outputs`, which recycles mask arrays).
"""

from __future__ import annotations

import numpy as np

from ...core.jit import kernel
from .melds import (
    best_other_cover,
    mixed_feasible,
    runs_feasible,
    second_run_same_suit,
    sets_feasible,
    suit_rank_masks,
    window_counts,
)
from .tables import (
    ADD0,
    BIG,
    CONTRACT_KINDS,
    CONTRACT_LENGTH,
    CONTRACT_RUN_LENGTH,
    DISCARD0,
    DRAW,
    END_SET,
    FILL0,
    IS_WILD,
    LAY_HIGH,
    LAY_LOW,
    LAY_SET,
    MAX_WINDOWS,
    MELD,
    MELD0,
    MELD_BLOCK,
    NATURAL_TYPE,
    NO_MELD,
    NUM_POSITIONS,
    NUM_SPANS,
    NUM_TYPES,
    POSITION_RANK,
    PUSH,
    RUN0,
    SET,
    SET0,
    SPAN_INDEX,
    SPAN_RANKS,
    SWAP_RUN,
    SWAP_SET,
    TAKE,
    WILD_TYPES,
    Cards,
    Config,
    Masks,
    Table,
    Turn,
)


@kernel
def legal_extent(n_melds):
    """How far a mask row can hold legal actions with ``n_melds`` finished melds
    on the table: every action before the blocks of the melds not laid yet."""
    return MELD0 + MELD_BLOCK * n_melds


@kernel
def write_masks(rows, config, cards, table, turn, masks):
    """:func:`masks_of_rows`, called from Python (the bundles come as plain
    tuples: see ``tables.plain``)."""
    config, cards, table, turn, masks = Config(*config), Cards(*cards), Table(*table), Turn(*turn), Masks(*masks)
    masks_of_rows(rows, config, cards, table, turn, masks)


@kernel
def masks_of_rows(rows, config, cards, table, turn, masks):
    """Row ``b`` of ``masks.legal`` for each ``b`` in ``rows``: cleared as far
    as ``legal_written`` says it reaches (then set to :func:`legal_extent`);
    the draw choice, or a discard, here; the melding rows are then written by
    phase, each phase's rows at once.  (Each function takes its arrays out of
    the bundles once, before its loop over the rows: numba counts a
    reference whenever an array is taken out of a tuple or handed to a
    function, which per row would cost more than the work.)"""
    legal, legal_written, hands, n_melds = masks.legal, masks.legal_written, cards.hands, table.n_melds
    phase, current, pend, in_contract, owed, contract_done = (
        turn.phase,
        turn.current,
        turn.pend,
        turn.in_contract,
        turn.owed,
        turn.contract_done,
    )
    by_phase = np.empty((4, rows.shape[0]), np.int64)  # free melding, contract meld, pending set, pending run
    count = np.zeros(4, np.int64)
    for i in range(rows.shape[0]):
        b = rows[i]
        end = legal_extent(n_melds[b])
        legal[b, : max(end, legal_written[b])] = False
        legal_written[b] = end
        if phase[b] == DRAW:
            legal[b, TAKE] = True
            legal[b, PUSH] = True
        if phase[b] != MELD:
            continue
        seat = max(current[b], 0)
        if pend[b] == NO_MELD and not in_contract[b] and owed[b] < 0:  # a discard ends the turn
            for t in range(NUM_TYPES):
                if hands[b, seat, t] > 0:
                    legal[b, DISCARD0 + t] = True
        if pend[b] == NO_MELD:
            group = 0 if contract_done[b, seat] else 1
        else:
            group = 2 if pend[b] == SET else 3
        by_phase[group, count[group]] = b
        count[group] += 1
    free_melding_masks(by_phase[0, : count[0]], cards, table, turn, legal)
    contract_meld_masks(by_phase[1, : count[1]], config, cards, turn, legal)
    pending_set_masks(by_phase[2, : count[2]], config, cards, table, turn, legal)
    pending_run_masks(by_phase[3, : count[3]], config, cards, table, turn, legal)


@kernel
def read_hand(hands, b, seat, counts, suit_counts, rank_counts):
    """The hand of ``seat`` in game ``b``, per card type (``counts``), per
    (suit, rank) and per rank (its naturals); its number of wilds."""
    wilds = 0
    for t in range(NUM_TYPES):
        counts[t] = hands[b, seat, t]
        if IS_WILD[t]:
            wilds += counts[t]
    for r in range(13):
        rank_counts[r] = 0
        for t in range(4):
            suit_counts[t, r] = counts[t * 13 + r]
            rank_counts[r] += suit_counts[t, r]
    return wilds


# ------------------------------------------------------------------ between melds
@kernel
def free_melding_masks(rows, cards, table, turn, legal):
    """Contract laid, nothing pending: any set (a natural and 3 cards) or run
    that can be completed, and the lay-offs and swaps on the table."""
    hands, current, owed = cards.hands, turn.current, turn.owed
    counts, suit_counts, rank_counts = (
        np.zeros(NUM_TYPES, np.int64),
        np.zeros((4, 13), np.int64),
        np.zeros(13, np.int64),
    )
    cover, naturals = (
        np.zeros((4, MAX_WINDOWS), np.int64),
        np.zeros((4, MAX_WINDOWS), np.int64),
    )  # (unused: no run follows)
    full_demand = np.ones(13, np.int64)  # every rank: the unfilled positions of a 13-card run
    for i in range(rows.shape[0]):
        b = rows[i]
        wilds = read_hand(hands, b, current[b], counts, suit_counts, rank_counts)
        for rank in range(1, 13):
            if rank_counts[rank] >= 1 and rank_counts[rank] + wilds >= 3:
                legal[b, SET0 + rank - 1] = True
        declare_runs(legal[b], suit_counts, cover, naturals, wilds, 3, 0, 3)
        if owed[b] >= 0 and wild_targets(table, b) == 0:  # a full run must take the owed wild itself
            full_demand[:] = 1
            for s in range(4):
                for lo in range(2):
                    at = RUN0 + s * NUM_SPANS + SPAN_INDEX[lo, lo + 12]
                    if legal[b, at] and not owed_run_ok(suit_counts, wilds, s, full_demand, False, owed[b]):
                        legal[b, at] = False
        table_moves_mask(legal[b], b, counts, owed[b], table)


@kernel
def contract_meld_masks(rows, config, cards, turn, legal):
    """Contract not laid, nothing pending: the declares of the next contract
    meld that leave the whole contract completable -- sets first (round 2: a
    set then a run of 4), then runs."""
    hands, current, rounds, round_i, in_contract, contract_idx = (
        cards.hands,
        turn.current,
        config.rounds,
        turn.round_i,
        turn.in_contract,
        turn.contract_idx,
    )
    counts, suit_counts, rank_counts = (
        np.zeros(NUM_TYPES, np.int64),
        np.zeros((4, 13), np.int64),
        np.zeros(13, np.int64),
    )
    cover, naturals = np.zeros((4, MAX_WINDOWS), np.int64), np.zeros((4, MAX_WINDOWS), np.int64)
    for i in range(rows.shape[0]):
        b = rows[i]
        wilds = read_hand(hands, b, current[b], counts, suit_counts, rank_counts)
        round_number = rounds[round_i[b]]
        index = contract_idx[b] if in_contract[b] else 0  # the next contract meld
        melds_after = CONTRACT_LENGTH[round_number] - index - 1
        run_length = CONTRACT_RUN_LENGTH[round_number]
        if CONTRACT_KINDS[round_number, min(index, 2)] == SET:
            mixed = round_number == 2  # the set is followed by a run
            if mixed:
                window_counts(suit_counts, 4, cover, naturals)
            for rank in range(1, 13):
                if mixed:
                    ok = mixed_feasible(suit_counts, rank_counts, wilds, rank, 3, False, cover, naturals)
                else:
                    ok = sets_feasible(rank_counts, wilds, rank, 3, False, melds_after)
                if ok:
                    legal[b, SET0 + rank - 1] = True
        else:
            if melds_after:
                window_counts(suit_counts, run_length, cover, naturals)
            declare_runs(legal[b], suit_counts, cover, naturals, wilds, run_length, melds_after, run_length)


@kernel
def declare_runs(row, suit_counts, cover, naturals, wilds, min_length, more_runs, run_length):
    """The run declares of mask ``row``: a run of each suit over each span of
    ``min_length``+ positions that can be completed, with ``more_runs`` whole
    runs of ``run_length`` after it (:func:`melds.runs_feasible` of the span;
    ``cover``/``naturals`` hold the hand's window counts for ``run_length``
    when ``more_runs``).

    A span must hold a natural and have no more uncovered positions than
    ``wilds`` (runs_feasible's conditions for the run itself, exactly its
    answer when ``more_runs`` is 0).  Both only improve / worsen as a span
    grows upwards, so the spans from each ``lo`` are walked until the gaps
    exceed the wilds: sparse hands visit a few spans, not all 77 per suit.
    The walk keeps the span's counts, and the best window of another suit is
    found once per suit, so a span costs the same-suit check only when a run
    in another suit does not fit."""
    for s in range(4):
        other = -BIG
        rank_masks = (0, 0, 0)
        if more_runs:
            other = best_other_cover(s, run_length, cover, naturals)
            rank_masks = suit_rank_masks(suit_counts, s)
        for lo in range(NUM_POSITIONS):
            gaps = 0
            held = 0
            for hi in range(lo, min(lo + 13, NUM_POSITIONS)):  # 13 positions at most (no wrap-around)
                r = POSITION_RANK[hi]
                held += suit_counts[s, r]
                if r == 0 or suit_counts[s, r] == 0:  # (a 2 covers as a wild, not as a natural)
                    gaps += 1
                    if gaps > wilds:
                        break
                length = hi - lo + 1
                if length < min_length or held < 1:
                    continue
                ok = more_runs == 0 or (other >= 0 and gaps + run_length - other <= wilds)
                if not ok:
                    pending = (SPAN_RANKS[lo, hi], length, length - gaps, held, False)
                    ok = second_run_same_suit(wilds, pending, run_length, cover[s], naturals[s], rank_masks)
                if ok:
                    row[RUN0 + s * NUM_SPANS + SPAN_INDEX[lo, hi]] = True


# ------------------------------------------------------------------ lay-offs and swaps on the table
@kernel
def table_moves_mask(row, b, counts, owed, table):
    """Legal lay-offs and swaps on the finished table melds of game ``b``
    (hand ``counts`` (53,), owed wild ``owed``) in its mask ``row``.  A meld
    is only looked into when the hand holds a card it could take (a natural
    of a set's rank, a natural of a run's suit in or next to its span, a
    wild): a hand holds few cards, the table many melds."""
    kinds, ranks, suits, los, his = table.meld_kind, table.meld_rank, table.meld_suit, table.meld_lo, table.meld_hi
    meld_pos, meld_counts, n_melds = table.meld_pos, table.meld_counts, table.n_melds[b]
    targets = wild_targets(table, b)  # melds a wild can go to: a set, or a run with room
    # (the wild must have somewhere to go: a table meld, or else a new meld
    # from the hand, checked per swap in run_swaps -- sets are targets)
    can_swap = owed < 0
    wilds_held = 0
    for w in range(5):
        wilds_held += counts[WILD_TYPES[w]]
    suit_held = np.zeros(4, np.int64)  # per suit, the ranks held (mask)
    for t in range(4):
        for r in range(13):
            if counts[t * 13 + r] > 0:
                suit_held[t] |= 1 << r
    for m in range(n_melds):
        base = MELD0 + MELD_BLOCK * m  # the block of actions on meld m
        if kinds[b, m] == SET:
            rank = np.int64(ranks[b, m])
            naturals_held = counts[rank] + counts[13 + rank] + counts[26 + rank] + counts[39 + rank]
            if naturals_held or wilds_held:
                set_moves(row, base, counts, wilds_held, can_swap and naturals_held > 0, rank, meld_counts, b, m)
            continue
        span = (np.int64(suits[b, m]), np.int64(los[b, m]), np.int64(his[b, m]))
        # a lay-off filling the last run with room (no set) is not offered
        # while a wild is owed, unless it is that wild or the hand after it
        # can still make a new meld (which can then take the wild)
        filling = owed >= 0 and targets == 1 and his[b, m] - los[b, m] + 2 == 13
        if his[b, m] - los[b, m] + 1 < 13:
            run_lay_offs(row, base, counts, wilds_held, span, owed, filling)
        if can_swap and suit_held[span[0]] & SPAN_RANKS[span[1], span[2]]:  # a natural of some position is held
            run_swaps(row, base, counts, span, meld_pos, meld_counts, b, m, targets == 0)


@kernel
def set_moves(row, base, counts, wilds_held, can_swap, rank, meld_counts, b, m):
    """Set ``m`` of game ``b``, of ``rank``, its actions from ``base``:
    lay-offs, and swaps for the wilds standing in it."""
    wilds_in = 0  # wilds standing in the meld (what a swap takes)
    if can_swap:
        for w in range(5):
            wilds_in += meld_counts[b, m, WILD_TYPES[w]]
    for x in range(4):  # a natural of the rank in a suit
        if counts[x * 13 + rank] > 0:
            row[base + LAY_SET + x] = True
            if wilds_in:
                for w in range(5):
                    if meld_counts[b, m, WILD_TYPES[w]] > 0:
                        row[base + SWAP_SET + 5 * x + w] = True
    if wilds_held:
        for w in range(5):
            if counts[WILD_TYPES[w]] > 0:
                row[base + LAY_SET + 4 + w] = True


@kernel
def run_lay_offs(row, base, counts, wilds_held, span, owed, filling):
    """A run over ``span`` = (suit, lo, hi), its actions from ``base``:
    lay-offs at either end; only the owed wild when this lay-off would be
    ``filling`` the last meld that could take it."""
    suit, lo, hi = span
    for end in range(2):
        position = lo - 1 if end == 0 else hi + 1
        if position < 0 or position > 13:
            continue
        at = base + (LAY_LOW if end == 0 else LAY_HIGH)
        natural = NATURAL_TYPE[suit, position]
        if counts[natural] > 0 and (not filling or natural == owed or hand_can_meld(counts, natural, -1)):
            row[at] = True
        if wilds_held:
            for w in range(5):
                card = WILD_TYPES[w]
                own_two = position == 1 and card == suit * 13  # a 2 in its own place is the natural
                if (
                    counts[card] > 0
                    and not own_two
                    and (not filling or card == owed or hand_can_meld(counts, card, -1))
                ):
                    row[at + 1 + w] = True


@kernel
def run_swaps(row, base, counts, span, meld_pos, meld_counts, b, m, need_meld):
    """Run ``m`` of game ``b`` over ``span`` = (suit, lo, hi), its actions
    from ``base``: give a position's natural, take the wild standing there;
    when ``need_meld`` (no table meld can take a wild), only if the hand
    after the swap can make a new meld."""
    suit, lo, hi = span
    wilds_in = 0
    for w in range(5):
        wilds_in += meld_counts[b, m, WILD_TYPES[w]]
    if wilds_in:
        for p in range(lo, hi + 1):
            card = np.int64(meld_pos[b, m, p])
            natural = NATURAL_TYPE[suit, p]
            swappable = card >= 0 and IS_WILD[card] and not (p == 1 and card == suit * 13) and counts[natural] > 0
            if swappable and (not need_meld or hand_can_meld(counts, natural, card)):
                row[base + SWAP_RUN + p] = True


@kernel
def wild_targets(table, b):
    """How many finished melds of game ``b`` can take a wild: sets, and runs
    shorter than 13 cards."""
    kinds, los, his = table.meld_kind, table.meld_lo, table.meld_hi
    targets = 0
    for m in range(table.n_melds[b]):
        if kinds[b, m] == SET or his[b, m] - los[b, m] + 1 < 13:
            targets += 1
    return targets


@kernel
def held_after(counts, t, remove, add):
    """Cards of type ``t`` in hand ``counts`` less one ``remove`` plus one ``add``."""
    return counts[t] - (1 if t == remove else 0) + (1 if t == add else 0)


@kernel
def hand_can_meld(counts, remove, add):
    """Can the hand ``counts`` (53,), less a card of type ``remove`` and plus
    one of type ``add`` (-1: none), declare a new meld it can finish -- a set
    (a natural and 3 cards), or a run (some 3-position window holding a card
    with no more gaps than wilds, as :func:`declare_runs` counts them; a
    longer run holds such a window)?  A finished new meld (a set, or a run of
    3..12 cards) can take a wild, so an owed wild can then be placed."""
    wilds = 0
    for w in range(5):
        wilds += held_after(counts, WILD_TYPES[w], remove, add)
    for rank in range(1, 13):
        n = 0
        for x in range(4):
            n += held_after(counts, x * 13 + rank, remove, add)
        if n >= 1 and n + wilds >= 3:
            return True
    for s in range(4):
        for lo in range(NUM_POSITIONS - 2):
            held, gaps = 0, 0
            for p in range(lo, lo + 3):
                h = held_after(counts, NATURAL_TYPE[s, p], remove, add)
                held += h
                if POSITION_RANK[p] == 0 or h == 0:
                    gaps += 1
            if held >= 1 and gaps <= wilds:
                return True
    return False


@kernel
def owed_run_ok(suit_counts, wilds, suit, demand, has_natural, owed):
    """Can a pending run of ``suit`` whose unfilled positions have rank
    ``demand`` (13,) be finished with a card of the owed wild type ``owed``
    among them (the hand, ``suit_counts``/``wilds``, holding it)?  Only asked
    when no table meld can take a wild and the run will be full (13 cards).
    ``suit_counts`` and ``demand`` are restored on return."""
    if owed < 52:
        suit_counts[owed // 13, owed % 13] -= 1
    ok = False
    for r in range(13):
        if ok or demand[r] == 0:
            continue
        demand[r] -= 1
        natural = has_natural or (r == 0 and owed == suit * 13)  # the suit's 2 in its own place
        ok = runs_feasible(suit_counts, wilds - 1, suit, demand, natural, 0, 0, suit_counts, suit_counts)
        demand[r] += 1
    if owed < 52:
        suit_counts[owed // 13, owed % 13] += 1
    return ok


# ------------------------------------------------------------------ a pending meld
@kernel
def pending_set_masks(rows, config, cards, table, turn, legal):
    """A pending set: each of the 9 cards that may be added if the hand after
    it can still finish the set and the rest of the contract (the whole sets
    after it, or round 2's run of 4); "end set" at 3+ cards."""
    hands, current, rounds, round_i, n_melds, meld_rank, meld_len = (
        cards.hands,
        turn.current,
        config.rounds,
        turn.round_i,
        table.n_melds,
        table.meld_rank,
        table.meld_len,
    )
    pend_nat, in_contract, contract_idx = turn.pend_nat, turn.in_contract, turn.contract_idx
    counts, suit_counts, rank_counts = (
        np.zeros(NUM_TYPES, np.int64),
        np.zeros((4, 13), np.int64),
        np.zeros(13, np.int64),
    )
    cover, naturals = np.zeros((4, MAX_WINDOWS), np.int64), np.zeros((4, MAX_WINDOWS), np.int64)
    for i in range(rows.shape[0]):
        b = rows[i]
        wilds = read_hand(hands, b, current[b], counts, suit_counts, rank_counts)
        round_number = rounds[round_i[b]]
        whole_sets = CONTRACT_LENGTH[round_number] - contract_idx[b] - 1 if in_contract[b] else 0
        mixed = in_contract[b] and round_number == 2
        rank, count = np.int64(meld_rank[b, n_melds[b]]), np.int64(meld_len[b, n_melds[b]])
        missing = max(0, 3 - (count + 1))
        for x in range(9):
            card = x * 13 + rank if x < 4 else WILD_TYPES[x - 4]
            if counts[card] <= 0 or (x >= 4 and count == 0):  # the first card of a set is a natural
                continue
            natural_after = pend_nat[b] or x < 4
            wilds_after = wilds if x < 4 else wilds - 1
            if x < 4:
                rank_counts[rank] -= 1
            if mixed:
                if card < 52:
                    suit_counts[card // 13, card % 13] -= 1
                window_counts(suit_counts, 4, cover, naturals)
                ok = mixed_feasible(
                    suit_counts, rank_counts, wilds_after, rank, missing, natural_after, cover, naturals
                )
                if card < 52:
                    suit_counts[card // 13, card % 13] += 1
            else:
                ok = sets_feasible(rank_counts, wilds_after, rank, missing, natural_after, whole_sets)
            if x < 4:
                rank_counts[rank] += 1
            if ok:
                legal[b, ADD0 + x] = True
        if count >= 3:
            legal[b, END_SET] = True


@kernel
def pending_run_masks(rows, config, cards, table, turn, legal):
    """A pending run: its next position filled by its natural or a wild, if
    the hand after it can still finish the run and the rest of the contract
    (the whole runs after it)."""
    hands, current, rounds, round_i, n_melds, meld_suit, meld_hi = (
        cards.hands,
        turn.current,
        config.rounds,
        turn.round_i,
        table.n_melds,
        table.meld_suit,
        table.meld_hi,
    )
    pend_nat, pend_next, in_contract, contract_idx = turn.pend_nat, turn.pend_next, turn.in_contract, turn.contract_idx
    owed, meld_lo = turn.owed, table.meld_lo
    counts, suit_counts, rank_counts = (
        np.zeros(NUM_TYPES, np.int64),
        np.zeros((4, 13), np.int64),
        np.zeros(13, np.int64),
    )
    demand, cover, naturals = (
        np.zeros(13, np.int64),
        np.zeros((4, MAX_WINDOWS), np.int64),
        np.zeros((4, MAX_WINDOWS), np.int64),
    )
    for i in range(rows.shape[0]):
        b = rows[i]
        wilds = read_hand(hands, b, current[b], counts, suit_counts, rank_counts)
        round_number = rounds[round_i[b]]
        more_runs = CONTRACT_LENGTH[round_number] - contract_idx[b] - 1 if in_contract[b] else 0
        run_length = CONTRACT_RUN_LENGTH[round_number]
        suit, position = np.int64(meld_suit[b, n_melds[b]]), pend_next[b]
        full = meld_hi[b, n_melds[b]] - meld_lo[b, n_melds[b]] + 1 == 13
        owes = owed[b] >= 0 and full and wild_targets(table, b) == 0  # the full run must take the owed wild
        demand[:] = 0
        for q in range(
            position + 1, np.int64(meld_hi[b, n_melds[b]]) + 1
        ):  # the positions still to fill after this one
            demand[POSITION_RANK[q]] += 1
        for x in range(6):
            card = NATURAL_TYPE[suit, position] if x == 0 else WILD_TYPES[x - 1]
            if counts[card] <= 0 or (x >= 1 and position == 1 and card == suit * 13):  # a 2 in its place is "nat"
                continue
            wilds_after = wilds - 1 if IS_WILD[card] else wilds
            if card < 52:
                suit_counts[card // 13, card % 13] -= 1
            if more_runs:
                window_counts(suit_counts, run_length, cover, naturals)
            natural_after = pend_nat[b] or x == 0
            ok = runs_feasible(
                suit_counts, wilds_after, suit, demand, natural_after, more_runs, run_length, cover, naturals
            )
            if ok and owes and card != owed[b]:
                ok = owed_run_ok(suit_counts, wilds_after, suit, demand, natural_after, owed[b])
            if card < 52:
                suit_counts[card // 13, card % 13] += 1
            if ok:
                legal[b, FILL0 + x] = True
