"""An action id out of range is refused under every ``illegal_action``
(never forfeited nor played as waiting), nothing changed; and under
``"wait"`` the output says whose illegal action was played as waiting
(the fifth attack round's probe): the AEC envs, Spit's parallel env, the
vector engine (one process and several) and the TorchRL env."""

from __future__ import annotations

import json

import numpy as np
import pytest

import cardenvs
import cardenvs.vector as V
from cardenvs import IllegalActionError, spit_v0
from cardenvs.registry import GAMES, spec

TURN_BASED = [g for g in GAMES if not spec(g).simultaneous]
HUGE = (-1, 2**70)


def state(env) -> str:
    return json.dumps(env.unwrapped.state_dict())


@pytest.mark.parametrize("game", TURN_BASED)
def test_the_aec_env_refuses_out_of_range_under_terminate(game):
    env = cardenvs.make(game, illegal_action="terminate")
    env.reset(seed=1)
    before, n = state(env), env.action_space(env.agent_selection).n
    for wrong in (n, *HUGE):
        with pytest.raises(IllegalActionError, match="out of range"):
            env.step(wrong)
    assert state(env) == before and not any(env.terminations.values())
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))  # (plays on)


@pytest.mark.parametrize("game", TURN_BASED)
@pytest.mark.parametrize("threads", [1, 2])
def test_the_vector_engine_refuses_out_of_range_under_terminate(game, threads):
    venv = V.make(game, 4, seed=1, illegal_action="terminate", num_threads=threads)
    _, info = venv.reset()
    legal = info["action_mask"].argmax(1)
    before = [json.dumps(venv.state_dict(i)) for i in range(4)]
    for wrong in (venv.num_actions, -1, 2**63 + 5):  # (the last as uint64: negative if read as int64)
        actions = legal.astype(np.uint64 if wrong > 2**62 else np.int64)
        actions[2] = wrong
        with pytest.raises(IllegalActionError, match=r"out of range .* row 2"):
            venv.step(actions)
    assert [json.dumps(venv.state_dict(i)) for i in range(4)] == before
    illegal = legal.copy()
    illegal[2] = np.flatnonzero(~info["action_mask"][2])[0]  # (an illegal id in range still forfeits)
    terminated = venv.step(illegal)[2]
    assert terminated[2]


def first_illegal(mask) -> int:
    return int(np.flatnonzero(~np.asarray(mask, bool))[0])


@pytest.mark.parametrize("policy", ["wait", "terminate"])
def test_spit_parallel_refuses_out_of_range_and_says_who_waited(policy):
    env = spit_v0.parallel_env(illegal_action=policy)
    obs, _ = env.reset(seed=2)
    before = state(env)
    for wrong in (env.action_space("player_1").n, *HUGE):
        with pytest.raises(IllegalActionError, match="out of range"):
            env.step({"player_0": 0, "player_1": wrong})
    assert state(env) == before and env.agents
    bad = first_illegal(obs["player_1"]["action_mask"])
    infos = env.step({"player_0": 0, "player_1": bad})[-1]
    if policy == "wait":
        assert infos == {"player_0": {}, "player_1": {"illegal_waited": True}}


@pytest.mark.parametrize("policy", ["wait", "terminate"])
def test_spit_aec_refuses_out_of_range(policy):
    env = spit_v0.env(illegal_action=policy)
    env.reset(seed=2)
    before = state(env)
    for wrong in (env.action_space(env.agent_selection).n, *HUGE):
        with pytest.raises(IllegalActionError, match="out of range"):
            env.step(wrong)
    assert state(env) == before and env.agent_selection == "player_0"


@pytest.mark.parametrize("processes", [1, 2])
def test_spit_vector_engine_says_who_waited_and_refuses_out_of_range(processes):
    venv = V.make("spit_v0", 4, seed=0, illegal_action="wait", num_processes=processes, rng="per_game")
    try:
        _, info = venv.reset()
        mask = info["action_mask"]
        actions = mask.argmax(-1)
        actions[3, 0] = first_illegal(mask[3, 0])
        actions[1, 1] = venv.num_actions
        before = [json.dumps(venv.state_dict(i)) for i in range(4)]
        with pytest.raises(IllegalActionError, match=r"out of range .* row 1 player_1"):
            venv.step(actions)
        assert [json.dumps(venv.state_dict(i)) for i in range(4)] == before
        actions[1, 1] = mask[1, 1].argmax()
        waited = venv.step(actions)[-1]["illegal_waited"]
        expected = np.zeros((4, 2), bool)
        expected[3, 0] = True
        np.testing.assert_array_equal(waited, expected)
        info = venv.step(np.zeros((4, 2), np.int64), rows=[0])[-1]  # (everyone waits, in one game)
        assert not info["illegal_waited"].any()
    finally:
        venv.close()


def test_torchrl_shows_who_waited():
    pytest.importorskip("torchrl")
    import torch

    from cardenvs.integrations.torchrl import GROUP, make_env

    env = make_env("spit_v0", 4, seed=0, illegal_action="wait")
    td = env.rand_action(env.reset())
    assert not td[GROUP, "illegal_waited"].any()
    mask = td[GROUP, "action_mask"]
    td[GROUP, "action"][1, 0] = int(torch.nonzero(~mask[1, 0])[0])
    waited = env.step(td)["next", GROUP, "illegal_waited"]
    assert waited.tolist() == [[False, False], [True, False], [False, False], [False, False]]
    td = env.rand_action(env.reset())
    td[GROUP, "action"][0, 1] = env.num_actions
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(td)
    assert "illegal_waited" not in list(make_env("spit_v0", 2, seed=0).observation_spec[GROUP].keys())  # (raise)
