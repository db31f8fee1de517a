"""The Pepper env: PettingZoo's own conformance tests (api, seed, render) for
every player count and config, its spaces, and the observation layout
(every index described once, the writer putting each field where the layout
says)."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from cardenvs import pepper_v0
from cardenvs.core.layout import LEFT_MAX
from cardenvs.games.pepper import observation
from cardenvs.games.pepper.observation import LAYOUT, SEAT
from cardenvs.games.pepper.tables import CALL_WORDS, DECK, SUITS

CONFIGS = [
    {"num_players": 4},
    {"num_players": 3},
    {"num_players": 2},
    {"num_players": 4, "reward": "score_delta", "all_pass": "redeal"},
]
IDS = [str(cfg) for cfg in CONFIGS]


# --------------------------------------------------------------------------- PettingZoo conformance
@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_api(cfg):
    api_test(pepper_v0.env(**cfg), num_cycles=300)


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_seed(cfg):
    seed_test(lambda render_mode=None: pepper_v0.env(render_mode=render_mode, **cfg), num_cycles=100)


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_render(cfg):
    render_test(lambda render_mode=None: pepper_v0.env(render_mode=render_mode, **cfg))


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_ansi_render_shows_the_table(cfg):
    env = pepper_v0.env(render_mode="ansi", **cfg)
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "player_0" in text and "phase bidding" in text


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_spaces_are_the_same_objects(cfg):
    env = pepper_v0.env(**cfg)
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)


# --------------------------------------------------------------------------- the observation layout
def test_layout_covers_every_index_exactly_once():
    covered = np.zeros(LAYOUT.size, int)
    for field in LAYOUT:
        if field.parts is None:
            covered[field.offset : field.stop] += 1
            continue
        assert field.size == field.parts.size
        for k in range(field.count):
            for part in field.parts:
                start = field.offset + k * field.size + part.offset
                covered[start : start + part.span] += 1
    assert covered.tolist() == [1] * LAYOUT.size
    assert LAYOUT.size == observation.OBS_SIZE == pepper_v0.raw_env().rules.obs_size == 299
    assert SEAT.size == observation.SEAT_PLANES == 60


def test_writer_offsets_are_the_layouts():
    """The constants the writer kernel and the rules' public planes use are the layout's offsets."""
    for name in ("hand", "seats", "high_bid", "bidder", "trump", "phase", "leader", "dealer", "num_players"):
        assert getattr(observation, name.upper()) == LAYOUT[name].offset
    for name in ("table", "played", "bid", "tricks", "score"):
        assert getattr(observation, name.upper()) == SEAT[name].offset
    assert LAYOUT["phase"].size == observation.PHASE_SIZE


def test_bounds_come_from_the_layout():
    low, high = LAYOUT.bounds()
    np.testing.assert_array_equal(observation.OBS_LOW, low)
    np.testing.assert_array_equal(observation.OBS_HIGH, high)
    seats = LAYOUT["seats"]
    tricks = [seats.offset + k * seats.size + SEAT["tricks"].offset for k in range(seats.count)]
    scores = [seats.offset + k * seats.size + SEAT["score"].offset for k in range(seats.count)]
    assert (high[tricks] == 8).all() and (low[scores] == -np.inf).all() and (high[scores] == np.inf).all()
    left = LAYOUT["hands_left"].offset
    assert low[left] == 0 and high[left] == LEFT_MAX
    others = np.setdiff1d(np.arange(LAYOUT.size), [*tricks, *scores, left])
    assert (low[others] == 0).all() and (high[others] == 1).all()


def one_hot(size: int, index: int | None) -> list[int]:
    return [int(i == index) for i in range(size)]


def expected_observation(raw, viewer: int) -> dict[str, list[int]]:
    """Every field of ``viewer``'s observation, read from ``state_dict()``
    (and the trick leader from the state) by the layout's meanings."""
    sd, state = raw.state_dict(), raw._state
    n = sd["num_players"]

    def rel(seat: int | None) -> int | None:
        return None if seat is None or seat < 0 else (seat - viewer) % n

    def cards(texts: list[str]) -> list[int]:
        return [texts.count(c) for c in DECK.texts]

    want = {"hand": cards(sd["hands"][viewer])}
    for k in range(LAYOUT["seats"].count):
        seat = (viewer + k) % n
        if k >= n:
            want[f"seat{k}"] = [0] * SEAT.size
            continue
        table = [c["card"] for c in sd["trick"] if c["seat"] == seat]
        played = [c["card"] for t in sd["tricks"] for c in t["cards"] if c["seat"] == seat]
        bid = sd["bids"][seat]
        want[f"seat{k}"] = (
            cards(table)
            + cards(played)
            + one_hot(SEAT["bid"].size, None if bid is None else CALL_WORDS.index(bid))
            + [sd["tricks_won"][seat], sd["scores"][seat]]
        )
    bid = sd["bid"]
    want["high_bid"] = one_hot(LAYOUT["high_bid"].size, 0 if bid is None else CALL_WORDS.index(bid["value"]))
    want["bidder"] = one_hot(LAYOUT["bidder"].size, rel(None if bid is None else bid["seat"]))
    trump = sd["trump"]
    want["trump"] = one_hot(LAYOUT["trump"].size, 0 if trump is None else 1 + [*SUITS, "none"].index(trump))
    phases = ("bidding", "choosing_trump", "playing")
    want["phase"] = one_hot(LAYOUT["phase"].size, phases.index(sd["phase"]) if sd["phase"] in phases else None)
    want["leader"] = one_hot(LAYOUT["leader"].size, rel(int(state.leader[0])))
    want["dealer"] = one_hot(LAYOUT["dealer"].size, rel(sd["dealer"]))
    want["num_players"] = one_hot(LAYOUT["num_players"].size, n - 2)
    want["hands_left"] = [raw.rules.max_hands - sd["hand_number"]]
    return want


def observed_fields(obs: np.ndarray) -> dict[str, list[int]]:
    """``obs`` cut into the layout's fields (one entry per relative seat's block)."""
    got = {}
    for field in LAYOUT:
        if field.parts is None:
            got[field.name] = obs[field.offset : field.stop].tolist()
        else:
            for k in range(field.count):
                start = field.offset + k * field.size
                got[f"seat{k}"] = obs[start : start + field.size].tolist()
    return got


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_every_field_is_where_the_layout_says(cfg):
    """Random games: at every step, every seat's observation, cut by the
    layout, holds exactly what the state says each field means."""
    env = pepper_v0.env(max_hands=3, **cfg)
    raw = env.unwrapped
    rng = np.random.default_rng(7)
    env.reset(seed=11)
    low, high = LAYOUT.bounds()
    steps = 0
    for _agent in env.agent_iter(max_iter=400):
        obs, _, term, trunc, _ = env.last()
        for viewer, name in enumerate(env.possible_agents):
            seen = env.observe(name)["observation"]
            assert (seen >= low).all() and (seen <= high).all()
            assert observed_fields(seen) == expected_observation(raw, viewer), (steps, viewer)
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    assert steps > 40  # hands played through to the end of the game
