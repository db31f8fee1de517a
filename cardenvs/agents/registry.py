"""Agents by spec, per game: :func:`make_agent`, the one way every
evaluation path names an agent (``random``, ``rule``, ``ppo``, ``scratch``,
``best``, ``ppo:PATH``,
``mlp:PATH``, ``pimc[:...]``, ``package.module:Name``; see
:mod:`cardenvs.agents.specs`), and the built-in agents' tables
(:mod:`cardenvs.agents.builtin`)."""

from __future__ import annotations

from ..core.agent import Agent
from .builtin import BASELINES, CHECKPOINTS, RULE_AGENTS, builtin_agent, rule_agent
from .specs import BUILT_IN, agent_factory

__all__ = ["BASELINES", "CHECKPOINTS", "RULE_AGENTS", "make_agent", "rule_agent"]


def make_agent(game: str, spec: str, seed: int = 0, **config) -> Agent:
    """An agent from its spec, as the arena, leagues, duplicate, match, play
    and serve name agents: ``"random"``, ``"rule"``, ``"ppo"``,
    ``"scratch"`` (the game's agent learned from scratch: its policy, through
    its search if it has one), ``"scratch-policy"`` (that policy), ``"best"`` (its
    strongest agent, whatever its spec), ``"ppo:PATH"`` (:func:`~cardenvs.agents.builtin.builtin_agent`: a saved
    SB3 zip is rebuilt without unpickling), ``"mlp:PATH"``,
    ``"pimc[:worlds=N,rollout=...]"`` or ``"package.module:Name"``
    (:func:`~cardenvs.agents.specs.agent_factory`).  Unknown specs raise
    :class:`~cardenvs.agents.specs.AgentSpecError` (a ValueError).

    **An SB3 zip is a pickle, and a pickle runs code when it is unpickled**
    (``MaskablePPO.load`` does): load only files you trust.  cardenvs never
    unpickles one (``ppo:PATH`` rebuilds the policy from the zip's readable
    parts), and a ``.npz`` policy file or an ``mlp:PATH`` policy holds no
    pickle at all."""
    if spec in BUILT_IN and spec != "scratch" or spec.startswith("ppo:"):  # (scratch may search: specs makes it)
        return builtin_agent(game, spec, seed, **config)
    return agent_factory(game, spec, config)(seed)
