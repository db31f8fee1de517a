#!/usr/bin/env python
"""Random-legal-play throughput of cardenvs vs. peer engines, on ONE core.

Measures the full step as a learner sees it: read the legal-action mask,
pick a uniformly random legal action, step, and get the next observation.

    python benchmarks/throughput.py                 # defaults: 3 s per measurement
    python benchmarks/throughput.py --quick         # 0.5 s, batches 1 and 1024
    python benchmarks/throughput.py --cpu           # steps per CPU-second (steadier on a loaded machine)
    python benchmarks/throughput.py --games pepper_v0 --batches 1,4096 --no-peers
    python benchmarks/throughput.py --profile       # + cProfile of the largest batch
    python benchmarks/throughput.py --threads 1,2   # vector engine steps/s per thread count at 4096
                                                    # (every core: see thread_scaling.py)
    python benchmarks/throughput.py --processes 1,2 # the same per process count (num_processes)
    python benchmarks/throughput.py --json          # + benchmarks/results/throughput.json (docs/results.md)

See benchmarks/README.md for what each number means.
"""

from __future__ import annotations

import os

# Single-threaded numerics: must happen before numpy (or anything importing it) loads.
for _var in (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
):
    os.environ[_var] = "1"

_PINNED = None


def pin_one_core() -> None:
    """Pin the whole process (ours and the peers alike) to one core: called
    before any thread starts (threads inherit it), except for ``--threads``."""
    global _PINNED
    try:
        _PINNED = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {_PINNED})
    except (AttributeError, OSError):  # not Linux, or not allowed
        _PINNED = None


import argparse  # noqa: E402
import datetime  # noqa: E402
import importlib  # noqa: E402
import math  # noqa: E402
import pathlib  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402

import numpy as np  # noqa: E402
import report  # noqa: E402  (benchmarks/report.py: --json)

from cardenvs.registry import GAMES  # noqa: E402

perf_counter = time.perf_counter

# --------------------------------------------------------------------------
# What to measure.  Adding one of our games is one entry here: ``config`` is
# passed to both ``cardenvs.vector.make`` and ``cardenvs.<name>.env``.
# Games whose module is missing/fails to import are skipped with a note.
# Simultaneous games (spit: actions (N, 2), mask (N, 2, n_actions)) need no
# special case: the random policy works on the mask's last axis.
OUR_GAMES: dict[str, dict] = {name: {"config": {}} for name in GAMES}  # default configs (Pepper: 4 players)
DEFAULT_GAMES = list(OUR_GAMES)
DEFAULT_BATCHES = [1, 64, 1024, 4096]
QUICK_BATCHES = [1, 1024]

# Peers.  OpenSpiel: every game listed that the installed version has.
# RLCard: the first of the list that the installed version has.
OPENSPIEL_GAMES = ["euchre", "hearts"]
RLCARD_GAMES = ["bridge", "gin-rummy", "uno"]


@dataclass
class Result:
    engine: str
    game: str
    batch: int
    steps: int  # game-steps (decisions) in the timed window
    games: int  # games finished in the timed window
    seconds: float
    steps_per_game: float | None = None  # mean decisions per game (see README)
    peer_key: str | None = None  # set for peer rows: column header of the ratio
    engine_seconds: float | None = None  # vector rows: the part of ``seconds`` spent inside ``venv.step``
    notes: list[str] = field(default_factory=list)

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds

    @property
    def engine_steps_per_s(self) -> float | None:
        """Steps per second of the engine alone (step + next observation + mask),
        leaving out the benchmark's own random policy."""
        return self.steps / self.engine_seconds if self.engine_seconds else None

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds

    @property
    def steady_games_per_s(self) -> float | None:
        if not self.steps_per_game:
            return None
        return self.steps_per_s / self.steps_per_game


def note(msg: str) -> None:
    print(f"  note: {msg}", flush=True)


# --------------------------------------------------------------------------
# Our vector engine
def _random_legal(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row (per last axis): the k-th of
    the row's legal actions for a uniform k (a row with none, which the engine never shows, gets any action).

    Small masks take a random float per action, add the mask and take the
    argmax (the fewest numpy calls; adding, not multiplying: a float32 draw
    may be 0.0, and 0.0 times the only legal action would pick action 0,
    illegal, once in about ten million decisions); large ones one random number per row, as for Push's 2,371
    actions at 4096 games a float per action cost 60-80 ms per batch step."""
    if mask.size <= 1 << 16:
        return (rng.random(mask.shape, dtype=np.float32) + mask).argmax(-1)
    n = mask.shape[-1]
    rows = mask.reshape(-1, n)
    counts = np.count_nonzero(rows, axis=1)
    legal = np.append(np.flatnonzero(rows), 0)  # each row's legal actions together, then a 0
    pick = np.cumsum(counts) - counts + (rng.random(len(counts)) * counts).astype(np.int64)
    pick[counts == 0] = len(legal) - 1
    return (legal[pick] % n).reshape(mask.shape[:-1])


def load_our_game(name: str):
    """The game's PettingZoo module, or None (with a note) if it is unavailable."""
    try:
        return importlib.import_module(f"cardenvs.{name}")
    except Exception as exc:  # ImportError, or a broken module
        note(f"skipping {name}: cardenvs.{name} does not import ({type(exc).__name__}: {exc})")
        return None


def measure_vector(
    name: str, config: dict, batch: int, seconds: float, warmup: float, min_steps: int = 0, max_seconds: float = 120.0
) -> Result:
    """Time random legal play of ``batch`` games for ``seconds``, and for at
    least ``min_steps`` batch steps (one mean game length; at most
    ``max_seconds``).  The games all start together at ``reset``, so a window
    shorter than a game would see only some stages of it (their openings,
    or the deals after the first games end), and stages differ in cost
    (Push's later rounds are slower than its first); over one game length
    each row goes through a whole game's worth of stages."""
    import cardenvs.vector as V

    venv = V.make(name, num_envs=batch, seed=0, **config)
    rng = np.random.default_rng(0)
    _, info = venv.reset()
    state = {"info": info}

    def run(budget: float, min_steps: int = 0) -> tuple[int, int, float, float]:
        info = state["info"]
        steps = games = 0
        in_step = 0.0
        t0 = perf_counter()
        deadline = t0 + budget
        while True:
            actions = _random_legal(rng, info["action_mask"])
            t1 = perf_counter()
            obs, rewards, terminated, truncated, info = venv.step(actions)
            t2 = perf_counter()
            in_step += t2 - t1
            steps += 1
            games += int(np.count_nonzero(terminated | truncated))
            if t2 >= deadline and (steps >= min_steps or t2 >= t0 + max_seconds):
                break
        elapsed = perf_counter() - t0
        state["info"] = info
        return steps, games, elapsed, in_step

    run(warmup, min_steps if batch < SMALL_BATCH else 0)  # small batches: a whole game, every stage's kernels
    compiled_now()
    run(min(warmup, 0.2))
    steps, games, elapsed, in_step = run(seconds, min_steps)
    return Result("cardenvs vector", name, batch, steps * batch, games, elapsed, engine_seconds=in_step)


#: Below this many games a kernel not compiled yet runs as Python while the builder compiles it
#: (``cardenvs.core.compiling.WAIT_ROWS``); from it on, the call waits for the compiled kernel.
SMALL_BATCH = 256


def compiled_now() -> None:
    """Wait until every kernel the warm-up ran as Python is compiled (with
    the default ``CARDENVS_COMPILE=background`` and a cold compile cache a
    small batch starts as Python while a builder compiles): the timed
    window measures the compiled engine, as a user's game does once
    compiled, not the ten-times-slower Python start (``first_game.py``
    measures that)."""
    from cardenvs.core.jit import wait_compiled

    wait_compiled()


def mean_game_length(name: str, config: dict, batch: int, max_seconds: float) -> tuple[float, bool]:
    """Mean number of batch-steps per game: ``batch`` games started together,
    stepped until every one has finished its first game (unbiased, unlike the
    lengths of the games that happen to finish in a short window).  Returns
    (mean, complete); if ``max_seconds`` runs out first, the mean of the games
    that did finish, flagged incomplete (biased short)."""
    import cardenvs.vector as V

    venv = V.make(name, num_envs=batch, seed=1, **config)
    rng = np.random.default_rng(1)
    _, info = venv.reset()
    first = np.zeros(batch, np.int64)
    steps = 0
    deadline = perf_counter() + max_seconds
    while (first == 0).any() and perf_counter() < deadline:
        _, _, terminated, truncated, info = venv.step(_random_legal(rng, info["action_mask"]))
        steps += 1
        finished = (terminated | truncated) & (first == 0)
        first[finished] = steps
    done = first[first > 0]
    complete = len(done) == batch
    return (float(done.mean()) if len(done) else float("nan")), complete


# --------------------------------------------------------------------------
# Our AEC env (batch of one, PettingZoo API)
def measure_aec(module, name: str, config: dict, seconds: float, warmup: float, raw: bool = False) -> Result:
    """Random legal play through the AEC env as users build it (``module.env``,
    the same as ``cardenvs.make(name)``: PettingZoo's wrappers included), or
    with ``raw`` the unwrapped ``module.raw_env``."""
    env = (module.raw_env if raw else module.env)(**config)
    env.reset(seed=0)
    rnd = random.Random(0)

    def run(budget: float) -> tuple[int, int, float]:
        steps = games = 0
        t0 = perf_counter()
        deadline = t0 + budget
        while True:
            out_of_time = False
            for _agent in env.agent_iter():
                obs, reward, term, trunc, info = env.last()
                if term or trunc:
                    action = None
                else:
                    legal = np.flatnonzero(obs["action_mask"])
                    action = int(legal[rnd.randrange(len(legal))])
                    steps += 1
                env.step(action)
                if perf_counter() >= deadline:
                    out_of_time = True
                    break
            if out_of_time:
                break  # mid-game: the next run() continues this game
            games += 1
            env.reset()
        return steps, games, perf_counter() - t0

    for _agent in env.agent_iter():  # one whole game first: every stage's kernels
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rnd.choice(np.flatnonzero(obs["action_mask"]))))
    env.reset()
    compiled_now()
    run(warmup)
    steps, games, elapsed = run(seconds)
    engine = "cardenvs AEC raw_env" if raw else "cardenvs AEC"
    return Result(engine, name, 1, steps, games, elapsed, steps_per_game=(steps / games) if games else None)


# --------------------------------------------------------------------------
# Peers
def measure_openspiel(seconds: float, warmup: float, games: list[str] | None = None) -> list[Result]:
    """Random legal play of each OpenSpiel game in ``games`` (default
    :data:`OPENSPIEL_GAMES`) through pyspiel's Python API."""
    try:
        import pyspiel
    except Exception as exc:
        note(f"skipping OpenSpiel: cannot import pyspiel ({type(exc).__name__}: {exc}); pip install open_spiel")
        return []
    try:
        from importlib.metadata import version

        ver = version("open_spiel")
    except Exception:
        ver = "?"
    registered = set(pyspiel.registered_names())
    results = []
    for gname in OPENSPIEL_GAMES if games is None else games:
        if gname not in registered:
            note(f"skipping OpenSpiel {gname}: not in this OpenSpiel build")
            continue
        game = pyspiel.load_game(gname)
        gtype = game.get_type()
        if gtype.provides_observation_tensor:
            kind = "obs"
            tensor = lambda s, p: s.observation_tensor(p)  # noqa: E731
            size = game.observation_tensor_size()
        elif gtype.provides_information_state_tensor:
            kind = "infostate"
            tensor = lambda s, p: s.information_state_tensor(p)  # noqa: E731
            size = game.information_state_tensor_size()
        else:
            note(f"skipping OpenSpiel {gname}: no observation/information-state tensor")
            continue
        rnd = random.Random(0)
        holder = {"state": game.new_initial_state()}

        def run(budget: float) -> tuple[int, int, float]:
            state = holder["state"]
            steps = games = 0
            t0 = perf_counter()
            deadline = t0 + budget
            while True:
                if state.is_terminal():
                    games += 1
                    state = game.new_initial_state()
                elif state.is_chance_node():  # dealing etc.: sampled, timed, not counted as a step
                    outcomes = state.chance_outcomes()
                    actions = [a for a, _ in outcomes]
                    probs = [p for _, p in outcomes]
                    state.apply_action(rnd.choices(actions, weights=probs)[0])
                else:
                    player = state.current_player()
                    legal = state.legal_actions()
                    tensor(state, player)
                    state.apply_action(legal[rnd.randrange(len(legal))])
                    steps += 1
                    if perf_counter() >= deadline:
                        break
            holder["state"] = state
            return steps, games, perf_counter() - t0

        run(warmup)
        steps, games, elapsed = run(seconds)
        results.append(
            Result(
                f"OpenSpiel {ver}",
                f"{gname} ({kind} {size})",
                1,
                steps,
                games,
                elapsed,
                steps_per_game=(steps / games) if games else None,
                peer_key=f"OS {gname}",
            )
        )
    return results


def measure_rlcard(seconds: float, warmup: float) -> list[Result]:
    try:
        import rlcard
    except Exception as exc:
        note(f"skipping RLCard: cannot import rlcard ({type(exc).__name__}: {exc}); pip install rlcard")
        return []
    ver = getattr(rlcard, "__version__", "?")
    for gname in RLCARD_GAMES:
        try:
            env = rlcard.make(gname, config={"seed": 0})
        except Exception as exc:
            note(f"RLCard {gname} unavailable ({type(exc).__name__}: {exc}); trying the next")
            continue
        break
    else:
        note(f"skipping RLCard: none of {RLCARD_GAMES} available")
        return []
    rnd = random.Random(0)
    state0, _ = env.reset()
    holder = {"state": state0}

    def run(budget: float) -> tuple[int, int, float]:
        state = holder["state"]
        steps = games = 0
        t0 = perf_counter()
        deadline = t0 + budget
        while True:
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[rnd.randrange(len(legal))])
            steps += 1
            if env.is_over():
                games += 1
                state, _ = env.reset()
            if perf_counter() >= deadline:
                break
        holder["state"] = state
        return steps, games, perf_counter() - t0

    run(warmup)
    steps, games, elapsed = run(seconds)
    obs_size = int(np.prod(env.state_shape[0])) if getattr(env, "state_shape", None) else "?"
    return [
        Result(
            f"RLCard {ver}",
            f"{gname} (obs {obs_size})",
            1,
            steps,
            games,
            elapsed,
            steps_per_game=(steps / games) if games else None,
            peer_key=f"RLCard {gname}",
        )
    ]


# --------------------------------------------------------------------------
# Reporting
def machine_info() -> list[str]:
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        load = "load average {:.2f} {:.2f} {:.2f} (other processes compete for the core)".format(*os.getloadavg())
    except OSError:
        load = "load average ?"
    if _PINNED is not None:
        cores = f"ONE core used: pinned to CPU {_PINNED} (sched_setaffinity)"
    else:
        cores = "not pinned (every core)"
    return [
        f"CPU: {cpu} ({os.cpu_count()} logical CPUs on the machine); {cores}, OMP/OPENBLAS/MKL_NUM_THREADS=1",
        f"Python {platform.python_version()} ({platform.python_implementation()}), numpy {np.__version__}, "
        f"{platform.system()} {platform.release()}; {load}",
    ]


def code_version() -> str:
    """cardenvs version, git commit, and a hash of its sources (the tree may be uncommitted)."""
    import hashlib
    import subprocess

    try:
        import cardenvs
    except Exception as exc:
        return f"cardenvs not importable ({exc})"
    root = os.path.dirname(os.path.abspath(cardenvs.__file__))
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in sorted(os.walk(root)):
        dirnames.sort()
        for fn in sorted(filenames):
            if fn.endswith(".py"):
                with open(os.path.join(dirpath, fn), "rb") as fh:
                    digest.update(fn.encode() + fh.read())
    git = "no git"
    try:
        repo = os.path.dirname(root)
        sha = subprocess.run(
            ["git", "-C", repo, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", repo, "status", "--porcelain", "--", "cardenvs"], capture_output=True, text=True, timeout=10
        ).stdout.strip()
        if sha:
            git = f"git {sha}" + (" + uncommitted changes in cardenvs/" if dirty else "")
    except Exception:
        pass
    return f"cardenvs {getattr(cardenvs, '__version__', '?')}, {git}, sources sha256 {digest.hexdigest()[:12]}"


def fmt_rate(x: float | None) -> str:
    if x is None or x != x:
        return "-"
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 1:
        return f"{x:.1f}"
    return f"{x:.2f}"


def print_table(results: list[Result]) -> None:
    peers = [r for r in results if r.peer_key]
    headers = ["engine", "game", "batch", "steps/s", "engine steps/s", "games/s", "steps/game", "steady games/s"]
    headers += [f"x vs {p.peer_key}" for p in peers]
    rows = []
    for r in results:
        row = [
            r.engine,
            r.game,
            str(r.batch),
            fmt_rate(r.steps_per_s),
            fmt_rate(r.engine_steps_per_s),
            fmt_rate(r.games_per_s),
            fmt_rate(r.steps_per_game),
            fmt_rate(r.steady_games_per_s),
        ]
        for p in peers:
            row.append("-" if r.peer_key else f"{r.steps_per_s / p.steps_per_s:.2f}")
        rows.append(row)
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(headers)]
    left = {0, 1}

    def line(cells):
        return "  ".join(c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    print(line(headers))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print(line(row))


def json_record(r: Result) -> dict:
    """A row of the table as ``--json`` writes it."""
    return {
        "engine": r.engine,
        "game": r.game,
        "batch": r.batch,
        "steps_per_s": r.steps_per_s,
        "engine_steps_per_s": r.engine_steps_per_s,
        "steps_per_game": r.steps_per_game,
    }


IMAGES = report.ROOT / "docs" / "images"


def plot(results: list[Result], path: pathlib.Path, cpu: bool = False) -> str:
    """A bar a row, whole-loop steps per second on a log scale: each of our
    games one game at a time (AEC, vector at batch 1) and at its largest
    batch, then the peers (one game at a time); returns the page's path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ours = [r for r in results if not r.peer_key]
    largest = {r.game: r.batch for r in ours if r.engine == "cardenvs vector" and r.batch > 1}
    bars: list[tuple[str, float, str]] = []  # (label, steps/s, colour)
    for game in dict.fromkeys(r.game for r in ours):
        for r in ours:
            if r.game != game or (r.batch > 1 and r.batch != largest.get(game)):
                continue
            one = r.batch == 1
            what = ("AEC env" if r.engine.startswith("cardenvs AEC") else "vector") + (
                ", one game" if one else f", {r.batch:,} games"
            )
            bars.append((f"{game.removesuffix('_v0')}: {what}", r.steps_per_s, "tab:orange" if one else "tab:blue"))
    bars += [(f"{r.engine}: {r.game}, one game", r.steps_per_s, "tab:grey") for r in results if r.peer_key]
    fig, ax = plt.subplots(figsize=(9, 0.32 * len(bars) + 1.2))
    ys = range(len(bars))[::-1]
    ax.barh(list(ys), [b[1] for b in bars], color=[b[2] for b in bars])
    for y, (_, rate, _) in zip(ys, bars):
        ax.text(rate, y, f" {rate:,.0f}", va="center", fontsize=7)
    ax.set_yticks(list(ys), [b[0] for b in bars], fontsize=8)
    ax.set_xscale("log")
    ax.set_xlim(10 ** math.floor(math.log10(min(b[1] for b in bars))), max(b[1] for b in bars) * 8)
    ax.set_xlabel(f"steps per {'CPU-' if cpu else ''}second, random legal play, whole loop (log scale)")
    ax.set_title("cardenvs (blue: batched, orange: one game) and the peer engines (grey), one core", fontsize=9)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return f"images/{path.name}"


def parse_int_list(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--seconds", type=float, default=None, help="timed budget per measurement (default 3, or 0.5 with --quick)"
    )
    ap.add_argument(
        "--games",
        default=",".join(DEFAULT_GAMES),
        help=f"comma-separated cardenvs games (default {','.join(DEFAULT_GAMES)}; missing ones are skipped)",
    )
    ap.add_argument(
        "--batches",
        default=None,
        help="comma-separated vector batch sizes (default 1,64,1024,4096; 1,1024 with --quick)",
    )
    ap.add_argument("--quick", action="store_true", help="0.5 s per measurement, batches 1 and 1024")
    ap.add_argument("--no-peers", action="store_true", help="skip OpenSpiel and RLCard")
    ap.add_argument("--cpu", action="store_true", help="time by process CPU time, not the wall clock (loaded machines)")
    ap.add_argument("--no-aec", action="store_true", help="skip the AEC (PettingZoo) measurement")
    ap.add_argument(
        "--calib-batch",
        type=int,
        default=None,
        help="batch for the steps/game calibration of the vector engine (default 256: compiled before it runs; "
        "0 = skip)",
    )
    ap.add_argument(
        "--profile",
        action="store_true",
        help="also cProfile the largest batch of each game and print the top functions",
    )
    ap.add_argument(
        "--threads",
        default=None,
        help="instead: the vector engine's steps/s per thread count (e.g. 1,2) at the largest batch "
        "(default 4096), every core of the machine; see benchmarks/thread_scaling.py",
    )
    ap.add_argument(
        "--processes",
        default=None,
        help="instead: the vector engine's steps/s per process count (num_processes, e.g. 1,2; rng per_game) "
        "at the largest batch (default 4096), every core of the machine",
    )
    report.add_json_option(ap, "throughput")
    args = ap.parse_args(argv)
    if args.threads is None and args.processes is None:
        pin_one_core()
    if args.cpu:  # every loop reads the clock through this module global
        global perf_counter
        perf_counter = time.process_time

    seconds = args.seconds if args.seconds is not None else (0.5 if args.quick else 3.0)
    batches = parse_int_list(args.batches) if args.batches else (QUICK_BATCHES if args.quick else DEFAULT_BATCHES)
    calib_batch = args.calib_batch if args.calib_batch is not None else SMALL_BATCH  # (compiled before it runs)
    warmup = min(1.0, max(0.1, 0.2 * seconds))
    games = [g.strip() for g in args.games.split(",") if g.strip()]

    print(f"# date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}")
    print(f"# command: {report.command('benchmarks/throughput.py', sys.argv[1:])}")
    for line in machine_info():
        print(f"# {line}")
    print(f"# {code_version()}")
    if args.threads is not None:
        from thread_scaling import run as thread_scaling

        batch = max(parse_int_list(args.batches)) if args.batches else 4096
        return thread_scaling(games, parse_int_list(args.threads), batch, args.seconds or 3.0)
    if args.processes is not None:
        from thread_scaling import process_scaling

        batch = max(parse_int_list(args.batches)) if args.batches else 4096
        return process_scaling(games, parse_int_list(args.processes), batch, args.seconds or 3.0)
    print(
        f"# {seconds:g} s timed per measurement after {warmup:g} s warm-up (vector engine: timed for at "
        "least one mean game length of steps, so that every stage of a game is in the window); random legal play; "
        "a step = read mask + pick action + step + next observation"
    )
    print(flush=True)

    results: list[Result] = []
    for name in games:
        spec = OUR_GAMES.get(name, {"config": {}})
        config = spec["config"]
        module = load_our_game(name)
        if module is None:
            continue
        spg = None
        try:
            import cardenvs.vector as V

            V.rules_class(name)
        except Exception as exc:
            note(f"skipping vector {name}: {type(exc).__name__}: {exc}")
        else:
            if calib_batch > 0:
                t0 = perf_counter()
                spg, complete = mean_game_length(name, config, calib_batch, max_seconds=max(20.0, 10 * seconds))
                flag = "" if complete else " (INCOMPLETE: time cap hit, biased short)"
                if spg != spg:  # no game finished: no game length to time the windows by
                    flag, spg = " (NO game finished before the time cap: windows not stretched to a game)", None
                mean = "-" if spg is None else f"{spg:.1f}"
                print(
                    f"  {name}: mean steps/game {mean} over {calib_batch} games{flag} [{perf_counter() - t0:.1f} s]",
                    flush=True,
                )
            for batch in batches:
                r = measure_vector(name, config, batch, seconds, warmup, min_steps=0 if spg is None else round(spg))
                r.steps_per_game = spg
                results.append(r)
                print(
                    f"  vector {name} batch {batch}: {r.steps_per_s:,.0f} steps/s "
                    f"(engine alone: {r.engine_steps_per_s:,.0f})",
                    flush=True,
                )
        if not args.no_aec:
            try:
                r = measure_aec(module, name, config, seconds, warmup)
                if spg is not None:  # same rules, same game lengths; the AEC window is too short to count many
                    r.steps_per_game = spg
            except Exception as exc:
                note(f"skipping AEC {name}: {type(exc).__name__}: {exc}")
            else:
                results.append(r)
                print(f"  AEC {name}: {r.steps_per_s:,.0f} steps/s", flush=True)

    if not args.no_peers:
        for r in measure_openspiel(seconds, warmup) + measure_rlcard(seconds, warmup):
            results.append(r)
            print(f"  {r.engine} {r.game}: {r.steps_per_s:,.0f} steps/s", flush=True)

    print()
    if results:
        print_table(results)
    else:
        print("nothing measured")
    if args.json:
        images = [plot(results, IMAGES / "throughput-peers.png", args.cpu)] if results else []
        report.write(
            args.json,
            "throughput",
            [json_record(r) for r in results],
            seconds=seconds,
            pinned_cpu=_PINNED,
            clock="cpu" if args.cpu else "wall",
            images=images,
        )
    print()
    print("steps/s = game-steps (player decisions) per second = batch x batch-steps/s, the whole loop.")
    print("engine steps/s = the same steps over the time spent inside venv.step only (apply the actions,")
    print("  auto-reset, next observations and masks), i.e. without the benchmark's random policy.")
    print("games/s = games finished in the timed window (terminated|truncated); the vector window lasts at")
    print("  least one mean game length but its games start together, so it is noisy: 'steady games/s' =")
    print("  steps/s / steps/game is the long-run rate. A 'game' differs per engine (Pepper: to 30 points,")
    print("  several hands; OpenSpiel euchre/hearts and RLCard bridge: one deal), so compare engines by steps/s.")
    print("Peer steps count decisions only; their chance nodes (deals) are sampled inside the timed loop.")

    if args.profile:
        profile(games, batches, seconds)
    return 0


def profile(games: list[str], batches: list[int], seconds: float) -> None:
    import cProfile
    import io
    import pstats

    import cardenvs.vector as V

    batch = max(batches)
    for name in games:
        try:
            V.rules_class(name)
        except Exception:
            continue
        config = OUR_GAMES.get(name, {"config": {}})["config"]
        venv = V.make(name, num_envs=batch, seed=0, **config)
        rng = np.random.default_rng(0)
        _, info = venv.reset()
        for _ in range(20):  # warm-up
            _, _, _, _, info = venv.step(_random_legal(rng, info["action_mask"]))
        prof = cProfile.Profile()
        deadline = perf_counter() + seconds
        n = 0
        prof.enable()
        while perf_counter() < deadline:
            _, _, _, _, info = venv.step(_random_legal(rng, info["action_mask"]))
            n += 1
        prof.disable()
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(25)
        print(f"\n## cProfile: vector {name}, batch {batch}, {n} batch-steps (sorted by tottime)")
        print(out.getvalue())


if __name__ == "__main__":
    sys.exit(main())
