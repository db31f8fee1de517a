"""Information-set sampling for Cancellation Hearts.

What the viewer (one seat per row) has seen: its own hand; every card
played (``public``'s seen counts, the trick in play); the size of every
hand, of the widow and (while passing) of every seat's choices so far; the
cards it passed -- the receiver held them at the exchange, so still holds
those it has not played since -- and received; and who played what, so the
voids (a seat that did not follow the suit led holds none of it).

The state keeps the current trick but not who played the earlier ones, so
the voids and the cards each seat played this hand come from a
:class:`Tracker` that watches the steps (``tracker.step(rules, state,
actions)`` in place of ``rules.step``).  Without one, only the current
trick's voids are used, and the receiver of the seat's pass is taken to
hold only the passed cards of which no copy has been seen played (the
worlds are then consistent with less than the seat saw).

Hidden places: the other seats' hands, the face-down widow (nobody looks at
it, its taker included), and while passing the cards the other seats have
set aside.  Two copies of every card: uniform over the *physical* deals (a
deal splitting two twins between two hands is twice as likely as one
holding both, as with a real shuffle).  A world copies its row and
overwrites those places, the widow taker's points, the other seats'
pass records (cleared but for what the viewer knows: what it passed is its
receiver's receipt, what it received its giver's pass) and the mask of the
seat to act when that is not the viewer.
"""

from __future__ import annotations

import numpy as np

from ..cancellation_hearts import observation as ob
from ..cancellation_hearts.legal import refresh_legal
from ..cancellation_hearts.tables import (
    CARD_POINTS,
    LEFT,
    NO_PASS,
    NUM_TYPES,
    PASSING,
    PLAY0,
    PLAYING,
    SUIT,
    Arrays,
    ArrayValues,
)
from ..core.game import BatchState
from ..core.jit import kernel
from .base import NUM_SUITS, offsets, sample_cards
from .worlds import check_request, repeat_rows, seat_array


class Tracker:
    """What the seats saw play out that the state does not keep: each seat's
    voids (``voids`` (B, n, 4) bool) and the cards it played this hand
    (``played`` (B, n, 52) int8).  Use :meth:`step` in place of
    ``rules.step``, and :meth:`clear` for rows reset by hand."""

    def __init__(self, rules, batch: int):
        self.voids = np.zeros((batch, rules.num_players, NUM_SUITS), bool)
        self.played = np.zeros((batch, rules.num_players, NUM_TYPES), np.int8)

    def clear(self, rows) -> None:
        self.voids[rows] = False
        self.played[rows] = 0

    def select(self, rows) -> Tracker:
        """A tracker of the games in ``rows`` (copies), as ``BatchState.select``."""
        part = Tracker.__new__(Tracker)
        part.voids, part.played = self.voids[rows], self.played[rows]
        return part

    def step(self, rules, state: BatchState, actions: np.ndarray) -> np.ndarray:
        actions = np.asarray(actions, np.int64)
        rows = np.flatnonzero((state.phase == PLAYING) & ~state.done)
        seat, card = state.current[rows], actions[rows] - PLAY0
        led = SUIT[np.maximum(state.trick[rows, 0], 0)]
        off = (state.in_trick[rows] > 0) & (SUIT[card] != led)
        self.voids[rows[off], seat[off], led[off]] = True
        self.played[rows, seat, card] += 1
        hand = state.hand_number.copy()
        rewards = rules.step(state, actions)
        self.clear(np.flatnonzero((state.hand_number != hand) | state.done))
        return rewards


@kernel
def constraints(seats, receiver, played, tracked, voids, state_arrays, unseen, capacity, allowed, forced):
    """The sampling problem of each row: places 0..n-1 the hands, n the
    widow, n + 1 + s seat s's cards set aside to pass; ``forced`` the cards
    the viewer passed that its receiver still holds (taken out of the
    problem, added back to the receiver): as many as it passed less those
    the receiver played (``played``) or, not ``tracked``, less every copy
    seen played this hand (the receiver may have played them)."""
    s = Arrays(*state_arrays)
    n = s.hands.shape[1]
    for row in range(seats.shape[0]):
        viewer = seats[row]
        unseen[row] = 0
        capacity[row] = 0
        allowed[row] = True
        forced[row] = 0
        for p in range(n):
            if p != viewer:
                for t in range(NUM_TYPES):
                    unseen[row, t] += s.hands[row, p, t] + s.pass_chosen[row, p, t]
                    capacity[row, p] += s.hands[row, p, t]
                    capacity[row, n + 1 + p] += s.pass_chosen[row, p, t]
                for suit in range(NUM_SUITS):
                    allowed[row, p, suit] = not voids[row, p, suit]
        for t in range(NUM_TYPES):
            unseen[row, t] += s.widow[row, t]
            capacity[row, n] += s.widow[row, t]
        if s.in_trick[row] > 0:  # the trick in play (the tracker may not have seen it)
            led = s.trick[row, 0] // 13
            for k in range(1, s.in_trick[row]):
                if s.trick[row, k] // 13 != led:
                    allowed[row, (s.leader[row] + k) % n, led] = False
        r = receiver[row]
        if r >= 0:
            for t in range(NUM_TYPES):
                gone = played[row, r, t] if tracked else s.public[row, ob.SEEN + t]
                keep = s.private[row, viewer, ob.PASSED + t] - gone
                if keep > 0:
                    forced[row, t] = keep
                    unseen[row, t] -= keep
                    capacity[row, r] -= keep


@kernel
def build_worlds(worlds, seats, receiver, forced, cards, offset, source, state_arrays):
    """Write each world's hidden places from its compact deal (``cards``,
    place p's at ``offset[i, p]``: the hands, the widow, the cards set
    aside; the viewer's hand and set-aside cards from its row of
    ``source``), the forced cards back to the receiver, the widow taker's
    points, the pass records (the viewer's own; the other seats' cleared
    but for what the viewer knows: what it passed is its receiver's receipt,
    what it received its giver's pass, and while passing what each has set
    aside in this world) and the mask of the seat to act when that is not
    the viewer.  (The arrays are taken out of the bundles once: a view per
    world costs more than its writes.)"""
    src, s = Arrays(*source), Arrays(*state_arrays)
    hands, chosen, widow, private = s.hands, s.pass_chosen, s.widow, s.private
    n = hands.shape[1]
    for w in range(hands.shape[0]):
        i = w // worlds
        v, r = seats[i], receiver[i]
        hands[w] = 0
        chosen[w] = 0
        widow[w] = 0
        private[w] = 0
        hands[w, v] = src.hands[i, v]
        chosen[w, v] = src.pass_chosen[i, v]
        private[w, v] = src.private[i, v]
        for p in range(offset.shape[1] - 1):
            for at in range(offset[i, p], offset[i, p + 1]):
                if p < n:
                    hands[w, p, cards[w, at]] += 1
                elif p == n:
                    widow[w, cards[w, at]] += 1
                else:
                    chosen[w, p - n - 1, cards[w, at]] += 1
        if r >= 0:
            giver = (2 * v - r + n) % n
            for t in range(NUM_TYPES):
                hands[w, r, t] += forced[i, t]
                private[w, r, ob.RECEIVED + t] = private[w, v, ob.PASSED + t]
                private[w, giver, ob.PASSED + t] = private[w, v, ob.RECEIVED + t]
        elif s.phase[w] == PASSING:
            for p in range(n):
                if p != v:
                    for t in range(NUM_TYPES):
                        private[w, p, ob.PASSED + t] = chosen[w, p, t]
    finish_worlds(worlds, seats, s)


@kernel
def finish_worlds(worlds, seats, s):
    """The widow taker's points (the widow is the world's) and the mask of
    the seat to act when it is not the viewer (its hand is the world's)."""
    for w in range(s.hands.shape[0]):
        holder = s.widow_holder[w]
        if holder >= 0:
            points = s.seen_points[w, holder]
            for t in range(NUM_TYPES):
                points += np.int64(s.widow[w, t]) * CARD_POINTS[t]
            s.points[w, holder] = points
        if s.current[w] != seats[w // worlds] and s.current[w] >= 0:
            refresh_legal(w, s)


def problem(rules, state: BatchState, seats: np.ndarray, tracker=None) -> tuple[tuple[np.ndarray, ...], ...]:
    """``((unseen, suit_of, capacity, allowed), (receiver, forced))``: the
    sampling problem of each row seen by ``seats`` (see :mod:`.base`) and
    what goes back after it (the receiver of the seat's pass, -1 none, and
    the passed cards it still holds)."""
    batch, n = state.batch, rules.num_players
    tracked = tracker is not None
    if tracker is None:
        tracker = Tracker(rules, batch)
    if tracker.voids.shape != (batch, n, NUM_SUITS):
        raise ValueError(f"the tracker is for {tracker.voids.shape[0]} rows, the state has {batch}")
    exchanged = (state.pass_dir != NO_PASS) & (state.phase != PASSING)
    step = np.where(state.pass_dir == LEFT, 1, -1)
    receiver = np.where(exchanged, (seats + step) % n, -1)
    unseen = np.empty((batch, NUM_TYPES), np.int8)
    capacity = np.empty((batch, 2 * n + 1), np.int64)
    allowed = np.empty((batch, 2 * n + 1, NUM_SUITS), np.bool_)
    forced = np.empty((batch, NUM_TYPES), np.int8)
    arrays = state.bundle(ArrayValues)
    constraints(seats, receiver, tracker.played, tracked, tracker.voids, arrays, unseen, capacity, allowed, forced)
    return (unseen, np.broadcast_to(SUIT, (batch, NUM_TYPES)), capacity, allowed), (receiver, forced)


def sample(
    rules, state: BatchState, seats, worlds: int, rng: np.random.Generator, tracker=None, out: BatchState | None = None
) -> BatchState:
    """``worlds`` complete states per row, uniform over the deals consistent
    with what ``seats[i]`` has seen in row i (with ``tracker``'s voids and
    plays): a state of B * worlds rows, row i's worlds at
    ``i * worlds .. (i + 1) * worlds - 1``."""
    check_request(worlds, rng)
    seats = seat_array(seats, state.batch, rules.num_players)
    deal, (receiver, forced) = problem(rules, state, seats, tracker)
    cards, _ = sample_cards(*deal, worlds, rng)
    out = repeat_rows(state, worlds, rng, fill=("hands", "widow", "pass_chosen", "private"), out=out)
    parts = (cards, offsets(deal[2]), state.bundle(ArrayValues), out.bundle(ArrayValues))
    build_worlds(worlds, seats, receiver, forced, *parts)
    return out
