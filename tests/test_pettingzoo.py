"""PettingZoo's own conformance tests for every env and config."""

import pytest
from pettingzoo.test import api_test, render_test, seed_test

from cardenvs import pepper_v0

CONFIGS = [
    ("pepper_v0", pepper_v0, {"num_players": 4}),
    ("pepper_v0", pepper_v0, {"num_players": 3}),
    ("pepper_v0", pepper_v0, {"num_players": 2}),
    ("pepper_v0", pepper_v0, {"num_players": 4, "reward": "score_delta", "all_pass": "redeal"}),
]
IDS = [f"{name}-{cfg}" for name, _, cfg in CONFIGS]


@pytest.mark.parametrize("name,mod,cfg", CONFIGS, ids=IDS)
def test_api(name, mod, cfg):
    api_test(mod.env(**cfg), num_cycles=300)


@pytest.mark.parametrize("name,mod,cfg", CONFIGS, ids=IDS)
def test_seed(name, mod, cfg):
    seed_test(lambda render_mode=None: mod.env(render_mode=render_mode, **cfg), num_cycles=100)


@pytest.mark.parametrize("name,mod,cfg", CONFIGS, ids=IDS)
def test_render(name, mod, cfg):
    render_test(lambda render_mode=None: mod.env(render_mode=render_mode, **cfg))


@pytest.mark.parametrize("name,mod,cfg", CONFIGS, ids=IDS)
def test_ansi_render_shows_the_table(name, mod, cfg):
    env = mod.env(render_mode="ansi", **cfg)
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "player_0" in text and "phase bidding" in text


@pytest.mark.parametrize("name,mod,cfg", CONFIGS, ids=IDS)
def test_spaces_are_the_same_objects(name, mod, cfg):
    env = mod.env(**cfg)
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
