"""The observation space every view of a game shares (AEC, parallel, vector)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces


def observation_box(rules: Any, dtype: Any = None) -> spaces.Box:
    """``Box(obs_low, obs_high, (obs_size,), obs_dtype)`` of a rules object
    (or in ``dtype``, e.g. float32 for a learner's input).

    Games keep observations in the smallest integer dtype that holds every
    value (one-hots, counts and scores are all integers): writing a batch of
    observations is memory-bound, so an int8 or int16 array costs a half to
    a quarter of a float32 one.  Learners cast to float in their network
    (stable-baselines3 does this itself), or ask for ``obs_dtype="float32"``.
    Unbounded entries (``±inf``, e.g. raw scores) are bounded by the compact
    dtype's range, so the bounds are finite in float32 too.
    """
    compact = np.dtype(getattr(rules, "obs_dtype", np.float32))
    dtype = np.dtype(dtype if dtype is not None else compact)
    shape = (rules.obs_size,)
    low = np.broadcast_to(np.asarray(rules.obs_low, np.float64), shape)
    high = np.broadcast_to(np.asarray(rules.obs_high, np.float64), shape)
    if np.issubdtype(compact, np.integer):  # every value fits the compact dtype: finite bounds
        info = np.iinfo(compact)
        low, high = np.clip(low, info.min, info.max), np.clip(high, info.min, info.max)
    return spaces.Box(low.astype(dtype), high.astype(dtype), shape, dtype)
