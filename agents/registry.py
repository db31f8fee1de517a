"""Agents by name, per game: ``"random"``, ``"rule"`` (the game's rule-based
agent), ``"ppo"`` (the committed baseline checkpoint) or ``"ppo:PATH"``."""
from __future__ import annotations

import importlib
import pathlib

from .base import Agent, PolicyAgent, RandomAgent

CHECKPOINTS = pathlib.Path(__file__).resolve().parent / "checkpoints"
RULE_AGENTS = {
    "pepper_v0": "agents.pepper:PepperRuleAgent",
}
BASELINES = {
    "pepper_v0": CHECKPOINTS / "pepper_ppo.zip",
}


def rule_agent(game: str) -> Agent:
    if game not in RULE_AGENTS:
        raise ValueError(f"no rule-based agent for {game!r}; have {sorted(RULE_AGENTS)}")
    module, cls = RULE_AGENTS[game].split(":")
    return getattr(importlib.import_module(module), cls)()


def make_agent(game: str, spec: str, seed: int = 0) -> Agent:
    """An agent from its name (see the module docstring)."""
    if spec == "random":
        return RandomAgent(seed)
    if spec == "rule":
        return rule_agent(game)
    if spec == "ppo" or spec.startswith("ppo:"):
        path = pathlib.Path(spec[4:]) if spec.startswith("ppo:") else BASELINES.get(game)
        if path is None or not path.exists():
            raise ValueError(f"no trained checkpoint for {game!r} at {path}; train one with "
                             f"examples/train_{game.removesuffix('_v0')}.py")
        return PolicyAgent(path, name="ppo" if spec == "ppo" else f"ppo({path.name})")
    raise ValueError(f"unknown agent {spec!r}: use random, rule, ppo or ppo:PATH")
