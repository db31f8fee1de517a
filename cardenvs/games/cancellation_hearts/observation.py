"""Cancellation Hearts: the observation (what one seat legitimately knows),
as data: :data:`LAYOUT` names, places and bounds every entry (the table in
``docs/cancellation_hearts.md`` is generated from it); every offset below is
derived from it; :func:`encode` writes observations.

One fixed size for every player count: blocks are sized for an 11-seat
table and entries for seats that do not exist are zero.  Seats are
*relative* to the viewer: relative seat 0 is the viewer, 1 the next player
clockwise (the one a left pass goes to), ..., n-1 the player to the right.
Card blocks use the 52 card types ``2C 3C .. AC 2D .. AS`` (suit-major,
type = 13 * suit + rank); since every card exists twice, they hold counts
0..2.  Never encoded: another player's hand, the cards another player chose
to pass before the exchange (and afterwards only the viewer's own passes and
receipts), the widow's cards.

The observation is three parts: the viewer's hand (from ``state.hands``),
the viewer's block (``passed`` to ``widow_holder``) and the public block
(``trick`` to the end, ``state.public[row]``, the same for every viewer).
The rules keep ``state.public`` and the viewer's ``passed`` and ``received``
(``state.private[row, viewer]``) up to date as they play; the rest of the
viewer's block is written while observing, from per-seat arrays, which costs
less than keeping one copy per viewer up to date.
"""

from __future__ import annotations

import numpy as np

from ...core.game import BatchState
from ...core.jit import kernel
from ...core.layout import Field, Layout, left_before, left_field
from .tables import MAX_SEATS, MIN_SEATS, NUM_TYPES

CARD = Layout(
    [
        Field("suit", 4, "suit one-hot C D H S"),
        Field("rank", 13, "rank one-hot 2 .. A"),
    ]
)

LAYOUT = Layout(
    [
        Field("hand", NUM_TYPES, "own hand: count of each card type 2C .. AS", high=2),
        Field(
            "passed",
            NUM_TYPES,
            "cards this seat passed this hand (while passing: its choices so far; "
            "the receiver is given by the pass direction)",
            high=2,
        ),
        Field("received", NUM_TYPES, "cards it received from the pass (zero until the exchange)", high=2),
        Field(
            "points",
            MAX_SEATS,
            "points per relative seat: hearts (1) and Black Marias (13) it collected in tricks this hand "
            "(the face-down widow is not included: nobody looks at it before the scoring)",
            high=52,
        ),
        Field("scores", MAX_SEATS, "game score per relative seat", low=-np.inf, high=np.inf),
        Field("leader", MAX_SEATS, "leader of the current trick, relative seat one-hot"),
        Field("dealer", MAX_SEATS, "dealer, relative seat one-hot"),
        Field(
            "widow_holder", MAX_SEATS, "who took the widow, relative seat one-hot (all zero: not taken yet, or nobody)"
        ),
        Field(
            "trick",
            0,
            "the current trick in play order: block k is the k-th card played (k = 0 the leader's, so it was "
            "played by relative seat leader + k); all zero = not played yet",
            count=MAX_SEATS,
            parts=CARD,
        ),
        Field(
            "cancelled",
            MAX_SEATS,
            "1 at position k if the k-th card's identical twin is in the trick too (neither can win it)",
        ),
        Field("seen", NUM_TYPES, "cards seen played this hand (counts; current trick included)", high=2),
        Field("carried_points", 1, "points in the unclaimed pile waiting for the next trick won", high=52),
        Field("carried_cards", 1, "cards in that pile (the widow not counted)", high=104),
        Field("widow_waiting", 1, "1 while the widow still lies face down, not yet taken"),
        Field("hearts_broken", 1, "hearts broken (a heart or Black Maria has been played)"),
        Field("phase", 3, "phase one-hot: passing, playing, moon choice (all zero: over)"),
        Field("pass_direction", 3, "pass direction this hand one-hot: none, left, right"),
        Field("num_players", MAX_SEATS - MIN_SEATS + 1, "number of players one-hot: 6 .. 11"),
        left_field("hands_left", "hands", "max_hands"),
    ]
)
OBS_SIZE = LAYOUT.size  # 478
OBS_DTYPE = np.int16  # scores pass 127; everything else would fit int8
SCORE_LIMIT = np.iinfo(OBS_DTYPE).max  # scores saturate here (unreachable in practice)
# Bounds (float, with ±inf for the raw scores): the int16 space clips them
# to its range; learners that want float32 use them as they are.
OBS_LOW, OBS_HIGH = (bound.astype(np.float32) for bound in LAYOUT.bounds())

# Where the three parts start in the observation.
HAND_AT = LAYOUT["hand"].offset
PRIVATE_AT = LAYOUT["passed"].offset
PUBLIC_AT = LAYOUT["trick"].offset

# The viewer's block, offsets from PRIVATE_AT.  ``state.private`` (B, n,
# KEPT_SIZE) int8 keeps the first two fields (PASSED, RECEIVED) of each viewer.
PASSED, RECEIVED, POINTS, SCORES, LEADER, DEALER, WIDOW_HOLDER = (
    LAYOUT[name].offset - PRIVATE_AT
    for name in ("passed", "received", "points", "scores", "leader", "dealer", "widow_holder")
)
KEPT_SIZE = LAYOUT["received"].stop - PRIVATE_AT

# The public block, offsets from PUBLIC_AT (``state.public`` (B, PUBLIC_SIZE) int8).
CARD_PLANES = CARD.size  # a card in the trick: 4 suit + 13 rank one-hots
RANK_PLANE = CARD["rank"].offset
TRICK, CANCELLED, SEEN, CARRIED_POINTS, CARRIED_CARDS, WIDOW_WAITING, HEARTS_BROKEN, PHASE, PASS_DIR, NUM_PLAYERS = (
    LAYOUT[name].offset - PUBLIC_AT
    for name in (
        "trick",
        "cancelled",
        "seen",
        "carried_points",
        "carried_cards",
        "widow_waiting",
        "hearts_broken",
        "phase",
        "pass_direction",
        "num_players",
    )
)
PUBLIC_SIZE = LAYOUT["num_players"].stop - PUBLIC_AT
HANDS_LEFT = LAYOUT["hands_left"].offset


def encode(
    state: BatchState,
    num_players: int,
    max_hands: int,
    seats: np.ndarray,
    rows: np.ndarray | None = None,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Observation ``(len(seats), OBS_SIZE)`` int16 of the games in ``rows``
    (default: every row), row i seen by seat ``seats[i]``; written into
    ``out`` if given (of OBS_DTYPE, C-contiguous).

    The rules keep the viewer and public blocks current (int8); one kernel
    pass (:func:`encode_rows`) writes each result row straight from them and
    from the per-seat arrays.  (Observing is memory-bound: a float32 result
    used to cost twice the rest of the step.)  The kernel takes the state's
    arrays one by one rather than as a bundle: it runs at every step of the
    one-game env, where typing a bundle's arrays costs numba microseconds.
    """
    seats = np.asarray(seats, np.int64) % num_players
    if rows is not None:
        rows = np.asarray(rows, np.int64)
    else:  # every row (made once per state)
        rows = state.every_row() if len(seats) == state.batch else np.arange(len(seats))
    if out is None:
        out = np.empty((len(seats), OBS_SIZE), OBS_DTYPE)
    state.shards.map(  # (row shards in threads: see cardenvs.core.shards)
        len(seats),
        lambda lo, hi: encode_rows(
            rows[lo:hi],
            seats[lo:hi],
            num_players,
            max_hands,
            state.hand_number,
            state.hands,
            state.private,
            state.public,
            state.leader,
            state.dealer,
            state.widow_holder,
            state.seen_points,
            state.scores,
            out[lo:hi],
        ),
    )
    return out


@kernel
def encode_rows(
    rows,
    seats,
    num_players,
    max_hands,
    hand_number,
    hands,
    private,
    public,
    leader,
    dealer,
    widow_holder,
    seen_points,
    scores,
    out,
):
    """Fill ``out[i]`` with game ``rows[i]`` seen by seat ``seats[i]`` (0..n-1).

    The kept columns of the viewer's ``private`` row (PASSED, RECEIVED) are
    copied; the per-seat numbers and one-hots, by relative seat (relative
    seat j is absolute seat ``(viewer + j) % n``), are written here, and
    every column for a seat that does not exist is zero.

    (The block copies index 1-D views from 0, which the compiler
    vectorises, and seats wrap with a compare: an integer division per seat
    costs more than the rest of the row.)
    """
    for i in range(rows.shape[0]):
        row = rows[i]
        seat = seats[i]
        obs = out[i]
        hand, obs_hand = hands[row, seat], obs[HAND_AT:PRIVATE_AT]
        for t in range(NUM_TYPES):
            obs_hand[t] = hand[t]
        kept, obs_kept = private[row, seat], obs[PRIVATE_AT : PRIVATE_AT + KEPT_SIZE]
        for c in range(KEPT_SIZE):
            obs_kept[c] = kept[c]
        obs[PRIVATE_AT + KEPT_SIZE : PUBLIC_AT] = 0
        for j in range(num_players):
            other = seat + j - num_players if seat + j >= num_players else seat + j
            obs[PRIVATE_AT + POINTS + j] = seen_points[row, other]
            obs[PRIVATE_AT + SCORES + j] = min(max(scores[row, other], -SCORE_LIMIT), SCORE_LIMIT)
        relative = leader[row] - seat
        obs[PRIVATE_AT + LEADER + (relative + num_players if relative < 0 else relative)] = 1
        relative = dealer[row] - seat
        obs[PRIVATE_AT + DEALER + (relative + num_players if relative < 0 else relative)] = 1
        if widow_holder[row] >= 0:  # a holder < 0: not taken (yet), nobody's
            relative = widow_holder[row] - seat
            obs[PRIVATE_AT + WIDOW_HOLDER + (relative + num_players if relative < 0 else relative)] = 1
        shared, obs_shared = public[row], obs[PUBLIC_AT:]
        for c in range(PUBLIC_SIZE):
            obs_shared[c] = shared[c]
        obs[HANDS_LEFT] = left_before(max_hands, hand_number[row])
