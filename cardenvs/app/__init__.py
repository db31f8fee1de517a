"""The application: the ``cardenvs`` command and what it runs, on top of
the library (the games, the views, the agents).

- :mod:`.cli`: the ``cardenvs`` command line (``play``, ``serve``,
  ``replay``, ``arena``, ``new-game``, ``eval``, ``bench``, ``train``);
- :mod:`.arena`: ``cardenvs arena``, a league of agents in duplicate deals;
- :mod:`.new_game`: ``cardenvs new-game``, a new game copied from the template;
- pictures of a table (this module's functions; :mod:`.games`, the scene of
  any game, found through the registry);
- :mod:`.replay` (recording and re-playing games, checked by
  :mod:`.replay_check`) and :mod:`.viewer` (the HTML replay viewer);
- :mod:`.play`: the game in a terminal;
- :mod:`.serve`: the local play server and its page (:mod:`.play_page`,
  :mod:`.web`, :mod:`.http_checks`);
- :mod:`.agents`: the agents they seat.

Pictures are made from the public ``state_dict()`` of any env, for a
*viewpoint*: ``None`` for the spectator (who sees every hand) or a seat
(who sees the others' hands face down)::

    from cardenvs.app import svg, rgb_array, text
    state = env.unwrapped.state_dict()
    open("table.svg", "w").write(svg(state, viewpoint=0))
    frame = rgb_array(state)          # (H, W, 3) uint8, as render_mode="rgb_array" returns

They are drawn with the renderer (:mod:`cardenvs.render`: the canvas, the
SVG and RGB backends, the parts every game's scene is drawn with), the
layer under the application that the games may import too.
Its old paths are aliases: ``cardenvs.table`` (and its modules) of this
package, ``cardenvs.cli``, ``cardenvs.arena`` and ``cardenvs.new_game`` of
its modules, and ``cardenvs.table.canvas``, ``.svg_backend`` and
``.rgb_backend`` of the renderer's modules.
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
