"""The learner envs (one learner seat, the other seats played by agents) as
the tools see them: Gymnasium's and SB3's env checkers with
``illegal_action="terminate"``, finite float32 spaces, the Gymnasium vector
view under Gymnasium's vector wrappers, the SB3 VecEnv under VecMonitor and
VecNormalize."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.wrappers import vector as vw

import cardenvs
from cardenvs.agents.base import RandomAgent
from cardenvs.registry import GAMES as REGISTERED
from cardenvs.training.seat_env import SeatEnv, SeatGymVectorEnv

# every variant of every game (its defaults, but for the variant), and Pepper at 3 seats
GAMES = [
    (name, {k: v for k, v in config.items() if k == "variant"})
    for name, game in REGISTERED.items()
    for config in game.short_config
] + [("pepper_v0", {"num_players": 3})]
IDS = [f"{g}-{c}" if c else g for g, c in GAMES]


def random_actions(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    return (rng.random(mask.shape) * mask).argmax(-1)


@pytest.mark.parametrize("game,config", GAMES, ids=IDS)
def test_gymnasium_check_env_passes_with_terminate(game, config):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no checker warning either
        check_env(SeatEnv(game, seed=0, illegal_action="terminate", **config), skip_render_check=True)


@pytest.mark.parametrize("game,config", GAMES, ids=IDS)
def test_sb3_check_env_passes_with_terminate(game, config):
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_checker.check_env(SeatEnv(game, seed=0, illegal_action="terminate", **config))


@pytest.mark.parametrize("game,config", GAMES, ids=IDS)
def test_learner_spaces_are_finite_float32_and_hold_the_observations(game, config):
    env = SeatEnv(game, seed=1, illegal_action="terminate", **config)
    vec = SeatGymVectorEnv(game, 4, seed=1, **config)
    for space in (env.observation_space, vec.single_observation_space, vec.observation_space):
        assert space.dtype == np.float32
        assert np.isfinite(space.low).all() and np.isfinite(space.high).all()
    obs, _ = env.reset(seed=1)
    assert obs.dtype == np.float32 and env.observation_space.contains(obs)
    obs, info = vec.reset(seed=1)
    assert vec.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    for _ in range(20):
        obs, *_, info = vec.step(random_actions(rng, info["action_mask"]))
        assert vec.observation_space.contains(obs)


def test_seat_env_illegal_action_raise_keeps_the_game_and_terminate_ends_it():
    env = SeatEnv("pepper_v0", seat=1, seed=0)
    obs, _ = env.reset(seed=0)
    before = env.raw.state_dict()
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(cardenvs.IllegalActionError):
        env.step(illegal)
    with pytest.raises(TypeError):
        env.step(float(np.flatnonzero(env.action_masks())[0]))
    assert env.raw.state_dict() == before
    env = SeatEnv("pepper_v0", seat=1, seed=0, illegal_action="terminate")
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["final_state"]["illegal_action_by"] == 1
    with pytest.raises(ValueError, match="illegal_action"):
        SeatEnv("pepper_v0", illegal_action="wait")  # Spit only
    with pytest.raises(ValueError, match="illegal_action"):
        SeatGymVectorEnv("push_v0", 2, illegal_action="ignore")


def test_seat_env_seeded_reset_replays_the_same_game():
    env = SeatEnv("cancellation_hearts_v0", seed=3)
    runs = []
    for _ in range(2):
        obs, info = env.reset(seed=11)
        trace = [obs]
        for _ in range(30):
            obs, *_ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            trace.append(obs)
        runs.append((info["seat"], np.stack(trace)))
    assert runs[0][0] == runs[1][0]
    np.testing.assert_array_equal(runs[0][1], runs[1][1])


@pytest.mark.parametrize("game,config", [GAMES[0], GAMES[4]], ids=[IDS[0], IDS[4]])
def test_vector_learner_illegal_actions(game, config):
    """raise: IllegalActionError and nothing changes; TypeError for floats;
    terminate: that game ends with -1 for the learner, the others go on."""
    env = SeatGymVectorEnv(game, 4, seed=0, **config)
    obs, info = env.reset(seed=0)
    mask = info["action_mask"]
    bad = random_actions(np.random.default_rng(0), mask)
    bad[2] = np.flatnonzero(~mask[2])[0]
    with pytest.raises(cardenvs.IllegalActionError):
        env.step(bad)
    with pytest.raises(TypeError):
        env.step(bad.astype(np.float32))
    np.testing.assert_array_equal(env.action_masks(), mask)
    env = SeatGymVectorEnv(game, 4, seed=0, illegal_action="terminate", autoreset_mode="same_step", **config)
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(bad)
    assert reward[2] == -1 and terminated[2] and not truncated[2]
    assert not (terminated | truncated)[[0, 1, 3]].any()
    assert info["_final_obs"][2] and info["final_obs"][2].shape == env.single_observation_space.shape


def test_gym_vector_env_under_record_episode_statistics():
    """The learner's episode returns recorded by Gymnasium's wrapper equal its
    seat's final score (score_delta), in every seat."""
    env = SeatGymVectorEnv("pepper_v0", 8, seed=0, max_hands=2, reward="score_delta")
    assert isinstance(env, gym.vector.VectorEnv)
    assert env.action_space.shape == (8,) and env.observation_space.shape == (8, env.rules.obs_size)
    env = vw.RecordEpisodeStatistics(env)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    seats = set()
    for _ in range(300):
        obs, reward, terminated, truncated, info = env.step(random_actions(rng, info["action_mask"]))
        for i in np.flatnonzero(info.get("_episode", [])):
            seat = info["seat"][i]
            assert info["episode"]["r"][i] == info["final_scores"][i, seat]
            seats.add(int(seat))
    assert seats == {0, 1, 2, 3} and len(env.return_queue) > 8
    env.close()


def test_gym_vector_env_same_step_under_reward_and_info_wrappers():
    env = SeatGymVectorEnv("spit_v0", 4, opponents=RandomAgent(1), seed=2, max_ticks=60, autoreset_mode="same_step")
    env = vw.DictInfoToList(vw.ClipReward(vw.NormalizeReward(env), -5, 5))
    obs, infos = env.reset(seed=2)
    assert isinstance(infos, list) and obs.dtype == np.float32
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(150):
        mask = np.stack([i["action_mask"] for i in infos])
        obs, reward, terminated, truncated, infos = env.step(random_actions(rng, mask))
        ended += int((terminated | truncated).sum())
        for i in np.flatnonzero(terminated | truncated):
            assert infos[i]["final_obs"].shape == (env.unwrapped.rules.obs_size,)
    assert ended >= 4


NEXT_STEP_CASES = [
    ("spit_v0", {"max_ticks": 40, "reward": "cards_shed"}),
    ("pepper_v0", {"max_hands": 1, "reward": "score_delta"}),
]


@pytest.mark.parametrize("game,config", NEXT_STEP_CASES, ids=["spit_v0", "pepper_v0"])
def test_gym_vector_env_next_step_under_observation_wrappers(game, config):
    """NEXT_STEP: the ending step returns the last observation (no legal
    action), the next one the new game's first (reward 0, action ignored);
    Gymnasium's observation wrappers accept it; returns still add up."""
    base = SeatGymVectorEnv(game, 6, seed=3, autoreset_mode="next_step", **config)
    assert base.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    env = vw.RecordEpisodeStatistics(vw.TransformObservation(vw.NormalizeObservation(base), lambda o: o.clip(-5, 5)))
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    totals, prev_done, checked = np.zeros(6), np.zeros(6, bool), 0
    for _ in range(400 if game == "pepper_v0" else 100):
        mask = info["action_mask"]
        assert mask[~prev_done].any(axis=1).all()
        obs, reward, terminated, truncated, info = env.step(random_actions(rng, mask))
        assert (reward[prev_done] == 0).all() and not (terminated | truncated)[prev_done].any()
        totals += reward
        done = terminated | truncated
        assert not info["action_mask"][done].any()
        for i in np.flatnonzero(done):
            assert totals[i] == pytest.approx(info["episode"]["r"][i])
            if game == "pepper_v0":  # score_delta: the learner's return is its seat's final score
                assert totals[i] == info["final_scores"][i, info["seat"][i]]
            totals[i] = 0
            checked += 1
        prev_done = done
    assert checked >= 6
    with pytest.raises(ValueError, match="autoreset_mode"):
        SeatGymVectorEnv(game, 2, autoreset_mode="disabled")


def test_gym_vector_env_seeded_reset_replays_and_self_play_swaps_agents():
    env = SeatGymVectorEnv("push_v0", 4, seed=5, rounds=[1])
    traces = []
    for _ in range(2):
        obs, info = env.reset(seed=9)
        trace = [obs]
        rng = np.random.default_rng(1)
        for _ in range(20):
            obs, *_, info = env.step(random_actions(rng, info["action_mask"]))
            trace.append(obs)
        traces.append(np.stack(trace))
    np.testing.assert_array_equal(*traces)
    agent = RandomAgent(4)
    env.opponents = env.partner = agent
    assert env.core.opponents is agent and env.core.partner is agent


def test_sb3_vec_env_under_vec_monitor_and_vec_normalize():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import VecMonitor, VecNormalize

    from cardenvs.training.seat_env import learner_vec_env

    raw = learner_vec_env("pepper_v0", 8, seed=0, max_hands=1)
    env = VecNormalize(VecMonitor(raw), gamma=1.0)
    obs = env.reset()
    assert obs.shape == (8, raw.rules.obs_size)
    np.testing.assert_array_equal(get_action_masks(env), raw.action_masks())
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, seed=0, device="cpu")
    model.learn(256)
    assert len(model.ep_info_buffer) > 0  # VecMonitor's episodes reached the logger


def test_sb3_vec_env_seed_and_options_apply_at_reset():
    from cardenvs.training.seat_env import learner_vec_env

    env = learner_vec_env("pepper_v0", 4, seed=0, max_hands=1)
    firsts = []
    for _ in range(2):
        env.seed(7)
        firsts.append(env.reset())
    np.testing.assert_array_equal(*firsts)
    env.set_options({"dealer": 2})
    env.reset()
    assert env.engine.state_dict(0)["dealer"] == 2


def test_sb3_vec_env_step_reward_is_added_to_every_learner_step():
    """``step_reward`` (a cost of time against stalling): the same seeded
    games, each learner step's reward shifted by it, nothing else changed."""
    from cardenvs.training.seat_env import learner_vec_env

    runs = []
    for step_reward in (0.0, -0.25):
        env = learner_vec_env("spit_v0", 4, seed=5, reward_mode="relative", reward="cards_held")
        env.step_reward = step_reward
        env.seed(5)
        env.reset()
        rng = np.random.default_rng(5)
        rewards = []
        for _ in range(60):
            mask = np.stack(env.env_method("action_masks"))
            _, reward, _, _ = env.step(random_actions(rng, mask))
            rewards.append(reward)
        runs.append(np.array(rewards))
    np.testing.assert_allclose(runs[1], runs[0] - 0.25, atol=1e-6)
    assert (runs[0] != 0).any()
