"""The play server's JSON API (cardenvs serve), on 127.0.0.1 at a free port:
games played through it, Spit/Speed ticking in real time, and bad requests
that get a clear 4xx error and change nothing."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request

import pytest

from cardenvs.app.replay import Replay
from cardenvs.app.serve import MAX_CATCH_UP, make_server


@pytest.fixture(scope="module")
def server():
    srv = make_server("127.0.0.1", 0, tick=0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def call(server, path, body=None, raw=None, method=None):
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(
        server.url.rstrip("/") + path,
        data=data,
        method=method or ("POST" if data is not None else "GET"),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_bad_requests_get_clear_errors_and_change_nothing(server):
    status, game = call(server, "/api/new", {"game": "pepper", "seat": 0, "vs": "random", "seed": 1})
    assert status == 200 and game["your_turn"] and game["legal"]
    sid = game["session"]
    session = server.sessions[sid]
    before = (session.state(), session.steps, list(session.log), len(server.sessions))
    legal_texts = [m["text"] for m in game["legal"]]
    illegal_id = next(i for i in range(39) if i not in {m["id"] for m in game["legal"]})
    bad = [
        ("/api/move", None, b"{not json", 400, "malformed JSON"),
        ("/api/move", None, b"[1, 2]", 400, "JSON object"),
        ("/api/move", None, b"", 400, "JSON object"),
        ("/api/move", {"session": sid}, None, 400, "'action' is missing"),
        ("/api/move", {"session": sid, "action": "bid 99"}, None, 400, "illegal move 'bid 99'"),
        ("/api/move", {"session": sid, "action": illegal_id}, None, 400, "illegal move"),
        ("/api/move", {"session": sid, "action": 2.5}, None, 400, "text or id"),
        ("/api/move", {"session": sid, "action": True}, None, 400, "text or id"),
        ("/api/move", {"session": "nope", "action": legal_texts[0]}, None, 404, "unknown session"),
        ("/api/move", {"action": legal_texts[0]}, None, 400, "'session' is missing"),
        ("/api/new", {"game": "poker"}, None, 400, "unknown game 'poker'"),
        ("/api/new", {}, None, 400, "'game' must be"),
        ("/api/new", {"game": "pepper", "config": {"num_players": 9}}, None, 400, "num_players"),
        ("/api/new", {"game": "pepper", "config": {"colour": "red"}}, None, 400, "colour"),
        ("/api/new", {"game": "pepper", "seat": 4}, None, 400, "seat must be 0..3"),
        ("/api/new", {"game": "pepper", "vs": "alien"}, None, 400, "unknown agent"),
        ("/api/new", {"game": "spit", "tick": -1}, None, 400, "'tick'"),
        (f"/api/state?session={sid}&viewpoint=2", None, None, 403, "hidden"),
        (f"/api/state?session={sid}&viewpoint=spectator", None, None, 403, "hidden"),
        (f"/api/state?session={sid}&viewpoint=x", None, None, 400, "'viewpoint'"),
        ("/api/state?session=zzz", None, None, 404, "unknown session"),
        ("/api/nothing", None, None, 404, "no such page"),
    ]
    for path, body, raw, code, words in bad:
        status, answer = call(server, path, body, raw)
        assert status == code and words in answer["error"], (path, body, raw, status, answer)
        assert (session.state(), session.steps, list(session.log), len(server.sessions)) == before, path
    status, answer = call(server, "/api/move", method="GET")
    assert status == 405 and "not allowed" in answer["error"]
    # a legal move by its text: played, then the agents reply until it is our turn again
    status, after = call(server, "/api/move", {"session": sid, "action": legal_texts[-1]})
    assert status == 200 and after["steps"] > game["steps"] and f"player_0: {legal_texts[-1]}" in after["log"]
    assert after["your_turn"] and after["legal"]


def test_a_whole_game_through_the_api(server):
    status, s = call(server, "/api/new", {"game": "pepper_v0", "seat": 2, "seed": 3, "config": {"max_hands": 1}})
    assert status == 200
    sid = s["session"]
    while not s["done"]:
        status, s = call(server, "/api/move", {"session": sid, "action": s["legal"][0]["id"]})
        assert status == 200
    assert s["result"]["winners"] and not s["legal"]
    status, answer = call(server, "/api/move", {"session": sid, "action": "pass"})
    assert status == 409 and "over" in answer["error"]
    assert call(server, f"/api/state?session={sid}&viewpoint=spectator")[0] == 200  # all hands, once over
    status, replay = call(server, f"/api/replay?session={sid}")
    assert status == 200 and Replay.from_dict(replay).states()[-1]["done"]
    assert replay["players"][2] == "human"


@pytest.mark.parametrize(
    "body",
    [
        {"game": "cancellation_hearts", "seat": 5, "config": {"num_players": 11}},
        {"game": "push", "seat": 3, "config": {"rounds": [1]}},
        {"game": "spit", "seat": 1},
        {"game": "speed", "seat": 0},
    ],
)
def test_every_game_can_be_played(server, body):
    status, s = call(server, "/api/new", {**body, "seed": 4, "tick": 0})
    assert status == 200, s
    for _ in range(3):
        hidden = [it for it in s["scene"]["items"] if it["k"] == "card" and "o" in it and "c" in it]
        assert all(it["o"] == body["seat"] for it in hidden)  # no other seat's private card in the scene
        legal = s["legal"]
        assert legal and s["your_turn"]
        move = next((m for m in legal if m["text"] != "wait"), legal[0])
        status, s2 = call(server, "/api/move", {"session": s["session"], "action": move["text"]})
        assert status == 200 and s2["steps"] > s["steps"]
        s = s2


def test_spit_runs_in_real_time(server):
    status, s = call(server, "/api/new", {"game": "speed", "seed": 1, "tick": 0.05})
    assert status == 200 and s["simultaneous"] and s["steps"] == 0
    time.sleep(0.4)
    status, s = call(server, f"/api/state?session={s['session']}")
    assert status == 200 and 1 <= s["steps"] <= MAX_CATCH_UP  # the agent played while we waited
    status, still = call(server, "/api/new", {"game": "speed", "seed": 1, "tick": 0})
    time.sleep(0.1)
    assert call(server, f"/api/state?session={still['session']}")[1]["steps"] == 0  # tick 0: no clock
