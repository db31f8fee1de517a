"""PIMC against another agent (default config: 4-player Pepper, 6-player
Cancellation Hearts), seats rotated, with the Wilson 95% interval and the
decision rate.

    python benchmarks/pimc_match.py --game pepper_v0 --games 1000 --seed 4242 --worlds 32 --rollout random
    python benchmarks/pimc_match.py --game cancellation_hearts_v0 --games 300 --seed 5151 --worlds 16 --rollout rule
    python benchmarks/pimc_match.py --opponent ppo ...     # against the committed PPO baseline

Seeds: tune on others; the README's figures come from seeds used for nothing else.
"""

from __future__ import annotations

import argparse
import time

from cardenvs.agents.evaluation import MatchResult, seat_chance
from cardenvs.agents.pimc import PIMCAgent, play_match
from cardenvs.agents.registry import make_agent


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="pepper_v0", choices=["pepper_v0", "cancellation_hearts_v0"])
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=4242)
    p.add_argument("--worlds", type=int, default=32)
    p.add_argument(
        "--rollout", default="random", choices=["random", "rule", "ppo"], help="ppo: the committed baseline plays out"
    )
    p.add_argument("--opponent", default="rule", help="rule, random or ppo (the committed baseline)")
    args = p.parse_args()
    rollout = make_agent(args.game, "ppo") if args.rollout == "ppo" else args.rollout
    agent = PIMCAgent(args.game, worlds=args.worlds, rollout=rollout, seed=args.seed)
    opponent = make_agent(args.game, args.opponent, seed=args.seed + 1)
    start, cpu = time.perf_counter(), time.process_time()
    wins, games = play_match(args.game, agent, opponent, args.games, seed=args.seed)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    result = MatchResult(
        agent.name, opponent.name, games, wins, 0, float("nan"), float("nan"), chance=seat_chance(agent.rules)
    )
    print(
        f"{args.game}: {result.verdict()}; seed {args.seed}, {seconds:.0f} s, "
        f"{agent.searched:,} searched decisions, {agent.searched / cpu:,.0f} per CPU-second (whole match)",
        flush=True,
    )


if __name__ == "__main__":
    main()
