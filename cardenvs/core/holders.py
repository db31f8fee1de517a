"""Whether anyone outside a list still holds an object: its CPython
reference count.  What recycled output arrays rest on (Push's pool, the
process engine's output blocks): an array is written again only once
nothing but its list refers to it -- no caller's array, and no view of one
(a view refers to the array it was taken from)."""

from __future__ import annotations

import sys

import numpy as np


def references(pool: list, i: int) -> int:
    """The reference count of ``pool[i]``, as this very code path reads it."""
    return sys.getrefcount(pool[i])


# What references reads for an object that only its list refers to.  Measured
# rather than assumed, because interpreters differ in which references they
# count: any holder outside the list adds at least one to this.
UNHELD = references([object()], 0)


def held(pool: list, i: int, unheld: int = UNHELD) -> bool:
    """Whether anything besides ``pool`` refers to ``pool[i]`` -- besides
    ``unheld`` references in all, for an item that others of the pool
    refer to as well (see :func:`unheld_counts`)."""
    return references(pool, i) != unheld


def unheld_counts(pool: list) -> list[int]:
    """What :func:`held` should find for each item of ``pool`` when nobody
    outside holds it, read now (the pool's own references among its items
    included): take it while only the pool refers to them."""
    return [references(pool, i) for i in range(len(pool))]


def read_only(array: np.ndarray) -> np.ndarray:
    """A flat view of ``array`` (C-contiguous) over a read-only buffer:
    numpy refuses to make it, or any view of it, writeable.  Every view
    taken of it refers to it, so :func:`held` tells when all are gone."""
    return np.frombuffer(memoryview(array).toreadonly(), array.dtype)
