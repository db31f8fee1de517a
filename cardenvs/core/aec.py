"""The PettingZoo AEC view shared by the turn-based games.

:class:`CardGameAECEnv` holds a batch-of-one state of a game's rules core
and translates between it and PettingZoo's AEC API.  It implements no rule
itself: legality, the next seat, rewards and termination all come from the
rules core, exactly as in the vector engine.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from . import illegal
from .errors import IllegalActionError
from .game import TurnBasedRules
from .options import action_id
from .view import RulesView


def after_the_end(env: AECEnv) -> None:
    """``step`` once every agent is gone: PettingZoo's order-enforcing
    wrapper warns and does nothing, and so does the env itself (the wrapper
    hands ``step`` straight to the env once reset: see :class:`OrderEnforcing`);
    a ``KeyError`` while agents are left is a real one."""
    if env.agents:
        raise KeyError(env.agent_selection)
    EnvLogger.warn_step_after_terminated_truncated()


#: (the name this module gave it: the policy lives in :mod:`.illegal`)
check_action = illegal.check_one


class CardGameAECEnv(RulesView, AECEnv):
    """AEC environment over a batch of one of a :class:`TurnBasedRules`."""

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "is_parallelizable": False, "render_fps": 1}
    rules_class: type[TurnBasedRules]
    #: Steps taken so far: :class:`OrderEnforcing`'s iterator checks one came between two agents.
    _updates = 0

    def __init__(self, render_mode: str | None = None, **config: Any):
        super().__init__()
        self._set_up(self.rules_class, render_mode, config)
        self.agents = self.possible_agents[:]
        # Per-step constants, made once: each agent's seat, the seat as the
        # rules' (1,) seats argument, and the mask of a seat not to act.
        self._seats = {a: i for i, a in enumerate(self.possible_agents)}
        self._seat_rows = [np.array([i]) for i in range(len(self.possible_agents))]
        self._no_mask = np.zeros(self.rules.num_actions, np.int8)
        self._no_rewards = dict.fromkeys(self.possible_agents, 0.0)  # (copied for a step nobody scores in)
        self._num_actions = self.rules.num_actions
        # The buffers of the rules' one-call step (None: the game has none):
        # it writes the next seat's observation, handed out by the next
        # observe of that seat (``_ready``), computed as usual otherwise.
        self._one = self.rules.one_game()
        self._ready: str | None = None

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        state = self._new_game(seed, options)  # (a ValueError: the current game goes on untouched)
        try:  # cut short from here, the view's dicts would be half the old game's: the game is dropped
            self._state = state
            self._ready = None
            self.agents = self.possible_agents[:]
            self.rewards = {a: 0.0 for a in self.agents}
            self._cumulative_rewards = {a: 0.0 for a in self.agents}
            self.terminations = {a: False for a in self.agents}
            self.truncations = {a: False for a in self.agents}
            self.infos = {a: {} for a in self.agents}
            self.agent_selection = self.possible_agents[int(state.current[0])]
        except BaseException as exc:
            self._state = None  # (first: see _cut_short)
            self._cut_short(exc, "a reset")
            raise

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last``; the observation the step wrote is handed
        out as :meth:`observe` hands it out, without the call (at batch 1
        every call a step makes is a visible part of it)."""
        agent = self.agent_selection
        assert agent is not None
        if not observe:
            obs = None
        elif agent == self._ready:  # (observe's first branch)
            self._ready = None
            one = self._one
            seen = one.seen_row.copy() if self.obs_dtype is None else one.seen_row.astype(self.obs_dtype)
            obs = {"observation": seen, "action_mask": one.mask_row.copy()}
        else:
            obs = self.observe(agent)
        return (
            obs,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        ready = self._ready
        if ready is not None and agent == ready:  # written by the step: handed out once, then made anew
            self._ready = None
            one = self._one
            seen = one.seen_row.copy() if self.obs_dtype is None else one.seen_row.astype(self.obs_dtype)
            return {"observation": seen, "action_mask": one.mask_row.copy()}
        state = self._require_game()
        seat = self._seats.get(agent)
        if seat is None:
            seat = self.possible_agents.index(agent)  # not an agent: list.index's ValueError
        obs = self._cast(self.rules.observe(state, self._seat_rows[seat])[0])
        if seat == state.current[0] and self._forfeit is None:
            mask = state.legal[0].astype(np.int8)
        else:
            mask = self._no_mask.copy()
        return {"observation": obs, "action_mask": mask}

    def step(self, action: Any) -> None:
        state = self._state
        if state is None:
            self._require_game()  # (raises)
        self._updates += 1
        agent = self.agent_selection
        try:
            dead = self.terminations[agent] or self.truncations[agent]
        except KeyError:  # (every agent gone: the order-enforcing wrapper's warning, see after_the_end)
            return after_the_end(self)
        if dead:
            return self._was_dead_step(action)
        if type(action) is int and 0 <= action < self._num_actions and state.legal[0, action]:
            a = action  # a legal int (what agents step): check_one's checks would pass
        else:
            a = action_id(action, self._num_actions)  # (TypeError; out of range: refused under every policy)
            try:
                a = illegal.check_one(self.rules, state.legal[0], a)
            except IllegalActionError:
                if self.illegal_action != illegal.TERMINATE:
                    raise
                return self._end_by_illegal_action(agent)
        self._cumulative_rewards[agent] = 0.0
        one = self._one
        try:  # cut short from here to the end of this view's record of the step: the game cannot be trusted
            if one is not None:
                observed, scored, seat = self.rules.step_one(state, a, one)
                step_rewards = one.rewards
            else:
                step_rewards, observed = self.rules.step(state, np.array([a])), False
                scored, seat = any(step_rewards[0].tolist()), (-1 if state.done[0] else int(state.current[0]))
            if scored:
                self.rewards = dict(zip(self.possible_agents, step_rewards[0].tolist()))
                self._accumulate_rewards()
            else:  # the usual step: nobody scores (adding zeros would change nothing)
                self.rewards = self._no_rewards.copy()
            if seat < 0:
                self.terminations = {ag: True for ag in self.agents}
            else:
                self.agent_selection = self.possible_agents[seat]
            self._ready = self.agent_selection if observed else None
        except BaseException as exc:
            self._state = None  # (first: see _cut_short)
            self._cut_short(exc)
            raise
        if self.render_mode == "human":
            self.render()

    def _end_by_illegal_action(self, agent: str) -> None:
        """``illegal_action="terminate"``: the game ends, ``agent`` gets -1 and
        everyone else 0 (the rules' state is left as it was)."""
        self._forfeit = self.possible_agents.index(agent)
        self._ready = None  # (a forfeited game shows no mask)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = illegal.forfeit_rewards(self.agents, agent)
        self.terminations = {a: True for a in self.agents}
        self._accumulate_rewards()

    def legal_actions(self) -> list[int]:
        return [int(a) for a in np.flatnonzero(self._state.legal[0])]


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcing, with a ``RuntimeError`` (not an
    ``AssertionError``) for ``step``/``observe`` before ``reset``.

    The calls of every step (``agent_iter``, ``last``, ``observe``, ``step``)
    go straight to the env: PettingZoo's generic ``__getattr__`` forwarding
    costs two Python calls per attribute read, and its ``last`` and iterator
    read five (a third of a step's time at batch 1).  Once reset, ``step``,
    ``last`` and ``observe`` are the env's own (one Python call less each: a
    wrapper is never un-reset); the env warns as the wrapper does for a
    ``step`` once every agent is gone, and counts its steps (``_updates``)
    for the iterator's check that every agent it hands out is stepped.  The
    checks and errors are PettingZoo's."""

    def __init__(self, env: AECEnv):
        super().__init__(env)
        # The env's ``_updates`` when an iterator last handed out an agent (None: reset since), in a
        # cell the iterators share: an attribute of the wrapper is read through PettingZoo's
        # ``__getattr__`` hook (unspecialized, a visible part of a Spit decision), a list's item is not.
        self._seen: list[int | None] = [None]

    def step(self, action: Any) -> None:
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        self._seen[0] = None
        if not self.env.agents:
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self.env.step(action)

    def observe(self, agent: str) -> Any:
        if not self._has_reset:
            raise RuntimeError("call reset() before observe()")
        return self.env.observe(agent)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:  # PettingZoo's: agent_selection is read first
            raise AttributeError("agent_selection cannot be accessed before reset: call reset() first")
        return self.env.last(observe)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """The env's reset; only once it succeeded is the wrapper reset (a
        first reset that raised leaves it as before any: ``last``, ``step``,
        ``observe``, ``agent_iter`` refuse as they did, not with the env's
        missing attributes)."""
        self.env.reset(seed=seed, options=options)
        self._has_reset = self._has_updated = True
        self._seen[0] = None
        self.step, self.last, self.observe = self.env.step, self.env.last, self.env.observe

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _Iterable(self, max_iter)

    def render(self, seat: int | None = None) -> Any:
        """The env's render; ``seat=k``: only what seat k sees."""
        if not self._has_reset:
            raise RuntimeError("call reset() before render()")
        return self.env.render(seat) if seat is not None else super().render()


class _Iterable(AECOrderEnforcingIterable):
    def __iter__(self) -> _Iterator:
        return _Iterator(self.env, self.max_iter)


class _Iterator(AECOrderEnforcingIterator):
    """PettingZoo's order-enforcing iterator reading the env under the
    wrapper: an agent is handed out only if the env was stepped (its
    ``_updates`` moved) or reset since the last one (an iterator, not a
    generator: one that raised goes on once the loop steps or resets, as
    PettingZoo's does)."""

    def __init__(self, env: OrderEnforcing, max_iter: int):
        super().__init__(env, max_iter)
        self._raw, self._seen = env.env, env._seen

    def __next__(self) -> str:
        env = self._raw
        if not env.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        updates, seen = env._updates, self._seen
        assert seen[0] != updates, "need to call step() or reset() in a loop over `agent_iter`"
        seen[0] = updates
        return env.agent_selection


def wrap(raw: AECEnv) -> AECEnv:
    """The standard PettingZoo classic wrappers, minus TerminateIllegalWrapper
    (illegal actions follow the env's ``illegal_action`` option instead)."""
    return OrderEnforcing(raw)
