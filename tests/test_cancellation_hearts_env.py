"""The Cancellation Hearts env: PettingZoo's own conformance tests (6 to 11
players), and the observation layout (``observation.LAYOUT``) against the
spaces and the writer."""

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from cardenvs import cancellation_hearts_v0
from cardenvs.games.cancellation_hearts import observation as ob
from cardenvs.games.cancellation_hearts.observation import CARD, LAYOUT
from cardenvs.games.cancellation_hearts.rules import CancellationHeartsRules

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
        assert env.observation_space(agent)["observation"].shape == (478,)
        assert env.observation_space(agent)["action_mask"].dtype == np.int8


def test_human_render_prints(capsys):
    env = cancellation_hearts_v0.env(render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    assert "Cancellation Hearts" in capsys.readouterr().out


# --------------------------------------------------------------------------- the layout
def test_layout_covers_every_index_exactly_once():
    covered = np.zeros(LAYOUT.size, np.int64)
    for field in LAYOUT:
        for k in range(field.count):
            start = field.offset + k * field.size
            if field.parts is None:
                covered[start : start + field.size] += 1
            else:
                for part in field.parts:
                    covered[start + part.offset : start + part.stop] += 1
    assert (covered == 1).all()
    assert LAYOUT.size == ob.OBS_SIZE == 478
    assert all(field.meaning for field in LAYOUT)


@pytest.mark.parametrize("num_players", [6, 11])
def test_spaces_are_the_layouts(num_players):
    env = cancellation_hearts_v0.env(num_players=num_players)
    box = env.observation_space("player_0")["observation"]
    low, high = LAYOUT.bounds()
    limit = np.iinfo(np.int16)
    assert box.shape == (LAYOUT.size,) and box.dtype == np.int16
    np.testing.assert_array_equal(box.low, np.clip(low, limit.min, limit.max))
    np.testing.assert_array_equal(box.high, np.clip(high, limit.min, limit.max))


def field(obs, name, k=0):
    """The entries of field ``name`` (repeat ``k``) of an observation."""
    f = LAYOUT[name]
    start = f.offset + k * f.size
    return obs[start : start + f.size]


@pytest.mark.parametrize("num_players", [6, 9, 11])
def test_the_writer_puts_every_source_at_its_layout_field(num_players):
    """Distinct values in every array the observation is written from come
    out in the layout's fields, by relative seat."""
    n = num_players
    rules = CancellationHeartsRules(num_players=n)
    state = rules.new_state(2, np.random.default_rng(0))
    rules.reset(state, np.arange(2))
    rng = np.random.default_rng(1)
    state.hands[:] = rng.integers(0, 3, state.hands.shape)
    state.private[:] = rng.integers(0, 3, state.private.shape)
    state.public[:] = rng.integers(0, 3, state.public.shape)
    state.seen_points[:] = rng.integers(0, 53, state.seen_points.shape)
    state.scores[:] = rng.integers(-26, 200, state.scores.shape)
    state.leader[:], state.dealer[:], state.widow_holder[:] = [1, n - 1], [2, 0], [n - 1, -2]
    for row in range(2):
        for seat in range(n):
            obs = rules.observe(state, np.array([seat]), np.array([row]))[0]
            others = (seat + np.arange(n)) % n  # absolute seat of each relative seat
            np.testing.assert_array_equal(field(obs, "hand"), state.hands[row, seat])
            np.testing.assert_array_equal(field(obs, "passed"), state.private[row, seat, ob.PASSED : ob.RECEIVED])
            np.testing.assert_array_equal(field(obs, "received"), state.private[row, seat, ob.RECEIVED : ob.KEPT_SIZE])
            np.testing.assert_array_equal(field(obs, "points")[:n], state.seen_points[row, others])
            np.testing.assert_array_equal(field(obs, "scores")[:n], state.scores[row, others])
            for name in ("points", "scores", "leader", "dealer", "widow_holder"):
                assert not field(obs, name)[n:].any()  # seats that do not exist
            for name, holder in (
                ("leader", state.leader),
                ("dealer", state.dealer),
                ("widow_holder", state.widow_holder),
            ):
                expected = np.zeros(ob.MAX_SEATS, np.int16)
                if holder[row] >= 0:
                    expected[(holder[row] - seat) % n] = 1
                np.testing.assert_array_equal(field(obs, name), expected)
            np.testing.assert_array_equal(obs[LAYOUT["trick"].offset : LAYOUT["num_players"].stop], state.public[row])
            assert field(obs, "hands_left").tolist() == [0]  # no max_hands


def test_the_rules_write_the_public_fields_at_the_layouts_offsets():
    """The phase, the pass direction, the player count and a played card
    land in the layout's fields (the rules tests check the others through
    the offsets observation.py derives from the layout)."""
    n = 8
    env = cancellation_hearts_v0.env(num_players=n, passing="none")
    env.reset(seed=0, options={"dealer": n - 1})
    raw = env.unwrapped
    obs = raw.observe("player_0")["observation"]
    assert field(obs, "phase")[1] == 1 and field(obs, "pass_direction")[0] == 1
    assert field(obs, "num_players")[n - 6] == 1 and field(obs, "num_players").sum() == 1
    state = raw._state
    legal = np.flatnonzero(state.legal[0])
    card = int(legal[0]) - 52
    env.step(int(legal[0]))
    obs = raw.observe("player_1")["observation"]
    block = field(obs, "trick", 0)
    assert block[CARD["suit"].offset + card // 13] == 1 and block[CARD["rank"].offset + card % 13] == 1
    assert block.sum() == 2 and not field(obs, "trick", 1).any()
    assert field(obs, "seen")[card] == 1 and field(obs, "seen").sum() == 1
