"""The PettingZoo AEC view shared by the turn-based games.

:class:`CardGameAECEnv` holds a batch-of-one state of a game's rules core
and translates between it and PettingZoo's AEC API.  It implements no rule
itself: legality, the next seat, rewards and termination all come from the
rules core, exactly as in the vector engine.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .errors import IllegalActionError
from .game import TurnBasedRules
from .spaces import observation_box
from .view import RulesView, check_render_mode


def check_action(rules: TurnBasedRules, legal: np.ndarray, action: Any) -> int:
    """Return ``action`` as an int if it is legal now, else raise
    :class:`IllegalActionError` naming it (the state is not touched)."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
            action = int(action)
        else:
            raise IllegalActionError(f"action must be an int action id, got {action!r}")
    a = int(action)
    if not 0 <= a < rules.num_actions:
        raise IllegalActionError(f"action {a} out of range 0..{rules.num_actions - 1}")
    if not legal[a]:
        allowed = ", ".join(repr(rules.action_to_str(x)) for x in np.flatnonzero(legal))
        raise IllegalActionError(f"illegal action {a} ({rules.action_to_str(a)!r}); legal now: {allowed}")
    return a


class CardGameAECEnv(RulesView, AECEnv):
    """AEC environment over a batch of one of a :class:`TurnBasedRules`."""

    metadata = {"render_modes": ["human", "ansi"], "is_parallelizable": False, "render_fps": 1}
    rules_class: type[TurnBasedRules]

    def __init__(self, render_mode: str | None = None, **config: Any):
        super().__init__()
        self.render_mode = check_render_mode(render_mode)
        self.rules = self.rules_class(**config)
        self.config = dict(config)
        n = self.rules.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        obs_space = spaces.Dict(
            {
                "observation": observation_box(self.rules),
                "action_mask": spaces.Box(0, 1, (self.rules.num_actions,), np.int8),
            }
        )
        # One space object per agent, returned unchanged on every call.
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.rules.num_actions) for a in self.possible_agents}

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

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
        seat = self.possible_agents.index(agent)
        obs = self.rules.observe(self._state, np.array([seat]))[0]
        mask = self._state.legal[0] if seat == self._state.current[0] else np.zeros(self.rules.num_actions, bool)
        return {"observation": obs, "action_mask": mask.astype(np.int8)}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        a = check_action(self.rules, self._state.legal[0], action)
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

    def legal_actions(self) -> list[int]:
        return [int(a) for a in np.flatnonzero(self._state.legal[0])]


def wrap(raw: AECEnv) -> AECEnv:
    """The standard PettingZoo classic wrappers, minus TerminateIllegalWrapper
    (illegal actions raise :class:`IllegalActionError` instead)."""
    return wrappers.OrderEnforcingWrapper(raw)
