"""The builder: a process that compiles kernels into numba's disk cache
while the process that asked runs them as Python (see
:mod:`cardenvs.core.compiling`).

A process's :data:`BUILDER` starts one on the first kernel it cannot load
from the cache and sends it each such kernel with its argument types (as
pickles on its stdin: the kernel's module and name, its first line, the
numba types); the builder imports the module, compiles the kernel for
those types (numba compiling and caching the kernels it calls on the way)
and answers with a line per kernel.  It is handed one kernel at a time,
the next when it answers: until then a kernel asked is *pending*, and the
process may take it back to compile it itself (:meth:`Builder.take`), so
that both compile, different kernels, at once.  A separate process, not a thread:
numba's compiler holds the GIL for most of its work, and a thread holding
numba's compiler lock when the engine forks its workers would leave that
lock held for ever in them.  Builders of several processes sharing a cache
(an engine's workers) take turns through a lock file in the cache's folder
(:func:`_turn`), so each kernel is compiled once and found in the cache by
the next; a turn waited for too long is skipped, never waited for for ever.
A builder idle for :data:`IDLE_SECONDS` exits (and is started again if more
is asked).  It holds none of its parent's streams (what it prints is sent
over its answers' pipe, :class:`_Said`) and ends with its parent, a crash or
SIGKILL included, even in the middle of a compilation (:func:`_end_with_parent`):
a program's output ends when the program does, and no builder is left behind.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

#: A kernel the builder is compiling (handed to it, not yet answered).
BUILDING = "building"
#: A kernel asked and not yet handed to the builder (it is busy with another): it may be taken back.
PENDING = "pending"
#: Answered: compiled into the cache, or not (then compiled by the process that asked).
BUILT, FAILED = "built", "failed"
#: How long a builder waits for more to compile before it exits.
IDLE_SECONDS = 10.0
#: What starts a line the builder says (printed on the parent's stderr), not an answer.
SAY = "say "
#: How often a builder looks whether its parent still lives (seconds).
WATCH_SECONDS = 0.5
#: How long a builder waits for its turn while the holder of the lock shows no progress (seconds).
TURN_SECONDS = 3.0
#: The longest a builder waits for its turn, whatever the holder does (seconds).
LONGEST_TURN = 600.0
#: The environment variable telling the builder its parent's pid (and ``main``: started from its main thread).
PARENT = "_CARDENVS_BUILDER_PARENT"


class Builder:
    """A process's side of its builder: what was asked (:attr:`status`, by
    ``(kernel, signature)``), the process, and a thread reading its answers
    (:attr:`generation` counts them, so a caller waiting on a kernel looks
    at the cache again only when something was built)."""

    def __init__(self) -> None:
        #: Which pending kernel to hand over (given their keys, in the order asked): one of them, or None for
        #: none yet (:meth:`hand_over` once that may have changed); None: the first asked.
        self.choose: Callable[[list], Any] | None = None
        self._reset()

    def _reset(self) -> None:
        self.lock = threading.Condition()
        self.status: dict[Any, str] = {}
        self.generation = 0
        self._process: Any = None
        self._pending: list[tuple[Any, bytes]] = []  # (key, request) in the order asked, not yet handed over
        self._retried: set = set()  # keys handed again to a new builder after one ended idle without them
        #: When the kernel the builder is compiling was handed to it (``time.monotonic()``), by key.
        self.started: dict[Any, float] = {}

    @property
    def running(self) -> bool:
        """Whether a builder process is up (started for a kernel, not yet ended idle)."""
        return self._process is not None

    def forked(self) -> None:
        """In a child forked from this process: its own builder (the parent's
        answers never reach it), and what was being built asked again."""
        done = {key: status for key, status in self.status.items() if status not in (BUILDING, PENDING)}
        generation = self.generation
        self._reset()
        self.status, self.generation = done, generation + 1

    def request(self, key: Any, fn: Callable, sig: tuple) -> bool:
        """Ask for kernel function ``fn`` compiled for ``sig`` (``key``: the
        caller's name for it): handed to the builder now if it is idle, else
        pending (:data:`PENDING`) until it is; False if it cannot be asked
        (a function a new process cannot import, types that do not pickle,
        no Python to start a builder with: a frozen application)."""
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
            self._pending.append((key, message))
            self.status[key] = PENDING
            if self._hand_over():
                return True
            self._pending.remove((key, message))
            del self.status[key]
        return False

    def take(self, key: Any) -> bool:
        """Take back ``key`` if it is pending (not handed to the builder):
        the caller compiles it itself, marked :data:`BUILT` (numba's own lock
        keeps two of its threads from compiling it twice)."""
        with self.lock:
            for item in self._pending:
                if item[0] == key:
                    self._pending.remove(item)
                    self.status[key] = BUILT
                    self.lock.notify_all()
                    return True
        return False

    def hand_over(self) -> None:
        """Hand the builder a pending kernel (:attr:`choose`), if it has none in hand."""
        with self.lock:
            self._hand_over()

    def _hand_over(self) -> bool:
        """(The lock held.)  Hand a pending kernel (:attr:`choose`) to the
        builder if it has none in hand, starting one if there is none; False
        if none can be started or written to."""
        for _ in range(2):  # (a builder that has just exited idle: another one)
            process = self._process
            if process is not None and process.asked:
                return True  # (busy: handed over when it answers)
            if not self._pending:
                return True
            keys = [key for key, _ in self._pending]
            chosen = keys[0] if self.choose is None else self.choose(keys)
            if chosen is None:
                return True
            key, message = item = self._pending[keys.index(chosen)]
            try:
                if process is None:
                    process = self._start()
                process.stdin.write(message)
                process.stdin.flush()
            except OSError:
                self._process = None
                continue
            self._pending.remove(item)
            process.asked.append((key, message))  # (answered in order)
            self.status[key], self.started[key] = BUILDING, time.monotonic()
            return True
        return False

    def _start(self) -> subprocess.Popen:
        """Start a builder: its stdin and stdout are pipes of its own, its stderr
        goes nowhere (it says what it must over stdout), so it holds none of
        this process's streams; told this process's pid, to end with it."""
        main = threading.current_thread() is threading.main_thread()
        env = {**os.environ, "CARDENVS_COMPILE": "now", PARENT: f"{os.getpid()}{' main' if main else ''}"}
        process = subprocess.Popen(
            [sys.executable, "-c", "from cardenvs.core.compiling import serve_builder; serve_builder()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
        )
        process.stdin.write(pickle.dumps(list(sys.path)))
        process.asked = []  # (key, request) handed to it and not answered, in order
        self._process = process
        threading.Thread(target=self._read, args=(process,), daemon=True, name="cardenvs-builder").start()
        return process

    def _read(self, process: Any) -> None:
        """The builder's answers, until it exits; each answer hands it the next
        pending kernel.  When it exits, what it left unanswered is handed to
        another (it exited idle: once per kernel), or that and what is
        pending is given up (it failed)."""
        for line in process.stdout:
            answer = line.decode(errors="replace").rstrip("\n")
            if answer.startswith(SAY):  # (what the builder printed: said here, as if it had)
                with contextlib.suppress(Exception):
                    print(answer[len(SAY) :], file=sys.stderr, flush=True)
                continue
            if answer not in (BUILT, FAILED):
                continue
            with self.lock:
                if process.asked:
                    key = process.asked.pop(0)[0]
                    self.status[key] = answer
                    self.started.pop(key, None)
                self.generation += 1
                if self._process is process:
                    self._hand_over()
                self.lock.notify_all()
        code = process.wait()
        with self.lock:
            if self._process is process:
                self._process = None
            for key, message in process.asked:
                self.started.pop(key, None)
                if code == 0 and key not in self._retried:  # (it exited idle as it was handed this)
                    self._retried.add(key)
                    self._pending.insert(0, (key, message))
                    self.status[key] = PENDING
                else:
                    self.status[key] = FAILED
            process.asked.clear()
            if self._pending and (code != 0 or not self._hand_over()):  # (a builder that failed, or none)
                for key, _ in self._pending:
                    self.status[key] = FAILED  # (the process compiles them itself)
                self._pending.clear()
            self.generation += 1
            self.lock.notify_all()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until everything asked is answered; False if ``timeout`` (s) passed first."""
        with self.lock:
            return self.lock.wait_for(lambda: not {BUILDING, PENDING} & set(self.status.values()), timeout)

    def wait_for(self, key: Any) -> None:
        """Wait until the builder is no longer compiling ``key`` (answered, or
        pending again after a builder ended idle); in short waits, so that
        Ctrl-C is seen."""
        with self.lock:
            while self.status.get(key) == BUILDING:
                self.lock.wait(0.25)


#: This process's builder.
BUILDER = Builder()
if hasattr(os, "register_at_fork"):  # pragma: no branch
    os.register_at_fork(after_in_child=BUILDER.forked)


# ---------------------------------------------------------------- the builder process
def serve(build: Callable[..., bool], cache: Callable | None = None) -> None:
    """The builder's loop: compile each kernel asked on stdin (``build(module,
    name, line, sig)``: :func:`cardenvs.core.compiling.build`, into caches of
    class ``cache``: :class:`~cardenvs.core.compiling.StampedCache`) and answer
    ``built`` or ``failed``, a line each, in order, on stdout (kept for the
    answers: anything printed is said there too, as :class:`_Said` lines).
    It ends idle, or at once when its parent ends (its stdin closes, or
    :func:`_end_with_parent` sees it gone); Ctrl-C is for its parent, which
    may go on (SIGINT ignored)."""
    stdin, answers = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    send = _sender(answers)
    sys.stdout = sys.stderr = _Said(send)
    with contextlib.suppress(ValueError):  # (not the main thread: a test's)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    _end_with_parent()
    sys.path[:0] = [path for path in pickle.load(stdin) if path not in sys.path]
    asked: queue.Queue = queue.Queue()
    path = lock_path(cache)

    def read() -> None:
        with contextlib.suppress(EOFError, OSError, pickle.UnpicklingError):
            while True:
                asked.put(pickle.load(stdin))
        _leave()  # (every process that could ask has ended: what is being built is for no one)

    threading.Thread(target=read, daemon=True).start()
    while True:
        try:
            item = asked.get(timeout=IDLE_SECONDS)
        except queue.Empty:
            return
        with _turn(path):
            answer = BUILT if build(*item) else FAILED
        send(answer)


def _sender(answers: Any) -> Callable[[str], None]:
    """What writes a line on the answers' pipe, whole (the loop's answers and
    what is said may come from different threads); nothing once the pipe
    is closed (the parent is gone: the builder follows it)."""
    lock = threading.Lock()

    def send(line: str) -> None:
        with lock, contextlib.suppress(OSError, ValueError):
            answers.write(f"{line}\n".encode(errors="replace"))
            answers.flush()

    return send


class _Said(io.TextIOBase):
    """The builder's ``sys.stdout`` and ``sys.stderr``: each whole line written
    is sent to the parent (``say <line>``), which prints it on its own stderr.
    The builder so holds no stream of its parent's: whoever reads a program's
    output to its end (``subprocess.run(capture_output=True)``, ``| tee``)
    stops waiting when the program ends, not when its builder does."""

    def __init__(self, send: Callable[[str], None]):
        super().__init__()
        self._send, self._part = send, ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        *lines, self._part = (self._part + text).split("\n")
        for line in lines:
            self._send(SAY + line)
        return len(text)


def _leave() -> None:
    """End the builder now, from any thread (``os._exit``: see
    :func:`cardenvs.core.compiling.serve_builder`)."""
    os._exit(0)


def _end_with_parent() -> None:
    """End this builder when its parent does, in bounded time, whatever it is
    doing (compiling, waiting for its turn): a thread looks every
    :data:`WATCH_SECONDS` whether the parent is still its parent (a parent
    that died leaves it to another: init or a subreaper), and on Linux the
    kernel kills it too (``PR_SET_PDEATHSIG``; only when started from the
    parent's main thread, since the signal comes when the thread that
    started it ends).  Its stdin closing ends it as well (:func:`serve`)."""
    told = os.environ.get(PARENT, "").split()
    parent = int(told[0]) if told else os.getppid()
    if sys.platform.startswith("linux") and "main" in told:
        with contextlib.suppress(Exception):
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # (1: PR_SET_PDEATHSIG)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH_SECONDS)
        _leave()

    threading.Thread(target=watch, daemon=True, name="cardenvs-parent-watch").start()


# ---------------------------------------------------------------- taking turns
_STUCK: list = []  # [the holder last given up on (None: unknown)]: while it shows no progress, not waited for


def lock_path(cache: Callable | None = None) -> str | None:
    """The builders' lock file: in the folder this package's kernels are cached
    in, as the kernels' cache class ``cache`` picks it (numba's by default:
    ``NUMBA_CACHE_DIR``, the ``__pycache__`` beside the source, numba's
    user-wide folder), so only those who can write that cache share it; None
    if there is no such folder."""
    if cache is None:
        from numba.core import caching

        cache = caching.FunctionCache
    try:
        folder = cache(lock_path)._cache_path  # (numba's locator made it)
    except Exception:  # (no cache folder numba would use: no lock)
        return None
    return os.path.join(folder, "cardenvs-build.lock")


@contextlib.contextmanager
def _turn(path: str | None) -> Iterator[None]:
    """The builders sharing this cache take turns (an ``flock`` on ``path``:
    :func:`lock_path`, released by the kernel when its holder dies): each kernel
    compiled by one, loaded from the cache by the others.  A turn not had
    (:func:`_take`) is gone without: the lock only saves work (numba writes
    each cache file whole, by moving a new file over the old), and a kernel
    given up would run as Python for as long as the holder hangs."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - (Windows)
        yield
        return
    try:
        fd = -1 if path is None else os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:
        fd = -1
    try:
        if fd >= 0 and _take(fd, fcntl):
            with contextlib.suppress(OSError):  # (who holds it, for those waiting: see _holder)
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()} {_stat(os.getpid())[0]}\n".encode(), 0)
        yield
    finally:
        if fd >= 0:
            os.close(fd)


def _take(fd: int, fcntl: Any) -> bool:
    """Take the lock on ``fd``: True once had; False if its holder showed no
    progress for :data:`TURN_SECONDS` (hung, stopped, or not a builder: see
    :func:`_holder`) or held it past :data:`LONGEST_TURN`, or it cannot be
    locked.  A holder given up on is not waited for again until it moves."""
    seen, start = _holder(fd), time.monotonic()
    deadline = start if _STUCK and seen == _STUCK[0] else start + TURN_SECONDS
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            pass
        except OSError:
            return False
        now = time.monotonic()
        if now >= deadline:
            found = _holder(fd)
            if found is None or found == seen or now - start > LONGEST_TURN:
                _STUCK[:] = [found]
                return False
            seen, deadline = found, now + TURN_SECONDS
        time.sleep(0.05)


def _holder(fd: int) -> tuple | None:
    """The lock's holder as its file names it (pid, start time) with the CPU
    time it has used: a holder compiling uses more at each look.  None where
    it cannot be told (no holder written, a holder that is gone or another
    process by now, no ``/proc``)."""
    try:
        pid, started = (int(part) for part in os.pread(fd, 64, 0).split())
    except (OSError, ValueError):
        return None
    start, used = _stat(pid)
    return None if start != started or start == 0 else (pid, start, used)


def _stat(pid: int) -> tuple[int, int]:
    """Process ``pid``'s start time and CPU time used (clock ticks; from
    ``/proc``), or zeros."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            fields = file.read().rsplit(b")", 1)[1].split()
        return int(fields[19]), int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return 0, 0
