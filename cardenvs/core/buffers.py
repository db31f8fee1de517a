"""Output arrays for observation and mask batches, recycled when large.

A large batch of observations or masks (Push: 40 MB of observations and
10 MB of masks per vector step at 4096 games) as a fresh array is fresh
memory, which the system hands out as zeroed pages on first write: the
zeroing costs as much again as writing the batch.
So :func:`output_array` recycles large outputs: an array returned before is
handed out again once nothing but this pool refers to it (its CPython
reference count), i.e. once the caller has dropped it and every view of it.
A caller never gets an array that anything else can see.  The array is
uninitialised: the writer (observations, mask copy) must fill every entry.
"""
from __future__ import annotations

import math
import sys

import numpy as np

RECYCLE_BYTES = 4 << 20  # smaller arrays come from malloc's free lists anyway
POOL_SIZE = 6  # a step's observations and masks, the caller's last ones, and spares
_pool: list[np.ndarray] = []


def _references(pool: list, i: int) -> int:
    """The reference count of ``pool[i]``, as this very code path reads it."""
    return sys.getrefcount(pool[i])


# What _references reads for an object that only its list refers to.  Measured
# rather than assumed, because interpreters differ in which references they
# count (CPython 3.14 borrows some on its evaluation stack): any holder
# outside the pool adds at least one to this.
_UNHELD = _references([object()], 0)


def output_array(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """An uninitialised array of ``shape`` and ``dtype``, for the caller to fill completely."""
    dtype = np.dtype(dtype)
    if math.prod(shape) * dtype.itemsize < RECYCLE_BYTES:
        return np.empty(shape, dtype)
    for i in range(len(_pool)):
        buf = _pool[i]
        if buf.shape == shape and buf.dtype == dtype:
            del buf  # the check below must see the pool's reference only
            if _references(_pool, i) == _UNHELD:
                return _pool[i]
    buf = np.empty(shape, dtype)
    if len(_pool) >= POOL_SIZE:
        _pool.pop(0)
    _pool.append(buf)
    return buf
