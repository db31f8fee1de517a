"""Output arrays for observation and mask batches, recycled when large.

A large batch of observations or masks (Push: 40 MB of observations and
10 MB of masks per vector step at 4096 games) as a fresh array is fresh
memory, which the system hands out as zeroed pages on first write: the
zeroing costs as much again as writing the batch.
So :func:`recycled_rows` recycles large outputs: an array returned before is
handed out again once nothing but this pool refers to it (its CPython
reference count), i.e. once the caller has dropped it and every view of it.
A caller never gets an array that anything else can see.

The array is not cleared: it still holds what was last written into it.  Most
of a Push row is zeros (the blocks of table melds not laid yet), so the writer
gets the array *and* its own record of what it left in each row (``written``,
one integer per row in the writer's units, e.g. "meld slots"): it writes only
what is new and clears only what it wrote before beyond that, instead of
rewriting zeros that are already there.  That record is only true if nobody
else writes into the array, so pooled arrays are handed to callers
**read-only** (:func:`read_only`): copy one to change it.
"""

from __future__ import annotations

import math
import sys

import numpy as np

RECYCLE_BYTES = 4 << 20  # smaller arrays come from malloc's free lists anyway
POOL_SIZE = 6  # a step's observations and masks, the caller's last ones, and spares
_pool: list[np.ndarray] = []
# per pooled array (same index): (writer, its per-row record) of whoever last wrote it
_records: list[tuple[str, np.ndarray]] = []


def _references(pool: list, i: int) -> int:
    """The reference count of ``pool[i]``, as this very code path reads it."""
    return sys.getrefcount(pool[i])


# What _references reads for an object that only its list refers to.  Measured
# rather than assumed, because interpreters differ in which references they
# count (CPython 3.14 borrows some on its evaluation stack): any holder
# outside the pool adds at least one to this.
_UNHELD = _references([object()], 0)


def _take(shape: tuple[int, ...], dtype: np.dtype) -> int | None:
    """Index in the pool of an array of ``shape`` and ``dtype`` nobody holds,
    a new one if none is free (``None``: too small to pool)."""
    if math.prod(shape) * dtype.itemsize < RECYCLE_BYTES:
        return None
    for i in range(len(_pool)):
        buf = _pool[i]
        if buf.shape == shape and buf.dtype == dtype:
            del buf  # the check below must see the pool's reference only
            if _references(_pool, i) == _UNHELD:
                return i
    if len(_pool) >= POOL_SIZE:
        _pool.pop(0)
        _records.pop(0)
    _pool.append(np.empty(shape, dtype))
    _records.append(("", np.empty(0, np.int64)))
    return len(_pool) - 1


def recycled_rows(
    shape: tuple[int, ...], dtype: np.dtype, writer: str, unknown: int, record: tuple[int, ...] = ()
) -> tuple[np.ndarray, np.ndarray]:
    """An array of ``shape`` and ``dtype`` and ``writer``'s record of it:
    ``written`` (``shape[0]``, ``*record``) int64, what ``writer`` noted of
    each row when it last filled this array, or ``unknown`` throughout when
    it did not (a new array, or one another writer filled).  The writer must
    keep ``written`` true as it fills the rows, and hand the array out
    through :func:`read_only`."""
    dtype = np.dtype(dtype)
    i = _take(shape, dtype)
    if i is None:
        return np.empty(shape, dtype), np.full((shape[0], *record), unknown, np.int64)
    who, written = _records[i]
    if who != writer or written.shape != (shape[0], *record):
        written = np.full((shape[0], *record), unknown, np.int64)
        _records[i] = (writer, written)
    return _pool[i], written


def pooled(array: np.ndarray) -> bool:
    """Whether ``array`` is one of the recycled arrays."""
    return any(array is buf for buf in _pool)


def read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array`` if it is pooled (the view keeps it held,
    so not recycled, while the view lives); an array too small to pool is
    the caller's own and is returned as it is."""
    if not pooled(array):
        return array
    view = array.view()
    view.flags.writeable = False
    return view
