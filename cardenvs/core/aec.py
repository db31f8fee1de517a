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

from .errors import IllegalActionError
from .game import TurnBasedRules
from .options import action_id
from .view import RulesView


def check_action(rules: TurnBasedRules, legal: np.ndarray, action: Any) -> int:
    """Return ``action`` as an int if it is legal now, else raise: ``TypeError``
    for a non-integer, :class:`IllegalActionError` naming it for an integer
    that is out of range or not legal (the state is not touched)."""
    a = action_id(action, rules.num_actions)
    if not legal[a]:
        allowed = ", ".join(repr(rules.action_to_str(x)) for x in np.flatnonzero(legal))
        raise IllegalActionError(f"illegal action {a} ({rules.action_to_str(a)!r}); legal now: {allowed}")
    return a


class CardGameAECEnv(RulesView, AECEnv):
    """AEC environment over a batch of one of a :class:`TurnBasedRules`."""

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "is_parallelizable": False, "render_fps": 1}
    rules_class: type[TurnBasedRules]

    def __init__(self, render_mode: str | None = None, **config: Any):
        super().__init__()
        self._set_up(self.rules_class, render_mode, config)
        self.agents = self.possible_agents[:]

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._state = state = self._new_game(seed, options)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[int(state.current[0])]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self._require_game()
        seat = self.possible_agents.index(agent)
        obs = self._cast(self.rules.observe(state, np.array([seat]))[0])
        acting = seat == state.current[0] and self._forfeit is None
        mask = state.legal[0] if acting else np.zeros(self.rules.num_actions, bool)
        return {"observation": obs, "action_mask": mask.astype(np.int8)}

    def step(self, action: Any) -> None:
        self._require_game()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        try:
            a = check_action(self.rules, self._state.legal[0], action)
        except IllegalActionError:
            if self.illegal_action != "terminate":
                raise
            return self._end_by_illegal_action(agent)
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rules.step(self._state, np.array([a]))[0]
        self.rewards = {ag: float(rewards[i]) for i, ag in enumerate(self.possible_agents)}
        if self._state.done[0]:
            self.terminations = {ag: True for ag in self.agents}
        else:
            self.agent_selection = self.possible_agents[int(self._state.current[0])]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _end_by_illegal_action(self, agent: str) -> None:
        """``illegal_action="terminate"``: the game ends, ``agent`` gets -1 and
        everyone else 0 (the rules' state is left as it was)."""
        self._forfeit = self.possible_agents.index(agent)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: (-1.0 if a == agent else 0.0) for a in self.agents}
        self.terminations = {a: True for a in self.agents}
        self._accumulate_rewards()

    def legal_actions(self) -> list[int]:
        return [int(a) for a in np.flatnonzero(self._state.legal[0])]


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcing, with a ``RuntimeError`` (not an
    ``AssertionError``) for ``step``/``observe`` before ``reset``."""

    def step(self, action: Any) -> None:
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        super().step(action)

    def observe(self, agent: str) -> Any:
        if not self._has_reset:
            raise RuntimeError("call reset() before observe()")
        return super().observe(agent)

    def render(self, seat: int | None = None) -> Any:
        """The env's render; ``seat=k``: only what seat k sees."""
        if not self._has_reset:
            raise RuntimeError("call reset() before render()")
        return self.env.render(seat) if seat is not None else super().render()


def wrap(raw: AECEnv) -> AECEnv:
    """The standard PettingZoo classic wrappers, minus TerminateIllegalWrapper
    (illegal actions follow the env's ``illegal_action`` option instead)."""
    return OrderEnforcing(raw)
