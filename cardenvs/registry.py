"""The one registry of games: every place that lists the games
(``cardenvs.make``, ``cardenvs.vector.make``, the agents, the benchmarks,
the package list, the docs and the tests) reads it from here.

A game is one folder, ``cardenvs/games/<folder>/``, whose ``spec.py`` holds
its :class:`GameSpec`; :data:`GAME_FOLDERS` lists the folders, one line per
game (see ``docs/adding-a-game.md``)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from .core.gamespec import GameSpec

#: The games, one folder of ``cardenvs/games/`` each, in the order they are listed everywhere.
GAME_FOLDERS: tuple[str, ...] = (
    "pepper",
    "cancellation_hearts",
    "push",
    "spit",
    "high_card",
)


def _read_specs(folders: tuple[str, ...]) -> dict[str, GameSpec]:
    games: dict[str, GameSpec] = {}
    for folder in folders:
        found = importlib.import_module(f"cardenvs.games.{folder}.spec").SPEC
        if not isinstance(found, GameSpec) or found.folder != folder:
            raise TypeError(f"cardenvs/games/{folder}/spec.py: SPEC must be a GameSpec with folder={folder!r}")
        if found.name in games:
            raise ValueError(f"cardenvs/games/{folder}/spec.py: the name {found.name!r} is taken")
        games[found.name] = found
    return games


#: Every game, by registry name (``"pepper_v0"``), built from the folders' ``spec.py``.
GAMES: dict[str, GameSpec] = _read_specs(GAME_FOLDERS)


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


__all__ = ["GAME_FOLDERS", "GAMES", "GameSpec", "load", "rules_class", "spec"]
