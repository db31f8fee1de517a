"""`cardenvs serve` against hostile pages and clients (issue #35: R2, R3, R8,
R9, R10, F3, R11): the real server on 127.0.0.1 at a free port, requests sent
as a web page elsewhere or a careless client would send them."""

from __future__ import annotations

import base64
import http.client
import json
import os
import pickle
import socket
import threading
import zipfile

import pytest

from cardenvs.app import serve
from cardenvs.app.agents import AgentTable, parse_agent_option
from cardenvs.app.http_checks import MAX_DEPTH, allowed_hosts
from cardenvs.app.replay import Replay
from cardenvs.app.serve import MAX_CLIENT_SESSIONS, make_server


def start(**options):
    srv = make_server("127.0.0.1", 0, **options)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def stop(srv):
    srv.shutdown()
    srv.server_close()


@pytest.fixture(scope="module")
def server():
    srv = start(tick=0)
    yield srv
    stop(srv)


def host_of(srv, name="127.0.0.1"):
    return f"{name}:{srv.server_address[1]}"


def request(srv, method, path, body=None, headers=None, source="127.0.0.1"):
    """(status, JSON answer) of one request from ``source`` (a loopback address)."""
    conn = http.client.HTTPConnection(*srv.server_address, timeout=60, source_address=(source, 0))
    try:
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        hdrs = {"Content-Type": "application/json"} if data is not None else {}
        conn.request(method, path, body=data, headers={**hdrs, **(headers or {})})
        r = conn.getresponse()
        raw = r.read()
        return r.status, (json.loads(raw) if r.getheader("Content-Type") == "application/json" else raw)
    finally:
        conn.close()


def raw_request(srv, data: bytes):
    """The status line and JSON answer to bytes sent as they are (a hand-made request)."""
    with socket.create_connection(srv.server_address, timeout=60) as s:
        s.sendall(data)
        r = http.client.HTTPResponse(s)
        r.begin()
        return r.status, json.loads(r.read())


def post_new(srv, body, **kw):
    return request(srv, "POST", "/api/new", body, **kw)


def evil_checkpoint(tmp_path):
    """A checkpoint whose loading would write tmp_path/PWNED (as r01 builds it)."""
    import cardenvs.baselines

    marker = tmp_path / "PWNED"

    class Payload:
        def __reduce__(self):
            return (exec, (f"open({str(marker)!r}, 'w').write('x')",))

    src = os.path.join(os.path.dirname(cardenvs.baselines.__file__), "pepper_ppo.zip")
    members = {"data": b"{}"}
    if os.path.exists(src):  # the committed baseline as an SB3 zip: tamper with a copy of it
        with zipfile.ZipFile(src) as z:
            members = {n: z.read(n) for n in z.namelist()}
    data = json.loads(members["data"])
    data["lr_schedule"] = {":serialized:": base64.b64encode(pickle.dumps(Payload())).decode()}
    path = tmp_path / "evil.zip"
    with zipfile.ZipFile(path, "w") as z:
        for n, b in {**members, "data": json.dumps(data).encode()}.items():
            z.writestr(n, b)
    return path, marker


# ------------------------------------------------------------------ R2
def test_a_page_elsewhere_cannot_start_a_game(server):
    before = len(server.sessions)
    body = b'{"game":"pepper"}'
    foreign = {"Origin": "http://evil.example", "Content-Type": "text/plain"}
    assert post_new(server, body, headers=foreign)[0] == 403  # a "simple" cross-origin POST
    status, answer = post_new(server, body, headers={"Origin": "http://evil.example"})
    assert status == 403 and "other pages" in answer["error"]
    status, answer = post_new(server, body, headers={"Origin": "null"})  # a sandboxed frame or a file
    assert status == 403
    for ctype in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
        status, answer = post_new(server, body, headers={"Content-Type": ctype})
        assert status == 415 and "application/json" in answer["error"], ctype
    # a GET from a foreign page (an image or a script tag) gets nothing either
    assert request(server, "GET", "/api/games", headers={"Origin": "http://evil.example"})[0] == 403
    assert len(server.sessions) == before
    # the page's own origin, in any of the loopback spellings, is served
    for name in ("127.0.0.1", "localhost"):
        origin = {"Origin": f"http://{host_of(server, name)}", "Host": host_of(server, name)}
        status, game = post_new(server, {"game": "pepper", "seed": 1}, headers=origin)
        assert status == 200 and game["your_turn"], name


def test_the_host_header_must_name_the_server(server):
    for host in ("evil.example", f"evil.example:{server.server_address[1]}", "127.0.0.1:1", "localhost"):
        status, answer = request(server, "GET", "/api/games", headers={"Host": host})
        assert status == 403 and "answers to" in answer["error"], host
        assert post_new(server, {"game": "pepper"}, headers={"Host": host})[0] == 403
    status, page = request(server, "GET", "/", headers={"Host": host_of(server, "LOCALHOST")})
    assert status == 200 and b"cardenvs" in page
    assert allowed_hosts("127.0.0.1", 8000) == {"127.0.0.1:8000", "localhost:8000", "[::1]:8000"}
    assert allowed_hosts("192.168.1.5", 80) == {"192.168.1.5:80"}
    request_line = b"GET /api/games HTTP/1.1\r\n\r\n"  # no Host at all
    assert raw_request(server, request_line)[0] == 403


def test_agents_are_named_never_loaded_from_a_path(server, tmp_path):
    evil, marker = evil_checkpoint(tmp_path)
    answers = []
    for vs in (str(evil), "ppo:" + str(evil), str(tmp_path / "missing.zip"), "/etc/passwd", "/etc", "../x"):
        status, answer = post_new(server, {"game": "pepper", "vs": vs})
        assert status == 400 and "unknown agent" in answer["error"], (vs, answer)
        answers.append(answer["error"].replace(repr(vs), "VS"))
    assert len(set(answers)) == 1  # the same answer whether the file exists or not
    assert not marker.exists()


def test_the_owner_names_agents_on_the_command_line(tmp_path):
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a checkpoint")
    srv = start(tick=0, agents={"sharp": "rule", "broken": str(junk)})
    try:
        assert request(srv, "GET", "/api/info")[1]["agents"] == ["random", "rule", "ppo", "sharp", "broken"]
        assert b"<option>sharp</option>" in request(srv, "GET", "/")[1]
        status, game = post_new(srv, {"game": "pepper", "vs": "sharp", "seed": 2})
        assert status == 200 and game["vs"] == "sharp" and game["your_turn"]
        status, answer = post_new(srv, {"game": "pepper", "vs": "broken"})
        assert status == 400 and "'broken' cannot play" in answer["error"]
        assert str(tmp_path) not in answer["error"] and "junk" not in answer["error"]
    finally:
        stop(srv)
    assert parse_agent_option(f"mine=ppo:{junk}") == ("mine", f"ppo:{junk}")
    for bad in ("mine", "Mine=rule", "rule=random", f"ppo={junk}", "x=ppo:/no/such/file.zip", "=rule"):
        with pytest.raises(ValueError):
            parse_agent_option(bad)
    from cardenvs.app import cli

    assert cli.main(["serve", "--agent", "x=/no/such/file.zip"]) == 2
    assert cli.main(["serve", "--agent", "a=rule", "--agent", "a=random"]) == 2


# ------------------------------------------------------------------ R9
@pytest.mark.parametrize(
    "length, status, words",
    [
        ("-1", 400, "whole number"),
        (None, 400, "Content-Length is missing"),
        ("12abc", 400, "whole number"),
        ("\u00b2", 400, "whole number"),
        ("99999999999999999999999", 413, "larger than"),
        ("1000001", 413, "larger than"),
    ],
)
def test_content_length_is_required_and_bounded(server, length, status, words):
    before = len(server.sessions)
    head = f"POST /api/new HTTP/1.1\r\nHost: {host_of(server)}\r\nContent-Type: application/json\r\n"
    if length is not None:
        head += f"Content-Length: {length}\r\n"
    got, answer = raw_request(server, head.encode() + b'\r\n{"game":"pepper","pad":"aaaa"}')
    assert got == status and words in answer["error"]
    assert len(server.sessions) == before


def test_a_refused_upload_still_reads_its_answer(server):
    """R9 as its reproduction sends it: Content-Length -1 and a 5 MB body.
    The server answers 400 without keeping the body, and drops what still
    comes (bounded) so the client finishes sending and reads the answer."""
    before = len(server.sessions)
    with socket.create_connection(server.server_address, timeout=60) as s:
        head = f"POST /api/new HTTP/1.1\r\nHost: {host_of(server)}\r\nContent-Type: application/json\r\n"
        s.sendall(head.encode() + b"Content-Length: -1\r\n\r\n" + b'{"game":"pepper","pad":"' + b"a" * 5_000_000)
        s.shutdown(socket.SHUT_WR)
        assert s.recv(12) == b"HTTP/1.1 400"
    assert len(server.sessions) == before


def test_slow_and_silent_clients_are_dropped():
    srv = start(tick=0, timeout=0.5)
    try:
        with socket.create_connection(srv.server_address, timeout=60) as s:
            head = f"POST /api/new HTTP/1.1\r\nHost: {host_of(srv)}\r\nContent-Type: application/json\r\n"
            s.sendall(head.encode() + b"Content-Length: 100\r\n\r\n{")  # 1 of 100 bytes, then silence
            r = http.client.HTTPResponse(s)
            r.begin()
            assert r.status == 408 and "in time" in json.loads(r.read())["error"]
        with socket.create_connection(srv.server_address, timeout=60) as s:
            s.sendall(b"GET /api/games HTTP/1.1\r\n")  # a request line, then silence
            assert s.recv(100) == b""  # the server hangs up
        assert len(srv.sessions) == 0
    finally:
        stop(srv)


# ----------------------------------------------------------------- R10
def test_hostile_json_and_queries_get_a_400(server):
    status, game = post_new(server, {"game": "pepper", "seed": 3})
    sid = game["session"]
    before = len(server.sessions)
    bad = [
        (b"[" * 100_000 + b"]" * 100_000, "nested"),
        (b'{"game":"pepper","config":' + b'{"a":' * MAX_DEPTH + b"1" + b"}" * MAX_DEPTH + b"}", "nested"),
        (b'{"game":"pepper","seed":' + b"1" * 5000 + b"}", "digits"),
        (b'{"game":"pepper","seat":-' + b"9" * 30 + b"}", "digits"),
        (b'{"game":"pepper","seed":NaN}', "NaN"),
        (b'{"game":"pepper","tick":Infinity}', "Infinity"),
        (b'{"game":"pepper","seed":-1}', "'seed'"),
        (b'{"game":"pepper","seed":18446744073709551616}', "'seed'"),
        (b'{"game":"pepper","config":{"max_hands":1e999}}', "max_hands"),
        (b'{"game":"pepper","config":{"num_players":[[[]]]}}', "num_players"),
        ('{"game":"pepper\u00b2"}'.encode(), "unknown game"),
        (b'{"game":"pepper"}\xff', "UTF-8"),
    ]
    for raw, words in bad:
        status, answer = post_new(server, raw)
        assert status == 400 and words in answer["error"], (raw[:60], status, answer)
    for vp in ("%C2%B2", "%D9%A3", "1%00", "99999999999999999999", "-1", "1.0", "", "0x1"):
        status, answer = request(server, "GET", f"/api/state?session={sid}&viewpoint={vp}")
        assert status == 400 and "'viewpoint'" in answer["error"], (vp, answer)
    status, answer = request(server, "POST", "/api/move", {"session": sid, "action": [[[[1]]]]})
    assert status == 400
    assert len(server.sessions) == before


# ------------------------------------------------------------------ R8
def test_many_games_from_one_client_do_not_end_another_clients(server, monkeypatch):
    status, mine = post_new(server, {"game": "pepper", "seed": 4})
    assert status == 200
    theirs = []
    for i in range(MAX_CLIENT_SESSIONS + 5):
        status, game = post_new(server, {"game": "pepper", "seed": i}, source="127.0.0.2")
        assert status == 200
        theirs.append(game["session"])
    assert sum(s.client == "127.0.0.2" for s in server.sessions.values()) == MAX_CLIENT_SESSIONS
    assert request(server, "GET", f"/api/state?session={mine['session']}")[0] == 200
    assert request(server, "GET", f"/api/state?session={theirs[0]}")[0] == 404  # its own oldest went
    assert request(server, "GET", f"/api/state?session={theirs[-1]}")[0] == 200
    # a full server refuses a newcomer rather than end anyone's game
    monkeypatch.setattr(serve, "MAX_SESSIONS", len(server.sessions))
    kept = set(server.sessions)
    status, answer = post_new(server, {"game": "pepper"}, source="127.0.0.3")
    assert status == 503 and "try again" in answer["error"]
    assert set(server.sessions) == kept
    status, game = post_new(server, {"game": "pepper"}, source="127.0.0.2")  # replaces one of its own
    assert status == 200 and mine["session"] in server.sessions and len(server.sessions) == len(kept)


def test_ppo_games_share_one_loaded_policy():
    pytest.importorskip("sb3_contrib", reason="the ppo agent needs the train extra")
    srv = start(tick=0)
    try:
        body = {"game": "cancellation_hearts", "vs": "ppo", "config": {"num_players": 7}}
        sids = [post_new(srv, {**body, "seed": i})[1]["session"] for i in range(3)]
        agents = [a for sid in sids for a in srv.sessions[sid].agents.values()]
        assert len(agents) == 18 and all(a is agents[0] for a in agents)
        assert all(a.agent.model is agents[0].agent.model for a in agents)
        status, other = post_new(srv, {**body, "config": {"num_players": 6}})  # another config: its own copy
        assert status == 200 and srv.sessions[other["session"]].agents[1] is not agents[0]
    finally:
        stop(srv)
    table = AgentTable()
    assert table.make("pepper_v0", "rule", 0, {}) is not table.make("pepper_v0", "rule", 0, {})  # cheap: per seat


# ------------------------------------------------------------------ R3
def test_a_running_hearts_replay_shows_only_the_seats_own_passes(server):
    status, s = post_new(server, {"game": "cancellation_hearts", "seat": 2, "seed": 5, "config": {"max_hands": 1}})
    sid = s["session"]
    mine = []
    for _ in range(3):
        mine.append(s["legal"][0]["text"])
        status, s = request(server, "POST", "/api/move", {"session": sid, "action": s["legal"][0]["id"]})
        assert status == 200
    status, view = request(server, "GET", f"/api/replay?session={sid}")
    assert status == 200 and not view["done"] and "seed" not in view and "format" not in view
    passes = [m for m in view["moves"] if m["action"].startswith("pass")]
    assert [m["action"] for m in passes] == mine and all(m["seat"] == 2 for m in passes)
    hidden = [m for m in view["moves"] if m["action"] == serve.HIDDEN]
    assert len(hidden) >= 3 and all(m["seat"] != 2 for m in hidden)  # the others passed, unseen
    with pytest.raises(ValueError):
        Replay.from_dict(view)  # not a replay: it cannot be re-played
    while not s["done"]:
        status, s = request(server, "POST", "/api/move", {"session": sid, "action": s["legal"][0]["id"]})
        assert status == 200
    status, replay = request(server, "GET", f"/api/replay?session={sid}")  # over: the whole game
    assert status == 200 and replay["seed"] == 5
    assert sum(a.startswith("pass") for a in replay["actions"]) > 3
    assert Replay.from_dict(replay).states()[-1] == server.sessions[sid].state()


# ----------------------------------------------------------------- R11
@pytest.mark.parametrize("game", ["pepper", "cancellation_hearts"])
def test_a_game_without_a_seed_draws_one_and_replays(server, game):
    status, s = post_new(server, {"game": game, "config": {"max_hands": 1}})
    assert status == 200
    sid = s["session"]
    while not s["done"]:
        status, s = request(server, "POST", "/api/move", {"session": sid, "action": s["legal"][-1]["id"]})
        assert status == 200
    replay = request(server, "GET", f"/api/replay?session={sid}")[1]
    assert isinstance(replay["seed"], int) and replay["seed"] >= 0
    states = Replay.from_dict(replay).states()
    assert states[-1] == server.sessions[sid].state() and states[-1]["done"]


# ------------------------------------------------------------------ F3
def test_the_page_and_new_games_use_the_servers_tick():
    srv = start(tick=0.25)
    try:
        page = request(srv, "GET", "/")[1].decode()
        assert "id='tick' type='number' value='0.25'" in page
        assert request(srv, "GET", "/api/info")[1]["tick"] == 0.25
        status, game = post_new(srv, {"game": "speed", "seed": 1})
        assert status == 200 and game["tick"] == 0.25
        assert post_new(srv, {"game": "speed", "seed": 1, "tick": 0})[1]["tick"] == 0
    finally:
        stop(srv)
    # the page posts JSON (a form or text/plain POST would get a 415): its one fetch call says so
    assert serve.play_page(1.0, ["random"]).count('headers: {"Content-Type": "application/json"}') == 1
