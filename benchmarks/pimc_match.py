"""PIMC against another agent (default config: 4-player Pepper, 6-player
Cancellation Hearts, Push), seats rotated, with the Wilson 95% interval and
the decision rate.

    python benchmarks/pimc_match.py --game pepper_v0 --games 1000 --seed 4242 --worlds 32 --rollout random
    python benchmarks/pimc_match.py --game cancellation_hearts_v0 --games 300 --seed 5151 --worlds 16 --rollout rule
    python benchmarks/pimc_match.py --game push_v0 --games 100 --seed 20261206 --worlds 8 --rollout rule
    python benchmarks/pimc_match.py --opponent ppo ...     # against the committed PPO baseline
    python benchmarks/pimc_match.py --game push_v0 --rate 256 --worlds 8 --rollout rule   # decisions/CPU-s only

``--rate B``: no match; B games are played ``--steps`` actions by the rule
agent (with the tracker), then one call decides every one of them; prints
the searched decisions per CPU-second next to the rule agent's decisions
per CPU-second on the same positions.

Seeds: tune on others; the published figures come from seeds used for nothing else.
``--json`` (alone: ``benchmarks/results/pimc_match.json``) writes the result
with the commit and the machine (``docs/results.md`` is generated from it).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import report  # benchmarks/report.py: --json

from cardenvs.agents.pimc import PIMCAgent, match_outcomes, tracked
from cardenvs.agents.policy import one_torch_thread
from cardenvs.agents.registry import make_agent
from cardenvs.evaluation.matches import MatchResult, seat_chance
from cardenvs.registry import rules_class


def decision_rate(game: str, agent: PIMCAgent, batch: int, steps: int, seed: int) -> dict:
    """Searched decisions per CPU-second in one call on ``batch`` positions
    reached by ``steps`` actions of rule play, and the rule agent's rate."""
    rules = rules_class(game)()
    state = rules.new_state(batch, np.random.default_rng(seed))
    rules.reset(state, np.arange(batch))
    known = {}
    tracking = tracked(game)
    if tracking is not None:
        known["tracker"] = tracking.Tracker(rules, batch)
    rule = make_agent(game, "rule")
    for _ in range(steps):
        live = np.flatnonzero(~state.done)
        actions = np.zeros(batch, np.int64)
        actions[live] = rule.act_batch(rules.observe(state, state.current[live], live), state.legal[live])
        if known:
            known["tracker"].step(rules, state, actions)
        else:
            rules.step(state, actions)
    rows = np.flatnonzero(~state.done)
    agent.act_states(rules, state, rows[:2], **known)  # compile first
    agent.searched = 0
    cpu = time.process_time()
    agent.act_states(rules, state, rows, **known)
    cpu = time.process_time() - cpu
    rule_cpu = time.process_time()
    rule.act_batch(rules.observe(state, state.current[rows], rows), state.legal[rows])
    rule_cpu = time.process_time() - rule_cpu
    print(
        f"{game}: {agent.name}, {len(rows)} positions after {steps} rule actions (seed {seed}): "
        f"{agent.searched} searched in {cpu:.2f} CPU-s = {agent.searched / cpu:,.0f} per CPU-second; "
        f"rule agent {len(rows) / rule_cpu:,.0f} decisions per CPU-second",
        flush=True,
    )
    return {
        "game": game,
        "agent": agent.name,
        "positions": len(rows),
        "searched_per_cpu_s": agent.searched / cpu,
        "rule_decisions_per_cpu_s": len(rows) / rule_cpu,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="pepper_v0", choices=["pepper_v0", "cancellation_hearts_v0", "push_v0"])
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=4242)
    p.add_argument("--worlds", type=int, default=32)
    p.add_argument(
        "--rollout", default="random", choices=["random", "rule", "ppo"], help="ppo: the committed baseline plays out"
    )
    p.add_argument("--opponent", default="rule", help="rule, random or ppo (the committed baseline)")
    p.add_argument("--rate", type=int, default=0, help="B: measure decisions per CPU-second on B positions, no match")
    p.add_argument("--steps", type=int, default=40, help="with --rate: rule actions played before the decisions")
    report.add_json_option(p, "pimc_match")
    args = p.parse_args()
    if args.json == report.default_path("pimc_match"):  # a file per match (or rate)
        run = f"{args.game}-rate" if args.rate else f"{args.game}-{args.rollout}-vs-{args.opponent}"
        args.json = report.default_path(f"pimc_match-{run}")
    one_torch_thread()  # (the PPO rollouts and opponents: small batches)
    rollout = make_agent(args.game, "ppo") if args.rollout == "ppo" else args.rollout
    agent = PIMCAgent(args.game, worlds=args.worlds, rollout=rollout, seed=args.seed)
    if args.rate:
        record = decision_rate(args.game, agent, args.rate, args.steps, args.seed)
        if args.json:
            report.write(args.json, "pimc_match", [record])
        return
    opponent = make_agent(args.game, args.opponent, seed=args.seed + 1)
    start, cpu = time.perf_counter(), time.process_time()
    outcomes = match_outcomes(args.game, agent, opponent, args.games, seed=args.seed)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    wins, ties, games = int((outcomes == 1).sum()), int((outcomes == 0.5).sum()), len(outcomes)
    # (a tie at the top counts half a win here; the rules rank tied seats together)
    result = MatchResult(
        agent.name,
        opponent.name,
        games,
        wins + ties / 2,
        ties,
        float("nan"),
        float("nan"),
        chance=seat_chance(agent.rules),
    )
    print(
        f"{args.game}: {result.verdict()} (ties count half: {wins} won, {ties} tied, {games - wins - ties} lost; "
        f"ties as wins {(wins + ties) / games:.1%}); seed {args.seed}, {seconds:.0f} s, "
        f"{agent.searched:,} searched decisions, {agent.searched / cpu:,.0f} per CPU-second (whole match)",
        flush=True,
    )
    if args.json:
        low, high = result.ci
        record = {
            "game": args.game,
            "agent": agent.name,
            "opponent": opponent.name,
            "seed": args.seed,
            "games": games,
            "won": wins,
            "tied": ties,
            "lost": games - wins - ties,
            "ties": "count half a win",
            "win_rate": result.win_rate,
            "ci95_low": low,
            "ci95_high": high,
            "chance": result.chance,
            "seconds": seconds,
            "searched_per_cpu_s": agent.searched / cpu,
        }
        report.write(args.json, "pimc_match", [record])


if __name__ == "__main__":
    main()
