"""Baseline agents for cardenvs games, the environments they train in, and
evaluation.

- :mod:`cardenvs.agents.base` (:mod:`cardenvs.core.agent`): the agent interface (observation + mask -> action,
  batched too), :class:`RandomAgent`, :class:`PolicyAgent` (a trained
  MaskablePPO policy, or a frozen copy of one for self-play).
- :mod:`cardenvs.games.pepper.agent`: :class:`PepperRuleAgent`, a rule-based Pepper player
  (the Hearts, Push and Spit ones beside it; each decides a whole batch in one
  compiled pass, its per-row reference kept as ``act_row``).
- :mod:`cardenvs.agents.states`: reachable decision states for testing and timing agents.
- :mod:`cardenvs.agents.seat_env`: the learner envs, one learner seat with agents
  at the other seats: a Gymnasium env over the AEC env, an SB3 ``VecEnv`` and a
  Gymnasium ``VectorEnv`` (:mod:`cardenvs.agents.gym_vector`) over the batched
  engine (:mod:`cardenvs.agents.seat_batch`).
- :mod:`cardenvs.agents.evaluation`: matches, win rates with confidence intervals,
  tournaments.
"""

from typing import Any

from ..core.agent import Agent, RandomAgent

__all__ = ["Agent", "RandomAgent", "PolicyAgent", "make_agent"]


def __getattr__(name: str) -> Any:
    # PolicyAgent needs the "train" extra (torch): imported on first use only.
    if name == "PolicyAgent":
        from .policy import PolicyAgent

        return PolicyAgent
    if name == "make_agent":
        from .registry import make_agent

        return make_agent
    raise AttributeError(f"module 'cardenvs.agents' has no attribute {name!r}")
