"""Rule-advised policies: MaskablePPO that starts from the rule-based agent.

Learning a card game from scratch, PPO spends most of its budget rediscovering
what the rule-based agent already knows (follow cheaply, keep the Black
Maria away from yourself, bid on bowers), and in our runs it never caught up
with it.  An *advised* learner sees, next to the game's observation, a
one-hot of the action the game's rule-based agent would take (the
*advice*), and :class:`AdvisedPolicy` adds ``advice_weight x advice`` to its
action logits.  A fresh policy therefore already plays like the rule agent
(with the default weight 4 the advised action has ~95% of the probability
among a handful of legal actions), and PPO learns where to deviate:
residual learning on top of a fixed expert.  The weight is a learned
parameter, so the policy can also come to trust the advice less.

The teacher need not be the rule agent the baselines are measured against:
``TrainConfig.advisor_options`` (``--advisor OPTION=VALUE``) gives the
advising rule agent options of its own, e.g. Spit's ``deny=True`` (a
stronger player), and the policy saves them, so
``make_agent(game, "ppo")`` plays with the same teacher.

The advice is computed from the same observation and mask the learner sees
(the rule agents only read observations), so it leaks nothing: an advised
agent is "PPO + the rule agent's suggestion", and the evaluation names it
so.  :func:`advised_observation` builds the learner's input; the learner
envs (``cardenvs/training/seat_env.py``) and :class:`cardenvs.agents.policy.PolicyAgent` call it
when they are given an ``advisor``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.agent import Agent

ADVICE_WEIGHT = 4.0


def advised_observation(advisor: Agent, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``obs`` (N, obs_size) followed by the one-hot of ``advisor``'s action,
    float32 ``(N, obs_size + n_actions)``; rows without a legal action (a
    finished game) get no advice."""
    obs = np.asarray(obs)
    mask = np.asarray(mask, bool)
    n, n_actions = mask.shape
    advice = np.zeros((n, n_actions), np.float32)
    live = np.flatnonzero(mask.any(axis=1))
    if live.size:
        advice[live, advisor.act_batch(obs[live], mask[live])] = 1.0
    return np.concatenate([obs.astype(np.float32), advice], axis=1)


try:  # the policy needs sb3-contrib and torch (the "train" extra)
    import torch as th

    from .legal_logits import LegalPolicy
except ImportError:  # pragma: no cover - exercised only without the extra
    LegalPolicy = object


class AdvisedPolicy(LegalPolicy):
    """MaskablePPO's MLP policy whose action logits get ``advice_weight`` added
    at the advised action (the last ``advice_size`` observation columns).
    In training, Push-sized action spaces take :class:`~.legal_logits.LegalPolicy`'s
    path over each row's legal actions, the bonus added there."""

    def __init__(
        self,
        *args: Any,
        advice_size: int,
        advice_weight: float = ADVICE_WEIGHT,
        advisor_options: dict | None = None,
        **kwargs: Any,
    ):
        super().__init__(*args, **kwargs)
        self.advice_size = int(advice_size)
        self.advisor_options = dict(advisor_options or {})  # the teacher's rule-agent options (saved with it)
        self.advice_weight = th.nn.Parameter(th.tensor(float(advice_weight)))
        self._advice: th.Tensor | None = None
        # the new parameter must be in the optimizer too
        self.optimizer = self.optimizer_class(
            self.parameters(), lr=self.optimizer.param_groups[0]["lr"], **self.optimizer_kwargs
        )

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(
            advice_size=self.advice_size,
            advice_weight=float(self.advice_weight.detach()),
            advisor_options=dict(self.advisor_options),
        )
        return data

    def _remember(self, obs: th.Tensor) -> None:
        self._advice = obs[..., -self.advice_size :].float()

    def _logits(self, latent_pi: th.Tensor) -> th.Tensor:
        return self.action_net(latent_pi) + self.advice_weight * self._advice

    def _get_action_dist_from_latent(self, latent_pi: th.Tensor):
        return self.action_dist.proba_distribution(action_logits=self._logits(latent_pi))

    def _bonus_at(self, rows: th.Tensor, cols: th.Tensor) -> th.Tensor:
        return self.advice_weight * self._advice[rows, cols]

    def get_distribution(self, obs, *args: Any, **kwargs: Any):
        self._remember(obs)
        return super().get_distribution(obs, *args, **kwargs)


def advice_size(model: Any) -> int:
    """How many advice columns a saved model expects (0: not advised)."""
    return int(getattr(getattr(model, "policy", None), "advice_size", 0))


def advisor_options(model: Any) -> dict:
    """The options of the rule agent that advised a saved model ({}: the default rule agent)."""
    return dict(getattr(getattr(model, "policy", None), "advisor_options", None) or {})
