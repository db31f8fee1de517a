"""Reachable decision states of a game, for testing and timing agents.

:func:`decision_states` plays ``cardenvs.vector`` games and records every
observation a player had to act on, with its legal-action mask: the inputs
an agent's ``act_batch`` is given.  The players pick a random legal action
with probability ``explore`` and otherwise follow ``guide`` (an agent, e.g.
the rule agent, so that the states of sensible play are reached too: big
bids, long tricks, a shot moon), all seats alike.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import cardenvs.vector as V

from ..core.agent import Agent


def decision_states(
    game: str,
    rows: int,
    seed: int = 0,
    num_envs: int = 64,
    guide: Agent | None = None,
    explore: float = 1.0,
    keep: float = 0.05,
    **config: Any,
) -> tuple[np.ndarray, np.ndarray]:
    """``rows`` decision states of ``game`` with ``config``: observations
    ``(rows, obs_size)`` (the engine's dtype) and masks ``(rows, n_actions)``
    bool, every row with a legal action.  Each decision is kept with
    probability ``keep``, so that the rows spread over whole games rather
    than crowd at their first moves.  For a simultaneous game (Spit) both
    players' views are recorded, a row each (a player with a single legal
    action, to wait, is left out)."""
    engine = V.make(game, num_envs=num_envs, seed=seed, **config)
    rng = np.random.default_rng(seed)
    obs, info = engine.reset()
    seen_obs: list[np.ndarray] = []
    seen_mask: list[np.ndarray] = []
    total = 0
    while total < rows:
        mask = np.asarray(info["action_mask"], bool)
        flat_obs, flat_mask = obs.reshape(-1, obs.shape[-1]), mask.reshape(-1, mask.shape[-1])
        kept = (flat_mask.sum(axis=1) > (1 if obs.ndim == 3 else 0)) & (rng.random(len(flat_mask)) < keep)
        seen_obs.append(flat_obs[kept].copy())
        seen_mask.append(flat_mask[kept].copy())
        total += int(kept.sum())
        actions = (rng.random(flat_mask.shape) * flat_mask).argmax(axis=1)
        if guide is not None and explore < 1.0:
            live = np.flatnonzero(flat_mask.any(axis=1) & (rng.random(len(flat_mask)) >= explore))
            if live.size:
                actions[live] = guide.act_batch(flat_obs[live], flat_mask[live])
        obs, _, _, _, info = engine.step(actions.reshape(mask.shape[:-1]))
    return np.concatenate(seen_obs)[:rows], np.concatenate(seen_mask)[:rows]
