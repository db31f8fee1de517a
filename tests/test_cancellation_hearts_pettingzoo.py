"""PettingZoo's own conformance tests for Cancellation Hearts, 6 to 11 players."""

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from cardenvs import cancellation_hearts_v0

CONFIGS = [{"num_players": n} for n in range(6, 12)] + [
    {"num_players": 6, "reward": "score_delta", "passing": "none", "max_hands": 2}
]
IDS = [str(cfg) for cfg in CONFIGS]


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_api(cfg):
    api_test(cancellation_hearts_v0.env(**cfg), num_cycles=300)


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_seed(cfg):
    seed_test(lambda render_mode=None: cancellation_hearts_v0.env(render_mode=render_mode, **cfg), num_cycles=100)


@pytest.mark.parametrize("cfg", CONFIGS[:1], ids=IDS[:1])
def test_render(cfg):
    render_test(lambda render_mode=None: cancellation_hearts_v0.env(render_mode=render_mode, **cfg))


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_ansi_render_and_fixed_spaces(cfg):
    env = cancellation_hearts_v0.env(render_mode="ansi", **cfg)
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "player_0" in text and "phase " in text
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
        assert env.action_space(agent).n == 106
        assert env.observation_space(agent)["observation"].shape == (477,)
        assert env.observation_space(agent)["action_mask"].dtype == np.int8


def test_human_render_prints(capsys):
    env = cancellation_hearts_v0.env(render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    assert "Cancellation Hearts" in capsys.readouterr().out
