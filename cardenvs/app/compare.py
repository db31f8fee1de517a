"""``cardenvs compare``: which training algorithm learns these games better, with intervals.

    cardenvs compare --algorithms ppo,dmc --games pepper,spit --seeds 5 --steps 500000 --out bench/ppo-dmc
    cardenvs compare --algorithms ppo,mypackage.algos:train --games hearts --seeds 3 --steps 200000 --out bench/mine

Every algorithm trains on every game with seeds 0 .. N-1 for the same
budget: --steps (engine steps x games, the default, 200000: the same
command replays) or --cpu-minutes.  Each result plays the rule agent in
duplicate deals of their own (seed 777000, never a training seed), alone
among rule agents in a free-for-all game, and is scored on points: its
margin over the rule agent, scaled so that random play scores 0 and the
rule agent 1; the trivial policies (always the lowest or the highest legal
action) are scored on the same deals as reference rows.  Every run says
how its games ended (won, lost, drawn, truncated).  Per game and per
algorithm: the IQM and the mean over seeds (and games), and per pair the
probability of improvement, with 95% stratified bootstrap intervals
(rliable, seeded).  Writes DIR/compare.json, the performance profiles
(DIR/profiles.png) and the sample-efficiency curves (DIR/curves.png).  An
algorithm is ppo, ppo-state, ppo-pop, dmc, exit, exit-search (the
project's learners, from the repository checkout; exit-search is scored
with the search that make_agent(game, "scratch") plays, in Pepper and
Spit) or package.module:function, a function
train(game, seed, budget, run_dir) -> Agent (importable, or a module in the
current folder).  The same command on the same --out resumes an interrupted
comparison (finished runs are not retrained); a different setting, or an
algorithm whose code changed, is refused.  Bad input gets one line and
exit code 2, and nothing is imported or written (docs/benchmark.md).
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
    sp.add_argument(
        "--algorithms",
        required=True,
        help="comma-separated: ppo, ppo-state, ppo-pop, dmc, exit, exit-search, package.module:function",
    )
    sp.add_argument("--games", required=True, help="comma-separated: pepper, hearts, push, spit (or registry names)")
    sp.add_argument("--seeds", type=int, required=True, help="training seeds per algorithm and game: 0 .. N-1")
    budget = sp.add_mutually_exclusive_group()
    budget.add_argument("--steps", type=int, default=None, help="each run's budget: engine steps x games (200000)")
    budget.add_argument("--cpu-minutes", type=float, default=None, help="each run's budget in CPU-minutes instead")
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
    from ..agents.specs import split_specs
    from ..evaluation.comparison import TrainingError, compare

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        games = _games(args.games)
        doc = compare(
            split_specs(args.algorithms), games, args.seeds, args.out, args.steps, args.cpu_minutes,
            args.deals, args.batch, args.reps, args.curve_points, say,
        )  # fmt: skip
    except ValueError as e:  # (CompareError, an unknown game)
        return _fail(" ".join(str(e).split()))
    except TrainingError as e:
        return _fail(f"{e}; the finished runs are kept in {args.out}", 1)
    except KeyboardInterrupt:
        return _fail(f"interrupted: the finished runs are kept in {args.out}; the same command goes on", 130)
    from ..evaluation.compare_stats import table_text

    print(table_text(doc))
    print("over every game:")
    for spec, agg in doc["aggregates"].items():
        iqm, mean = ("{:+.3f} [{:+.3f}, {:+.3f}]".format(*agg[key]) for key in ("iqm", "mean"))
        print(f"  {spec}: IQM {iqm}  mean {mean}  (95% intervals)")
    truncated = [r for r in doc["runs"] if r["ends"]["truncated"] > 0.01 * sum(r["ends"].values())]
    for run in truncated:
        print(f"FLAGGED: {run['algorithm']} on {run['game']}, seed {run['seed']}: over 1% of its games truncated")
    for timing in doc["timing"]:
        if timing["over_budget"]:
            print(f"FLAGGED: {timing['algorithm']} on {timing['game']}, seed {timing['seed']}: past its CPU budget")
    for pair in doc["improvement"]:
        p = pair["probability"]
        print(f"P({pair['a']} > {pair['b']}) = {p[0]:.2f} [{p[1]:.2f}, {p[2]:.2f}]")
    print(f"wrote {args.out}/compare.json" + "".join(f", {args.out}/{p}" for p in doc["plots"] if "skipped" not in p))
    return 0


def _fail(message: str, code: int = 2) -> int:
    sys.stderr.write(f"cardenvs compare: {message}\n")
    return code
