"""The general agent adaptor: whatever a user hands in as a player -- a
cardenvs :class:`~cardenvs.core.agent.Agent`, or a plain function ``(obs,
mask) -> actions`` on batches -- as an :class:`Agent` (:func:`as_agent`).

Matches, duplicate matches, leagues and the agent specs (``module:name``
naming a function) all take players through it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.agent import Agent

#: a policy: an Agent, or a plain function ``(obs, mask) -> actions`` on batches
Policy = Agent | Callable[[np.ndarray, np.ndarray], np.ndarray]


class CallableAgent(Agent):
    """A plain function ``(obs (N, obs_size), mask (N, n_actions)) -> actions (N,)`` as an :class:`Agent`."""

    def __init__(self, fn: Callable[[np.ndarray, np.ndarray], Any], name: str | None = None):
        super().__init__()
        self.fn = fn
        self.name = name or getattr(fn, "__name__", "policy")

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.asarray(self.fn(obs, mask))


def as_agent(policy: Policy, name: str | None = None) -> Agent:
    """``policy`` as an :class:`Agent` (a plain callable is wrapped); TypeError for anything else."""
    if isinstance(policy, Agent) or hasattr(policy, "act_batch"):
        return policy  # type: ignore[return-value]
    if callable(policy):
        return CallableAgent(policy, name)
    raise TypeError(f"an agent must be a cardenvs Agent or a function (obs, mask) -> actions, got {policy!r}")
