"""A batch of random Pepper games through the vector engine, with games/s,
average scores and who won.

    python examples/random_games.py [--num-envs 1024] [--games 2000] [--num-players 4] [--max-hands 50]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import cardenvs.vector as V


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--num-envs", type=int, default=1024)
    p.add_argument("--games", type=int, default=2000, help="finished games to collect")
    p.add_argument("--num-players", type=int, default=4, choices=(2, 3, 4))
    p.add_argument("--max-hands", type=int, default=50)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    venv = V.make(
        "pepper_v0", num_envs=args.num_envs, seed=args.seed, num_players=args.num_players, max_hands=args.max_hands
    )
    rng = np.random.default_rng(args.seed)
    obs, info = venv.reset()
    n = args.num_players
    wins = np.zeros(n)
    final_scores = []
    games = steps = 0
    t0 = time.perf_counter()
    while games < args.games:
        mask = info["action_mask"]
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)  # a random legal action per game
        obs, rewards, terminated, truncated, info = venv.step(actions)
        steps += args.num_envs
        for i in np.flatnonzero(terminated):
            games += 1
            wins += rewards[i] > 0
            final_scores.append(info["final_scores"][i])
    dt = time.perf_counter() - t0
    scores = np.array(final_scores)
    print(f"Pepper, {n} players, {args.num_envs} games in parallel, random legal play")
    print(f"{games} games, {steps:,} steps in {dt:.1f}s: {games / dt:,.0f} games/s, {steps / dt:,.0f} steps/s")
    print(f"average final score per seat: {np.round(scores.mean(axis=0), 1).tolist()}")
    print(
        f"games reaching the target score: {np.mean(scores.max(axis=1) >= 30):.1%} "
        f"(the rest stopped at max_hands={args.max_hands})"
    )
    for s in range(n):
        print(f"  player_{s}: won {wins[s] / games:.1%} of games")


if __name__ == "__main__":
    main()
