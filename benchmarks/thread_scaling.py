#!/usr/bin/env python
"""Thread scaling of the vector engine: engine steps/s against
``num_threads`` (``cardenvs.vector.make(..., num_threads=k)``), each game at
one batch size.

    python benchmarks/throughput.py --threads 1,2             # runs this (batch 4096)
    python benchmarks/thread_scaling.py --threads 1,2,4 --batch 4096 --seconds 3
    python benchmarks/thread_scaling.py --parts --games pepper_v0,spit_v0,speed   # the serial share by part
    python benchmarks/thread_scaling.py --rng shared,per_game   # both seeding modes (vector.make(rng=...))
    python benchmarks/thread_scaling.py --processes 1,2          # worker processes instead (num_processes=k)
    python benchmarks/thread_scaling.py --ceiling                # the most two process shards could give here
    python benchmarks/thread_scaling.py --contention --hogs 0,2  # processes beside busy loops (cores shared)
    python benchmarks/thread_scaling.py --processes 1,2 --json   # + benchmarks/results/thread_scaling-processes.json

Per game, one engine per thread count, all from the same seed, stepped in
turn in short rounds (a change in the machine's load hits every thread count
alike); random legal actions; only the time inside ``venv.step`` counts
(apply the actions, resets, next observations and masks).  Printed besides:

* CPU/wall: the process's CPU time over the wall time inside ``step``: how
  many cores the threads really had (about k on an idle machine).
* x free: the speed-up if every thread had a core of its own, from CPU
  times measured per thread (which the load disturbs little): one thread's
  CPU time per step over the critical path with k threads (the calling
  thread's serial part plus the slowest shard of each phase; thread
  hand-offs not counted).
* serial: the CPU time the calling thread spends outside the row shards
  with the most threads (the random draws, deals and resets left to it,
  action checks, Python glue), as a share of a one-thread step, and
  Amdahl's bound from it for 2 and 64 cores.  See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

import numpy as np

import cardenvs.vector as V
from cardenvs.core.options import legal_into
from cardenvs.core.workers import shared_array
from cardenvs.registry import GAMES

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402  (benchmarks/report.py: --json)
from throughput import _random_legal  # noqa: E402  (the same random player; importing it pins nothing)

BATCH = 4096
MIN_STEPS = 3  # (timed steps however busy the machine, so every figure is defined)
ROUND_SPIN = 2.0  # (seconds a worker polls before it sleeps, in process_scaling: longer than the others' rounds)


class Runner:
    """One engine and its random player, timed inside ``step``."""

    def __init__(self, name: str, batch: int, threads: int, rng: str = "shared", processes: int = 1):
        self.venv = V.make(name, num_envs=batch, seed=0, num_threads=threads, rng=rng, num_processes=processes)
        self.rng = np.random.default_rng(0)
        self.info = self.venv.reset()[1]
        self.batch, self.steps, self.wall, self.cpu = batch, 0, 0.0, 0.0

    def run(self, seconds: float, count: bool = True) -> None:
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            actions = _random_legal(self.rng, self.info["action_mask"])
            t0, c0 = time.perf_counter(), time.process_time()
            self.info = self.venv.step(actions)[-1]
            if count:
                self.wall += time.perf_counter() - t0
                self.cpu += time.process_time() - c0
                self.steps += 1

    @property
    def steps_per_s(self) -> float:
        return self.steps * self.batch / self.wall


def cpu_paths(name: str, batch: int, threads: int, seconds: float, rng: str = "shared") -> tuple[float, float]:
    """CPU time per step of an engine with ``threads``, measured per thread
    (so the machine's load disturbs it little): the calling thread's time
    outside the row shards (serial), and the critical path -- that plus,
    for each shard phase, its slowest shard: the step's time if every
    thread had a core of its own (hand-offs not counted)."""
    runner = Runner(name, batch, threads, rng)
    runner.run(0.3, count=False)
    shards, inside, slowest = runner.venv.shards, [0.0], [0.0]
    plain_map = shards.map

    def timed_map(n, fn):
        times = []

        def timed(lo, hi):
            t0 = time.thread_time()
            try:
                return fn(lo, hi)
            finally:
                times.append(time.thread_time() - t0)

        t0 = time.thread_time()
        try:
            return plain_map(n, timed)
        finally:
            inside[0] += time.thread_time() - t0
            slowest[0] += max(times, default=0.0)

    shards.map = timed_map  # (the state's shards are the engine's: observations go through it too)
    total, steps, deadline = 0.0, 0, time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        actions = _random_legal(runner.rng, runner.info["action_mask"])
        t0 = time.thread_time()
        runner.info = runner.venv.step(actions)[-1]
        total += time.thread_time() - t0
        steps += 1
    runner.venv.close()
    serial = total - inside[0]
    return serial / steps, (serial + slowest[0]) / steps


# The parts of the serial share (--parts): functions that run in the calling
# thread, timed (CPU time, outermost call only) by wrapping them in place.
PARTS = {
    "checks": [("cardenvs.core.engine", "legal_actions"), ("cardenvs.core.simultaneous", "legal_actions")],
    "resets": [
        ("cardenvs.core.engine", "final_info_of"),
        ("cardenvs.core.game", "TurnBasedRules.reset"),
        ("cardenvs.games.spit.tick", "TickRules.reset"),
    ],
    "draws": [("cardenvs.core.game", "BatchState.random"), ("cardenvs.core.game", "BatchState.integers")],
    "stalemates": [
        ("cardenvs.games.spit.rules", "SpitRules._end_stalemates"),
        ("cardenvs.games.spit.speed.rules", "SpeedRules._unstick"),
    ],
}


def serial_parts(spec: str, batch: int, steps: int = 400) -> dict[str, float]:
    """The serial share of a one-thread step of ``spec`` (a game, or
    ``speed``: Spit's variant) by part, as shares of the step's CPU time;
    ``glue`` is the rest (the engine's and the rules' Python and whole-batch
    numpy between the shard phases)."""
    import importlib

    name, config = ("spit_v0", {"variant": "speed"}) if spec == "speed" else (spec, {})
    spent: dict[str, float] = {}
    depth = [0]
    undo = []

    def timed(key, fn):
        def wrapper(*args, **kwargs):
            if depth[0]:
                return fn(*args, **kwargs)
            depth[0] += 1
            t0 = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[key] = spent.get(key, 0.0) + time.thread_time() - t0
                depth[0] -= 1

        return wrapper

    for key, places in [*PARTS.items(), ("shards", [("cardenvs.core.shards", "Shards.map")])]:
        for module, path in places:
            owner = importlib.import_module(module)
            *outer, attr = path.split(".")
            for part in outer:
                owner = getattr(owner, part)
            undo.append((owner, attr, owner.__dict__[attr]))
            setattr(owner, attr, timed(key, owner.__dict__[attr]))
    try:
        venv = V.make(name, num_envs=batch, seed=0, **config)
        rng, info = np.random.default_rng(0), venv.reset()[1]
        for _ in range(50):
            info = venv.step(_random_legal(rng, info["action_mask"]))[-1]
        spent.clear()
        total = 0.0
        for _ in range(steps):
            actions = _random_legal(rng, info["action_mask"])
            t0 = time.thread_time()
            info = venv.step(actions)[-1]
            total += time.thread_time() - t0
    finally:
        for owner, attr, fn in undo:
            setattr(owner, attr, fn)
    parts = {key: spent.get(key, 0.0) / total for key in PARTS}
    parts["serial"] = 1.0 - spent.get("shards", 0.0) / total
    parts["glue"] = parts["serial"] - sum(parts[key] for key in PARTS)
    parts["step_ms"] = total / steps * 1e3
    return parts


def print_parts(specs: list[str], batch: int) -> None:
    """The serial share by part, as the markdown table of benchmarks/README.md."""
    print(f"serial share of a one-thread step at {batch} games, by part (CPU time of the calling thread):\n")
    print("| game | step (CPU) | serial | glue | resets | draws | checks | stalemates | Amdahl 2 | Amdahl 64 |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for spec in specs:
        p = serial_parts(spec, batch)
        cells = [f"{p[k]:.1%}" for k in ("serial", "glue", "resets", "draws", "checks", "stalemates")]
        amdahls = f"{amdahl(p['serial'], 2):.2f} | {amdahl(p['serial'], 64):.1f}"
        print(f"| {spec} | {p['step_ms']:.2f} ms | {' | '.join(cells)} | {amdahls} |", flush=True)


def amdahl(serial: float, cores: int) -> float:
    return 1.0 / (serial + (1.0 - serial) / cores)


def run_in_rounds(runners: list[Runner], seconds: float) -> None:
    """Warm every runner up (compile, games under way), then step them in
    turn in rounds of ~0.25 s for ``seconds`` each: a change in the
    machine's load hits them all alike."""
    for r in runners:
        r.run(min(1.0, 0.2 * seconds), count=False)
    rounds = max(1, round(seconds / 0.25))
    for _ in range(rounds):
        for r in runners:
            r.run(seconds / rounds)


def scaling(games: list[str], threads: list[int], batch: int, seconds: float, rng: str = "shared") -> list[list[str]]:
    """Measure every game; returns the table rows (also printed as they come)."""
    rows = []
    for name in games:
        runners = [Runner(name, batch, k, rng) for k in threads]
        run_in_rounds(runners, seconds)
        paths = {k: cpu_paths(name, batch, k, max(1.0, seconds / 2), rng) for k in sorted({1, *threads})}
        one_total = paths[1][1]
        # (with one thread the step runs as one shard, without the shard phases: the serial part is
        # measured with the most threads, as a share of one thread's step)
        serial = paths[max(paths)][0] / one_total
        base = runners[0].steps_per_s
        for k, r in zip(threads, runners):
            rows.append(
                [
                    name,
                    rng,
                    str(k),
                    f"{r.steps_per_s:,.0f}",
                    f"{r.steps_per_s / base:.2f}",
                    f"{r.cpu / r.wall:.2f}",
                    f"{one_total / paths[k][1]:.2f}",
                    f"{serial:.1%}",
                    f"{amdahl(serial, 2):.2f}",
                    f"{amdahl(serial, 64):.1f}",
                ]
            )
            print("  " + "  ".join(rows[-1]), flush=True)
            RECORDS.append(
                {
                    "mode": "threads",
                    "game": name,
                    "rng": rng,
                    "threads": k,
                    "engine_steps_per_s": r.steps_per_s,
                    "x_first": r.steps_per_s / base,
                    "x_free": one_total / paths[k][1],
                    "serial_share": serial,
                }
            )
            r.venv.close()
    return rows


def process_scaling(games: list[str], processes: list[int], batch: int, seconds: float) -> int:
    """Print engine steps/s against ``num_processes`` (``rng="per_game"``,
    which worker processes need), every count of a game stepped in turn in
    rounds of ~0.25 s; x 1st = over the first count's.

    The workers poll through the other engines' rounds instead of sleeping
    (``SPIN_SECONDS`` of :data:`ROUND_SPIN`): a core that idled runs slowly
    for a while on this VM (Pepper, 4,096 games, one process: ~1.3x a step
    for the next 0.25 s after 0.25 s idle; results.txt), so a worker asleep
    through each round of the others would pay, every round, a cost that
    an engine stepped without pause never pays."""
    from cardenvs.core import workers

    load = os.getloadavg()
    print(f"# batch {batch}; rng per_game; {seconds:g} s per process count and game, in rounds of ~0.25 s")
    print(f"# load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} logical CPUs")
    print(f"# workers poll for {ROUND_SPIN:g} s before they sleep (through the other engines' rounds)\n")
    print(f"{'game':<24}{'processes':>10}{'engine steps/s':>16}{'us/step':>9}{'x 1st':>7}")
    spin, workers.SPIN_SECONDS = workers.SPIN_SECONDS, ROUND_SPIN
    try:
        for name in games:
            runners = [Runner(name, batch, 1, "per_game", k) for k in processes]
            run_in_rounds(runners, seconds)
            base = runners[0].steps_per_s
            for k, r in zip(processes, runners):
                us = r.wall / r.steps * 1e6
                print(f"{name:<24}{k:>10}{r.steps_per_s:>16,.0f}{us:>9,.0f}{r.steps_per_s / base:>7.2f}", flush=True)
                RECORDS.append(
                    {
                        "mode": "processes",
                        "game": name,
                        "processes": k,
                        "engine_steps_per_s": r.steps_per_s,
                        "x_first": r.steps_per_s / base,
                    }
                )
                r.venv.close()
    finally:
        workers.SPIN_SECONDS = spin
    load = os.getloadavg()
    print(f"\n# load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


#: A CPU hog: a busy loop that ends with the process that started it (should that be killed).
HOG = "import os\nparent = os.getppid()\nwhile os.getppid() == parent:\n    for _ in range(10**6): pass"


class WaitRunner(Runner):
    """A :class:`Runner` of ``processes`` processes whose waits offer the
    core after ``yield_after`` seconds (``workers.YIELD_AFTER``: ``inf`` is
    the engine before issue #35's R18, polling without offering it), timing
    every step."""

    def __init__(self, name: str, batch: int, processes: int, yield_after: float):
        from cardenvs.core import workers

        self.workers, self.yield_after, self.times = workers, yield_after, []
        with self.waits():  # (a worker keeps the value it was forked with)
            super().__init__(name, batch, 1, "per_game", processes)

    def waits(self) -> Any:
        import contextlib

        @contextlib.contextmanager
        def setting():
            kept, self.workers.YIELD_AFTER = self.workers.YIELD_AFTER, self.yield_after
            try:
                yield
            finally:
                self.workers.YIELD_AFTER = kept

        return setting()

    def run(self, seconds: float, count: bool = True) -> None:
        with self.waits():  # (the calling process reads it at each wait)
            deadline = time.perf_counter() + seconds
            while time.perf_counter() < deadline or (count and len(self.times) < MIN_STEPS):
                actions = _random_legal(self.rng, self.info["action_mask"])
                t0 = time.perf_counter()
                self.info = self.venv.step(actions)[-1]
                if count:
                    self.times.append(time.perf_counter() - t0)


def contention(games: list[str], batch: int, seconds: float, hogs: list[int]) -> int:
    """Print µs a step (median and mean) of one process against two -- the
    engine as it is, and with waits that poll without offering the core
    (``YIELD_AFTER = inf``: the engine before R18's fix) -- with ``h`` CPU
    hogs (a busy loop each, in processes of their own) running beside, for
    each ``h`` in ``hogs``; the engines of a game stepped in turn in rounds
    of ~0.25 s (a change in the load hits them alike)."""
    import math
    import subprocess
    import warnings

    from cardenvs.core import workers

    print(f"# batch {batch}; rng per_game; {seconds:g} s per engine, in rounds of ~0.25 s; {os.cpu_count()} CPUs")
    print(f"# default waits: poll {workers.SPIN_SECONDS:g} s, offering the core after {workers.YIELD_AFTER:g} s\n")
    print(f"{'game':<24}{'hogs':>5}{'engine':>22}{'median us':>11}{'mean us':>9}{'x one':>7}{'load':>6}")
    now = workers.YIELD_AFTER
    kinds = [(1, now, "1 process"), (2, now, "2 processes"), (2, math.inf, "2, polling (old)")]
    warnings.simplefilter("ignore", RuntimeWarning)  # (the engine's warning that the cores are busy: they are)
    for h in hogs:
        busy = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(h)]
        try:
            for name in games:
                runners = [WaitRunner(name, batch, k, after) for k, after, _ in kinds]
                run_in_rounds(runners, seconds)
                load = os.getloadavg()[0]
                one = float(np.median(runners[0].times))
                for (_, _, label), r in zip(kinds, runners):
                    median, mean = np.median(r.times) * 1e6, np.mean(r.times) * 1e6
                    figures = f"{median:>11,.0f}{mean:>9,.0f}{one * 1e6 / median:>7.2f}{load:>6.1f}"
                    print(f"{name:<24}{h:>5}{label:>22}{figures}")
                    r.venv.close()
        finally:
            for p in busy:
                p.kill()
                p.wait()
    print("\nhogs = busy loops beside; x one = one process's median over this engine's; load = 1-minute load average")
    return 0


def time_steps(
    name: str,
    batch: int,
    seed: int,
    warm: int,
    seconds: float,
    barrier: np.ndarray | None = None,
    me: int = 0,
    processes: int = 1,
) -> tuple[float, int]:
    """µs a step (and the steps timed) of one engine of ``batch`` games after ``warm`` steps (the
    games drift apart from their common start), timed for ``seconds``.  With
    a ``barrier`` (shared int64 words: each side's step, then "stop") each
    step first waits for the other side to reach it, as shards stepped
    together do.  ``processes``: the engine's ``num_processes``."""
    venv = V.make(name, num_envs=batch, seed=seed, rng="per_game", num_processes=processes)
    rng, info = np.random.default_rng(seed), venv.reset()[1]
    for _ in range(warm):
        info = venv.step(_random_legal(rng, info["action_mask"]))[-1]
    wall, steps, deadline = 0.0, 0, time.perf_counter() + seconds
    # (at least MIN_STEPS however busy the machine: a figure, never a division by zero)
    while (steps < MIN_STEPS or time.perf_counter() < deadline) and not (barrier is not None and barrier[2]):
        actions = _random_legal(rng, info["action_mask"])
        if barrier is not None:
            barrier[me] = steps + 1
            while barrier[1 - me] <= steps and not barrier[2]:
                pass
        t0 = time.perf_counter()
        info = venv.step(actions)[-1]
        wall += time.perf_counter() - t0
        steps += 1
    if barrier is not None:
        barrier[2] = 1  # (the other side stops too, and does not wait for this one)
    venv.close()
    return wall / steps * 1e6, steps


def _time_half(conn: Any, *args: Any) -> None:
    conn.send(time_steps(*args))


def halves(name: str, batch: int, warm: int, seconds: float, lockstep: bool) -> list[tuple[float, int]]:
    """:func:`time_steps` of two processes each stepping half of ``batch``
    games at the same time (no engine between them: nothing is sent),
    free-running or in lockstep."""
    barrier = shared_array((8,), np.int64) if lockstep else None
    return in_two_processes(_time_half, lambda me: (name, batch // 2, me + 1, warm, seconds, barrier, me))


def in_two_processes(target: Any, args_of: Any) -> list[Any]:
    """``target(conn, *args_of(me))`` in two forked processes at once (``me``
    0 and 1); what each sends on ``conn``, in that order."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    pipes = [ctx.Pipe(duplex=False) for _ in range(2)]
    procs = [ctx.Process(target=target, args=(pipes[me][1], *args_of(me))) for me in range(2)]
    for p in procs:
        p.start()
    results = [r.recv() for r, _ in pipes]
    for p in procs:
        p.join()
    return results


def _time_consumer_half(conn: Any, name: str, half: int, me: int, warm: int, seconds: float, shared: tuple) -> None:
    """One side of :func:`consumer_halves`: side 0 runs the policy over both
    halves' masks (side 1's read from shared memory) and hands side 1 its
    actions; side 1 steps with those and writes its masks back."""
    words, masks, actions = shared
    venv = V.make(name, num_envs=half, seed=me + 1, rng="per_game")
    rng, info = np.random.default_rng(me + 1), venv.reset()[1]
    for _ in range(warm):
        info = venv.step(_random_legal(rng, info["action_mask"]))[-1]
    if me:
        np.copyto(masks, info["action_mask"])
        words[1] = 1  # (side 1's masks of step 0 are there)
    wall, check, steps, deadline = 0.0, 0.0, 0, time.perf_counter() + seconds
    scratch = np.empty((2 * half, *info["action_mask"].shape[1:-1]), np.int64)
    while True:
        if me:  # wait for this step's actions (or the stop)
            while words[0] <= steps and not words[2]:
                pass
            if words[2]:
                break
            mine = actions.copy()
        else:
            if steps >= MIN_STEPS and time.perf_counter() >= deadline:
                words[2] = 1
                break
            while words[1] <= steps:
                pass
            every = np.concatenate([info["action_mask"], masks])
            chosen = _random_legal(rng, every)
            t0 = time.perf_counter()  # (the engine's check of every action, which no step can skip)
            legal_into(chosen, every, scratch)
            check += time.perf_counter() - t0
            mine = chosen[:half]
            np.copyto(actions, chosen[half:])
            words[0] = steps + 1
        t0 = time.perf_counter()
        info = venv.step(mine)[-1]
        wall += time.perf_counter() - t0
        steps += 1
        if me:
            np.copyto(masks, info["action_mask"])
            words[1] = steps + 1
    venv.close()
    conn.send((wall / steps * 1e6, steps, check / steps * 1e6))


def consumer_halves(name: str, batch: int, warm: int, seconds: float) -> list[tuple[float, int, float]]:
    """The halves of :func:`halves` in lockstep with the data flow of the
    engine's step and nothing else of it: one process (side 0) runs the
    policy over every game's masks -- the other half's written by the other
    process -- and sends that half its actions.  Returns µs a step of each
    side, its steps, and µs a step of the check of every action (side 0's;
    none on side 1)."""
    probe = V.make(name, num_envs=1, seed=0)
    mask_tail = probe.reset()[1]["action_mask"].shape[1:]
    probe.close()
    half = batch // 2
    shared = (
        shared_array((4,), np.int64),
        shared_array((half, *mask_tail), bool),
        shared_array((half, *mask_tail[:-1]), np.int64),
    )
    return in_two_processes(_time_consumer_half, lambda me: (name, half, me, warm, seconds, shared))


def ceiling_row(name: str, one: float, free: float, locked: float, flow: float, check: float, engine: float) -> str:
    """One line of :func:`ceiling`'s table from its measured µs a step: the
    ratios are computed from the unrounded figures (the table rounds µs)."""
    bound = one / max(free, locked)
    return (
        f"{name:<24}{one:>12,.0f}{free:>12,.0f}{locked:>10,.0f}{bound:>10.2f}"
        f"{flow:>11,.0f}{check:>8,.0f}{one / (flow + check):>7.2f}{engine:>10,.0f}{one / engine:>6.2f}"
    )


def ceiling(games: list[str], batch: int, seconds: float, warm: int) -> int:
    """Print the most any cut of ``batch`` games into two shards could give
    over one process here: one process stepping them all, against two
    processes each stepping half on its own (nothing between them: no
    actions sent, no check, no outputs merged), free-running and in
    lockstep.  Then the same halves with the step's data flow and nothing
    else of the engine (:func:`consumer_halves`: one process's policy reads
    every mask and sends the other half its actions), plus the check of
    every action that a step cannot skip: the bound for an engine whose
    caller sees the whole batch.  Last, the engine with ``num_processes=2``,
    which adds its own bookkeeping (the block, the command, the merged
    outputs) to that."""
    load = os.getloadavg()
    print(f"# batch {batch} (halves of {batch // 2}); rng per_game; {warm} steps to warm up, then {seconds:g} s")
    print(f"# load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} logical CPUs\n")
    header = f"{'game':<24}{'one us/step':>12}{'halves free':>12}{'lockstep':>10}{'ceiling x':>10}"
    print(header + f"{'1 consumer':>11}{'+ check':>8}{'flow x':>7}{'engine 2':>10}{'x':>6}")
    for name in games:
        before = time_steps(name, batch, 1, warm, seconds)[0]  # (before and after the halves: drift shows)
        free = max(us for us, _ in halves(name, batch, warm, seconds, lockstep=False))
        locked = max(us for us, _ in halves(name, batch, warm, seconds, lockstep=True))
        (side0, _, check), (side1, _, _) = consumer_halves(name, batch, warm, seconds)
        engine = time_steps(name, batch, 1, warm, seconds, processes=2)[0]
        one = (before + time_steps(name, batch, 1, warm, seconds)[0]) / 2
        print(ceiling_row(name, one, free, locked, max(side0, side1), check, engine), flush=True)
        flow = max(side0, side1) + check
        RECORDS.append(
            {
                "mode": "ceiling",
                "game": name,
                "ceiling_x": one / max(free, locked),
                "flow_x": one / flow,
                "engine_x": one / engine,
            }
        )
    print("\none = one process, the whole batch (mean of a run before and after the halves); halves = the slower")
    print("half; ceiling x = one over the slower of the halves: the bound on num_processes=2 at this batch;")
    print("1 consumer = the slower half in lockstep when one process's policy reads every mask and sends the")
    print("other half its actions (the engine's data flow, none of its bookkeeping); + check = the check of")
    print("every action (serial: nothing may move before it); flow x = one over their sum: the bound for an")
    print("engine whose caller sees the whole batch; engine 2 = the engine with num_processes=2, the whole batch")
    print("(the same games as one), and x its speed-up.")
    return 0


#: What ``--json`` writes: a record per row of the tables printed (threads, processes, ceiling).
RECORDS: list[dict] = []


def print_table(rows: list[list[str]]) -> None:
    headers = [
        "game",
        "rng",
        "threads",
        "engine steps/s",
        "x 1st",
        "CPU/wall",
        "x free",
        "serial",
        "Amdahl 2",
        "Amdahl 64",
    ]
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(headers)]
    print("  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(headers, widths))))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))


def run(games: list[str], threads: list[int], batch: int, seconds: float, rngs: tuple[str, ...] = ("shared",)) -> int:
    """Print the thread-scaling table (the header lines are the caller's)."""
    load = os.getloadavg()
    print(f"# batch {batch}; {seconds:g} s per thread count and game, in rounds of ~0.25 s")
    print(f"# load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} logical CPUs")
    rows = [row for rng in rngs for row in scaling(games, threads, batch, seconds, rng)]
    print()
    print_table(rows)
    load = os.getloadavg()
    print(f"\n# load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print("x 1st = engine steps/s over the first thread count's; CPU/wall = cores the threads really had;")
    print("x free = one thread's CPU time per step over the critical path of k threads' CPU times (serial part +")
    print("  the slowest shard of each phase): the speed-up if every thread had a free core, hand-offs not counted;")
    print("serial = CPU time of the calling thread outside the row shards with the most threads, as a share of")
    print("  one thread's step (the draws, checks, merges, Python glue); Amdahl k = 1 / (serial + (1 - serial) / k).")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    ap.add_argument("--batch", type=int, default=BATCH, help=f"games per engine (default {BATCH})")
    ap.add_argument("--seconds", type=float, default=3.0, help="timed seconds per thread count and game (default 3)")
    ap.add_argument("--games", default=",".join(GAMES), help="comma-separated games (default: every game)")
    ap.add_argument("--rng", default="shared", help="comma-separated seeding modes: shared, per_game (default shared)")
    ap.add_argument(
        "--processes", default="", help="instead: comma-separated process counts (num_processes; rng per_game)"
    )
    ap.add_argument(
        "--ceiling",
        action="store_true",
        help="instead: the bound on 2 process shards (one process v two halves stepped apart; --warm steps first)",
    )
    ap.add_argument(
        "--contention",
        action="store_true",
        help="instead: 1 against 2 processes (waits as they are, and polling as before R18's fix) beside --hogs",
    )
    ap.add_argument("--hogs", default="0,2", help="--contention: comma-separated counts of busy loops beside (0,2)")
    ap.add_argument("--warm", type=int, default=2000, help="--ceiling: steps before the timing (default 2000)")
    ap.add_argument(
        "--parts", action="store_true", help="instead: the serial share by part (games, and 'speed' for Spit's variant)"
    )
    report.add_json_option(ap, "thread_scaling")
    args = ap.parse_args(argv)
    code = measure(args)
    if args.json == report.default_path("thread_scaling"):  # a file per mode
        mode = "ceiling" if args.ceiling else "processes" if args.processes else "threads"
        args.json = report.default_path(f"thread_scaling-{mode}")
    if args.json and RECORDS:
        report.write(args.json, "thread_scaling", RECORDS, batch=args.batch, seconds=args.seconds)
    return code


def measure(args: Any) -> int:
    """What ``main``'s arguments ask for: prints it, fills :data:`RECORDS`."""
    threads = [int(x) for x in args.threads.split(",") if x.strip()]
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    if args.parts:
        print_parts(games, args.batch)
        return 0
    if args.ceiling:
        return ceiling(games, args.batch, args.seconds, args.warm)
    if args.contention:
        return contention(games, args.batch, args.seconds, [int(x) for x in args.hogs.split(",") if x.strip()])
    if args.processes:
        counts = [int(x) for x in args.processes.split(",") if x.strip()]
        return process_scaling(games, counts, args.batch, args.seconds)
    return run(games, threads, args.batch, args.seconds, tuple(m.strip() for m in args.rng.split(",") if m.strip()))


if __name__ == "__main__":
    sys.exit(main())
