"""The TorchRL env under TorchRL's own transforms (B7 and B9 of the fifth
attack round): ``env.rollout`` without a policy (``rand_action``) plays
legal actions through ``TransformedEnv`` (no transform, ``StepCounter()``,
``RewardSum``), as the bare env does; ``StepCounter(max_steps)`` truncates
some games while the others go on; a step without an action names the key.
The engine raises on an illegal action, so a rollout that ends took none."""

from __future__ import annotations

import pytest

pytest.importorskip("torchrl", reason="TorchRL is not installed (pip install -e '.[torchrl]')")

import torch  # noqa: E402
from torchrl.envs import RewardSum, StepCounter, TransformedEnv  # noqa: E402

from cardenvs.integrations.torchrl import GROUP, make_env  # noqa: E402
from cardenvs.registry import GAMES  # noqa: E402
from tests.helpers import SHORT_GAMES  # noqa: E402

TRANSFORMS = {
    "none": lambda: None,
    "StepCounter()": lambda: StepCounter(),
    "RewardSum": lambda: RewardSum(in_keys=[(GROUP, "reward")], out_keys=[(GROUP, "episode_reward")]),
}


def legal_taken(rollout) -> bool:
    """Every acting seat's action in ``rollout`` was allowed by its mask."""
    acted = rollout[GROUP, "mask"]
    allowed = rollout[GROUP, "action_mask"].gather(-1, rollout[GROUP, "action"].unsqueeze(-1)).squeeze(-1)
    return bool((allowed | ~acted).all())


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("transform", TRANSFORMS)
def test_a_transformed_env_samples_legal_actions(game, transform):
    torch.manual_seed(0)
    env = TransformedEnv(make_env(game, 8, seed=0, **SHORT_GAMES[game]), TRANSFORMS[transform]())
    rollout = env.rollout(60, break_when_any_done=False)
    assert rollout.shape == (8, 60) and legal_taken(rollout)
    env.close()


def test_step_counter_truncates_some_games_and_the_others_go_on():
    """``StepCounter(30)`` in Pepper (a hand takes 25 to 40 steps): rows whose
    games outlast 30 steps are cut (new games dealt there), at steps where
    other rows are mid-game."""
    torch.manual_seed(1)
    env = TransformedEnv(make_env("pepper_v0", 8, seed=0, max_hands=1), StepCounter(max_steps=30))
    rollout = env.rollout(150, break_when_any_done=False)
    truncated = rollout["next", "truncated"].squeeze(-1)  # (rows, steps)
    partial = [t for t in range(truncated.shape[1] - 1) if 0 < int(truncated[:, t].sum()) < 8]
    assert partial and legal_taken(rollout)
    t = partial[0]
    cut = truncated[:, t]
    assert (rollout["next", "step_count"][cut, t] == 30).all()
    assert (rollout["step_count"][cut, t + 1] == 0).all()  # a new game's first step in those rows
    assert (rollout["step_count"][~cut, t + 1] == rollout["next", "step_count"][~cut, t]).all()  # (the others)
    env.close()


def test_spit_rows_cut_short_get_new_games():
    env = make_env("spit_v0", 4, seed=0)
    td = env.reset()
    for _ in range(10):
        td = env.rand_step(td)["next"]
    before = [env.engine.state_dict(i) for i in range(4)]
    td["_reset"] = torch.tensor([[False], [True], [False], [False]])
    env.reset(td)
    after = [env.engine.state_dict(i) for i in range(4)]
    assert before[1]["tick"] == 10 and after[1]["tick"] == 0
    assert repr([after[i] for i in (0, 2, 3)]) == repr([before[i] for i in (0, 2, 3)])
    env.close()


def test_a_step_without_an_action_names_the_key():
    env = make_env("pepper_v0", 4, seed=0)
    td = env.reset()
    with pytest.raises(ValueError, match=r"needs the actions at \('player', 'action'\), shape \(4, 4\); the"):
        env.step(td)
    td[GROUP, "action"] = torch.zeros(4, 4, 2, dtype=torch.int64)
    with pytest.raises(ValueError, match=r"shape \(4, 4\); got \(4, 4, 2\)"):
        env.step(td)
    del td[GROUP, "action"]
    env.step(env.rand_action(td))  # (nothing changed: the env plays on)
