"""``cardenvs compare``: which training algorithm learns these games better, with intervals.

    cardenvs compare --algorithms ppo,dmc --games pepper,spit --seeds 5 --cpu-minutes 10 --out bench/ppo-dmc
    cardenvs compare --algorithms ppo,mypackage.algos:train --games hearts --seeds 3 --cpu-minutes 5 --out bench/mine

Every algorithm trains on every game with seeds 0 .. N-1 for the same
CPU budget; each result plays duplicate deals against a fixed pool (random,
rule, the PPO baseline ppo) on deals of their own (seed 777000, never a
training seed) and is rated with the pool: its score is its rating over the
rule agent's (random 0, rule 1).  Per algorithm: the IQM and the mean over
games and seeds, and per pair the probability of improvement, with 95%
stratified bootstrap intervals (rliable).  Writes DIR/compare.json, the
performance profiles (DIR/profiles.png) and the sample-efficiency curves
(DIR/curves_cpu.png, DIR/curves_steps.png).  An algorithm is ppo,
ppo-state, dmc (the project's learners, from the repository checkout) or
package.module:function, a function train(game, seed, cpu_minutes,
run_dir) -> Agent.  The same command on the same --out resumes an
interrupted comparison (finished runs are not retrained); a different
setting is refused.  Bad input (an unknown algorithm or game, --seeds 0, a
budget that is not positive, an --out that cannot be written) gets one line
and exit code 2, and nothing is written (docs/benchmark.md).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(sub: Any) -> None:
    """Register ``compare`` on the ``cardenvs`` subcommands."""
    sp = sub.add_parser(
        "compare",
        help="benchmark training algorithms on games: scores against a fixed pool, with intervals",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sp.add_argument("--algorithms", required=True, help="comma-separated: ppo, ppo-state, dmc, package.module:function")
    sp.add_argument("--games", required=True, help="comma-separated: pepper, hearts, push, spit (or registry names)")
    sp.add_argument("--seeds", type=int, required=True, help="training seeds per algorithm and game: 0 .. N-1")
    sp.add_argument("--cpu-minutes", type=float, required=True, help="each run's training budget in CPU-minutes")
    sp.add_argument("--out", required=True, help="the results folder (new, empty, or a comparison to resume)")
    sp.add_argument("--deals", type=int, default=100, help="duplicate deals per match against the pool (default 100)")
    sp.add_argument("--batch", type=int, default=64, help="deals played at once (part of what keys the deals)")
    sp.add_argument("--reps", type=int, default=2000, help="bootstrap resamples of the intervals (default 2000)")
    sp.add_argument("--curve-points", type=int, default=8, help="snapshots rated per run for the curves (default 8)")
    sp.set_defaults(func=cmd_compare)


def _games(text: str) -> list[str]:
    """Registry names of ``--games`` (aliases as the other commands take
    them); a game that needs options of its own (speed) is refused: runs use
    each game's default options."""
    from .play import resolve_game

    games = []
    for name in filter(None, (part.strip() for part in text.split(","))):
        game, extra = resolve_game(name)
        if extra:
            raise ValueError(f"--games: {name} is {game} with options {extra}; compare plays default options")
        games.append(game)
    return games


def cmd_compare(args: argparse.Namespace) -> int:
    """Run the comparison; print where its results are. 2: bad input, 1: an algorithm failed, 130: interrupted."""
    from ..agents.compare import TrainingError, compare
    from ..agents.specs import split_specs

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        games = _games(args.games)
        doc = compare(
            split_specs(args.algorithms), games, args.seeds, args.cpu_minutes, args.out,
            args.deals, args.batch, args.reps, args.curve_points, say,
        )  # fmt: skip
    except ValueError as e:  # (CompareError, an unknown game)
        return _fail(" ".join(str(e).split()))
    except TrainingError as e:
        return _fail(f"{e}; the finished runs are kept in {args.out}", 1)
    except KeyboardInterrupt:
        return _fail(f"interrupted: the finished runs are kept in {args.out}; the same command goes on", 130)
    for spec, agg in doc["aggregates"].items():
        iqm, mean = ("{:+.3f} [{:+.3f}, {:+.3f}]".format(*agg[key]) for key in ("iqm", "mean"))
        print(f"{spec}: IQM {iqm}  mean {mean}  (rule-normalised; 95% intervals)")
    for pair in doc["improvement"]:
        p = pair["probability"]
        print(f"P({pair['a']} > {pair['b']}) = {p[0]:.2f} [{p[1]:.2f}, {p[2]:.2f}]")
    print(f"wrote {args.out}/compare.json" + "".join(f", {args.out}/{p}" for p in doc["plots"] if "skipped" not in p))
    return 0


def _fail(message: str, code: int = 2) -> int:
    sys.stderr.write(f"cardenvs compare: {message}\n")
    return code
