"""Train a Spit (or Speed) baseline with MaskablePPO on the batched engine.

Stage 1 plays against the rule-based agent (it plays at once, exposes hidden
cards and slaps the smaller pile); stage 2 is self-play against frozen
snapshots.  Training episodes use ``reward="cards_shed"`` (+1/52 per card
shed, on top of +-1 for the game) minus the opponent's
(``reward_mode="relative"``) and ``max_ticks=600``; evaluation plays whole
games (default options: truncated, a draw, after 5000 ticks).

    python examples/train_spit.py                          # the defaults (a few minutes on 2 cores)
    python examples/train_spit.py --variant speed          # saves agents/checkpoints/speed_ppo.zip
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from cardenvs.agents.training import cli  # noqa: E402

if __name__ == "__main__":
    cli(
        "spit_v0",
        __doc__,
        env_config={"reward": "cards_shed", "max_ticks": 600},
        eval_config={},
        variants={"spit": ({}, {}), "speed": ({"variant": "speed"}, {"variant": "speed"})},
        reward_mode="relative",
        steps_per_second=8000,  # learner steps per CPU-second with advice (runs of 2026-12-01)
    )
