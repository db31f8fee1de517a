"""Agents by name, per game: ``"random"``, ``"rule"`` (the game's rule-based
agent), ``"ppo"`` (the committed baseline checkpoint) or ``"ppo:PATH"``."""

from __future__ import annotations

import importlib
import inspect
import pathlib

from cardenvs.registry import GAMES

from .base import Agent, RandomAgent

# The committed baselines: the repository's agents/checkpoints/, installed as
# the package cardenvs.baselines (see pyproject.toml).
CHECKPOINTS = pathlib.Path(importlib.import_module("cardenvs.baselines").__file__).resolve().parent
RULE_AGENTS = {name: game.rule_agent for name, game in GAMES.items()}
BASELINES = {name: CHECKPOINTS / game.baseline for name, game in GAMES.items()}


def rule_agent(game: str, **config) -> Agent:
    """The game's rule-based agent, given the game options it needs."""
    if game not in RULE_AGENTS:
        raise ValueError(f"no rule-based agent for {game!r}; have {sorted(RULE_AGENTS)}")
    module, cls = RULE_AGENTS[game].split(":")
    cls = getattr(importlib.import_module(module), cls)
    params = inspect.signature(cls.__init__).parameters
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return cls(**config)
    return cls(**{k: v for k, v in config.items() if k in params})


def make_agent(game: str, spec: str, seed: int = 0, **config) -> Agent:
    """An agent from its name (see the module docstring)."""
    if spec == "random":
        return RandomAgent(seed)
    if spec == "rule":
        return rule_agent(game, **config)
    if spec == "ppo" or spec.startswith("ppo:"):
        path = pathlib.Path(spec[4:]) if spec.startswith("ppo:") else BASELINES.get(game)
        if path is None or not path.exists():
            raise ValueError(
                f"no trained checkpoint for {game!r} at {path}; train one with "
                f"examples/train_{game.removesuffix('_v0')}.py"
            )
        from .advice import advice_size, advisor_options
        from .policy import PolicyAgent, load_model

        model = load_model(path)
        # an advised model plays with its teacher: the rule agent with the options it was trained with
        advisor = rule_agent(game, **config, **advisor_options(model)) if advice_size(model) else None
        return PolicyAgent(
            model,
            advisor=advisor,
            name="ppo" if spec == "ppo" else f"ppo({path.name})",
        )
    raise ValueError(f"unknown agent {spec!r}: use random, rule, ppo or ppo:PATH")
