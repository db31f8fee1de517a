"""The builder: a process that compiles kernels into numba's disk cache
while the process that asked runs them as Python (see
:mod:`cardenvs.core.compiling`).

A process's :data:`BUILDER` starts one on the first kernel it cannot load
from the cache and sends it each such kernel with its argument types (as
pickles on its stdin: the kernel's module and name, its first line, the
numba types); the builder imports the module, compiles the kernel for
those types (numba compiling and caching the kernels it calls on the way)
and answers with a line per kernel.  A separate process, not a thread:
numba's compiler holds the GIL for most of its work, and a thread holding
numba's compiler lock when the engine forks its workers would leave that
lock held for ever in them.  Builders of several processes sharing a cache
(an engine's workers) take turns through a lock file, so each kernel is
compiled once and found in the cache by the next.  A builder idle for
:data:`IDLE_SECONDS` exits (and is started again if more is asked); it
exits too when the process that started it does (its stdin closes).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import queue
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from typing import Any

#: A kernel asked of the builder and not yet answered.
BUILDING = "building"
#: Answered: compiled into the cache, or not (then compiled by the process that asked).
BUILT, FAILED = "built", "failed"
#: How long a builder waits for more to compile before it exits.
IDLE_SECONDS = 10.0


class Builder:
    """A process's side of its builder: what was asked (:attr:`status`, by
    ``(kernel, signature)``), the process, and a thread reading its answers
    (:attr:`generation` counts them, so a caller waiting on a kernel looks
    at the cache again only when something was built)."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self.lock = threading.Condition()
        self.status: dict[Any, str] = {}
        self.generation = 0
        self._process: Any = None

    def forked(self) -> None:
        """In a child forked from this process: its own builder (the parent's
        answers never reach it), and what was being built asked again."""
        done = {key: status for key, status in self.status.items() if status != BUILDING}
        generation = self.generation
        self._reset()
        self.status, self.generation = done, generation + 1

    def request(self, key: Any, fn: Callable, sig: tuple) -> bool:
        """Ask for kernel function ``fn`` compiled for ``sig`` (``key``: the
        caller's name for it); False if it cannot be asked (a function a
        new process cannot import, types that do not pickle, no Python to
        start a builder with: a frozen application)."""
        module, name = fn.__module__, fn.__qualname__
        if module == "__main__" or "<" in name or getattr(sys, "frozen", False) or not sys.executable:
            return False
        try:
            message = pickle.dumps((module, name, fn.__code__.co_firstlineno, sig))
        except Exception:
            return False
        with self.lock:
            if key in self.status:
                return True
            for _ in range(2):  # (a builder that has just exited idle: another one)
                process = self._process
                try:
                    if process is None:
                        process = self._start()
                    process.stdin.write(message)
                    process.stdin.flush()
                except OSError:
                    self._process = None
                    continue
                process.asked.append(key)  # (answered in order)
                self.status[key] = BUILDING
                return True
        return False

    def _start(self) -> subprocess.Popen:
        env = {**os.environ, "CARDENVS_COMPILE": "now"}
        process = subprocess.Popen(
            [sys.executable, "-c", "from cardenvs.core.compiling import serve_builder; serve_builder()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
        )
        process.stdin.write(pickle.dumps(list(sys.path)))
        process.asked = []  # what it was asked and has not answered, in order
        self._process = process
        threading.Thread(target=self._read, args=(process,), daemon=True, name="cardenvs-builder").start()
        return process

    def _read(self, process: Any) -> None:
        """The builder's answers, until it exits; then what it left unanswered
        is asked again of another (it exited idle) or given up (it failed)."""
        for line in process.stdout:
            answer = line.decode(errors="replace").strip()
            if answer not in (BUILT, FAILED):
                continue
            with self.lock:
                if process.asked:
                    self.status[process.asked.pop(0)] = answer
                self.generation += 1
                self.lock.notify_all()
        code = process.wait()
        with self.lock:
            for key in process.asked:
                if code == 0:
                    del self.status[key]
                else:
                    self.status[key] = FAILED
            process.asked.clear()
            if self._process is process:
                self._process = None
            self.generation += 1
            self.lock.notify_all()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until everything asked is answered; False if ``timeout`` (s) passed first."""
        with self.lock:
            return self.lock.wait_for(lambda: BUILDING not in self.status.values(), timeout)


#: This process's builder.
BUILDER = Builder()
if hasattr(os, "register_at_fork"):  # pragma: no branch
    os.register_at_fork(after_in_child=BUILDER.forked)


# ---------------------------------------------------------------- the builder process
def serve(build: Callable[..., bool]) -> None:
    """The builder's loop: compile each kernel asked on stdin (``build(module,
    name, line, sig)``: :func:`cardenvs.core.compiling.build`) and answer
    ``built`` or ``failed``, a line each, in order, on stdout (kept for
    the answers: anything else printed goes to stderr)."""
    stdin, answers = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    sys.path[:0] = [path for path in pickle.load(stdin) if path not in sys.path]
    asked: queue.Queue = queue.Queue()

    def read() -> None:
        with contextlib.suppress(EOFError, OSError, pickle.UnpicklingError):
            while True:
                asked.put(pickle.load(stdin))
        asked.put(None)

    threading.Thread(target=read, daemon=True).start()
    while True:
        try:
            item = asked.get(timeout=IDLE_SECONDS)
        except queue.Empty:
            return
        if item is None:
            return
        with _turn():
            answer = BUILT if build(*item) else FAILED
        with contextlib.suppress(OSError):  # (the process that asked has exited: the cache is for the next one)
            answers.write(f"{answer}\n".encode())
            answers.flush()


@contextlib.contextmanager
def _turn() -> Iterator[None]:
    """The builders sharing this cache take turns (a lock file; none where
    it cannot be made or locked): each kernel compiled by one, loaded from
    the cache by the others."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - (Windows)
        yield
        return
    import numba

    where = numba.config.CACHE_DIR or os.path.dirname(os.path.abspath(__file__))
    name = "cardenvs-build-" + hashlib.sha256(os.path.abspath(where).encode()).hexdigest()[:16] + ".lock"
    try:
        handle = open(os.path.join(tempfile.gettempdir(), name), "a")  # noqa: SIM115 - held over the yield
    except OSError:
        yield
        return
    with handle:
        with contextlib.suppress(OSError):
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield
