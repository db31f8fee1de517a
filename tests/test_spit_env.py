"""The Spit / Speed env (``cardenvs.spit_v0``): PettingZoo's conformance tests
(AEC view and parallel env), its spaces and render; the rules picked by
``variant``; the observation layouts (every index named once, the bounds of
the observation space, the writers' offsets).  Speed's tests live with
Spit's: they are one env, ``variant="speed"``."""

from __future__ import annotations

import json

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, render_test, seed_test

import cardenvs
import cardenvs.vector as V
from cardenvs import spit_v0
from cardenvs.core.layout import LEFT_MAX
from cardenvs.core.simultaneous import SimultaneousVectorEnv
from cardenvs.games.spit import observation as spit_observation
from cardenvs.games.spit.rules import SpitRules, spit_rules
from cardenvs.games.spit.speed import observation as speed_observation
from cardenvs.games.spit.speed.rules import SpeedRules

FULL = sorted(r + s for s in "CDHS" for r in "23456789TJQKA")
FULL_BY_ID = [r + s for s in "CDHS" for r in "23456789TJQKA"]  # in card id order
CONFIGS = [
    {},
    {"variant": "speed"},
    {"stockpiles": 4, "alternate_colors": True},
    {"variant": "speed", "speed_side_piles": 5, "target_score": 30, "reward": "cards_shed"},
]
IDS = ["spit", "speed", "spit-4-alternate", "speed-5-target"]


# --------------------------------------------------------------------------- PettingZoo conformance
@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_pettingzoo_api(cfg):
    api_test(spit_v0.env(**cfg), num_cycles=300)
    parallel_api_test(spit_v0.parallel_env(**cfg), num_cycles=300)


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_pettingzoo_seed(cfg):
    seed_test(lambda render_mode=None: spit_v0.env(render_mode=render_mode, **cfg), num_cycles=100)
    # parallel_seed_test samples actions without the mask: illegal ones are waits
    parallel_seed_test(lambda: spit_v0.parallel_env(illegal_action="wait", **cfg), num_cycles=100)


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_render(cfg, capsys):
    render_test(lambda render_mode=None: spit_v0.env(render_mode=render_mode, **cfg))
    env = spit_v0.parallel_env(render_mode="ansi", **cfg)
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "player_0" in text and "player_1" in text and "phase playing" in text
    human = spit_v0.parallel_env(render_mode="human", **cfg)
    human.reset(seed=0)
    assert "player_0" in capsys.readouterr().out


def test_spaces_are_the_same_objects():
    for make in (spit_v0.env, spit_v0.parallel_env):
        env = make()
        for agent in env.possible_agents:
            assert env.observation_space(agent) is env.observation_space(agent)
            assert env.action_space(agent) is env.action_space(agent)


def test_aec_view_checks_each_action_when_submitted():
    env = spit_v0.env()
    env.reset(seed=0, options={"decks": [sorted(FULL)]})
    raw = env.unwrapped
    before = json.dumps(raw.state_dict(), sort_keys=True)
    with pytest.raises(cardenvs.IllegalActionError):
        env.step(raw.str_to_action("slap 0"))
    assert env.agent_selection == "player_0"
    env.step(0)  # player_0 waits: nothing happens until player_1 acts
    assert env.agent_selection == "player_1"
    assert json.dumps(raw.state_dict(), sort_keys=True) == before
    env.step(0)
    assert env.agent_selection == "player_0" and raw.state_dict()["tick"] == 1


# --------------------------------------------------------------------------- the rules of each variant
def test_the_variant_picks_the_rules_class():
    assert type(spit_rules()) is SpitRules and type(spit_rules(variant="speed")) is SpeedRules
    assert type(spit_rules(stockpiles=4)) is SpitRules and spit_rules(stockpiles=4).stockpiles == 4
    assert V.rules_class("spit_v0") is spit_rules
    assert spit_rules.vector_env_class is SimultaneousVectorEnv  # read before building (training.seat_env)
    assert isinstance(V.make("spit_v0", 2, variant="speed"), SimultaneousVectorEnv)
    assert type(spit_v0.parallel_env(variant="speed").unwrapped.rules) is SpeedRules
    assert type(spit_v0.env().unwrapped.rules) is SpitRules
    # another variant's option is accepted at its default only
    assert type(spit_rules(variant="speed", stockpiles=5)) is SpeedRules
    assert type(spit_rules(speed_side_piles=10, target_score=None)) is SpitRules
    for bad, option in (
        ({"variant": "speed", "stockpiles": 4}, "stockpiles"),
        ({"speed_side_piles": 5}, "speed_side_piles"),
        ({"target_score": 10}, "target_score"),
    ):
        with pytest.raises(ValueError, match=option):
            spit_rules(**bad)


# --------------------------------------------------------------------------- observation layouts
def covered(layout, start=0) -> list[int]:
    """Every index the layout's fields (and their parts) cover, in order."""
    out = []
    for field in layout:
        for repeat in range(field.count):
            at = start + field.offset + repeat * field.size
            out += covered(field.parts, at) if field.parts is not None else list(range(at, at + field.size))
    return out


LAYOUTS = {
    "spit": spit_observation.LAYOUT,
    "speed": speed_observation.LAYOUT,
    "speed-target": speed_observation.speed_layout(speed_observation.score_bound(300)),
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_layout_covers_every_index_exactly_once(name):
    layout = LAYOUTS[name]
    assert covered(layout) == list(range(layout.size))
    assert all(field.meaning for field in layout)
    low, high = layout.bounds()
    assert low.shape == high.shape == (layout.size,) and (low <= high).all()
    assert layout.markdown().count("\n") >= len(layout.fields) + 1


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_observation_space_is_the_layouts(cfg):
    """The space's size and bounds come from the layout and are the ones the
    env had before the layouts (every number 0..1 except counts and scores)."""
    env = spit_v0.parallel_env(**cfg)
    box = env.observation_space("player_0")["observation"]
    high = np.ones(box.shape, np.float64)
    if cfg.get("variant") == "speed":
        layout = speed_observation.speed_layout(speed_observation.score_bound(cfg.get("target_score")))
        high[86:94] = 52
        high[96:98] = (cfg.get("target_score") or 1) + 52
        high[98] = LEFT_MAX  # ticks left before stall_ticks (the stall rule)
        high[99] = LEFT_MAX  # ticks left before max_ticks
    else:
        layout = spit_observation.LAYOUT
        high[17:180:18] = 4  # face-down cards under a stockpile top
        high[197:216:18] = 52  # spit pile sizes
        high[216:218] = 52  # spit cards left
        high[222] = LEFT_MAX  # ticks left before stall_ticks (the stall rule)
        high[234] = LEFT_MAX  # ticks left before max_ticks
    assert box.shape == (layout.size,)
    np.testing.assert_array_equal(box.low, np.zeros(layout.size))
    np.testing.assert_array_equal(box.high, high)
    np.testing.assert_array_equal(box.high, layout.bounds()[1])


def read_card(obs: np.ndarray, at: int) -> str | None:
    """The card whose code (the layout's ``CARD``) starts at ``at``."""
    card = spit_observation.CARD
    rank = obs[at + card["rank"].offset : at + card["rank"].stop]
    suit = obs[at + card["suit"].offset : at + card["suit"].stop]
    if not rank.any() and not suit.any():
        return None
    assert rank.sum() == 1 and suit.sum() == 1
    return "23456789TJQKA"[int(rank.argmax())] + "CDHS"[int(suit.argmax())]


def check_spit_observation(obs: np.ndarray, sd: dict, seat: int) -> None:
    """Read every field of a Spit observation at the layout's offsets and
    compare it with the state."""
    layout, stockpile, pile = spit_observation.LAYOUT, spit_observation.STOCKPILE, spit_observation.SPIT_PILE
    for name, owner in (("own_stockpiles", seat), ("opponent_stockpiles", 1 - seat)):
        piles = sd["stockpiles"][owner] + [[]] * (5 - len(sd["stockpiles"][owner]))
        for i, cards in enumerate(piles):
            at = layout[name].offset + i * stockpile.size
            assert read_card(obs, at + stockpile["top"].offset) == (cards[-1] if cards else None)
            assert obs[at + stockpile["face_down"].offset] == max(len(cards) - 1, 0)
    for p, cards in enumerate(sd["spit_piles"]):
        at = layout["spit_piles"].offset + p * pile.size
        assert read_card(obs, at + pile["top"].offset) == (cards[-1] if cards else None)
        assert obs[at + pile["size"].offset] == len(cards)
    assert obs[layout["own_spit_cards"].offset] == len(sd["spit_cards"][seat])
    assert obs[layout["opponent_spit_cards"].offset] == len(sd["spit_cards"][1 - seat])
    assert obs[layout["playing"].offset] == (sd["phase"] == "playing")
    assert obs[layout["slapping"].offset] == (sd["phase"] == "slapping")
    assert list(obs[layout["seat"].offset : layout["seat"].stop]) == [seat == 0, seat == 1]
    assert not obs[layout["padding"].offset : layout["padding"].stop].any()


def check_speed_observation(obs: np.ndarray, sd: dict, seat: int) -> None:
    """Read every field of a Speed observation at the layout's offsets and
    compare it with the state."""
    layout, card = speed_observation.LAYOUT, spit_observation.CARD
    held = [FULL_BY_ID[c] for c in np.flatnonzero(obs[layout["hand"].offset : layout["hand"].stop])]
    assert sorted(held) == sorted(sd["hands"][seat])
    for p, cards in enumerate(sd["spit_piles"]):
        assert read_card(obs, layout["centre_tops"].offset + p * card.size) == (cards[-1] if cards else None)
    counts = {
        "own_hand_count": len(sd["hands"][seat]),
        "opponent_hand_count": len(sd["hands"][1 - seat]),
        "own_stock_count": len(sd["stocks"][seat]),
        "opponent_stock_count": len(sd["stocks"][1 - seat]),
        "own_score": sd["scores"][seat],
        "opponent_score": sd["scores"][1 - seat],
    }
    for name, value in counts.items():
        assert obs[layout[name].offset] == value, name
    for name, piles in (("side_pile_counts", sd["side_piles"]), ("centre_counts", sd["spit_piles"])):
        assert list(obs[layout[name].offset : layout[name].stop]) == [len(piles[0]), len(piles[1])]
    assert list(obs[layout["seat"].offset : layout["seat"].stop]) == [seat == 0, seat == 1]


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_observation_writers_use_the_layout_offsets(cfg):
    """In random games, every number each player observes is where the
    layout says and means what it says."""
    env = spit_v0.parallel_env(max_ticks=150, **cfg)
    check = check_speed_observation if cfg.get("variant") == "speed" else check_spit_observation
    rng = np.random.default_rng(5)
    for seed in range(2):
        obs, _ = env.reset(seed=seed)
        while env.agents:
            sd = env.unwrapped.state_dict()
            for seat, agent in enumerate(env.possible_agents):
                check(obs[agent]["observation"], sd, seat)
            obs, *_ = env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})


SPIT_RENDER = """Spit tick 3, deal 1, phase done, scores [0, 0]
player_0: [KC] [#9D] [##JS] [###9S] [####4S]  spit cards 10
spit pile 0: 6S (1 cards)  pile 1: QC (1 cards)
player_1: [5S] [#KD] [##QD] [###6H] [####6C]  spit cards 10
game over: truncated (draw)"""
SPEED_RENDER = """Speed tick 0, game 1, phase playing, scores [0, 0]
player_0: hand 4C 5C KC 2D 9D  stock 10
centre pile 0: 3H (1 cards)  pile 1: 2H (1 cards)  side piles 10/10
player_1: hand AD 7H 2S 6S 7S  stock 10"""


def test_render_text():
    """The render of each variant, line for line (as before the rules were split)."""
    env = spit_v0.parallel_env(render_mode="ansi", max_ticks=3)
    env.reset(seed=0)
    for _ in range(3):
        env.step({"player_0": 0, "player_1": 0})
    assert env.render() == "spectator's view (every hand shown)\n" + SPIT_RENDER
    assert env.unwrapped.rules.winners(env.unwrapped._state) == []  # a truncation has no winner
    speed = spit_v0.parallel_env(render_mode="ansi", variant="speed")
    speed.reset(seed=0)
    assert speed.render() == "spectator's view (every hand shown)\n" + SPEED_RENDER


# --- the vector engine's rows= (as the turn-based engine's) ------------------
@pytest.mark.parametrize("cfg", [{}, {"variant": "speed"}])
def test_vector_step_rows_plays_those_games_only(cfg):
    """``step(actions, rows=...)`` plays a tick in the games ``rows`` (an index
    array or a bool mask): the others keep their state, get 0 and are not
    done, and their actions -- even illegal ones -- are not looked at."""
    venv = V.make("spit_v0", 6, seed=3, **cfg)
    _, info = venv.reset()
    rng = np.random.default_rng(0)
    for rows in ([1, 4], np.array([True, False, False, True, True, False])):
        chosen = np.zeros(6, bool)
        chosen[rows] = True
        before = [json.dumps(venv.state_dict(i)) for i in range(6)]
        mask = info["action_mask"]
        actions = (rng.random(mask.shape) * mask).argmax(-1)
        actions[~chosen] = venv.num_actions + 5  # out of range, in rows not played
        obs, rewards, terminated, truncated, info = venv.step(actions, rows=rows)
        for i in range(6):
            state = venv.state_dict(i)
            if chosen[i]:
                assert state["tick"] == json.loads(before[i])["tick"] + 1
            else:
                assert json.dumps(state) == before[i]
                assert not rewards[i].any() and not terminated[i] and not truncated[i]
        np.testing.assert_array_equal(obs, venv.observe())


def test_vector_step_rows_checks_before_anything_changes():
    venv = V.make("spit_v0", 4, seed=0)
    _, info = venv.reset()
    legal = info["action_mask"].argmax(-1)
    before = [json.dumps(venv.state_dict(i)) for i in range(4)]
    for rows in ([0.5], np.array([True, False]), [7], [-1], [1, 1], [[0, 1]]):
        with pytest.raises((TypeError, ValueError)):
            venv.step(legal, rows=rows)
    wrong = legal.copy()
    wrong[2] = np.flatnonzero(~info["action_mask"][2, 0])[0], 0  # illegal for player_0 of game 2
    with pytest.raises(cardenvs.IllegalActionError, match="row 2 player_0"):
        venv.step(wrong, rows=[1, 2])
    assert [json.dumps(venv.state_dict(i)) for i in range(4)] == before
    venv.step(wrong, rows=[0, 1, 3])  # game 2 not played: its action is not looked at
    assert json.dumps(venv.state_dict(2)) == before[2]


def test_vector_step_rows_forfeit_ends_only_the_offenders_game():
    venv = V.make("spit_v0", 4, seed=0, illegal_action="terminate")
    _, info = venv.reset()
    actions = info["action_mask"].argmax(-1)
    actions[1, 1] = np.flatnonzero(~info["action_mask"][1, 1])[0]
    actions[3, 0] = venv.num_actions  # out of range, but game 3 is not played
    _, rewards, terminated, _, info = venv.step(actions, rows=[0, 1, 2])
    assert terminated.tolist() == [False, True, False, False]
    assert rewards[1].tolist() == [0.0, -1.0] and info["_final_obs"].tolist() == [False, True, False, False]
