"""The game-free core of information-set sampling: deal a multiset of unseen
cards to hidden places of given sizes, where a place may be void in some
suits, exactly uniformly over the physical deals that fit.

A *problem* (one per row of a batch) is:

- ``unseen`` (B, T) int8: how many copies of each card type the viewer has
  not seen (Hearts has two copies of each type, Pepper one);
- ``suit_of`` (B, T) int64: the suit (0..3) each card type counts in for the
  voids (Pepper's bowers: their effective suit under the trump);
- ``capacity`` (B, P) int64: how many hidden cards each place holds (0 for
  places with nothing hidden, e.g. the viewer's own hand);
- ``allowed`` (B, P, 4) bool: the suits each place may hold (False: a void
  it revealed by not following suit).

Uniform means: every assignment of the unseen *physical* cards (the two
copies of a Hearts card are two cards) to the places' slots that respects
the voids is equally likely, as a uniform shuffle conditioned on what the
viewer saw would give.  The kernel draws it exactly, without rejection:

1. Suits nobody is void in are merged into one *free* dimension, and places
   with the same allowed set into one *group* (their cards are split among
   them afterwards by a uniform shuffle, which is exact: every split of a
   group's cards is equally many physical deals).
2. A dynamic program over the groups counts the physical deals from each
   state "cards left per dimension": ``W[j](r)`` = sum over the counts
   ``k`` group j takes of ``prod_d C(r_d, k_d) * W[j + 1](r - k)``.
3. Each world walks the groups drawing ``k`` with probability proportional
   to its term, then deals each dimension's cards (shuffled) to the groups
   by those counts, then shuffles each group's cards over its places.

Randomness: kernels draw nothing from a global generator; each world gets a
64-bit seed from the caller's numpy ``Generator`` and runs its own
splitmix64 stream, so a world depends only on its seed and its problem
(which is what makes the leak tests exact: two states that differ only in
what the viewer has not seen make the same problem, hence the same worlds).
"""

from __future__ import annotations

import numpy as np

from ..core.jit import kernel

NUM_SUITS = 4
MAX_DIMS = NUM_SUITS + 1  # the voided suits and the free dimension
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)


@kernel
def splitmix(state):
    """One step of splitmix64: ``(new state, 64 random bits)``."""
    state = state + GOLDEN
    z = state
    z = (z ^ (z >> np.uint64(30))) * MIX1
    z = (z ^ (z >> np.uint64(27))) * MIX2
    return state, z ^ (z >> np.uint64(31))


@kernel
def uniform(state):
    """``(new state, a float in [0, 1))`` with 53 random bits."""
    state, bits = splitmix(state)
    return state, np.float64(bits >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@kernel
def binomials(size):
    """``C[n, k]`` for n, k < ``size`` (float64)."""
    table = np.zeros((size, size))
    for n in range(size):
        table[n, 0] = 1.0
        for k in range(1, n + 1):
            table[n, k] = table[n - 1, k - 1] + table[n - 1, k]
    return table


@kernel
def merge(unseen, suit_of, capacity, allowed, dim_of_suit, group_of, group_dims, group_cap, totals):
    """Step 1 for one row: the dimension of each suit (``dim_of_suit``), the
    group of each place (``group_of``, -1 for empty places), each group's
    allowed dimensions as a bit mask and its capacity, each dimension's
    unseen total.  Returns ``(dims, groups)``."""
    suit_total = np.zeros(NUM_SUITS, np.int64)
    for t in range(unseen.shape[0]):
        suit_total[suit_of[t]] += unseen[t]
    dims = 0
    for suit in range(NUM_SUITS):
        voided = False
        for p in range(capacity.shape[0]):
            voided |= capacity[p] > 0 and not allowed[p, suit]
        dim_of_suit[suit] = -1
        if voided:
            dim_of_suit[suit] = dims
            dims += 1
    free = dims
    for suit in range(NUM_SUITS):
        if dim_of_suit[suit] < 0:
            dim_of_suit[suit] = free
            dims = free + 1
    totals[:] = 0
    for suit in range(NUM_SUITS):
        totals[dim_of_suit[suit]] += suit_total[suit]
    groups = 0
    for p in range(capacity.shape[0]):
        group_of[p] = -1
        if capacity[p] == 0:
            continue
        mask = 0
        for suit in range(NUM_SUITS):
            if allowed[p, suit]:
                mask |= 1 << dim_of_suit[suit]
        found = -1
        for g in range(groups):
            if group_dims[g] == mask:
                found = g
        if found < 0:
            found = groups
            group_dims[groups] = mask
            group_cap[groups] = 0
            groups += 1
        group_of[p] = found
        group_cap[found] += capacity[p]
    return dims, groups


@kernel
def decode(index, radix, dims, r):
    """The counts ``r`` of a mixed-radix state ``index``."""
    for d in range(dims):
        r[d] = index % radix[d]
        index //= radix[d]


@kernel
def advance(take, r, mask, cap, last):
    """The odometer behind :func:`next_take`: the next digits (the allowed
    dimensions below ``last``, each 0..min(r, cap)); False past the end."""
    take[last] = 0
    for d in range(last):
        if mask >> d & 1:
            take[d] += 1
            if take[d] <= min(r[d], cap):
                return True
            take[d] = 0
    return False


@kernel
def next_take(take, r, mask, cap, dims, fresh):
    """The first (``fresh``) or next way a group allowed the dimensions
    ``mask`` takes ``cap`` cards from ``r``, written to ``take`` (the last
    allowed dimension takes what the others leave); False when none is left."""
    last = -1
    for d in range(dims):
        if mask >> d & 1:
            last = d
    if last < 0:
        return False
    if fresh:
        take[:] = 0
        going = True
    else:
        going = advance(take, r, mask, cap, last)
    while going:
        used = 0
        for d in range(last):
            used += take[d]
        rest = cap - used
        if 0 <= rest <= r[last]:
            take[last] = rest
            return True
        going = advance(take, r, mask, cap, last)
    return False


@kernel
def count_ways(dims, groups, totals, group_dims, group_cap, binom):
    """Step 2: ``W`` (groups + 1, states) and the radix of the states."""
    radix = np.ones(MAX_DIMS, np.int64)
    states = 1
    for d in range(dims):
        radix[d] = totals[d] + 1
        states *= radix[d]
    ways = np.zeros((groups + 1, states))
    ways[groups, 0] = 1.0
    r = np.zeros(MAX_DIMS, np.int64)
    take = np.zeros(MAX_DIMS, np.int64)
    left = 0
    for j in range(groups - 1, -1, -1):
        left += group_cap[j]
        for index in range(states):
            decode(index, radix, dims, r)
            if r[:dims].sum() != left:
                continue
            total = 0.0
            fresh = True
            while next_take(take, r, group_dims[j], group_cap[j], dims, fresh):
                fresh = False
                term, below, step = 1.0, index, 1
                for d in range(dims):
                    term *= binom[r[d], take[d]]
                    below -= take[d] * step
                    step *= radix[d]
                total += term * ways[j + 1, below]
            ways[j, index] = total
    return ways, radix


@kernel
def shuffle(cards, count, need, seed):
    """A uniform random choice of ``cards[:need]`` from ``cards[:count]``,
    in random order (the first ``need`` steps of a Fisher-Yates shuffle;
    what is left after them is the rest, in no particular order); returns
    the new seed."""
    for i in range(min(need, count - 1)):
        seed, u = uniform(seed)
        j = i + int(u * (count - i))
        cards[i], cards[j] = cards[j], cards[i]
    return seed


@kernel
def draw_world(seed, problem, ways, radix, binom, scratch, out):
    """Step 3: one world of one row into ``out`` (P, T) counts (``scratch``:
    work arrays made once per call of :func:`sample_rows`)."""
    unseen, suit_of, capacity, dim_of_suit, group_of, group_dims, group_cap, totals, dims, groups = problem
    r, take, takes, cards, group_cards, group_count = scratch
    r[:] = totals
    index = 0
    step = 1
    for d in range(dims):
        index += r[d] * step
        step *= radix[d]
    for j in range(groups):
        seed, u = uniform(seed)
        target = u * ways[j, index]
        fresh = True
        while next_take(take, r, group_dims[j], group_cap[j], dims, fresh):
            fresh = False
            term, below, step = 1.0, index, 1
            for d in range(dims):
                term *= binom[r[d], take[d]]
                below -= take[d] * step
                step *= radix[d]
            weight = term * ways[j + 1, below]
            if weight > 0.0:  # (rounding may leave target >= 0 after the last term: it keeps the last)
                takes[j, :] = take
                target -= weight
                if target < 0:
                    break
        for d in range(dims):
            r[d] -= takes[j, d]
        index = 0
        step = 1
        for d in range(dims):
            index += r[d] * step
            step *= radix[d]
    return deal_takes(seed, problem, takes, cards, group_cards, group_count, out)


@kernel
def deal_takes(seed, problem, takes, cards, group_cards, group_count, out):
    """Deal each dimension's shuffled cards to the groups by ``takes``, then
    each group's cards over its places; returns the new seed."""
    unseen, suit_of, capacity, dim_of_suit, group_of, group_dims, group_cap, totals, dims, groups = problem
    num_types = unseen.shape[0]
    group_count[:] = 0
    for d in range(dims):
        n = 0
        for t in range(num_types):
            if dim_of_suit[suit_of[t]] == d:
                for _ in range(unseen[t]):
                    cards[n] = t
                    n += 1
        seed = shuffle(cards, n, n - takes[groups - 1, d], seed)
        at = 0
        for j in range(groups):
            for _ in range(takes[j, d]):
                group_cards[j, group_count[j]] = cards[at]
                group_count[j] += 1
                at += 1
    for j in range(groups):
        last = 0
        for p in range(capacity.shape[0]):
            if group_of[p] == j:
                last = capacity[p]
        seed = shuffle(group_cards[j], group_count[j], group_count[j] - last, seed)
        at = 0
        for p in range(capacity.shape[0]):
            if group_of[p] == j:
                for _ in range(capacity[p]):
                    out[p, group_cards[j, at]] += 1
                    at += 1
    return seed


@kernel
def sample_rows(unseen, suit_of, capacity, allowed, worlds, seeds, out):
    """Draw ``worlds`` deals per row: world ``i * worlds + w`` of row i into
    ``out[i * worlds + w]`` ((B * worlds, P, T) int8, zeroed here), from
    seed ``seeds[i * worlds + w]``.  Returns the number of rows with no
    consistent deal (their worlds are left empty)."""
    binom = binomials(unseen.shape[1] * 2 + 2)
    num_places = capacity.shape[1]
    dim_of_suit = np.zeros(NUM_SUITS, np.int64)
    group_of = np.zeros(num_places, np.int64)
    group_dims = np.zeros(num_places, np.int64)
    group_cap = np.zeros(num_places, np.int64)
    totals = np.zeros(MAX_DIMS, np.int64)
    impossible = 0
    out[:] = 0
    most = 0
    for i in range(unseen.shape[0]):
        most = max(most, unseen[i].astype(np.int64).sum())
    scratch = (
        np.zeros(MAX_DIMS, np.int64),
        np.zeros(MAX_DIMS, np.int64),
        np.zeros((num_places, MAX_DIMS), np.int64),
        np.zeros(most, np.int64),
        np.zeros((num_places, most), np.int64),
        np.zeros(num_places, np.int64),
    )
    for i in range(unseen.shape[0]):
        dims, groups = merge(
            unseen[i], suit_of[i], capacity[i], allowed[i], dim_of_suit, group_of, group_dims, group_cap, totals
        )
        ways, radix = count_ways(dims, groups, totals, group_dims, group_cap, binom)
        start = 0
        step = 1
        for d in range(dims):
            start += totals[d] * step
            step *= radix[d]
        if ways[0, start] <= 0.0:
            impossible += 1
            continue
        problem = (
            unseen[i],
            suit_of[i],
            capacity[i],
            dim_of_suit,
            group_of,
            group_dims,
            group_cap,
            totals,
            dims,
            groups,
        )
        for w in range(worlds):
            draw_world(seeds[i * worlds + w], problem, ways, radix, binom, scratch, out[i * worlds + w])
    return impossible


def sample_deals(
    unseen: np.ndarray,
    suit_of: np.ndarray,
    capacity: np.ndarray,
    allowed: np.ndarray,
    worlds: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """``worlds`` uniform deals per row of the problem (see the module doc):
    (B * worlds, P, T) int8 counts, row i's worlds at ``i * worlds ...``.
    ValueError if a row has no consistent deal (its constraints contradict)."""
    batch, num_places = capacity.shape
    seeds = rng.integers(0, np.iinfo(np.int64).max, size=batch * worlds, dtype=np.int64).astype(np.uint64)
    out = np.empty((batch * worlds, num_places, unseen.shape[1]), np.int8)
    impossible = sample_rows(
        np.ascontiguousarray(unseen, np.int8),
        np.ascontiguousarray(suit_of, np.int64),
        np.ascontiguousarray(capacity, np.int64),
        np.ascontiguousarray(allowed, np.bool_),
        worlds,
        seeds,
        out,
    )
    if impossible:
        raise ValueError(f"{impossible} row(s) have no deal consistent with what the seat saw")
    return out
