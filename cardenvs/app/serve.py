"""The local play page (``cardenvs serve``): every game against the agents
in a browser, Spit and Speed in real time.

Built on the standard library (``http.server``, one thread per request, a
lock per game).  The page is one self-contained HTML file (no network) that
talks to a small JSON API:

==========================  ======================================================
``GET /``                   the page
``GET /api/games``          the games: name, title, players, simultaneous
``GET /api/info``           ``{"agents", "tick", "max_sessions", "max_sessions_per_client",
                            "max_searches", "search_seconds_per_request"}``
``POST /api/new``           ``{"game", "seat"=0, "vs"="random", "seed"=null, "config"={}, "tick"}``
                            -> a new game's state (with its ``session``)
``GET /api/state``          ``?session=ID[&viewpoint=SEAT|spectator]`` -> the state as a seat sees it
``GET /api/legal``          ``?session=ID`` -> your legal moves (``[{"id", "text"}]``)
``POST /api/move``          ``{"session", "action": text or id}`` -> the state after your move
                            and the agents' replies
``GET /api/replay``         ``?session=ID`` -> the replay once the game is over; while it
                            runs, only what your seat has seen (see :meth:`Session.replay`)
==========================  ======================================================

A state is ``{"session", "game", "seat", "viewpoint", "scene", "text", "legal",
"your_turn", "done", "scores", "result", "log", "steps", "simultaneous", "tick"}``;
``scene`` is already seen from the viewpoint (other seats' hands face down,
without their cards).  Other viewpoints than your seat are refused (403)
until the game is over.

``vs`` names an agent: ``random``, ``rule``, ``ppo`` (the committed
baseline) or a name the server's owner gave with ``cardenvs serve --agent
NAME=SPEC``; a request never names a file.  A trained policy is loaded once
and shared by every seat and game that plays it; a search (``pimc:...``) is
made per seat and follows its game, capped: each decision ends by its
``budget`` (at most 10 s), a request's searches by ``search_seconds`` in all
(its later moves: the searches' fallback), and at most ``max_searches``
requests with a search run at once (another gets 503, nothing changed; see
:class:`~cardenvs.app.agents.SearchGate`).  A game without a ``seed``
draws one (its replay records it, so it re-plays).  ``tick`` defaults to the
server's ``--tick`` (the page's tick field starts there too).

Turn-based games: your move is played, then the agents play until it is your
turn again, within the request.  Spit and Speed: the game runs in ticks of
``tick`` seconds (both players act once per tick; you ``wait`` unless you
moved); a move you send is played at once, in a tick of its own with the
agent's reply.  The clock advances when the page asks for the state, at most
a few ticks at a time, so a game nobody looks at stands still; ``tick`` 0
stops the clock (ticks only on your moves).

Every request is checked first (:mod:`.http_checks`): its ``Host`` and
``Origin`` must name this server (403: other web pages and DNS rebinding
are kept out), a POST's body must be ``application/json`` (415) with a
``Content-Length`` (400 when missing or negative, 413 above 1 MB), arrive
within the read timeout (408), and be a JSON object at most 32 deep with
integers of at most 20 digits (400).  Each client address keeps at most
:data:`MAX_CLIENT_SESSIONS` games (its next one replaces its own oldest);
a server holding :data:`MAX_SESSIONS` refuses new clients' games (503)
rather than end anyone's.

Bad requests get ``{"error": "..."}`` with a 4xx status, name nothing on the
server's disk and change nothing: 400 for malformed JSON, missing or bad
fields, an unknown game or agent, a bad config or an illegal move; 404 for
an unknown session or path; 403 for another seat's view or a foreign
Host/Origin; 405 for a wrong method; 409 for a move after the game is over.
A GET with a body is refused (400), and so is a request whose length could be
read two ways (a malformed or folded header line, ``Transfer-Encoding``, two
``Content-Length``). After any refusal whose request body was
not read (and after the base class's own errors: 501 for another method),
the server closes the connection: an unread body is never taken for the
next request.
"""

from __future__ import annotations

import json
import re
import secrets
import socket
import sys
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

from cardenvs.registry import GAMES, spec

from ..render.canvas import to_text
from . import games
from .agents import (
    MAX_SEARCHES,
    REQUEST_SEARCH_SECONDS,
    AgentsUnavailableError,
    AgentTable,
    SearchesBusyError,
    SearchGate,
    SearchPlayer,
    attach,
)
from .agents import act as agent_act
from .http_checks import ApiError, allowed_hosts, check_host_and_origin, declared_length, read_json_request
from .play import resolve_game
from .play_page import games_list, play_page
from .replay import draw_seed, recording_env, recording_parallel_env

MAX_SESSIONS = 200  # games kept in all
MAX_CLIENT_SESSIONS = 20  # games kept per client address: a client's 21st game replaces its own oldest
MAX_CATCH_UP = 5  # ticks played at most per state request
LOG_LINES = 40
TIMEOUT = 30.0  # seconds a client may take to send a request (each read, and a body in all)
MAX_SEED = 2**63 - 1
# a closing connection's unread input, read and dropped (never kept) for at most this long and this much:
# enough for a refused upload on this machine to end and read its answer, too little to hold a thread
LINGER_SECONDS, LINGER_BYTES = 2.0, 64_000_000
HIDDEN = "(a card, face down)"
PAGE_HEADERS = {
    # the page needs nothing from anywhere but itself, and no other page may frame it
    "Content-Security-Policy": "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
}


class Session:
    """One game of a human seat against agents."""

    def __init__(
        self,
        game: str,
        config: dict,
        seat: int,
        vs: str,
        seed: int | None,
        tick: float,
        agents: AgentTable | None = None,
        client: str = "",
        searches: SearchGate | None = None,
    ):
        self.id = secrets.token_hex(16)
        self.game, self.config, self.seat, self.vs, self.tick, self.client = game, config, seat, vs, tick, client
        # a game without a seed draws one, so that its replay re-plays (the replay records it)
        self.seed = draw_seed() if seed is None else seed
        self.simultaneous = spec(game).simultaneous
        self.lock = threading.Lock()
        self.env = recording_parallel_env(game, **config) if self.simultaneous else recording_env(game, **config)
        self.u = self.env.unwrapped
        n = len(self.env.possible_agents)
        if not 0 <= seat < n:
            raise ApiError(400, f"seat must be 0..{n - 1} for {game} with this config, got {seat}")
        agents = agents or AgentTable()
        self.agents = {s: agents.make(game, vs, self.seed + 1 + s, config) for s in range(n) if s != seat}
        self.searchers = [a for a in self.agents.values() if isinstance(a, SearchPlayer) and a.searches]
        self.searches = searches or SearchGate()
        if self.simultaneous:
            self.obs, _ = self.env.reset(seed=self.seed)
            self.wait = self.u.str_to_action("wait")
        else:
            self.env.reset(seed=self.seed)
        attach(self.agents, self.env)
        self.log: list[tuple[int | None, str]] = []
        self.steps = 0
        self.last = time.monotonic()
        self.env.replay.players = [("human" if s == seat else vs) for s in range(n)]
        if not self.simultaneous:
            with self.searches.request(self.searchers):  # (SearchesBusyError: this session is not kept)
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
            a = agent_act(self.agents[s], ob["observation"], ob["action_mask"])
            self.log.append((s, self.u.action_to_str(a)))
            self.env.step(a)
            self.steps += 1

    def _tick(self, mine: int) -> None:
        actions = {self.env.possible_agents[self.seat]: mine}
        for s, agent in self.agents.items():
            name = self.env.possible_agents[s]
            actions[name] = agent_act(agent, self.obs[name]["observation"], self.obs[name]["action_mask"])
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
            with self.searches.request(self.searchers):  # (SearchesBusyError before the move is played)
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

    def replay(self) -> dict[str, Any]:
        """The game as a replay once it is over (seed and every action: it
        re-plays); while it runs, only what this seat has seen: the moves in
        order with their seats, others' private moves (Cancellation Hearts'
        passes) hidden, and no seed (which would tell every hand)."""
        if self.done():
            return self.env.replay.to_dict()
        if self.simultaneous:  # every move in Spit and Speed is public
            moves = [{"seat": None, "action": list(tick)} for tick in self.env.replay.actions]
        else:
            moves = [
                {"seat": s, "action": HIDDEN if s != self.seat and games.private_action(self.game, t) else t}
                for s, t in self.log
            ]
        return {
            "game": self.game,
            "config": self.env.replay.config,
            "players": self.env.replay.players,
            "seat": self.seat,
            "done": False,
            "moves": moves,
            "note": "the game is still running: this is what your seat has seen; "
            "the whole replay (with its seed) is here once the game is over",
        }


class TableServer(ThreadingHTTPServer):
    """The play server: sessions (games) by id, the agents it offers, and
    the names it answers to (see :mod:`.http_checks`)."""

    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        tick: float = 1.0,
        quiet: bool = True,
        agents: AgentTable | None = None,
        timeout: float = TIMEOUT,
        searches: SearchGate | None = None,
    ):
        super().__init__(address, Handler)
        self.tick, self.quiet, self.request_timeout = tick, quiet, timeout
        self.agents = agents or AgentTable()
        self.searches = searches or SearchGate()
        self.hosts = allowed_hosts(*self.server_address[:2])
        self.page = play_page(tick, self.agents.names)
        self.sessions: dict[str, Session] = {}
        self.lock = threading.Lock()

    def shutdown_request(self, request: Any) -> None:
        """Close a connection gracefully: what the client still sends (the
        body of a refused request) is read and dropped for at most
        :data:`LINGER_SECONDS` in all and :data:`LINGER_BYTES`, so that the close does not reset the connection
        before the client has read the answer."""
        try:
            request.shutdown(socket.SHUT_WR)
            request.settimeout(LINGER_SECONDS)
            dropped, deadline = 0, time.monotonic() + LINGER_SECONDS
            while dropped < LINGER_BYTES and time.monotonic() < deadline:
                chunk = request.recv(65536)
                if not chunk:
                    break
                dropped += len(chunk)
        except OSError:
            pass
        self.close_request(request)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/"

    # ---------------------------------------------------------------- API
    def info(self) -> dict:
        """What this server offers: its agents, its default tick and its session limits."""
        return {
            "agents": self.agents.names,
            "tick": self.tick,
            "max_sessions": MAX_SESSIONS,
            "max_sessions_per_client": MAX_CLIENT_SESSIONS,
            "max_searches": self.searches.limit,
            "search_seconds_per_request": self.searches.seconds,
        }

    def new_game(self, body: dict, client: str = "") -> dict:
        """A new session for ``client`` (the peer's address) from a checked request body."""
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
        if not isinstance(vs, str) or vs not in self.agents.specs:
            raise ApiError(400, f"unknown agent {vs!r}: 'vs' must be one of this server's agents {self.agents.names}")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED):
            raise ApiError(400, f"'seed' must be an integer from 0 to 2**63-1 or null, got {seed!r}")
        if not isinstance(tick, (int, float)) or isinstance(tick, bool) or not 0 <= tick <= 60:
            raise ApiError(400, f"'tick' must be a number of seconds from 0 to 60, got {tick!r}")
        config = {k: v for k, v in {**extra, **config}.items() if k != "render_mode"}
        try:
            session = Session(game, config, seat, vs, seed, float(tick), self.agents, client, self.searches)
        except SearchesBusyError as e:
            raise ApiError(503, str(e)) from None
        except (ValueError, TypeError, OverflowError, AgentsUnavailableError) as e:
            raise ApiError(400, str(e)) from None
        self._admit(session)
        with session.lock:
            return session.view(seat)

    def _admit(self, session: Session) -> None:
        """Keep ``session``: a client at its limit loses its own oldest game;
        a full server refuses a new client (503) rather than end others' games."""
        with self.lock:
            mine = [sid for sid, s in self.sessions.items() if s.client == session.client]
            if len(mine) >= MAX_CLIENT_SESSIONS or (len(self.sessions) >= MAX_SESSIONS and mine):
                self.sessions.pop(mine[0])
            elif len(self.sessions) >= MAX_SESSIONS:
                raise ApiError(503, f"the server holds its {MAX_SESSIONS} games (other clients'): try again later")
            self.sessions[session.id] = session

    def session(self, sid: Any) -> Session:
        """The session called ``sid`` (400 without one, 404 for an unknown one)."""
        if not isinstance(sid, str) or not sid:
            raise ApiError(400, "'session' is missing")
        with self.lock:
            s = self.sessions.get(sid)
        if s is None:
            raise ApiError(404, f"unknown session {sid[:40]!r}: start a new game (POST /api/new)")
        return s

    def state(self, query: dict) -> dict:
        """The state of a session from a seat (its own, or any once the game is over)."""
        s = self.session(query.get("session"))
        vp_text = query.get("viewpoint", str(s.seat))
        if vp_text == "spectator":
            vp = None
        elif re.fullmatch(r"[0-9]{1,3}", vp_text) and int(vp_text) < len(s.env.possible_agents):
            vp = int(vp_text)
        else:
            raise ApiError(400, f"'viewpoint' must be a seat number or 'spectator', got {vp_text[:40]!r}")
        with s.lock:
            if vp != s.seat and not s.done():
                raise ApiError(403, "the other seats' cards stay hidden until the game is over")
            s.advance(time.monotonic())
            return s.view(vp)

    def replay(self, query: dict) -> dict:
        """A session's replay (see :meth:`Session.replay`)."""
        s = self.session(query.get("session"))
        with s.lock:
            return s.replay()

    def move(self, body: dict) -> dict:
        """Play the human's move in a session; the state after the agents' replies."""
        s = self.session(body.get("session"))
        if "action" not in body:
            raise ApiError(400, "'action' is missing: a legal move's text or id")
        with s.lock:
            s.advance(time.monotonic())
            try:
                s.move(body["action"])
            except SearchesBusyError as e:
                raise ApiError(503, str(e)) from None
            return s.view(s.seat)


class Handler(BaseHTTPRequestHandler):
    """One connection: every request checked (:mod:`.http_checks`), then routed."""

    server: TableServer
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        self.timeout = self.server.request_timeout  # the socket's read timeout: a silent client is dropped
        super().setup()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        if not self.server.quiet:
            super().log_message(format, *args)

    def _send(self, status: int, body: bytes, ctype: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, obj: Any) -> None:
        self._send(status, json.dumps(obj, separators=(",", ":")).encode(), "application/json")

    def _route(self, method: str, path: str, query: dict[str, str]) -> Any:
        server = self.server
        routes = {
            ("GET", "/api/games"): games_list,
            ("GET", "/api/info"): server.info,
            ("GET", "/api/state"): lambda: server.state(query),
            ("GET", "/api/legal"): lambda: server.state(query)["legal"],
            ("GET", "/api/replay"): lambda: server.replay(query),
            ("POST", "/api/new"): lambda: server.new_game(self._body(), self.client_address[0]),
            ("POST", "/api/move"): lambda: server.move(self._body()),
        }
        route = routes.get((method, path))
        if route is None:
            if any(p == path for _, p in routes):
                raise ApiError(405, f"{method} is not allowed on {path}")
            raise ApiError(404, f"no such page or API: {path[:80]}")
        return route()

    def _body(self) -> dict:
        body = read_json_request(self.headers, self.rfile, self.server.request_timeout)
        self.body_read = True
        return body

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The base class's errors (400 for a malformed request line, 501 for
        another method, ...) come before anything is read: whatever follows on
        the connection is not known to be a request, so it closes."""
        self.close_connection = True
        super().send_error(code, message, explain)

    def _handle(self, method: str) -> None:
        # A body not (yet) read closes the connection after the answer: it is never parsed as a request.
        # (Until the headers are known to declare one length only, whatever follows is taken for a body.)
        self.body_read = False
        try:
            self.body_read = not declared_length(self.headers)
            if method == "GET" and not self.body_read:
                raise ApiError(400, "a GET request has no body")
            check_host_and_origin(self.headers, self.server.hosts)
            url = urlparse(self.path)
            if method == "GET" and url.path == "/":
                self._send(200, self.server.page.encode(), "text/html; charset=utf-8", PAGE_HEADERS)
                return
            query = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
            self._json(200, self._route(method, url.path, query))
        except ApiError as e:
            self.close_connection = self.close_connection or not self.body_read  # an unread body: not a request
            self._json(e.status, {"error": str(e)})
        except Exception:  # a bug: say so (the details, which may name files, only in the server's log)
            traceback.print_exc(file=sys.stderr)
            self.close_connection = self.close_connection or not self.body_read
            self._json(500, {"error": "internal error in the server (its log has the details)"})

    def do_GET(self) -> None:
        """GET: the page and the read-only API."""
        self._handle("GET")

    def do_POST(self) -> None:
        """POST: new games and moves (JSON bodies only)."""
        self._handle("POST")


def make_server(
    host: str = "127.0.0.1",
    port: int = 0,
    tick: float = 1.0,
    quiet: bool = True,
    agents: dict[str, str] | None = None,
    timeout: float = TIMEOUT,
    max_searches: int = MAX_SEARCHES,
    search_seconds: float = REQUEST_SEARCH_SECONDS,
) -> TableServer:
    """A server on (host, port) (port 0: a free one; see ``server.url``), not
    yet serving.  ``agents``: named agents offered besides random, rule and
    ppo (``{name: spec}``, see :func:`cardenvs.app.agents.parse_agent_option`);
    ``timeout``: seconds a client may take over a request; ``max_searches``:
    requests with a search run at once (others get 503), ``search_seconds``:
    a request's search time (:class:`~cardenvs.app.agents.SearchGate`)."""
    searches = SearchGate(max_searches, search_seconds)
    return TableServer(
        (host, port), tick=tick, quiet=quiet, agents=AgentTable(agents), timeout=timeout, searches=searches
    )


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    tick: float = 1.0,
    open_browser: bool = False,
    agents: dict[str, str] | None = None,
) -> None:
    """Serve the play page until Ctrl-C (``cardenvs serve``)."""
    server = make_server(host, port, tick, quiet=False, agents=agents)
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
