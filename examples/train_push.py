"""Train a Push baseline with MaskablePPO on the batched engine.

Stage 1 plays against the rule-based agent (take useful discards else push,
meld greedily, discard high penalties) as partner and opponents; stage 2 is
self-play against frozen snapshots.  Training episodes are single rounds
(``rounds=[1]``) rewarded with minus the team's penalty points
(``reward="score_delta"``) relative to the other team's; evaluation plays
the five rounds.  Push is the slowest engine (large observation and action
space), so expect a few hundred learner steps per second.

    python examples/train_push.py --minutes 20
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from cardenvs.agents.training import cli  # noqa: E402

if __name__ == "__main__":
    cli(
        "push_v0",
        __doc__,
        env_config={"rounds": [1], "reward": "score_delta"},
        eval_config={},
        reward_mode="relative",
        gamma=1.0,
        net_arch=(128, 128),  # the input is 4,961 + 2,371 advice columns: 256 wide saves a 16 MB checkpoint
        steps_per_second=500,  # learner steps per CPU-second with advice (runs of 2026-12-01)
        fixed_steps=200_000,
        selfplay_steps=50_000,
    )
