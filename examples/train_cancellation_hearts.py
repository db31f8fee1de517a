"""Train a Cancellation Hearts baseline (6 players) with MaskablePPO on the
batched engine.

Stage 1 plays against the rule-based agent (it ducks, and dumps Black Maria
and hearts when void) in every other seat; stage 2 is self-play against
frozen snapshots.  Training episodes are single hands (``max_hands=1``,
``reward="score_delta"``: minus the points taken) relative to the mean of
the other seats (``reward_mode="relative"``); evaluation plays whole games
to 150 points, the trained agent in one seat against five copies of the
opponent (a seat wins by chance 1 time in 6).

    python examples/train_cancellation_hearts.py            # the defaults (~10 min on 2 cores)
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from cardenvs.agents.training import cli  # noqa: E402

if __name__ == "__main__":
    cli(
        "cancellation_hearts_v0",
        __doc__,
        env_config={"num_players": 6, "max_hands": 1, "reward": "score_delta"},
        eval_config={"num_players": 6},
        name="hearts",
        reward_mode="relative",
        gamma=1.0,
        steps_per_second=800,
    )
