"""The built-in agents, per game: ``"random"``, ``"rule"`` (the game's
rule-based agent), ``"rule:noise=P"`` (the rule agent with a share P of its
moves random: graded anchors), ``"lowest"`` and ``"highest"`` (always the
lowest or the highest legal action id: the trivial policies), ``"ppo"`` (the committed baseline policy), ``"scratch"``
(the policy learned from scratch), ``"scratch-policy"`` (the same) or
``"ppo:PATH"`` (a saved policy: a cardenvs policy file or an SB3 zip; see
:func:`builtin_agent`).  Every other spec, and the public
:func:`~cardenvs.agents.registry.make_agent`, is in
:mod:`cardenvs.agents.registry` (this module imports neither it nor
:mod:`.specs`, which both use it; where a game plays its from-scratch
policy through a search, the agent ``"scratch"`` is made there:
:func:`cardenvs.agents.specs.scratch_agent`)."""

from __future__ import annotations

import importlib
import inspect
import math
import pathlib
from typing import Any

from cardenvs.registry import GAMES

from ..core.agent import Agent, HighestLegalAgent, LowestLegalAgent, NoisyAgent, RandomAgent

#: the trivial policies, the floor every result is shown beside (no game, seed or file)
TRIVIAL = {"lowest": LowestLegalAgent, "highest": HighestLegalAgent}

# The committed baselines: the repository's agents/checkpoints/, installed as
# the package cardenvs.baselines (see pyproject.toml), as cardenvs policy files.
CHECKPOINTS = pathlib.Path(importlib.import_module("cardenvs.baselines").__file__).resolve().parent
# (a game without a rule agent or a baseline, GameSpec's None, is left out of these)
RULE_AGENTS = {name: game.rule_agent for name, game in GAMES.items() if game.rule_agent is not None}
BASELINES = {name: CHECKPOINTS / game.baseline for name, game in GAMES.items() if game.baseline is not None}
SCRATCH = {name: CHECKPOINTS / game.scratch for name, game in GAMES.items() if game.scratch is not None}


def rule_agent(game: str, **config) -> Agent:
    """The game's rule-based agent, given the game options it needs."""
    if game not in RULE_AGENTS:
        why = "its GameSpec names none (rule_agent=None)" if game in GAMES else f"unknown game; have {list(GAMES)}"
        raise ValueError(f"no rule-based agent for {game!r}: {why}")
    module, cls = RULE_AGENTS[game].split(":")
    cls = getattr(importlib.import_module(module), cls)
    params = inspect.signature(cls.__init__).parameters
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return cls(**config)
    return cls(**{k: v for k, v in config.items() if k in params})


def scratch_policy(game: str, seed: int = 0, path: str | pathlib.Path | None = None, **config) -> Agent:
    """The game's committed policy learned from scratch (``"scratch-policy"``;
    ``"scratch"`` unless the game plays it through a search): an MLP policy
    file (:mod:`cardenvs.agents.mlp`: JSON and a torch state dict read with
    ``weights_only=True``, no pickle), trained by
    ``examples/retrain_scratch.py`` with no rule advice and no imitation.
    It needs the ``train`` extra (torch); ``path``: another policy file."""
    path = SCRATCH.get(game) if path is None else pathlib.Path(path)
    if path is None:
        why = "its GameSpec names none (scratch=None)" if game in GAMES else f"unknown game; have {list(GAMES)}"
        raise ValueError(f"no from-scratch policy for {game!r}: {why}")
    if not path.exists():
        raise ValueError(
            f"no from-scratch policy for {game!r} at {path}; train one with "
            f"python examples/retrain_scratch.py --game {game} --install"
        )
    from .mlp import MLPAgent

    name = "scratch-policy" if game in GAMES and GAMES[game].scratch_search else "scratch"
    return MLPAgent.load(path, game=game, seed=seed, name=name, **config)


def builtin_agent(game: str, spec: str, seed: int = 0, **config) -> Agent:
    """A built-in agent: ``"random"``, ``"rule"``, ``"ppo"``,
    ``"scratch-policy"`` (:func:`scratch_policy`), ``"scratch"`` (the same
    where the game names no search for it: else see
    :func:`cardenvs.agents.specs.scratch_agent`) or ``"ppo:PATH"``.

    ``"ppo"`` is the game's committed baseline, a cardenvs policy file:
    weights read by numpy with ``allow_pickle=False`` and the policy's
    description in JSON, so loading it runs no code from the file.

    ``"ppo:PATH"`` loads a policy you saved: a cardenvs policy file
    (``.npz``, what training saves by default) or an SB3 zip
    (``MaskablePPO.save``).  **An SB3 zip is a pickle, and a pickle runs
    code when it is unpickled** (``MaskablePPO.load`` does): load only files
    you trust.  cardenvs itself never unpickles one: it rebuilds the
    policy from the zip's readable parts (the classes it trains with, by
    name; the weights by ``torch.load(weights_only=True)``) and refuses a
    zip it cannot read that way (see :mod:`cardenvs.agents.checkpoint`).
    A missing, malformed or unfitting file is a ValueError naming the file
    and the fault.
    """
    if spec == "random":
        return RandomAgent(seed)
    if spec == "rule":
        return rule_agent(game, **config)
    if spec in TRIVIAL:
        return TRIVIAL[spec]()
    if spec.startswith("rule:"):
        return NoisyAgent(rule_agent(game, **config), noise_of(spec), seed, name=spec)
    if spec == "scratch" and game in GAMES and GAMES[game].scratch_search is not None:
        raise ValueError(
            f"'scratch' of {game} plays its policy through a search: make it with make_agent "
            "(cardenvs.agents.specs.scratch_agent); its policy alone is 'scratch-policy'"
        )
    if spec in ("scratch", "scratch-policy"):
        return scratch_policy(game, seed, **config)
    if spec == "ppo" or spec.startswith("ppo:"):
        if spec == "ppo":
            path = BASELINES.get(game)
            if path is None and game in GAMES:
                raise ValueError(f"no trained baseline for {game!r}: its GameSpec names none (baseline=None)")
            if path is None or not path.exists():
                raise ValueError(
                    f"no trained checkpoint for {game!r} at {path}; train one with "
                    f"examples/train_{game.removesuffix('_v0')}.py"
                )
        elif not spec[4:]:
            raise ValueError("ppo:PATH needs the path of a saved policy")
        else:
            path = pathlib.Path(spec[4:])
        from .advice import advice_size, advisor_options
        from .policy import PolicyAgent, load_policy

        model = load_policy(path)
        _check_fits(game, model, path, config)
        # an advised model plays with its teacher: the rule agent with the options it was trained with
        advisor = rule_agent(game, **config, **advisor_options(model)) if advice_size(model) else None
        return PolicyAgent(model, advisor=advisor, name="ppo" if spec == "ppo" else f"ppo({path.name})")
    raise ValueError(
        f"{spec!r} is not a built-in agent: random, rule, rule:noise=P, lowest, highest, ppo, scratch, "
        "scratch-policy or ppo:PATH"
    )


def noise_of(spec: str) -> float:
    """The share of random moves of ``rule:noise=P`` (ValueError in one line otherwise)."""
    key, eq, value = spec.removeprefix("rule:").partition("=")
    try:
        noise = float(value) if key == "noise" and eq else math.nan
    except ValueError:
        noise = math.nan
    if not 0.0 <= noise <= 1.0:
        raise ValueError(f"{spec!r}: the rule agent's one option is noise=P, its share of random moves from 0 to 1")
    return noise


def _check_fits(game: str, model: Any, path: pathlib.Path, config: dict) -> None:
    """A ValueError unless ``model`` plays ``game`` with these options: its
    actions are the game's, and its observation (less the advice) no wider
    than the game's (layouts only grow at the end: see PolicyAgent)."""
    from cardenvs.core.options import build_rules, rules_options
    from cardenvs.registry import rules_class

    from .advice import advice_size

    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; available: {list(GAMES)}")
    factory = rules_class(game)
    known = set(rules_options(factory))
    rules = build_rules(factory, {k: v for k, v in config.items() if k in known})
    actions = getattr(model.action_space, "n", None)
    width = model.observation_space.shape[-1] - advice_size(model)
    if actions != rules.num_actions or width > rules.obs_size:
        raise ValueError(
            f"{path} is a policy for {actions} actions and observations of {width} numbers; {game} with "
            f"these options has {rules.num_actions} actions and observations of {rules.obs_size}"
        )
