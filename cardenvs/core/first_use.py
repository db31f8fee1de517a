"""First use at scale: a call of many games of a kernel not compiled yet
(see :mod:`cardenvs.core.compiling`).

A call of :data:`cardenvs.core.compiling.WAIT_ROWS` games or more runs a
kernel's Python version in about a second, where the compiled one takes
milliseconds.  So such a call of a kernel not compiled yet (:func:`at_scale`)
runs as Python only if it is the kernel's first such call, or one of its
first few before the first step of an engine of its game has ended
(:func:`as_python`: a reset and a first step start at once), asking the
builder to compile it meanwhile.  Its later calls compile it in the calling
process if the builder has not started it (:func:`compile_here`), or wait
for the builder, compiling meanwhile what else the game has pending
(:func:`_wait_for`).  A game's kernels share much of their code (the
kernels they call, compiled with each): two compiles that share any are
never run at once, here and in the builder (:func:`next_for_builder`), so
that nothing is compiled twice; the one that comes second loads what the
first compiled from the cache.  (So the two compile at once only what
shares nothing: little, in the games here.)

A wait of more than :data:`NOTICE_SECONDS` (estimated from the size of the
code to compile: :func:`estimate`) is said in one line on stderr
(:func:`notice`), unless the environment variable :data:`QUIET` is set.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
import types
from collections.abc import Iterable
from typing import Any

from numba.core.dispatcher import Dispatcher

from . import builder as _builder
from .compile_cache import writes_failed

#: The environment variable that silences the line said when a call waits for the compiler (any value but "" or "0").
QUIET = "CARDENVS_COMPILE_QUIET"
#: How many calls at scale of a kernel (for one signature, in one thread) may run as Python before its game's
#: first step ends (a kernel is called once or twice in a reset and a first step).
START_CALLS = 4
#: From how long a wait for the compiler (estimated) it is said on stderr.
NOTICE_SECONDS = 2.0
#: Seconds to compile a byte of a kernel's Python bytecode (with the kernels it calls): measured on a
#: 2-core AMD EPYC; each compile made in the calling process measures it again.
SECONDS_PER_BYTE = [1.0e-3]

_ANNOUNCED: set[Any] = set()  # what a line said already (kernel keys)
_STARTING: set[str] = set()  # the games of engines made that have not ended their first step (game_of's names)
_HERE: list[dict[int, int]] = []  # the kernels compiled in this process now (a dict of sizes per compile)
_HERE_LOCK = threading.Lock()


def at_scale(kernel: Any, sig: tuple) -> Any:
    """The compiled version of ``kernel`` (a :class:`~cardenvs.core.compiling.Kernel`)
    for ``sig``, for a call at scale, or None: run it as Python (its first
    call, or one before its game's first step ends: :func:`as_python`; the builder is asked).
    Otherwise had now: loaded; compiled here if the builder has not started
    it; else waited for (:func:`_wait_for`).  Ctrl-C ends a wait."""
    made = kernel.load_cached(sig)
    if made is not None:
        return made
    key, builder = (kernel, sig), _builder.BUILDER
    status = builder.status.get(key)
    asked = status in (_builder.PENDING, _builder.BUILDING)
    if (
        (status is None or asked)
        and writes_failed() is None  # (a cache not written: the builder cannot help)
        and as_python(kernel, sig)
        and (asked or builder.request(key, kernel.py_func, sig))
    ):
        return None
    while builder.status.get(key) == _builder.BUILDING:
        _wait_for(key)
        made = kernel.load_cached(sig)
        if made is not None:
            return made
    builder.take(key)
    return compile_here(key)


def as_python(kernel: Any, sig: tuple) -> bool:
    """Whether this call at scale of ``kernel`` for ``sig`` runs as Python:
    its first (in this thread), or one of its first :data:`START_CALLS`
    while an engine of its game has not ended its first step (:func:`first_step`:
    an engine made and never stepped keeps no kernel as Python for long)."""
    calls = kernel.__dict__.setdefault("_cardenvs_calls_at_scale", {})
    key = (sig, threading.get_ident())
    made = calls[key] = calls.get(key, 0) + 1
    return made == 1 or (made <= START_CALLS and game_of(kernel) in _STARTING)


def first_step(module: str, done: bool) -> None:
    """An engine of the game of ``module`` (its rules') is made (``done``
    False) or has ended its first step (True; :class:`~cardenvs.core.engine.Engine`
    says both): until then that game's kernels run as Python at scale."""
    game = _game_of_module(module)
    if done:
        _STARTING.discard(game)
    else:
        _STARTING.add(game)


def compile_here(key: tuple) -> Any:
    """``key``'s kernel compiled for its signature in this process (as ``now``
    compiles it), once the builder is done with any kernel that shares code
    with it; the wait said if long; the time it took rates later estimates."""
    kernel, sig = key
    sizes = uncompiled(kernel)
    with _HERE_LOCK:
        _HERE.append(sizes)  # (from now on the builder is handed nothing that shares code with it)
    try:
        _notice(key)
        for other in _building():
            if sizes.keys() & uncompiled(other[0]).keys():
                _builder.BUILDER.wait_for(other)  # (what it compiled is then loaded from the cache)
        start = time.perf_counter()
        made = Dispatcher.compile(kernel, sig)
        measured(sizes, time.perf_counter() - start)
        return made
    finally:
        with _HERE_LOCK:
            _HERE.remove(sizes)
        _builder.BUILDER.hand_over()


def next_for_builder(keys: list[tuple]) -> tuple | None:
    """Which of the pending ``keys`` the builder compiles next: the largest
    (the one that takes longest, often with others' kernels in it: they are
    then loaded from the cache), of those that share no code with a compile
    in this process now (None: none, until that ends)."""
    with _HERE_LOCK:
        here = [set(sizes) for sizes in _HERE]
    ready = []
    for n, key in enumerate(keys):
        sizes = uncompiled(key[0])
        if not any(sizes.keys() & ids for ids in here):
            ready.append((sum(sizes.values()), -n, key))  # (the first asked among equals)
    return max(ready)[2] if ready else None


def _building() -> list[tuple]:
    """The kernels the builder is compiling."""
    with _builder.BUILDER.lock:
        return [key for key, status in _builder.BUILDER.status.items() if status == _builder.BUILDING]


def _wait_for(key: tuple) -> None:
    """Wait for the builder to compile ``key``, the wait said if long;
    meanwhile compile here the kernels of its game that it has pending and
    that share no code with ``key`` (the smaller first, each one expected to
    end before ``key``)."""
    builder, game = _builder.BUILDER, game_of(key[0])
    _notice(key)
    waited = uncompiled(key[0])
    while builder.status.get(key) == _builder.BUILDING:
        left = estimate(waited) - (time.monotonic() - builder.started.get(key, 0.0))
        with builder.lock:
            pending = [k for k, s in builder.status.items() if s == _builder.PENDING and game_of(k[0]) == game]
        sizes = [(uncompiled(k[0]), n, k) for n, k in enumerate(pending)]
        free = sorted((estimate(s), n, k) for s, n, k in sizes if not s.keys() & waited.keys())
        if not free or free[0][0] > max(left, 0.0) or not builder.take(free[0][2]):
            break
        try:
            compile_here(free[0][2])
        except Exception:  # (its error is its own call's to raise: that call compiles it again)
            with builder.lock:
                builder.status[free[0][2]] = _builder.FAILED
    builder.wait_for(key)


# ---------------------------------------------------------------- how long a compile takes
def game_of(kernel: Any) -> str:
    """The game a kernel is of, as its module tells (``cardenvs.games.push.legal``:
    ``push``), else its module's package (``cardenvs.core``)."""
    return _game_of_module(kernel.py_func.__module__)


def _game_of_module(module: str) -> str:
    parts = module.split(".")
    if parts[:2] == ["cardenvs", "games"] and len(parts) > 2:
        return parts[2]
    return ".".join(parts[:-1]) or module


def uncompiled(kernel: Any, found: dict[int, int] | None = None) -> dict[int, int]:
    """The kernels a compile of ``kernel`` compiles (``kernel`` and those it
    calls, by ``id``, that have no compiled version yet), each with the size
    of its bytecode, added to ``found``."""
    found = {} if found is None else found
    if id(kernel) in found or kernel.overloads:
        return found
    fn = kernel.py_func
    names: set[str] = set()
    found[id(kernel)] = _code_size(fn.__code__, names)
    for name in names:
        for callee in _kernels_in(fn.__globals__.get(name), names):
            uncompiled(callee, found)
    return found


def _kernels_in(value: Any, names: set[str]) -> Iterable[Any]:
    """The kernels compiled with a caller that names ``value`` (a kernel, or a module
    whose kernels it names); pack views and other inlined helpers are not compiled alone."""
    if isinstance(value, types.ModuleType):
        found = vars(value)
        return [found[n] for n in names if isinstance(found.get(n), Dispatcher) and not hasattr(found[n], "python")]
    return [value] if isinstance(value, Dispatcher) and not hasattr(value, "python") else []


def _code_size(code: types.CodeType, names: set[str]) -> int:
    names.update(code.co_names)
    return len(code.co_code) + sum(_code_size(c, names) for c in code.co_consts if isinstance(c, types.CodeType))


def estimate(sizes: dict[int, int]) -> float:
    """Seconds to compile kernels of these bytecode sizes (:data:`SECONDS_PER_BYTE`)."""
    return sum(sizes.values()) * SECONDS_PER_BYTE[0]


def measured(sizes: dict[int, int], seconds: float) -> None:
    """A compile of kernels of ``sizes`` made here took ``seconds``: the rate of later estimates."""
    total = sum(sizes.values())
    if total >= 1000:  # (a small compile is mostly fixed costs)
        SECONDS_PER_BYTE[0] = seconds / total


# ---------------------------------------------------------------- the line said
def _notice(key: tuple) -> None:
    """Say that the call waits for ``key`` (:func:`notice`), with what else its
    game has asked of the builder and not had, if the wait is long."""
    builder, game, now = _builder.BUILDER, game_of(key[0]), time.monotonic()
    with builder.lock:
        asked = [k for k, s in builder.status.items() if s in (_builder.PENDING, _builder.BUILDING)]
    waits = {k: (uncompiled(k[0]), now - builder.started.get(k, now)) for k in [key, *asked] if game_of(k[0]) == game}
    cache = key[0]._cache
    kept = cache._cache_path if getattr(cache, "kept", False) and writes_failed() is None else None
    notice(key, waits, kept)


def notice(key: Any, waits: dict[Any, tuple[dict[int, int], float]], kept: str | None) -> None:
    """Say on stderr, in one line, that a call waits for the compiler, if it
    will wait more than :data:`NOTICE_SECONDS` for kernels not said already:
    ``key`` (a kernel and its signature) and ``waits``, what its game still
    has to compile (``key`` included), each with the sizes of the kernels
    compiled with it (:func:`uncompiled`) and the seconds the builder has
    spent on it; ``kept``: the folder they are kept in (None: they are not)."""
    if key in _ANNOUNCED or os.environ.get(QUIET, "0") not in ("", "0"):
        return
    new = {k: w for k, w in waits.items() if k not in _ANNOUNCED}
    union: dict[int, int] = {}
    for sizes, _ in new.values():
        union.update(sizes)
    seconds = estimate(union) - max((spent for _, spent in new.values()), default=0.0)
    if seconds < NOTICE_SECONDS:
        return
    _ANNOUNCED.update(new)
    module, game = key[0].py_func.__module__, game_of(key[0])
    if module.startswith("cardenvs.games."):
        title = game.replace("_", " ").title()
        name = title + ("'" if title.endswith("s") else "'s")
    else:
        name = "the engine's" if module.startswith("cardenvs.") else f"{game}'s"
    once = f"once per machine: they are kept in {kept}" if kept else "in every run: the compile cache is off"
    line = (
        f"cardenvs: compiling {name} kernels for many games at once ({len(union)} kernel"
        f"{'s' if len(union) != 1 else ''}, about {_rounded(seconds)}); {once} (set {QUIET}=1 to hide this line)"
    )
    with contextlib.suppress(OSError, ValueError):  # (a closed stderr: nothing to say it on)
        print(line, file=sys.stderr, flush=True)


def _rounded(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 10 else f"{round(seconds, -1):.0f} s"
