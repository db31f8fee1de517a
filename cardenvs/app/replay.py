"""Replays: a game as a small JSON file (game, config, seed, reset options
and the action texts), re-played through the env to rebuild every state.

Record one from

- the AEC env: ``env = recording_env("pepper_v0", num_players=3)`` is the
  usual env (PettingZoo-wrapped) that also records; ``env.replay`` is the
  game so far;
- Spit's parallel env: ``recording_parallel_env("spit_v0")``;
- a row of the vector engine: ``VectorRecorder(engine, "pepper_v0", row=3)``
  (it fixes that row's deals, see its docstring);
- an evaluation: ``record_game(game, [agent, ...], seed)`` plays one game
  with the given agents and returns its replay.

``replay.states()`` re-plays the actions (deterministic seeds and decks) and
returns the state after each step.  Turn-based games store one action text
per step; Spit/Speed one list of texts (one per seat) per tick.

Every replay has a seed: a recording env reset without one draws one
(:func:`draw_seed`) and records it.  A replay read from a file or a dict is
checked field by field (:mod:`.replay_check`); a bad one raises
:class:`ReplayError`, a ``ValueError`` saying what is wrong.
"""

from __future__ import annotations

import importlib
import json
import operator
import secrets
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

import cardenvs
from cardenvs.registry import spec

from .agents import act, agent_name, attach, load_agent
from .replay_check import CARD, FORMAT, VERSION, ReplayError, check_fields, check_replay

__all__ = [
    "CARD",
    "FORMAT",
    "VERSION",
    "Replay",
    "ReplayError",
    "VectorRecorder",
    "deck_of",
    "draw_seed",
    "record_game",
    "recording_env",
    "recording_parallel_env",
]

# A game played without a seed draws one below this (and records it): small
# enough to type back, and exact wherever the replay's JSON is read (JavaScript).
SEED_DRAW_LIMIT = 2**31


def draw_seed(rng: np.random.Generator | None = None) -> int:
    """A seed ``0 <= seed < 2**31`` for a game played without one, so that its
    replay re-plays: drawn from ``rng`` when given (an env seeded before goes
    on deterministically), else from the operating system's entropy.  The
    play page's new-game path and ``cardenvs play`` record games with it."""
    if rng is not None:
        return int(rng.integers(SEED_DRAW_LIMIT))
    return secrets.randbelow(SEED_DRAW_LIMIT)


def _seed_of(env: Any, seed: Any) -> int:
    """The seed a recording env resets with: ``seed`` as an int, or drawn
    (from the env's generator when an earlier reset seeded it, so that
    ``reset(seed=s)`` then ``reset()`` stays deterministic)."""
    if seed is not None:
        return operator.index(seed)
    u = env.unwrapped
    rng = getattr(u, "_rng", None) or getattr(getattr(u, "parallel", None), "_rng", None)
    return draw_seed(rng if isinstance(rng, np.random.Generator) else None)


@dataclass
class Replay:
    """A game as the library saves it: its game, config, seed, reset options
    and action texts (plus who played and the result).  Files and dicts are
    read with :meth:`load`, :meth:`loads` and :meth:`from_dict`, which check
    everything (:meth:`check`) and raise :class:`ReplayError` otherwise."""

    game: str
    config: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    options: dict[str, Any] | None = None
    actions: list[Any] = field(default_factory=list)
    players: list[str] | None = None  # who played each seat (agent names), if known
    result: dict[str, Any] | None = None  # {"scores": [...], "winners": [...]} once the game is over
    note: str = ""
    # The states themselves, for games that cannot be re-played from their
    # actions (a Spit row of the vector engine, whose coins come from the
    # engine's generator); None otherwise.
    states_recorded: list[dict[str, Any]] | None = None

    # ------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, **asdict(self)}

    @classmethod
    def from_dict(cls, d: Any) -> Replay:
        """The replay a dict (parsed JSON) describes, checked (:meth:`check`);
        :class:`ReplayError` (a ``ValueError``) says what is wrong otherwise."""
        return cls(**check_fields(d)).check()

    def check(self) -> Replay:
        """Raise :class:`ReplayError` unless this is a replay of its game as
        this library writes them (every field, action text and recorded state;
        :mod:`cardenvs.app.replay_check` lists the checks); returns self."""
        check_replay(self)
        return self

    def dumps(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    def save(self, path: str) -> None:
        with open(path, "w") as f:
            f.write(self.dumps())

    @classmethod
    def loads(cls, text: str | bytes, path: str | None = None) -> Replay:
        """The replay in a JSON text, checked; :class:`ReplayError` (its
        message starting with ``path`` when given) for anything else."""
        try:
            if isinstance(text, bytes):
                text = text.decode("utf-8")
            d = json.loads(text, parse_constant=_no_constant)
        except UnicodeDecodeError:
            raise ReplayError("not a replay: not UTF-8 text", path) from None
        except json.JSONDecodeError as e:
            raise ReplayError(f"not a replay: not JSON ({e.msg} at line {e.lineno} column {e.colno})", path) from None
        except RecursionError:
            raise ReplayError("not a replay: JSON nested too deeply", path) from None
        except ValueError as e:  # a number beyond Python's digit limit, NaN or Infinity
            raise ReplayError(f"not a replay: {e}", path) from None
        try:
            return cls.from_dict(d)
        except ReplayError as e:
            raise ReplayError(str(e), path) from None

    @classmethod
    def load(cls, path: str) -> Replay:
        """The replay saved in the file ``path``, checked; ``OSError`` when the
        file cannot be read, :class:`ReplayError` (``"PATH: what is wrong"``)
        when it is not a replay this library can re-play."""
        with open(path, "rb") as f:
            return cls.loads(f.read(), str(path))

    # ------------------------------------------------------------ replay
    @property
    def simultaneous(self) -> bool:
        return spec(self.game).simultaneous

    def make_env(self) -> Any:
        """The env the game is re-played in (AEC, or parallel for Spit), reset."""
        mod = importlib.import_module(spec(self.game).module)
        env = mod.parallel_env(**self.config) if self.simultaneous else mod.env(**self.config)
        env.reset(seed=self.seed, options=self.options)
        return env

    def steps(self, limit: int | None = None) -> Iterator[tuple[dict[str, Any], Any, Any]]:
        """``(state, actor, action)`` for the start and after each step:
        ``actor``/``action`` are what led to ``state`` (None at the start;
        for Spit, actor None and action the list of both seats' texts)."""
        if self.states_recorded is not None:
            yield self.states_recorded[0], None, None
            for state, action in list(zip(self.states_recorded[1:], self.actions))[:limit]:
                yield state, None, action
            return
        env = self.make_env()
        u = env.unwrapped
        yield u.state_dict(), None, None
        for i, action in enumerate(self.actions[:limit]):
            try:
                if self.simultaneous:
                    env.step({a: u.str_to_action(t) for a, t in zip(env.possible_agents, action)})
                    actor = None
                else:
                    actor = u.state_dict().get("current_player")
                    if actor is None or actor < 0:
                        actor = env.possible_agents.index(env.agent_selection)
                    env.step(u.str_to_action(action))
            except (ValueError, KeyError, TypeError) as e:
                raise ValueError(f"replay step {i} ({action!r}) cannot be played: {e}") from e
            yield u.state_dict(), actor, action

    def states(self, limit: int | None = None) -> list[dict[str, Any]]:
        """The state at the start and after each of the first ``limit`` steps."""
        return [s for s, _, _ in self.steps(limit)]


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a replay holds")


def result_of(state: dict[str, Any]) -> dict[str, Any] | None:
    if not state.get("done"):
        return None
    winners = state.get("winners")
    if winners is None and state.get("winner") is not None:
        winners = [state["winner"]]
    return {"scores": state.get("scores"), "winners": winners or []}


def _module(game: str):
    return importlib.import_module(spec(game).module)


# ------------------------------------------------------------------- recorders
try:
    from pettingzoo.utils.wrappers import BaseParallelWrapper, BaseWrapper
except ImportError:  # pragma: no cover - older PettingZoo
    from pettingzoo.utils import BaseParallelWrapper, BaseWrapper


class RecordingEnv(BaseWrapper):
    """An AEC env that records its game (``self.replay``); every reset starts
    a new replay.  Build it with :func:`recording_env`."""

    def __init__(self, env: Any, game: str, config: dict[str, Any]):
        super().__init__(env)
        self.replay = Replay(game, dict(config))
        self._tick: list[str] = []

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        seed = _seed_of(self, seed)  # drawn when None: every replay re-plays
        super().reset(seed=seed, options=options)
        self.replay = Replay(self.replay.game, self.replay.config, seed, _jsonable(options))
        self._tick = []

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        dead = self.terminations.get(agent) or self.truncations.get(agent)
        text = None if dead or action is None else self.unwrapped.action_to_str(int(action))
        super().step(action)  # raises (nothing recorded) if illegal
        if text is None:
            return
        if spec(self.replay.game).simultaneous:
            self._tick.append(text)
            if len(self._tick) == len(self.possible_agents):
                self.replay.actions.append(self._tick)
                self._tick = []
        else:
            self.replay.actions.append(text)
        self.replay.result = result_of(self.unwrapped.state_dict())


class RecordingParallelEnv(BaseParallelWrapper):
    """A parallel env (Spit) that records its game; see :func:`recording_parallel_env`."""

    def __init__(self, env: Any, game: str, config: dict[str, Any]):
        super().__init__(env)
        self.replay = Replay(game, dict(config))

    def reset(self, seed: int | None = None, options: dict | None = None):
        seed = _seed_of(self, seed)  # drawn when None: every replay re-plays
        out = self.env.reset(seed=seed, options=options)
        self.replay = Replay(self.replay.game, self.replay.config, seed, _jsonable(options))
        return out

    def step(self, actions: dict[str, Any]):
        u = self.env.unwrapped
        texts = [u.action_to_str(int(actions[a])) for a in self.possible_agents]
        out = self.env.step(actions)
        self.replay.actions.append(texts)
        self.replay.result = result_of(u.state_dict())
        return out


def recording_env(game: str, **config: Any) -> RecordingEnv:
    """The AEC env of ``game`` (as ``cardenvs.make`` builds it) recording its game."""
    return RecordingEnv(cardenvs.make(game, **config), game, _config(config))


def recording_parallel_env(game: str, **config: Any) -> RecordingParallelEnv:
    """The parallel env of a simultaneous game (Spit) recording its game."""
    return RecordingParallelEnv(_module(game).parallel_env(**config), game, _config(config))


def _config(config: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in config.items() if k != "render_mode"}


def _jsonable(x: Any) -> Any:
    """Reset options as JSON (numpy arrays and tuples as lists); other keys
    than decks and dealer are dropped (the env ignores them)."""
    if x is None:
        return None
    x = {k: v for k, v in dict(x).items() if k in ("decks", "dealer")}
    return json.loads(json.dumps(x, default=lambda o: o.tolist() if hasattr(o, "tolist") else list(o)))


def deck_of(state: dict[str, Any]) -> list[str]:
    """Every card of a game (each copy once), read from a ``state_dict()``
    (where, by the contract, every card appears exactly once)."""
    out: list[str] = []

    def walk(v: Any) -> None:
        if isinstance(v, str):
            if CARD.match(v):
                out.append(v)
        elif isinstance(v, dict):
            for w in v.values():
                walk(w)
        elif isinstance(v, (list, tuple)):
            for w in v:
                walk(w)

    walk(state)
    return sorted(out)


class VectorRecorder:
    """Records the game in one row of a vector engine.

    A row's deal comes from the engine's random generator, which no seed of
    the single-game env reproduces; so the recorder *fixes* that row's deals:
    :meth:`reset` passes the row ``max_deals`` deck orders shuffled from
    ``seed`` (``options["decks"] = {"per_row": ...}``), and the replay keeps
    the decks its game used and the row's first dealer.  The row's first game
    is recorded (later games in the row are dealt by the engine again); a game
    still going after ``max_deals`` deals is recorded up to there (noted in
    ``replay.note``).  Everything else goes to the engine unchanged.

    Spit and Speed: each tick's coin (who is faster) comes from the engine's
    generator too, so their replay keeps the row's state after every tick
    (``replay.states_recorded``) besides the actions.  The engine resets a
    finished row at once, so the last of those states is the position before
    the final tick, marked done with the final scores.

        engine = cardenvs.vector.make("pepper_v0", 64, seed=0)
        rec = VectorRecorder(engine, "pepper_v0", row=5)
        obs, info = rec.reset()
        while not rec.finished:
            obs, rew, term, trunc, info = rec.step(policy(obs, info))
        rec.replay.save("row5.json")
    """

    def __init__(self, engine: Any, game: str, row: int = 0, seed: int = 0, max_deals: int = 64, **config: Any):
        self.engine, self.game, self.row = engine, game, int(row)
        self.config = _config(config)
        self.seed, self.max_deals = seed, max_deals
        self._env = cardenvs.make(game, **self.config)  # action texts and the deck
        self._env.reset(seed=0)
        self._u = self._env.unwrapped
        self.deck = deck_of(self._u.state_dict())
        self.replay: Replay | None = None
        self.finished = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)

    def reset(self, seed: int | None = None, options: dict | None = None):
        options = dict(options or {})
        if "decks" in options:
            raise ValueError("VectorRecorder fixes the decks itself: pass options without 'decks'")
        rng = np.random.default_rng(self.seed)
        decks = [list(rng.permutation(self.deck)) for _ in range(self.max_deals)]
        per_row: list[Any] = [None] * self.engine.num_envs
        per_row[self.row] = decks
        options["decks"] = {"per_row": per_row}
        out = self.engine.reset(seed=seed, options=options)
        start = self.engine.state_dict(self.row)
        self._decks = decks
        self.replay = Replay(self.game, dict(self.config), self.seed, {"dealer": start["dealer"], "decks": []})
        self._deals = start.get("hand_number", 0)
        self.finished = False
        self._fix_decks()
        if spec(self.game).simultaneous:
            self.replay.states_recorded = [start]
        return out

    def _fix_decks(self) -> None:
        self.replay.options["decks"] = [[str(c) for c in d] for d in self._decks[: self._deals + 1]]

    def step(self, actions: Any, rows: Any = None):
        if self.replay is None:
            raise RuntimeError("call reset() first (the recorder fixes the row's deals there)")
        actions_arr = np.asarray(actions)
        stepped = rows is None or (
            bool(np.asarray(rows)[self.row]) if np.asarray(rows).dtype == bool else self.row in np.asarray(rows)
        )
        if self.finished or not stepped:
            return self.engine.step(actions) if rows is None else self.engine.step(actions, rows=rows)
        a = actions_arr[self.row]
        text = [self._u.action_to_str(int(x)) for x in a] if a.ndim else self._u.action_to_str(int(a))
        out = self.engine.step(actions) if rows is None else self.engine.step(actions, rows=rows)
        _, _, term, trunc, info = out
        self.replay.actions.append(text)
        states = self.replay.states_recorded
        if term[self.row] or trunc[self.row]:
            self.finished = True
            scores = info.get("final_scores")
            final = None if scores is None else [float(s) for s in np.asarray(scores)[self.row]]
            self.replay.result = {"scores": final}
            if states is not None:
                states.append({**states[-1], "done": True, "scores": final, "truncated": bool(trunc[self.row])})
                self.replay.note = "the last state is the position before the final tick (the row was reset)"
        else:
            now = self.engine.state_dict(self.row)
            if states is not None:
                states.append(now)
            deals = now.get("hand_number", 0)
            if deals != self._deals:
                self._deals = deals
                if deals >= self.max_deals:  # the next deal is the engine's own: stop here
                    self.finished = True
                    self.replay.note = f"recorded up to the end of deal {deals} (max_deals={self.max_deals})"
                else:
                    self._fix_decks()
        return out


def record_game(
    game: str,
    agents: list[Any] | Callable[[int], Any] | str,
    seed: int = 0,
    config: dict[str, Any] | None = None,
    options: dict[str, Any] | None = None,
    max_steps: int | None = None,
    progress: Callable[[int, int | None], None] | None = None,
) -> Replay:
    """Play one game with ``agents`` (one per seat: objects with
    ``act(obs, mask)``, callables ``(obs, mask) -> action``, or names for
    :func:`cardenvs.app.agents.load_agent`; a single name for every seat)
    and return its replay.  Evaluation code can call it to keep games to
    look at.  ``progress(steps, max_steps)`` is called after every step."""
    config = _config(config or {})
    n_players = len(_module(game).raw_env(**config).possible_agents)
    if isinstance(agents, str):
        agents = [agents] * n_players
    agents = [load_agent(game, a, seed + i, config) if isinstance(a, str) else a for i, a in enumerate(agents)]
    if len(agents) != n_players:
        raise ValueError(f"{game} with {config} has {n_players} seats; got {len(agents)} agents")
    steps = 0
    if spec(game).simultaneous:
        env = recording_parallel_env(game, **config)
        obs, _ = env.reset(seed=seed, options=options)
        attach(agents, env)
        while env.agents and (max_steps is None or steps < max_steps):
            actions = {
                a: act(agents[i], obs[a]["observation"], obs[a]["action_mask"]) for i, a in enumerate(env.agents)
            }
            obs, *_ = env.step(actions)
            steps += 1
            if progress is not None:
                progress(steps, max_steps)
    else:
        env = recording_env(game, **config)
        env.reset(seed=seed, options=options)
        attach(agents, env)
        for agent in env.agent_iter():
            ob, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            if max_steps is not None and steps >= max_steps:
                break
            seat = env.possible_agents.index(agent)
            env.step(act(agents[seat], ob["observation"], ob["action_mask"]))
            steps += 1
            if progress is not None:
                progress(steps, max_steps)
    env.replay.players = [agent_name(a) for a in agents]
    return env.replay
