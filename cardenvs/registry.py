"""The one registry of games: every place that lists the games
(``cardenvs.make``, ``cardenvs.vector.make``, the agents, the benchmarks,
the docs generator and the tests) reads it from here.

To add a game, add a :class:`GameSpec` to :data:`GAMES` (see
``docs/adding-a-game.md``)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class GameSpec:
    """What the library needs to know of a game, by name.

    ``rules``: ``"module:callable"`` of its batched rules (a rules class, or a
    function that picks one from the config, as Spit's variants do);
    ``simultaneous``: players act at once (a parallel env) rather than in
    turn (AEC); ``folder``: its package under ``cardenvs/``; ``doc``: its docs
    page; ``rule_agent``: ``"module:Class"`` of its rule-based agent;
    ``baseline``: the file name of its committed PPO policy (a cardenvs policy
    file, ``<name>_ppo.npz``: see ``cardenvs/agents/checkpoint.py``);
    ``layouts``: ``"module:attribute"`` of each observation layout (one per
    variant), in the order their tables stand in the docs page;
    ``state_layouts``: likewise the layout of each variant's state (the
    whole game, for centralised critics: :mod:`cardenvs.core.state`), whose
    tables stand in the page's "State" section."""

    name: str
    title: str
    players: str
    folder: str
    rules: str
    simultaneous: bool
    rule_agent: str
    baseline: str
    layouts: tuple[str, ...]
    state_layouts: tuple[str, ...] = ()

    @property
    def module(self) -> str:
        """The public module, e.g. ``cardenvs.pepper_v0``."""
        return f"cardenvs.{self.name}"

    @property
    def doc(self) -> str:
        return f"docs/{self.folder}.md"


GAMES: dict[str, GameSpec] = {
    g.name: g
    for g in (
        GameSpec(
            "pepper_v0",
            "Pepper",
            "2-4",
            "pepper",
            "cardenvs.pepper.rules:PepperRules",
            False,
            "cardenvs.agents.pepper:PepperRuleAgent",
            "pepper_ppo.npz",
            ("cardenvs.pepper.observation:LAYOUT",),
            state_layouts=("cardenvs.pepper.state:STATE_LAYOUT",),
        ),
        GameSpec(
            "cancellation_hearts_v0",
            "Cancellation Hearts",
            "6-11",
            "cancellation_hearts",
            "cardenvs.cancellation_hearts.rules:CancellationHeartsRules",
            False,
            "cardenvs.agents.cancellation_hearts:HeartsRuleAgent",
            "hearts_ppo.npz",
            ("cardenvs.cancellation_hearts.observation:LAYOUT",),
            state_layouts=("cardenvs.cancellation_hearts.state:STATE_LAYOUT",),
        ),
        GameSpec(
            "push_v0",
            "Push",
            "4",
            "push",
            "cardenvs.push.rules:PushRules",
            False,
            "cardenvs.agents.push:PushRuleAgent",
            "push_ppo.npz",
            ("cardenvs.push.observation:LAYOUT",),
            state_layouts=("cardenvs.push.state:STATE_LAYOUT",),
        ),
        GameSpec(
            "spit_v0",
            "Spit and Speed",
            "2",
            "spit",
            "cardenvs.spit.rules:spit_rules",
            True,
            "cardenvs.agents.spit:SpitRuleAgent",
            "spit_ppo.npz",
            ("cardenvs.spit.observation:LAYOUT", "cardenvs.speed.observation:LAYOUT"),
            state_layouts=("cardenvs.spit.state:STATE_LAYOUT", "cardenvs.speed.state:STATE_LAYOUT"),
        ),
        GameSpec(
            "high_card_v0",
            "High Card",
            "2",
            "high_card",
            "cardenvs.games.high_card.rules:HighCardRules",
            False,
            "cardenvs.games.high_card.agent:HighCardRuleAgent",
            "high_card_ppo.npz",
            ("cardenvs.games.high_card.observation:LAYOUT",),
            state_layouts=("cardenvs.games.high_card.state:STATE_LAYOUT",),
        ),
    )
}


def spec(name: str) -> GameSpec:
    """The :class:`GameSpec` of game ``name`` (ValueError naming the games)."""
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; available: {list(GAMES)}")
    return GAMES[name]


def load(path: str) -> Any:
    """The object at ``"module:attribute"``."""
    module, attr = path.split(":")
    return getattr(importlib.import_module(module), attr)


def rules_class(name: str) -> Callable[..., Any]:
    """The callable building game ``name``'s rules from its config."""
    return load(spec(name).rules)
