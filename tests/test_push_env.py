"""PettingZoo conformance of the Push env (api, seed, render) and its spaces."""

import pytest
from pettingzoo.test import api_test, render_test, seed_test

from cardenvs import push_v0

CONFIGS = [{}, {"rounds": [1], "reward": "score_delta"}, {"rounds": [5, 3], "max_turns": 30}]
IDS = [str(c) for c in CONFIGS]


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_api(cfg):
    api_test(push_v0.env(**cfg), num_cycles=300)


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_seed(cfg):
    seed_test(lambda render_mode=None: push_v0.env(render_mode=render_mode, **cfg), num_cycles=100)


def test_render():
    render_test(lambda render_mode=None: push_v0.env(render_mode=render_mode))


def test_ansi_render_shows_the_table():
    env = push_v0.env(render_mode="ansi", rounds=[1])
    env.reset(seed=0, options={"dealer": 3})
    text = env.render()
    assert isinstance(text, str) and "player_0" in text and "phase draw" in text and "stock 83" in text


def test_spaces_are_the_same_objects_and_mask_is_int8():
    env = push_v0.env()
    env.reset(seed=0)
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
        assert env.action_space(agent).n == 2371
        assert env.observe(agent)["action_mask"].dtype.name == "int8"
        assert env.observation_space(agent)["observation"].shape == (4960,)
