"""Agents for cardenvs games, and the files they are loaded from.

This package is the bottom of the three: it imports neither
:mod:`cardenvs.evaluation` (the matches that play agents against each other)
nor :mod:`cardenvs.training` (the learner envs and the learners).

- :class:`Agent` and :class:`RandomAgent` (from :mod:`cardenvs.core.agent`,
  where the games' own rule agents find them); :func:`as_agent` and
  :class:`CallableAgent` (:mod:`cardenvs.agents.adaptor`): the general
  adaptor, a plain function ``(obs, mask) -> actions`` as an agent.
- Agents by name: :func:`make_agent` (:mod:`cardenvs.agents.registry`) and
  :func:`agent_factory` (:mod:`cardenvs.agents.specs`, the agent specs of
  leagues and of the ``cardenvs`` command, :class:`AgentSpecError` for a
  bad one); the built-in agents (:mod:`cardenvs.agents.builtin`: random,
  the rule agents, the shipped policies), PIMC search
  (:mod:`cardenvs.agents.pimc`).
- Trained policies: :class:`PolicyAgent` (:mod:`cardenvs.agents.policy`, a
  MaskablePPO policy; needs the ``train`` extra, torch, imported on first
  use), the small MLP policies (:mod:`cardenvs.agents.mlp`), the policy
  files they are saved in and loaded from without unpickling
  (:mod:`cardenvs.agents.checkpoint`), and the policy parts a policy file
  names (:mod:`cardenvs.agents.advice`, :mod:`cardenvs.agents.legal_logits`,
  :mod:`cardenvs.agents.slot_features`,
  :mod:`cardenvs.agents.rollout_buffer`).
- :mod:`cardenvs.agents.states`: reachable decision states for testing and
  timing agents.
"""

from typing import Any

from ..core.agent import Agent, RandomAgent
from .adaptor import CallableAgent, as_agent
from .specs import AgentSpecError, agent_factory

__all__ = [
    "Agent",
    "RandomAgent",
    "CallableAgent",
    "as_agent",
    "AgentSpecError",
    "agent_factory",
    "make_agent",
    "PolicyAgent",
]


def __getattr__(name: str) -> Any:
    # PolicyAgent needs the "train" extra (torch): imported on first use only.
    if name == "PolicyAgent":
        from .policy import PolicyAgent

        return PolicyAgent
    if name == "make_agent":
        from .registry import make_agent

        return make_agent
    raise AttributeError(f"module 'cardenvs.agents' has no attribute {name!r}")
