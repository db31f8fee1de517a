"""Compiled kernels: the one place where cardenvs configures numba.

Most of each rules core is whole-batch numpy. A few hot spots are per-row work
that numpy can only batch with many small calls or large temporaries: searches
over a hand (Push's "can this meld still be finished" checks), scatter updates
and observation gathers. Those are written once, as plain loops over the batch
rows on the state's numpy arrays, and decorated with :func:`kernel`.

With numba installed (a dependency of the package) a kernel is compiled to
machine code and cached on disk, so only the first process pays the
compile; until its compiled version is ready a kernel runs as Python while
a builder process compiles it (:mod:`cardenvs.core.compiling`: a new
user's first game does not wait for the compiler; ``CARDENVS_COMPILE=now``
compiles on first use instead, and :func:`wait_compiled` waits for the
builder).  Without numba the very same function runs as ordinary Python:
correct, but slow at large batches. This keeps one implementation of every
rule, whichever way it runs, and lets a debugger step through a kernel
(``NUMBA_DISABLE_JIT=1`` does the same with numba installed).

Kernels must not draw random numbers: every draw stays with the numpy
``Generator`` of the batch, so seeded games are identical with and without the
compiler.  The one way a kernel takes a draw keeps that true: it calls the
generator's own C function for its next raw draw (:func:`raw_draw`, what
``random_raw()`` calls), on the generator's state, as Python would.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

try:  # pragma: no cover - which branch runs depends on the environment
    import numba as _numba
except ImportError:  # pragma: no cover
    _numba = None

F = TypeVar("F", bound=Callable)

#: True when kernels are compiled (numba importable and not disabled by
#: ``NUMBA_DISABLE_JIT=1``; a kernel may still run as Python until its
#: compiled version is ready), False when they run as Python.
COMPILED = _numba is not None and not _numba.config.DISABLE_JIT

#: :mod:`cardenvs.core.compiling` when kernels are compiled and this numba has the internals it
#: uses, else None (without numba, or plain numba kernels: :mod:`cardenvs.core.numba_internals`).
_compiling: Any = None


def _compiler() -> Any:
    """:mod:`cardenvs.core.compiling` when this numba has the internals it
    uses (:func:`~cardenvs.core.numba_internals.problem`), else None after
    one warning saying what differs (kernels are then plain numba functions)."""
    why = _internals.problem()
    if why is None:
        try:
            from . import compiling

            return compiling
        except Exception as error:  # (a difference the checks missed: the import says which)
            why = f"importing cardenvs.core.compiling failed ({type(error).__name__}: {error})"
    _internals.fall_back(why)
    return None


if COMPILED:  # pragma: no branch - which branch runs depends on the environment
    from . import numba_internals as _internals

    _compiling = _compiler()


def kernel(fn: F) -> F:
    """Compile ``fn`` with numba (nopython, nogil, cached on disk: a
    :class:`~cardenvs.core.compiling.Kernel`, or numba's own ``njit`` when
    this numba's internals are not what that expects); identity without numba."""
    if _numba is None or not COMPILED:
        return fn
    if _compiling is None:
        return _numba.njit(nogil=True, cache=True)(fn)
    made = _compiling.Kernel(fn)
    made.enable_caching()
    return made  # type: ignore[return-value]


def first_step(module: str, done: bool) -> None:
    """An engine of many games of the game whose rules are in ``module`` is
    made (``done`` False) or has ended its first step (True): until then
    the game's kernels not compiled yet run as Python (see :mod:`cardenvs.core.first_use`)."""
    if _compiling is not None:
        _compiling.first_use.first_step(module, done)


def wait_compiled(timeout: float | None = None) -> bool:
    """Wait until every kernel this process has run as Python, waiting for
    its compiled version, is compiled into the cache (each switches to it on
    its next call); False if ``timeout`` seconds passed first.  For timings
    of the compiled kernels after a first use with a cold cache."""
    if _compiling is None:  # (no builder: plain numba compiles on first use)
        return True
    return _compiling.wait(timeout)


# ---------------------------------------------------------------- packs
# Calling a compiled kernel from Python costs per argument: numba types and
# unboxes every array of a tuple one by one (for a game's two bundles of 33
# values at batch 1, more than the step's work).
# A *pack* is one int64 array ``(n, 5)`` standing for n values: row k is an
# array's address and shape (up to 4 dimensions), or a scalar in column 0
# (a float as its 64 bits).
# A kernel is called with the pack (one array: one unboxing) and views the arrays
# again with :func:`view1` .. :func:`view4` and the scalars with
# :func:`scalar` / :func:`fscalar` (free once compiled).  The views have no owner: the caller
# keeps the arrays alive while a kernel runs (a state's pack is one of its
# bundles, dropped when any attribute is bound anew; see BatchState.bundle).
# Run as Python (no numba, or NUMBA_DISABLE_JIT=1) a pack is the tuple of the
# values themselves and the views index it: the same kernels either way.  A
# kernel run as Python while numba compiles it gets the packs the compiled
# one would: its views are arrays over the memory at the packed addresses
# (:func:`_memory`).

#: What a packed value may be: a C-contiguous array of at most 4 dimensions, an int/bool or a float.
PACK_DIMS = 4


def pack(values: Sequence[Any], kinds: Sequence[tuple[Any, int]]) -> Any:
    """The pack of ``values``: ``kinds[k]`` is ``(dtype, ndim)`` of an array
    value, ``(None, 0)`` for an int or bool (stored as an int64) or
    ``(float, 0)`` for a float (its float64 bits; :func:`fscalar`).  Checked
    before anything is packed (TypeError on a value of another kind, a
    non-contiguous array or a length mismatch): a kernel reading a view of the
    wrong type would read the wrong memory."""
    if len(values) != len(kinds):
        raise TypeError(f"pack: {len(values)} values for {len(kinds)} kinds")
    # (checked and made as one list, converted once: a state's pack is made
    # with every new game of a one-game view, at a cost per value)
    rows: list[int] = []  # (flat: converted faster)
    for k, (value, (dtype, ndim)) in enumerate(zip(values, kinds)):
        if dtype is None or dtype is float:
            kind = (int, np.integer, bool, np.bool_) if dtype is None else (int, float, np.integer, np.floating)
            if not isinstance(value, kind) or isinstance(value, np.ndarray):
                raise TypeError(
                    f"pack: value {k} must be a{'n int or bool' if dtype is None else ' float'}, got {value!r}"
                )
            rows += (int(np.float64(value).view(np.int64)) if dtype is float else int(value), *_NO_DIMS)
            continue
        if (
            not isinstance(value, np.ndarray)
            or (value.dtype is not _dtype(dtype) and value.dtype != _dtype(dtype))
            or value.ndim != ndim
            or ndim > PACK_DIMS
            or not value.flags.c_contiguous
        ):
            raise TypeError(f"pack: value {k} must be a C-contiguous {np.dtype(dtype)} array of {ndim} dimensions")
        rows += (_address(value) if COMPILED else 0, *value.shape, *_NO_DIMS[ndim:])
    if not COMPILED:
        return tuple(values)
    return np.array(rows, np.int64).reshape(len(values), 1 + PACK_DIMS)


_NO_DIMS = (0,) * PACK_DIMS
_DTYPES: dict[Any, np.dtype] = {}


def _dtype(kind: Any) -> np.dtype:
    """``np.dtype(kind)``, made once per kind (``np.dtype`` is not free)."""
    made = _DTYPES.get(kind)
    if made is None:
        made = _DTYPES[kind] = np.dtype(kind)
    return made


def raw_source(rng: np.random.Generator) -> tuple[int, int]:
    """What :func:`raw_draw` draws ``rng``'s next raw 64-bit draw with (the
    draw ``rng.bit_generator.random_raw()`` returns, and the same step of
    its stream): the address of numpy's C function for it (the bit
    generator's ``ctypes.next_uint64``) and of the generator's state, as
    ints for a pack (:func:`pack`).  The caller keeps ``rng`` alive while a
    kernel may draw (a state's bundles: see ``BatchState.bundle``), and
    draws from one thread (``random_raw`` takes the generator's lock)."""
    made = rng.bit_generator.ctypes
    return ctypes.cast(made.next_uint64, ctypes.c_void_p).value or 0, int(made.state_address)


#: numpy's C function of a raw draw: ``uint64_t next_uint64(void *state)``.
_RAW_DRAW = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p)

#: The arrays :func:`_memory` made, by address, dimensions, shape and dtype.
_MEMORY: dict[tuple, np.ndarray] = {}


def _memory(packed: np.ndarray, k: int, ndim: int, dtype: Any) -> np.ndarray:
    """Value ``k`` of a pack (an array of ``ndim`` dimensions of ``dtype``)
    for a kernel run as Python while numba compiles it: an array over the
    memory at its address, as the compiled view is (owning nothing: the
    caller keeps the array alive).  Kept by address, shape and dtype (a
    kernel views a state's arrays again and again); an array kept whose
    memory went to another array of that shape and dtype is a view of that
    one, as a new view would be."""
    row = packed[k].tolist()
    key = (*row[: 1 + ndim], dtype)
    made = _MEMORY.get(key)
    if made is None:
        kind, shape = _dtype(dtype), tuple(row[1 : 1 + ndim])
        size = math.prod(shape) * kind.itemsize
        if size:
            made = np.frombuffer((ctypes.c_char * size).from_address(row[0]), kind).reshape(shape)
        else:
            made = np.empty(shape, kind)
        if len(_MEMORY) >= 4096:
            _MEMORY.clear()
        _MEMORY[key] = made
    return made


if COMPILED:  # pragma: no branch - which branch runs depends on the environment
    from llvmlite import ir as _ir
    from numba import types as _types
    from numba.core import cgutils as _cgutils
    from numba.extending import intrinsic as _intrinsic

    @kernel
    def _address(array):
        """The address of ``array``'s data (``array.ctypes.data`` is slow: it makes an object)."""
        return array.ctypes.data

    # (packing runs before any kernel: a builder started for this helper alone would only compete, at scale,
    # with the calls that compile what they need in this process; its Python version is fine at any batch,
    # and it is never a large call: it is handed one array at a time, a game's tables among them)
    _address.asks_builder = False

    @_intrinsic
    def _pointer(typingctx, address):  # noqa: ARG001 - numba's intrinsic signature
        """The int64 ``address`` as a pointer (for ``numba.carray``)."""

        def codegen(context, builder, signature, args):
            return builder.inttoptr(args[0], _cgutils.voidptr_t)

        return _types.voidptr(_types.int64), codegen

    def _inline(python: Callable) -> Callable:
        """A pack view compiled into its callers (inlined); ``python``: itself run as Python
        (with plain numba kernels, never: they are compiled before they first run)."""
        if _compiling is None:
            return lambda fn: _numba.njit(nogil=True, inline="always")(fn)
        return lambda fn: _compiling.InlineKernel(fn, python)

    @_inline(lambda packed, k, dtype: _memory(packed, k, 1, dtype))
    def view1(packed, k, dtype):
        """Value ``k`` of a pack: a 1-d array of ``dtype``."""
        return _numba.carray(_pointer(packed[k, 0]), (packed[k, 1],), dtype)

    @_inline(lambda packed, k, dtype: _memory(packed, k, 2, dtype))
    def view2(packed, k, dtype):
        """Value ``k`` of a pack: a 2-d array of ``dtype``."""
        return _numba.carray(_pointer(packed[k, 0]), (packed[k, 1], packed[k, 2]), dtype)

    @_inline(lambda packed, k, dtype: _memory(packed, k, 3, dtype))
    def view3(packed, k, dtype):
        """Value ``k`` of a pack: a 3-d array of ``dtype``."""
        return _numba.carray(_pointer(packed[k, 0]), (packed[k, 1], packed[k, 2], packed[k, 3]), dtype)

    @_inline(lambda packed, k, dtype: _memory(packed, k, 4, dtype))
    def view4(packed, k, dtype):
        """Value ``k`` of a pack: a 4-d array of ``dtype``."""
        shape = (packed[k, 1], packed[k, 2], packed[k, 3], packed[k, 4])
        return _numba.carray(_pointer(packed[k, 0]), shape, dtype)

    @_inline(lambda packed, k: float(packed[k, :1].view(np.float64)[0]))
    def fscalar(packed, k):
        """Value ``k`` of a pack: a float (float64)."""
        return packed[k, :1].view(np.float64)[0]

    @_inline(lambda packed, k: int(packed[k, 0]))
    def scalar(packed, k):
        """Value ``k`` of a pack: an int (int64; a bool packed is 0 or 1)."""
        return packed[k, 0]

    @_intrinsic
    def _call_raw_draw(typingctx, function, state):  # noqa: ARG001 - numba's intrinsic signature
        """A call of the C function at address ``function`` on ``state`` (see :func:`raw_source`)."""

        def codegen(context, builder, signature, args):
            callee = builder.inttoptr(args[0], _ir.FunctionType(_ir.IntType(64), [_cgutils.voidptr_t]).as_pointer())
            return builder.call(callee, [builder.inttoptr(args[1], _cgutils.voidptr_t)])

        return _types.uint64(_types.int64, _types.int64), codegen

    @_inline(lambda function, state: _RAW_DRAW(function)(state))
    def raw_draw(function, state):
        """The next raw draw (uint64) of the generator of :func:`raw_source`'s ``(function, state)``."""
        return _call_raw_draw(function, state)

else:

    def raw_draw(function: int, state: int) -> int:
        """The next raw draw of the generator of :func:`raw_source`'s
        ``(function, state)`` (run as Python: through ctypes)."""
        return _RAW_DRAW(function)(state)

    def view1(packed: Any, k: int, dtype: Any) -> Any:
        """Value ``k`` of a pack (run as Python: the value itself)."""
        return packed[k]

    view2 = view3 = view4 = view1

    def fscalar(packed: Any, k: int) -> Any:
        """Value ``k`` of a pack (run as Python: the value itself)."""
        return packed[k]

    def scalar(packed: Any, k: int) -> Any:
        """Value ``k`` of a pack (run as Python: the value itself)."""
        return packed[k]


def entry(fn: Any, *arg_kinds: str) -> Any:
    """The compiled entry point of kernel ``fn`` for arguments of exactly
    the kinds ``arg_kinds`` (``"int"``: a Python int, ``"bool"``: a Python
    bool, ``"pack"``: a :func:`pack`), compiled or loaded from the disk
    cache now, as a first call would.  Numba's dispatch types every
    argument of every call to pick the compiled version (a visible part of
    a Pepper step at batch 1); the entry point skips it, and reads its
    arguments as those kinds whatever they are: only for callers whose
    argument kinds are fixed by construction (the one-call steps: an int
    checked in range, or a bool, and a pack).  Without numba, or with
    plain numba kernels, ``fn`` (numba's dispatch types them so)."""
    if _compiling is None:
        return fn
    made = _ENTRIES.get((fn, arg_kinds))
    if made is None:  # (numba's compile() of a known signature still costs: asked with every new game)
        kinds = {"int": _types.int64, "bool": _types.boolean, "pack": _types.Array(_types.int64, 2, "C")}
        made = _ENTRIES[fn, arg_kinds] = _compiling.entry_point(fn, tuple(kinds[kind] for kind in arg_kinds))
    elif type(made) is _compiling.Switch and made.compiled is not None:
        made = _ENTRIES[fn, arg_kinds] = made.compiled
    return made


#: The entry points made so far, by kernel and argument kinds.
_ENTRIES: dict[tuple[Any, tuple[str, ...]], Any] = {}


def pack_kind(fields: Sequence[str], kinds: Sequence[tuple[Any, int]]) -> type:
    """A kind for :meth:`~cardenvs.core.game.BatchState.bundle`: the state's
    values named ``fields`` (of ``kinds``, see :func:`pack`) as one pack,
    made once per state as bundles are."""
    if len(fields) != len(kinds):
        raise TypeError(f"pack_kind: {len(fields)} fields for {len(kinds)} kinds")

    class Pack:
        _fields = tuple(fields)

        def __new__(cls, *values: Any) -> Any:
            return pack(values, kinds)

    return Pack
