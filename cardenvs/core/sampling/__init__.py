"""The game-free machinery of information-set sampling, which each game's
``sampler.py`` builds on: :mod:`.base` (deal unseen cards to hidden places,
exactly uniformly), :mod:`.streams` (the worlds' random streams) and
:mod:`.worlds` (a batch of worlds made from a batch of states).  The
dispatch to a game's sampler, :func:`cardenvs.search.sample_worlds`, sits
above the games; these sit in core so that a game folder imports only core.
(Moved from ``cardenvs.search.base``, ``.streams`` and ``.worlds``, which
are aliases of these: see CHANGELOG.md.)"""
