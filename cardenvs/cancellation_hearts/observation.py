"""Cancellation Hearts: the observation encoding (what one seat legitimately knows).

One fixed size for every player count: blocks are sized for an 11-seat
table and entries for seats that do not exist are zero.  Seats are
*relative* to the viewer: relative seat 0 is the viewer, 1 the next player
clockwise (the one a left pass goes to), ..., n-1 the player to the right.
Card blocks use the 52 card types ``2C 3C .. AC 2D .. AS`` (suit-major,
type = 13 * suit + rank); since every card exists twice, they hold counts
0..2.

=========  =====  ==========================================================
index      size   meaning
=========  =====  ==========================================================
**per viewer**: the hand (``state.hands``), then ``state.private[row, viewer]``
0          52     own hand (counts)
52         52     cards this seat passed this hand (during passing: its
                  choices so far; the receiver is given by the pass direction)
104        52     cards it received from the pass (zero until the exchange)
156        11     points per relative seat: hearts (1) and Black Marias (13)
                  it collected in tricks this hand (the face-down widow is
                  not included: nobody looks at it before the scoring)
167        11     game score per relative seat
178        11     leader of the current trick, relative seat one-hot
189        11     dealer, relative seat one-hot
200        11     who took the widow, relative seat one-hot (all zero: not
                  taken yet, or nobody)
**public** (``state.public[row]``, the same for every viewer)
211        11x17  the current trick in play order: block k (at 211 + 17k) is
                  the k-th card played (k = 0 the leader's, so it was played by
                  relative seat leader + k): +0..+3 suit one-hot C D H S,
                  +4..+16 rank one-hot 2 .. A; all zero = not played yet
398        11     cancelled: 1 at position k if the k-th card's identical twin
                  is in the trick too (neither can win it)
409        52     cards seen played this hand (counts; current trick included)
461        1      points in the unclaimed pile waiting for the next trick won
462        1      cards in that pile (the widow not counted)
463        1      1 while the widow still lies face down, not yet taken
464        1      hearts broken (a heart or Black Maria has been played)
465        3      phase one-hot: passing, playing, moon choice (all zero: over)
468        3      pass direction this hand: none, left, right
471        6      number of players one-hot: 6 .. 11
=========  =====  ==========================================================

Never encoded: another player's hand, the cards another player chose to
pass before the exchange (and afterwards only the viewer's own passes and
receipts), the widow's cards.
"""

from __future__ import annotations

import numpy as np

from ..core.jit import kernel

MAX_SEATS = 11
NUM_TYPES = 52

# Observation columns of the three parts.
HAND_AT = 0  # 52: the viewer's hand, gathered from ``state.hands``
PRIVATE_AT = 52  # 159: ``state.private[row, viewer]`` (int8; its SCORES columns stay 0)
PUBLIC_AT = 211  # 266: ``state.public[row]`` (int8)

# ``state.private`` (B, P, PRIVATE_SIZE) int8: what each viewer knows that
# depends on who it is, kept up to date by the rules.  Offsets inside it
# (observation column = PRIVATE_AT + offset).  Only PASSED and RECEIVED are
# kept there; POINTS and SCORES (``state.seen_points``, ``state.scores``) and
# the one-hots of LEADER, DEALER and WIDOW_HOLDER are filled in while
# observing, from per-seat arrays, which costs less than keeping one copy
# per viewer up to date.
PASSED, RECEIVED, POINTS, SCORES, LEADER, DEALER, WIDOW_HOLDER = 0, 52, 104, 115, 126, 137, 148
PRIVATE_SIZE = 159

# ``state.public`` (B, PUBLIC_SIZE) int8: the same for every viewer, kept up
# to date by the rules.  Offsets inside it (observation column = PUBLIC_AT + offset).
CARD_PLANES = 17  # a card in the trick: 4 suit + 13 rank one-hots
TRICK = 0
CANCELLED = TRICK + MAX_SEATS * CARD_PLANES  # 187
SEEN = CANCELLED + MAX_SEATS  # 198
CARRIED_POINTS, CARRIED_CARDS, WIDOW_WAITING, HEARTS_BROKEN = 250, 251, 252, 253
PHASE, PASS_DIR, NUM_PLAYERS = 254, 257, 260
PUBLIC_SIZE = 266

OBS_SIZE = PUBLIC_AT + PUBLIC_SIZE  # 477

# Bounds (float, with ±inf for the raw scores): the int16 space clips them
# to its range; learners that want float32 use them as they are.
OBS_LOW = np.zeros(OBS_SIZE, np.float32)
OBS_HIGH = np.ones(OBS_SIZE, np.float32)
OBS_HIGH[HAND_AT : PRIVATE_AT + RECEIVED + 52] = 2
OBS_HIGH[PRIVATE_AT + POINTS : PRIVATE_AT + POINTS + MAX_SEATS] = 52
OBS_LOW[PRIVATE_AT + SCORES : PRIVATE_AT + SCORES + MAX_SEATS] = -np.inf  # raw scores ("moon self": -26)
OBS_HIGH[PRIVATE_AT + SCORES : PRIVATE_AT + SCORES + MAX_SEATS] = np.inf
OBS_HIGH[PUBLIC_AT + SEEN : PUBLIC_AT + SEEN + 52] = 2
OBS_HIGH[PUBLIC_AT + CARRIED_POINTS] = 52
OBS_HIGH[PUBLIC_AT + CARRIED_CARDS] = 104


OBS_DTYPE = np.int16  # scores pass 127; everything else would fit int8
SCORE_LIMIT = np.iinfo(OBS_DTYPE).max  # scores saturate here (unreachable in practice)


def encode(rules, state, seats: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """Observation ``(len(seats), OBS_SIZE)`` int16 of the games in ``rows``
    (default: every row), row i seen by seat ``seats[i]``.

    The rules keep the viewer and public blocks current (int8); one kernel
    pass (:func:`encode_rows`) writes each result row straight from them and
    from the per-seat arrays.  (Observing is memory-bound: a float32 result
    used to cost twice the rest of the step.)
    """
    seats = np.asarray(seats, np.int64) % rules.num_players
    rows = np.arange(len(seats)) if rows is None else np.asarray(rows, np.int64)
    out = np.empty((len(seats), OBS_SIZE), OBS_DTYPE)
    encode_rows(
        rows,
        seats,
        rules.num_players,
        state.hands,
        state.private,
        state.public,
        state.leader,
        state.dealer,
        state.widow_holder,
        state.seen_points,
        state.scores,
        out,
    )
    return out


@kernel
def encode_rows(rows, seats, n, hands, private, public, leader, dealer, widow_holder, seen_points, scores, out):
    """Fill ``out[i]`` with game ``rows[i]`` seen by seat ``seats[i]`` (0..n-1).

    Only the kept columns of the viewer's ``private`` row are read (PASSED
    and RECEIVED); the per-seat numbers and one-hots, by relative seat
    (relative seat j is absolute seat ``(viewer + j) % n``), are written
    here, and every column for a seat that does not exist is zero.

    (The block copies index 1-D views from 0, which the compiler
    vectorises, and seats wrap with a compare: an integer division per seat
    costs more than the rest of the row.)
    """
    for i in range(rows.shape[0]):
        row = rows[i]
        seat = seats[i]
        o = out[i]
        hand, o_hand = hands[row, seat], o[HAND_AT:PRIVATE_AT]
        for t in range(NUM_TYPES):
            o_hand[t] = hand[t]
        kept, o_kept = private[row, seat], o[PRIVATE_AT : PRIVATE_AT + POINTS]
        for c in range(POINTS):  # PASSED, RECEIVED
            o_kept[c] = kept[c]
        o[PRIVATE_AT + POINTS : PUBLIC_AT] = 0
        for j in range(n):
            s = seat + j - n if seat + j >= n else seat + j
            o[PRIVATE_AT + POINTS + j] = seen_points[row, s]
            o[PRIVATE_AT + SCORES + j] = min(max(scores[row, s], -SCORE_LIMIT), SCORE_LIMIT)
        rel = leader[row] - seat
        o[PRIVATE_AT + LEADER + (rel + n if rel < 0 else rel)] = 1
        rel = dealer[row] - seat
        o[PRIVATE_AT + DEALER + (rel + n if rel < 0 else rel)] = 1
        if widow_holder[row] >= 0:  # a holder < 0: not taken (yet), nobody's
            rel = widow_holder[row] - seat
            o[PRIVATE_AT + WIDOW_HOLDER + (rel + n if rel < 0 else rel)] = 1
        shared, o_shared = public[row], o[PUBLIC_AT:]
        for c in range(PUBLIC_SIZE):
            o_shared[c] = shared[c]
