"""Train a Spit (or Speed) baseline with MaskablePPO on the batched engine.

Stage 1 plays against the rule-based agent (it plays at once, exposes hidden
cards and slaps the smaller pile); stage 2 is self-play against frozen
snapshots.  Training episodes use ``reward="cards_shed"`` (+1/52 per card
shed, on top of +-1 for the game) and ``max_ticks=600``; evaluation plays
whole games (default options, truncated after 5000 ticks).

    python examples/train_spit.py                          # the defaults (~10 min on 2 cores)
    python examples/train_spit.py --variant speed
    python examples/train_spit.py --fixed-steps 3000000 --selfplay-steps 1000000   # the full run
"""
from __future__ import annotations

import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from agents.spit import SpitRuleAgent  # noqa: E402
from agents.training import TrainConfig, train  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variant", choices=("spit", "speed"), default="spit")
    p.add_argument("--fixed-steps", type=int, default=600_000)
    p.add_argument("--selfplay-steps", type=int, default=200_000)
    p.add_argument("--opponent", choices=("rule", "random"), default="rule")
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--eval-games", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--run-dir", default=None)
    p.add_argument("--save", default=None, help="where to write the final model ('' = only in the run dir)")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args()
    name = "spit" if args.variant == "spit" else "speed"
    cfg = TrainConfig(game="spit_v0", env_config={"variant": args.variant, "reward": "cards_shed", "max_ticks": 600},
                      eval_config={"variant": args.variant}, fixed_steps=args.fixed_steps,
                      selfplay_steps=args.selfplay_steps, num_envs=args.num_envs, eval_games=args.eval_games,
                      seed=args.seed, reward_mode="relative")
    save = args.save if args.save is not None else f"agents/checkpoints/{name}_ppo.zip"
    train(cfg, SpitRuleAgent(variant=args.variant), args.run_dir or f"runs/{name}", save or None,
          opponent=args.opponent, progress_bar=not args.no_progress)


if __name__ == "__main__":
    main()
