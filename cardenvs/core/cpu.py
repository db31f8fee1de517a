"""CPU time of a run, every process of it counted: this process (every
thread), its live children (the engine's workers, the compile builder) read
from /proc, and its children that ended and were waited for (``os.times``).
The learners stop on it and ``cardenvs compare`` checks their budgets with
it, so both count the same CPU."""

from __future__ import annotations

import glob
import os
import pathlib
import time


def children_cpu_seconds() -> float:
    """CPU-seconds of this process's live child processes and of the
    children they waited for, from /proc (Linux; 0 where there is none)."""
    total = 0
    for listing in glob.glob(f"/proc/{os.getpid()}/task/*/children"):
        try:
            pids = pathlib.Path(listing).read_text().split()
        except OSError:
            continue
        for pid in pids:
            try:
                fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue  # (it ended meanwhile: os.times() counts it once it is waited for)
            total += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime (fields 14-17 of proc(5))
    return total / os.sysconf("SC_CLK_TCK")


def cpu_seconds() -> float:
    """CPU-seconds used so far by this process and every child of it, live or ended."""
    t = os.times()
    return time.process_time() + t.children_user + t.children_system + children_cpu_seconds()


class CpuClock:
    """CPU-seconds (:func:`cpu_seconds`) used since it was made."""

    def __init__(self) -> None:
        self.start = cpu_seconds()

    @staticmethod
    def total() -> float:
        return cpu_seconds()

    def seconds(self) -> float:
        return cpu_seconds() - self.start
