"""The game-free sampler core: exactly uniform over the physical deals that
respect the voids (chi-squared against an enumeration) on each of its
paths -- one group, fixed takes (every voided suit allowed in one group
only), drawn takes (a dynamic program) -- with twin cards, and equal worlds
from equal problems and seeds."""

from __future__ import annotations

import numpy as np
import pytest
from search_helpers import chi2_pvalue, enumerate_deals

from cardenvs.search.base import offsets, sample_cards, sample_deals

SUIT = np.arange(8) // 2  # 8 card types, two per suit
# a fifth suit, as Hearts counts Black Maria (type 8) apart from the other spades (suit 3)
FIVE_SUITS = np.array([0, 0, 1, 1, 2, 2, 3, 3, 4])


def problem(cards, capacity, voids, suit=SUIT):
    """One row: ``cards`` (types, twins repeated), places of ``capacity``,
    ``voids`` a set of (place, suit), ``suit`` each card type's suit."""
    unseen = np.bincount(cards, minlength=len(suit)).astype(np.int8)[None]
    allowed = np.ones((1, len(capacity), suit.max() + 1), bool)
    for place, void in voids:
        allowed[0, place, void] = False
    return unseen, suit[None].astype(np.int64), np.array([capacity], np.int64), allowed


CASES = {
    "one group": ([0, 1, 2, 3, 4, 5, 6, 7, 3], [3, 0, 2, 4], set()),
    "fixed takes": ([0, 1, 2, 3, 4, 5, 6, 7, 3], [3, 2, 4], {(0, 1), (1, 1)}),
    "drawn takes": ([0, 0, 1, 2, 3, 4, 5, 6, 7], [3, 3, 3], {(0, 1), (1, 2), (2, 0)}),
    "three voids": ([0, 1, 2, 3, 4, 5, 6, 7, 7], [2, 3, 2, 2], {(0, 0), (1, 1), (2, 2), (0, 3)}),
    # place 0 holds only suit 2 and the fifth (Hearts: an opening heart lead), place 1 none of suits 3
    # and 4 (a spade void holds no Black Maria either), place 2 no suit 2
    "five suits": (
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 8],
        [3, 3, 2, 2],
        {(0, 0), (0, 1), (0, 3), (1, 3), (1, 4), (2, 2)},
        FIVE_SUITS,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_uniform_over_the_deals_that_respect_the_voids(case):
    cards, capacity, voids, suit = (*CASES[case], SUIT)[:4]
    unseen, suit_of, cap, allowed = problem(cards, capacity, voids, suit)

    def consistent(deal):
        return all((p, suit[c]) not in voids for p, hand in enumerate(deal) for c in hand)

    deals = enumerate_deals(sorted(cards), capacity, consistent)
    assert len(deals) >= 5
    worlds = 200 * len(deals)
    counts = sample_deals(unseen, suit_of, cap, allowed, worlds, np.random.default_rng(len(case)))
    seen = {}
    for w in range(worlds):
        key = tuple(tuple(int(t) for t in np.repeat(np.arange(len(suit)), counts[w, p])) for p in range(len(capacity)))
        seen[key] = seen.get(key, 0) + 1
    assert set(seen) <= set(deals), "a sampled deal breaks a void"
    total = sum(deals.values())
    keys = sorted(deals)
    assert chi2_pvalue([seen.get(k, 0) for k in keys], [worlds * deals[k] / total for k in keys]) > 1e-3


def test_compact_rows_and_equal_problems_give_equal_worlds():
    cards, capacity, voids = CASES["drawn takes"]
    one = problem(cards, capacity, voids)
    rows = tuple(np.concatenate([part, part]) for part in one)
    a, seeds_a = sample_cards(*rows, 7, np.random.default_rng(3))
    b, seeds_b = sample_cards(*rows, 7, np.random.default_rng(3))
    assert np.array_equal(a, b) and np.array_equal(seeds_a, seeds_b)
    assert not np.array_equal(a[:7], a[7:]), "each world its own stream"
    start = offsets(rows[2])
    assert np.array_equal(start[0], [0, 3, 6, 9])
    for w in range(a.shape[0]):
        assert sorted(a[w].tolist()) == sorted(cards)


def test_contradictions_are_refused():
    unseen, suit_of, cap, allowed = problem([0, 1, 2, 3], [2, 2], {(0, 0), (1, 0)})  # nobody may hold clubs
    with pytest.raises(ValueError):
        sample_cards(unseen, suit_of, cap, allowed, 2, np.random.default_rng(0))
    unseen, suit_of, cap, allowed = problem([0, 1, 2], [2, 2], set())  # more places than cards
    with pytest.raises(ValueError):
        sample_cards(unseen, suit_of, cap, allowed, 2, np.random.default_rng(0))
    unseen, suit_of, cap, allowed = problem([0, 1, 2, 3], [2, 2], set(), np.arange(6))  # six suits: one too many
    with pytest.raises(ValueError, match="at most 5 suits"):
        sample_cards(unseen, suit_of, cap, allowed, 2, np.random.default_rng(0))


@pytest.mark.parametrize("game", ["pepper_v0", "cancellation_hearts_v0", "push_v0"])
def test_recycled_output_gives_the_same_worlds(game):
    """``out=`` an earlier result: the same worlds, in that result's memory;
    the state itself as ``out`` is not written over."""
    from search_helpers import random_play, states_equal

    from cardenvs.registry import rules_class
    from cardenvs.search import sample_worlds

    rules = rules_class(game)()
    rng = np.random.default_rng(0)
    state = rules.new_state(6, rng)
    rules.reset(state, np.arange(6))
    random_play(rules, state, rng, 30)
    seats = np.where(state.done, 0, state.current)
    before = state.copy()
    old = sample_worlds(rules, state, seats, 4, np.random.default_rng(1))
    fresh = sample_worlds(rules, state, seats, 4, np.random.default_rng(2))
    again = sample_worlds(rules, state, seats, 4, np.random.default_rng(2), out=old)
    assert states_equal(fresh, again)
    assert np.shares_memory(again.hands, old.hands)
    itself = sample_worlds(rules, state, seats, 1, np.random.default_rng(2), out=state)
    assert states_equal(state, before) and not np.shares_memory(itself.hands, state.hands)
