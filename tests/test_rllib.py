"""Ray RLlib integration (cardenvs.integrations.rllib), with the real thing:
RLlib's env pre-check, its MultiAgentEpisode bookkeeping, and one PPO
training iteration with two env runners on a local Ray instance this test
starts itself (Pepper and Spit).  Skipped when the `rllib` extra is not
installed."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed (pip install -e '.[rllib]')")

import ray  # noqa: E402
from ray.rllib.env.multi_agent_episode import MultiAgentEpisode  # noqa: E402
from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402

import cardenvs  # noqa: E402
import cardenvs.spit_v0  # noqa: E402  (the parallel env the Spit routing is checked against)
from cardenvs.integrations.rllib import (  # noqa: E402
    MASK_KEY,
    OBS_KEY,
    CardGameEnv,
    CardVectorMultiAgentEnv,
    make_env,
    ppo_config,
    register,
)
from cardenvs.registry import GAMES, spec  # noqa: E402

# short games where the game has a knob for it
SHORT = {"pepper_v0": {"max_hands": 2}}


def random_actions(obs: dict, rng: np.random.Generator) -> dict:
    return {a: int(rng.choice(np.flatnonzero(o[MASK_KEY]))) for a, o in obs.items()}


@pytest.mark.parametrize("game", cardenvs.GAMES)
def test_passes_rllib_pre_check_and_spaces(game):
    env = make_env(game)
    check_multiagent_environments(env)  # unmasked random actions: illegal ones end the game
    obs, infos = env.reset(seed=0)
    for agent, o in obs.items():
        space = env.get_observation_space(agent)
        assert set(space.spaces) == {OBS_KEY, MASK_KEY}
        assert space[OBS_KEY].dtype == np.float32 and np.isfinite(space[OBS_KEY].low).all()
        assert np.isfinite(space[OBS_KEY].high).all()
        assert space.contains(o)
        assert o[MASK_KEY].any()
    assert len(obs) == (env.max_num_agents if spec(game).simultaneous else 1)  # Spit: both seats act


def test_illegal_action_ends_the_game_offender_minus_one():
    env = make_env("pepper_v0")
    obs, _ = env.reset(seed=1)
    ((agent, o),) = obs.items()
    illegal = int(np.flatnonzero(o[MASK_KEY] == 0)[0])
    obs, rewards, terms, truncs, _ = env.step({agent: illegal})
    assert terms["__all__"] and not truncs["__all__"]
    assert set(obs) == set(env.possible_agents) == set(rewards)
    assert rewards == {a: (-1.0 if a == agent else 0.0) for a in env.possible_agents}
    assert all(not o[MASK_KEY].any() for o in obs.values())  # nothing is legal after the end


def new_episode(env: CardGameEnv) -> MultiAgentEpisode:
    return MultiAgentEpisode(
        observation_space=dict(env.observation_spaces),
        action_space=dict(env.action_spaces),
        agent_to_module_mapping_fn=lambda aid, episode: "shared",
    )


@pytest.mark.parametrize("game", [name for name, game in GAMES.items() if not game.simultaneous])
def test_turn_based_routing_matches_the_aec_env(game):
    """A random game through the RLlib env and the PettingZoo AEC env (same
    seed, same actions): only the acting seat observes, its observation and
    mask are the AEC env's, and each seat's return as RLlib's own
    MultiAgentEpisode books it equals the AEC env's cumulative reward."""
    env = make_env(game, **SHORT.get(game, {}))
    ref = cardenvs.make(game, illegal_action="terminate", obs_dtype="float32", **SHORT.get(game, {}))
    obs, infos = env.reset(seed=7)
    ref.reset(seed=7)
    episode = new_episode(env)
    episode.add_env_reset(observations=obs, infos=infos)
    rng = np.random.default_rng(7)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    while True:
        assert len(obs) == 1
        ((agent, o),) = obs.items()
        assert agent == ref.agent_selection
        want = ref.observe(agent)
        np.testing.assert_array_equal(o[OBS_KEY], want["observation"])
        np.testing.assert_array_equal(o[MASK_KEY], want["action_mask"])
        actions = random_actions(obs, rng)
        ref.step(actions[agent])
        for a in ref.possible_agents:
            totals[a] += ref.rewards.get(a, 0.0)
        obs, rewards, terms, truncs, infos = env.step(actions)
        episode.add_env_step(
            observations=obs, actions=actions, rewards=rewards, infos=infos, terminateds=terms, truncateds=truncs
        )
        if terms["__all__"] or truncs["__all__"]:
            break
    assert set(obs) == set(env.possible_agents)  # the final observation and reward go to every seat
    assert all(ref.terminations[a] or ref.truncations[a] for a in ref.possible_agents)
    returns = {a: sa.get_return() for a, sa in episode.agent_episodes.items()}
    assert returns == pytest.approx(totals)
    assert episode.is_done and sorted(returns) == sorted(env.possible_agents)


def test_spit_routing_matches_the_parallel_env():
    env = make_env("spit_v0")
    ref = cardenvs.spit_v0.parallel_env(illegal_action="terminate", obs_dtype="float32")
    obs, infos = env.reset(seed=5)
    ref_obs, _ = ref.reset(seed=5)
    episode = new_episode(env)
    episode.add_env_reset(observations=obs, infos=infos)
    rng = np.random.default_rng(5)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for _tick in range(20_000):
        assert set(obs) == set(env.possible_agents)  # both seats act every tick
        for a in obs:
            np.testing.assert_array_equal(obs[a][OBS_KEY], ref_obs[a]["observation"])
            np.testing.assert_array_equal(obs[a][MASK_KEY], ref_obs[a]["action_mask"])
        actions = random_actions(obs, rng)
        ref_obs, ref_rewards, ref_terms, ref_truncs, _ = ref.step(actions)
        for a, r in ref_rewards.items():
            totals[a] += r
        obs, rewards, terms, truncs, infos = env.step(actions)
        assert rewards == pytest.approx(ref_rewards)
        episode.add_env_step(
            observations=obs, actions=actions, rewards=rewards, infos=infos, terminateds=terms, truncateds=truncs
        )
        if terms["__all__"] or truncs["__all__"]:
            assert all(ref_terms.values()) == terms["__all__"] and all(ref_truncs.values()) == truncs["__all__"]
            break
    else:
        pytest.fail("the game did not end")
    assert {a: sa.get_return() for a, sa in episode.agent_episodes.items()} == pytest.approx(totals)


@pytest.mark.parametrize("game", ["pepper_v0", "spit_v0"])
def test_vector_env_next_step_autoreset(game):
    """The vector env (RLlib's VectorMultiAgentEnv): a row whose game ended
    hands out its new game's first observation on the next step, with no
    reward; other rows go on."""
    venv = CardVectorMultiAgentEnv(game, num_envs=3, seed=0, **SHORT.get(game, {}))
    obs, infos = venv.reset(seed=0)
    assert len(obs) == len(infos) == 3
    rng = np.random.default_rng(0)
    waiting = [False] * 3
    ended = 0
    for _ in range(3000):
        actions = [{} if waiting[i] else random_actions(o, rng) for i, o in enumerate(obs)]
        obs, rewards, terms, truncs, _ = venv.step(actions)
        for i in range(3):
            space = venv.single_observation_spaces
            assert all(space[a].contains(o) for a, o in obs[i].items())
            if waiting[i]:
                assert rewards[i] == {} and not terms[i]["__all__"] and not truncs[i]["__all__"]
                assert all(o[MASK_KEY].any() for o in obs[i].values())
            waiting[i] = terms[i]["__all__"] or truncs[i]["__all__"]
            if waiting[i]:
                ended += 1
                assert set(obs[i]) == set(rewards[i]) == set(venv.possible_agents)
        if ended >= 4:
            break
    assert ended >= 4
    venv.close()


def test_config_errors_and_registration():
    with pytest.raises(ValueError, match="illegal_action"):
        make_env("pepper_v0", illegal_action="raise")
    with pytest.raises(ValueError, match="obs_dtype"):
        make_env("pepper_v0", obs_dtype="int8")
    with pytest.raises(ValueError, match="game"):
        CardGameEnv({})
    assert register(["pepper_v0"]) == ["cardenvs_pepper_v0"]


@pytest.fixture(scope="module")
def local_ray():
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


@pytest.mark.parametrize("game", ["pepper_v0", "spit_v0"])
def test_one_ppo_iteration_with_two_env_runners(local_ray, game, tmp_path):
    config = ppo_config(game, num_env_runners=2, num_envs_per_env_runner=4, seed=0).training(
        train_batch_size_per_learner=256, minibatch_size=64, num_epochs=1
    )
    algo = config.build_algo()
    try:
        assert algo.env_runner_group.num_healthy_remote_workers() == 2
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled"] >= 256
        assert result["training_iteration"] == 1
        learner = result["learners"]["shared"]
        assert np.isfinite(learner["policy_loss"]) and np.isfinite(learner["vf_loss"])
        algo.save_to_path(str(tmp_path / "checkpoint"))
        assert (tmp_path / "checkpoint").is_dir()
    finally:
        algo.stop()
