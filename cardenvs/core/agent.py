"""The agent interface shared by every game.

An agent maps observations and legal-action masks to actions, one game at a
time (:meth:`Agent.act`) or a batch at once (:meth:`Agent.act_batch`, used
with the vector engine).  Agents only ever return actions their mask allows.
"""

from __future__ import annotations

import numpy as np


class Agent:
    """Base class: implement :meth:`act_batch` (or :meth:`act`)."""

    name = "agent"
    #: A fixed policy no training shaped (random, the rule agents, the
    #: trivial and noisy agents below): its copies share no learned
    #: convention, so they may make the field a learner is measured in
    #: alone in a free-for-all game (cardenvs.evaluation.duplicate.is_reference).
    reference_field = False

    def __init__(self) -> None:
        pass

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``obs`` (N, obs_size), ``mask`` (N, n_actions) -> actions (N,) int."""
        return np.array([self.act(o, m) for o, m in zip(obs, mask)], dtype=np.int64)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """One observation and its mask -> one legal action."""
        return int(self.act_batch(np.asarray(obs)[None], np.asarray(mask)[None])[0])

    def __repr__(self) -> str:
        return self.name


class RuleAgent(Agent):
    """A rule-based agent with its decisions written twice: :meth:`act_row`,
    the readable per-row reference (Python over one observation), and
    :meth:`_decide`, the same rules over a whole batch (a compiled kernel
    over the rows), tested to make exactly the same decisions
    (``tests/test_agents_batched.py``).  :meth:`act_batch` runs the batched
    rules, or the reference with ``reference=True``."""

    name = "rule"
    reference_field = True
    #: The batched rules read only the observation's first ``obs_columns``
    #: columns (None: all): only those are converted, when the observations
    #: come as floats (the advised learner's), which would otherwise cost more
    #: than the decisions.
    obs_columns: int | None = None

    def __init__(self, reference: bool = False):
        self.reference = reference

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Raises ValueError for arrays of the wrong shape (the kernels do not
        check their indices) or a row without a legal action."""
        obs, mask = np.asarray(obs), np.asarray(mask, bool)
        if obs.ndim != 2 or mask.ndim != 2 or len(obs) != len(mask):
            raise ValueError(f"need observations (N, obs_size) and masks (N, n_actions), got {obs.shape}, {mask.shape}")
        if self.obs_columns is not None and obs.shape[1] < self.obs_columns:
            raise ValueError(f"observations of {obs.shape[1]} columns: the rules read the first {self.obs_columns}")
        if self.reference:
            return np.array([self.act_row(o, m) for o, m in zip(obs, mask)], dtype=np.int64)
        if self.obs_columns is not None:
            obs = obs[:, : self.obs_columns]
        if obs.dtype not in (np.int8, np.int16):  # one compiled variant per dtype: keep them few
            obs = obs.astype(np.int16)
        out = np.empty(len(mask), np.int64)
        self._decide(obs, mask, out)
        if len(out) and out.min() < 0:
            raise ValueError("a row of the mask has no legal action")
        return out

    def act_row(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """The per-row reference decision."""
        raise NotImplementedError

    def _decide(self, obs: np.ndarray, mask: np.ndarray, out: np.ndarray) -> None:
        """Write every row's decision into ``out`` (-1: the row cannot be decided)."""
        raise NotImplementedError


class RandomAgent(Agent):
    """Uniformly random among the legal actions (seeded)."""

    name = "random"
    reference_field = True

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = _checked_mask(mask)
        return (self.rng.random(mask.shape) * mask).argmax(axis=-1)

    def act_streams(self, obs: np.ndarray, mask: np.ndarray, rngs: list[np.random.Generator]) -> np.ndarray:
        """As :meth:`act_batch`, row ``i`` drawing from ``rngs[i]`` (a
        duplicate match's common random numbers: one stream per deal and
        seat); each row draws one number per action, whatever the mask, so
        two copies of a seat stay in step while their games do."""
        mask = _checked_mask(mask)
        return (_stream_draws(rngs, len(mask), mask.shape[-1]) * mask).argmax(axis=-1)


def _checked_mask(mask: np.ndarray) -> np.ndarray:
    """``mask`` as booleans; ValueError for a row without a legal action."""
    mask = np.asarray(mask, bool)
    if not mask.any(axis=-1).all():
        raise ValueError("a row of the mask has no legal action")
    return mask


def _stream_draws(rngs: list[np.random.Generator], rows: int, width: int) -> np.ndarray:
    """``(rows, width)`` uniform draws, row ``i`` from ``rngs[i]`` (the same
    count whatever the mask: copies of a seat stay in step)."""
    if len(rngs) != rows:
        raise ValueError(f"need one generator per row, got {len(rngs)} for {rows} rows")
    return np.array([g.random(width) for g in rngs]).reshape(rows, width)


class LowestLegalAgent(Agent):
    """Always the legal action with the lowest id: a trivial policy, the
    floor every learned result is shown beside (in Spit and Speed it always
    waits while waiting is legal: a staller)."""

    name = "lowest"
    reference_field = True

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return _checked_mask(mask).argmax(axis=-1)


class HighestLegalAgent(Agent):
    """Always the legal action with the highest id: the other trivial policy."""

    name = "highest"
    reference_field = True

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = _checked_mask(mask)
        return mask.shape[-1] - 1 - mask[..., ::-1].argmax(axis=-1)


class NoisyAgent(Agent):
    """``base``'s decision, except that with probability ``noise`` each
    decision is uniformly random among the legal actions (seeded): a ladder
    of graded anchors between random play (``noise=1``) and ``base``.  With a
    duplicate match's common random numbers (:meth:`act_streams`) every row
    draws the same count of numbers whatever the mask, so copies keep in step."""

    reference_field = True

    def __init__(self, base: Agent, noise: float, seed: int | None = None, name: str | None = None):
        if isinstance(noise, bool) or not isinstance(noise, (int, float)) or not 0.0 <= noise <= 1.0:
            raise ValueError(f"noise must be a share of the moves from 0 to 1, got {noise!r}")
        self.base, self.noise = base, float(noise)
        self.rng = np.random.default_rng(seed)
        self.name = name or f"{base.name}:noise={self.noise:g}"

    def _mixed(self, obs: np.ndarray, mask: np.ndarray, draws: np.ndarray) -> np.ndarray:
        """``draws`` (N, 1 + n_actions): the coin, then one number per action."""
        mask = _checked_mask(mask)
        planned = np.asarray(self.base.act_batch(obs, mask), np.int64)
        random = (draws[:, 1:] * mask).argmax(axis=-1)
        return np.where(draws[:, 0] < self.noise, random, planned)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = np.asarray(mask, bool)
        return self._mixed(obs, mask, self.rng.random((len(mask), 1 + mask.shape[-1])))

    def act_streams(self, obs: np.ndarray, mask: np.ndarray, rngs: list[np.random.Generator]) -> np.ndarray:
        """As :meth:`act_batch`, row ``i`` drawing from ``rngs[i]`` (see :class:`RandomAgent`)."""
        mask = np.asarray(mask, bool)
        return self._mixed(obs, mask, _stream_draws(rngs, len(mask), 1 + mask.shape[-1]))
