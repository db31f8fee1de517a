"""Train a Cancellation Hearts baseline (6 players) with MaskablePPO on the
batched engine.

The learner plays against the rule-based agent (it ducks, and dumps Black
Maria and hearts when void) in every other seat; with ``--selfplay-steps`` a
second stage plays against frozen snapshots.  Training episodes are single hands (``max_hands=1``,
``reward="score_delta"``: minus the points taken) relative to the mean of
the other seats (``reward_mode="relative"``); evaluation plays whole games
to 150 points, the trained agent in one seat against five copies of the
opponent (a seat wins by chance 1 time in 6).

    python examples/train_cancellation_hearts.py            # the defaults (a few CPU-minutes)
    # the committed baseline (12M steps, 11 CPU-minutes; the policy kept is the best on the selection seed):
    python examples/train_cancellation_hearts.py --advice --fixed-steps 12000000 --select-every 1000000 \
        --select-games 300 --seed 35

The default recipe is Pepper's light one (256 games at once, one epoch over
batches of 4,096, a 128x128 network), at about 18,000 learner steps per
CPU-second.  The committed 12M-step run beat the rule agent in its own
evaluation (22.0% [17.7%, 27.0%] of 300 games, chance 16.7%) and is as
strong as the previous baseline (an earlier, heavier recipe whose CPU time
was never recorded): each in one seat against five copies of the other won
17.3% and 19.3% of 300 games (seed 7300).  A 4M-step run (4.6 CPU-minutes)
also beat the rule agent, 23.3% [18.9%, 28.4%].
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from cardenvs.training.cli import cli  # noqa: E402
from cardenvs.training.ppo import LIGHT_RECIPE  # noqa: E402

if __name__ == "__main__":
    cli(
        "cancellation_hearts_v0",
        __doc__,
        env_config={"num_players": 6, "max_hands": 1, "reward": "score_delta"},
        eval_config={"num_players": 6},
        name="hearts",
        reward_mode="relative",
        gamma=1.0,
        **LIGHT_RECIPE,
        fixed_steps=4_000_000,
        selfplay_steps=0,
        steps_per_second=18000,  # learner steps per CPU-second, advised, selection included (12M steps, 2026-12-01)
    )
