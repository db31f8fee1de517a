"""Compiled kernels: the one place where cardenvs configures numba.

Most of each rules core is whole-batch numpy. A few hot spots are per-row work
that numpy can only batch with many small calls or large temporaries: searches
over a hand (Push's "can this meld still be finished" checks), scatter updates
and observation gathers. Those are written once, as plain loops over the batch
rows on the state's numpy arrays, and decorated with :func:`kernel`.

With numba installed (a dependency of the package) a kernel is compiled to
machine code on first use and cached on disk (``cache=True``), so only the
first process pays the compile. Without numba the very same function runs as
ordinary Python: correct, but slow at large batches. This keeps one
implementation of every rule, whichever way it runs, and lets a debugger step
through a kernel (``NUMBA_DISABLE_JIT=1`` does the same with numba installed).

Kernels must not draw random numbers: every draw stays with the numpy
``Generator`` of the batch, so seeded games are identical with and without the
compiler.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

try:  # pragma: no cover - which branch runs depends on the environment
    import numba as _numba
except ImportError:  # pragma: no cover
    _numba = None

F = TypeVar("F", bound=Callable)

#: True when kernels are compiled (numba importable), False when they run as Python.
COMPILED = _numba is not None


def kernel(fn: F) -> F:
    """Compile ``fn`` with numba (nopython, cached on disk); identity without numba."""
    if _numba is None:
        return fn
    return _numba.njit(cache=True, nogil=True)(fn)
