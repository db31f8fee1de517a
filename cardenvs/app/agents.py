"""Opponents for play and recorded games: ``random``, ``rule``, ``ppo``
(the committed baseline) or a checkpoint path; and :class:`AgentTable`, the
agents a play server offers by name (never a path from a request).

The repository's agent code is imported in ONE place, :func:`_make_agent`
(it moves into ``cardenvs.agents`` later: change that function only).
``random`` needs no agent code at all."""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

AGENT_NAMES = ("random", "rule", "ppo")  # what a play server offers by name
BY_NAME = (*AGENT_NAMES, "scratch", "scratch-policy", "best", "pimc")  # what play takes by name


class AgentsUnavailableError(RuntimeError):
    """The agent code (the repository's ``agents`` package) cannot be imported."""


class RandomPlayer:
    """Uniformly random among the legal actions (seeded); the same interface
    as the agents package's agents: ``act(obs, mask) -> action``."""

    def __init__(self, seed: int | None = 0):
        self.rng = np.random.default_rng(seed)
        self.name = "random"

    def act(self, obs: Any, mask: Any) -> int:
        legal = np.flatnonzero(np.asarray(mask))
        if not len(legal):
            raise ValueError("no legal action")
        return int(self.rng.choice(legal))


def _make_agent(game: str, spec: str, seed: int, config: dict[str, Any]) -> Any:
    """The ``cardenvs.agents`` agent for ``spec`` (the one import of it)."""
    try:
        from cardenvs.agents.registry import make_agent
    except ImportError as e:  # e.g. a trained policy without the "train" extra
        raise AgentsUnavailableError(
            f"the {spec!r} agent cannot be loaded here ({e}); install the train extra "
            "(pip install 'cardenvs[train]') or play against 'random' or 'rule'"
        ) from e
    return make_agent(game, spec, seed=seed, **config)


def load_agent(game: str, spec: str, seed: int = 0, config: dict[str, Any] | None = None) -> Any:
    """An agent with ``act(obs, mask) -> int`` from its spec, as every
    evaluation path names agents (:func:`cardenvs.agents.registry.make_agent`:
    ``random``, ``rule``, ``ppo``, ``ppo:PATH``, ``mlp:PATH``, ``pimc:...``,
    ``best``, ``scratch``, ``package.module:Name``), or the PATH of a
    checkpoint.  An agent that searches the engine state (PIMC) comes as a
    :class:`SearchPlayer`, to :func:`attach` to the env after its reset.
    ValueError for an unknown spec or one that cannot play the game (PIMC in
    Spit), :class:`AgentsUnavailableError` when the agent code is missing."""
    config = {k: v for k, v in (config or {}).items() if k not in ("render_mode", "illegal_action", "obs_dtype")}
    if spec == "random":
        return RandomPlayer(seed)
    if spec not in BY_NAME and ":" not in spec:
        if not os.path.exists(spec):
            raise ValueError(
                f"unknown agent {spec!r}: use random, rule, ppo, scratch, scratch-policy, best, pimc:..., ppo:PATH, "
                "mlp:PATH or a path"
            )
        spec = ("mlp:" if spec.endswith(".json") else "ppo:") + spec
    agent = _make_agent(game, spec, seed, config)
    if hasattr(agent, "act_states"):  # PIMC, or "best" / "scratch" where they search
        return SearchPlayer(game, agent)
    if not getattr(agent, "name", None):
        agent.name = spec
    return agent


class SearchPlayer:
    """An agent that searches the game's engine state (PIMC; ``best`` or
    ``scratch`` where they search) as a player of play, serve and recorded
    games: :meth:`attach` it to the recording env right after ``reset``.

    It reads the env's state (:meth:`~cardenvs.core.view.RulesView.game_state`)
    and gives the search what the duplicate engine gives it, no more: in the
    games whose sampler needs a ``Tracker`` of what the seats saw
    (Cancellation Hearts, Push) it keeps one, stepped with every action the
    env recorded (every seat's, the human's too) on a copy of the state,
    which must stay equal to the env's (RuntimeError otherwise).  It never
    changes the env.

    On a play server a search is capped: each of its decisions ends by
    ``decision_seconds`` after it began and by ``request_deadline`` (a
    ``time.monotonic()`` time: the request's search time is spent), the
    moves after that played by its fallback (:meth:`PIMCAgent.act_states
    <cardenvs.agents.pimc.PIMCAgent.act_states>`'s ``deadline``).  Both
    None (``cardenvs play``): no cap."""

    def __init__(self, game: str, agent: Any):
        from cardenvs.agents.pimc import PIMCAgent, tracked

        self.game, self.agent, self.name = game, agent, agent_name(agent)
        self.tracking = tracked(game)
        self.env: Any = None
        self.searches = isinstance(agent, PIMCAgent)  # (else an agent that only reads the state: Push's rule)
        self.decision_seconds: float | None = None
        self.request_deadline: float | None = None

    def attach(self, env: Any) -> None:
        """Follow ``env`` (a recording env of this game, just reset)."""
        if env.replay.actions:
            raise ValueError("attach a search player to an env right after its reset")
        u = env.unwrapped
        self.env, self.rules, self.seen = env, u.rules, 0
        self.tracker = None if self.tracking is None else self.tracking.Tracker(u.rules, 1)
        self.shadow = None if self.tracking is None else u.game_state().copy()

    def act(self, obs: Any, mask: Any) -> int:
        """The search's action for the seat to act (``obs`` and ``mask`` are its; the search reads the state)."""
        if self.env is None:
            raise RuntimeError(f"{self.name} searches the game's state: attach it to the env after reset")
        u = self.env.unwrapped
        state, known = u.game_state(), {}
        if self.tracker is not None:
            played = self.env.replay.actions
            for text in played[self.seen :]:
                self.tracker.step(self.rules, self.shadow, np.array([u.str_to_action(text)], np.int64))
            self.seen = len(played)
            if not self.shadow.same_arrays(state):
                raise RuntimeError(f"{self.name}: the game moved in a way its recorded actions do not explain")
            known["tracker"] = self.tracker
        deadline = self._deadline()
        if deadline is not None:
            known["deadline"] = deadline
        if state.legal.ndim == 3:  # (Spit: every seat acts at every tick; which one asks)
            known["seat"] = self._seat(state, obs, mask)
        action = int(self.agent.act_states(self.rules, state, np.zeros(1, np.int64), **known)[0])
        if not np.asarray(mask)[action]:
            raise RuntimeError(f"{self.name} chose {u.action_to_str(action)!r}, not legal for the seat to act")
        return action

    def _seat(self, state: Any, obs: Any, mask: Any) -> int:
        """The seat whose observation and mask these are (in a game whose
        players act at once the env asks every seat; two seats that see the
        same and may do the same are one decision)."""
        seen = self.rules.observe(state)[0]
        for seat in range(len(seen)):
            if np.array_equal(seen[seat], np.asarray(obs, seen.dtype)) and np.array_equal(
                state.legal[0, seat], np.asarray(mask, bool)
            ):
                return seat
        raise RuntimeError(f"{self.name}: the observation it was given is no seat's in the game it follows")

    def _deadline(self) -> float | None:
        """When the decision starting now must end (None: no cap)."""
        if not self.searches:
            return None
        ends = [] if self.request_deadline is None else [self.request_deadline]
        if self.decision_seconds is not None:
            ends.append(time.monotonic() + self.decision_seconds)
        return min(ends, default=None)


def attach(agents: Any, env: Any) -> None:
    """Attach the search players among ``agents`` (a dict or a list) to ``env``, just reset."""
    for agent in agents.values() if isinstance(agents, dict) else agents:
        if isinstance(agent, SearchPlayer):
            agent.attach(env)


def agent_name(agent: Any) -> str:
    """An agent's ``name``, a function's ``__name__``, or its class's name."""
    name = getattr(agent, "name", None) or getattr(agent, "__name__", None)
    return str(name or type(agent).__name__)


def act(agent: Any, obs: Any, mask: Any) -> int:
    """One action of ``agent``: an object with ``act(obs, mask)`` or a
    callable ``(obs, mask) -> action``."""
    f = agent.act if hasattr(agent, "act") else agent
    return int(f(obs, np.asarray(mask)))


# --------------------------------------------------------- the play server
AGENT_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
MAX_SHARED = 16  # loaded policies kept for new sessions (live sessions keep theirs)


def parse_agent_option(text: str) -> tuple[str, str]:
    """``NAME=SPEC`` (``cardenvs serve --agent``) -> ``(name, spec)``.

    NAME: lower-case letters, digits, ``_`` and ``-`` (at most 32), not one
    of ``random``, ``rule``, ``ppo``.  SPEC: ``random``, ``rule``, ``ppo``,
    ``scratch``, ``scratch-policy``, ``best``, ``pimc`` or ``pimc:OPTIONS``
    (a search: at most 256 worlds and a ``budget`` of at most 10 seconds,
    every option's value checked; one per seat, never shared; capped per
    decision and per request, see :class:`SearchGate`), ``ppo:PATH`` or the
    PATH of a saved policy (which must exist; the server loads it as its own
    user, and an SB3 zip is a pickle, which can run code: name only files
    you trust).  ValueError otherwise."""
    name, sep, spec = text.partition("=")
    name, spec = name.strip(), spec.strip()
    if not sep or not AGENT_NAME.match(name):
        raise ValueError(
            f"--agent takes NAME=SPEC with NAME of lower-case letters, digits, _ and - (got {text!r}), "
            "e.g. --agent mine=ppo:checkpoints/pepper.zip"
        )
    if name in AGENT_NAMES:
        raise ValueError(f"--agent {name}=...: {name!r} is built in; choose another name")
    if spec in BY_NAME:
        return name, spec
    if spec.startswith("pimc:"):
        return name, _search_spec(name, spec)
    path = spec[4:] if spec.startswith("ppo:") else spec
    if not path or not os.path.isfile(path):
        raise ValueError(f"--agent {name}={spec}: no checkpoint file at {path!r}")
    return name, "ppo:" + os.path.abspath(path)


MAX_WORLDS, MAX_BUDGET = 256, 10.0  # a served search's most worlds, and seconds per decision (a cap)
REQUEST_SEARCH_SECONDS = 10.0  # a request's search time in all (its later moves: the searches' fallbacks)
MAX_SEARCHES = 2  # requests with a search a server runs at once (the others: 503)


class SearchesBusyError(RuntimeError):
    """A play server already runs as many searching requests as it allows."""


class SearchGate:
    """The searching requests a play server runs at once (at most
    ``limit``) and the search time each may spend (``seconds``)."""

    def __init__(self, limit: int = MAX_SEARCHES, seconds: float = REQUEST_SEARCH_SECONDS):
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"the searches at once must be a whole number of at least 1, got {limit!r}")
        if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not 0 <= seconds <= 3600:
            raise ValueError(f"a request's search seconds must be from 0 to 3600, got {seconds!r}")
        self.limit, self.seconds = limit, float(seconds)
        self._slots = threading.BoundedSemaphore(limit)

    @contextlib.contextmanager
    def request(self, players: list[SearchPlayer]) -> Iterator[None]:
        """One request's moves by ``players`` (searches): a slot held (else
        :class:`SearchesBusyError` at once, before anything moves) and their
        request deadline set, ``seconds`` from now.  No player: no slot."""
        if not players:
            yield
            return
        if not self._slots.acquire(blocking=False):
            raise SearchesBusyError(f"the server is running its {self.limit} searches at once: try again shortly")
        deadline = time.monotonic() + self.seconds
        for player in players:
            player.request_deadline = deadline
        try:
            yield
        finally:
            for player in players:
                player.request_deadline = None
            self._slots.release()


def served_decision_seconds(spec: str) -> float:
    """A served search's cap per decision: its ``budget``, at most :data:`MAX_BUDGET`."""
    from cardenvs.agents.specs import pimc_options

    budget = pimc_options(spec).get("budget", MAX_BUDGET) if spec.startswith("pimc") else MAX_BUDGET
    return min(budget, MAX_BUDGET)


def _search_spec(name: str, spec: str) -> str:
    """A ``pimc:...`` spec a play server may offer: its options known, at
    most :data:`MAX_WORLDS` worlds and :data:`MAX_BUDGET` seconds a
    decision (each move of each session costs the server that much)."""
    from cardenvs.agents.specs import AgentSpecError, pimc_options

    try:
        options = pimc_options(spec)
    except AgentSpecError as e:
        raise ValueError(f"--agent {name}={spec}: {e}") from None
    if not 1 <= options.get("worlds", 1) <= MAX_WORLDS:
        raise ValueError(f"--agent {name}={spec}: worlds must be 1..{MAX_WORLDS} on a server")
    if not 0 < options.get("budget", 1.0) <= MAX_BUDGET:
        raise ValueError(f"--agent {name}={spec}: budget must be above 0 and at most {MAX_BUDGET:g} s on a server")
    return spec


class SharedAgent:
    """One loaded agent played by every seat and session that names it: its
    moves are chosen one at a time (sessions run in their own threads)."""

    def __init__(self, agent: Any):
        self.agent = agent
        self.name = agent_name(agent)
        self._lock = threading.Lock()

    def act(self, obs: Any, mask: Any) -> int:
        """The shared agent's action (``act(obs, mask) -> int``)."""
        with self._lock:
            return act(self.agent, obs, mask)


class AgentTable:
    """The agents a play server offers, by name only: ``random``, ``rule``,
    ``ppo`` and the ``extra`` names its owner gave (``{name: spec}``, see
    :func:`parse_agent_option`).  ``random`` and ``rule`` are made per seat
    (they cost nothing); any other agent (a trained policy) is loaded once
    per game, agent and config and shared by every seat and session that
    plays it (trained policies play their most likely action, so one copy
    serves them all)."""

    def __init__(self, extra: dict[str, str] | None = None):
        self.specs = {name: name for name in AGENT_NAMES}
        for name, spec in (extra or {}).items():
            self.specs[name] = parse_agent_option(f"{name}={spec}")[1]
        self._shared: dict[tuple[str, str, str], SharedAgent] = {}
        self._lock = threading.Lock()

    @property
    def names(self) -> list[str]:
        """The names a request may give as ``vs``."""
        return list(self.specs)

    def make(self, game: str, name: Any, seed: int, config: dict[str, Any]) -> Any:
        """The agent called ``name`` for one seat of ``game``.  ValueError for a
        name the server does not offer, or an agent that cannot play this game
        here (the reason, which may name files, goes to the server's stderr);
        :class:`AgentsUnavailableError` without the train extra."""
        spec = self.specs.get(name) if isinstance(name, str) else None
        if spec is None:
            raise ValueError(f"unknown agent {name!r}: this server offers {self.names}")
        if spec in ("random", "rule"):
            return load_agent(game, spec, seed, config)
        key = (game, name, json.dumps(config, sort_keys=True, default=str))
        with self._lock:  # one load at a time: a second request for the same policy waits for the first
            shared = self._shared.pop(key, None)
            if shared is None:
                loaded = self._load(game, name, spec, config, seed)
                if isinstance(loaded, SearchPlayer):  # (it follows one game: one per seat, never shared)
                    loaded.decision_seconds = served_decision_seconds(spec)
                    return loaded
                shared = SharedAgent(loaded)
            self._shared[key] = shared  # the most recently used last
            while len(self._shared) > MAX_SHARED:
                self._shared.pop(next(iter(self._shared)))
        return shared

    def _load(self, game: str, name: str, spec: str, config: dict[str, Any], seed: int = 0) -> Any:
        try:
            return load_agent(game, spec, seed, config)
        except AgentsUnavailableError:
            raise
        except Exception as e:  # a missing or unsuitable checkpoint: its path stays on the server
            print(f"cardenvs serve: agent {name!r} ({spec}) for {game}: {type(e).__name__}: {e}", file=sys.stderr)
            raise ValueError(f"the agent {name!r} cannot play {game} on this server (its log says why)") from None
