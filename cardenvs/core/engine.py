"""The vector engine of the turn-based games: ``num_envs`` games stepped
together on one batched state (the public entry point is
:func:`cardenvs.vector.make`, whose docstring describes what it returns)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from .errors import IllegalActionError
from .game import BatchState, TurnBasedRules
from .spaces import observation_box


def final_info(rules: Any, state: BatchState, finished: np.ndarray, seen: np.ndarray) -> dict[str, Any]:
    """The ``info`` entries for the games that just finished (bool ``finished``
    per row): ``final_obs`` (an object array, each finished row's last
    observation per seat from ``seen``, in row order; None elsewhere),
    ``_final_obs`` (the finished rows) and ``final_scores`` (per seat, 0 for
    other rows).  Called before those rows are reset."""
    final = np.empty(len(finished), dtype=object)
    for k, i in enumerate(np.flatnonzero(finished)):
        final[i] = seen[k]
    return {
        "final_obs": final,
        "_final_obs": finished.copy(),
        "final_scores": np.where(finished[:, None], rules.seat_scores(state), 0),
    }


class VectorEnv:
    """``num_envs`` games of one turn-based game, stepped together."""

    def __init__(self, rules: TurnBasedRules, num_envs: int, seed: int | None = None):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.rules = rules
        self.num_envs = int(num_envs)
        self.num_players = rules.num_players
        self.num_actions = rules.num_actions
        self.single_observation_space = observation_box(rules)
        self.single_action_space = spaces.Discrete(rules.num_actions)
        self._seed = seed
        self.state = None
        self._rows = np.arange(self.num_envs)

    def _start(self, seed: int | None) -> None:
        """New games in every slot; the generator is reseeded when ``seed`` is
        given (or on the first reset) and continues otherwise."""
        if seed is not None or self.state is None:
            rng = np.random.default_rng(self._seed if seed is None else seed)
        else:
            rng = self.state.rng
        self.state = self.rules.new_state(self.num_envs, rng)
        self.rules.reset(self.state, self._rows)

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, dict]:
        self._start(seed)
        return self._observe(), self._info()

    def step(self, actions: np.ndarray, rows: np.ndarray | None = None):
        """Step every game with ``actions`` (num_envs,), or only the games in
        ``rows`` (an index array or bool mask; the others stay as they are,
        reward 0) -- e.g. to let other agents move while a learner waits."""
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise IllegalActionError(
                f"actions must be an int array of shape ({self.num_envs},), got {actions.dtype} {actions.shape}"
            )
        idx = self._rows if rows is None else np.arange(self.num_envs)[np.asarray(rows)]
        acts = actions[idx]
        in_range = (acts >= 0) & (acts < self.num_actions)
        ok = in_range & self.state.legal.reshape(-1)[idx * self.num_actions + np.where(in_range, acts, 0)]
        if not ok.all():
            bad = idx[~ok][:5]
            raise IllegalActionError("illegal actions in rows " + ", ".join(f"{i}: {int(actions[i])}" for i in bad))
        if rows is None:
            rewards = self.rules.step(self.state, actions)
        else:
            part = self.state.select(idx)
            rewards = np.zeros((self.num_envs, self.num_players), np.float32)
            rewards[idx] = self.rules.step(part, acts)
            self.state.assign(idx, part)
        terminated = self.state.done.copy()
        truncated = np.zeros(self.num_envs, bool)
        info_extra = {}
        if terminated.any():
            done = np.flatnonzero(terminated)
            n = self.num_players
            seen = self.rules.observe(self.state, np.tile(np.arange(n), len(done)), np.repeat(done, n))
            info_extra = final_info(self.rules, self.state, terminated, seen.reshape(len(done), n, -1))
            self.rules.reset(self.state, done)
        info = self._info()
        info.update(info_extra)
        return self._observe(), rewards, terminated, truncated, info

    def _observe(self) -> np.ndarray:
        return self.rules.observe(self.state, self.state.current)

    def _info(self) -> dict:
        return {"action_mask": self.rules.action_masks(self.state), "current_player": self.state.current.copy()}

    def observe(self, seats: np.ndarray) -> np.ndarray:
        """Every game seen by ``seats`` (one seat per row)."""
        return self.rules.observe(self.state, np.asarray(seats, np.int64))

    def state_dict(self, index: int) -> dict:
        return self.rules.state_dict(self.state, index)
