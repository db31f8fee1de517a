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

import pickle
import subprocess
import sys

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
