"""Train a Pepper baseline with MaskablePPO on the batched engine.

Stage 1 plays against the rule-based agent (it is the learner's partner and
both opponents); stage 2 is self-play against frozen snapshots of the
learner.  Training episodes are single hands (``max_hands=1``) rewarded with
the side's score change minus the other side's (``reward="score_delta"``
with the zero-sum ``reward_mode="relative"``): what wins a race to 30 is
scoring more than the opponents, not scoring much.  Evaluation plays full
games (to 30 points, at most 50 hands) with the trained agent on both seats
of one team.

    python examples/train_pepper.py                      # the defaults (a few minutes on 2 cores)
    python examples/train_pepper.py --minutes 3          # a short run (make demo)
    python examples/train_pepper.py --fixed-steps 1200000 --selfplay-steps 600000   # the committed baseline
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from cardenvs.agents.training import cli  # noqa: E402

if __name__ == "__main__":
    cli(
        "pepper_v0",
        __doc__,
        env_config={"max_hands": 1, "reward": "score_delta"},
        eval_config={},
        reward_mode="relative",
        gamma=1.0,
        steps_per_second=5500,  # learner steps per CPU-second with advice (benchmarks/training.py, 2026-12-01)
    )
