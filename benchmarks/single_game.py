#!/usr/bin/env python
"""One game at a time: cardenvs next to the nearest OpenSpiel game, in ONE run.

Issue #16: one game at a time, every path a user takes should run at least
2x OpenSpiel's Python loop for the nearest game:

    Pepper v euchre, Cancellation Hearts v hearts, Push v gin_rummy, Spit v spades

For each game it measures random legal play with the observation every step
through our AEC env as users build it (``cardenvs.make(name)``: PettingZoo's
order-enforcing wrapper included), the unwrapped ``raw_env`` (for where the
time goes), Spit's parallel env (``spit_v0.parallel_env()``: ``step(dict)``),
the vector engine at batch 1, and the OpenSpiel game with the same loop shape
(legal actions + observation or information-state tensor every step +
apply_action + a new game at the end).  The loops are those of
``throughput.py`` (reused, not copied).  The machine is shared, so every
measurement is repeated in ``--rounds`` rounds, ours and the peer's
alternating, and the median is reported; the ratio is the median of the
per-round ratios (ours over the peer's of the same round).

A step is one player's decision.  Spit is simultaneous: a tick is one decision
of each of its 2 players (the AEC view steps once per player; the parallel
env and the vector engine count 2 per tick).

    python benchmarks/single_game.py                       # 3 rounds of 1 s per measurement
    python benchmarks/single_game.py --games pepper_v0 --rounds 5
    python benchmarks/single_game.py --cpu --json            # + benchmarks/results/single_game.json
    python benchmarks/single_game.py --profile pepper_v0   # cProfile of each path of a game
    python benchmarks/single_game.py --cpu                  # budgets and rates in process CPU time

``--cpu`` times every loop (ours and OpenSpiel's alike) by the process's CPU
time instead of the wall clock: on a loaded machine the wall clock also
counts the time other processes hold the core, which moves from round to
round; CPU time still varies with cache and frequency sharing, but less.
"""

from __future__ import annotations

import argparse
import datetime
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # throughput.py (it pins the process to one core)

import throughput as tp  # noqa: E402  (before numpy: it sets the thread counts)

perf_counter = tp.perf_counter

import numpy as np  # noqa: E402
import report  # noqa: E402  (benchmarks/report.py: --json)

from cardenvs.registry import GAMES  # noqa: E402

#: The nearest OpenSpiel game to each of ours (the issue's pairs).
PEERS = {
    "pepper_v0": "euchre",
    "cancellation_hearts_v0": "hearts",
    "push_v0": "gin_rummy",
    "spit_v0": "spades",
}
GOAL = 2.0  # x OpenSpiel


def measure_parallel(module, name: str, config: dict, seconds: float, warmup: float) -> tp.Result:
    """Random legal play through a simultaneous game's PettingZoo parallel env:
    every agent picks a random legal action from its mask, ``step(dict)``,
    a new game when it ends.  Counts one step per agent's decision."""
    env = module.parallel_env(**config)
    obs, _ = env.reset(seed=0)
    rnd = random.Random(0)
    holder = {"obs": obs}

    def run(budget: float) -> tuple[int, int, float]:
        obs = holder["obs"]
        steps = games = 0
        t0 = perf_counter()
        deadline = t0 + budget
        while True:
            actions = {}
            for agent, seen in obs.items():
                legal = np.flatnonzero(seen["action_mask"])
                actions[agent] = int(legal[rnd.randrange(len(legal))])
            obs, _, _, _, _ = env.step(actions)
            steps += len(actions)
            if not env.agents:
                games += 1
                obs, _ = env.reset()
            if perf_counter() >= deadline:
                break
        holder["obs"] = obs
        return steps, games, perf_counter() - t0

    run(warmup)
    steps, games, elapsed = run(seconds)
    return tp.Result("cardenvs parallel", name, 1, steps, games, elapsed)


def floor_env(num_agents: int, num_actions: int, obs_size: int, obs_dtype: np.dtype):
    """A PettingZoo AEC env with no rules at all, for the floor of the AEC
    loop: observing copies a preset observation and mask (as a real env hands
    out fresh arrays), stepping checks the action and passes the turn.  A
    game ends after 1,000 steps."""
    from pettingzoo import AECEnv

    class FloorEnv(AECEnv):
        metadata = {"name": "floor"}

        def __init__(self) -> None:
            self.possible_agents = [f"player_{i}" for i in range(num_agents)]
            self._obs = np.zeros(obs_size, obs_dtype)
            self._mask = np.zeros(num_actions, np.int8)
            self._mask[: max(1, num_actions // 4)] = 1

        def reset(self, seed=None, options=None) -> None:
            self.agents = self.possible_agents[:]
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
            self.terminations = dict.fromkeys(self.agents, False)
            self.truncations = dict.fromkeys(self.agents, False)
            self.infos = {a: {} for a in self.agents}
            self.agent_selection = self.agents[0]
            self._turn = 0

        def observe(self, agent):
            return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}

        def step(self, action) -> None:
            if self.terminations[self.agent_selection]:
                return self._was_dead_step(action)
            if not self._mask[action]:
                raise ValueError("illegal")
            self._turn += 1
            if self._turn >= 1000:
                self.terminations = dict.fromkeys(self.agents, True)
            else:
                self.agent_selection = self.possible_agents[self._turn % num_agents]

    return FloorEnv()


def measure_floor(name: str, config: dict, seconds: float, warmup: float) -> tp.Result:
    """The benchmark's AEC loop over :func:`floor_env` shaped like game
    ``name`` (agents, actions, observation): what any PettingZoo AEC env
    costs in this loop before it applies a rule."""
    import cardenvs

    raw = cardenvs.make(name, **config).unwrapped
    space = raw.observation_space(raw.possible_agents[0])["observation"]
    module = type(
        "FloorModule",
        (),
        {
            "raw_env": staticmethod(
                lambda **_: floor_env(
                    len(raw.possible_agents), raw.action_space(raw.possible_agents[0]).n, space.shape[0], space.dtype
                )
            )
        },
    )
    r = tp.measure_aec(module, name, {}, seconds, warmup, raw=True)
    r.engine = "AEC loop floor (no rules)"
    return r


def measure_vector1(name: str, config: dict, seconds: float, warmup: float) -> tp.Result:
    """The vector engine at batch 1, in the AEC paths' loop: each decision
    picks a random legal action from the mask the last step returned (the
    same pick as :func:`throughput.measure_aec`), steps, and checks the clock;
    a simultaneous game's step is one decision per player.  (throughput.py's
    batch loop, made for thousands of games, costs a few microseconds of
    numpy per step at batch 1: more than the AEC loop's pick.)"""
    import cardenvs.vector as V

    venv = V.make(name, num_envs=1, seed=0, **config)
    rnd = random.Random(0)
    _, info = venv.reset()
    players = venv.num_players
    simultaneous = GAMES[name].simultaneous
    state = {"info": info}

    def pick(mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[rnd.randrange(len(legal))])

    def run(budget: float) -> tuple[int, int, float]:
        info, steps, games = state["info"], 0, 0
        t0 = perf_counter()
        deadline = t0 + budget
        while True:
            mask = info["action_mask"][0]
            if simultaneous:
                actions = np.array([[pick(mask[p]) for p in range(players)]])
                steps += players
            else:
                actions = np.array([pick(mask)])
                steps += 1
            _, _, term, trunc, info = venv.step(actions)
            if term[0] or trunc[0]:
                games += 1
            if perf_counter() >= deadline:
                break
        state["info"] = info
        return steps, games, perf_counter() - t0

    run(warmup)
    steps, games, elapsed = run(seconds)
    return tp.Result("cardenvs vector b=1", name, 1, steps, games, elapsed)


def paths(name: str) -> list[tuple[str, Callable[[float, float], tp.Result]]]:
    """Our paths for game ``name``: (label, measure(seconds, warmup))."""
    module = tp.load_our_game(name)
    config = tp.OUR_GAMES.get(name, {"config": {}})["config"]
    if module is None:
        return []
    out = [
        ("AEC make()", lambda s, w: tp.measure_aec(module, name, config, s, w)),
        ("AEC raw_env()", lambda s, w: tp.measure_aec(module, name, config, s, w, raw=True)),
    ]
    if GAMES[name].simultaneous:
        out.append(("parallel_env()", lambda s, w: measure_parallel(module, name, config, s, w)))
    out.append(("vector batch 1", lambda s, w: measure_vector1(name, config, s, w)))
    out.append(("AEC loop floor (no rules)", lambda s, w: measure_floor(name, config, s, w)))
    return out


def run_rounds(games: list[str], rounds: int, seconds: float, warmup: float) -> list[dict]:
    """Every path of every game and its peer, ``rounds`` times, alternating,
    after an untimed warm-up of each of our paths (whole games: a game's
    later stages load or compile kernels of their own)."""
    for name in games:
        for _, measure in paths(name):
            measure(max(0.3, warmup), 0.1)
    tp.compiled_now()  # (the timed rounds measure the compiled engine)
    rows: dict[tuple[str, str], dict] = {}
    for k in range(rounds):
        for name in games:
            peer_name = PEERS.get(name)
            peer = tp.measure_openspiel(seconds, warmup, games=[peer_name]) if peer_name else []
            peer_rate = peer[0].steps_per_s if peer else None
            if peer:
                entry = rows.setdefault((name, "OpenSpiel"), {"game": name, "path": f"OpenSpiel {peer[0].game}"})
                entry.setdefault("rates", []).append(peer_rate)
            for label, measure in paths(name):
                r = measure(seconds, warmup)
                entry = rows.setdefault((name, label), {"game": name, "path": label})
                entry.setdefault("rates", []).append(r.steps_per_s)
                if peer_rate:
                    entry.setdefault("ratios", []).append(r.steps_per_s / peer_rate)
            done = ", ".join(f"{p} {statistics.median(e['rates']):,.0f}" for (g, p), e in rows.items() if g == name)
            print(f"  round {k + 1}/{rounds} {name}: {done}", flush=True)
    return list(rows.values())


def table(results: list[dict]) -> list[str]:
    head = f"{'game':24s} {'path':34s} {'steps/s':>9s} {'us/step':>8s} {'x OpenSpiel':>11s}  rounds (steps/s)"
    lines = [head, "-" * len(head)]
    for e in results:
        rate = statistics.median(e["rates"])
        ratio = statistics.median(e["ratios"]) if e.get("ratios") else None
        mark = "" if ratio is None else ("  ok" if ratio >= GOAL else f"  < {GOAL:g}x")
        each = " ".join(f"{x:,.0f}" for x in e["rates"])
        ratio_text = "-" if ratio is None else f"{ratio:.2f}{mark}"
        lines.append(f"{e['game']:24s} {e['path']:34s} {rate:9,.0f} {1e6 / rate:8.2f} {ratio_text:>11s}  {each}")
    return lines


def json_record(e: dict) -> dict:
    """A row of the table as ``--json`` writes it (medians over the rounds)."""
    return {
        "game": e["game"],
        "path": e["path"],
        "steps_per_s": statistics.median(e["rates"]),
        "x_openspiel": statistics.median(e["ratios"]) if e.get("ratios") else None,
    }


def profile(name: str, seconds: float) -> None:
    """cProfile of each of our paths of ``name`` (top functions by own time)."""
    import cProfile
    import io
    import pstats

    for label, measure in paths(name):
        measure(0.2, 0.1)  # compile and warm up outside the profile
        prof = cProfile.Profile()
        prof.enable()
        r = measure(seconds, 0.1)
        prof.disable()
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(20)
        print(f"\n## cProfile: {name} {label}, {r.steps} steps (profiled: slower than the figures above)")
        print(out.getvalue())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", default=",".join(PEERS), help=f"comma-separated games (default {','.join(PEERS)})")
    ap.add_argument("--seconds", type=float, default=1.0, help="timed budget per measurement (default 1)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of every measurement, alternating (default 3)")
    ap.add_argument("--append", default=None, help="append the results as a dated section of this file")
    ap.add_argument("--note", default=None, help="a line to add to the section's header")
    ap.add_argument("--cpu", action="store_true", help="time by process CPU time, not the wall clock (loaded machines)")
    ap.add_argument("--profile", default=None, metavar="GAME", help="cProfile each of our paths of GAME instead")
    report.add_json_option(ap, "single_game")
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.seconds <= 0:
        ap.error("--rounds must be >= 1 and --seconds > 0")
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = [g for g in games + ([args.profile] if args.profile else []) if g not in GAMES]
    if unknown:
        ap.error(f"unknown games {unknown}; available: {list(GAMES)}")
    warmup = min(1.0, max(0.1, 0.2 * args.seconds))
    if args.cpu:  # every loop reads the clock through these module globals
        global perf_counter
        perf_counter = tp.perf_counter = time.process_time
    if args.profile:
        profile(args.profile, args.seconds)
        return 0

    header = [
        "## One game at a time v OpenSpiel (benchmarks/single_game.py)",
        f"# date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
        f"# command: {report.command('benchmarks/single_game.py', sys.argv[1:])}",
        *(f"# {line}" for line in tp.machine_info()),
        f"# {tp.code_version()}",
        f"# {args.rounds} rounds of {args.seconds:g} s per measurement after {warmup:g} s warm-up, ours and OpenSpiel "
        "alternating; median steps/s; 'x OpenSpiel' = median of the per-round ratios (goal >= 2)",
        "# clock: " + ("process CPU time (--cpu): steps per CPU-second" if args.cpu else "wall clock"),
        "# a step = one player's decision: random legal action from the mask + step + the next observation "
        "(OpenSpiel: legal_actions + observation/information-state tensor + apply_action); Spit: 2 decisions a tick",
    ]
    if args.note:
        header.append(f"# {args.note}")
    for line in header:
        print(line)
    print(flush=True)
    results = run_rounds(games, args.rounds, args.seconds, warmup)
    lines = table(results)
    print()
    print("\n".join(lines))
    if args.append:
        with open(args.append, "a") as fh:
            fh.write("\n" + "\n".join(header) + "\n\n" + "\n".join(lines) + "\n")
        print(f"\nappended to {args.append}")
    if args.json:
        records = [json_record(e) for e in results]
        report.write(args.json, "single_game", records, clock="cpu" if args.cpu else "wall", rounds=args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
