"""The renderer: pictures of a card table, with no application around them.

- :mod:`.canvas`: a scene as a list of drawing primitives (cards, texts,
  boxes, pips), what a seat may see of it (:func:`~.canvas.for_viewpoint`)
  and its text backend;
- :mod:`.svg_backend` and :mod:`.rgb_backend`: the scene as SVG text and as
  an RGB array (Pillow);
- :mod:`.parts`: the drawing parts every game's ``scene.py`` uses (seats,
  header, panel, trick, end of game) and the generic scene.

It imports nothing of the package above :mod:`cardenvs.core` (so game
folders may use it); the application on top -- the scene of any game found
through the registry, replays, the viewer, the terminal game and the play
page -- is :mod:`cardenvs.app`.  (Moved here from the application, then
named ``cardenvs.table``: the old module paths ``cardenvs.table.canvas``,
``.svg_backend`` and ``.rgb_backend`` are aliases of these, see
CHANGELOG.md.)
"""
