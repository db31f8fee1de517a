"""cardenvs: card-game environments for multi-agent reinforcement learning.

Games (PettingZoo envs over a batched numpy rules core), one folder each
under ``cardenvs/games/``, listed by :mod:`cardenvs.registry`;
``cardenvs.GAMES`` names them, and each is a module of its own
(``cardenvs.pepper_v0``: Pepper, 2-4 players, AEC; ``cardenvs.spit_v0``:
Spit and Speed, parallel plus an AEC view; the docs' home page has them
all).

``cardenvs.make(name, **config)`` builds the wrapped AEC env of a game by
name; ``cardenvs.vector.make(name, num_envs, seed, **config)`` the batched
engine.
"""

from __future__ import annotations

import importlib
from typing import Any

from . import _aliases, registry
from .core.errors import IllegalActionError
from .core.view import set_picture_maker
from .registry import spec

__version__ = "0.1.0"
__all__ = ["IllegalActionError", "make", "GAMES", "__version__"]

GAMES = tuple(registry.GAMES)

# cardenvs.<game> (cardenvs.pepper_v0: each game's env module) and the moved modules' old paths
_aliases.install()


def __getattr__(name: str) -> Any:
    # cardenvs.pepper_v0 after a bare `import cardenvs`: the game's env module, imported on first use
    if name in registry.GAMES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _picture(state: dict | None, viewpoint: int | None, kind: str = "rgb"):
    """``render_mode="rgb_array"`` frames (``kind="rgb"``) and one seat's text
    view (``kind="text"``), drawn by cardenvs.app (imported, with Pillow, on
    first use)."""
    from .app import rgb_array, text

    return rgb_array(state, viewpoint) if kind == "rgb" else text(state, viewpoint)


set_picture_maker(_picture)


def make(name: str, **config: Any):
    """The PettingZoo env of game ``name`` (``env(**config)`` of its module)."""
    return importlib.import_module(spec(name).module).env(**config)
