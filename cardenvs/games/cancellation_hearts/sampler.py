"""Information-set sampling for Cancellation Hearts.

What the viewer (one seat per row) has seen: its own hand; every card
played (``public``'s seen counts, the trick in play); the size of every
hand, of the widow and (while passing) of every seat's choices so far; the
cards it passed -- the receiver held them at the exchange, so still holds
those it has not played since -- and received; and who played what, hence
what each play told of the hand that made it (docs/search.md lists them):

- a seat that did not follow the suit led holds none of it (a void);
- a heart led before hearts were broken (not the opening lead): its leader
  held only hearts (voids in clubs, diamonds and spades);
- an opening lead of a heart or Black Maria: its leader held nothing else
  (voids in clubs and diamonds, and no spade but Black Maria).

Each is a fact about the hand at that play; in the play a hand only loses
cards, and the cards it played since are seen, so it is the same fact about
the hand now (the cards played since fit it in every world: they are the
real ones).  Black Maria then counts apart from the other spades (a fifth
suit of the problem, :data:`MARIA`) in the rows where some hidden seat is
known to hold no spade but her, and only there (the other rows' problems,
hence their worlds, are as before).

The state keeps the current trick but not who played the earlier ones, so
the facts from earlier tricks and the cards each seat played this hand come
from a :class:`Tracker` that watches the steps (``tracker.step(rules,
state, actions)`` in place of ``rules.step``).  Without one, only the
current trick's facts are used, and the receiver of the seat's pass is
taken to hold only the passed cards of which no copy has been seen played
(the worlds are then consistent with less than the seat saw).

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

from ...core.game import BatchState
from ...core.jit import kernel
from ...core.sampling.base import MAX_SUITS, NUM_SUITS, offsets, sample_cards
from ...core.sampling.worlds import check_request, repeat_rows, seat_array
from . import observation as ob
from .legal import refresh_legal
from .tables import (
    BLACK_MARIA,
    BREAKS_HEARTS,
    CARD_POINTS,
    IS_HEART,
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

#: What PIMC (:mod:`cardenvs.agents.pimc`) searches: phase -> the actions
#: searched in it (None: every legal one): the card play.
SEARCHED = {PLAYING: None}

CLUBS, DIAMONDS, SPADES = 0, 1, 3  # (hearts: 2)
MARIA = NUM_SUITS  # the problem's fifth suit: Black Maria, in rows where she counts apart from the spades


class Tracker:
    """What the seats saw play out that the state does not keep: each seat's
    voids (``voids`` (B, n, 4) bool: from not following suit, and from a
    heart led before hearts were broken), whether it is known to hold no
    spade but Black Maria (``maria_only`` (B, n) bool: it opened with a
    heart or Black Maria) and the cards it played this hand (``played``
    (B, n, 52) int8).  Use :meth:`step` in place of ``rules.step``, and
    :meth:`clear` for rows reset by hand."""

    def __init__(self, rules, batch: int):
        self.voids = np.zeros((batch, rules.num_players, NUM_SUITS), bool)
        self.maria_only = np.zeros((batch, rules.num_players), bool)
        self.played = np.zeros((batch, rules.num_players, NUM_TYPES), np.int8)

    def clear(self, rows) -> None:
        self.voids[rows] = False
        self.maria_only[rows] = False
        self.played[rows] = 0

    def select(self, rows) -> Tracker:
        """A tracker of the games in ``rows`` (copies), as ``BatchState.select``."""
        part = Tracker.__new__(Tracker)
        part.voids, part.maria_only, part.played = self.voids[rows], self.maria_only[rows], self.played[rows]
        return part

    def step(self, rules, state: BatchState, actions: np.ndarray) -> np.ndarray:
        actions = np.asarray(actions, np.int64)
        rows = np.flatnonzero((state.phase == PLAYING) & ~state.done)
        seat, card = state.current[rows], actions[rows] - PLAY0
        following = state.in_trick[rows] > 0
        led = SUIT[np.maximum(state.trick[rows, 0], 0)]
        off = following & (SUIT[card] != led)
        self.voids[rows[off], seat[off], led[off]] = True
        # the lead rules (the legal mask's: ``trick_no == 0`` is the opening lead)
        opening = ~following & (state.trick_no[rows] == 0) & BREAKS_HEARTS[card]
        hearts_only = ~following & (state.trick_no[rows] > 0) & ~state.hearts_broken[rows] & IS_HEART[card]
        for suit, told in ((CLUBS, opening | hearts_only), (DIAMONDS, opening | hearts_only), (SPADES, hearts_only)):
            self.voids[rows[told], seat[told], suit] = True
        self.maria_only[rows[opening], seat[opening]] = True
        self.played[rows, seat, card] += 1
        hand = state.hand_number.copy()
        rewards = rules.step(state, actions)
        self.clear(np.flatnonzero((state.hand_number != hand) | state.done))
        return rewards


@kernel
def constraints(seats, receiver, tracked, known, state_arrays, out):
    """The sampling problem of each row: places 0..n-1 the hands, n the
    widow, n + 1 + s seat s's cards set aside to pass, suits 0..3 and
    :data:`MARIA`; ``known`` the tracker's ``(played, voids, maria_only)``;
    ``out`` ``(unseen, capacity, allowed, forced, split)``: ``forced`` the
    cards the viewer passed that its receiver still holds (taken out of the
    problem, added back to the receiver): as many as it passed less those
    the receiver played (``played``) or, not ``tracked``, less every copy
    seen played this hand (the receiver may have played them); ``split``
    whether Black Maria counts in :data:`MARIA` (:func:`split_maria`)."""
    s = Arrays(*state_arrays)
    played, voids, maria_only = known
    unseen, capacity, allowed, forced, split = out
    n = s.hands.shape[1]
    maria = np.zeros(n, np.bool_)
    for row in range(seats.shape[0]):
        viewer = seats[row]
        unseen[row] = 0
        capacity[row] = 0
        allowed[row] = True
        forced[row] = 0
        for p in range(n):
            maria[p] = maria_only[row, p]
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
            trick_facts(row, s, allowed[row], maria)
        split[row] = split_maria(allowed[row], maria, viewer)
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
def trick_facts(row, s, allowed, maria):
    """What the trick in play of game ``row`` told (as :meth:`Tracker.step`
    reads each play): the voids of the seats that did not follow, and its
    lead -- an opening heart or Black Maria, or a heart led before hearts
    were broken (a heart or Black Maria seen this hand before this trick)."""
    n = maria.shape[0]
    lead, leader = s.trick[row, 0], s.leader[row]
    led = SUIT[lead]
    breakers = 0  # hearts and Black Marias in this trick
    for k in range(s.in_trick[row]):
        card = s.trick[row, k]
        breakers += BREAKS_HEARTS[card]
        if k > 0 and SUIT[card] != led:
            allowed[(leader + k) % n, led] = False
    if s.trick_no[row] == 0:
        if BREAKS_HEARTS[lead]:
            allowed[leader, CLUBS] = allowed[leader, DIAMONDS] = False
            maria[leader] = True
        return
    seen = 0
    for t in range(NUM_TYPES):
        if BREAKS_HEARTS[t]:
            seen += s.public[row, ob.SEEN + t]
    if IS_HEART[lead] and seen == breakers:  # hearts were not broken when it was led
        allowed[leader, CLUBS] = allowed[leader, DIAMONDS] = allowed[leader, SPADES] = False


@kernel
def split_maria(allowed, maria, viewer):
    """Whether Black Maria must count apart from the spades in this row (a
    hidden seat not void in spades is known to hold no spade but her); if
    so, column :data:`MARIA` of ``allowed`` is the spades' (a spade void
    holds no Black Maria either) and those seats' spades are cleared; if
    not, every place may hold the empty fifth suit (the problem is as it
    was without it)."""
    split = False
    for p in range(maria.shape[0]):
        split |= p != viewer and maria[p] and allowed[p, SPADES]
    for p in range(allowed.shape[0]):
        allowed[p, MARIA] = allowed[p, SPADES] or not split
    if split:
        for p in range(maria.shape[0]):
            if maria[p]:
                allowed[p, SPADES] = False
    return split


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
    allowed = np.empty((batch, 2 * n + 1, MAX_SUITS), np.bool_)
    forced = np.empty((batch, NUM_TYPES), np.int8)
    split = np.empty(batch, np.bool_)
    known = (tracker.played, tracker.voids, tracker.maria_only)
    constraints(seats, receiver, tracked, known, state.bundle(ArrayValues), (unseen, capacity, allowed, forced, split))
    suit_of = np.broadcast_to(SUIT, (batch, NUM_TYPES))
    if split.any():
        suit_of = suit_of.copy()
        suit_of[split, BLACK_MARIA] = MARIA
    return (unseen, suit_of, capacity, allowed), (receiver, forced)


def sample(
    rules, state: BatchState, seats, worlds: int, rng: np.random.Generator, tracker=None, out: BatchState | None = None
) -> BatchState:
    """``worlds`` complete states per row, uniform over the deals consistent
    with what ``seats[i]`` has seen in row i (with ``tracker``'s facts and
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
