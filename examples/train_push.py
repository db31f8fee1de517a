"""Train a Push baseline with MaskablePPO on the batched engine.

Stage 1 plays against the rule-based agent (take useful discards else push,
meld greedily, discard high penalties) as partner and opponents; with
``--selfplay-steps`` a second stage plays against frozen snapshots.
Training episodes play the five rounds, each rewarded with minus the team's
penalty points (``reward="score_delta"``) relative to the other team's;
evaluation plays whole games.  Push is the slowest engine (an observation of
4,961 numbers and 2,371 actions): about 3,200 learner steps per CPU-second
with advice, selection included.  Its network reads each of the 36 table
meld slots (132 numbers) through one shared layer (``slot_features=16``,
``cardenvs/agents/slot_features.py``).

    python examples/train_push.py --minutes 20
    # the committed baseline (750k steps, 3.9 CPU-minutes; the policy kept is the best on the selection seed):
    python examples/train_push.py --advice --advisor push_naturals=True --advisor run_discards=True \\
        --fixed-steps 750000 --selfplay-steps 0 --select-every 250000 --select-games 200 --select-seed 5200 --seed 13

The committed baseline is advised by a teacher stronger than the rule agent
it is measured against: the rule agent with ``push_naturals=True`` (push
every natural discard, take only a wild) and ``run_discards=True`` (keep
the cards the round's contract can use), which wins about 69% against the
plain rule agent (``cardenvs/games/push/agent.py``).  The policy plays as its
teacher: its argmax never left the advice (every selection round scored the
same), as with the plain rule agent as teacher, where it tied the rule agent
(53.3% [47.7%, 58.9%] over 300 games).  From scratch (no advice), 2.1M steps
in 23 CPU-minutes beat random every time but not the rule agent.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from cardenvs.training.cli import cli  # noqa: E402
from cardenvs.training.ppo import LIGHT_RECIPE  # noqa: E402

if __name__ == "__main__":
    cli(
        "push_v0",
        __doc__,
        env_config={"rounds": [1, 2, 3, 4, 5], "reward": "score_delta"},
        eval_config={},
        reward_mode="relative",
        gamma=1.0,
        **LIGHT_RECIPE,  # its 128x128 network also keeps the checkpoint small
        slot_features=16,  # each of the 36 meld slots (132 numbers) through one shared layer to 16 features
        steps_per_second=3200,  # learner steps per CPU-second with advice, selection included (run of 2026-12-01)
        fixed_steps=200_000,
        selfplay_steps=50_000,
    )
