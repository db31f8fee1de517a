"""Train a Pepper baseline with MaskablePPO on the batched engine.

Stage 1 plays against the rule-based agent (it is the learner's partner and
both opponents); stage 2 is self-play against frozen snapshots of the
learner.  Training episodes are single hands (``max_hands=1``) rewarded with
the side's score change minus the other side's (``reward="score_delta"``
with the zero-sum ``reward_mode="relative"``): what wins a race to 30 is
scoring more than the opponents, not scoring much.  Evaluation plays full
games (to 30 points, at most 50 hands) with the trained agent on both seats
of one team.

    python examples/train_pepper.py                      # the defaults (~10 min on 2 cores)
    python examples/train_pepper.py --minutes 3          # a short run (make demo)
    python examples/train_pepper.py --fixed-steps 2000000 --selfplay-steps 1000000   # the full run
"""
from __future__ import annotations

import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from agents.pepper import PepperRuleAgent  # noqa: E402
from agents.training import TrainConfig, train  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fixed-steps", type=int, default=600_000)
    p.add_argument("--selfplay-steps", type=int, default=200_000)
    p.add_argument("--minutes", type=float, default=None,
                   help="scale the steps to about this many minutes (measured ~2,000 steps/s on 2 cores)")
    p.add_argument("--opponent", choices=("rule", "random"), default="rule")
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--eval-games", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--run-dir", default="runs/pepper")
    p.add_argument("--save", default="agents/checkpoints/pepper_ppo.zip",
                   help="where to write the final model ('' = only in --run-dir)")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args()

    fixed, selfplay = args.fixed_steps, args.selfplay_steps
    if args.minutes is not None:
        total = int(args.minutes * 60 * 2000)
        fixed, selfplay = int(total * 0.75), total - int(total * 0.75)
    cfg = TrainConfig(game="pepper_v0", env_config={"max_hands": 1, "reward": "score_delta"},
                      eval_config={}, fixed_steps=fixed, selfplay_steps=selfplay, num_envs=args.num_envs,
                      reward_mode="relative", gamma=1.0,
                      eval_games=args.eval_games, seed=args.seed)
    train(cfg, PepperRuleAgent(), args.run_dir, args.save or None, opponent=args.opponent,
          progress_bar=not args.no_progress)


if __name__ == "__main__":
    main()
