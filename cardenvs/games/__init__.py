"""The games, one folder each (``cardenvs/games/<folder>/``)."""
