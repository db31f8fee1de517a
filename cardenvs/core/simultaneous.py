"""The batched-core interface and the views shared by simultaneous-move games.

In a simultaneous game (Spit) every player submits one action at every
*tick*.  As for the turn-based games (:mod:`cardenvs.core.game`), a game's
rules live in one class over a struct of numpy arrays with a leading batch
dimension, and the rules keep the legal-action mask in the state — here one
mask per player, ``state.legal`` of shape ``(B, P, A)``.

Three views sit on top of a :class:`SimultaneousRules` core and implement no
rule themselves:

* :class:`SimultaneousVectorEnv`: ``num_envs`` games at once, actions
  ``(N, P)``, masks ``(N, P, A)``, observations ``(N, P, obs_size)``,
  rewards ``(N, P)``, automatic reset (``cardenvs.vector.make`` picks it
  through the rules class's ``vector_env_class``).
* :class:`SimultaneousParallelEnv`: the PettingZoo parallel API over a batch
  of one.
* :class:`SimultaneousAECEnv`: an AEC view of the parallel env (players
  submit in seat order; the tick is applied when the last one has).

Illegal actions raise :class:`IllegalActionError` and change nothing, unless
the rules were configured with ``illegal_action="wait"``: then an illegal
action is played as the rules' ``wait_action`` (PettingZoo's
``parallel_seed_test`` samples actions without the mask).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

from .engine import VectorEnv, final_info
from .errors import IllegalActionError
from .game import BatchState, TurnBasedRules
from .spaces import observation_box
from .view import RulesView, check_render_mode


class SimultaneousRules:
    """Interface of a simultaneous game's batched rules.

    After every ``reset``/``step`` the rules recompute ``state.legal``
    ``(B, P, A)`` (all False in finished games), ``state.done`` ``(B,)``
    (the episode is over: won, drawn or truncated) and ``state.truncated``
    ``(B,)`` (it was cut by a tick limit).  ``step`` receives one action per
    player and row; it is only called with actions that are legal or equal
    to ``wait_action`` (see :func:`check_joint_actions`), and only for rows
    that are not done.
    """

    name: str = ""
    num_players: int
    num_actions: int
    obs_size: int
    obs_low: Any = 0.0
    obs_high: Any = 1.0
    obs_dtype: Any = np.float32  # games use the smallest integer dtype that holds their values
    wait_action: int = 0
    illegal_action: str = "raise"  # or "wait"

    # The deck helpers are the turn-based games' (one implementation).
    deck_orders = TurnBasedRules.deck_orders
    set_fixed_decks = TurnBasedRules.set_fixed_decks
    check_dealer = TurnBasedRules.check_dealer

    def new_state(self, batch: int, rng: np.random.Generator) -> BatchState:
        raise NotImplementedError

    def reset(self, state: BatchState, rows: np.ndarray, dealer: int | None = None) -> None:
        raise NotImplementedError

    def step(self, state: BatchState, actions: np.ndarray) -> np.ndarray:
        """Apply one tick: ``actions`` ``(B, P)``; returns rewards ``(B, P)``."""
        raise NotImplementedError

    def observe(self, state: BatchState, rows: np.ndarray | None = None) -> np.ndarray:
        """Observations ``(len(rows), P, obs_size)`` (dtype ``obs_dtype``), each player's own view."""
        raise NotImplementedError

    def state_dict(self, state: BatchState, row: int = 0) -> dict[str, Any]:
        raise NotImplementedError

    def seat_scores(self, state: BatchState) -> np.ndarray:
        raise NotImplementedError

    def render(self, state: BatchState, row: int = 0) -> str:
        raise NotImplementedError

    def action_to_str(self, action: int) -> str:
        raise NotImplementedError

    def str_to_action(self, text: str) -> int:
        raise NotImplementedError


def check_joint_actions(rules: SimultaneousRules, legal: np.ndarray, actions: Any) -> np.ndarray:
    """Validate ``actions`` ``(k, P)`` against ``legal`` ``(k, P, A)``.

    Returns the actions as an int64 array.  A malformed array (wrong shape,
    not integers, out of range) always raises :class:`IllegalActionError`;
    an in-range action that is not legal raises too, or — with
    ``illegal_action="wait"`` — is replaced by ``rules.wait_action``.
    Nothing is modified before the check passes.
    """
    k, n_players, n_actions = legal.shape
    arr = np.asarray(actions)
    if arr.shape != (k, n_players) or not (np.issubdtype(arr.dtype, np.integer) and arr.dtype != np.bool_):
        raise IllegalActionError(
            f"actions must be an int array of shape ({k}, {n_players}), got {arr.dtype} {arr.shape}"
        )
    arr = arr.astype(np.int64)
    if arr.size and (arr.min() < 0 or arr.max() >= n_actions):  # two reductions, no temporary array
        r, p = np.argwhere((arr < 0) | (arr >= n_actions))[0]
        raise IllegalActionError(f"action {int(arr[r, p])} of player_{p} (row {r}) out of range 0..{n_actions - 1}")
    ok = np.take(legal.reshape(-1), np.arange(0, k * n_players * n_actions, n_actions).reshape(k, n_players) + arr)
    if ok.all():
        return arr
    if rules.illegal_action == "wait":
        return np.where(ok, arr, rules.wait_action)
    bad = np.argwhere(~ok)[:5]
    raise IllegalActionError(
        "illegal actions: "
        + "; ".join(
            f"row {r} player_{p}: {int(arr[r, p])} ({rules.action_to_str(arr[r, p])!r}), legal now: "
            + ", ".join(repr(rules.action_to_str(a)) for a in np.flatnonzero(legal[r, p]))
            for r, p in bad
        )
    )


class SimultaneousVectorEnv(VectorEnv):
    """``num_envs`` games of one simultaneous game, stepped together.

    ``reset(seed)`` -> ``(obs, info)``; ``step(actions)`` ->
    ``(obs, rewards, terminated, truncated, info)`` with ``obs``
    ``(N, P, obs_size)``, ``actions`` ``(N, P)``, ``rewards`` ``(N, P)``,
    ``terminated``/``truncated`` ``(N,)`` and ``info["action_mask"]``
    ``(N, P, A)`` bool.  A finished game is reset inside ``step``; its last
    observation is in ``info["final_obs"][i]`` (``(P, obs_size)``; an object
    array, None for other rows, ``info["_final_obs"]`` marks the rows) and its
    final score per seat in ``info["final_scores"]``.
    """

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, dict]:
        self._start(seed)
        return self.rules.observe(self.state), {"action_mask": self.state.legal.copy()}

    def step(self, actions: np.ndarray):
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        actions = check_joint_actions(self.rules, self.state.legal, actions)
        rewards = self.rules.step(self.state, actions)
        done = self.state.done
        truncated = done & self.state.truncated
        terminated = done & ~truncated
        info: dict[str, Any] = {}
        if done.any():
            rows = np.flatnonzero(done)
            info = final_info(self.rules, self.state, done, self.rules.observe(self.state, rows))
            self.rules.reset(self.state, rows)
        info["action_mask"] = self.state.legal.copy()
        return self.rules.observe(self.state), rewards, terminated, truncated, info

    def observe(self) -> np.ndarray:
        return self.rules.observe(self.state)


class SimultaneousParallelEnv(RulesView, ParallelEnv):
    """PettingZoo parallel env over a batch of one of a :class:`SimultaneousRules`."""

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}
    rules_class: type[SimultaneousRules]

    def __init__(self, render_mode: str | None = None, **config: Any):
        self.render_mode = check_render_mode(render_mode)
        self.rules = self.rules_class(**config)
        self.config = dict(config)
        n = self.rules.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents: list[str] = []
        obs_space = spaces.Dict(
            {
                "observation": observation_box(self.rules),
                "action_mask": spaces.Box(0, 1, (self.rules.num_actions,), np.int8),
            }
        )
        # One space object per agent, returned unchanged on every call.
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.rules.num_actions) for a in self.possible_agents}
        self._rng: np.random.Generator | None = None
        self._state = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None):
        self._state = self._new_game(seed, options)
        self.agents = self.possible_agents[:]
        if self.render_mode == "human":
            self.render()
        return self.observations(), {a: {} for a in self.agents}

    def observations(self) -> dict[str, dict[str, np.ndarray]]:
        """Every player's observation of the current state (with its mask)."""
        obs = self.rules.observe(self._state)[0]
        mask = self._state.legal[0].astype(np.int8)
        return {a: {"observation": obs[i], "action_mask": mask[i]} for i, a in enumerate(self.possible_agents)}

    def joint_action(self, actions: dict[str, Any]) -> np.ndarray:
        """``{agent: action}`` -> validated ``(1, P)`` array (raises on a missing
        agent or an illegal action; see :func:`check_joint_actions`)."""
        if not isinstance(actions, dict) or set(actions) != set(self.possible_agents):
            raise IllegalActionError(
                f"actions must be a dict with one action for each of {self.possible_agents}, got {actions!r}"
            )
        row = []
        for a in self.possible_agents:
            x = actions[a]
            if isinstance(x, np.ndarray) and x.shape == ():
                x = x.item()
            if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
                raise IllegalActionError(f"action of {a} must be an int action id, got {x!r}")
            row.append(int(x))
        return check_joint_actions(self.rules, self._state.legal, np.array([row], np.int64))

    def step(self, actions: dict[str, Any]):
        if self._state is None:
            raise RuntimeError("call reset() before step()")
        if not self.agents:
            raise RuntimeError("the game is over: call reset()")
        joint = self.joint_action(actions)
        rewards = self.rules.step(self._state, joint)[0]
        done = bool(self._state.done[0])
        trunc = done and bool(self._state.truncated[0])
        agents = self.agents
        obs = self.observations()
        out = (
            obs,
            {a: float(rewards[i]) for i, a in enumerate(agents)},
            {a: done and not trunc for a in agents},
            {a: trunc for a in agents},
            {a: {} for a in agents},
        )
        if done:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return out


class SimultaneousAECEnv(AECEnv):
    """AEC view of a :class:`SimultaneousParallelEnv`.

    At every tick the players submit in seat order (``player_0`` first).  An
    action is checked against the submitting player's mask at once (illegal
    -> :class:`IllegalActionError`, nothing buffered); the tick is applied
    when the last player has submitted.  Until then every player observes the
    position before the tick, so nobody sees another's pending action.
    """

    metadata = {"render_modes": ["human", "ansi"], "is_parallelizable": True, "render_fps": 1}
    parallel_class: type[SimultaneousParallelEnv]

    def __init__(self, render_mode: str | None = None, **config: Any):
        super().__init__()
        self.parallel = self.parallel_class(render_mode=render_mode, **config)
        self.render_mode = render_mode
        self.rules = self.parallel.rules
        self.possible_agents = self.parallel.possible_agents[:]
        self.agents = self.possible_agents[:]
        self.observation_spaces = self.parallel.observation_spaces
        self.action_spaces = self.parallel.action_spaces
        self._pending: dict[str, int] = {}
        self._obs: dict[str, dict] = {}

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._obs, _ = self.parallel.reset(seed=seed, options=options)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._pending = {}
        self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self._obs[agent]

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        seat = self.possible_agents.index(agent)
        # check this player's action now, against its own mask
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(f"action must be an int action id, got {action!r}")
        probe = np.full((1, self.rules.num_players), self.rules.wait_action, np.int64)
        probe[0, seat] = int(action)
        legal = np.ones_like(self.parallel._state.legal)
        legal[0, seat] = self.parallel._state.legal[0, seat]
        self._pending[agent] = int(check_joint_actions(self.rules, legal, probe)[0, seat])
        if len(self._pending) < len(self.agents):
            if len(self._pending) == 1:
                self._clear_rewards()
            self.agent_selection = self.agents[self.agents.index(agent) + 1]
            return
        obs, rewards, terms, truncs, infos = self.parallel.step(self._pending)
        self._pending = {}
        self._obs = obs
        self.rewards = dict(rewards)
        self._cumulative_rewards = dict(rewards)
        self.terminations = dict(terms)
        self.truncations = dict(truncs)
        self.infos = dict(infos)
        self.agent_selection = self.agents[0]

    def render(self) -> str | None:
        return self.parallel.render()

    def close(self) -> None:
        self.parallel.close()

    # ------------------------------------------------------------- extras
    def action_to_str(self, action: int) -> str:
        return self.rules.action_to_str(action)

    def str_to_action(self, text: str) -> int:
        return self.rules.str_to_action(text)

    def state_dict(self) -> dict[str, Any]:
        return self.parallel.state_dict()
