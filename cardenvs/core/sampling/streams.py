"""The worlds' random streams: splitmix64 from a 64-bit seed per world, and
what the samplers draw from it (uniform floats, exactly uniform bounded
integers, partial Fisher-Yates shuffles).  Kernels draw nothing from a
global generator, so a world depends only on its seed and its problem (see
:mod:`.base`)."""

from __future__ import annotations

import numpy as np

from ..jit import kernel

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
def below(state, n):
    """``(new state, an integer in [0, n))``, exactly uniform for
    0 < n < 2**32: Lemire's multiply-shift on 32 random bits, redrawing the
    rare low products (probability under n / 2**32) that would bias it (the
    division that finds them is only done when one may be)."""
    bound = np.uint64(n)
    state, bits = splitmix(state)
    product = (bits >> np.uint64(32)) * bound
    if (product & np.uint64(0xFFFFFFFF)) < bound:
        threshold = (np.uint64(1 << 32) - bound) % bound
        while (product & np.uint64(0xFFFFFFFF)) < threshold:
            state, bits = splitmix(state)
            product = (bits >> np.uint64(32)) * bound
    return state, np.int64(product >> np.uint64(32))


@kernel
def shuffle(cards, count, need, seed):
    """A uniform random choice of ``cards[:need]`` from ``cards[:count]``,
    in random order (the first ``need`` steps of a Fisher-Yates shuffle;
    what is left after them is the rest, in no particular order); returns
    the new seed."""
    return shuffle_span(cards, 0, count, need, seed)


@kernel
def shuffle_span(cards, start, count, need, seed):
    """:func:`shuffle` of ``cards[start : start + count]``."""
    for i in range(min(need, count - 1)):
        seed, j = below(seed, count - i)
        a, b = start + i, start + i + j
        cards[a], cards[b] = cards[b], cards[a]
    return seed
