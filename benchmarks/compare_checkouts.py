"""Steps per CPU-second of two checkouts of cardenvs, interleaved: is a
change that should not touch speed (a restructuring) within noise?

    python benchmarks/compare_checkouts.py BEFORE_DIR AFTER_DIR [--rounds 4] [--cpu 1]

Each round runs one fresh process per checkout (``PYTHONPATH`` at it, pinned
to one CPU with ``taskset`` when it exists), alternating, so that slow
stretches of a shared machine fall on both sides alike.  A process measures,
after the kernels are compiled: the vector engine at batches 1 and 1024 and
the AEC env (turn-based games), each by CPU time (``time.process_time``) over
``--seconds``.  Prints the median of the rounds per side, their ratio and the
range of each side.  Make the checkouts with ``git worktree add`` or
``git clone``; for example the commit before and after a merge.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

GAMES = ("pepper_v0", "cancellation_hearts_v0", "push_v0", "spit_v0")


def rate(step, seconds: float) -> float:
    """Steps per CPU-second of ``step()`` (which returns the steps it made)."""
    n, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        n += step()
    return n / (time.process_time() - start)


def vector_steps(game: str, batch: int):
    import cardenvs.vector as V

    venv, rng = V.make(game, batch, seed=0), np.random.default_rng(0)
    info = venv.reset()[1]

    def step() -> int:
        nonlocal info
        for _ in range(20):
            mask = info["action_mask"]
            info = venv.step((rng.random(mask.shape) * mask).argmax(-1))[4]
        return 20 * batch

    return step


def aec_steps(game: str):
    import cardenvs

    env, rng = cardenvs.make(game), np.random.default_rng(0)
    env.reset(seed=0)

    def step() -> int:
        for _ in range(200):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.reset(seed=int(rng.integers(1 << 30)))
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        return 200

    return step


def measure(seconds: float) -> dict[str, float]:
    """One side's figures, in this process (the checkout on sys.path)."""
    from cardenvs.core import jit
    from cardenvs.registry import spec

    steps = {}
    for game in GAMES:
        steps[f"{game} batch 1"] = vector_steps(game, 1)
        steps[f"{game} batch 1024"] = vector_steps(game, 1024)
        if not spec(game).simultaneous:
            steps[f"{game} AEC"] = aec_steps(game)
    for step in steps.values():  # (every kernel asked for, then built)
        step()
    jit.wait_compiled(900)
    for step in steps.values():
        step()
    return {name: rate(step, seconds) for name, step in steps.items()}


def run_side(checkout: str, seconds: float, cpu: int | None) -> dict[str, float]:
    argv = [sys.executable, os.path.abspath(__file__), "--measure", "--seconds", str(seconds)]
    if cpu is not None and shutil.which("taskset"):
        argv = ["taskset", "-c", str(cpu), *argv]
    env = {**os.environ, "PYTHONPATH": os.path.abspath(checkout)}
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True, cwd=os.path.abspath(checkout))
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("checkouts", nargs="*", metavar="DIR", help="BEFORE_DIR AFTER_DIR")
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--seconds", type=float, default=1.0, help="CPU seconds a measurement")
    p.add_argument("--cpu", type=int, default=1, help="the CPU to pin to (-1: none)")
    p.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.measure:
        print(json.dumps(measure(args.seconds)))
        return
    if len(args.checkouts) != 2 or args.rounds < 1:
        p.error("give two checkout folders (BEFORE_DIR AFTER_DIR) and --rounds of at least 1")
    cpu = None if args.cpu < 0 else args.cpu
    sides: list[list[dict[str, float]]] = [[], []]
    for r in range(args.rounds):
        for i, checkout in enumerate(args.checkouts):
            sides[i].append(run_side(checkout, args.seconds, cpu))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    print(f"{'measure':32s} {'before':>12s} {'after':>12s} {'ratio':>6s}  range before / after (steps per CPU-second)")
    for name in sides[0][0]:
        a, b = [s[name] for s in sides[0]], [s[name] for s in sides[1]]
        ma, mb = statistics.median(a), statistics.median(b)
        print(
            f"{name:32s} {ma:12,.0f} {mb:12,.0f} {mb / ma:6.2f}  "
            f"[{min(a):,.0f}-{max(a):,.0f}] / [{min(b):,.0f}-{max(b):,.0f}]"
        )


if __name__ == "__main__":
    main()
