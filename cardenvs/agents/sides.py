"""Who plays with whom: each seat's side, and each seat's margin over the
other sides (what a zero-sum learner or search counts).  Imports nothing
of the agents package, so any module of it may use these."""

from __future__ import annotations

from typing import Any

import numpy as np


def sides_of(rules: Any) -> np.ndarray:
    """The side of each seat: partners share one (seat % 2), else one side per seat."""
    n = rules.num_players
    return np.arange(n) % 2 if getattr(rules, "partnerships", False) else np.arange(n)


def margin_matrix(rules: Any) -> np.ndarray:
    """``M`` with ``values @ M.T`` each seat's value less the mean value of
    the seats on other sides (partners share a side): what a seat gains on
    the others, a zero-sum view of any per-seat score or reward."""
    sides = sides_of(rules)
    other = (sides[:, None] != sides[None, :]).astype(np.float64)
    return np.eye(len(sides)) - other / other.sum(1, keepdims=True)
