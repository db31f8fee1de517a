"""The engine loop of duplicate matches (:mod:`.duplicate`): the copies of a
chunk of deals, one per seating, each a batch of games on the vector
engine's rules with per-game streams, stepped together until every game is
over -- no game is reset, so each deal is played exactly once per seating.
At each step every agent decides for all the seats it holds in every copy
in one call (a batch as large as the chunk allows).  Faults (an agent that
raises or plays an illegal action) forfeit the games they happen in, or
stop the match (``strict``).

Common random numbers: an agent with ``act_streams(obs, mask, rngs)`` (as
:class:`~.base.RandomAgent`) decides with one generator per row, the
stream of that deal and seat (:meth:`Copy.stream`): every copy of a deal
makes its own generator for each (agent, seat) from the same seed -- the
copy's key (the run's seed and the chunk), the row and the seat -- so the
agents at a seat draw the same numbers in every copy, and where their
policies agree (and the game so far is the same) the copies play the
same.  No generator is shared between copies or agents, and a run replays
from its seed.  Independent deals (copies keyed apart) get independent
streams."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import cardenvs.vector as V

from ..core.agent import Agent
from ..registry import spec


class AgentError(RuntimeError):
    """An agent raised or played an illegal action in a strict match (the
    message names the agent and the deal; ``fault``: what was wrong)."""

    def __init__(self, message: str, fault: Any = None):
        super().__init__(message)
        self.fault = fault


class Copy:
    """One seating's copy of a chunk of deals: ``count`` games whose streams
    are keyed by ``key`` (the same key: the same deals), the forfeits
    ``(count, P)`` and, for agents that read the state, the game's tracker
    of what the seats saw (Cancellation Hearts, Push: what PIMC samples from)."""

    def __init__(self, game: str, config: dict, count: int, key: int, track: bool):
        self.key = key
        self.streams: dict[tuple[int, int, int], np.random.Generator] = {}  # (agent, row, seat) -> its generator
        self.engine = V.make(game, count, seed=key, rng="per_game", **config)
        self.engine.reset(seed=key)
        self.rules, self.state = self.engine.rules, self.engine.state
        self.count, self.simultaneous = count, spec(game).simultaneous
        self.forfeits = np.zeros((count, self.rules.num_players), bool)
        self.known: dict[str, Any] = {}
        if track:
            from ..agents.pimc import tracked

            tracking = tracked(game)
            if tracking is not None:
                self.known["tracker"] = tracking.Tracker(self.rules, count)
        self._seen: tuple[np.ndarray, np.ndarray] | None = None  # (rows, their observations) this tick

    def stream(self, agent: int, row: int, seat: int) -> np.random.Generator:
        """The generator of ``agent`` at ``seat`` of game ``row`` in this copy
        (made on first use, seeded from the copy's key, the row and the seat:
        the same numbers in every copy keyed alike, whichever agent sits there)."""
        got = self.streams.get((agent, row, seat))
        if got is None:
            seq = np.random.SeedSequence([self.key & (2**63 - 1), 0xC7A, int(row), int(seat)])
            got = self.streams[(agent, row, seat)] = np.random.default_rng(seq)
        return got

    def live(self) -> np.ndarray:
        """The games still being played (not over, nobody forfeited)."""
        return np.flatnonzero(~self.state.done & ~self.forfeits.any(axis=1))

    def finished(self) -> int:
        return int((self.state.done | self.forfeits.any(axis=1)).sum())

    def observe(self, rows: np.ndarray, seat: int | None) -> tuple[np.ndarray, np.ndarray]:
        """The observations and masks of the seats to act in ``rows`` (Spit: of ``seat``)."""
        state, dtype = self.state, self.engine.obs_dtype
        if self.simultaneous:
            if self._seen is None or self._seen[0] is not rows:  # (every seat of a tick reads one observation)
                self._seen = (rows, self.rules.observe(state, rows))
            obs, mask = self._seen[1][:, seat], state.legal[rows, seat]
        else:
            obs, mask = self.rules.observe(state, state.current[rows], rows), state.legal[rows]
        return (obs if dtype is None else obs.astype(dtype)), mask

    def step(self, actions: np.ndarray) -> None:
        """Step the live games (finished games are left alone by the rules;
        a forfeited one, not over, is stepped apart from it)."""
        rows, state = self.live(), self.state
        self._seen = None
        if not len(rows):
            return
        tracker = self.known.get("tracker")
        if len(rows) == int((~state.done).sum()):  # every game not over: the whole batch
            if tracker is None:
                self.rules.step(state, actions)
            else:
                tracker.step(self.rules, state, actions)
            return
        part = state.select(rows)
        if tracker is None:
            self.rules.step(part, actions[rows])
        else:
            watched = tracker.select(rows)
            watched.step(self.rules, part, actions[rows])
            for name, value in vars(watched).items():
                getattr(tracker, name)[rows] = value
        state.assign(rows, part)

    def results(self) -> tuple[np.ndarray, ...]:
        """Final scores, winners and forfeits ``(count, P)`` each, the
        hands (Push: rounds) each game played ``(count,)`` (-1: a game
        without them) and whether it was truncated ``(count,)`` (Spit's
        ``max_ticks``: never a win)."""
        n = self.rules.num_players
        winners = np.zeros((self.count, n), bool)
        for row in range(self.count):
            winners[row, self.rules.winners(self.state, row)] = True
        hands = getattr(self.state, "hand_number", None)
        hands = np.full(self.count, -1, np.int64) if hands is None else np.asarray(hands, np.int64).copy()
        truncated = getattr(self.state, "truncated", None)
        truncated = np.zeros(self.count, bool) if truncated is None else np.asarray(truncated, bool).copy()
        winners[truncated] = False
        scores = self.rules.seat_scores(self.state).astype(np.float64)
        return scores, winners, self.forfeits.copy(), hands, truncated

    def close(self) -> None:
        self.engine.close()


def _requests(copies: list[Copy], seatings: np.ndarray, simultaneous: bool) -> dict[int, list]:
    """Who must act: agent index -> [(copy index, rows, seat or None)]."""
    out: dict[int, list] = {}
    for s, copy in enumerate(copies):
        rows = copy.live()
        if not len(rows):
            continue
        if simultaneous:
            for seat, k in enumerate(seatings[s]):
                out.setdefault(int(k), []).append((s, rows, seat))
            continue
        owner = seatings[s][copy.state.current[rows]]
        for k in np.unique(owner):
            out.setdefault(int(k), []).append((s, rows[owner == k], None))
    return out


class Fault:
    """What was wrong with an agent's answer: ``bad`` rows, the first one's
    ``reason``, and whether the answer was outside the game's action space
    (``space``: raised, wrong shape, actions out of range) rather than
    merely an illegal action."""

    def __init__(self, bad: np.ndarray, reason: str = "", space: bool = False):
        self.bad, self.reason, self.space = bad, reason, space


def _checked(got: Any, rows: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, Fault]:
    """An agent's answer for ``rows`` (its actions, or the exception it
    raised) checked against ``mask``: the actions (0 where unusable) and the fault."""
    actions = np.zeros(len(rows), np.int64)
    every = np.ones(len(rows), bool)
    if isinstance(got, BaseException):
        return actions, Fault(every, f"raised {type(got).__name__}: {got}", True)
    arr = np.asarray(got)
    if arr.shape != (len(rows),) or (arr.size and arr.dtype.kind not in "iu"):
        return actions, Fault(
            every, f"returned {arr.dtype} actions of shape {arr.shape}, not {len(rows)} integers", True
        )
    n = mask.shape[-1]
    inside = (arr >= 0) & (arr < n)
    if not inside.all():
        return actions, Fault(
            ~inside, f"returned action {arr[~inside][0]}, outside the game's actions 0..{n - 1}", True
        )
    actions[:] = arr
    illegal = ~mask[np.arange(len(rows)), actions]
    return actions, Fault(illegal, f"played the illegal action {arr[illegal][0]}" if illegal.any() else "")


def _call(fn: Callable[[], Any]) -> Any:
    """``fn()``, or the exception it raised (an agent's fault, not the match's)."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 (whatever an agent raises forfeits its games)
        return e


def _answers(agent: Agent, k: int, copies: list[Copy], parts: list, streams: bool) -> list[Any]:
    """``agent``'s (index ``k``) answer for each part (its actions, or what
    it raised): one call over every part's observations (with ``streams``,
    to ``act_streams`` where it has it, with each row's generator), or, for
    an agent reading the state (``act_states``), one call per copy (Spit:
    per copy and seat, the seat named)."""
    if hasattr(agent, "act_states"):
        return [
            _call(
                lambda c=copies[s], r=rows, seat=seat: agent.act_states(
                    c.rules, c.state, r, **({} if seat is None else {"seat": seat}), **c.known
                )
            )
            for s, rows, seat in parts
        ]
    seen = [copies[s].observe(rows, seat) for s, rows, seat in parts]
    obs, mask = np.concatenate([o for o, _ in seen]), np.concatenate([m for _, m in seen])
    if streams and hasattr(agent, "act_streams"):
        rngs = [
            copies[s].stream(k, int(row), int(at))
            for s, rows, seat in parts
            for row, at in zip(rows, copies[s].state.current[rows] if seat is None else np.full(len(rows), seat))
        ]
        got = _call(lambda: agent.act_streams(obs, mask, rngs))
    else:
        got = _call(lambda: agent.act_batch(obs, mask))
    if isinstance(got, BaseException) or np.shape(got) != (len(obs),):
        return [got] * len(parts)  # (a wrong shape is reported per part by _checked)
    return np.split(np.asarray(got), np.cumsum([len(rows) for _, rows, _ in parts])[:-1])


def _decide(
    agent: Agent,
    name: str,
    copies: list[Copy],
    parts: list,
    actions: list[np.ndarray],
    strict: bool,
    first: int,
    k: int = 0,
    streams: bool = False,
) -> None:
    """``agent``'s (index ``k``) actions for its ``parts`` (copy, rows, seat)
    written into ``actions`` (``streams``: see :func:`_answers`); the games
    of its faults forfeited, or with ``strict`` an :class:`AgentError`
    naming it and the deal (numbered from ``first``)."""
    for (s, rows, seat), answer in zip(parts, _answers(agent, k, copies, parts, streams)):
        copy = copies[s]
        mask = copy.state.legal[rows] if seat is None else copy.state.legal[rows, seat]
        acts, fault = _checked(answer, rows, mask)
        if fault.bad.any():
            if strict:
                deal = first + int(rows[np.argmax(fault.bad)])
                raise AgentError(f"agent {name} {fault.reason} in deal {deal}", fault)
            seats = copy.state.current[rows] if seat is None else np.full(len(rows), seat)
            copy.forfeits[rows[fault.bad], seats[fault.bad]] = True
        if seat is None:
            actions[s][rows] = acts
        else:
            actions[s][rows, seat] = acts


def play_chunk(
    game: str,
    config: dict,
    agents: Sequence[Agent],
    names: Sequence[str],
    seatings: np.ndarray,
    count: int,
    keys: Sequence[int],
    first: int,
    strict: bool,
    tick: Callable[[int], None],
    streams: bool = True,
) -> tuple[np.ndarray, ...]:
    """Play ``count`` deals (numbered from ``first``) once per seating, the
    copy of seating s keyed by ``keys[s]``; ``tick(games finished)``;
    ``streams``: common random numbers (the module docstring).
    Returns the scores, winners and forfeits ``(count, S, P)``, the hands
    and the truncations ``(count, S)``."""
    track = any(hasattr(a, "act_states") for a in agents)
    copies = [Copy(game, config, count, key, track) for key in keys]
    try:
        simultaneous = copies[0].simultaneous
        while True:
            requests = _requests(copies, seatings, simultaneous)
            if not requests:
                break
            shape = (count, len(seatings[0])) if simultaneous else (count,)
            actions = [np.zeros(shape, np.int64) for _ in copies]
            for k, parts in requests.items():
                _decide(agents[k], names[k], copies, parts, actions, strict, first, k, streams)
            for copy, acts in zip(copies, actions):
                copy.step(acts)
            tick(sum(copy.finished() for copy in copies))
        results = [copy.results() for copy in copies]
    finally:
        for copy in copies:
            copy.close()
    return tuple(np.stack([r[i] for r in results], axis=1) for i in range(5))  # type: ignore[return-value]


def check_agent(game: str, agent: Agent, name: str, seed: int = 0, **config: Any) -> None:
    """ValueError unless ``agent`` answers the first decisions of ``game``
    (two deals, every seat its own) with actions of the game's action
    space: an agent that raises there, or answers with the wrong shape or
    out-of-range actions, is an agent for another game (or none).  An
    illegal action of the right space passes: it forfeits games later."""
    copy = Copy(game, config, 2, seed, hasattr(agent, "act_states"))
    try:
        rows = copy.live()
        n = copy.rules.num_players
        parts = [(0, rows, seat) for seat in range(n)] if copy.simultaneous else [(0, rows, None)]
        try:
            _decide(agent, name, [copy], parts, [np.zeros((2, n) if copy.simultaneous else 2, np.int64)], True, 0)
        except AgentError as e:
            fault = e.fault
            if fault.space:
                raise ValueError(f"agent {name} does not play {game}: it {fault.reason}") from None
    finally:
        copy.close()
