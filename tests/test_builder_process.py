"""The background builder process (cardenvs.core.builder) ends cleanly.

It stops when idle, while its reader thread is still blocked on stdin (the
process that started it is alive and may ask again).  An interpreter
shutting down beside that thread aborts with "Fatal Python error:
_enter_buffered_busy" (SIGABRT), printed into the user's terminal; the
builder therefore ends with ``os._exit``.  (Without it -- the bare
``builder.serve(compiling.build)`` in place of ``serve_builder()`` below --
the process was seen to end by SIGABRT with that message; that is not a
test here, since whether the reader has started blocking when the loop
stops depends on timing.)"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import pickle
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator

import pytest

from cardenvs.core import jit

IDLE = "from cardenvs.core import builder, compiling; builder.IDLE_SECONDS = 0.2; "


def run_idle_builder(code: str) -> tuple[int, bytes]:
    """Start a builder with a short idle time, hand it sys.path as the
    library does, keep its stdin open and wait for it to stop on its own."""
    process = subprocess.Popen(
        [sys.executable, "-c", IDLE + code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        process.stdin.write(pickle.dumps(list(sys.path)))
        process.stdin.flush()
        code = process.wait(timeout=300)
        return code, process.stderr.read()
    finally:
        process.stdin.close()
        process.stdout.close()
        process.stderr.close()


def test_the_builder_process_ends_quietly_when_idle():
    code, err = run_idle_builder("compiling.serve_builder()")
    assert (code, err) == (0, b"")


# ---------------------------------------------------------------- the builder ends with its parent (N4, N5)
# Real programs with an empty cache (NUMBA_CACHE_DIR), their real builders, a real lock held by
# another process.  Every wait is bounded; no verdict depends on how long anything took.
KERNELS = """
from cardenvs.core.jit import kernel

@kernel
def count_positive(values):
    total = 0
    for i in range(values.shape[0]):
        if values[i] > 0:
            total += 1
    return total
"""

ASK = """
import json, os, sys, time
import numpy as np
from cardenvs.core import builder, jit
from lifetime_kernels import count_positive
first = int(count_positive(np.array([3, -1, 2])))  # (run as Python; the builder is asked)
pid = builder.BUILDER._process.pid
"""

HOLDER = """
import fcntl, os, sys, tempfile, time, hashlib
from cardenvs.core import builder, compiling
path = builder.lock_path(compiling.StampedCache)
where = os.path.abspath(os.environ["NUMBA_CACHE_DIR"])
old = os.path.join(tempfile.gettempdir(), "cardenvs-build-" + hashlib.sha256(where.encode()).hexdigest()[:16] + ".lock")
held = []
for name in (old, path):  # (the former predictable path in the temp folder, and the lock itself)
    held.append(open(name, "a+"))
    fcntl.flock(held[-1], fcntl.LOCK_EX)
with open("/proc/self/stat") as stat:
    started = stat.read().rsplit(")", 1)[1].split()[19]
held[-1].truncate(0)
held[-1].write(f"{os.getpid()} {started}\\n")  # (named as a builder names itself: a hung builder)
held[-1].flush()
print(path, flush=True)
time.sleep(3600)
"""

needs_linux = pytest.mark.skipif(
    not jit.COMPILED or not os.path.isdir("/proc/self/fd"), reason="numba and Linux's /proc needed"
)


def program_env(tmp_path: pathlib.Path) -> dict:
    """A new install's environment: an empty cache, the test's kernels importable."""
    (tmp_path / "lifetime_kernels.py").write_text(KERNELS)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "CARDENVS_COMPILE": "background"}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    env.pop("NUMBA_DISABLE_JIT", None)
    return env


def gone(pid: int, within: float = 30.0) -> bool:
    """Whether process ``pid`` ended (or is a zombie) within ``within`` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.1)
    return False


def end(process: subprocess.Popen | None, pid: int | None = None) -> None:
    """Kill what a test started (by pid: a builder left behind, our own child's child)."""
    if process is not None and process.poll() is None:
        process.kill()
        process.wait(timeout=60)
    if pid is not None and not gone(pid, 0):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def held_lock(tmp_path: pathlib.Path) -> Iterator[str]:
    """The builders' lock held by another process that shows no progress
    (a hung builder: a real flock, its pid written in the file); its path."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER], env=program_env(tmp_path), stdout=subprocess.PIPE, text=True
    )
    try:
        yield holder.stdout.readline().strip()
    finally:
        end(holder)
        holder.stdout.close()


@needs_linux
def test_a_program_s_captured_output_ends_with_it_not_its_builder(tmp_path):
    """The builder holds none of the program's streams: whoever reads them to
    their end (here ``subprocess.run(capture_output=True)``) is done when the
    program is; and the builder ends after it."""
    code = ASK + textwrap.dedent("""
        mine = {os.readlink(f"/proc/self/fd/{fd}") for fd in (1, 2)}
        theirs = set()
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                theirs.add(os.readlink(f"/proc/{pid}/fd/{fd}"))
            except OSError:
                pass
        print(json.dumps([first, pid, sorted(mine & theirs)]))
    """)
    pid = None
    try:
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=program_env(tmp_path), timeout=300
        )
        assert out.returncode == 0, out.stderr
        first, pid, shared = json.loads(out.stdout.strip().splitlines()[-1])
        assert (first, shared) == (2, [])
        assert gone(pid)
    finally:
        end(None, pid)


@needs_linux
def test_a_builder_ends_when_its_parent_is_killed(tmp_path, held_lock):
    """A parent killed by SIGKILL while its builder waits for its turn (the
    lock held by a hung process) leaves no builder behind."""
    parent = subprocess.Popen(
        [sys.executable, "-c", ASK + "print(pid, flush=True)\ntime.sleep(3600)"],
        env=program_env(tmp_path),
        stdout=subprocess.PIPE,
        text=True,
    )
    pid = None
    try:
        pid = int(parent.stdout.readline())
        parent.kill()
        parent.wait(timeout=60)
        assert gone(pid)
    finally:
        end(parent, pid)
        parent.stdout.close()


@needs_linux
def test_a_held_lock_does_not_stop_the_builder(tmp_path, held_lock):
    """The lock is in the cache's folder, not at a predictable path in the
    temp folder (held there too, by a squatter, to no effect); a holder that
    shows no progress is waited for a few seconds only: the kernel is
    compiled, wait_compiled() returns, and the builder ends with its program."""
    assert pathlib.Path(held_lock).parent.parent == tmp_path / "cache"
    code = ASK + textwrap.dedent("""
        done = jit.wait_compiled(timeout=300)
        second = int(count_positive(np.array([3, -1, 2])))
        print(json.dumps([first, pid, done, second, count_positive.stats.cache_hits.total()]))
    """)
    pid = None
    try:
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=program_env(tmp_path), timeout=600
        )
        assert out.returncode == 0, out.stderr
        first, pid, done, second, hits = json.loads(out.stdout.strip().splitlines()[-1])
        assert (first, done, second, hits) == (2, True, 2, 1)  # (loaded from the cache the builder filled)
        assert gone(pid)
    finally:
        end(None, pid)
