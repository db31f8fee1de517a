"""See and play: pictures of a table, replays, and play against the agents.

Pictures are made from the public ``state_dict()`` of any env, for a
*viewpoint*: ``None`` for the spectator (who sees every hand) or a seat
(who sees the others' hands face down)::

    from cardenvs.table import svg, rgb_array, text
    state = env.unwrapped.state_dict()
    open("table.svg", "w").write(svg(state, viewpoint=0))
    frame = rgb_array(state)          # (H, W, 3) uint8, as render_mode="rgb_array" returns

This is the application on top of the renderer (:mod:`cardenvs.render`:
the canvas, the SVG and RGB backends, the parts every game's scene is drawn
with).  Submodules: :mod:`.games` (the scene of any game, found through the
registry), :mod:`.replay` (recording and re-playing games), :mod:`.viewer`
(the HTML replay viewer), :mod:`.play` (the terminal game), :mod:`.serve`
(the local play page), :mod:`.agents` (the agents they seat).  The old paths
``cardenvs.table.canvas``, ``.svg_backend`` and ``.rgb_backend`` are aliases
of the renderer's modules.
"""

from __future__ import annotations

from typing import Any

from ..render.canvas import Scene, cards_shown, for_viewpoint, to_text
from . import games

__all__ = ["scene", "svg", "rgb_array", "text", "cards_shown", "for_viewpoint"]


def scene(state: dict[str, Any] | None, viewpoint: int | None = None) -> dict[str, Any]:
    """The scene of ``state`` (a ``state_dict()``; None: an empty table) as
    ``viewpoint`` sees it."""
    if state is None:
        S = Scene(640, 400)
        S.text(320, 200, "(no game yet: call reset())", size=18, anchor="middle")
        return S.done()
    return for_viewpoint(games.build(state).done(), viewpoint)


def svg(state: dict[str, Any] | None, viewpoint: int | None = None) -> str:
    """The table as SVG text."""
    from ..render.svg_backend import to_svg

    return to_svg(scene(state, viewpoint))


def rgb_array(state: dict[str, Any] | None, viewpoint: int | None = None):
    """The table as an RGB ``uint8`` array of shape (height, width, 3)."""
    from ..render.rgb_backend import to_rgb

    return to_rgb(scene(state, viewpoint))


def text(state: dict[str, Any] | None, viewpoint: int | None = None) -> str:
    """The table as text, one line per seat or pile (others' private cards as ``##``)."""
    return to_text(scene(state, viewpoint))
