"""TorchRL integration (cardenvs.integrations.torchrl), with the real thing:
TorchRL's own ``check_env_specs`` on every registered game, masked random
play through ``rand_action`` / ``step_and_maybe_reset`` (the engine raises on
an illegal action, so a game that plays on took only legal ones), and a
step-by-step comparison with the vector engine it wraps.  Skipped when
TorchRL is not installed (the ``torchrl`` extra)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torchrl", reason="TorchRL is not installed (pip install -e '.[torchrl]')")

import torch  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

import cardenvs.vector as V  # noqa: E402
from cardenvs.integrations.torchrl import GROUP, make_env  # noqa: E402
from cardenvs.registry import GAMES, spec  # noqa: E402
from tests.helpers import SHORT_GAMES  # noqa: E402


@pytest.mark.parametrize("game", GAMES)
def test_check_env_specs(game):
    env = make_env(game, 4, seed=0, **SHORT_GAMES[game])
    check_env_specs(env, seed=0, break_when_any_done="both")
    td = env.reset()
    assert env.observation_spec.is_in(td.select(*env.observation_spec.keys(True, True)))
    env.close()


def _acting_actions(td, simultaneous: bool) -> tuple[np.ndarray, np.ndarray]:
    """(rows, actions) the engine plays: the acting seat's (both seats' in Spit)."""
    actions = td[GROUP, "action"].numpy()
    if simultaneous:
        return np.arange(len(actions)), actions
    current = td["current_player"].numpy()
    return current, actions[np.arange(len(actions)), current]


def random_masked_policy(td, generator: torch.Generator):
    """Uniform among the actions ``("player", "action_mask")`` allows, every seat."""
    mask = td[GROUP, "action_mask"]
    td[GROUP, "action"] = (torch.rand(mask.shape, generator=generator) * mask).argmax(-1)
    return td


@pytest.mark.parametrize("game", GAMES)
def test_rand_action_respects_the_mask(game):
    """The action spec's mask follows every step: TorchRL's own random
    actions are legal (the engine raises on an illegal one)."""
    env = make_env(game, 64, seed=2, **SHORT_GAMES[game])
    td = env.reset()
    for _ in range(20):
        td = env.rand_action(td)
        taken = td[GROUP, "action_mask"].gather(-1, td[GROUP, "action"].unsqueeze(-1))
        assert taken.all()
        _, td = env.step_and_maybe_reset(td)


@pytest.mark.parametrize("game", GAMES)
def test_masked_random_play_is_legal_and_matches_the_engine(game):
    """64 games, 200 steps of a random masked policy with TorchRL's
    autoreset, against the vector engine stepped with the same actions."""
    N, simultaneous, generator = 64, spec(game).simultaneous, torch.Generator().manual_seed(0)
    env = make_env(game, N, seed=3, **SHORT_GAMES[game])
    ref = V.make(game, N, seed=3, obs_dtype="float32", **SHORT_GAMES[game])
    ref_obs, ref_info = ref.reset()
    td, finished, rows = env.reset(), 0, np.arange(N)
    for _ in range(200):
        mask, acting = td[GROUP, "action_mask"], td[GROUP, "mask"]
        assert torch.equal(acting.sum(-1), torch.full((N,), 2 if simultaneous else 1))  # who acts
        td = random_masked_policy(td, generator)
        taken = mask.gather(-1, td[GROUP, "action"].unsqueeze(-1)).squeeze(-1)
        assert taken.all()  # every seat's sample is allowed, the acting seats' legal
        seats, acts = _acting_actions(td, simultaneous)
        if simultaneous:
            assert np.array_equal(mask.numpy(), ref_info["action_mask"])
        else:
            assert np.array_equal(seats, ref_info["current_player"])
            assert np.array_equal(mask.numpy()[rows, seats], ref_info["action_mask"])
            assert np.array_equal(td[GROUP, "observation"].numpy()[rows, seats], ref_obs)
        ref_obs, rewards, term, trunc, ref_info = ref.step(acts)  # raises on an illegal action
        td, td_next = env.step_and_maybe_reset(td)
        nxt = td["next"]
        assert np.array_equal(nxt[GROUP, "reward"].squeeze(-1).numpy(), rewards.astype(np.float32))
        assert np.array_equal(nxt["terminated"].squeeze(-1).numpy(), term)
        assert np.array_equal(nxt["done"].squeeze(-1).numpy(), term | trunc)
        for i in np.flatnonzero(term | trunc):  # every seat's last view; nobody acts
            assert np.array_equal(nxt[GROUP, "observation"][i].numpy(), ref_info["final_obs"][i])
            assert not nxt[GROUP, "mask"][i].any()
        finished += int((term | trunc).sum())
        td = td_next
    assert finished > 0  # the autoreset was exercised
    env.close()


def test_turn_based_views_are_each_seats_own():
    env = make_env("pepper_v0", 8, seed=1)
    td = env.reset()
    views = td[GROUP, "observation"].numpy()
    for p in range(env.num_players):
        assert np.array_equal(views[:, p], env.engine.observe(np.full(8, p)))
    acting = td[GROUP, "mask"].numpy()
    assert np.array_equal(acting.argmax(1), td["current_player"].numpy())
    assert td[GROUP, "action_mask"][~td[GROUP, "mask"]].all()  # a seat that does not act: anything, ignored


def test_set_seed_replays_the_same_games():
    def play(env):
        env.set_seed(7)
        torch.manual_seed(0)
        return env.rollout(40, break_when_any_done=False)

    first = play(make_env("cancellation_hearts_v0", 4, seed=0))
    second = play(make_env("cancellation_hearts_v0", 4, seed=99))
    assert torch.equal(first[GROUP, "observation"], second[GROUP, "observation"])
    assert torch.equal(first[GROUP, "action"], second[GROUP, "action"])


def test_finished_row_stepped_without_reset_starts_its_new_game():
    """A row left done and stepped again: its action is ignored, its new game
    is handed out (reward 0, not done), the other rows play on."""
    env = make_env("high_card_v0", 4, seed=0)
    td = env.reset()
    while True:
        td = env.rand_step(td)
        done = td["next", "done"].squeeze(-1)
        if done.any():
            break
        td = td["next"]
    nxt = env.rand_step(td["next"].clone())["next"]
    assert not nxt["done"][done].any()
    assert (nxt[GROUP, "reward"][done] == 0).all()
    assert nxt[GROUP, "mask"][done].any(-1).all()  # someone acts in each new game


def test_partial_reset_of_games_in_play_deals_new_games_there():
    """A time limit's cut: row 0's game, under way, is replaced; the others go on."""
    env = make_env("pepper_v0", 4, seed=0)
    td = env.reset()
    for _ in range(6):
        td = env.rand_step(td)["next"]
    before = [env.engine.state_dict(i) for i in range(4)]
    td["_reset"] = torch.tensor([[True], [False], [False], [False]])
    out = env.reset(td)
    after = [env.engine.state_dict(i) for i in range(4)]
    assert repr(after[1:]) == repr(before[1:]) and after[0]["bids"] != before[0]["bids"]
    assert np.array_equal(out[GROUP, "observation"][0, 0].numpy(), env.engine.observe(np.zeros(4, np.int64))[0])
    assert env.reset()[GROUP, "observation"].shape == (4, 4, 299)  # a full reset works


def test_partial_reset_on_a_process_engine_is_refused():
    env = make_env("pepper_v0", 4, seed=0, num_processes=2, rng="per_game")
    try:
        td = env.rand_step(env.reset())["next"]
        td["_reset"] = torch.tensor([[True], [False], [False], [False]])
        with pytest.raises(ValueError, match="process engine"):
            env.reset(td)
    finally:
        env.close()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(game="poker_v0", num_envs=2), "unknown game"),
        (dict(game="pepper_v0", num_envs=2, obs_dtype="int16"), "obs_dtype"),
        (dict(game="pepper_v0", num_envs=0), "num_envs"),
    ],
)
def test_bad_arguments_get_a_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_env(**kwargs)


def test_spit_both_seats_act():
    env = make_env("spit_v0", 8, seed=0)
    td = env.reset()
    assert td.get("current_player", None) is None  # no seat to act: both do
    assert td[GROUP, "mask"].all()
    assert td[GROUP, "observation"].shape == (8, 2, 235)
    assert td[GROUP, "action_mask"].shape == (8, 2, 33)
