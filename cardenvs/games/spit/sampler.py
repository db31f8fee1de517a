"""Information-set sampling for Spit and Speed (``spit_v0``): the face-down
cards drawn uniformly among the arrangements consistent with what the seat
has seen.  All read from the state; no tracker.

Spit: nothing is private -- both players see the same cards -- so the
seat does not matter.  Seen: every face-up card (the stockpile tops, both
spit piles: every card in them landed face up) and which player gathered
which face-up cards at the end of each deal (``state.gathered``: a card
gathered face up by a player and face down since is known to be that
player's).  Hidden places: each player's face-down stockpile cards and
spit cards; the cards nobody has seen are split between the players by
their numbers of hidden cards, each player's hidden cards (seen ones
included) in a uniform order over its hidden slots.

Speed: seen by the seat: its own hand, the centre piles (every card landed
face up), and whether the side piles were rebuilt from the centre this
game (``state.side_rebuilt``: then their cards are known, not their
order).  Hidden places: the opponent's hand, both stocks (in order), the
side piles (in order).  If the seat cannot play and the game did not stall,
the opponent can (else the side piles would have turned): the worlds where
it could not are drawn again (rejection, so still uniform over the worlds
that fit).  What earlier stalls told (that neither could play then) is not
used.
"""

from __future__ import annotations

import numpy as np

from ...core.game import BatchState
from ...core.jit import kernel
from ...core.sampling.base import NUM_SUITS, offsets, sample_cards
from ...core.sampling.streams import shuffle_span
from ...core.sampling.worlds import check_request, repeat_rows, seat_array
from .speed import legal as speed_legal
from .speed.tables import card_of, pile_of
from .tables import PLAYING, WAIT

MAX_REDRAWS = 10_000


class Tracker:
    """What Speed's stalls told that the state does not keep: the cards each
    seat is known not to hold (``unfit`` (B, 2, 52) bool): those that fitted
    a centre top when the side piles flipped, since the seat last drew a
    card.  Use :meth:`step` in place of ``rules.step``, and :meth:`clear`
    for rows reset by hand.  A stall the tracker cannot read for sure (side
    piles rebuilt in the step, or empty before it) is left out: the worlds
    are then consistent with less than the seat saw, never with more."""

    def __init__(self, rules, batch: int):
        if getattr(rules, "variant", None) != "speed":
            raise ValueError("only Speed has a tracker (nothing is private in Spit)")
        self.unfit = np.zeros((batch, 2, 52), bool)

    def clear(self, rows) -> None:
        self.unfit[rows] = False

    def select(self, rows) -> Tracker:
        """A tracker of the games in ``rows`` (copies), as ``BatchState.select``."""
        part = Tracker.__new__(Tracker)
        part.unfit = self.unfit[rows]
        return part

    def step(self, rules, state: BatchState, actions: np.ndarray) -> np.ndarray:
        actions = np.asarray(actions, np.int64)
        names = ("hand", "stock_count", "centre", "centre_count", "side_count", "deals", "done")
        before = {name: getattr(state, name).copy() for name in names}
        rewards = rules.step(state, actions)
        new_game = (state.deals != before["deals"]) | state.done
        self.clear(np.flatnonzero(new_game))
        drew = state.stock_count < before["stock_count"]  # (its hand is no longer the one the stalls saw)
        self.unfit[drew & ~new_game[:, None]] = False
        flipped = (state.side_count != before["side_count"]).any(1) & ~new_game
        for row in np.flatnonzero(flipped & (before["side_count"].sum(1) > 0)):
            tops = stall_tops(state, row, {name: value[row] for name, value in before.items()}, actions[row])
            for top in tops:
                self.unfit[row] |= (rules.fits[top[0]] | rules.fits[top[1]])[None]
        return rewards


def stall_tops(state: BatchState, row: int, before: dict, actions: np.ndarray) -> list[tuple[int, int]]:
    """The centre tops before each flip of the side piles in the last step
    of game ``row`` (``before``: its arrays before the step; ``actions`` the
    two seats'); none if it cannot tell (the piles were rebuilt: the centre
    piles then no longer start with what they held before)."""
    start = before["centre_count"]
    if any((state.centre[row, p, : start[p]] != before["centre"][p, : start[p]]).any() for p in range(2)):
        return []
    landed = [0, 0]
    for seat in range(2):
        card, pile = card_of(actions[seat]), pile_of(actions[seat])
        if actions[seat] != WAIT and before["hand"][seat, card] and not state.hand[row, seat, card]:
            landed[pile] += 1
    after = [start[p] + landed[p] for p in range(2)]
    flips = [int(state.centre_count[row, p]) - after[p] for p in range(2)]
    if any(flips[p] != before["side_count"][p] - state.side_count[row, p] or flips[p] < 0 for p in range(2)):
        return []
    tops = [int(state.centre[row, p, after[p] - 1]) for p in range(2)]
    out = []
    for r in range(max(flips)):
        out.append((tops[0], tops[1]))
        tops = [int(state.centre[row, p, after[p] + r]) if r < flips[p] else tops[p] for p in range(2)]
    return out


@kernel
def spit_constraints(
    gathered, stockpiles, stockpile_count, spit_cards, spit_count, unseen, capacity, known, known_count
):
    """The problem of each row: places 0 and 1 the players' face-down cards
    that nobody has seen; ``known[row, seat, :known_count[row, seat]]`` the
    face-down cards known to be that player's."""
    for row in range(unseen.shape[0]):
        unseen[row] = 0
        for seat in range(2):
            capacity[row, seat] = 0
            known_count[row, seat] = 0
            for i in range(stockpiles.shape[2]):
                for h in range(stockpile_count[row, seat, i] - 1):
                    hidden_card(row, seat, stockpiles[row, seat, i, h], gathered, unseen, capacity, known, known_count)
            for h in range(spit_count[row, seat]):
                hidden_card(row, seat, spit_cards[row, seat, h], gathered, unseen, capacity, known, known_count)
            # in card order, not slot order: the slots are what is hidden
            known[row, seat, : known_count[row, seat]] = np.sort(known[row, seat, : known_count[row, seat]])


@kernel
def hidden_card(row, seat, card, gathered, unseen, capacity, known, known_count):
    """A face-down card of ``seat``: known to be its, or nobody has seen it."""
    if gathered[row, card] == seat:
        known[row, seat, known_count[row, seat]] = card
        known_count[row, seat] += 1
    else:
        unseen[row, card] += 1
        capacity[row, seat] += 1


@kernel
def spit_worlds(worlds, cards, offset, seeds, known, known_count, stockpiles, stockpile_count, spit_cards, spit_count):
    """Each world's face-down cards: per player, the ones it is known to
    hold and its share of the compact deal, shuffled over its face-down
    slots (stockpiles bottom up, then the spit cards)."""
    hidden = np.empty(52, np.int64)
    for w in range(cards.shape[0]):
        i = w // worlds
        for seat in range(2):
            n = 0
            for at in range(offset[i, seat], offset[i, seat + 1]):
                hidden[n] = cards[w, at]
                n += 1
            for k in range(known_count[i, seat]):
                hidden[n] = known[i, seat, k]
                n += 1
            seeds[w] = shuffle_span(hidden, 0, n, n - 1, seeds[w])
            n = 0
            for pile in range(stockpiles.shape[2]):
                for h in range(stockpile_count[w, seat, pile] - 1):
                    stockpiles[w, seat, pile, h] = hidden[n]
                    n += 1
            for h in range(spit_count[w, seat]):
                spit_cards[w, seat, h] = hidden[n]
                n += 1


def sample_spit(rules, state: BatchState, worlds: int, rng: np.random.Generator, out=None) -> BatchState:
    """Spit's worlds (the seat does not matter: nothing is private)."""
    batch = state.batch
    unseen, capacity = np.empty((batch, 52), np.int8), np.empty((batch, 2), np.int64)
    known, known_count = np.empty((batch, 2, 52), np.int8), np.empty((batch, 2), np.int64)
    hidden = (state.stockpiles, state.stockpile_count, state.spit_cards, state.spit_count)
    spit_constraints(state.gathered, *hidden, unseen, capacity, known, known_count)
    suit_of, allowed = free_suits(batch, 2)
    cards, seeds = sample_cards(unseen, suit_of, capacity, allowed, worlds, rng)
    out = repeat_rows(state, worlds, rng, out=out)
    hidden = (out.stockpiles, out.stockpile_count, out.spit_cards, out.spit_count)
    spit_worlds(worlds, cards, offsets(capacity), seeds, known, known_count, *hidden)
    return out


def free_suits(batch: int, places: int) -> tuple[np.ndarray, np.ndarray]:
    """``suit_of`` and ``allowed`` of a problem without voids (one place for
    one suit, every place for all): its cards go anywhere."""
    return np.zeros((batch, 52), np.int64), np.ones((batch, places, NUM_SUITS), bool)


# Speed's hidden places: the opponent's hand, the viewer's stock, the
# opponent's stock, the side piles (when nobody has seen their cards).
OPPONENT_HAND, OWN_STOCK, OPPONENT_STOCK, SIDES = range(4)


@kernel
def speed_constraints(seats, hand, stock, stock_count, side_piles, side_count, side_rebuilt, unseen, capacity):
    """The problem of each row seen by ``seats[row]``."""
    for row in range(seats.shape[0]):
        v = seats[row]
        o = 1 - v
        unseen[row] = 0
        capacity[row] = 0
        for card in range(52):
            if hand[row, o, card]:
                unseen[row, card] += 1
                capacity[row, OPPONENT_HAND] += 1
        for place, seat in ((OWN_STOCK, v), (OPPONENT_STOCK, o)):
            for h in range(stock_count[row, seat]):
                unseen[row, stock[row, seat, h]] += 1
                capacity[row, place] += 1
        if not side_rebuilt[row]:
            for pile in range(2):
                for h in range(side_count[row, pile]):
                    unseen[row, side_piles[row, pile, h]] += 1
                    capacity[row, SIDES] += 1


@kernel
def speed_worlds(targets, rows, seats, cards, offset, seeds, hand, stock, stock_count, side_piles, side_count):
    """Worlds ``targets[k]`` (of row ``rows[k]``, dealt ``cards[k]``): the
    opponent's hand, both stocks in a uniform order, and the side piles'
    cards (dealt, or the known ones of rebuilt piles: those in the world
    already) in a uniform order over both piles' slots."""
    work = np.empty(52, np.int64)
    for k in range(targets.shape[0]):
        w, i = targets[k], rows[k]
        v = seats[i]
        o = 1 - v
        seed = seeds[k]
        hand[w, o, :] = False
        for at in range(offset[k, OPPONENT_HAND], offset[k, OPPONENT_HAND + 1]):
            hand[w, o, cards[k, at]] = True
        for place, seat in ((OWN_STOCK, v), (OPPONENT_STOCK, o)):
            n = offset[k, place + 1] - offset[k, place]
            for j in range(n):
                work[j] = cards[k, offset[k, place] + j]
            seed = shuffle_span(work, 0, n, n - 1, seed)
            for j in range(n):
                stock[w, seat, j] = work[j]
        n = 0
        dealt = offset[k, SIDES + 1] > offset[k, SIDES]
        for pile in range(2):
            for h in range(side_count[w, pile]):
                work[n] = cards[k, offset[k, SIDES] + n] if dealt else side_piles[w, pile, h]
                n += 1
        if not dealt:  # (the known cards in card order, not in their hidden order)
            work[:n] = np.sort(work[:n])
        seed = shuffle_span(work, 0, n, n - 1, seed)
        n = 0
        for pile in range(2):
            for h in range(side_count[w, pile]):
                side_piles[w, pile, h] = work[n]
                n += 1
        seeds[k] = seed


def sample_speed(
    rules, state: BatchState, seats: np.ndarray, worlds: int, rng: np.random.Generator, out=None, tracker=None
) -> BatchState:
    """Speed's worlds seen by ``seats``, the stalled ones drawn again; with
    ``tracker``, the opponent's hand holds none of the cards its stalls
    showed it did not hold (a void of the problem: suit 1)."""
    batch = state.batch
    unseen, capacity = np.empty((batch, 52), np.int8), np.empty((batch, 4), np.int64)
    hidden = (state.stock, state.stock_count, state.side_piles, state.side_count, state.side_rebuilt)
    speed_constraints(seats, state.hand, *hidden, unseen, capacity)
    suit_of, allowed = free_suits(batch, 4)
    if tracker is not None:
        if tracker.unfit.shape != (batch, 2, 52):
            raise ValueError(f"the tracker is for {tracker.unfit.shape[0]} rows, the state has {batch}")
        suit_of[tracker.unfit[np.arange(batch), 1 - seats]] = 1
        allowed[:, OPPONENT_HAND, 1] = False
    out = repeat_rows(state, worlds, rng, out=out)
    parts = (out.hand, out.stock, out.stock_count, out.side_piles, out.side_count)
    cards, seeds = sample_cards(unseen, suit_of, capacity, allowed, worlds, rng)
    targets = np.arange(out.batch)
    rows = targets // worlds
    speed_worlds(targets, rows, seats, cards, np.repeat(offsets(capacity), worlds, axis=0), seeds, *parts)
    for _ in range(MAX_REDRAWS):
        targets = targets[stalled(rules, out, targets)]
        if not targets.size:
            break
        rows = targets // worlds
        cards, seeds = sample_cards(unseen[rows], suit_of[rows], capacity[rows], allowed[rows], 1, rng)
        speed_worlds(targets, rows, seats, cards, offsets(capacity[rows]), seeds, *parts)
    else:
        raise ValueError(f"{targets.size} world(s): no deal found in which the game goes on")
    speed_legal.write_masks(out, None, speed_legal.playable(rules.fits, out, None))
    return out


def stalled(rules, out: BatchState, targets: np.ndarray) -> np.ndarray:
    """Which worlds ``targets`` nobody could play in while the game is on
    (the viewer seeing it go on knows the opponent can play)."""
    plays = speed_legal.playable(rules.fits, out, targets).any(axis=(2, 3))  # (k, 2): each seat can play
    return (out.phase[targets] == PLAYING) & ~out.done[targets] & ~plays.any(axis=1)


def sample(
    rules,
    state: BatchState,
    seats,
    worlds: int,
    rng: np.random.Generator,
    tracker=None,
    out: BatchState | None = None,
) -> BatchState:
    """``worlds`` complete states per row, uniform over the face-down cards
    consistent with what ``seats[i]`` has seen in row i (Speed: with
    ``tracker``'s stalls): a state of B * worlds rows, row i's worlds at
    ``i * worlds .. (i + 1) * worlds - 1``."""
    check_request(worlds, rng)
    seats = seat_array(seats, state.batch, rules.num_players)
    if rules.variant == "speed":
        return sample_speed(rules, state, seats, worlds, rng, out, tracker)
    if tracker is not None:
        raise ValueError("Spit has no tracker (nothing is private)")
    return sample_spit(rules, state, worlds, rng, out)
