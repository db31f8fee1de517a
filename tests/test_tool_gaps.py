"""The tool gaps of issue #34 (item 6), each run with the real tool: PettingZoo's
``max_cycles_test`` and ``parallel_seed_test``, Gymnasium's vector observation
wrappers on ``SeatGymVectorEnv``'s default autoreset mode, SuperSuit's
observation wrappers on the dict observations (through the workaround of
docs/using-with.md), and what stays not applicable, with the reason."""

from __future__ import annotations

import functools
import importlib
import types
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.wrappers import vector as vw
from pettingzoo.test import max_cycles_test, parallel_seed_test
from pettingzoo.utils.conversions import aec_to_parallel

import cardenvs
import cardenvs.vector as V
from cardenvs import spit_v0
from cardenvs.registry import GAMES
from cardenvs.training.seat_env import SeatGymVectorEnv

TURN_BASED = tuple(name for name, game in GAMES.items() if not game.simultaneous)


def spit_module(**config) -> types.SimpleNamespace:
    """``spit_v0`` as PettingZoo's tests take a module (``env`` and
    ``parallel_env``), with ``config`` on both."""
    return types.SimpleNamespace(
        env=functools.partial(spit_v0.env, **config), parallel_env=functools.partial(spit_v0.parallel_env, **config)
    )


def masked(rng: np.random.Generator, mask: np.ndarray) -> int:
    return int((rng.random(mask.shape) * mask).argmax())


# --- max_cycles ------------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["spit", "speed"])
def test_pettingzoo_max_cycles_test_passes_on_spit(variant):
    """The test samples actions without the mask: illegal ones are played as waits."""
    max_cycles_test(spit_module(variant=variant, illegal_action="wait"))


def test_max_cycles_test_on_defaults_stops_at_the_first_unmasked_illegal_action():
    with pytest.raises(cardenvs.IllegalActionError):
        max_cycles_test(spit_v0)


def play(config: dict, seed: int) -> tuple[list, int]:
    """A seeded Spit game with masked random actions: the observations of
    every step and the step at which it was truncated (0: not truncated)."""
    env = spit_v0.parallel_env(**config)
    obs, _ = env.reset(seed=seed)
    rng, seen, cut = np.random.default_rng(seed), [obs], 0
    for step in range(1, 100):
        obs, _, terminated, truncated, _ = env.step({a: masked(rng, obs[a]["action_mask"]) for a in env.agents})
        seen.append(obs)
        if any(terminated.values()) or any(truncated.values()):
            cut = step if all(truncated.values()) else 0
            break
    return seen, cut


@pytest.mark.parametrize("variant", ["spit", "speed"])
def test_max_cycles_is_max_ticks_under_pettingzoo_s_name(variant):
    """The same limit: the same games, observations (ticks left) included,
    truncated after that many parallel steps, in the views and the engine."""
    by_cycles, cut = play({"variant": variant, "max_cycles": 9}, seed=3)
    by_ticks, _ = play({"variant": variant, "max_ticks": 9}, seed=3)
    assert cut == 9
    assert len(by_cycles) == len(by_ticks)
    for a, b in zip(by_cycles, by_ticks):
        for agent in a:
            np.testing.assert_array_equal(a[agent]["observation"], b[agent]["observation"])
    venv = V.make("spit_v0", 3, seed=0, variant=variant, max_cycles=5, illegal_action="wait")
    venv.reset(seed=0)
    waits = np.zeros((3, 2), np.int64)
    for _ in range(4):
        assert not venv.step(waits)[3].any()
    assert venv.step(waits)[3].all()


def test_max_cycles_bad_values_name_the_option_and_change_nothing():
    for bad in (0, -3, 4.0, True, "4"):
        with pytest.raises(ValueError, match="max_cycles"):
            spit_v0.parallel_env(max_cycles=bad)
    with pytest.raises(ValueError, match="max_cycles is another name for max_ticks"):
        spit_v0.env(max_cycles=4, max_ticks=5)
    with pytest.raises(ValueError, match="max_cycles is another name for max_ticks"):
        V.make("spit_v0", 2, max_cycles=4, max_ticks=None)
    with pytest.raises(ValueError, match="max_ticks"):
        spit_v0.env(max_cycles=4, max_ticks=4.0)
    assert spit_v0.env(max_cycles=4, max_ticks=4).unwrapped.rules.max_ticks == 4
    assert spit_v0.env(max_cycles=None).unwrapped.rules.max_ticks == 5000


@pytest.mark.parametrize("game", TURN_BASED)
def test_max_cycles_test_is_not_applicable_to_the_turn_based_games(game):
    """One seat acts at a time, the next one chosen by the play: there is no
    parallel view, and PettingZoo's aec_to_parallel refuses the AEC env
    (it is not parallelizable); max_cycles is an unknown option there."""
    assert not hasattr(importlib.import_module(f"cardenvs.{game}"), "parallel_env")
    env = cardenvs.make(game)
    assert env.metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError, match="not generally safe"):
        aec_to_parallel(env)
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['max_cycles'\]"):
        cardenvs.make(game, max_cycles=4)


# --- parallel_seed_test ----------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["spit", "speed"])
def test_parallel_seed_test_passes_when_unmasked_actions_are_waits(variant):
    """Seeded games are deterministic (the test's 500 cycles); on defaults
    the only failure is the test's unmasked sampling meeting
    illegal_action="raise"."""
    parallel_seed_test(functools.partial(spit_v0.parallel_env, variant=variant, illegal_action="wait"))
    with pytest.raises(cardenvs.IllegalActionError, match="illegal actions"):
        parallel_seed_test(functools.partial(spit_v0.parallel_env, variant=variant), num_cycles=50)


# --- Gymnasium's vector wrappers -------------------------------------------------------------------
def test_seat_gym_vector_env_defaults_to_gymnasium_s_autoreset_mode():
    ours = SeatGymVectorEnv("pepper_v0", 2, seed=0, max_hands=1)
    theirs = gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1")] * 2)
    assert ours.metadata["autoreset_mode"] == theirs.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP


@pytest.mark.parametrize("game,config", [("pepper_v0", {"max_hands": 1}), ("spit_v0", {"max_ticks": 30})])
def test_gymnasium_observation_wrappers_take_the_default_mode(game, config):
    """The observation wrappers that refused the old default (same step)
    wrap the env as made, and step it through whole games."""
    env = SeatGymVectorEnv(game, 4, seed=0, **config)
    env = vw.NormalizeObservation(vw.RescaleObservation(env, -1.0, 1.0))
    env = vw.RecordEpisodeStatistics(vw.FlattenObservation(vw.TransformObservation(env, lambda o: o.clip(-5, 5))))
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(120):
        mask = info["action_mask"]
        obs, reward, terminated, truncated, info = env.step((rng.random(mask.shape) * mask).argmax(1))
        assert obs.shape == (4, env.unwrapped.rules.obs_size) and np.isfinite(obs).all()
    assert len(env.return_queue) >= 4


def test_same_step_is_refused_by_gymnasium_s_observation_wrappers():
    """Documented: Gymnasium's own check, a bare AssertionError (same step
    stays for the reward and info wrappers, tests/test_learner_envs.py)."""
    env = SeatGymVectorEnv("pepper_v0", 2, seed=0, max_hands=1, autoreset_mode="same_step")
    with pytest.raises(AssertionError):
        vw.NormalizeObservation(env)


# --- SuperSuit on dict observations ----------------------------------------------------------------
def flat(obs, space):
    return np.concatenate([obs["observation"], obs["action_mask"]]).astype(np.float32)


def flat_space(space):
    parts = (space["observation"], space["action_mask"])
    return gym.spaces.Box(
        np.concatenate([p.low for p in parts]), np.concatenate([p.high for p in parts]), dtype=np.float32
    )


@pytest.mark.parametrize("game", ["pepper_v0", "spit_v0"])
def test_supersuit_box_wrappers_after_flattening_the_dict(game):
    """SuperSuit's Box wrappers refuse the dict; flattened to one Box (the
    mask in the last columns, as docs/using-with.md does) they wrap the env,
    and the newest frame's last columns are the env's mask."""
    ss = pytest.importorskip("supersuit")
    with pytest.raises(AttributeError):
        ss.normalize_obs_v0(cardenvs.make(game))
    env = cardenvs.make(game, obs_dtype="float32", illegal_action="wait" if game == "spit_v0" else "raise")
    n = env.action_space("player_0").n
    wrapped = ss.frame_stack_v1(ss.normalize_obs_v0(ss.observation_lambda_v0(env, flat, flat_space)), 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped.reset(seed=0)
        rng = np.random.default_rng(0)
        for agent in wrapped.agent_iter(60):
            obs, _, terminated, truncated, _ = wrapped.last()
            mask = env.unwrapped.observe(agent)["action_mask"]
            assert obs.shape == (3 * (env.observation_space(agent)["observation"].shape[0] + n),)
            np.testing.assert_array_equal(obs[-n:], mask)
            wrapped.step(None if terminated or truncated else masked(rng, mask))
