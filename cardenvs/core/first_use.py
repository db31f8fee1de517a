"""First use at scale: how long a game's first calls run as Python, how
long a compile will take, and the line said when a call waits for the
compiler (see :mod:`cardenvs.core.compiling`).

A call of many games (:data:`cardenvs.core.compiling.WAIT_ROWS` or more) of a
kernel not compiled yet runs as Python for its first :data:`PYTHON_CALLS`
calls (:func:`as_python`: a game's reset and first step), while the builder
compiles it; then its calls compile what they use in the calling process,
while the builder compiles other kernels, or wait for the builder.

A wait of more than :data:`NOTICE_SECONDS` (estimated: :func:`estimate`) is
said in one line on stderr (:func:`notice`), unless the environment
variable :data:`QUIET` is set.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import types
from collections.abc import Iterable
from typing import Any

from numba.core.dispatcher import Dispatcher

#: The environment variable that silences the line said when a call waits for the compiler (any value but "" or "0").
QUIET = "CARDENVS_COMPILE_QUIET"
#: How many calls at scale of a kernel not compiled yet (for one signature, in one thread) run as Python: a
#: game's reset and first step, at least (a kernel is called once or twice in each).
PYTHON_CALLS = 2
#: From how long a wait for the compiler (estimated) it is said on stderr.
NOTICE_SECONDS = 2.0
#: Seconds to compile a byte of a kernel's Python bytecode (with the kernels it calls): measured on a
#: 2-core AMD EPYC; each compile made in the calling process measures it again.
SECONDS_PER_BYTE = [1.0e-3]

_ANNOUNCED: set[Any] = set()  # what a line said already (kernel keys)


def game_of(kernel: Any) -> str:
    """The game a kernel is of, as its module tells (``cardenvs.games.push.legal``:
    ``push``), else its module."""
    module = kernel.py_func.__module__
    parts = module.split(".")
    return parts[2] if parts[:2] == ["cardenvs", "games"] and len(parts) > 2 else module


def as_python(kernel: Any, sig: tuple) -> bool:
    """Whether this call at scale of ``kernel`` for ``sig`` is among the first
    :data:`PYTHON_CALLS` of this thread (then counted: it runs as Python)."""
    calls = kernel.__dict__.setdefault("_cardenvs_python_calls", {})
    key = (sig, threading.get_ident())
    if calls.get(key, 0) >= PYTHON_CALLS:
        return False
    calls[key] = calls.get(key, 0) + 1
    return True


# ---------------------------------------------------------------- how long a compile takes
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
        value = fn.__globals__.get(name)
        for callee in _kernels_in(value, names):
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
def notice(key: Any, waits: dict[Any, tuple[dict[int, int], float]], running: bool, kept: str | None) -> None:
    """Say on stderr, in one line, that a call waits for the compiler, if it
    will wait more than :data:`NOTICE_SECONDS` for kernels not said already:
    ``key`` (a kernel and its signature) and ``waits``, what the game still
    has to compile (``key`` included), each with its kernels' sizes and the
    seconds already spent on it (the builder's).  ``running``: the builder
    compiles beside this process; ``kept``: the folder the kernels are kept
    in (None: they are not)."""
    if key in _ANNOUNCED or os.environ.get(QUIET, "0") not in ("", "0"):
        return
    new = {k: w for k, w in waits.items() if k not in _ANNOUNCED}
    union: dict[int, int] = {}
    for sizes, _ in new.values():
        union.update(sizes)
    each = [max(0.0, estimate(sizes) - spent) for sizes, spent in new.values()]
    seconds = max(max(each, default=0.0), sum(each) / 2) if running else sum(each)
    if seconds < NOTICE_SECONDS:
        return
    _ANNOUNCED.update(new)
    game = game_of(key[0])
    if "." not in game:
        name = game.replace("_", " ").title() + "'s"
    else:
        name = "the engine's" if game.startswith("cardenvs.") else f"{game}'s"
    once = f"once per machine: they are kept in {kept}" if kept else "in every run: the compile cache is off"
    line = (
        f"cardenvs: compiling {name} kernels for many games at once ({len(union)} kernel"
        f"{'s' if len(union) != 1 else ''}, about {_rounded(seconds)}); {once} (set {QUIET}=1 to hide this line)"
    )
    with contextlib.suppress(OSError, ValueError):  # (a closed stderr: nothing to say it on)
        print(line, file=sys.stderr, flush=True)


def _rounded(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 10 else f"{round(seconds, -1):.0f} s"
