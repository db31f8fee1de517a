"""The game-free core of information-set sampling: deal a multiset of unseen
cards to hidden places of given sizes, where a place may be void in some
suits, exactly uniformly over the physical deals that fit.

A *problem* (one per row of a batch) is:

- ``unseen`` (B, T) int8: how many copies of each card type the viewer has
  not seen (Hearts and Push have two copies of each type, Pepper one);
- ``suit_of`` (B, T) int64: the suit (0..S-1) each card type counts in for
  the voids (Pepper's bowers: their effective suit under the trump; a game
  may split a suit in two classes, as Hearts does Black Maria from the
  other spades where a seat is known to hold no spade but her);
- ``capacity`` (B, P) int64: how many hidden cards each place holds (0 for
  places with nothing hidden, e.g. the viewer's own hand);
- ``allowed`` (B, P, S) bool, S <= :data:`MAX_SUITS`: the suits each place
  may hold (False: a void it revealed by not following suit, or any other
  play the rules allow only to a hand without that suit).

Uniform means: every assignment of the unseen *physical* cards (the two
copies of a Hearts card are two cards) to the places' slots that respects
the voids is equally likely, as a uniform shuffle conditioned on what the
viewer saw would give.  The kernel draws it exactly, without rejection:

1. Suits nobody is void in are merged into one *free* dimension (the last
   one), and places with the same allowed set into one *group* (their cards
   are split among them afterwards by a uniform shuffle, which is exact:
   every split of a group's cards is equally many physical deals).
2. A dynamic program over the groups counts the physical deals from each
   state "cards left per voided dimension" (the free cards left follow from
   the places left to fill, so they are not part of the state: every group
   may take free cards): ``W[j](r)`` = sum over the counts ``k`` group j
   takes of ``prod_d C(r_d, k_d) * W[j + 1](r - k)``.  With no void (most
   rows) there is nothing to count.
3. Each world walks the groups drawing ``k`` with probability proportional
   to its term, then deals each dimension's cards (shuffled) to the groups
   by those counts, then each group's cards over its places.

The result is compact: world w's cards as one int8 row, place p's at
``offset[p] .. offset[p] + capacity[p] - 1`` with ``offset`` the running sum
of the row's capacities (:func:`offsets`), in no particular order within a
place (a caller for whom the order matters -- a stock -- shuffles it with
the world's stream, see below).  :func:`sample_deals` turns it into counts
per place and card type for callers that want those.

Randomness (:mod:`.streams`): kernels draw nothing from a global
generator; each world gets a 64-bit seed from the caller's numpy
``Generator`` and runs its own splitmix64 stream, so a row's worlds depend
only on their seeds and the row's problem (which is what makes the leak
tests exact: two states that differ only in what the viewer has not seen
make the same problem, hence the same worlds).  :func:`sample_rows` leaves
each world's stream where it stopped in its seed, so a game's kernel can
go on drawing from it (:func:`.streams.shuffle_span`).
"""

from __future__ import annotations

import numpy as np

from ..jit import kernel
from .streams import below, uniform

NUM_SUITS = 4
MAX_SUITS = NUM_SUITS + 1  # the suits a problem may count in (Hearts: Black Maria apart)
MAX_DIMS = MAX_SUITS + 1  # the voided suits and the free dimension


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
def merge(unseen, suit_of, capacity, allowed, plan):
    """Step 1 for one row, into ``plan`` (see :func:`new_plan`): the
    dimension of each suit (the voided suits first, the free one last), the
    group of each place (-1 for empty places), each group's allowed
    dimensions as a bit mask and its capacity, each dimension's unseen
    total.  Returns ``(dims, groups)``."""
    dim_of_suit, group_of, group_dims, group_cap, totals = plan[0], plan[1], plan[2], plan[3], plan[4]
    suits = allowed.shape[1]
    suit_total = np.zeros(MAX_SUITS, np.int64)
    for t in range(unseen.shape[0]):
        suit_total[suit_of[t]] += unseen[t]
    dims = 0
    for suit in range(suits):
        voided = False
        for p in range(capacity.shape[0]):
            voided |= capacity[p] > 0 and not allowed[p, suit]
        dim_of_suit[suit] = -1
        if voided:
            dim_of_suit[suit] = dims
            dims += 1
    free = dims
    for suit in range(suits):
        if dim_of_suit[suit] < 0:
            dim_of_suit[suit] = free
    dims = free + 1  # (the free dimension exists even when empty: every group may take from it)
    totals[:] = 0
    for suit in range(suits):
        totals[dim_of_suit[suit]] += suit_total[suit]
    groups = 0
    for p in range(capacity.shape[0]):
        group_of[p] = -1
        if capacity[p] == 0:
            continue
        mask = 1 << free
        for suit in range(suits):
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
    widest_last(groups, group_of, group_dims, group_cap)
    return dims, groups


@kernel
def widest_last(groups, group_of, group_dims, group_cap):
    """Make the group allowed the most dimensions the last one: the last
    group takes what the others leave (nothing to draw), and a group allowed
    everything (often most of the places) is cheapest there."""
    widest, most = groups - 1, -1
    for g in range(groups):
        allowed = 0
        for d in range(MAX_DIMS):
            allowed += group_dims[g] >> d & 1
        if allowed > most:
            widest, most = g, allowed
    last = groups - 1
    if widest < 0 or widest == last:
        return
    group_dims[widest], group_dims[last] = group_dims[last], group_dims[widest]
    group_cap[widest], group_cap[last] = group_cap[last], group_cap[widest]
    for p in range(group_of.shape[0]):
        if group_of[p] == widest:
            group_of[p] = last
        elif group_of[p] == last:
            group_of[p] = widest


@kernel
def next_take(take, r, mask, cap, voided, fresh, low):
    """The first (``fresh``) or next counts ``take`` a group allowed the
    dimensions ``mask`` takes of the voided dimensions (an odometer, each
    digit ``low[d]``..min(r, cap)); False past the last.  The free dimension
    takes the rest (:func:`take_weight` checks it fits)."""
    if fresh:
        for d in range(voided):
            take[d] = low[d] if mask >> d & 1 else 0
        return True
    for d in range(voided):
        if mask >> d & 1:
            take[d] += 1
            if take[d] <= min(r[d], cap):
                return True
            take[d] = low[d]
    return False


@kernel
def lowest_takes(r, mask, voided, room_after, low):
    """``low[d]``: the fewest cards of voided dimension d a group allowed
    ``mask`` must take from ``r`` so that the groups after it (``room_after``:
    how many they can hold of each) can take the rest.  False if a dimension
    the group may not take is already too many for them."""
    for d in range(voided):
        over = r[d] - room_after[d]
        low[d] = max(over, 0)
        if over > 0 and not mask >> d & 1:
            return False
    return True


@kernel
def rooms(dims, groups, group_dims, group_cap):
    """``room[j, d]``: how many cards of voided dimension d the groups j..
    can hold between them (the states of the dynamic program past it cannot
    be reached)."""
    room = np.zeros((groups + 1, MAX_DIMS), np.int64)
    for j in range(groups - 1, -1, -1):
        for d in range(dims - 1):
            room[j, d] = room[j + 1, d] + (group_cap[j] if group_dims[j] >> d & 1 else 0)
    return room


@kernel
def take_weight(take, r, free_left, cap, voided, index, radix, binom, ways, after):
    """The number of physical deals in which a group of ``cap`` places takes
    ``take`` (and the free cards to make up ``cap``) from ``r`` voided cards
    left and ``free_left`` free ones, times the ways of the groups after it;
    0 when the free dimension cannot make up the rest."""
    used, term, rest, step = 0, 1.0, index, 1
    for d in range(voided):
        used += take[d]
        term *= binom[r[d], take[d]]
        rest -= take[d] * step
        step *= radix[d]
    free_take = cap - used
    if free_take < 0 or free_take > free_left:
        return 0.0
    return term * binom[free_left, free_take] * ways[after, rest]


@kernel
def count_ways(dims, groups, plan, binom):
    """Step 2: ``W`` (groups + 1, states) over the voided dimensions, and
    their radix."""
    group_dims, group_cap, totals = plan[2], plan[3], plan[4]
    voided = dims - 1
    radix = np.ones(MAX_DIMS, np.int64)
    states = 1
    for d in range(voided):
        radix[d] = totals[d] + 1
        states *= radix[d]
    ways = np.zeros((groups + 1, states))
    ways[groups, 0] = 1.0
    room = rooms(dims, groups, group_dims, group_cap)
    r, take, low = np.zeros(MAX_DIMS, np.int64), np.zeros(MAX_DIMS, np.int64), np.zeros(MAX_DIMS, np.int64)
    left = 0
    for j in range(groups - 1, -1, -1):
        left += group_cap[j]
        for index in range(states):
            rest, held, fits = index, 0, True
            for d in range(voided):
                r[d] = rest % radix[d]
                rest //= radix[d]
                held += r[d]
                fits &= r[d] <= room[j, d]
            free_left = left - held
            if not fits or free_left < 0 or free_left > totals[voided]:
                continue
            if not lowest_takes(r, group_dims[j], voided, room[j + 1], low):
                continue
            total = 0.0
            fresh = True
            while next_take(take, r, group_dims[j], group_cap[j], voided, fresh, low):
                fresh = False
                total += take_weight(take, r, free_left, group_cap[j], voided, index, radix, binom, ways, j + 1)
            ways[j, index] = total
    return ways, radix, room


@kernel
def draw_takes(seed, dims, groups, group_dims, group_cap, totals, ways, radix, room, binom, r, take, takes):
    """Step 3a: how many cards of each dimension each group takes
    (``takes`` (groups, dims)), drawn with probability proportional to the
    physical deals (the last group takes what is left); returns the new
    seed."""
    voided = dims - 1
    left = 0
    for j in range(groups):
        left += group_cap[j]
    index, step = 0, 1
    for d in range(voided):
        r[d] = totals[d]
        index += r[d] * step
        step *= radix[d]
    for j in range(groups):
        held = 0
        for d in range(voided):
            held += r[d]
        if j == groups - 1:
            for d in range(voided):
                takes[j, d] = r[d]
        else:
            seed, u = uniform(seed)
            target = u * ways[j, index]
            fresh = True
            low = takes[j + 1]  # (scratch: the next group's row is written after this one's)
            lowest_takes(r, group_dims[j], voided, room[j + 1], low)
            while next_take(take, r, group_dims[j], group_cap[j], voided, fresh, low):
                fresh = False
                weight = take_weight(take, r, left - held, group_cap[j], voided, index, radix, binom, ways, j + 1)
                if weight > 0.0:  # (rounding may leave target >= 0 after the last term: it keeps the last)
                    for d in range(voided):
                        takes[j, d] = take[d]
                    target -= weight
                    if target < 0:
                        break
        used, step = 0, 1
        for d in range(voided):
            used += takes[j, d]
            r[d] -= takes[j, d]
            index -= takes[j, d] * step
            step *= radix[d]
        takes[j, voided] = group_cap[j] - used
        left -= group_cap[j]
    return seed


@kernel
def fixed_takes(dims, groups, plan, takes):
    """When every voided dimension is allowed in one group only, that group
    takes all its cards and each group the free cards to make up its
    capacity: nothing to draw.  Writes ``takes`` and returns 1 then (0 if a
    group's free share would be negative: no consistent deal), else -1."""
    group_dims, group_cap, totals = plan[2], plan[3], plan[4]
    voided = dims - 1
    for d in range(voided):
        allowing = 0
        for j in range(groups):
            allowing += group_dims[j] >> d & 1
        if allowing > 1:
            return -1
        if allowing == 0 and totals[d] > 0:  # (cards nobody may hold)
            return 0
    for j in range(groups):
        used = 0
        for d in range(voided):
            takes[j, d] = totals[d] if group_dims[j] >> d & 1 else 0
            used += takes[j, d]
        takes[j, voided] = group_cap[j] - used
        if takes[j, voided] < 0:
            return 0
    return 1


@kernel
def deal_one_group(seeds, first, end, count, group_of, capacity, offset, cards, work, out):
    """Step 3b for worlds ``first .. end - 1`` of a row whose places are all
    in one group: one shuffle of the unseen cards each, dealt over the
    places in order."""
    last = 0
    for p in range(capacity.shape[0]):
        if group_of[p] == 0:
            last = capacity[p]
    for w in range(first, end):  # (the places' slots are consecutive: shuffle the world's row in place)
        for k in range(count):
            out[w, k] = cards[k]
        seed = seeds[w]
        for i in range(min(count - last, count - 1)):
            seed, j = below(seed, count - i)
            j += i
            out[w, i], out[w, j] = out[w, j], out[w, i]
        seeds[w] = seed


@kernel
def deal_groups(seeds, first, end, dims, groups, plan, ways, radix, room, binom, row, scratch, out):
    """Steps 3a and 3b for worlds ``first .. end - 1`` of a row with several
    groups: the counts each group takes (:func:`draw_takes`), then each
    dimension's cards (``cards[dim_start[d]:dim_start[d + 1]]``) shuffled
    and dealt to the groups by those counts, then each group's cards over
    its places.  A group's cards need their own shuffle only if it has
    several places and its cards came from several dimensions or from the
    unshuffled tail of one (the last group's share)."""
    group_of, group_dims, group_cap, totals = plan[1], plan[2], plan[3], plan[4]
    capacity, offset, cards, dim_start = row
    r, take, takes, pool, start, fill, last, places, sources = scratch
    at = 0
    for j in range(groups):
        start[j], last[j], places[j] = at, 0, 0
        at += group_cap[j]
    for p in range(capacity.shape[0]):
        if group_of[p] >= 0:
            last[group_of[p]] = capacity[p]
            places[group_of[p]] += 1
    for w in range(first, end):
        seed = seeds[w]
        if ways.shape[0] > 0:  # (else the takes are fixed: see fixed_takes)
            seed = draw_takes(
                seed, dims, groups, group_dims, group_cap, totals, ways, radix, room, binom, r, take, takes
            )
        for j in range(groups):
            fill[j], sources[j] = start[j], 0
        for d in range(dims):  # (shuffled in place, world after world: any order in gives a uniform one out)
            at, n = dim_start[d], dim_start[d + 1] - dim_start[d]
            for i in range(min(n - takes[groups - 1, d], n - 1)):
                seed, k = below(seed, n - i)
                cards[at + i], cards[at + i + k] = cards[at + i + k], cards[at + i]
            for j in range(groups):
                to, size = fill[j], takes[j, d]
                for k in range(size):
                    pool[to + k] = cards[at + k]
                fill[j] = to + size
                sources[j] += size > 0
                at += size
        for j in range(groups):
            if places[j] > 1 and (sources[j] > 1 or j == groups - 1):
                at, n = start[j], group_cap[j]
                for i in range(min(n - last[j], n - 1)):
                    seed, k = below(seed, n - i)
                    pool[at + i], pool[at + i + k] = pool[at + i + k], pool[at + i]
        for j in range(groups):
            fill[j] = start[j]
        for p in range(capacity.shape[0]):
            j, size, to = group_of[p], capacity[p], offset[p]
            if size > 0:
                at = fill[j]
                for k in range(size):
                    out[w, to + k] = pool[at + k]
                fill[j] = at + size
        seeds[w] = seed


@kernel
def sort_by_dim(unseen, suit_of, dim_of_suit, dims, cards, dim_start):
    """The row's unseen physical cards (one entry per copy), dimension by
    dimension: dimension d's in ``cards[dim_start[d]:dim_start[d + 1]]``."""
    at = 0
    for d in range(dims):
        dim_start[d] = at
        for t in range(unseen.shape[0]):
            if dim_of_suit[suit_of[t]] == d:
                for _ in range(unseen[t]):
                    cards[at] = t
                    at += 1
    dim_start[dims] = at


@kernel
def new_plan(num_places):
    """The work arrays of one row's problem: dimension of each suit, group of
    each place, each group's dimension mask and capacity, each dimension's
    total (see :func:`merge`)."""
    return (
        np.zeros(MAX_SUITS, np.int64),
        np.zeros(num_places, np.int64),
        np.zeros(num_places, np.int64),
        np.zeros(num_places, np.int64),
        np.zeros(MAX_DIMS, np.int64),
    )


@kernel
def sample_rows(unseen, suit_of, capacity, allowed, worlds, seeds, out):
    """Draw ``worlds`` deals per row: world ``i * worlds + w`` of row i into
    ``out[i * worlds + w]`` (compact: place p's cards from the running sum
    of the capacities before it), from seed ``seeds[i * worlds + w]``,
    which is left where the world's stream stopped.  Returns the number of
    rows with no consistent deal (their worlds are left unwritten)."""
    num_places = capacity.shape[1]
    most = 1
    for i in range(unseen.shape[0]):
        most = max(most, unseen[i].astype(np.int64).sum())
    binom = binomials(most + 2)
    plan = new_plan(num_places)
    offset = np.zeros(num_places + 1, np.int64)
    cards, work = np.zeros(most, np.int64), np.zeros(most, np.int64)
    dim_start = np.zeros(MAX_DIMS + 1, np.int64)
    scratch = (
        np.zeros(MAX_DIMS, np.int64),  # r: voided cards left
        np.zeros(MAX_DIMS, np.int64),  # take: one group's counts
        np.zeros((num_places, MAX_DIMS), np.int64),  # takes
        np.zeros(most, np.int64),  # pool: the groups' cards, group by group
        np.zeros(num_places, np.int64),  # start of each group in the pool
        np.zeros(num_places, np.int64),  # fill
        np.zeros(num_places, np.int64),  # last: capacity of each group's last place
        np.zeros(num_places, np.int64),  # places per group
        np.zeros(num_places, np.int64),  # sources: dimensions each group took from
    )
    impossible = 0
    for i in range(unseen.shape[0]):
        dims, groups = merge(unseen[i], suit_of[i], capacity[i], allowed[i], plan)
        for p in range(num_places):
            offset[p + 1] = offset[p] + capacity[i, p]
        count = offset[num_places]
        sort_by_dim(unseen[i], suit_of[i], plan[0], dims, cards, dim_start)
        if count != dim_start[dims]:
            impossible += 1
            continue
        first, end = i * worlds, (i + 1) * worlds
        fixed = fixed_takes(dims, groups, plan, scratch[2])
        if fixed == 1 and groups <= 1:
            deal_one_group(seeds, first, end, count, plan[1], capacity[i], offset, cards, work, out)
            continue
        if fixed == 1:  # (no draw: deal_groups keeps the fixed takes)
            ways, radix, room = np.zeros((0, 1)), scratch[0], np.zeros((0, MAX_DIMS), np.int64)
        else:
            ways, radix, room = count_ways(dims, groups, plan, binom)
        if fixed == 0 or ways.shape[0] > 0 and ways[0, ways.shape[1] - 1] <= 0.0:  # (start: every voided card left)
            impossible += 1
            continue
        row = (capacity[i], offset, cards, dim_start)
        deal_groups(seeds, first, end, dims, groups, plan, ways, radix, room, binom, row, scratch, out)
    return impossible


@kernel
def to_counts(cards, capacity, worlds, counts):
    """Compact worlds ``cards`` (see :func:`sample_rows`) as ``counts``
    (B * worlds, P, T) per place and card type (zeroed here)."""
    counts[:] = 0
    for w in range(cards.shape[0]):
        i = w // worlds
        at = 0
        for p in range(capacity.shape[1]):
            for _ in range(capacity[i, p]):
                counts[w, p, cards[w, at]] += 1
                at += 1


def world_seeds(rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` 64-bit seeds for the worlds' streams, from the caller's generator."""
    return rng.integers(0, np.iinfo(np.int64).max, size=count, dtype=np.int64).astype(np.uint64)


def offsets(capacity: np.ndarray) -> np.ndarray:
    """Where each place's cards start in a compact world row: (B, P + 1)."""
    capacity = np.asarray(capacity, np.int64)
    out = np.zeros((capacity.shape[0], capacity.shape[1] + 1), np.int64)
    np.cumsum(capacity, axis=1, out=out[:, 1:])
    return out


def sample_cards(
    unseen: np.ndarray,
    suit_of: np.ndarray,
    capacity: np.ndarray,
    allowed: np.ndarray,
    worlds: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """``worlds`` uniform deals per row of the problem (see the module doc),
    compact: ``(cards, seeds)``, cards (B * worlds, S) int8 (row i's worlds
    at ``i * worlds ...``; place p's cards at :func:`offsets`), seeds each
    world's stream where the deal left it.  ValueError if a row has no
    consistent deal (its constraints contradict)."""
    batch = capacity.shape[0]
    if np.shape(allowed)[-1] > MAX_SUITS:
        raise ValueError(f"at most {MAX_SUITS} suits, got {np.shape(allowed)[-1]}")
    capacity = np.ascontiguousarray(capacity, np.int64)
    seeds = world_seeds(rng, batch * worlds)
    width = max(int(capacity.sum(axis=1).max(initial=0)), 1)
    cards = np.empty((batch * worlds, width), np.int8)
    impossible = sample_rows(
        np.ascontiguousarray(unseen, np.int8),
        np.ascontiguousarray(suit_of, np.int64),
        capacity,
        np.ascontiguousarray(allowed, np.bool_),
        worlds,
        seeds,
        cards,
    )
    if impossible:
        raise ValueError(f"{impossible} row(s) have no deal consistent with what the seat saw")
    return cards, seeds


def sample_deals(
    unseen: np.ndarray,
    suit_of: np.ndarray,
    capacity: np.ndarray,
    allowed: np.ndarray,
    worlds: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """:func:`sample_cards` as counts: (B * worlds, P, T) int8, row i's worlds
    at ``i * worlds ...``.  ValueError if a row has no consistent deal."""
    cards, _ = sample_cards(unseen, suit_of, capacity, allowed, worlds, rng)
    counts = np.empty((cards.shape[0], capacity.shape[1], np.shape(unseen)[1]), np.int8)
    to_counts(cards, np.ascontiguousarray(capacity, np.int64), worlds, counts)
    return counts
