"""The vectorised engine: many games stepped at once on batched numpy state.

>>> import cardenvs.vector as V
>>> venv = V.make("pepper_v0", num_envs=1024, seed=0)
>>> obs, info = venv.reset()
>>> # obs (1024, obs_size); info["action_mask"] (1024, n_actions) bool;
>>> # info["current_player"] (1024,) the seat each observation belongs to
>>> obs, rewards, terminated, truncated, info = venv.step(actions)

Finished games reset automatically within ``step``: the returned
observation is already the new game's, ``terminated[i]`` is True and
``info["final_obs"][i]`` holds the finished game's last observation as seen
by every seat, shape ``(num_players, obs_size)`` (an object array, None for
rows that did not finish, as in Gymnasium's vector API; ``info["_final_obs"]``
marks the finished rows) and ``info["final_scores"][i]`` its final score per
seat.  ``rewards`` is ``(num_envs, num_players)``: what
each seat earned on this step, terminal rewards included.

Stepping an illegal action raises :class:`cardenvs.IllegalActionError` and
changes nothing.

Large outputs (Push: observation and mask batches of 4 MB or more) are
recycled arrays that are written only where they changed since they were
last handed out (``cardenvs.core.buffers``), so they come **read-only**:
copy one (``obs.astype(np.float32)``, ``mask.copy()``) to change it.  An
array you still hold is never written again.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
from gymnasium import spaces

from .core.errors import IllegalActionError
from .core.game import TurnBasedRules
from .core.spaces import observation_box

# Game name -> "module:RulesClass" of its batched rules core.
RULES = {
    "pepper_v0": "cardenvs.pepper.rules:PepperRules",
    "cancellation_hearts_v0": "cardenvs.cancellation_hearts.rules:CancellationHeartsRules",
    "push_v0": "cardenvs.push.rules:PushRules",
    "spit_v0": "cardenvs.spit.rules:SpitRules",
}


def rules_class(name: str) -> type[TurnBasedRules]:
    if name not in RULES:
        raise ValueError(f"unknown game {name!r}; available: {sorted(RULES)}")
    module, cls = RULES[name].split(":")
    return getattr(importlib.import_module(module), cls)


def make(name: str, num_envs: int, seed: int | None = None, **config: Any) -> VectorEnv:
    """A vector engine running ``num_envs`` games of ``name`` with ``config``.

    Turn-based games get a :class:`VectorEnv`; a rules class may name another
    engine class in ``vector_env_class`` (Spit's simultaneous moves)."""
    rules = rules_class(name)(**config)
    engine = getattr(rules, "vector_env_class", None) or VectorEnv
    return engine(rules, num_envs, seed)


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
            self.rules.own_legal(self.state)  # (the masks handed out last step may be the state's own)
            self.state.assign(idx, part)
        terminated = self.state.done.copy()
        truncated = np.zeros(self.num_envs, bool)
        info_extra = {}
        if terminated.any():
            done = np.flatnonzero(terminated)
            final = np.empty(self.num_envs, dtype=object)
            n = self.num_players
            seen = self.rules.observe(self.state, np.tile(np.arange(n), len(done)), np.repeat(done, n))
            seen = seen.reshape(len(done), n, -1)
            for k, i in enumerate(done):
                final[i] = seen[k]
            info_extra = {
                "final_obs": final,
                "_final_obs": terminated.copy(),
                "final_scores": np.where(terminated[:, None], self.rules.seat_scores(self.state), 0),
            }
            self.rules.reset(self.state, done)
        info = self._info()
        info.update(info_extra)
        return self._observe(), rewards, terminated, truncated, info

    def _observe(self) -> np.ndarray:
        return self.rules.observe(self.state, self.state.current)

    def _info(self) -> dict:
        return {"action_mask": self.rules.legal_copy(self.state), "current_player": self.state.current.copy()}

    def observe(self, seats: np.ndarray) -> np.ndarray:
        """Every game seen by ``seats`` (one seat per row)."""
        return self.rules.observe(self.state, np.asarray(seats, np.int64))

    def state_dict(self, index: int) -> dict:
        return self.rules.state_dict(self.state, index)
