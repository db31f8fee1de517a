"""How a kernel is compiled, and what runs until it is (needs numba; see :mod:`cardenvs.core.jit`).

A kernel is a numba dispatcher (:class:`Kernel`) whose compiled versions
are cached on disk.  With a cold cache (a new install, an upgrade, a new
container, a CI run) numba takes far longer to compile a game's kernels
(mostly LLVM's optimisation of the lowered code) than the same kernels
run as Python take to play a whole game at batch 1.  So, by default
(``CARDENVS_COMPILE=background``), the first call of a kernel for
argument types it has no compiled version of does not compile: it loads
that version from the disk cache if it is there, and otherwise runs the
kernel as Python (:func:`python_of`: the same function, its calls of other
kernels and pack views bound to their Python versions, as
``NUMBA_DISABLE_JIT=1`` runs it) and asks a builder process
(:mod:`cardenvs.core.builder`) to compile it into the cache.  Once the
builder is done, the next call loads the compiled version and runs it: a
game may switch mid-way, with the same results (one implementation,
either way).  A call of :data:`WAIT_ROWS` games or more differs
(:func:`cardenvs.core.first_use.at_scale`):
there a kernel's Python version takes a second or more a call, for steps the
compiled one makes in milliseconds.  It runs as Python only for its first
calls (:mod:`cardenvs.core.first_use`: a game's reset and first step), asking
the builder meanwhile; then it compiles what it uses in the calling
process -- the kernels the builder has not started, while the builder
compiles others on another core -- or waits for the builder, and runs
compiled.  A wait of more than a couple of seconds is said in one line on
stderr (:func:`cardenvs.core.first_use.notice`).
``CARDENVS_COMPILE=now`` compiles on first use in the calling process, as
plain numba does (the builder itself runs so).

The cache's check is made stricter (:class:`StampedCache`): numba keys
a cached kernel on its own source file only, so a kernel whose callee in
another module changed, or which reads a table of another module that
changed, would be loaded stale.  Here the index's stamp also covers what
the kernel's code reads -- every global it names, recursively through the
kernels it calls, with their default arguments, by value (arrays by their
bytes, dtype and shape; enums by their members; ``module.attribute`` of any
package by the attribute's value) -- and the numpy and llvmlite versions: a
cache written for other code or another environment misses and is compiled
again, never used silently.  What numba finds on its own (an ``@overload``
registered elsewhere, a module's attribute made by its ``__getattr__``) is
not seen.

The cache is code (numba's files are pickles): its folder and files are
judged and signed first (:mod:`cardenvs.core.compile_cache`).
"""

from __future__ import annotations

import enum
import hashlib
import importlib
import os
import sys
import threading
import traceback
import types as pytypes
from collections.abc import Callable
from typing import Any

import llvmlite
import numpy as np
from numba._dispatcher import compute_fingerprint
from numba.core import registry
from numba.core import types as numba_types
from numba.core.compiler_lock import global_compiler_lock
from numba.core.dispatcher import Dispatcher
from numba.core.typing.typeof import Purpose, typeof

from . import builder as _builder
from . import first_use
from .compile_cache import SafeCache, writes_failed

_builder.BUILDER.choose = first_use.next_for_builder

#: ``"background"``: a kernel not yet compiled runs as Python while a builder process compiles it;
#: ``"now"``: compiled on first use in the calling process (numba's own way); ``"python"``: a kernel
#: not yet compiled runs as Python and nothing is compiled (as the first calls run with a cold cache:
#: for tests and debugging).
MODE = os.environ.get("CARDENVS_COMPILE", "background")
if MODE not in ("background", "now", "python"):
    raise ValueError(f"CARDENVS_COMPILE must be 'background', 'now' or 'python', got {MODE!r}")

#: From how many games (the most common first dimension of a call's arrays, those in its packs
#: included) a call of a kernel not yet compiled is a call at scale (:func:`cardenvs.core.first_use.at_scale`).
WAIT_ROWS = 256

#: What a cached kernel's stamp covers besides its code: the libraries the compiled code was made against.
_ENVIRONMENT = f"cardenvs-stamp-2 numpy {np.__version__} llvmlite {llvmlite.__version__}".encode()


class Kernel(registry.CPUDispatcher):
    """A numba dispatcher compiled with ``nopython`` and ``nogil``, cached
    on disk with :class:`StampedCache`; a call for argument types it has
    no compiled version of goes to :func:`first_call`."""

    #: False for a helper too small to start a builder for (:func:`cardenvs.core.jit._address`): it is
    #: asked of a builder other kernels started, else it runs as Python (unless the cache has it), at any size
    asks_builder = True

    def __init__(self, py_func: Callable, locals: Any = None, targetoptions: Any = None, **kws: Any):
        options = {"nogil": True, "nopython": True, "boundscheck": None} if targetoptions is None else targetoptions
        super().__init__(py_func, locals or {}, options, **kws)

    def enable_caching(self) -> None:
        self._cache = StampedCache(self.py_func)

    def _compile_for_args(self, *args: Any, **kws: Any) -> Any:
        # (numba's C dispatch calls this only when no compiled version fits the arguments)
        if MODE == "now" or kws:
            return super()._compile_for_args(*args, **kws)
        key = _fingerprint(args)
        waiting = self.__dict__.setdefault("_cardenvs_waiting", {})
        sig, generation = waiting.get(key, (None, None))
        large = MODE == "background" and self.asks_builder and rows_of(args) >= WAIT_ROWS
        if generation == _builder.BUILDER.generation and not large:  # (nothing built since it last ran as Python)
            return run_python(self)
        if sig is None:
            try:
                sig = tuple(typeof(arg, Purpose.argument) for arg in args)
            except Exception:  # (an argument numba cannot type: numba's own call says why)
                sig = None
            if sig is None or any(t is None for t in sig):
                return super()._compile_for_args(*args, **kws)
        if large:
            made = first_use.at_scale(self, sig)
            if made is not None:
                return made
            if key is not None:
                waiting[key] = (sig, None)  # (its type, found once)
            return run_python(self)
        if self.asks_builder or _builder.BUILDER.running:
            made = first_call(self, sig)
        else:  # (looked for in the cache again only when the builder has answered something)
            made = None if MODE == "python" else self.load_cached(sig)
        if made is not None:
            return made
        if key is not None:
            waiting[key] = (sig, _builder.BUILDER.generation)
        return run_python(self)

    def load_cached(self, sig: tuple) -> Any:
        """The compiled version for ``sig`` if this process has it or the disk
        cache does (then loaded, as numba's ``compile`` loads it), else None:
        never compiles."""
        with global_compiler_lock:
            made = self.overloads.get(tuple(sig))
            if made is not None:
                return made.entry_point
            cres = self._cache.load_overload(sig, self.targetctx)
            if cres is None:
                return None
            self._cache_hits[sig] += 1
            if not cres.objectmode:
                self.targetctx.insert_user_function(cres.entry_point, cres.fndesc, [cres.library])
            self.add_overload(cres)
            return cres.entry_point


class InlineKernel(Kernel):
    """A kernel inlined into its compiled callers (a pack view, a raw
    draw), never compiled on its own: called from Python it is its
    Python version ``python`` (see :mod:`cardenvs.core.jit`)."""

    def __init__(self, py_func: Callable, python: Callable):
        options = {"nogil": True, "inline": "always", "nopython": True, "boundscheck": None}
        super().__init__(py_func, targetoptions=options)
        self.enable_caching()
        self.python = python

    def _compile_for_args(self, *args: Any, **kws: Any) -> Any:
        return self.python

    def __reduce__(self) -> str:
        return self.__qualname__  # (pickled as the module's own, by name: its Python version is not data)


def _fingerprint(args: tuple) -> tuple | None:
    """What numba's type of ``args`` depends on, found faster than their
    types (numba's own fingerprints, made for its dispatch; an int's by
    whether it fits an int64), or None."""
    try:
        return tuple(compute_fingerprint(arg) if type(arg) is not int else arg.bit_length() < 64 for arg in args)
    except Exception:
        return None


def rows_of(args: tuple) -> int:
    """How many games a call is for, as far as its arguments tell: the most
    common first dimension among its arrays and the arrays its packs stand
    for (a pack's rows hold each packed array's shape from column 1; see
    :func:`cardenvs.core.jit.pack`), the larger on a tie.  The most common,
    not the longest: a game's lookup tables (thousands of rows) go with
    arrays of one row per game."""
    dims: list[int] = []
    for arg in args:
        if isinstance(arg, np.ndarray) and arg.ndim:
            if arg.ndim == 2 and arg.dtype == np.int64 and arg.shape[1] == _PACK_WIDTH and len(arg):
                dims += [int(d) for d in arg[:, 1] if d]  # (0: a scalar's row)
            else:
                dims.append(arg.shape[0])
    if not dims:
        return 0
    values, counts = np.unique(dims, return_counts=True)
    return int(values[counts == counts.max()].max())


_PACK_WIDTH = 5  # (1 + jit.PACK_DIMS: an address or scalar, then up to 4 dimensions)


def first_call(kernel: Kernel, sig: tuple) -> Any:
    """The compiled version of ``kernel`` for ``sig`` when it can be had
    without compiling here (loaded, or built by the builder and loaded),
    else None after asking the builder (the caller runs the kernel as
    Python); compiled here when the builder cannot build it (a kernel
    defined where a new process cannot import it, or the build failed:
    numba's own errors are raised here, as they would be on first use)."""
    if MODE == "python":
        return None
    key = (kernel, sig)
    status = _builder.BUILDER.status.get(key)
    if status in (_builder.BUILDING, _builder.PENDING):
        return None
    made = kernel.load_cached(sig)
    if made is not None:
        return made
    if status is None and writes_failed() is None and _builder.BUILDER.request(key, kernel.py_func, sig):
        return None
    return Dispatcher.compile(kernel, sig)


def entry_point(kernel: Kernel, sig: tuple) -> Any:
    """What :func:`cardenvs.core.jit.entry` hands out: ``kernel``'s
    compiled entry point for exactly ``sig`` (no type dispatch), or while
    it is being built a :class:`Switch` to it."""
    if MODE == "now":
        return kernel.compile(sig)
    return first_call(kernel, sig) or Switch(kernel, sig)


class Switch:
    """A call of ``kernel`` for ``sig`` run as Python until its compiled
    version is ready (looked for each time the builder answers), then
    that version."""

    def __init__(self, kernel: Kernel, sig: tuple):
        self.kernel, self.sig, self.compiled = kernel, sig, None
        self.generation = _builder.BUILDER.generation
        self.python = run_python(kernel)

    def __call__(self, *args: Any) -> Any:
        if self.compiled is None and self.generation != _builder.BUILDER.generation:
            self.generation = _builder.BUILDER.generation
            self.compiled = first_call(self.kernel, self.sig)
        return (self.compiled or self.python)(*args)


def wait(timeout: float | None = None) -> bool:
    """Wait until the builder has answered everything asked (see :func:`cardenvs.core.jit.wait_compiled`)."""
    return _builder.BUILDER.wait(timeout)


def run_python(kernel: Kernel) -> Callable:
    """What runs ``kernel`` as Python from a Python caller: its Python
    version (:func:`python_of`) with integer overflow wrapping silently,
    as the compiled code wraps."""
    made = kernel.__dict__.get("_cardenvs_run")
    if made is None:
        python = python_of(kernel)

        def made(*args: Any) -> Any:
            with np.errstate(over="ignore"):
                return python(*args)

        kernel._cardenvs_run = made
    return made


# ---------------------------------------------------------------- the builder's side
def serve_builder() -> None:
    """The builder process (see :mod:`cardenvs.core.builder`).  It ends by
    ``os._exit``: its reader thread may still be blocked on stdin, and an
    interpreter shutting down beside it aborts ("could not acquire lock for
    <stdin> at interpreter shutdown"); what it built is already in the cache."""
    code = 0
    try:
        _builder.serve(build, StampedCache)
    except BaseException:  # (said on stderr, as the interpreter would)
        traceback.print_exc()
        code = 1
    sys.stderr.flush()
    os._exit(code)


def build(module: str, name: str, line: int, sig: tuple) -> bool:
    """Compile kernel ``module.name`` (defined at ``line``) for ``sig`` into
    the cache; False if it is not there or does not compile."""
    try:
        found: Any = importlib.import_module(module)
        for part in name.split("."):
            found = getattr(found, part)
        fn = getattr(found, "py_func", found)
        if fn.__code__.co_firstlineno != line:
            return False
        kernel = found if isinstance(found, Kernel) else Kernel(fn)
        if kernel is not found:
            kernel.enable_caching()
        kernel.compile(sig)
        return writes_failed() is None  # (not kept: the process that asked compiles it, and says why)
    except Exception as error:  # (the process that asked compiles it itself, and says why)
        print(f"cardenvs builder: {module}.{name}{sig}: {type(error).__name__}", file=sys.stderr)
        return False


# ---------------------------------------------------------------- Python versions
_GLOBALS: dict[int, dict] = {}  # id(a module's globals) -> the globals of its Python versions
_PYTHON_LOCK = threading.RLock()


def python_of(kernel: Any) -> Callable:
    """``kernel``'s function as Python, reading the Python versions of the
    kernels and views it names (a copy of the function with its module's
    globals so bound: calling a kernel from Python costs numba's dispatch,
    and a view's compiled code cannot run as Python)."""
    if isinstance(kernel, InlineKernel):
        return kernel.python
    made = kernel.__dict__.get("_cardenvs_python")
    if made is not None:
        return made
    with _PYTHON_LOCK:
        made = kernel.__dict__.get("_cardenvs_python")
        if made is None:
            fn = kernel.py_func
            closure = fn.__closure__
            if closure is not None:
                closure = tuple(pytypes.CellType(_as_python(cell.cell_contents)) for cell in closure)
            bound = _python_globals(fn.__globals__)
            made = pytypes.FunctionType(fn.__code__, bound, fn.__name__, fn.__defaults__, closure)
            made.__kwdefaults__, made.__qualname__ = fn.__kwdefaults__, fn.__qualname__
            kernel._cardenvs_python = made
    return made


def _python_globals(module_globals: dict) -> dict:
    made = _GLOBALS.get(id(module_globals))
    if made is None:
        made = _GLOBALS[id(module_globals)] = {}  # (first: kernels of a module call each other)
        made.update({name: _as_python(value) for name, value in list(module_globals.items())})
    return made


def _as_python(value: Any) -> Any:
    return python_of(value) if isinstance(value, Dispatcher) else value


# ---------------------------------------------------------------- the cache's stamp
class StampedCache(SafeCache):
    """numba's cache of a kernel (in a folder only this user can write, in
    signed files: :class:`~cardenvs.core.compile_cache.SafeCache`), whose index is stamped with
    :func:`stamp` (the kernel's source file, as numba stamps it, and what
    its code reads), computed on the first load or save: an index written
    with another stamp reads as empty (numba's own rule for a changed
    source file), so the kernel is compiled again and the index rewritten."""

    _stamped = False

    def _restamp(self) -> None:
        if not self._stamped:
            self._cache_file._source_stamp = stamp(self._py_func, self._cache_file._source_stamp)
            self._stamped = True

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        self._restamp()
        return super().load_overload(sig, target_context)

    def save_overload(self, sig: Any, data: Any) -> None:
        self._restamp()
        super().save_overload(sig, data)


def stamp(fn: Callable, source_stamp: Any) -> bytes:
    """The stamp of kernel function ``fn``'s cached code: numba's
    ``source_stamp`` of its file, the environment, its code and the value
    of everything its code reads (:func:`_function_stamp`)."""
    # (numba's own stamp: bytes in recent releases, an (mtime, size) tuple in older ones)
    source = source_stamp if isinstance(source_stamp, bytes) else repr(source_stamp).encode()
    digest = hashlib.sha256(_ENVIRONMENT + b"|" + source)
    digest.update(_function_stamp(fn, {}))
    return digest.digest()


def _function_stamp(fn: Callable, seen: dict[Any, bytes]) -> bytes:
    """What a compiled call of ``fn`` depends on: its code, its default
    arguments (they are compiled into its callers), its closure and the
    value of every global its code names."""
    made = seen.get(id(fn))
    if made is not None:
        return made
    seen[id(fn)] = f"recursive {fn.__module__}.{fn.__qualname__}".encode()  # (a kernel calling itself)
    digest = hashlib.sha256(f"{fn.__module__}.{fn.__qualname__}".encode())
    names: set[str] = set()
    _code_stamp(fn.__code__, digest, names)
    digest.update(b"defaults=" + _value_stamp(fn.__defaults__, names, seen))
    for name, value in sorted((fn.__kwdefaults__ or {}).items()):
        digest.update(f"kwdefault {name}=".encode() + _value_stamp(value, names, seen))
    for name in sorted(names):
        if name in fn.__globals__:
            digest.update(name.encode() + b"=" + _value_stamp(fn.__globals__[name], names, seen))
    for cell in fn.__closure__ or ():
        digest.update(b"cell=" + _value_stamp(cell.cell_contents, names, seen))
    seen[id(fn)] = made = digest.digest()
    return made


def _code_stamp(code: pytypes.CodeType, digest: Any, names: set[str]) -> None:
    digest.update(code.co_code)
    names.update(code.co_names)
    for const in code.co_consts:
        if isinstance(const, pytypes.CodeType):
            _code_stamp(const, digest, names)
        else:
            digest.update(_const_repr(const).encode())


def _const_repr(const: Any) -> str:
    """A constant of code, written the same in every process (a frozenset's
    items sorted: their order changes with the strings' hash seed)."""
    if isinstance(const, (tuple, frozenset)):
        items = [_const_repr(item) for item in const]
        return f"{type(const).__name__}({', '.join(sorted(items) if isinstance(const, frozenset) else items)})"
    return repr((type(const).__name__, const))


def _value_stamp(value: Any, names: set[str], seen: dict[Any, bytes]) -> bytes:
    """What a kernel's compiled code took from ``value``, a global (or
    default, or closure cell) it reads: a kernel's, function's or
    intrinsic's code and globals (recursively), an array's bytes, dtype and
    shape, a scalar's or tuple's value, an enum's members, a class's name
    and fields, a module's attributes that the code names (of any package),
    a numba type's name."""
    if isinstance(value, Dispatcher):
        return b"kernel " + _function_stamp(value.py_func, seen)
    if isinstance(value, pytypes.FunctionType):
        return b"function " + _function_stamp(value, seen)
    if isinstance(value, np.ndarray):
        data = np.ascontiguousarray(value).tobytes()
        return f"array {value.dtype.str} {value.shape} ".encode() + hashlib.sha256(data).digest()
    if isinstance(value, tuple):
        inner = b",".join(_value_stamp(item, names, seen) for item in value)
        return f"tuple {type(value).__qualname__} (".encode() + inner + b")"
    if isinstance(value, pytypes.ModuleType):
        return _module_stamp(value, names, seen)
    if isinstance(value, enum.Enum):
        return f"enum {type(value).__module__}.{type(value).__qualname__}.{value.name}=".encode() + _value_stamp(
            value.value, names, seen
        )
    if isinstance(value, type):
        members = [_value_stamp(member, names, seen) for member in value] if issubclass(value, enum.Enum) else []
        return f"class {value.__module__}.{value.__qualname__} {getattr(value, '_fields', '')} ".encode() + b",".join(
            members
        )
    if isinstance(value, (int, float, complex, str, bytes, bool, np.generic, np.dtype, type(None), numba_types.Type)):
        return repr((type(value).__name__, str(value) if isinstance(value, numba_types.Type) else value)).encode()
    if isinstance(getattr(value, "_defn", None), pytypes.FunctionType):  # (numba's @intrinsic: its code generator)
        return b"intrinsic " + _function_stamp(value._defn, seen)
    kind = type(value)
    return f"object {kind.__module__}.{kind.__qualname__} {getattr(value, '__qualname__', '')}".encode()


def _module_stamp(module: pytypes.ModuleType, names: set[str], seen: dict[Any, bytes]) -> bytes:
    """A module read as ``module.attribute`` (``module.sub.attribute``): the
    values of its attributes that the code names, whatever package it is of."""
    key = ("module", id(module), frozenset(names))
    made = seen.get(key)
    if made is None:
        seen[key] = f"recursive module {module.__name__}".encode()
        found = vars(module)  # (not getattr: a module's __getattr__ may import or warn)
        parts = [n.encode() + b"=" + _value_stamp(found[n], names, seen) for n in sorted(names) if n in found]
        seen[key] = made = f"module {module.__name__} ".encode() + hashlib.sha256(b"\n".join(parts)).digest()
    return made
