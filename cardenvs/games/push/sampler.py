"""Information-set sampling for Push.

What the viewer (one seat per row) has seen: its own hand; every meld on
the table and the whole discard pile (public); the size of every hand and
of the stock; the wilds turned up at the deal and put under the stock
(``state.buried``: the bottom ``min(buried, stock_size)`` stock cards are
known); and, from a :class:`Tracker`, the cards each seat was seen to get:
the discard it took, the discard pushed to it, the wild it swapped off the
table (a stock card is seen only by the hand it goes to, unless it is one
of the buried wilds).  A seat still holds at least as many of a card as it
was seen to get minus as many as it has melded, laid off, swapped away or
discarded since (the viewer cannot tell a seen copy from an unseen twin).

Hidden places: the other seats' hands and the stock above its known
bottom.  Uniform over the physical deals: the seen cards stay with their
holders, every other unseen card is dealt uniformly over the hidden slots,
and the stock's order is a uniform shuffle.

The seat to act, if not the viewer and half-way through something it must
finish this turn (a pending meld, a contract, an owed wild), was offered
its earlier actions only because its hand could finish them: a world where
it cannot (its mask would be empty) is drawn again, which keeps the draw
exactly uniform over the worlds that fit (rejection).  Nothing else the
seats chose is used as evidence (no opponent model).

Without a tracker the seen cards are not used (the worlds are consistent
with less than the seat saw).
"""

from __future__ import annotations

import numpy as np

from ...core.game import BatchState
from ...core.jit import kernel
from ...core.sampling.base import NUM_SUITS, offsets, sample_cards
from ...core.sampling.streams import shuffle_span
from ...core.sampling.worlds import check_request, repeat_rows, seat_array
from .push_turn import can_finish
from .tables import (
    ACT_PUSH,
    ACT_SWAP_RUN,
    ACT_SWAP_SET,
    ACT_TAKE,
    ACTION_KIND,
    DISCARD0,
    DRAW,
    MELD,
    NO_MELD,
    NUM_TYPES,
    PLAIN_CARDS,
    PLAIN_TABLE,
    PLAIN_TURN,
)

#: What PIMC (:mod:`cardenvs.agents.pimc`) searches: phase -> the actions
#: searched in it.  None: every legal action, every time (the draw: take or
#: push); an id array: the search picks among those legal ids only when the
#: fallback would play one of them (the rule agent melds what it can, then
#: the search picks the discard).
SEARCHED = {DRAW: None, MELD: np.arange(DISCARD0, DISCARD0 + NUM_TYPES)}
#: PIMC's outcome is the side's score minus the other side's: Push's two
#: sides race to the lower total, so what a push costs the opponents counts
#: as much as our own penalty (tuning on seeds 902-903 against the rule
#: agent: the margin won clearly more games than the side's score alone).
MARGIN = True

NUM_SEATS = 4
STOCK = NUM_SEATS  # the place of the stock, after the four hands
MAX_REDRAWS = 10_000  # rounds of redrawing the worlds whose seat to act could not go on


class Tracker:
    """What the seats saw play out that the state does not keep: the cards
    each seat is known to hold (``known`` (B, 4, 53) int8, at least that
    many of each).  Use :meth:`step` in place of ``rules.step``, and
    :meth:`clear` for rows reset by hand."""

    def __init__(self, rules, batch: int):
        self.known = np.zeros((batch, NUM_SEATS, NUM_TYPES), np.int8)

    def clear(self, rows) -> None:
        self.known[rows] = 0

    def select(self, rows) -> Tracker:
        """A tracker of the games in ``rows`` (copies), as ``BatchState.select``
        (what a search agent hands on with a subset of the games)."""
        part = Tracker.__new__(Tracker)
        part.known = self.known[rows]
        return part

    def step(self, rules, state: BatchState, actions: np.ndarray) -> np.ndarray:
        actions = np.asarray(actions, np.int64)
        rows = np.flatnonzero(~state.done)
        seat = state.current[rows]
        kind = ACTION_KIND[actions[rows]]
        before = state.hands[rows, seat].astype(np.int16)
        pushes = rows[(kind == ACT_PUSH) & (state.stock_size[rows] >= 2)]
        pushed = self._pushed(state, pushes)
        rounds = state.hand_number.copy()
        rewards = rules.step(state, actions)
        after = state.hands[rows, seat].astype(np.int16)
        known = np.maximum(self.known[rows, seat] - np.maximum(before - after, 0), 0)
        public = np.isin(kind, (ACT_TAKE, ACT_SWAP_RUN, ACT_SWAP_SET))[:, None]
        self.known[rows, seat] = known + np.where(public, np.maximum(after - before, 0), 0)
        for holder, card, seen in pushed:
            np.add.at(self.known, (pushes[seen], holder[seen], card[seen]), 1)
        self.clear(np.flatnonzero((state.hand_number != rounds) | state.done))
        return rewards

    @staticmethod
    def _pushed(state: BatchState, rows: np.ndarray) -> list[tuple[np.ndarray, ...]]:
        """Before a push in ``rows``: (holder, card, seen) of the discard going
        left (seen), the stock card going left and the one the pusher draws
        (seen only if they are buried wilds)."""
        seat, top, size = state.current[rows], state.stock_top[rows], state.stock_size[rows]
        known_from = top + size - np.minimum(state.buried[rows], size)
        left = (seat + 1) % NUM_SEATS
        discard = state.pile[rows, state.pile_size[rows] - 1]
        return [
            (left, discard, np.ones(len(rows), bool)),
            (left, state.stock[rows, top], top >= known_from),
            (seat, state.stock[rows, top + 1], top + 1 >= known_from),
        ]


@kernel
def constraints(seats, known, hands, stock, stock_top, stock_size, buried, unseen, capacity):
    """The sampling problem of each row: places 0..3 the hands (what is not
    known of them), 4 the stock above its known bottom.  Returns the first
    row whose ``known`` exceeds a hand (-1: none)."""
    for row in range(seats.shape[0]):
        viewer = seats[row]
        unseen[row] = 0
        capacity[row] = 0
        for s in range(NUM_SEATS):
            if s == viewer:
                continue
            for t in range(NUM_TYPES):
                rest = hands[row, s, t] - known[row, s, t]
                if rest < 0:
                    return row
                unseen[row, t] += rest
                capacity[row, s] += rest
        hidden = stock_size[row] - min(buried[row], stock_size[row])
        for j in range(hidden):
            unseen[row, stock[row, stock_top[row] + j]] += 1
        capacity[row, STOCK] = hidden
    return -1


@kernel
def build_worlds(targets, rows, seats, known, source_hands, cards, offset, seeds, hands, stock, stock_top):
    """Worlds ``targets[k]`` (of row ``rows[k]``, dealt ``cards[k]`` with
    place p's cards from ``offset[k, p]``): the viewer's hand from its row,
    the others' known cards plus their share of the deal, the stock's
    hidden part from the deal in a uniform order (the world's stream,
    ``seeds[k]``)."""
    for k in range(targets.shape[0]):
        w, i = targets[k], rows[k]
        v = seats[i]
        hands[w] = known[i]
        hands[w, v] = source_hands[i, v]
        for s in range(NUM_SEATS):
            for at in range(offset[k, s], offset[k, s + 1]):
                hands[w, s, cards[k, at]] += 1
        top, count = stock_top[w], offset[k, STOCK + 1] - offset[k, STOCK]
        for j in range(count):
            stock[w, top + j] = cards[k, offset[k, STOCK] + j]
        seeds[k] = shuffle_span(stock[w], top, count, count - 1, seeds[k])


def sample(
    rules, state: BatchState, seats, worlds: int, rng: np.random.Generator, tracker=None, out: BatchState | None = None
) -> BatchState:
    """``worlds`` complete states per row, uniform over the deals consistent
    with what ``seats[i]`` has seen in row i (with ``tracker``'s seen
    cards): a state of B * worlds rows, row i's worlds at
    ``i * worlds .. (i + 1) * worlds - 1``."""
    batch = state.batch
    check_request(worlds, rng)
    seats = seat_array(seats, batch, rules.num_players)
    known = np.zeros((batch, NUM_SEATS, NUM_TYPES), np.int8) if tracker is None else tracker.known
    if known.shape != (batch, NUM_SEATS, NUM_TYPES):
        raise ValueError(f"the tracker is for {known.shape[0]} rows, the state has {batch}")
    unseen = np.empty((batch, NUM_TYPES), np.int8)
    capacity = np.empty((batch, NUM_SEATS + 1), np.int64)
    bad = constraints(
        seats, known, state.hands, state.stock, state.stock_top, state.stock_size, state.buried, unseen, capacity
    )
    if bad >= 0:
        raise ValueError(f"row {bad}: the tracker knows of cards a hand does not hold (not this state's tracker?)")
    problem = (
        unseen,
        np.zeros((batch, NUM_TYPES), np.int64),
        capacity,
        np.ones((batch, NUM_SEATS + 1, NUM_SUITS), bool),
    )
    out = repeat_rows(state, worlds, rng, fill=("hands",), out=out)
    cards, seeds = sample_cards(*problem, worlds, rng)
    build = (seats, known, state.hands, cards, np.repeat(offsets(capacity), worlds, axis=0), seeds)
    build_worlds(np.arange(out.batch), np.repeat(np.arange(batch), worlds), *build, out.hands, out.stock, out.stock_top)
    redraw_stuck(rules, out, problem, worlds, seats, known, state.hands, rng)
    return out


def redraw(out, targets, problem, worlds, seats, known, source_hands, rng) -> None:
    """Deal worlds ``targets`` of ``out`` anew, each from its row's problem."""
    rows = targets // worlds
    unseen, suit_of, capacity, allowed = (part[rows] for part in problem)
    cards, seeds = sample_cards(unseen, suit_of, capacity, allowed, 1, rng)
    build = (seats, known, source_hands, cards, offsets(capacity), seeds)
    build_worlds(targets, rows, *build, out.hands, out.stock, out.stock_top)


def redraw_stuck(rules, out, problem, worlds, seats, known, source_hands, rng) -> None:
    """Write the masks of the worlds whose seat to act is not the viewer,
    and draw again (until none is left) those whose seat to act, half-way
    through a meld, a contract or an owed wild, cannot finish it
    (:mod:`.push_turn`)."""
    viewer = np.repeat(seats, worlds)
    other = np.flatnonzero((out.phase == MELD) & (out.current != viewer) & ~out.done)
    if not other.size:
        return
    committed = other[(out.pend[other] != NO_MELD) | out.in_contract[other] | (out.owed[other] >= 0)]
    rules._write_masks(out, other)
    for _ in range(MAX_REDRAWS):
        ok = np.empty(len(committed), bool)
        bundles = (out.bundle(PLAIN_CARDS), out.bundle(PLAIN_TABLE), out.bundle(PLAIN_TURN))
        can_finish(committed, rules.kernel_config, *bundles, ok)
        stuck = committed[~(ok & out.legal[committed].any(axis=1))]
        if not stuck.size:
            return
        redraw(out, stuck, problem, worlds, seats, known, source_hands, rng)
        rules._write_masks(out, stuck)
        committed = stuck
    raise ValueError(f"{stuck.size} world(s): no deal found in which the seat to act can finish its turn")
