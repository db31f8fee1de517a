#!/usr/bin/env python
"""How fast a new game starts: the template game next to Pepper, in one run.

    python benchmarks/template_speed.py --json            # benchmarks/results/template_speed.json
    python benchmarks/template_speed.py --games mygame_v0 --rounds 7

A game made by ``cardenvs new-game`` is the template's code under another
name until its rules change (docs/adding-a-game.md, "A fast game", says
what keeps it fast as they do); ``--games`` measures yours.  Random legal
play through the vector engine at ``--batch`` games (default 1,024), with
``benchmarks/throughput.py``'s random policy, on one core, timed by the
process's CPU time (the steadier figure on a shared machine).  Each game and
the reference (``--reference``, Pepper) are measured in turn, ``--rounds``
rounds of ``--seconds`` each.  First each batch is *staggered*: a random
half of its rows is stepped, ``--stagger`` times, so its games are at
different points; games of one length, as the template's are, would
otherwise stay in step, every row in the same phase, which the games of a
real game (hands of varying length, players knocked out) never are.

Reported per game: steps per CPU second of the whole loop (policy
included) and of ``venv.step`` alone, the medians over the rounds, and the
ratio to the reference, the median of the per-round ratios.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import report  # noqa: E402  (benchmarks/report.py: --json)
from throughput import _random_legal, code_version, machine_info, pin_one_core  # noqa: E402

import cardenvs.vector as V  # noqa: E402
from cardenvs.core.jit import wait_compiled  # noqa: E402


class Player:
    """A batch of one game played by the random policy, staggered once."""

    def __init__(self, game: str, batch: int, stagger: int, seed: int = 0):
        self.game = game
        self.venv = V.make(game, num_envs=batch, seed=seed)
        self.rng = np.random.default_rng(seed)
        self.info = self.venv.reset()[1]
        for _ in range(stagger):
            half = self.rng.random(batch) < 0.5
            self.info = self.venv.step(_random_legal(self.rng, self.info["action_mask"]), rows=half)[-1]

    def play(self, seconds: float) -> tuple[float, float]:
        """Steps per CPU second of the whole loop and of ``venv.step`` alone, over ``seconds`` of CPU time."""
        clock, venv, batch = time.process_time, self.venv, self.venv.num_envs
        steps, in_step, start = 0, 0.0, clock()
        while True:
            actions = _random_legal(self.rng, self.info["action_mask"])
            before = clock()
            self.info = venv.step(actions)[-1]
            after = clock()
            in_step += after - before
            steps += batch
            if after - start >= seconds:
                return steps / (after - start), steps / in_step


def measure(games: list[str], batch: int, rounds: int, seconds: float, stagger: int) -> dict[str, list]:
    """Every game's (whole loop, engine) steps per CPU second, round by round, the games in turn."""
    players = [Player(game, batch, stagger) for game in games]
    for player in players:  # (compiled, warm)
        player.play(min(0.5, seconds))
    wait_compiled()
    for player in players:
        player.play(min(0.5, seconds))
    found: dict[str, list] = {game: [] for game in games}
    for k in range(rounds):
        for player in players if k % 2 == 0 else players[::-1]:
            found[player.game].append(player.play(seconds))
    return found


def summary(found: dict[str, list], reference: str, batch: int, stagger: int) -> list[dict[str, Any]]:
    """One record per game: medians over the rounds and the median per-round ratios to ``reference``."""
    records = []
    for game, runs in found.items():
        whole, engine = ([run[i] for run in runs] for i in (0, 1))
        ratios = [run[0] / ref[0] for run, ref in zip(runs, found[reference])]
        engine_ratios = [run[1] / ref[1] for run, ref in zip(runs, found[reference])]
        records.append(
            {
                "engine": "cardenvs vector",
                "game": game,
                "batch": batch,
                "stagger": stagger,
                "rounds": len(runs),
                "steps_per_cpu_s": statistics.median(whole),
                "engine_steps_per_cpu_s": statistics.median(engine),
                "x_reference": statistics.median(ratios),
                "engine_x_reference": statistics.median(engine_ratios),
                "reference": reference,
            }
        )
    return records


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default="high_card_v0", help="comma-separated games to measure (default the template)")
    ap.add_argument("--reference", default="pepper_v0", help="the game they are measured against (default Pepper)")
    ap.add_argument("--batch", type=int, default=1024, help="games in the batch (default 1,024)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds, each game measured once a round (default 5)")
    ap.add_argument("--seconds", type=float, default=2.0, help="CPU seconds a measurement (default 2)")
    ap.add_argument("--stagger", type=int, default=24, help="steps of a random half of the rows first (default 24)")
    report.add_json_option(ap, "template_speed")
    args = ap.parse_args(argv)
    pin_one_core()
    games = [args.reference] + [g.strip() for g in args.games.split(",") if g.strip() and g.strip() != args.reference]
    info = report.machine()
    print(f"# {code_version()}")
    for line in machine_info():
        print(f"# {line}")
    found = measure(games, args.batch, args.rounds, args.seconds, args.stagger)
    records = summary(found, args.reference, args.batch, args.stagger)
    print(f"\n{'game':24} {'steps/CPU-s':>14} {'engine':>14} {'x ' + args.reference:>14} {'engine x':>10}")
    for r in records:
        print(
            f"{r['game']:24} {r['steps_per_cpu_s']:14,.0f} {r['engine_steps_per_cpu_s']:14,.0f} "
            f"{r['x_reference']:13.2f}x {r['engine_x_reference']:9.2f}x"
        )
    if args.json:
        report.write(args.json, "template_speed", records, info=info, seconds=args.seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
