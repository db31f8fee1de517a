"""Information-set sampling for Pepper.

What the viewer (one seat per row) has seen, all read from the state:
its own hand; every card played (``history`` of the tricks done, ``trick``
for the one in play) and who played it, so the voids: a seat that did not
follow the (effective) suit led holds none of it -- the bowers count in the
trump suit, by :data:`~cardenvs.games.pepper.tables.EFFECTIVE_SUIT` under the
trump named; the size of every hand; at 2 players the dead hand's size.
The bids and the trump are public and do not constrain the deal (a sample
is uniform over the deals, not weighted by how likely a deal made anyone
bid as they did).

Hidden places: the other seats' hands and (2 players) the dead hand.  The
world copies every array of its row and overwrites those places; the mask
of the seat to act is recomputed when that seat is not the viewer.
"""

from __future__ import annotations

import numpy as np

from ...core.game import BatchState
from ...core.jit import kernel
from ...core.sampling.base import NUM_SUITS, offsets, sample_cards
from ...core.sampling.worlds import check_request, repeat_rows, seat_array
from .legal import play_mask
from .tables import EFFECTIVE_SUIT, NO_TRUMP, NUM_TYPES, PLAYING

#: What PIMC (:mod:`cardenvs.agents.pimc`) searches: phase -> the actions
#: searched in it (None: every legal one): the card play.
SEARCHED = {PLAYING: None}


@kernel
def constraints(seats, trump, hands, dead, history, trick_no, trick_leaders, trick, leader, unseen, capacity, allowed):
    """The sampling problem of each row (see :mod:`.base`): the places are
    the seats' hands (0..n-1) and the dead hand (n)."""
    num_players = hands.shape[1]
    for row in range(seats.shape[0]):
        viewer = seats[row]
        suit_of = EFFECTIVE_SUIT[trump[row] if trump[row] >= 0 else NO_TRUMP]
        for t in range(NUM_TYPES):
            unseen[row, t] = 0
        for p in range(num_players):
            capacity[row, p] = 0
            if p != viewer:
                for t in range(NUM_TYPES):
                    unseen[row, t] += hands[row, p, t]
                    capacity[row, p] += hands[row, p, t]
            for suit in range(NUM_SUITS):
                allowed[row, p, suit] = True
        capacity[row, num_players] = 0
        for t in range(NUM_TYPES):
            unseen[row, t] += dead[row, t]
            capacity[row, num_players] += dead[row, t]
        for suit in range(NUM_SUITS):
            allowed[row, num_players, suit] = True
        for k in range(trick_no[row]):
            mark_voids(history[row, k], trick_leaders[row, k], suit_of, allowed[row])
        if trick[row, leader[row]] >= 0:
            mark_voids(trick[row], leader[row], suit_of, allowed[row])


@kernel
def mark_voids(cards, lead_seat, suit_of, allowed):
    """A seat whose card in one trick (``cards`` by seat, -1 not played) is
    not of the effective suit led is void in it."""
    led = suit_of[cards[lead_seat]]
    for seat in range(cards.shape[0]):
        if cards[seat] >= 0 and suit_of[cards[seat]] != led:
            allowed[seat, led] = False


@kernel
def refresh_masks(rows, legal, hands, current, trump, trick, leader):
    """The play mask of the seat to act in ``rows`` (its hand was resampled)."""
    for i in range(rows.shape[0]):
        row = rows[i]
        lead_card = trick[row, leader[row]]
        led = -1 if lead_card < 0 else EFFECTIVE_SUIT[trump[row], lead_card]
        play_mask(legal, hands, row, current[row], trump[row], led)


def problem(state: BatchState, seats: np.ndarray) -> tuple[np.ndarray, ...]:
    """``(unseen, suit_of, capacity, allowed)`` of each row seen by ``seats``."""
    batch, num_players = state.hands.shape[:2]
    unseen = np.empty((batch, NUM_TYPES), np.int8)
    capacity = np.empty((batch, num_players + 1), np.int64)
    allowed = np.empty((batch, num_players + 1, NUM_SUITS), np.bool_)
    constraints(
        seats,
        state.trump,
        state.hands,
        state.dead,
        state.history,
        state.trick_no,
        state.trick_leaders,
        state.trick,
        state.leader,
        unseen,
        capacity,
        allowed,
    )
    suit_of = EFFECTIVE_SUIT[np.where(state.trump >= 0, state.trump, NO_TRUMP)].astype(np.int64)
    return unseen, suit_of, capacity, allowed


@kernel
def build_worlds(worlds, seats, cards, offset, source_hands, hands, dead):
    """Each world's hands and dead hand: the viewer's hand from its row,
    the other places from the world's compact deal (``cards``, place p's
    from ``offset[i, p]``: the seats, then the dead hand)."""
    n = hands.shape[1]
    for w in range(hands.shape[0]):
        i = w // worlds
        hands[w] = 0
        dead[w] = 0
        hands[w, seats[i]] = source_hands[i, seats[i]]
        for p in range(n + 1):
            for at in range(offset[i, p], offset[i, p + 1]):
                if p < n:
                    hands[w, p, cards[w, at]] += 1
                else:
                    dead[w, cards[w, at]] += 1


def sample(
    rules, state: BatchState, seats, worlds: int, rng: np.random.Generator, out: BatchState | None = None
) -> BatchState:
    """``worlds`` complete states per row, uniform over the deals consistent
    with what ``seats[i]`` has seen in row i: a state of B * worlds rows, row
    i's worlds at ``i * worlds .. (i + 1) * worlds - 1``."""
    check_request(worlds, rng)
    seats = seat_array(seats, state.batch, rules.num_players)
    unseen, suit_of, capacity, allowed = problem(state, seats)
    cards, _ = sample_cards(unseen, suit_of, capacity, allowed, worlds, rng)
    out = repeat_rows(state, worlds, rng, fill=("hands", "dead"), out=out)
    build_worlds(worlds, seats, cards, offsets(capacity), state.hands, out.hands, out.dead)
    viewer = np.repeat(seats, worlds)
    stale = np.flatnonzero((out.phase == PLAYING) & ~out.done & (out.current != viewer))
    if stale.size:
        refresh_masks(stale, out.legal, out.hands, out.current, out.trump, out.trick, out.leader)
    return out
