"""Agents for the arena tests, imported by spec (``arena_agents:Name``):
the tests put this folder on the import path (tests/conftest.py; the
subprocess test sets PYTHONPATH)."""

from __future__ import annotations

import numpy as np

from cardenvs.agents.base import Agent
from cardenvs.agents.registry import make_agent


class Weakened(Agent):
    """The game's rule agent, but each decision, with probability 1/2, a uniformly random legal action instead."""

    name = "weakened"

    def __init__(self, game: str, seed: int = 0, **config):
        super().__init__()
        self.rule = make_agent(game, "rule", **config)
        self.rng = np.random.default_rng(seed)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = np.asarray(mask, bool)
        ruled = self.rule.act_batch(obs, mask)
        guess = (self.rng.random(mask.shape) * mask).argmax(axis=1)
        return np.where(self.rng.random(len(mask)) < 0.5, guess, ruled)


class Flaky(Agent):
    """Random play that raises on its 5th call."""

    name = "flaky"

    def __init__(self, seed: int = 0):
        super().__init__()
        self.rng, self.calls = np.random.default_rng(seed), 0

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        self.calls += 1
        if self.calls == 5:
            raise RuntimeError("flaky agent trips")
        return (self.rng.random(np.shape(mask)) * np.asarray(mask, bool)).argmax(axis=1)


class OtherGame(Agent):
    """An agent for a game with more actions: it answers with ids past this game's last."""

    name = "other"

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.full(len(mask), np.shape(mask)[1] + 3)


def first_legal(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A plain policy function: the first legal action."""
    return np.asarray(mask, bool).argmax(axis=1)


def make_weakened(game: str, seed: int):
    """A factory."""
    return Weakened(game, seed)


BROKEN_IMPORT = None
