"""Push's information-set sampler: worlds the seat cannot tell from the real
state (its observation of every world is its observation of the state),
cards conserved, the cards it saw taken or pushed kept with their holders,
the buried wilds kept under the stock, exactly uniform over the physical
deals (chi-squared against an enumeration, the stock's order included, and
with the seat to act half-way through a meld), blind to what the seat has
not seen, steppable to the end of the game."""

from __future__ import annotations

import numpy as np
import pytest
from search_helpers import chi2_pvalue, enumerate_deals, random_play, states_equal

from cardenvs.games.push.sampler import Tracker
from cardenvs.games.push.tables import DECK, IS_WILD, MELD, NO_MELD, NUM_TYPES
from cardenvs.registry import rules_class
from cardenvs.search import sample_worlds

RULES = rules_class("push_v0")()


def played(batch, steps, seed):
    """Random play (with a tracker) and the test's own reading of the cards
    each seat was seen to get: the discard it took or was pushed, minus
    what it has played since (the buried wilds aside, which the positions
    used below do not reach)."""
    rng = np.random.default_rng(seed)
    state = RULES.new_state(batch, rng)
    RULES.reset(state, np.arange(batch))
    tracker = Tracker(RULES, batch)
    seen = np.zeros((batch, 4, NUM_TYPES), int)
    for _ in range(steps):
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in state.legal])
        rows = np.flatnonzero(~state.done)
        seat = state.current[rows]
        top = state.pile[rows, state.pile_size[rows] - 1]
        before, rounds = state.hands[rows, seat].astype(int), state.hand_number.copy()
        tracker.step(RULES, state, actions)
        after = state.hands[rows, seat].astype(int)
        seen[rows, seat] = np.maximum(seen[rows, seat] - np.maximum(before - after, 0), 0)
        for k, row in enumerate(rows):
            action = RULES.actions.texts[actions[row]]
            if action == "take" or action.startswith("swap"):
                seen[row, seat[k]] += np.maximum(after[k] - before[k], 0)
            elif action == "push" and state.hand_number[row] == rounds[row]:
                seen[row, (seat[k] + 1) % 4, top[k]] += 1
        seen[(state.hand_number != rounds) | state.done] = 0
    return state, tracker, seen


def stock_of(state, w):
    return state.stock[w, state.stock_top[w] : state.stock_top[w] + state.stock_size[w]]


def deck_counts(state, w):
    """Every card of the game, wherever it is (must always be the deck)."""
    counts = state.hands[w].sum(0).astype(int) + state.pile_counts[w] + state.meld_counts[w].sum(0)
    return counts + np.bincount(stock_of(state, w), minlength=NUM_TYPES)


def test_worlds_look_the_same_to_the_seat_and_play_to_the_end():
    state, tracker, seen = played(48, 160, 0)
    assert np.array_equal(tracker.known, seen), "the tracker reads the play as the test does"
    assert seen.sum() > 20
    # the seat to act, and another seat (the seat to act is then hidden, often mid-meld)
    for shift in (0, 1, 2):
        seats = np.where(state.done, 0, (state.current + shift) % 4)
        k = 6
        out = sample_worlds(RULES, state, seats, k, np.random.default_rng(shift), tracker=tracker)
        src, viewer = np.repeat(np.arange(state.batch), k), np.repeat(seats, k)
        assert np.array_equal(RULES.observe(out, viewer), RULES.observe(state, seats)[src])
        rows = np.arange(out.batch)
        assert np.array_equal(out.hands[rows, viewer], state.hands[src, viewer])
        assert (out.hands >= tracker.known[src]).all(), "the cards seen taken stay with their holders"
        full = np.bincount(DECK.multiset, minlength=NUM_TYPES)
        for w in range(out.batch):
            assert np.array_equal(deck_counts(out, w), full)
            bottom = min(int(out.buried[w]), int(out.stock_size[w]))
            assert np.array_equal(
                stock_of(out, w)[len(stock_of(out, w)) - bottom :],
                stock_of(state, src[w])[len(stock_of(state, src[w])) - bottom :],
            )
        live = ~out.done
        assert out.legal[live].any(axis=1).all(), "the seat to act can always go on"
        hidden = (out.phase == MELD) & (out.current != viewer) & (out.pend != NO_MELD)
        if shift:
            assert hidden.any(), "some worlds hide a seat half-way through a meld"
        random_play(RULES, out, np.random.default_rng(9), 5000)
        assert out.done.all()


def shrink(state, row, viewer, known, keep, stock_keep):
    """One row of ``state``, smaller: all but ``keep`` unknown cards of each
    other hand and all but the top ``stock_keep`` stock cards go under the
    discard pile (public), so few cards are unseen."""
    small = state.select(np.array([row]))
    moved = []
    for s in range(4):
        if s == viewer:
            continue
        unknown = np.repeat(np.arange(NUM_TYPES), small.hands[0, s] - known[row, s])
        for card in unknown[keep:]:
            small.hands[0, s, card] -= 1
            small.held[0, s] -= 1
            moved.append(card)
    stock = stock_of(small, 0)
    moved += list(stock[stock_keep:])
    small.stock_size[0] = stock_keep
    small.buried[0] = 0
    pile = np.concatenate([moved, small.pile[0, : small.pile_size[0]]]).astype(np.int64)
    small.pile[0, : len(pile)] = pile
    small.pile_size[0] = len(pile)
    small.pile_counts[0] = np.bincount(pile, minlength=NUM_TYPES)
    return small


def sampled_keys(out, viewer, known, places):
    """Each world as (the unknown cards of each hidden hand, the stock in order)."""
    keys = []
    for w in range(out.batch):
        hands = tuple(tuple(np.repeat(np.arange(NUM_TYPES), out.hands[w, s] - known[s]).tolist()) for s in places)
        keys.append((hands, tuple(stock_of(out, w).tolist())))
    return keys


def enumerated(small, viewer, known, consistent=lambda hands: True):
    """Every consistent world of ``small`` (one row) as a key of
    :func:`sampled_keys`, with its number of physical deals: the unknown
    cards of the other hands and the stock cards, one place per stock
    position (so the order counts)."""
    places = [s for s in range(4) if s != viewer]
    unknown = [np.repeat(np.arange(NUM_TYPES), small.hands[0, s] - known[s]) for s in places]
    stock = stock_of(small, 0)
    cards = sorted([int(c) for part in unknown for c in part] + [int(c) for c in stock])
    caps = [len(part) for part in unknown] + [1] * len(stock)
    deals = enumerate_deals(cards, caps, lambda deal: consistent(deal[: len(places)]))
    keys = {}
    for deal, ways in deals.items():
        key = (deal[: len(places)], tuple(c for (c,) in deal[len(places) :]))
        keys[key] = keys.get(key, 0) + ways
    return places, keys


def chi2_against(small, viewer, known, places, keys, per_key, seed):
    """Chi-squared p-value of ``per_key`` worlds per consistent world
    sampled from ``small`` (in chunks: a Push world is ~10 kB) against
    their numbers of physical deals."""
    tracker = Tracker(RULES, 1)
    tracker.known[0] = known
    rng, seen, total = np.random.default_rng(seed), {}, per_key * len(keys)
    for start in range(0, total, 2000):
        out = sample_worlds(RULES, small, [viewer], min(2000, total - start), rng, tracker=tracker)
        for key in sampled_keys(out, viewer, known, places):
            seen[key] = seen.get(key, 0) + 1
    assert set(seen) <= set(keys), "a sampled world is not consistent"
    ways = sum(keys.values())
    order = sorted(keys)
    return chi2_pvalue([seen.get(k, 0) for k in order], [total * keys[k] / ways for k in order])


@pytest.mark.parametrize("seed", [1, 2])
def test_uniform_over_consistent_deals_stock_order_included(seed):
    state, tracker, seen = played(16, 60, seed)
    rows = np.flatnonzero(~state.done & ((seen.sum(2) > 0).sum(1) >= 2))
    assert rows.size
    row = int(rows[0])
    viewer = int(state.current[row])
    small = shrink(state, row, viewer, seen, keep=1, stock_keep=3)
    places, keys = enumerated(small, viewer, seen[row])
    assert len(keys) >= 20
    assert chi2_against(small, viewer, seen[row], places, keys, 30, seed) > 1e-3


def can_finish(state, depth=12):
    """Whether the seat to act in (one-row) ``state`` can play on, legal
    action after legal action, until it owes nothing this turn (no pending
    meld, no contract half laid, no owed wild) -- found by trying them."""
    seat = int(state.current[0])
    owes = state.pend[0] != NO_MELD or state.in_contract[0] or state.owed[0] >= 0
    if state.phase[0] != MELD or state.current[0] != seat or not owes:
        return True
    if depth == 0:
        return False
    for action in np.flatnonzero(state.legal[0]):
        after = state.copy()
        RULES.step(after, np.array([action]))
        if after.current[0] != seat or after.phase[0] != MELD or can_finish(after, depth - 1):
            return True
    return False


def test_uniform_when_the_seat_to_act_must_finish_a_meld():
    """The seat to act (not the viewer) is building a meld: only the worlds
    where its hand can finish it (and the rest of its contract) fit,
    uniformly; the test finds out by playing the turn out."""
    state, _, seen = played(64, 400, 3)
    mid = np.flatnonzero(~state.done & (state.pend != NO_MELD) & state.in_contract)
    assert mid.size, "a seat half-way through its contract"
    row = int(mid[0])
    mover = int(state.current[row])
    viewer = (mover + 1) % 4
    small = shrink(state, row, viewer, seen, keep=1, stock_keep=2)
    small.hands[0, mover] = state.hands[row, mover]  # the mover keeps what it needs: shrink it card by card
    small.held[0, mover] = small.hands[0, mover].sum()
    for card in np.repeat(np.arange(NUM_TYPES), state.hands[row, mover] - seen[row, mover]):
        trial = shrink_into(small, mover, card)
        if (trial.hands[0, mover] - seen[row, mover]).sum() >= 2 and can_finish(trial):
            small = trial
    RULES._write_masks(small, np.array([0]))
    assert can_finish(small)
    position = [s for s in range(4) if s != viewer].index(mover)
    verdicts = {}

    def consistent(hands):
        if hands[position] not in verdicts:
            trial = small.copy()
            trial.hands[0, mover] = seen[row, mover] + np.bincount(np.array(hands[position], int), minlength=NUM_TYPES)
            RULES._write_masks(trial, np.array([0]))
            verdicts[hands[position]] = can_finish(trial)
        return verdicts[hands[position]]

    places, keys = enumerated(small, viewer, seen[row], consistent)
    _, every = enumerated(small, viewer, seen[row])
    assert 2 <= len(keys) < len(every), "some deals would leave the mover stuck"
    assert chi2_against(small, viewer, seen[row], places, keys, 30, 5) > 1e-3


def shrink_into(small, seat, card):
    """A copy of ``small`` with a ``card`` of ``seat``'s hand under the
    discard pile (and its mask rewritten)."""
    trial = small.copy()
    trial.hands[0, seat, card] -= 1
    trial.held[0, seat] -= 1
    size = int(trial.pile_size[0])
    trial.pile[0, 1 : size + 1] = small.pile[0, :size]
    trial.pile[0, 0] = card
    trial.pile_size[0] = size + 1
    trial.pile_counts[0, card] += 1
    RULES._write_masks(trial, np.array([0]))
    return trial


def test_no_leak_of_unseen_cards():
    """A state and another world of it (same seen cards, other hidden ones)
    give identical worlds from the same seed, the seat to act or not."""
    state, tracker, _ = played(8, 90, 4)
    for shift in (0, 2):
        seats = np.where(state.done, 0, (state.current + shift) % 4)
        other = sample_worlds(RULES, state, seats, 1, np.random.default_rng(1), tracker=tracker)
        assert not np.array_equal(other.hands, state.hands)
        a = sample_worlds(RULES, state, seats, 12, np.random.default_rng(7), tracker=tracker)
        b = sample_worlds(RULES, other, seats, 12, np.random.default_rng(7), tracker=tracker)
        assert states_equal(a, b)
    rows = np.array([5, 2])  # a subset of the games with its part of the tracker: the same worlds
    part = sample_worlds(
        RULES, state.select(rows), seats[rows], 3, np.random.default_rng(2), tracker=tracker.select(rows)
    )
    assert (part.hands >= np.repeat(tracker.known[rows], 3, axis=0)).all()


def test_buried_wilds_stay_under_the_stock():
    rng = np.random.default_rng(0)
    state = RULES.new_state(400, rng)
    RULES.reset(state, np.arange(400))
    rows = np.flatnonzero(state.buried > 0)
    assert rows.size, "some deals bury wilds"
    for row in rows[:5]:
        order = stock_of(state, row)
        assert IS_WILD[order[-state.buried[row] :]].all()
    state = state.select(rows)
    out = sample_worlds(RULES, state, state.current, 50, np.random.default_rng(1))
    src = np.repeat(np.arange(state.batch), 50)
    for w in range(out.batch):
        bottom = int(out.buried[w])
        assert np.array_equal(stock_of(out, w)[-bottom:], stock_of(state, src[w])[-bottom:])
    tops = np.array([stock_of(out, w)[0] for w in range(out.batch)])
    assert len(set(tops.tolist())) > 20, "the rest of the stock is shuffled"


def test_bad_input():
    state, tracker, _ = played(4, 10, 5)
    with pytest.raises(ValueError):
        sample_worlds(RULES, state, 4, 2, np.random.default_rng(0), tracker=tracker)
    with pytest.raises(ValueError):
        sample_worlds(RULES, state, [0, 1], 2, np.random.default_rng(0), tracker=tracker)
    with pytest.raises(ValueError):
        sample_worlds(RULES, state, 0, 2, np.random.default_rng(0), tracker=Tracker(RULES, 5))
    wrong = Tracker(RULES, 4)
    wrong.known[:] = 3
    with pytest.raises(ValueError):
        sample_worlds(RULES, state, 0, 2, np.random.default_rng(0), tracker=wrong)
