"""Push: the observation (what one seat legitimately knows) as data --
:data:`LAYOUT`, from which every offset and bound below is derived -- and
its writer kernels.

The observation is one int16 array (``PushRules.obs_dtype``; int32 only if
``max_turns`` exceeds int16): every entry is a one-hot, a count, a size or a
raw score (at most 5 x 960 points), all integers.  Seats are *relative* to
the viewer: 0 = the viewer, 1 = the next player clockwise (the one a push
goes to), 2 = the partner, 3 = the player on the right.  Card blocks use the
53 card types ``2C 3C .. AC 2D .. AS JK`` (``suit * 13 + rank``, joker
last).  Run positions are 0 = ace low, 1 = two, .., 12 = king, 13 = ace
high.  Never encoded: other hands, the stock order.

Table meld slots: apart from its owner (relative to the viewer, written by
:func:`write_melds`) a slot's block depends only on the meld, so the state
keeps every slot's block in ``state.meld_obs`` (B, 36, 132) int8:
:func:`encode_meld_block` rewrites a meld's block whenever the meld changes
(the action kernels call it), and observing copies it.  Each kept block
carries a *stamp* (``state.meld_stamp``): 0 for an empty slot, else a number
drawn from the state's own counter (``state.outputs.stamp_clock``, see
:mod:`cardenvs.games.push.outputs`) each time the block is rewritten.  Equal stamps
in one state's counter mean equal blocks, so a recycled output array's
record notes, per row, the viewer and the stamp of each slot written there,
and a slot whose stamp is unchanged is skipped (or only has its owner moved
when the viewer changed): most of a 40 MB batch is not rewritten.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...core.jit import kernel
from ...core.layout import Field, Layout, left_before, left_field
from .tables import (
    DONE,
    NATURAL_TYPE,
    NUM_MELDS,
    NUM_POSITIONS,
    NUM_TYPES,
    PLAIN_MELD_BLOCKS,
    PLAIN_TABLE,
    RUN,
    WILD_INDEX,
    WILD_TYPES,
    Config,
    MeldBlocks,
    Table,
    plain,
)


class Seen(NamedTuple):
    """The state arrays an observation reads (see ``tables.Cards``, ``Turn``,
    ``Table``, ``Scores``, ``MeldBlocks`` for their meaning)."""

    hands: np.ndarray
    held: np.ndarray
    pile: np.ndarray
    pile_size: np.ndarray
    pile_counts: np.ndarray
    stock_size: np.ndarray
    contract_done: np.ndarray
    scores: np.ndarray
    round_i: np.ndarray
    phase: np.ndarray
    in_contract: np.ndarray
    contract_idx: np.ndarray
    pend: np.ndarray
    owed: np.ndarray
    dealer: np.ndarray
    turns: np.ndarray
    pend_next: np.ndarray
    n_melds: np.ndarray
    meld_owner: np.ndarray
    meld_obs: np.ndarray
    meld_stamp: np.ndarray


PLAIN_SEEN = plain(Seen)

SEAT = Layout(
    [
        Field("hand_size", 1, "cards in its hand", high=108, counts="hands"),
        Field("contract_laid", 1, "its contract laid this round (0/1)"),
        Field("team_score", 1, "its team's total score (raw penalty points)", high=np.inf),
    ]
)
RUN_POSITION = Layout(
    [
        Field("natural", 1, "its natural card (a 2 in its own place too)"),
        Field("wild", 5, "or the wild standing there: 2C 2D 2H 2S JK (so a wild's meaning is its position)"),
    ]
)
SLOT = Layout(
    [
        Field("used", 1, "slot used"),
        Field("pending", 1, "meld still being built (pending)"),
        Field("owner", 4, "owner (relative seat)"),
        Field("kind", 2, "kind: set, run"),
        Field("set_rank", 13, "set rank (one-hot over 2..A; never 2)"),
        Field("run_suit", 4, "run suit C D H S"),
        Field("run_span", 14, "run positions covered (declared span while pending)"),
        Field("run_positions", 0, "run position p (Alo, 2..K, Ahi): what stands there", count=14, parts=RUN_POSITION),
        Field(
            "set_cards",
            9,
            "set cards: naturals of the rank in C D H S, wilds 2C 2D 2H 2S JK (counts; set wilds stand for the rank)",
            high=4,
        ),
    ]
)
LAYOUT = Layout(
    [
        Field("hand", NUM_TYPES, "own hand (count per card type)", high=4),
        Field("discard_top", NUM_TYPES, "top card of the discard pile (one-hot; empty pile: zeros)"),
        Field(
            "discard_pile",
            NUM_TYPES,
            "the discard pile's cards (count per type; every card in it was seen going in)",
            high=4,
        ),
        Field("stock_size", 1, "stock size (cards)", high=108, counts="stock"),
        Field("seats", 0, "per relative seat (0 self, 1 left, 2 partner, 3 right)", count=4, parts=SEAT),
        Field("round", 5, "round number 1..5 (one-hot)"),
        Field("phase", 2, "turn phase: draw, meld"),
        Field("in_contract", 1, "a contract is being laid this turn"),
        Field("contract_melds", 1, "melds of that contract finished so far", high=3),
        Field("pending", 3, "pending meld being built: none, set, run"),
        Field("owed_wild", 5, "owed wild (swapped out, must be used): 2C 2D 2H 2S JK"),
        Field("dealer", 4, "dealer (relative seat, one-hot)"),
        Field("turn", 1, "turns played this round", high=np.inf),
        Field("pending_next", NUM_POSITIONS, "next position of the pending run (one-hot)"),
        Field(
            "melds",
            0,
            "table meld slots in table order (the pending meld, if any, is the slot after the finished ones)",
            count=NUM_MELDS,
            parts=SLOT,
        ),
        left_field("turns_left", "turns", "max_turns", ends="the round (the last round: the episode)"),
    ]
)
OBS_SIZE = LAYOUT.size  # 4961
OBS_LOW, OBS_HIGH = LAYOUT.bounds()

# The offsets the writer kernels use, all read from the layout.
HAND = LAYOUT["hand"].offset
TOP = LAYOUT["discard_top"].offset
PILE = LAYOUT["discard_pile"].offset
STOCK = LAYOUT["stock_size"].offset
SEATS = LAYOUT["seats"].offset
SEAT_SIZE = SEAT.size
SEAT_HAND, SEAT_CONTRACT, SEAT_SCORE = (SEAT[name].offset for name in ("hand_size", "contract_laid", "team_score"))
ROUND = LAYOUT["round"].offset
PHASE = LAYOUT["phase"].offset
IN_CONTRACT = LAYOUT["in_contract"].offset
CONTRACT_IDX = LAYOUT["contract_melds"].offset
PEND = LAYOUT["pending"].offset
OWED = LAYOUT["owed_wild"].offset
DEALER = LAYOUT["dealer"].offset
TURN = LAYOUT["turn"].offset
PEND_NEXT = LAYOUT["pending_next"].offset
MELDS = LAYOUT["melds"].offset
TURNS_LEFT = LAYOUT["turns_left"].offset
SLOT_SIZE = SLOT.size  # 132
USED, PENDING, OWNER, KIND, SET_RANK, RUN_SUIT, SPAN, POS, SET_CARDS = (
    SLOT[name].offset
    for name in ("used", "pending", "owner", "kind", "set_rank", "run_suit", "run_span", "run_positions", "set_cards")
)
POSITION_SIZE = RUN_POSITION.size  # 6: natural, then the five wilds

# A recycled output row's record (see outputs.py): the viewer it was
# written for, how many slots were in use, then each slot's stamp.
RECORD_VIEWER, RECORD_USED, RECORD_STAMPS = 0, 1, 2
RECORD_SIZE = RECORD_STAMPS + NUM_MELDS


def encode(state, seats: np.ndarray, rows: np.ndarray | None, config, dtype) -> np.ndarray:
    """Observation ``(len(seats), OBS_SIZE)`` (``dtype``) of the games in
    ``rows`` (default: every row), row i seen by seat ``seats[i]``.  A large
    batch is one of the state's recycled arrays, handed out read-only."""
    seats = np.asarray(seats, np.int64)
    if rows is not None:
        rows = np.asarray(rows, np.int64)
    else:  # every row (made once per state)
        rows = state.every_row() if len(seats) == state.batch else np.arange(len(seats))
    out, record = state.outputs.recycled_rows((len(rows), OBS_SIZE), dtype, "observation", -1, (RECORD_SIZE,))
    encode_into(state, seats, rows, out, record, config)
    return state.outputs.hand_out(out)


def encode_into(state, seats: np.ndarray, rows: np.ndarray, out: np.ndarray, record: np.ndarray, config) -> None:
    """Write the observations of :func:`encode` into ``out``, whose rows
    ``record`` describes (what :func:`encode_rows` left there; -1: unknown)."""
    seen = state.bundle(PLAIN_SEEN)
    state.shards.map(  # (row shards in threads: see cardenvs.core.shards)
        len(rows), lambda lo, hi: encode_rows(out[lo:hi], record[lo:hi], rows[lo:hi], seats[lo:hi], config, seen)
    )


@kernel
def encode_rows(out, record, rows, seats, config, seen):
    """Write ``out[i]``: game ``rows[i]`` seen by seat ``seats[i]`` (a negative
    seat, in a finished game, reads as seat 0).  ``record[i]`` is what row i
    of ``out`` holds (viewer, slots in use, stamps; -1 throughout: unknown),
    updated here: the head is written in full, the meld slots only where
    their stamps changed.  (The bundles come as plain tuples: see
    ``tables.plain``.)"""
    config, seen = Config(*config), Seen(*seen)
    write_heads(out, rows, seats, config, seen)
    write_meld_slots(out, record, rows, seats, seen)


@kernel
def write_heads(out, rows, seats, config, seen):
    """Everything but the meld slots."""
    for i in range(rows.shape[0]):
        obs = out[i]
        b = rows[i]
        seat = max(seats[i], 0)
        obs[:MELDS] = 0
        for t in range(NUM_TYPES):
            obs[HAND + t] = seen.hands[b, seat, t]
            obs[PILE + t] = seen.pile_counts[b, t]
        if seen.pile_size[b] > 0:
            obs[TOP + seen.pile[b, seen.pile_size[b] - 1]] = 1
        obs[STOCK] = seen.stock_size[b]
        for k in range(4):  # relative seat k
            other = (seat + k) % 4
            at = SEATS + SEAT_SIZE * k
            obs[at + SEAT_HAND] = seen.held[b, other]
            obs[at + SEAT_CONTRACT] = seen.contract_done[b, other]
            obs[at + SEAT_SCORE] = seen.scores[b, other % 2]  # (teams: seats 0 and 2, seats 1 and 3)
        obs[ROUND + config.rounds[seen.round_i[b]] - 1] = 1
        if seen.phase[b] != DONE:
            obs[PHASE + seen.phase[b]] = 1
        obs[IN_CONTRACT] = seen.in_contract[b]
        obs[CONTRACT_IDX] = seen.contract_idx[b] if seen.in_contract[b] else 0
        obs[PEND + seen.pend[b]] = 1
        if seen.owed[b] >= 0:
            obs[OWED + WILD_INDEX[seen.owed[b]] - 1] = 1
        obs[DEALER + (seen.dealer[b] - seat) % 4] = 1
        obs[TURN] = seen.turns[b]
        if seen.pend[b] == RUN:
            obs[PEND_NEXT + min(seen.pend_next[b], 13)] = 1
        obs[TURNS_LEFT] = left_before(config.max_turns, seen.turns[b])


@kernel
def write_meld_slots(out, record, rows, seats, seen):
    """The meld slots: the kept slot blocks plus the owner (relative to the
    viewer, so the one part written here), each only where the row's
    ``record`` says it changed.  Slots fill in order: past n_melds + 1 every
    slot is empty (stamp 0), in the state and in the record."""
    for i in range(rows.shape[0]):
        obs = out[i]
        row_record = record[i]
        b = rows[i]
        seat = max(seats[i], 0)
        used = min(np.int64(seen.n_melds[b]) + 1, NUM_MELDS)
        old_seat = row_record[RECORD_VIEWER]
        top = NUM_MELDS if old_seat < 0 else max(used, row_record[RECORD_USED])
        for m in range(top):
            at = MELDS + m * SLOT_SIZE
            stamp = seen.meld_stamp[b, m]
            owner = seen.meld_owner[b, m]
            if stamp != row_record[RECORD_STAMPS + m]:
                if stamp == 0:
                    obs[at : at + SLOT_SIZE] = 0
                else:
                    for f in range(SLOT_SIZE):
                        obs[at + f] = seen.meld_obs[b, m, f]
                    obs[at + OWNER + (owner - seat) % 4] = 1
                row_record[RECORD_STAMPS + m] = stamp
            elif stamp != 0 and seat != old_seat:  # same meld, another viewer
                obs[at + OWNER + (owner - old_seat) % 4] = 0
                obs[at + OWNER + (owner - seat) % 4] = 1
        row_record[RECORD_VIEWER] = seat
        row_record[RECORD_USED] = used


# ------------------------------------------------------------------ the kept meld blocks
def refresh_slots(state, rows: np.ndarray, slots: np.ndarray) -> None:
    """Re-encode meld slot ``slots[i]`` of game ``rows[i]`` into ``state.meld_obs``
    (all but the owner; an unused slot is all zeros), with new stamps."""
    refresh_blocks(
        state.bundle(PLAIN_MELD_BLOCKS),
        state.outputs.stamp_clock,
        np.asarray(rows, np.int64),
        np.asarray(slots, np.int64),
        state.bundle(PLAIN_TABLE),
    )


@kernel
def refresh_blocks(blocks, stamp_clock, rows, slots, table):
    """:func:`encode_meld_block` of each (``rows[i]``, ``slots[i]``)."""
    blocks, table = MeldBlocks(*blocks), Table(*table)
    for i in range(rows.shape[0]):
        encode_meld_block(blocks, stamp_clock, rows[i], slots[i], table)


@kernel
def encode_meld_block(blocks, stamp_clock, b, m, table):
    """Re-encode the kept block of meld slot ``m`` of game ``b`` from the
    meld, and stamp it: 0 if empty, else the next number of ``stamp_clock``
    (the state's own counter ``[next, step]``; a row view's steps over its
    sibling views' stamps, see ``PushState.before_shards``)."""
    block = blocks.meld_obs[b, m]
    block[:] = 0
    kind = table.meld_kind[b, m]
    if kind == 0:
        blocks.meld_stamp[b, m] = 0
        return
    blocks.meld_stamp[b, m] = stamp_clock[0]
    stamp_clock[0] += stamp_clock[1]
    block[USED] = 1
    block[PENDING] = m >= table.n_melds[b]
    block[KIND + kind - 1] = 1
    if kind == 1:  # set
        rank = np.int64(table.meld_rank[b, m])
        block[SET_RANK + rank] = 1
        for x in range(4):
            block[SET_CARDS + x] = table.meld_counts[b, m, x * 13 + rank]
        for w in range(5):
            block[SET_CARDS + 4 + w] = table.meld_counts[b, m, WILD_TYPES[w]]
    else:  # run
        suit = np.int64(table.meld_suit[b, m])
        block[RUN_SUIT + suit] = 1
        for p in range(np.int64(table.meld_lo[b, m]), np.int64(table.meld_hi[b, m]) + 1):
            block[SPAN + p] = 1
        for p in range(NUM_POSITIONS):
            card = np.int64(table.meld_pos[b, m, p])
            if card >= 0:  # natural (a 2 in its own place too), or which wild
                natural = card == NATURAL_TYPE[suit, p]
                block[POS + POSITION_SIZE * p + (0 if natural else WILD_INDEX[card])] = 1
