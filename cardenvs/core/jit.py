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


def kernel(fn: F | None = None, *, keep_gil: bool = False):
    """Compile ``fn`` with numba (nopython, cached on disk); identity without numba.

    Compiled kernels release the GIL, so threads may run them at once, except
    with ``keep_gil=True`` (``@kernel(keep_gil=True)``): for a kernel that
    updates process-wide state (Push's meld stamp counter), so that no two
    threads run it together."""
    if fn is None:
        return lambda f: kernel(f, keep_gil=keep_gil)
    if _numba is None:
        return fn
    return _numba.njit(cache=True, nogil=not keep_gil)(fn)
