"""A masked categorical over each row's legal actions only.

sb3-contrib's masked distribution works on the whole row: every log-prob,
entropy and sample passes over all ``A`` logits (the illegal ones set to
-1e8), some twenty times per update.  Push has 2,371 actions of which a few
dozen are legal, and there those passes were 55% of PPO's update.
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
