"""Shared helpers of the sampler tests: random play to a position, exact
enumeration of the consistent deals, a chi-squared p-value, state equality."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np


def random_play(rules, state, rng, steps, stop=None):
    """Step every unfinished row with random legal actions ``steps`` times;
    rows where ``stop(state)`` holds are not stepped any more."""
    for _ in range(steps):
        live = ~state.done & (np.ones(state.batch, bool) if stop is None else ~stop(state))
        if not live.any():
            break
        actions = np.zeros(state.batch, np.int64)
        for row in np.flatnonzero(live):
            actions[row] = rng.choice(np.flatnonzero(state.legal[row]))
        part = state.select(np.flatnonzero(live))
        rules.step(part, actions[live])
        state.assign(np.flatnonzero(live), part)
    return state


def enumerate_deals(unseen_cards, capacities, consistent):
    """Every distinct deal (a tuple of sorted card tuples, one per place) of
    the physical cards ``unseen_cards`` (a list of card types, duplicates
    allowed) to places of ``capacities``, with ``consistent(deal)`` true,
    and how many physical deals each one stands for."""
    deals: Counter = Counter()

    def place(p, left, chosen):
        if p == len(capacities):
            deal = tuple(tuple(sorted(unseen_cards[i] for i in idx)) for idx in chosen)
            if consistent(deal):
                deals[deal] += 1
            return
        for idx in itertools.combinations(left, capacities[p]):
            place(p + 1, [i for i in left if i not in idx], chosen + [idx])

    place(0, list(range(len(unseen_cards))), [])
    return deals


def chi2_pvalue(observed, expected):
    """Pearson's chi-squared test p-value (scipy if installed)."""
    observed, expected = np.asarray(observed, float), np.asarray(expected, float)
    try:
        from scipy.stats import chisquare

        return float(chisquare(observed, expected).pvalue)
    except ImportError:  # pragma: no cover
        stat = float(((observed - expected) ** 2 / expected).sum())
        dof = len(observed) - 1
        # Wilson-Hilferty normal approximation of the chi-squared tail
        z = ((stat / dof) ** (1 / 3) - (1 - 2 / (9 * dof))) / math.sqrt(2 / (9 * dof))
        return 0.5 * math.erfc(z / math.sqrt(2))


def states_equal(a, b):
    """Whether two batch states hold the same arrays."""
    keys = [k for k, v in vars(a).items() if isinstance(v, np.ndarray)]
    return all(np.array_equal(getattr(a, k), getattr(b, k)) for k in keys)
