"""Replay files are input from anywhere: every malformed one (wrong types at
every field, truncated JSON, a list where a card is, huge numbers, unknown
games...) gives a ReplayError (a ValueError) saying what is wrong -- from the
Python API and, as one line with exit code 2, from the command line -- and
never a traceback; a replay that passes is one the viewer can draw."""

from __future__ import annotations

import copy
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import cardenvs
import cardenvs.vector as V
from cardenvs.app import cli
from cardenvs.app.replay import Replay, ReplayError, VectorRecorder, record_game, recording_parallel_env
from cardenvs.app.viewer import build_html

ROOT = pathlib.Path(__file__).resolve().parents[1]
HOSTILE = [
    None,
    True,
    -1,
    1.5,
    2**64,
    10**40,
    "",
    "<img src=x onerror=\"document.body.setAttribute('data-pwned',1)\">",
    "a" * 100_000,
    [],
    {},
    [None],
    [["AS", "KS"]],
    {"k": "AS"},
    "JK",
]
PAYLOAD = HOSTILE[7]


def spit_row_replay() -> Replay:
    """A Spit row of the vector engine: its replay carries every state."""
    engine = V.make("spit_v0", 3, seed=1, max_ticks=24)
    rec = VectorRecorder(engine, "spit_v0", row=1, seed=2, max_ticks=24)
    _, info = rec.reset()
    rng = np.random.default_rng(0)
    while not rec.finished:
        mask = info["action_mask"]
        _, _, _, _, info = rec.step((rng.random(mask.shape) * mask).argmax(-1))
    return rec.replay


def spit_replay() -> Replay:
    env = recording_parallel_env("spit_v0", max_ticks=12)
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(4)
    while env.agents:
        obs, *_ = env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})
    return env.replay


@pytest.fixture(scope="module")
def bases() -> dict[str, dict]:
    pepper = record_game("pepper_v0", "random", seed=3, config={"num_players": 3, "max_hands": 1}, max_steps=30)
    return {"pepper": pepper.to_dict(), "spit": spit_replay().to_dict(), "spit_row": spit_row_replay().to_dict()}


def leaf_paths(value, path=()):
    """Every path into a JSON value (containers and leaves)."""
    yield path
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        yield from leaf_paths(v, (*path, k))


def set_at(d, path, value):
    d = copy.deepcopy(d)
    target = d
    for k in path[:-1]:
        target = target[k]
    target[path[-1]] = value
    return d


def mutations(name: str, base: dict, rng: np.random.Generator):
    """(label, JSON text) of malformed variants of ``base``."""
    for key in ("format", "version", "game", "config", "seed", "options", "actions", "players", "result", "note"):
        if key in ("format", "version", "game", "actions"):
            yield f"{name} without {key}", json.dumps({k: v for k, v in base.items() if k != key})
        for v in HOSTILE:
            yield f"{name} {key}={str(v)[:20]}", json.dumps({**base, key: v})
    yield f"{name} unknown key", json.dumps({**base, "evil": 1})
    for i in (0, len(base["actions"]) // 2, len(base["actions"]) - 1):
        for v in HOSTILE:
            yield f"{name} action {i}={str(v)[:20]}", json.dumps(set_at(base, ("actions", i), v))
            if isinstance(base["actions"][i], list):
                yield f"{name} action {i}[1]={str(v)[:20]}", json.dumps(set_at(base, ("actions", i, 1), v))
    for path, v in [
        (("config", "num_players"), 10**9),
        (("config", "foo"), 1),
        (("config", "render_mode"), "human"),
        (("config", "max_ticks"), "12"),
        (("players",), ["a", "b", "c", "d", "e"]),
        (("players",), [PAYLOAD, "\x1b[31m", "x"]),
        (("result",), {"scores": [1e308 * 10, 0, 0]}),
        (("result",), {"winners": [7]}),
        (("result",), {"scores": None, "winners": [0], "x": 1}),
        (("options",), {"dealer": 9}),
        (("options",), {"decks": [["AS"] * 24]}),
        (("options",), {"decks": [[PAYLOAD] * 24]}),
        (("options",), {"reset_everything": True}),
        (("game",), "chess_v0"),
        (("version",), 2),
        (("version",), True),
    ]:
        yield f"{name} {'.'.join(map(str, path))}={str(v)[:20]}", json.dumps(set_at(base, path, v))
    text = json.dumps(base)
    for cut in (0, 1, 10, len(text) // 3, len(text) // 2, len(text) - 1):
        yield f"{name} cut at {cut}", text[:cut]
    if base.get("states_recorded"):
        yield from state_mutations(name, base, rng)


def state_mutations(name: str, base: dict, rng: np.random.Generator):
    states = base["states_recorded"]
    yield f"{name} states_recorded=[]", json.dumps({**base, "states_recorded": []})
    yield f"{name} one state short", json.dumps({**base, "states_recorded": states[:-1]})
    yield f"{name} states for pepper", json.dumps({**base, "game": "pepper_v0"})
    for i in (0, len(states) // 2, len(states) - 1):
        paths = [p for p in leaf_paths(states[i]) if p]
        for j in rng.choice(len(paths), size=12, replace=False):
            path = ("states_recorded", i, *paths[j])
            for v in (["<img src=x>", "S"], 10**12, None, "QS", PAYLOAD, {"c": "AS"}, -5):
                yield f"{name} {'.'.join(map(str, path))}={str(v)[:20]}", json.dumps(set_at(base, path, v))
        yield f"{name} state {i} extra key", json.dumps(set_at(base, ("states_recorded", i, "evil"), 1))


def usable(replay: Replay) -> None:
    """An accepted replay is drawn by the viewer (a step that cannot be played: ValueError)."""
    try:
        build_html(replay, max_steps=40)
    except ReplayError:
        raise
    except ValueError as e:
        assert "cannot be played" in str(e)


def test_malformed_replays_give_a_clear_error(bases):
    """Hundreds of malformed files: each a ReplayError of one short line, or a
    replay the viewer draws; never another exception."""
    rng = np.random.default_rng(35)
    rejected, accepted, seen = 0, 0, set()
    for name, base in bases.items():
        Replay.loads(json.dumps(base))  # the base itself is fine
        for label, text in mutations(name, base, rng):
            try:
                replay = Replay.loads(text)
            except ReplayError as e:
                message = str(e)
                assert isinstance(e, ValueError) and message and "\n" not in message and len(message) < 700, label
                assert "Traceback" not in message
                rejected += 1
                seen.add(message.split(":")[0][:30])
                continue
            accepted += 1
            usable(replay)
    assert rejected > 900 and accepted < rejected / 5, (rejected, accepted)
    assert len(seen) > 20  # the messages say different things


@pytest.mark.parametrize(
    "text,words",
    [
        ("null", "a replay is a JSON object, this is null"),
        ("[]", "this is a list"),
        ('"cardenvs-replay"', "this is a string"),
        ("", "not JSON"),
        ("{" * 3, "not JSON"),
        ("[" * 100_000 + "]" * 100_000, "not a replay"),
        ("1" * 5000, "not a replay"),
        ('{"format": "cardenvs-replay", "version": 1, "game": "pepper_v0", "seed": NaN}', "NaN"),
        ('{"format": "cardenvs-replay", "version": 1, "game": "pepper_v0"}', "'seed' is missing"),
        ('{"format": "cardenvs-replay", "version": 1, "game": "poker_v0", "seed": 1}', "unknown game"),
        ('{"format": "x"}', "not a cardenvs replay"),
    ],
)
def test_not_a_replay_at_all(text, words, tmp_path, capsys):
    with pytest.raises(ReplayError, match=words):
        Replay.loads(text)
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ReplayError, match=words) as e:
        Replay.load(str(path))
    assert e.value.path == str(path) and str(e.value).startswith(f"{path}: ")
    assert cli.main(["replay", "view", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cardenvs: error: {path}: ") and err.count("\n") == 1, err


def r04_replay() -> dict:
    """../shared/repros/r04_viewer_xss.py: a card given as a list (an <img onerror>)."""
    e = cardenvs.make("spit_v0")
    e.reset(seed=0)
    s = e.unwrapped.state_dict()
    s["stockpiles"][0][0][-1] = [PAYLOAD, "S"]
    return {"format": "cardenvs-replay", "version": 1, "game": "spit_v0", "actions": [], "states_recorded": [s]}


def test_r04_crafted_card_is_refused_everywhere(tmp_path):
    d = r04_replay()
    with pytest.raises(ValueError, match=r"recorded state 0\['stockpiles'\]\[0\]\[0\]\[0\] must be a card text"):
        Replay.from_dict(d)
    by_hand = Replay("spit_v0", states_recorded=d["states_recorded"])  # not through from_dict: the viewer checks
    with pytest.raises(ReplayError, match="must be a card text"):
        build_html(by_hand)
    for where, card in ((("stockpiles", 0, 0, 0), "QS"), (("spit_piles", 1, 0), "<b>")):
        d = r04_replay()
        state = d["states_recorded"][0]
        state["stockpiles"][0][0][-1] = "KC"  # back as it was
        target = state
        for k in where[:-1]:
            target = target[k]
        target[where[-1]] = card
        with pytest.raises(ReplayError, match="exactly once|must be a card text"):
            Replay.from_dict(d)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(r04_replay()))
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run(
        [sys.executable, "-m", "cardenvs.app.cli", "replay", "view", str(path), "-o", str(tmp_path / "r.html")],
        capture_output=True,
        text=True,
        timeout=600,  # a guard against a hang
        env=env,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"cardenvs: error: {path}: recorded state 0")
    assert not (tmp_path / "r.html").exists()


def test_replay_commands_fail_with_one_line(tmp_path, bases, capsys):
    game = tmp_path / "g.json"
    game.write_text(json.dumps(bases["pepper"]))
    cases = [
        (["replay", "view", str(tmp_path / "missing.json")], f"{tmp_path / 'missing.json'}: No such file"),
        (["replay", "view", str(game), "-o", str(tmp_path / "no" / "g.html")], "No such file or directory"),
        (["replay", "view", str(game), "--max-steps", "0"], "--max-steps must be >= 1"),
        (["replay", "picture", str(game), "--viewpoint", "x"], "--viewpoint spectator or a seat"),
        (["replay", "picture", str(game), "--viewpoint", "7", "-o", str(tmp_path / "t.svg")], "seat"),
        (["replay", "picture", str(game), "-o", str(tmp_path / "t.unknown")], "error: "),
        (["replay", "record", "pepper", "-o", str(tmp_path / "no" / "r.json")], "No such file or directory"),
        (["replay", "record", "pepper", "--seed", "-3"], "--seed must be a non-negative integer"),
        (["play", "pepper", "--save-replay", str(tmp_path / "no" / "g.json")], "its folder does not exist"),
    ]
    for argv, words in cases:
        assert cli.main(argv) == 2, argv
        err = capsys.readouterr().err
        line = [x for x in err.splitlines() if x.startswith("cardenvs: ")]
        assert len(line) == 1 and words in line[0], (argv, err)
        assert "Traceback" not in err
