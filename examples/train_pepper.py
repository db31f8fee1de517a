"""Train a Pepper baseline with MaskablePPO on the batched engine.

The learner plays against the rule-based agent (it is the learner's partner
and both opponents); with ``--selfplay-steps`` a second stage plays against
frozen snapshots of the learner.  Training episodes are single hands (``max_hands=1``) rewarded with
the side's score change minus the other side's (``reward="score_delta"``
with the zero-sum ``reward_mode="relative"``): what wins a race to 30 is
scoring more than the opponents, not scoring much.  Evaluation plays full
games (to 30 points, at most 50 hands) with the trained agent on both seats
of one team.

    python examples/train_pepper.py                      # the defaults (a few minutes on 2 cores)
    python examples/train_pepper.py --minutes 3          # a short run (make demo)
    # the committed baseline (6M steps, about 4 CPU-minutes; the policy kept is the best on the selection seed):
    python examples/train_pepper.py --advice --fixed-steps 6000000 --select-every 500000 --select-games 300 --seed 31

The recipe is light on purpose: 256 games stepped at once, one PPO epoch
over batches of 4,096 and a 128x128 network make the update cheap, so the
loop runs at about 24,000 learner steps per CPU-second (the heavier
64-game, 4-epoch, 256x256 recipe ran at 6,800 and learned no better).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from cardenvs.training.cli import cli  # noqa: E402
from cardenvs.training.ppo import LIGHT_RECIPE  # noqa: E402

if __name__ == "__main__":
    cli(
        "pepper_v0",
        __doc__,
        env_config={"max_hands": 1, "reward": "score_delta"},
        eval_config={},
        reward_mode="relative",
        gamma=1.0,
        **LIGHT_RECIPE,
        fixed_steps=3_000_000,
        selfplay_steps=0,
        steps_per_second=24000,  # learner steps per CPU-second with advice, selection included (runs of 2026-12-01)
    )
