"""Opponents for play and recorded games: ``random``, ``rule``, ``ppo``
(the committed baseline) or a checkpoint path.

The repository's agent code is imported in ONE place, :func:`_make_agent`
(it moves into ``cardenvs.agents`` later: change that function only).
``random`` needs no agent code at all."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

AGENT_NAMES = ("random", "rule", "ppo")


class AgentsUnavailableError(RuntimeError):
    """The agent code (the repository's ``agents`` package) cannot be imported."""


class RandomPlayer:
    """Uniformly random among the legal actions (seeded); the same interface
    as the agents package's agents: ``act(obs, mask) -> action``."""

    def __init__(self, seed: int | None = 0):
        self.rng = np.random.default_rng(seed)
        self.name = "random"

    def act(self, obs: Any, mask: Any) -> int:
        legal = np.flatnonzero(np.asarray(mask))
        if not len(legal):
            raise ValueError("no legal action")
        return int(self.rng.choice(legal))


def _make_agent(game: str, spec: str, seed: int, config: dict[str, Any]) -> Any:
    """The ``cardenvs.agents`` agent for ``spec`` (the one import of it)."""
    try:
        from cardenvs.agents.registry import make_agent
    except ImportError as e:  # e.g. a trained policy without the "train" extra
        raise AgentsUnavailableError(
            f"the {spec!r} agent cannot be loaded here ({e}); install the train extra "
            "(pip install 'cardenvs[train]') or play against 'random' or 'rule'"
        ) from e
    return make_agent(game, spec, seed=seed, **config)


def load_agent(game: str, spec: str, seed: int = 0, config: dict[str, Any] | None = None) -> Any:
    """An agent with ``act(obs, mask) -> int`` from its name: ``random``,
    ``rule``, ``ppo``, ``ppo:PATH`` or a checkpoint PATH.  ValueError for an
    unknown name, :class:`AgentsUnavailableError` when the agent code is missing."""
    config = {k: v for k, v in (config or {}).items() if k not in ("render_mode", "illegal_action", "obs_dtype")}
    if spec == "random":
        return RandomPlayer(seed)
    if spec not in AGENT_NAMES and not spec.startswith("ppo:"):
        if not os.path.exists(spec):
            raise ValueError(f"unknown agent {spec!r}: use random, rule, ppo, ppo:PATH or the path of a checkpoint")
        spec = "ppo:" + spec
    agent = _make_agent(game, spec, seed, config)
    if not getattr(agent, "name", None):
        agent.name = spec
    return agent


def agent_name(agent: Any) -> str:
    """An agent's ``name``, a function's ``__name__``, or its class's name."""
    name = getattr(agent, "name", None) or getattr(agent, "__name__", None)
    return str(name or type(agent).__name__)


def act(agent: Any, obs: Any, mask: Any) -> int:
    """One action of ``agent``: an object with ``act(obs, mask)`` or a
    callable ``(obs, mask) -> action``."""
    f = agent.act if hasattr(agent, "act") else agent
    return int(f(obs, np.asarray(mask)))
