"""The scene of any game's ``state_dict()``: :func:`build` (the spectator's
scene, every private card tagged by its owner) by the game's own builder
(``scene.py`` in its folder, named by its ``GameSpec.scene``), or by
:func:`~cardenvs.render.parts.generic` for a game without one; and
:func:`private_action`.

The drawing parts the scenes use live in the renderer,
:mod:`cardenvs.render.parts` (re-exported here under their old names:
``cardenvs.app.games.header`` is ``cardenvs.render.parts.header``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from ..render.canvas import Scene
from ..render.parts import game_over, generic, header, panel, ring, seat_name, trick_row

__all__ = [
    "build",
    "builder",
    "private_action",
    "game_over",
    "generic",
    "header",
    "panel",
    "ring",
    "seat_name",
    "trick_row",
]


def _scene_module(game: str) -> Any:
    """The module of game ``game``'s scene (its ``GameSpec.scene``), or None
    for a game without one or a name the registry does not know."""
    from cardenvs.registry import GAMES

    spec = GAMES.get(game)
    if spec is None or spec.scene is None:
        return None
    return importlib.import_module(spec.scene.split(":")[0])


def builder(game: str) -> Callable[[dict], Scene]:
    """The scene builder of game ``game``: its own (``GameSpec.scene``), or
    :func:`generic` for a game without one."""
    from cardenvs.registry import GAMES, load

    spec = GAMES.get(game)
    return generic if spec is None or spec.scene is None else load(spec.scene)


def build(state: dict[str, Any]) -> Scene:
    return builder(state.get("game", ""))(state)


def private_action(game: str, text: str) -> bool:
    """Whether an action's text is private to the seat that played it (a card
    chosen to pass in Cancellation Hearts: its scene module's
    ``private_action``); replays show others' private actions without their
    text."""
    module = _scene_module(game)
    check = getattr(module, "private_action", None)
    return bool(check(text)) if check is not None else False
