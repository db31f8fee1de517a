"""What a new user waits for on first use: compiling the kernels.

For each game, in fresh processes, with an empty compile cache (a new
``NUMBA_CACHE_DIR`` and ``XDG_CACHE_HOME``: a new install, an upgrade, a new
container, a CI run) and then with that cache warm, the wall time from the
start of ``import cardenvs`` to:

- ``import``: the end of the import;
- ``reset``: ``cardenvs.make(game)`` and its first ``reset(seed=0)``;
- ``AEC game``: the end of the first AEC game (random legal moves, seed 0);
- ``vector reset``: (another process) ``cardenvs.vector.make(game, 4096)``
  and its reset;
- ``vector step``: the end of its first step (random legal moves);
- ``10 vector steps``: the end of its tenth step (the kernels compiled by
  then, at scale: see ``cardenvs.core.first_use``).

- ``compiled``: the end of the compile of every kernel that path ran
  (``cardenvs.core.jit.wait_compiled``): until then, with
  ``CARDENVS_COMPILE=background``, a kernel not yet compiled runs as Python.

Each as wall time and as the CPU time of that process (a builder's
not counted: it runs on another core), which a busy machine inflates
less.  Each for the ways of ``--modes`` (``CARDENVS_COMPILE``, A/B in the same
run): ``background`` (the default: Python until the builder process has
compiled a kernel), ``now`` (numba's own way: compiled on first use, in the
calling process).  Then the kernels that took longest to compile in the
cold runs of ``now``, with how many specialisations (type signatures) each
got: the same kernel compiled for several array types or layouts counts
once per signature.

    python benchmarks/first_game.py                       # every game
    python benchmarks/first_game.py --games pepper_v0 --json out.json

``--at-scale`` measures instead what a user who starts training at scale
waits for: the wall time from the start of ``import cardenvs`` to the end
of 10M game steps at 4,096 games (``--steps``, ``--num-envs``; random legal
moves) with an empty cache, in ``background`` (the default) and ``now``,
interleaved in ``--pairs`` pairs, on a quiet machine and beside a CPU hog
(a busy process per core). The medians and the default's ratio to ``now``
(with the range over pairs) are printed; with ``--json``,
``benchmarks/results/first_use_at_scale.json``.

    python benchmarks/first_game.py --at-scale --games pepper_v0 --json

``--kernels`` measures where the cold time goes at scale: in fresh
processes with an empty cache, ``CARDENVS_COMPILE=now``, each game at 4,096
games (reset and ``--kernel-steps`` steps), the seconds each kernel called
from Python took to compile (with the kernels it calls, compiled with it),
the median of ``--runs`` runs, and when the game first needs it (its reset,
its first step, later); with ``--json``, ``benchmarks/results/first_use_kernels.json``.

    python benchmarks/first_game.py --kernels --json

``--json`` writes the figures with the commit and the machine (alone:
``benchmarks/results/first_game.json``, from which ``docs/results.md`` is
generated).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import textwrap

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import report  # noqa: E402  (benchmarks/report.py: --json)

# The child: times each stage from before `import cardenvs`, and records
# every compile (numba's "numba:compile" events) with its dispatcher.
CHILD = textwrap.dedent(
    """
    import json, sys, time
    t0, c0 = time.perf_counter(), time.process_time()
    from numba.core import event
    records = []
    class Compiles(event.Listener):
        def __init__(self):
            self.stack = []
        def on_start(self, e):
            self.stack.append((time.perf_counter(), e.data["dispatcher"], 0.0))
        def on_end(self, e):
            start, d, nested = self.stack.pop()
            took = time.perf_counter() - start
            if self.stack:  # (a kernel compiling the kernels it calls: their time is theirs)
                s, d2, n2 = self.stack[-1]
                self.stack[-1] = (s, d2, n2 + took)
            name = f"{d.py_func.__module__}.{d.py_func.__qualname__}"
            records.append((name, took - nested, str(e.data["args"])))
    event.register("numba:compile", Compiles())
    import numpy as np
    import cardenvs
    out = {}
    def mark(stage):  # (wall and this process's CPU time: less sensitive to a busy machine)
        out[stage], out[stage + " cpu"] = time.perf_counter() - t0, time.process_time() - c0
    mark("import")
    game, path = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(0)
    if path == "aec":
        env = cardenvs.make(game)
        env.reset(seed=0)
        mark("reset")
        if hasattr(env, "agent_iter"):
            for agent in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        mark("AEC game")
    else:
        import cardenvs.vector as V
        venv = V.make(game, 4096, seed=0)
        _, info = venv.reset()
        mark("vector reset")
        for n in range(10):
            mask = info["action_mask"]
            actions = np.where(mask, rng.random(mask.shape), -1).argmax(-1)
            _, _, _, _, info = venv.step(actions)
            if n == 0:
                mark("vector step")
        mark("10 vector steps")
    from cardenvs.core.jit import wait_compiled
    wait_compiled()
    mark("compiled")
    out["compiles"] = records
    print(json.dumps(out))
    """
)


# The child at scale: a large batch from an empty cache, to the end of its steps.
SCALE_CHILD = textwrap.dedent(
    """
    import json, sys, time
    t0, c0 = time.perf_counter(), time.process_time()
    import numpy as np
    import cardenvs.vector as V
    game, games, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    venv, rng = V.make(game, games, seed=0), np.random.default_rng(0)
    _, info = venv.reset()
    for _ in range(-(-steps // games)):
        mask = info["action_mask"]
        _, _, _, _, info = venv.step((rng.random(mask.shape) * mask).argmax(-1))
    print(json.dumps({"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}))
    """
)


# The child of --kernels: each compile of a kernel called from Python (with the kernels compiled with it),
# and when the game first needed it.
KERNELS_CHILD = textwrap.dedent(
    """
    import json, sys, time
    from numba.core import event
    records, stage = [], ["reset"]
    class Compiles(event.Listener):
        def __init__(self):
            self.stack = []
        def on_start(self, e):
            self.stack.append([time.perf_counter(), 0])
        def on_end(self, e):
            start, inner = self.stack.pop()
            if self.stack:
                self.stack[-1][1] += inner + 1
                return
            d = e.data["dispatcher"]
            name = f"{d.py_func.__module__}.{d.py_func.__qualname__}"
            records.append((name, time.perf_counter() - start, inner, stage[0]))
    event.register("numba:compile", Compiles())
    import numpy as np
    import cardenvs.vector as V
    game, steps = sys.argv[1], int(sys.argv[2])
    venv, rng = V.make(game, 4096, seed=0), np.random.default_rng(0)
    _, info = venv.reset()
    for n in range(steps):
        stage[0] = "first step" if n == 0 else "later"
        mask = info["action_mask"]
        _, _, _, _, info = venv.step((rng.random(mask.shape) * mask).argmax(-1))
    print(json.dumps(records))
    """
)


def cold_env(cache: str, mode: str) -> dict:
    """The environment of a fresh process with an empty compile cache (``cache``, a new folder)."""
    env = {**os.environ, "CARDENVS_COMPILE": mode, "CARDENVS_COMPILE_QUIET": "1"}
    env.update(NUMBA_CACHE_DIR=os.path.join(cache, "numba"), XDG_CACHE_HOME=os.path.join(cache, "xdg"))
    return env


def kernels(game: str, runs: int, steps: int) -> list[dict]:
    """A record per kernel called from Python at 4,096 games: its compile
    (with what it calls), the median over ``runs`` cold processes."""
    found: dict[str, list] = {}
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="cardenvs-cold-") as cache:
            args = [sys.executable, "-c", KERNELS_CHILD, game, str(steps)]
            out = subprocess.run(args, capture_output=True, text=True, env=cold_env(cache, "now"), cwd=ROOT)
        if out.returncode:
            raise SystemExit(f"{game} --kernels: the child failed:\n{out.stderr}")
        for name, seconds, inner, stage in json.loads(out.stdout.strip().splitlines()[-1]):
            found.setdefault(name, []).append((seconds, inner, stage))
    records = []
    for name, seen in found.items():
        if name == "cardenvs.core.jit._address":
            continue  # (packing's helper: run as Python at any size, never waited for)
        records.append(
            {
                "game": game,
                "kernel": name.split(".", 3)[3]
                if name.startswith("cardenvs.games.")
                else name.removeprefix("cardenvs."),
                "needed": seen[0][2],
                "kernels": 1 + max(inner for _, inner, _ in seen),
                "seconds": float(np.median([s for s, _, _ in seen])),
                "runs": len(seen),
            }
        )
    records.sort(key=lambda r: -r["seconds"])
    total = {"seconds": sum(r["seconds"] for r in records), "kernels": sum(r["kernels"] for r in records)}
    return [*records, {"game": game, "kernel": "(all)", "needed": "", **total, "runs": runs}]


def run_child(game: str, path: str, cache: str, mode: str) -> dict:
    """One fresh process: its stage times and compiles."""
    env = cold_env(cache, mode)
    out = subprocess.run([sys.executable, "-c", CHILD, game, path], capture_output=True, text=True, env=env, cwd=ROOT)
    if out.returncode:
        raise SystemExit(f"{game} {path}: the child failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(game: str, mode: str) -> dict:
    """Cold then warm, each path in its own process and cache."""
    result: dict = {"game": game, "mode": mode}
    compiles: dict[str, list] = {}
    for path in ("aec", "vector"):
        with tempfile.TemporaryDirectory(prefix="cardenvs-cold-") as cache:
            cold = run_child(game, path, cache, mode)
            warm = run_child(game, path, cache, mode)
        for name, took, sig in cold.pop("compiles"):
            compiles.setdefault(name, []).append((took, sig))
        warm.pop("compiles")
        for stage in ("import", "reset", "compiled"):  # (per path)
            for run in (cold, warm):
                run[f"{stage} ({path})"] = run.pop(stage, None)
                run[f"{stage} ({path}) cpu"] = run.pop(stage + " cpu", None)
        for key, value in cold.items():
            result.setdefault("cold", {})[key] = value
        for key, value in warm.items():
            result.setdefault("warm", {})[key] = value
    for cache in ("cold", "warm"):  # (the results page's columns: the AEC path's import, the later path's compile)
        run = result[cache]
        run["import"], run["compiled"] = run["import (aec)"], max(run["compiled (aec)"], run["compiled (vector)"])
    kernels = [
        {"kernel": name, "seconds": sum(t for t, _ in runs), "signatures": len({s for _, s in runs})}
        for name, runs in compiles.items()
    ]
    result["kernels"] = sorted(kernels, key=lambda k: -k["seconds"])
    return result


def at_scale(game: str, modes: list[str], pairs: int, games: int, steps: int, hog: bool) -> list[dict]:
    """``pairs`` rounds of one cold run per mode (the order alternating),
    beside a busy process per core if ``hog``: a record per mode, its
    median wall time, and its ratio to the first mode's (median, range)."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 1) if hog]
    runs: dict[str, list[dict]] = {mode: [] for mode in modes}
    try:
        for n in range(pairs):
            for mode in modes if n % 2 == 0 else modes[::-1]:
                with tempfile.TemporaryDirectory(prefix="cardenvs-cold-") as cache:
                    env = cold_env(cache, mode)
                    args = [sys.executable, "-c", SCALE_CHILD, game, str(games), str(steps)]
                    out = subprocess.run(args, capture_output=True, text=True, env=env, cwd=ROOT)
                if out.returncode:
                    raise SystemExit(f"{game} at scale ({mode}): the child failed:\n{out.stderr}")
                runs[mode].append(json.loads(out.stdout.strip().splitlines()[-1]))
                load = "with a CPU hog" if hog else "quiet"
                print(f"    {load:14} {mode:10} {runs[mode][-1]['wall']:6.1f} s", flush=True)
    finally:
        for process in hogs:
            process.kill()
            process.wait()
    base = [r["wall"] for r in runs[modes[0]]]
    records = []
    for mode in modes:
        walls = [r["wall"] for r in runs[mode]]
        ratios = [w / b for w, b in zip(walls, base)]
        records.append(
            {
                "game": game,
                "load": "with a CPU hog" if hog else "quiet",
                "mode": mode,
                "games": games,
                "steps": steps,
                "pairs": pairs,
                "wall": float(np.median(walls)),
                "cpu": float(np.median([r["cpu"] for r in runs[mode]])),
                "walls": walls,
                "ratio": float(np.median(ratios)),
                "ratio_range": f"{min(ratios):.2f} to {max(ratios):.2f}",
            }
        )
    return records


#: The stages printed, by the run they are read from.
STAGES = (
    ("import", "import (aec)"),
    ("reset", "reset (aec)"),
    ("AEC game", "AEC game"),
    ("compiled", "compiled (aec)"),
    ("vec. reset", "vector reset"),
    ("vector step", "vector step"),
    ("10 steps", "10 vector steps"),
    ("compiled", "compiled (vector)"),
)


def print_result(r: dict, top: int) -> None:
    head = "  ".join(f"{name:>11}" for name, _ in STAGES)
    print(f"{r['game']}  CARDENVS_COMPILE={r['mode']}    s from `import cardenvs`:\n    {'':10}  {head}")
    for cache in ("cold", "warm"):
        print(f"    {cache + ' cache':10}  " + "  ".join(f"{r[cache][key]:11.1f}" for _, key in STAGES))
        print(f"    {'  CPU':10}  " + "  ".join(f"{r[cache][key + ' cpu']:11.1f}" for _, key in STAGES))
    if not r["kernels"]:
        return
    total = sum(k["seconds"] for k in r["kernels"])
    print(f"  {len(r['kernels'])} kernels compiled here, {total:.1f} s in all (both cold paths); the longest:")
    for k in r["kernels"][:top]:
        print(f"    {k['seconds']:6.2f} s  {k['signatures']} signature(s)  {k['kernel']}")


def main(argv: list[str] | None = None) -> int:
    from cardenvs.registry import GAMES

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", default=",".join(GAMES), help="comma-separated game names (default: every game)")
    p.add_argument("--top", type=int, default=8, help="kernels listed per game")
    p.add_argument("--modes", default="now,background", help="CARDENVS_COMPILE ways to compare (A/B, same run)")
    p.add_argument("--at-scale", action="store_true", help="time to --steps game steps at --num-envs games instead")
    p.add_argument("--num-envs", type=int, default=4096, help="games at once, with --at-scale")
    p.add_argument("--steps", type=int, default=10_000_000, help="game steps, with --at-scale")
    p.add_argument("--pairs", type=int, default=3, help="runs per mode and load, interleaved, with --at-scale")
    p.add_argument("--kernels", action="store_true", help="each kernel's compile time at 4,096 games instead")
    p.add_argument("--runs", type=int, default=3, help="cold runs per game, with --kernels (the median)")
    p.add_argument("--kernel-steps", type=int, default=100, help="steps after the reset, with --kernels")
    p.add_argument("--json", nargs="?", const="", default=None, metavar="PATH", help=JSON_HELP)
    args = p.parse_args(argv)
    games = args.games.split(",")
    unknown = [g for g in games if g not in GAMES]
    if unknown:
        p.error(f"unknown game(s) {unknown}; have {sorted(GAMES)}")
    if min(args.num_envs, args.steps, args.pairs, args.runs) < 1 or args.kernel_steps < 0:
        p.error("--num-envs, --steps, --pairs and --runs must be positive, --kernel-steps not negative")
    name = "first_use_at_scale" if args.at_scale else "first_use_kernels" if args.kernels else "first_game"
    path = args.json or (report.default_path(name) if args.json == "" else None)
    info = report.machine()
    print(f"# commit {info['commit'][:10]}, {info['cpus']} CPUs, load average {info['load_average'][0]:.2f}\n")
    results = []
    if args.kernels:
        for game in games:
            results += kernels(game, args.runs, args.kernel_steps)
            print(f"{game}: compile s at 4,096 games (median of {args.runs}), by kernel called from Python")
            for r in [r for r in results if r["game"] == game]:
                print(f"  {r['seconds']:6.2f} s  {r['kernels']:3d} kernel(s)  {r['needed']:10}  {r['kernel']}")
        if path:
            report.write(path, name, results, info, script="benchmarks/first_game.py")
        return 0
    if args.at_scale:
        modes = args.modes.split(",")
        for game in games:
            print(f"{game}: {args.steps:,} steps at {args.num_envs:,} games, empty cache, wall s from `import`")
            for hog in (False, True):
                results += at_scale(game, modes, args.pairs, args.num_envs, args.steps, hog)
            for r in results[-2 * len(modes) :]:
                ratio = f"x{r['ratio']:.2f} ({r['ratio_range']})"
                print(f"  {r['load']:14} {r['mode']:10} median {r['wall']:6.1f} s, {ratio} of {modes[0]}")
        if path:
            report.write(path, name, results, info, script="benchmarks/first_game.py")
        return 0
    for game in games:
        for mode in args.modes.split(","):
            results.append(measure(game, mode))
            print_result(results[-1], args.top)
    if path:
        report.write(path, name, results, info)
    return 0


JSON_HELP = (
    "also write the results as JSON, with the commit and the machine (alone: benchmarks/results/first_game.json, "
    "with --at-scale first_use_at_scale.json, with --kernels first_use_kernels.json)"
)


if __name__ == "__main__":
    sys.exit(main())
