"""Push: can the seat to act still finish what it started this turn?

The rules offer a declare, an add or a fill only if the pending meld and
the rest of the contract can still be completed from the hand after it,
and a swap only if the wild taken can be used (``push/legal.py``).  So a
seat seen half-way through a meld, a contract or an owed wild holds a hand
that can finish them -- which a sampled hand must too.  This asks the
rules' own feasibility searches (:mod:`cardenvs.games.push.melds`) the question
they answered when the seat last acted: with the hand it holds now, can the
pending meld be finished with the contract's remaining melds after it, and
can an owed wild still go to the table.  (The legal mask alone does not
say: "end set" is offered at three cards whatever the rest of the contract
needs, and lay-offs while a wild is owed whatever the wild can still do.)
"""

from __future__ import annotations

import numpy as np

from ...core.jit import kernel
from .legal import hand_can_meld, owed_run_ok, read_hand, wild_targets
from .melds import mixed_feasible, runs_feasible, sets_feasible, window_counts
from .tables import (
    CONTRACT_LENGTH,
    CONTRACT_RUN_LENGTH,
    MAX_WINDOWS,
    MELD,
    NUM_TYPES,
    POSITION_RANK,
    RUN,
    SET,
    Cards,
    Config,
    Table,
    Turn,
)


@kernel
def can_finish(rows, config, cards, table, turn, ok):
    """``ok[i]``: the seat to act in game ``rows[i]`` can finish its pending
    meld (and its contract, if it is laying one) and place its owed wild.
    Nothing pending, nothing owed: True.  Between two contract melds the
    next declare decides, which the legal mask says.  (The bundles come as
    plain tuples: see ``push.tables.plain``.)"""
    config, cards, table, turn = Config(*config), Cards(*cards), Table(*table), Turn(*turn)
    counts, suit_counts, rank_counts = (
        np.zeros(NUM_TYPES, np.int64),
        np.zeros((4, 13), np.int64),
        np.zeros(13, np.int64),
    )
    cover, naturals = np.zeros((4, MAX_WINDOWS), np.int64), np.zeros((4, MAX_WINDOWS), np.int64)
    demand = np.zeros(13, np.int64)
    for i in range(rows.shape[0]):
        b = rows[i]
        ok[i] = True
        if turn.phase[b] != MELD or turn.done[b]:
            continue
        wilds = read_hand(cards.hands, b, turn.current[b], counts, suit_counts, rank_counts)
        round_number = config.rounds[turn.round_i[b]]
        after = CONTRACT_LENGTH[round_number] - turn.contract_idx[b] - 1 if turn.in_contract[b] else 0
        m = table.n_melds[b]
        if turn.pend[b] == SET:
            rank, missing = np.int64(table.meld_rank[b, m]), max(0, 3 - np.int64(table.meld_len[b, m]))
            if turn.in_contract[b] and round_number == 2:  # the set, then a run of 4
                window_counts(suit_counts, 4, cover, naturals)
                ok[i] = mixed_feasible(
                    suit_counts, rank_counts, wilds, rank, missing, turn.pend_nat[b], cover, naturals
                )
            else:
                ok[i] = sets_feasible(rank_counts, wilds, rank, missing, turn.pend_nat[b], after)
        elif turn.pend[b] == RUN:
            suit, run_length = np.int64(table.meld_suit[b, m]), CONTRACT_RUN_LENGTH[round_number]
            demand[:] = 0
            for q in range(turn.pend_next[b], np.int64(table.meld_hi[b, m]) + 1):
                demand[POSITION_RANK[q]] += 1
            if after:
                window_counts(suit_counts, run_length, cover, naturals)
            ok[i] = runs_feasible(
                suit_counts, wilds, suit, demand, turn.pend_nat[b], after, run_length, cover, naturals
            )
            full = table.meld_hi[b, m] - table.meld_lo[b, m] + 1 == 13
            if ok[i] and turn.owed[b] >= 0 and full and wild_targets(table, b) == 0:
                ok[i] = owed_run_ok(suit_counts, wilds, suit, demand, turn.pend_nat[b], turn.owed[b])
        elif turn.owed[b] >= 0:  # nothing pending: a table meld or a new meld must take the wild
            ok[i] = wild_targets(table, b) > 0 or hand_can_meld(counts, -1, -1)
