"""Evaluate agents: a tournament (every agent against every other, seats
rotated), win rates with 95% confidence intervals and mean scores.

    python examples/evaluate.py --game pepper_v0 --agents random rule ppo --games 300
    python examples/evaluate.py --all --write-docs        # every game's baselines, results into docs/agents.md
    python examples/evaluate.py --all --rows ppo --json   # + benchmarks/results/evaluation.json (docs/results.md)

Agents: ``random``, ``rule`` (the game's rule-based agent), ``ppo`` (the
committed checkpoint under agents/checkpoints/) or ``ppo:PATH``.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

import report  # noqa: E402  (benchmarks/report.py: --json)

from cardenvs.agents.policy import one_torch_thread  # noqa: E402
from cardenvs.agents.registry import BASELINES, RULE_AGENTS, make_agent  # noqa: E402
from cardenvs.evaluation.matches import MatchResult, format_table, tournament  # noqa: E402


def evaluate(
    game: str, specs: list[str], games: int, seed: int, config: dict, rows: list[str] | None = None
) -> tuple[str, list[dict]]:
    """The tournament's section of the docs, and its matches as records (``--json``)."""
    agents = [make_agent(game, s, seed=seed + i, **config) for i, s in enumerate(specs)]
    t0 = time.perf_counter()
    table = tournament(game, agents, games, seed=seed, rows=rows, **config)
    text = format_table(agents, table)
    records = [record(game, r) for row in table for r in row if r is not None]
    details = [str(r) for row in table for r in row if r is not None]
    verdicts = [r.verdict() for row in table for r in row if r is not None and r.agent == "ppo"]
    cfg = ", ".join(f"{k}={v!r}" for k, v in config.items()) or "default config"
    section = (
        f"**{game}** ({cfg}; {games} games per pairing, seats rotated, seed {seed}; "
        f"{time.perf_counter() - t0:.0f}s)\n\n{text}\n\n"
        + "".join(f"**{v}**\n\n" for v in verdicts)
        + "\n".join(f"- {d}" for d in details)
        + "\n"
    )
    return section, records


def record(game: str, result: MatchResult) -> dict:
    """A match as the results page shows it (benchmarks/results/evaluation.json)."""
    low, high = result.ci
    return {
        "game": game,
        "agent": result.agent,
        "opponent": result.opponent,
        "games": result.games,
        "win_rate": result.win_rate,
        "ci95_low": low,
        "ci95_high": high,
        "chance": result.chance,
        "mean_score": result.mean_score,
        "mean_opponent_score": result.mean_opponent_score,
    }


INTRO = """Produced by `{command}` with the committed checkpoints
(`agents/checkpoints/`) on seeds never used in training or model selection
(training used seeds below 100, its own evaluation seed + 7, and model
selection seeds 5000-5200: each `summary.json` records its own): full games with default options, seats rotated; the
win rate of the row agent against the column agent, with Wilson 95%
intervals, and whether it beats it (the interval above chance). A game
the row agent's seat ties at the top counts as a win (the rules rank tied
seats together; `evaluation.match`'s draws count the games everyone tied),
so a tie-heavy pairing reads higher than a strict win rate. In Pepper
and Push one agent plays a whole team; in Cancellation Hearts the row agent
holds one seat against five copies of the column agent (chance: 1 in 6),
so its mean score next to the opponents' mean says more. `ppo` is the
rule-advised MaskablePPO baseline (`cardenvs/agents/advice.py`), played
greedily; Spit's is advised by a teacher stronger than the `rule` it is
measured against, the rule agent with `deny=True` (see
`examples/train_spit.py`). Training: `examples/train_<game>.py` (summaries, and learning
curves where the run drew one, beside the checkpoints).
"""


def write_docs(section: str) -> None:
    """The results section of docs/agents.md (between its markers), rewritten."""
    command = "python " + " ".join(["examples/evaluate.py", *sys.argv[1:]])
    section = INTRO.format(command=command) + "\n" + section
    readme = ROOT / "docs" / "agents.md"
    text = readme.read_text()
    start, end = "<!-- results:start -->", "<!-- results:end -->"
    block = f"{start}\n{section}\n{end}"
    if start in text:
        text = re.sub(re.escape(start) + ".*?" + re.escape(end), lambda m: block, text, flags=re.S)
    else:
        text += f"\n## Baseline results\n\n{block}\n"
    readme.write_text(text)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="pepper_v0")
    p.add_argument("--all", action="store_true", help="every game with a rule agent, with its baselines")
    p.add_argument("--agents", nargs="+", default=["random", "rule", "ppo"])
    p.add_argument("--games", type=int, default=300)
    p.add_argument("--games-for", default="", help="per-game overrides with --all, e.g. 'spit_v0=40,push_v0=30'")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rows", nargs="+", default=None, help="only these agents' matches, e.g. --rows ppo")
    p.add_argument("--config", default="{}", help="game options as JSON, e.g. '{\"num_players\": 3}'")
    p.add_argument(
        "--write-docs",
        "--write-readme",
        action="store_true",
        help="rewrite docs/agents.md's results",
    )
    report.add_json_option(p, "evaluation")
    args = p.parse_args()
    one_torch_thread()
    config = json.loads(args.config)
    games = sorted(RULE_AGENTS) if args.all else [args.game]
    counts = {k: int(v) for k, v in (x.split("=") for x in args.games_for.split(",") if x)}
    sections, records = [], []
    info = report.machine()
    for game in games:
        specs = [s for s in args.agents if s != "ppo" or BASELINES.get(game, pathlib.Path("-")).exists()]
        section, matches = evaluate(game, specs, counts.get(game, args.games), args.seed, config, args.rows)
        print(section)
        sections.append(section)
        records += matches
    if args.write_docs:
        write_docs("\n".join(sections))
    if args.json:
        report.write(args.json, "evaluation", records, info, script="examples/evaluate.py", seed=args.seed)


if __name__ == "__main__":
    main()
