"""Pepper's observation as data: :data:`LAYOUT` names, places and explains
every entry (what one seat legitimately knows), every offset and bound below
is derived from it, and :func:`encode_rows` writes it.

Seats are *relative* to the viewer: relative seat 0 is the viewer, 1 the next
player clockwise, and so on (at 4 players relative seat 2 is the partner).
Card blocks use the card types ``9C TC JC QC KC AC 9D .. AS``.  Never
encoded: another player's hand, the dead hand (2 players).  The index table
is ``LAYOUT.markdown()`` (docs/pepper.md).

The per-seat block :data:`SEAT` is also the layout of the rules' public
planes (``state.public``, one block per absolute seat, kept up to date by the
kernels), so observing is one gather of those planes in relative-seat order.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import kernel
from ...core.layout import Field, Layout, left_before, left_field
from .tables import NUM_CALLS, NUM_TYPES, TablePack, unpack_config, unpack_table

MAX_SEATS = 4
MAX_TRICKS = 8  # a hand of 8 cards at 2-3 players

#: One seat's block (relative seat in the observation, absolute in ``state.public``).
SEAT = Layout(
    [
        Field("table", NUM_TYPES, "its card on the table in the current trick"),
        Field("played", NUM_TYPES, "cards it played to earlier tricks of this hand"),
        Field(
            "bid",
            NUM_CALLS,
            "its auction state one-hot: +0 passed, +1..+9 its last bid (1..7, little, big); all zero: not spoken yet",
        ),
        Field("tricks", 1, "tricks it won this hand", high=MAX_TRICKS),
        Field("score", 1, "its side's game score (raw points)", low=-np.inf, high=np.inf),
    ]
)

LAYOUT = Layout(
    [
        Field("hand", NUM_TYPES, "own hand (1 = held)"),
        Field(
            "seats",
            0,
            "one block per relative seat (0 self, 1 next clockwise, 2 partner at 4 players); "
            "zero for seats that do not exist at 2-3 players",
            count=MAX_SEATS,
            parts=SEAT,
        ),
        Field("high_bid", NUM_CALLS, "current high bid one-hot (0 none, 1..9 as in `bid`)"),
        Field("bidder", MAX_SEATS, "high bidder, relative seat one-hot (all zero: none)"),
        Field("trump", 6, "trump one-hot: not chosen yet, C, D, H, S, no-trump"),
        Field("phase", 3, "phase one-hot: bidding, choosing trump, playing (all zero: game over)"),
        Field("leader", MAX_SEATS, "leader of the current trick, relative seat one-hot"),
        Field("dealer", MAX_SEATS, "dealer, relative seat one-hot"),
        Field("num_players", 3, "number of players one-hot: 2, 3, 4"),
        left_field("hands_left", "hands", "max_hands"),
    ]
)

# Offsets in one seat's block (and in ``state.public[row, seat]``).
TABLE, PLAYED, BID, TRICKS, SCORE = (SEAT[name].offset for name in ("table", "played", "bid", "tricks", "score"))
SEAT_PLANES = SEAT.size
# Offsets in the observation.
HAND, SEATS, HIGH_BID, BIDDER, TRUMP, PHASE, LEADER, DEALER, NUM_PLAYERS, HANDS_LEFT = (
    LAYOUT[name].offset
    for name in (
        "hand",
        "seats",
        "high_bid",
        "bidder",
        "trump",
        "phase",
        "leader",
        "dealer",
        "num_players",
        "hands_left",
    )
)
PHASE_SIZE = LAYOUT["phase"].size
OBS_SIZE = LAYOUT.size
OBS_DTYPE = np.int16  # the rules' planes are int16 (scores); no float pass when observing
OBS_LOW, OBS_HIGH = (bound.astype(np.float32) for bound in LAYOUT.bounds())


def encode(
    rules, state, seats: np.ndarray, rows: np.ndarray | None = None, out: np.ndarray | None = None
) -> np.ndarray:
    """Observation ``(len(seats), OBS_SIZE)`` int16 of the games in ``rows``
    (default: every row), row i seen by seat ``seats[i]``; written into
    ``out`` if given (int16, C-contiguous).

    One kernel pass (:func:`encode_rows`) writes each result row straight
    from the state: the viewer's hand, the rules' public planes in
    relative-seat order and the single one-hots.  (It takes the rules' and
    the state's packs, as the step does: at batch 1, passing the 11 arrays
    and settings it reads one by one cost more than the encoding.)
    """
    seats = np.asarray(seats, np.int64)
    if rows is not None:
        rows = np.asarray(rows, np.int64)
    else:  # every row (made once per state)
        rows = state.every_row() if len(seats) == state.batch else np.arange(len(seats))
    if out is None:
        out = np.empty((len(seats), OBS_SIZE), OBS_DTYPE)
    config, arrays = rules.config_pack, state.bundle(TablePack)
    state.shards.map(  # (row shards in threads: see cardenvs.core.shards)
        len(seats), lambda lo, hi: encode_rows(rows[lo:hi], seats[lo:hi], config, arrays, out[lo:hi])
    )
    return out


@kernel
def encode_rows(rows, seats, config, arrays, out):
    """Fill every entry of ``out[i]``: game ``rows[i]`` seen by seat ``seats[i]``
    (a seat -1 counts from the end, as numpy indexing does: seat n - 1);
    ``config``, ``arrays``: the rules' and the state's packs (see
    :mod:`cardenvs.games.pepper.tables`).

    Relative seat j is absolute seat ``(viewer + j) % n``, so the per-seat
    blocks are the row's public planes rotated: the viewer's seat and those
    after it, then the seats before it (two contiguous copies; the blocks of
    relative seats that do not exist are zero).  No high bidder (-1) and the
    finished game's phase have no one-hot; no high bid is the one-hot 0 and
    no trump the one-hot "not chosen".

    The copies run on flat views with unsigned offsets: numba checks every
    signed index for a negative value (to count from the end), and that
    check keeps LLVM from vectorizing them.
    """
    cfg, s = unpack_config(config), unpack_table(arrays)
    num_players, max_hands = cfg.num_players, cfg.max_hands
    hand_number, hands, public = s.hand_number, s.hands, s.public
    high_bid, bidder, trump, phase, leader, dealer = s.high_bid, s.bidder, s.trump, s.phase, s.leader, s.dealer
    num_seats = np.uint64(num_players)
    seat_size = np.uint64(SEAT_PLANES)
    width = np.uint64(OBS_SIZE)
    flat_out = out.reshape(-1)
    flat_public = public.reshape(-1)
    for i in range(rows.shape[0]):
        row = rows[i]
        seat = seats[i]
        if seat < 0:
            seat += num_players
        seen = out[i]
        hand = hands[row, seat]
        for card in range(np.uint64(NUM_TYPES)):
            seen[np.uint64(HAND) + card] = hand[card]
        start = np.uint64(i) * width + np.uint64(SEATS)
        planes = np.uint64(row) * num_seats * seat_size  # the row's public planes, seat 0 first
        viewer = np.uint64(seat) * seat_size
        after = num_seats * seat_size - viewer  # the viewer's seat and those after it ...
        for entry in range(after):
            flat_out[start + entry] = flat_public[planes + viewer + entry]
        for entry in range(viewer):  # ... then the seats before it
            flat_out[start + after + entry] = flat_public[planes + entry]
        for entry in range(np.uint64(SEATS) + num_seats * seat_size, width):
            seen[entry] = 0
        seen[HIGH_BID + high_bid[row]] = 1
        if bidder[row] >= 0:
            seen[BIDDER + relative(bidder[row], seat, num_players)] = 1
        seen[TRUMP + trump[row] + 1] = 1
        if phase[row] < PHASE_SIZE:  # bidding, choosing trump, playing (not the finished game)
            seen[PHASE + phase[row]] = 1
        seen[LEADER + relative(leader[row], seat, num_players)] = 1
        seen[DEALER + relative(dealer[row], seat, num_players)] = 1
        seen[NUM_PLAYERS + num_players - 2] = 1
        seen[HANDS_LEFT] = left_before(max_hands, hand_number[row])


@kernel
def relative(seat, viewer, num_players):
    """``seat`` (0..n-1) as seen from ``viewer``: 0 self, 1 next clockwise, ...
    (a comparison instead of ``%``: no integer division)."""
    offset = seat - viewer
    return offset + num_players if offset < 0 else offset
