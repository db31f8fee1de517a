"""One agent alone among strangers: how a learned agent fares as one player
among rule agents, measured as an outsider measures it.

    python benchmarks/learning/outsider.py --game spit_v0 --agents scratch --games 400 --json
    python benchmarks/learning/outsider.py --game cancellation_hearts_v0 --agents scratch,lowest --games 300

For each agent: ``match`` (cardenvs.evaluation.matches) against the game's
rule agent, seats rotated game by game -- in Cancellation Hearts and
3-player Pepper the agent holds one seat and rule agents every other (never
a copy of itself at the table), in the two-sided games its seat or its side
against the rule agent's -- on deal seeds never used for training or
selection (``--seed``, default 9,100,000).  Reported: the win rate with its
Wilson 95% interval against chance, how the games ended (won, lost, drawn,
truncated; over 1% truncated is flagged), the mean scores, and beside every
result the trivial policy ``lowest`` (always the lowest legal action) on the
same deals: a result that it matches is not a result.  ``--json`` writes
``benchmarks/results/outsider-GAME.json`` (the results page's "alone among strangers").
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

import report  # noqa: E402

from cardenvs.agents.specs import agent_factory, split_specs  # noqa: E402
from cardenvs.core.cpu import CpuClock  # noqa: E402
from cardenvs.evaluation.matches import match  # noqa: E402

#: the table each game is measured at (the learners' short games are for training only)
CONFIG = {"pepper_v0": {"num_players": 4}, "cancellation_hearts_v0": {"num_players": 6}}
RESULTS = ROOT / "benchmarks" / "results"


def measure(game: str, spec: str, games: int, seed: int, config: dict) -> dict:
    """``spec`` alone among rule agents: the match's numbers and verdict."""
    clock = CpuClock()
    agent = agent_factory(game, spec, config)(0)
    rule = agent_factory(game, "rule", config)(1)
    result = match(game, agent, rule, num_games=games, seed=seed, **config)
    low, high = result.ci
    return {
        "game": game,
        "agent": spec,
        "games": games,
        "win_rate": round(result.win_rate, 4),
        "ci95_low": round(low, 4),
        "ci95_high": round(high, 4),
        "chance": round(result.chance, 4),
        "above_chance": low > result.chance,
        "ends": {"won": result.wins, "lost": result.losses, "drawn": result.draws, "truncated": result.truncated},
        "ended": result.ends_text(),
        "truncated_flag": result.truncated_share > 0.01,
        "mean_score": round(result.mean_score, 3),
        "mean_opponent_score": round(result.mean_opponent_score, 3),
        "verdict": result.verdict(),
        "cpu_minutes": round(clock.seconds() / 60, 2),
    }


def main(argv: list[str] | None = None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", required=True)
    p.add_argument("--agents", default="scratch", help="agent specs (the trivial policy lowest is always added)")
    p.add_argument("--games", type=int, default=400, help="games per agent (seats rotated)")
    p.add_argument("--seed", type=int, default=9_100_000, help="deal seeds never used in training or selection")
    p.add_argument("--json", action="store_true", help="write benchmarks/results/outsider-GAME.json")
    args = p.parse_args(argv)
    if args.games < 1:
        p.error(f"--games must be at least 1, got {args.games}")
    config = CONFIG.get(args.game, {})
    specs = [s for s in split_specs(args.agents) if s != "lowest"] + ["lowest"]
    print(f"outsider: {args.game} {json.dumps(config)}, {args.games} games an agent against the rule agent, "
          f"deal seed {args.seed}", file=sys.stderr, flush=True)  # fmt: skip
    start, rows, info = time.time(), [], report.machine()  # (the commit and machine as the run starts)
    for spec in specs:
        rows.append(measure(args.game, spec, args.games, args.seed, config))
        print(json.dumps(rows[-1]), flush=True)
    if args.json:
        settings = {"game": args.game, "config": config, "games": args.games, "seed": args.seed}
        report.write(RESULTS / f"outsider-{args.game}.json", "outsider", rows, info, "benchmarks/learning/outsider.py",
                     settings=settings, wall_seconds=round(time.time() - start, 1))  # fmt: skip
    return rows


if __name__ == "__main__":
    main()
