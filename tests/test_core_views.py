"""The options every env takes (illegal_action, obs_dtype), the errors for
bad input, and the vector engine's Gymnasium conventions, for every game."""

from __future__ import annotations

import json

import numpy as np
import pytest
from gymnasium.vector.vector_env import AutoresetMode
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test

import cardenvs
import cardenvs.vector as V
from cardenvs import IllegalActionError, spit_v0
from cardenvs.registry import GAMES

TURN_BASED = [g for g, spec in GAMES.items() if not spec.simultaneous]


def first_illegal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(~np.asarray(mask, bool))[0])


@pytest.mark.parametrize("game", TURN_BASED)
def test_terminate_ends_the_game_with_minus_one_to_the_offender(game):
    env = cardenvs.make(game, illegal_action="terminate")
    env.reset(seed=3)
    agent = env.agent_selection
    before = env.unwrapped.state_dict()
    env.step(first_illegal(env.observe(agent)["action_mask"]))
    assert all(env.terminations.values())
    assert env.rewards == {a: (-1.0 if a == agent else 0.0) for a in env.possible_agents}
    after = env.unwrapped.state_dict()
    assert after["done"] and after["illegal_action_by"] == env.possible_agents.index(agent)
    assert {k: v for k, v in after.items() if k not in ("done", "illegal_action_by")} == {
        k: v for k, v in before.items() if k != "done"
    }
    for a in env.agents:
        assert not env.observe(a)["action_mask"].any()


@pytest.mark.parametrize("game", list(GAMES))
def test_api_test_passes_with_terminate_and_float32(game):
    env = cardenvs.make(game, illegal_action="terminate", obs_dtype="float32")
    api_test(env, num_cycles=50)
    box = env.observation_space(env.possible_agents[0])["observation"]
    assert box.dtype == np.float32 and np.isfinite(box.low).all() and np.isfinite(box.high).all()
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)["observation"]
    assert obs.dtype == np.float32 and box.contains(obs)


def test_spit_parallel_checks_pass_with_terminate():
    parallel_api_test(spit_v0.parallel_env(illegal_action="terminate"), num_cycles=100)
    parallel_seed_test(lambda: spit_v0.parallel_env(illegal_action="terminate"), num_cycles=100)
    env = spit_v0.parallel_env(illegal_action="terminate")
    obs, _ = env.reset(seed=1)
    bad = first_illegal(obs["player_1"]["action_mask"])
    _, rewards, terms, _, _ = env.step({"player_0": 0, "player_1": bad})
    assert rewards == {"player_0": 0.0, "player_1": -1.0} and all(terms.values()) and not env.agents


@pytest.mark.parametrize("game", list(GAMES))
def test_bad_config_names_the_option(game):
    with pytest.raises(ValueError, match="unknown option.*'colour'"):
        cardenvs.make(game, colour="red")
    with pytest.raises(ValueError, match="illegal_action"):
        cardenvs.make(game, illegal_action="ignore")
    with pytest.raises(ValueError, match="obs_dtype"):
        cardenvs.make(game, obs_dtype="float64")
    with pytest.raises(ValueError, match="unknown option"):
        V.make(game, 2, colour="red")


@pytest.mark.parametrize("game", list(GAMES))
def test_calls_before_a_successful_reset_raise_runtime_error(game):
    for make in (cardenvs.make, lambda g: cardenvs.make(g).unwrapped):
        env = make(game)
        with pytest.raises(RuntimeError, match="reset"):
            env.step(0)
        with pytest.raises(ValueError):
            env.reset(seed=0, options={"dealer": 9})
        with pytest.raises(RuntimeError, match="reset"):
            env.step(0)
        with pytest.raises(RuntimeError, match="reset"):
            env.unwrapped.state_dict()


@pytest.mark.parametrize("game", TURN_BASED)
def test_action_types(game):
    env = cardenvs.make(game)
    env.reset(seed=0)
    before = json.dumps(env.unwrapped.state_dict())
    for wrong in (1.0, "1", None, True, np.float32(2)):
        with pytest.raises(TypeError):
            env.step(wrong)
    for wrong in (2**70, -1, np.uint64(2**64 - 1), np.int8(-5)):
        with pytest.raises(IllegalActionError):
            env.step(wrong)
    assert json.dumps(env.unwrapped.state_dict()) == before
    legal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
    env.step(np.uint8(legal) if legal < 256 else np.uint64(legal))


@pytest.mark.parametrize("game", TURN_BASED)
def test_vector_engine_actions_of_any_integer_type(game):
    venv = V.make(game, 4, seed=0)
    obs, info = venv.reset()
    legal = info["action_mask"].argmax(axis=1)
    before = [json.dumps(venv.state_dict(i)) for i in range(4)]
    with pytest.raises(TypeError):
        venv.step(legal.astype(float))
    huge = legal.astype(np.uint64)
    huge[1] = 2**64 - 1
    with pytest.raises(IllegalActionError):
        venv.step(huge)
    for rows in ([0.5], np.array([True, False]), [7], [1, 1]):
        with pytest.raises((TypeError, ValueError)):
            venv.step(legal, rows=rows)
    assert [json.dumps(venv.state_dict(i)) for i in range(4)] == before
    venv.step(legal.astype(np.uint64))


@pytest.mark.parametrize("game", list(GAMES))
def test_vector_engine_follows_gymnasium_conventions(game):
    venv = V.make(game, 3, seed=0, obs_dtype="float32")
    assert venv.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs, info = venv.reset(seed=1)
    assert venv.observation_space.contains(obs) and obs.dtype == np.float32
    actions = (np.random.default_rng(0).random(info["action_mask"].shape) * info["action_mask"]).argmax(-1)
    assert venv.action_space.contains(actions)
    venv.close()
    with pytest.raises(RuntimeError):
        venv.step(actions)
    venv.reset()


@pytest.mark.parametrize("game", list(GAMES))
def test_vector_reset_options_fix_the_deals(game):
    venv = V.make(game, 2, seed=0)
    deck = venv.rules.deck
    ordered = [deck.texts[t] for t in deck.multiset]  # a valid deck order: sorted
    env = cardenvs.make(game)
    env.reset(seed=9, options={"dealer": 1, "decks": [ordered]})
    want = json.dumps(env.unwrapped.state_dict())
    venv.reset(seed=9, options={"dealer": 1, "decks": [ordered]})
    assert [json.dumps(venv.state_dict(i)) for i in range(2)] == [want, want]
    venv.reset(seed=9, options={"dealer": [1, 0], "decks": {"per_row": [[ordered], None]}})
    assert json.dumps(venv.state_dict(0)) == want
    assert json.dumps(venv.state_dict(1)) != want
    for bad in (
        {"dealer": [0, 1, 1]},
        {"dealer": 9},
        {"decks": [["AS"]]},
        {"decks": {"rows": []}},
        {"decks": {"per_row": [None]}},
    ):
        with pytest.raises(ValueError):
            venv.reset(options=bad)


@pytest.mark.parametrize(
    "game, config",
    [
        ("pepper_v0", {"num_players": 4.0}),
        ("pepper_v0", {"num_players": True}),
        ("pepper_v0", {"target_score": 2**70}),
        ("pepper_v0", {"max_hands": 2**63}),
        ("cancellation_hearts_v0", {"num_players": 6.0}),
        ("spit_v0", {"stockpiles": 5.0}),
        ("spit_v0", {"variant": "speed", "speed_side_piles": 10.0}),
        ("spit_v0", {"max_ticks": 2**63}),
        ("push_v0", {"rounds": [2, 1]}),
        ("push_v0", {"rounds": (5, 4, 3)}),
        ("push_v0", {"rounds": [1, np.int64(1)]}),
        ("push_v0", {"rounds": {1: 2}}),
        ("push_v0", {"max_turns": 2**63}),
    ],
)
def test_bad_config_values_are_refused(game, config):
    option = list(config)[-1]  # the bad one
    with pytest.raises(ValueError, match=option):
        cardenvs.make(game, **config)
    with pytest.raises(ValueError, match=option):
        V.make(game, 2, **config)


def test_integer_options_accept_numpy_integers():
    env = cardenvs.make("pepper_v0", num_players=np.int64(3), target_score=np.int32(20))
    env.reset(seed=0)
    assert len(env.possible_agents) == 3


@pytest.mark.parametrize("game", TURN_BASED)
def test_text_render_says_whose_view_it_is(game):
    env = cardenvs.make(game, render_mode="ansi")
    env.reset(seed=4)
    assert env.render().startswith("spectator's view (every hand shown)")
    hands = env.unwrapped.state_dict()["hands"]
    for seat in range(len(hands)):
        text = env.render(seat=seat)
        assert text.startswith(f"player_{seat}'s view")
        assert all(card in text for card in hands[seat])
        assert text.count("##") >= sum(len(h) for s, h in enumerate(hands) if s != seat)  # face down
    with pytest.raises(ValueError):
        env.render(seat=len(hands))
