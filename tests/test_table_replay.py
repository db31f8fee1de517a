"""Replays: recorded from the AEC env, Spit's parallel env, a vector-engine
row and record_game; saved as JSON; re-played into the very same states;
and the self-contained HTML viewer's data."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import cardenvs.vector as V
from cardenvs.app import games
from cardenvs.app.replay import (
    Replay,
    VectorRecorder,
    record_game,
    recording_env,
    recording_parallel_env,
)
from cardenvs.app.viewer import build_html, delta_decode, viewer_data

SHORT = [
    ("pepper_v0", {"num_players": 3, "max_hands": 2}),
    ("cancellation_hearts_v0", {"num_players": 8, "max_hands": 1}),
    ("push_v0", {"rounds": [2], "max_turns": 10}),
    ("spit_v0", {"max_ticks": 60}),
    ("spit_v0", {"variant": "speed", "max_ticks": 60}),
]


def live_aec_game(game, config, seed):
    env = recording_env(game, **config)
    env.reset(seed=seed, options={"dealer": 1})
    rng = np.random.default_rng(seed)
    states = [env.unwrapped.state_dict()]
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        states.append(env.unwrapped.state_dict())
    return env.replay, states


@pytest.mark.parametrize("game,config", SHORT, ids=[g + str(c) for g, c in SHORT])
def test_aec_recording_replays_into_the_same_states(game, config, tmp_path):
    replay, states = live_aec_game(game, config, seed=5)
    assert replay.result is not None and states[-1]["done"]
    path = tmp_path / "game.json"
    replay.save(str(path))
    loaded = Replay.load(str(path))
    assert loaded == replay
    again = loaded.states()
    if replay.simultaneous:  # a tick is two AEC steps: compare once per tick
        states = states[::2]
    assert again == states
    assert path.stat().st_size < 20_000


def test_parallel_recording_and_vector_rows_replay():
    env = recording_parallel_env("spit_v0", max_ticks=80)
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(2)
    live = [env.unwrapped.state_dict()]
    while env.agents:
        acts = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        obs, *_ = env.step(acts)
        live.append(env.unwrapped.state_dict())
    assert env.replay.states() == live and all(len(t) == 2 for t in env.replay.actions)

    for game, config in [("pepper_v0", {"max_hands": 3}), ("push_v0", {"rounds": [1]}), ("spit_v0", {})]:
        engine = V.make(game, 6, seed=1, **config)
        rec = VectorRecorder(engine, game, row=4, seed=9, **config)
        _, info = rec.reset()
        seen = []
        while not rec.finished:
            seen.append(engine.state_dict(4))
            mask = info["action_mask"]
            _, _, _, _, info = rec.step((rng.random(mask.shape) * mask).argmax(-1))
        replay = Replay.from_dict(json.loads(rec.replay.dumps()))
        states = replay.states()
        assert states[:-1] == seen, game
        assert [float(s) for s in states[-1]["scores"]] == replay.result["scores"]


def test_record_game_with_agents_and_bad_replays():
    def first_legal(obs, mask):
        return int(np.flatnonzero(mask)[0])

    r = record_game("pepper_v0", [first_legal, "random", first_legal, "random"], seed=3, config={"max_hands": 1})
    assert r.players == ["first_legal", "random", "first_legal", "random"]
    assert r.states()[-1]["done"] and r.result["winners"]
    short = record_game("push_v0", "random", seed=1, config={"rounds": [1]}, max_steps=7)
    assert len(short.actions) == 7 and short.result is None
    with pytest.raises(ValueError, match="not a cardenvs replay"):
        Replay.from_dict({"game": "pepper_v0"})
    with pytest.raises(ValueError, match="unknown game"):
        Replay.from_dict({**r.to_dict(), "game": "chess_v0"})
    with pytest.raises(ValueError, match="action 3 'bid 99' is not an action of pepper_v0"):
        Replay.from_dict({**r.to_dict(), "actions": r.actions[:3] + ["bid 99"]})
    broken = Replay.from_dict({**r.to_dict(), "actions": r.actions[:3] + ["play 9C"]})  # a text, not legal there
    with pytest.raises(ValueError, match="replay step 3"):
        broken.states()
    with pytest.raises(ValueError, match="seats"):
        record_game("pepper_v0", ["random"] * 3, config={})


def test_viewer_is_one_self_contained_file_with_every_step():
    replay, states = live_aec_game("cancellation_hearts_v0", {"num_players": 6, "max_hands": 1}, seed=1)
    page = build_html(replay)
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", page)
    assert "fetch(" not in page and "import(" not in page
    assert set(re.findall(r"https?://[^\s\"'<>]+", page)) <= {"http://www.w3.org/2000/svg"}
    blob = re.search(r'<script id="data" type="application/json">(.*?)</script>', page, re.S).group(1)
    data = json.loads(blob.replace("<\\/", "</"))
    steps = delta_decode(data["steps"])
    assert len(steps) == len(states) == len(replay.actions) + 1 and not data["cut"]
    for k in (0, 1, len(states) // 2, len(states) - 1):
        scene = {"w": data["w"], "h": data["h"], "items": [data["items"][i] for i in steps[k]]}
        assert scene == games.build(states[k]).done()
    # passed cards are captioned without the card for the other seats
    passes = [c for c in data["captions"] if c and c[1].startswith("pass ")]
    assert passes and all(c[2] == 1 for c in passes)
    cut = viewer_data(replay, max_steps=10, start=5)
    assert len(cut["steps"]) == 10 and cut["cut"] and cut["start"] == 5


@pytest.mark.parametrize("game", ["pepper_v0", "spit_v0"])
def test_a_reset_without_a_seed_records_one_that_replays(game):
    """R11: an unseeded reset draws a seed (0 <= seed < 2**31) and records it,
    so the replay re-plays; after a seeded reset the drawn seeds come from the
    env's generator, so reset(seed=s) then reset() stays deterministic."""
    env = recording_parallel_env(game) if game == "spit_v0" else recording_env(game, max_hands=1)
    drawn = []
    for first in (7, 7, None):
        env.reset(seed=first)
        env.reset()
        drawn.append(env.replay.seed)
    assert all(isinstance(s, int) and 0 <= s < 2**31 for s in drawn)
    assert drawn[0] == drawn[1]  # seeded first: the same seed drawn again
    rng = np.random.default_rng(0)
    live = [env.unwrapped.state_dict()]
    for _ in range(6):
        if game == "spit_v0":
            obs = env.unwrapped.observations()
            env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.possible_agents})
        else:
            obs, *_ = env.last()
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        live.append(env.unwrapped.state_dict())
    again = Replay.from_dict(json.loads(env.replay.dumps()))
    assert again.seed == drawn[2] and again.states() == live
