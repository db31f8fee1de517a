"""A masked categorical over each row's legal actions only.

sb3-contrib's masked distribution works on the whole row: every log-prob,
entropy and sample passes over all ``A`` logits (the illegal ones set to
-1e8), some twenty times per update.  Push has 2,371 actions of which a few
dozen are legal, and there those passes were most of PPO's update.
:class:`LegalLogits` gathers each row's legal logits first (in action order,
padded to the longest row) and does the same arithmetic on those: the same
log-probs, entropies and greedy actions (tested against sb3-contrib's to
float rounding), and samples from the same distribution -- but not the same
samples for a seed, so :class:`~.advice.AdvisedPolicy` uses it only for action
spaces of at least :data:`GATHER_FROM` actions (Push), leaving the runs of
the other games as they were.  There it does not even make the whole row:
:meth:`LegalLogits.at` takes the logits at the legal (row, action) pairs
only, and the policy computes its action layer just there (a few dozen dot
products a row instead of 2,371).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

#: Action spaces at least this large use the gathered distribution in training.
GATHER_FROM = 1024


class LegalLogits:
    """The masked categorical over each row's legal actions, from the logits
    at those actions only (made by :meth:`of` or :meth:`at`)."""

    def __init__(self, rows: th.Tensor, cols: th.Tensor, counts: th.Tensor, values: th.Tensor):
        """``rows``/``cols``: every legal (row, action) pair in row-major order,
        ``counts`` (B,) the pairs per row (each at least 1), ``values`` their logits."""
        slot = th.arange(len(rows), device=values.device) - (th.cumsum(counts, 0) - counts)[rows]
        shape = (len(counts), int(counts.max()))
        self.actions = th.zeros(shape, dtype=th.long, device=values.device)
        self.valid = th.zeros(shape, dtype=th.bool, device=values.device)
        self.actions[rows, slot] = cols
        self.valid[rows, slot] = True
        legal = th.full(shape, float("-inf"), dtype=values.dtype, device=values.device).index_put((rows, slot), values)
        self.log_probs = th.log_softmax(legal, dim=1)

    @classmethod
    def of(cls, logits: th.Tensor, masks: Any) -> LegalLogits | None:
        """The distribution of ``logits`` (B, A) under ``masks`` (B, A) (bool
        or 0/1, numpy or torch), or None if a row has no legal action (then
        sb3-contrib's distribution is the one to use)."""
        return cls.at(lambda rows, cols: logits[rows, cols], masks, tuple(logits.shape), logits.device)

    @classmethod
    def at(
        cls,
        logits_at: Callable[[th.Tensor, th.Tensor], th.Tensor],
        masks: Any,
        shape: tuple[int, int],
        device: Any = "cpu",
    ) -> LegalLogits | None:
        """As :meth:`of`, with the logits given by ``logits_at(rows, cols)``
        at the legal pairs only (the whole (B, A) logits never made: see
        :meth:`~.advice.AdvisedPolicy` for Push's 2,371 actions)."""
        if isinstance(masks, th.Tensor):
            masks = masks.to(device=device, dtype=th.bool).reshape(shape)
        else:
            masks = th.as_tensor(np.asarray(masks, bool).reshape(shape), device=device)
        rows, cols = masks.nonzero(as_tuple=True)  # row-major: each row's legal actions in action order
        counts = th.bincount(rows, minlength=shape[0])
        if not bool((counts > 0).all()):
            return None
        return cls(rows, cols, counts, logits_at(rows, cols))

    def log_prob(self, actions: th.Tensor) -> th.Tensor:
        """Log-probabilities of ``actions`` (B,), each legal in its row."""
        where = (self.actions == actions.long().reshape(-1, 1)) & self.valid
        if not bool(where.any(dim=1).all()):
            raise ValueError("an action outside its row's legal actions")
        return self.log_probs.gather(1, where.to(th.int8).argmax(dim=1, keepdim=True)).squeeze(1)

    def entropy(self) -> th.Tensor:
        # (0 * log 0 taken as 0 before the product: a where() after it would pass NaN gradients)
        return -(self.log_probs.exp() * self.log_probs.masked_fill(~self.valid, 0.0)).sum(dim=1)

    def sample(self, deterministic: bool = False) -> tuple[th.Tensor, th.Tensor]:
        """Actions (B,) and their log-probabilities: the most likely legal
        action (the lowest on ties, as an argmax over the whole row) or a draw."""
        if deterministic:
            pick = self.log_probs.argmax(dim=1, keepdim=True)
        else:
            pick = th.multinomial(self.log_probs.exp(), 1)
        return self.actions.gather(1, pick).squeeze(1), self.log_probs.gather(1, pick).squeeze(1)


class LegalPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's MLP policy that, for action spaces of :data:`GATHER_FROM`
    actions or more (Push), trains over each row's legal actions: its action
    layer is computed at the legal (row, action) pairs only, and the
    distribution is a :class:`LegalLogits` (a row without any legal action
    falls back to sb3-contrib's).  Below that size it is the stock policy.
    Playing (``predict``) goes through sb3-contrib's own distribution.
    The training of an unadvised Push learner uses it; the advised one's,
    :class:`~.advice.AdvisedPolicy`, is one too, with the advice's bonus."""

    def _bonus_at(self, rows: th.Tensor, cols: th.Tensor) -> th.Tensor | float:
        """What is added to the logits at the pairs (a subclass's bonus; none here)."""
        return 0.0

    def _remember(self, obs: th.Tensor) -> None:
        """Keep what :meth:`_bonus_at` needs of ``obs`` (nothing here)."""

    def _legal_logits(self, latent_pi: th.Tensor, action_masks: Any) -> LegalLogits | None:
        weight, bias = self.action_net.weight, self.action_net.bias

        def logits_at(rows: th.Tensor, cols: th.Tensor) -> th.Tensor:
            value = th.einsum("nh,nh->n", latent_pi[rows], weight[cols]) + bias[cols]
            return value + self._bonus_at(rows, cols)

        return LegalLogits.at(logits_at, action_masks, (len(latent_pi), self.action_space.n), latent_pi.device)

    def _latents(self, obs: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """(actor, critic) latents, as MaskableActorCriticPolicy computes them."""
        features = self.extract_features(obs)
        if self.share_features_extractor:
            return self.mlp_extractor(features)
        pi_features, vf_features = features
        return self.mlp_extractor.forward_actor(pi_features), self.mlp_extractor.forward_critic(vf_features)

    def _gathered(self, obs: th.Tensor, action_masks: Any) -> tuple[LegalLogits, th.Tensor] | None:
        """(the legal distribution, the critic's latent) on the gathered path, or None."""
        if action_masks is None or self.action_space.n < GATHER_FROM:
            return None
        latent_pi, latent_vf = self._latents(obs)
        legal = self._legal_logits(latent_pi, action_masks)
        return None if legal is None else (legal, latent_vf)

    # The training's two paths to the action distribution (rollouts and updates).
    def forward(self, obs, deterministic: bool = False, action_masks: Any = None):
        self._remember(obs)
        gathered = self._gathered(obs, action_masks)
        if gathered is None:
            return super().forward(obs, deterministic=deterministic, action_masks=action_masks)
        legal, latent_vf = gathered
        actions, log_prob = legal.sample(deterministic)
        return actions.reshape((-1, *self.action_space.shape)), self.value_net(latent_vf), log_prob

    def evaluate_actions(self, obs, actions: th.Tensor, action_masks: Any = None):
        self._remember(obs)
        gathered = self._gathered(obs, action_masks)
        if gathered is None:
            return super().evaluate_actions(obs, actions, action_masks=action_masks)
        legal, latent_vf = gathered
        return self.value_net(latent_vf), legal.log_prob(actions), legal.entropy()
