"""Spit: the observation (what one player can see) as data, and its writer.

:data:`LAYOUT` names, places and bounds every number (``LAYOUT.markdown()``
is the docs table); every offset the writer kernel uses is derived from it.
"Own" is the observing player, "opponent" the other one; the spit piles
keep their absolute numbers (pile P of the actions, pile 0 started by
``player_0``), so the observation carries the observer's seat.  235 numbers,
all small integers (``int16``): 13 slots of 18 (a card's code of 17 and a
count), the last slot holding the counters and phase, then the ticks left
before the ``max_ticks`` cut.

A *card code* (:data:`CARD`, shared with Speed) is 17 numbers: the rank
one-hot (``2 3 4 5 6 7 8 9 T J Q K A``) then the suit one-hot
(``C D H S``); no card (an empty pile) is all zeros.

Never encoded: a face-down stockpile card, a spit card, the order of the
piles below their tops.
"""

from __future__ import annotations

import numpy as np

from ...core.game import BatchState
from ...core.jit import kernel
from ...core.layout import Field, Layout, left_before, left_field
from .tables import NONE, PLAYING, SLAPPING, StatePack, unpack_arrays, unpack_stall, unpack_tick

# --- the card code (shared with Speed) -----------------------------------------
CARD = Layout(
    [
        Field("rank", 13, "rank one-hot: 2 3 4 5 6 7 8 9 T J Q K A"),
        Field("suit", 4, "suit one-hot: C D H S"),
    ]
)
# CARD_CODE[card id] -> the 17 numbers of a card; row 52 (no card) is zeros.
CARD_SIZE = CARD.size
CARD_CODE = np.zeros((NONE + 1, CARD_SIZE), np.int8)
CARD_CODE[np.arange(52), CARD["rank"].offset + np.arange(52) % 13] = 1
CARD_CODE[np.arange(52), CARD["suit"].offset + np.arange(52) // 13] = 1

# --- Spit ----------------------------------------------------------------------
STOCKPILE = Layout(
    [
        Field("top", 0, "the face-up top card (zeros: an empty space)", parts=CARD),
        Field("face_down", 1, "face-down cards below the top", high=4),
    ]
)
SPIT_PILE = Layout(
    [
        Field("top", 0, "the top card (zeros: no such pile)", parts=CARD),
        Field("size", 1, "cards in the pile", high=52),
    ]
)
MAX_STOCKPILES = 5  # with stockpiles=4 the fifth slots are always zeros
LAYOUT = Layout(
    [
        Field(
            "own_stockpiles",
            0,
            "own stockpiles 0..4 (stockpiles=4: the fifth all 0)",
            count=MAX_STOCKPILES,
            parts=STOCKPILE,
        ),
        Field("opponent_stockpiles", 0, "the opponent's stockpiles 0..4", count=MAX_STOCKPILES, parts=STOCKPILE),
        Field("spit_piles", 0, "spit piles 0 and 1", count=2, parts=SPIT_PILE),
        Field("own_spit_cards", 1, "own spit cards left", high=52, counts="spit_cards[+0]"),
        Field("opponent_spit_cards", 1, "the opponent's spit cards left", high=52, counts="spit_cards[+1]"),
        Field("playing", 1, "the phase is playing"),
        Field("slapping", 1, "the phase is slapping (playing and slapping both 0: game over)"),
        Field("seat", 2, "own seat one-hot"),
        left_field("stall_left", "ticks with no card played", "stall_ticks", "the stall (a stalemate: both spit)"),
        Field("padding", 11, "always 0: fills the last slot of 18 (bounded 0..1, as it always was)"),
        left_field("ticks_left", "ticks", "max_ticks"),
    ]
)
OBS_DTYPE = np.int16  # counts are at most 52, ticks left up to LEFT_MAX
OBS_LOW, OBS_HIGH = (bound.astype(np.float32) for bound in LAYOUT.bounds())

# The offsets the writer uses (module constants: compiled in).
OWN_STOCKPILES = LAYOUT["own_stockpiles"].offset
OPPONENT_STOCKPILES = LAYOUT["opponent_stockpiles"].offset
SPIT_PILES = LAYOUT["spit_piles"].offset
STOCKPILE_SIZE, FACE_DOWN = STOCKPILE.size, STOCKPILE["face_down"].offset
SPIT_PILE_SIZE, PILE_SIZE = SPIT_PILE.size, SPIT_PILE["size"].offset
OWN_SPIT_CARDS = LAYOUT["own_spit_cards"].offset
OPPONENT_SPIT_CARDS = LAYOUT["opponent_spit_cards"].offset
PLAYING_AT, SLAPPING_AT, SEAT = LAYOUT["playing"].offset, LAYOUT["slapping"].offset, LAYOUT["seat"].offset
TICKS_LEFT, STALL_LEFT = LAYOUT["ticks_left"].offset, LAYOUT["stall_left"].offset
# (the writer copies player_0's stockpiles into player_1's the other way round: two blocks of one size)
assert OPPONENT_STOCKPILES - OWN_STOCKPILES == SPIT_PILES - OPPONENT_STOCKPILES

# For readers of an observation (the rule-based agent): where the numbers are.
OWN_FACE_DOWN_AT = OWN_STOCKPILES + STOCKPILE_SIZE * np.arange(MAX_STOCKPILES) + FACE_DOWN
SPIT_PILE_SIZE_AT = SPIT_PILES + SPIT_PILE_SIZE * np.arange(2) + PILE_SIZE


def observe(
    state: BatchState,
    rows: np.ndarray | None,
    max_ticks: int | None,
    stall_ticks: int | None,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Observations ``(k, 2, 235)`` int16 of the games in ``rows`` (all if
    None); written into ``out`` if given (int16, C-contiguous)."""
    rows = state.every_row() if rows is None else np.asarray(rows, np.int64)
    if out is None:
        out = np.empty((len(rows), 2, LAYOUT.size), OBS_DTYPE)
    arrays = state.bundle(StatePack)
    limits = max_ticks or 0, stall_ticks or 0
    state.shards.map(  # (row shards in threads: see cardenvs.core.shards)
        len(rows), lambda lo, hi: write_observations(rows[lo:hi], *limits, arrays, out[lo:hi])
    )
    return out


@kernel
def write_observations(rows, max_ticks, stall_ticks, arrays, out):
    """Write every number of both players' observations of the games
    ``rows`` into ``out`` (k, 2, 235) (``arrays``: the state's pack, see
    :mod:`.tables`; a call with the 8 arrays it reads one by one cost more).
    ``max_ticks``, ``stall_ticks``: the rules' (0: none)."""
    state, ticks, stall = unpack_arrays(arrays), unpack_tick(arrays)[1], unpack_stall(arrays)
    stockpile_top, stockpile_count, centre_top = state.stockpile_top, state.stockpile_count, state.centre_top
    centre_count, spit_count, phase = state.centre_count, state.spit_count, state.phase
    size = stockpile_top.shape[2]  # stockpiles; with 4, the fifth slots show no card
    for k in range(rows.shape[0]):
        r = rows[k]
        first = out[k, 0]
        for side in range(2):  # player_0's own stockpiles, then the opponent's
            for i in range(MAX_STOCKPILES):
                at = (OWN_STOCKPILES if side == 0 else OPPONENT_STOCKPILES) + i * STOCKPILE_SIZE
                if i < size:  # the face-up top and the face-down cards below it
                    count = max(stockpile_count[r, side, i] - 1, 0)
                    _write_pile(first, at, stockpile_top[r, side, i], FACE_DOWN, count)
                else:
                    _write_pile(first, at, NONE, FACE_DOWN, 0)
        for p in range(2):
            _write_pile(first, SPIT_PILES + p * SPIT_PILE_SIZE, centre_top[r, p], PILE_SIZE, centre_count[r, p])
        # player_1 sees the same piles, its own and the opponent's the other way round: copied (much of the work)
        second = out[k, 1]
        for j in range(np.uint64(OWN_SPIT_CARDS - SPIT_PILES)):
            second[np.uint64(SPIT_PILES) + j] = first[np.uint64(SPIT_PILES) + j]
        for j in range(np.uint64(OPPONENT_STOCKPILES - OWN_STOCKPILES)):
            second[np.uint64(OWN_STOCKPILES) + j] = first[np.uint64(OPPONENT_STOCKPILES) + j]
            second[np.uint64(OPPONENT_STOCKPILES) + j] = first[np.uint64(OWN_STOCKPILES) + j]
        for viewer in range(2):
            obs = out[k, viewer]
            obs[OWN_SPIT_CARDS:] = 0
            obs[OWN_SPIT_CARDS] = np.int8(spit_count[r, viewer])
            obs[OPPONENT_SPIT_CARDS] = np.int8(spit_count[r, 1 - viewer])
            obs[PLAYING_AT] = phase[r] == PLAYING
            obs[SLAPPING_AT] = phase[r] == SLAPPING
            obs[SEAT + viewer] = 1
            obs[TICKS_LEFT] = left_before(max_ticks, ticks[r])
            obs[STALL_LEFT] = left_before(stall_ticks, stall[r]) if phase[r] == PLAYING else 0


@kernel
def _write_pile(obs, at, card, count_at, count):
    """One pile at ``obs[at:]``: the code of ``card`` (no card: zeros), then
    ``count`` at ``at + count_at``.  The offsets are unsigned (see
    :mod:`.legal`: no negative-index check, the copy is vectorized)."""
    code = CARD_CODE[card]
    start = np.uint64(at)
    for j in range(np.uint64(CARD_SIZE)):
        obs[start + j] = code[j]
    obs[start + np.uint64(count_at)] = np.int8(count)
