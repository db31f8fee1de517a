"""Baseline agents for cardenvs games, the environments they train in, and
evaluation.

- :mod:`agents.base`: the agent interface (observation + mask -> action,
  batched too), :class:`RandomAgent`, :class:`PolicyAgent` (a trained
  MaskablePPO policy, or a frozen copy of one for self-play).
- :mod:`agents.pepper`: :class:`PepperRuleAgent`, a rule-based Pepper player.
- :mod:`agents.seat_env`: a one-seat Gymnasium env over the AEC env and an
  SB3 ``VecEnv`` over the batched engine (other seats played by agents).
- :mod:`agents.evaluation`: matches, win rates with confidence intervals,
  tournaments.
"""

from .base import Agent, PolicyAgent, RandomAgent

__all__ = ["Agent", "RandomAgent", "PolicyAgent"]
