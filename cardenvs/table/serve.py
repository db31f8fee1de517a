"""The local play page (``cardenvs serve``): every game against the agents
in a browser, Spit and Speed in real time.

Built on the standard library (``http.server``, one thread per request, a
lock per game).  The page is one self-contained HTML file (no network) that
talks to a small JSON API:

==========================  ======================================================
``GET /``                   the page
``GET /api/games``          the games: name, title, players, simultaneous
``POST /api/new``           ``{"game", "seat"=0, "vs"="random", "seed"=null, "config"={}, "tick"}``
                            -> a new game's state (with its ``session``)
``GET /api/state``          ``?session=ID[&viewpoint=SEAT|spectator]`` -> the state as a seat sees it
``GET /api/legal``          ``?session=ID`` -> your legal moves (``[{"id", "text"}]``)
``POST /api/move``          ``{"session", "action": text or id}`` -> the state after your move
                            and the agents' replies
``GET /api/replay``         ``?session=ID`` -> the game so far as a replay (JSON)
==========================  ======================================================

A state is ``{"session", "game", "seat", "viewpoint", "scene", "text", "legal",
"your_turn", "done", "scores", "result", "log", "steps", "simultaneous", "tick"}``;
``scene`` is already seen from the viewpoint (other seats' hands face down,
without their cards).  Other viewpoints than your seat are refused (403)
until the game is over.

Turn-based games: your move is played, then the agents play until it is your
turn again, within the request.  Spit and Speed: the game runs in ticks of
``tick`` seconds (both players act once per tick; you ``wait`` unless you
moved); a move you send is played at once, in a tick of its own with the
agent's reply.  The clock advances when the page asks for the state, at most
a few ticks at a time, so a game nobody looks at stands still; ``tick`` 0
stops the clock (ticks only on your moves).

Bad requests get ``{"error": "..."}`` with a 4xx status and change nothing:
400 for malformed JSON, missing or bad fields, an unknown game or agent, a
bad config or an illegal move; 404 for an unknown session or path; 403 for
another seat's view; 409 for a move after the game is over.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

from cardenvs.registry import GAMES, spec

from . import games
from .agents import AgentsUnavailableError, act, load_agent
from .canvas import to_text
from .play import resolve_game
from .replay import recording_env, recording_parallel_env
from .web import page

MAX_SESSIONS = 200
MAX_CATCH_UP = 5  # ticks played at most per state request
LOG_LINES = 40


class ApiError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class Session:
    """One game of a human seat against agents."""

    def __init__(self, game: str, config: dict, seat: int, vs: str, seed: int | None, tick: float):
        self.id = uuid.uuid4().hex[:16]
        self.game, self.config, self.seat, self.vs, self.tick = game, config, seat, vs, tick
        self.simultaneous = spec(game).simultaneous
        self.lock = threading.Lock()
        self.env = recording_parallel_env(game, **config) if self.simultaneous else recording_env(game, **config)
        self.u = self.env.unwrapped
        n = len(self.env.possible_agents)
        if not 0 <= seat < n:
            raise ApiError(400, f"seat must be 0..{n - 1} for {game} with this config, got {seat}")
        self.agents = {s: load_agent(game, vs, (seed or 0) + 1 + s, config) for s in range(n) if s != seat}
        if self.simultaneous:
            self.obs, _ = self.env.reset(seed=seed)
            self.wait = self.u.str_to_action("wait")
        else:
            self.env.reset(seed=seed)
        self.log: list[tuple[int | None, str]] = []
        self.steps = 0
        self.last = time.monotonic()
        self.env.replay.players = [("human" if s == seat else vs) for s in range(n)]
        if not self.simultaneous:
            self._agents_play()

    # -------------------------------------------------------------- rules
    def state(self) -> dict:
        return self.u.state_dict()

    def done(self) -> bool:
        return not self.env.agents if self.simultaneous else bool(self.state().get("done"))

    def _current(self) -> int:
        return self.env.possible_agents.index(self.env.agent_selection)

    def your_turn(self) -> bool:
        return not self.done() and (self.simultaneous or self._current() == self.seat)

    def legal(self) -> list[dict[str, Any]]:
        if not self.your_turn():
            return []
        agent = self.env.possible_agents[self.seat]
        mask = self.obs[agent]["action_mask"] if self.simultaneous else self.env.observe(agent)["action_mask"]
        return [{"id": int(a), "text": self.u.action_to_str(int(a))} for a in mask.nonzero()[0]]

    def _agents_play(self) -> None:
        while not self.done() and self._current() != self.seat:
            s = self._current()
            ob = self.env.observe(self.env.agent_selection)
            a = act(self.agents[s], ob["observation"], ob["action_mask"])
            self.log.append((s, self.u.action_to_str(a)))
            self.env.step(a)
            self.steps += 1

    def _tick(self, mine: int) -> None:
        actions = {self.env.possible_agents[self.seat]: mine}
        for s, agent in self.agents.items():
            name = self.env.possible_agents[s]
            actions[name] = act(agent, self.obs[name]["observation"], self.obs[name]["action_mask"])
        texts = [self.u.action_to_str(int(actions[a])) for a in self.env.possible_agents]
        if any(t != "wait" for t in texts):
            self.log.append((None, ", ".join(f"player_{s} {t}" for s, t in enumerate(texts) if t != "wait")))
        self.obs, *_ = self.env.step(actions)
        self.steps += 1

    def advance(self, now: float) -> None:
        """Spit/Speed: play the ticks due since the last one (you wait)."""
        if not self.simultaneous or self.tick <= 0 or self.done():
            self.last = now
            return
        due = int((now - self.last) / self.tick)
        for _ in range(min(due, MAX_CATCH_UP)):
            if self.done():
                break
            self._tick(self.wait)
        self.last = now if due > MAX_CATCH_UP else self.last + due * self.tick

    def move(self, action: Any) -> None:
        if self.done():
            raise ApiError(409, "the game is over: start a new one")
        legal = self.legal()
        if not legal:
            raise ApiError(409, "it is not your turn")
        chosen = None
        for m in legal:
            if (isinstance(action, str) and m["text"] == " ".join(action.split())) or (
                isinstance(action, int) and not isinstance(action, bool) and m["id"] == action
            ):
                chosen = m
        if chosen is None:
            if not isinstance(action, (str, int)) or isinstance(action, bool):
                raise ApiError(400, f"'action' must be a move's text or id, got {action!r}")
            raise ApiError(400, f"illegal move {action!r}; legal now: {[m['text'] for m in legal]}")
        if self.simultaneous:
            self._tick(chosen["id"])
            self.last = time.monotonic()
        else:
            self.log.append((self.seat, chosen["text"]))
            self.env.step(chosen["id"])
            self.steps += 1
            self._agents_play()

    # --------------------------------------------------------------- view
    def view(self, viewpoint: int | None) -> dict[str, Any]:
        from . import scene as picture  # the function (the primitives live in .canvas)

        state = self.state()
        done = self.done()
        shown = picture(state, viewpoint)
        log = []
        for s, t in self.log[-LOG_LINES:]:
            if s is None:
                log.append(f"tick: {t}")
            elif s != viewpoint and viewpoint is not None and not done and games.private_action(self.game, t):
                log.append(f"player_{s}: (a card, face down)")
            else:
                log.append(f"player_{s}: {t}")
        winners = state.get("winners")
        if winners is None and state.get("winner") is not None:
            winners = [state["winner"]]
        return {
            "session": self.id,
            "game": self.game,
            "title": {"speed": "Speed", "spit": "Spit"}.get(state.get("variant"), GAMES[self.game].title),
            "seat": self.seat,
            "vs": self.vs,
            "viewpoint": "spectator" if viewpoint is None else viewpoint,
            "scene": shown,
            "text": to_text(shown),
            "legal": self.legal(),
            "your_turn": self.your_turn(),
            "done": done,
            "scores": state.get("scores"),
            "result": {"winners": winners or [], "scores": state.get("scores")} if done else None,
            "log": log,
            "steps": self.steps,
            "simultaneous": self.simultaneous,
            "tick": self.tick,
        }


class TableServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], tick: float = 1.0, quiet: bool = True):
        super().__init__(address, Handler)
        self.tick, self.quiet = tick, quiet
        self.sessions: dict[str, Session] = {}
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/"

    # ---------------------------------------------------------------- API
    def new_game(self, body: dict) -> dict:
        game_name = body.get("game")
        if not isinstance(game_name, str):
            raise ApiError(400, f"'game' must be a game's name, one of {list(GAMES)}")
        try:
            game, extra = resolve_game(game_name)
        except ValueError as e:
            raise ApiError(400, str(e)) from None
        config = body.get("config", {})
        if not isinstance(config, dict):
            raise ApiError(400, "'config' must be an object of game options")
        seat, vs, seed = body.get("seat", 0), body.get("vs", "random"), body.get("seed")
        tick = body.get("tick", self.tick)
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise ApiError(400, f"'seat' must be an integer, got {seat!r}")
        if not isinstance(vs, str):
            raise ApiError(400, "'vs' must be random, rule, ppo or a checkpoint path")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise ApiError(400, f"'seed' must be an integer or null, got {seed!r}")
        if not isinstance(tick, (int, float)) or isinstance(tick, bool) or not 0 <= tick <= 60:
            raise ApiError(400, f"'tick' must be a number of seconds from 0 to 60, got {tick!r}")
        config = {k: v for k, v in {**extra, **config}.items() if k != "render_mode"}
        try:
            session = Session(game, config, seat, vs, seed, float(tick))
        except (ValueError, TypeError, AgentsUnavailableError) as e:
            raise ApiError(400, str(e)) from None
        with self.lock:
            if len(self.sessions) >= MAX_SESSIONS:
                self.sessions.pop(next(iter(self.sessions)))  # the oldest
            self.sessions[session.id] = session
        with session.lock:
            return session.view(seat)

    def session(self, sid: Any) -> Session:
        if not isinstance(sid, str) or not sid:
            raise ApiError(400, "'session' is missing")
        with self.lock:
            s = self.sessions.get(sid)
        if s is None:
            raise ApiError(404, f"unknown session {sid!r}: start a new game (POST /api/new)")
        return s

    def state(self, query: dict) -> dict:
        s = self.session(query.get("session"))
        vp_text = query.get("viewpoint", str(s.seat))
        if vp_text == "spectator":
            vp = None
        elif vp_text.isdigit() and int(vp_text) < len(s.env.possible_agents):
            vp = int(vp_text)
        else:
            raise ApiError(400, f"'viewpoint' must be a seat number or 'spectator', got {vp_text!r}")
        with s.lock:
            if vp != s.seat and not s.done():
                raise ApiError(403, "the other seats' cards stay hidden until the game is over")
            s.advance(time.monotonic())
            return s.view(vp)

    def replay(self, query: dict) -> dict:
        s = self.session(query.get("session"))
        with s.lock:
            return s.env.replay.to_dict()

    def move(self, body: dict) -> dict:
        s = self.session(body.get("session"))
        if "action" not in body:
            raise ApiError(400, "'action' is missing: a legal move's text or id")
        with s.lock:
            s.advance(time.monotonic())
            s.move(body["action"])
            return s.view(s.seat)


class Handler(BaseHTTPRequestHandler):
    server: TableServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        if not self.server.quiet:
            super().log_message(format, *args)

    def _send(self, status: int, body: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, obj: Any) -> None:
        self._send(status, json.dumps(obj, separators=(",", ":")).encode(), "application/json")

    def _body(self) -> dict:
        try:
            n = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            raise ApiError(400, "bad Content-Length") from None
        if n > 1_000_000:
            raise ApiError(413, "request body too large")
        raw = self.rfile.read(n) if n else b""
        try:
            body = json.loads(raw.decode("utf-8") or "null")
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ApiError(400, f"malformed JSON: {e}") from None
        if not isinstance(body, dict):
            raise ApiError(400, "the request body must be a JSON object")
        return body

    def _handle(self, method: str) -> None:
        url = urlparse(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        routes = {
            ("GET", "/"): lambda: self._send(200, PAGE.encode(), "text/html; charset=utf-8"),
            ("GET", "/api/games"): lambda: self._json(200, games_list()),
            ("GET", "/api/state"): lambda: self._json(200, self.server.state(query)),
            ("GET", "/api/legal"): lambda: self._json(200, self.server.state(query)["legal"]),
            ("GET", "/api/replay"): lambda: self._json(
                200, self.server.session(query.get("session")).env.replay.to_dict()
            ),
            ("POST", "/api/new"): lambda: self._json(200, self.server.new_game(self._body())),
            ("POST", "/api/move"): lambda: self._json(200, self.server.move(self._body())),
        }
        try:
            route = routes.get((method, url.path))
            if route is None:
                if any(path == url.path for _, path in routes):
                    raise ApiError(405, f"{method} is not allowed on {url.path}")
                raise ApiError(404, f"no such page or API: {url.path}")
            route()
        except ApiError as e:
            self._json(e.status, {"error": str(e)})
        except Exception as e:  # a bug: say so rather than drop the connection
            self._json(500, {"error": f"internal error: {type(e).__name__}: {e}"})

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")


def games_list() -> list[dict[str, Any]]:
    out = []
    for g in GAMES.values():
        out.append({"name": g.name, "title": g.title, "players": g.players, "simultaneous": g.simultaneous})
    out.append({"name": "speed", "title": "Speed (spit_v0, variant speed)", "players": "2", "simultaneous": True})
    return out


SCRIPT = r"""
let S = null, timer = null, vp = "me";
const $ = id => document.getElementById(id);
async function api(path, body) {
  const r = await fetch(path, body === undefined ? {} :
    {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const j = await r.json();
  if (!r.ok) throw new Error(j.error || ("HTTP " + r.status));
  return j;
}
function fail(e) { $("error").textContent = String(e.message || e); }
function render(j) {
  $("error").textContent = "";
  $("table").innerHTML = sceneSVG(j.scene, null);
  let status;
  if (j.done) {
    const w = j.result.winners;
    status = "Game over. " + (w.length ? "Winners: " + w.map(s => "player_" + s).join(", ") : "A draw.");
    if (w.includes(j.seat)) status += " (you!)";
  } else if (j.your_turn) {
    status = j.simultaneous ? "Play whenever you like (the clock runs)." : "Your turn.";
  } else {
    status = "Waiting...";
  }
  $("status").textContent = `${j.title}: you are player_${j.seat} vs ${j.vs}; step ${j.steps}. ` + status;
  $("status").dataset.steps = j.steps;
  const moves = $("moves");
  moves.innerHTML = "";
  for (const m of j.legal) {
    const b = document.createElement("button");
    b.className = "move"; b.textContent = m.text; b.dataset.id = m.id;
    b.onclick = () => api("/api/move", {session: S, action: m.text}).then(render).catch(fail);
    moves.appendChild(b);
  }
  $("log").textContent = j.log.slice().reverse().join("\n");
  $("spectate").disabled = !j.done;
  if (timer && (j.done || !j.simultaneous)) { clearInterval(timer); timer = null; }
}
function refresh() {
  if (!S) return;
  const q = vp === "me" ? "" : "&viewpoint=spectator";
  api("/api/state?session=" + S + q).then(render).catch(fail);
}
$("new").onclick = () => {
  let config = {};
  try { config = JSON.parse($("config").value || "{}"); } catch (e) { fail(new Error("config: " + e.message)); return; }
  const body = {game: $("game").value, seat: +$("seat").value, vs: $("vs").value, config: config,
                tick: +$("tick").value};
  if ($("seed").value !== "") body.seed = +$("seed").value;
  vp = "me";
  api("/api/new", body).then(j => {
    S = j.session; render(j);
    if (timer) clearInterval(timer);
    timer = j.simultaneous && j.tick > 0 ? setInterval(refresh, Math.max(150, j.tick * 500)) : null;
  }).catch(fail);
};
$("spectate").onclick = () => { vp = vp === "me" ? "spectator" : "me"; refresh(); };
"""


def _page() -> str:
    options = "".join(f"<option value='{g['name']}'>{g['title']}</option>" for g in games_list())
    body = (
        "<header><h1>cardenvs</h1>"
        f"<label>game <select id='game'>{options}</select></label>"
        "<label>your seat <input id='seat' type='number' value='0' min='0' max='10' style='width:4em'></label>"
        "<label>against <select id='vs'><option>random</option><option>rule</option><option>ppo</option></select>"
        "</label><label>seed <input id='seed' type='number' style='width:6em'></label>"
        "<label>config <input id='config' value='{}' style='width:12em' title='game options as JSON'></label>"
        "<label>tick (s) <input id='tick' type='number' value='1' step='0.1' min='0' style='width:4em'></label>"
        "<button id='new'>new game</button><button id='spectate' disabled>all hands</button></header>"
        "<main><div id='status'>Choose a game and press “new game”.</div><div id='error' class='err'></div>"
        "<div id='moves'></div><div id='table'></div><div id='log'></div></main>"
    )
    return page("cardenvs: play", body, SCRIPT)


PAGE = _page()


def make_server(host: str = "127.0.0.1", port: int = 0, tick: float = 1.0, quiet: bool = True) -> TableServer:
    """A server on (host, port) (port 0: a free one; see ``server.url``), not yet serving."""
    return TableServer((host, port), tick=tick, quiet=quiet)


def serve(host: str = "127.0.0.1", port: int = 8000, tick: float = 1.0, open_browser: bool = False) -> None:
    server = make_server(host, port, tick, quiet=False)
    print(f"cardenvs: serving the play page at {server.url} (Ctrl-C stops)", flush=True)
    if open_browser:
        import webbrowser

        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
