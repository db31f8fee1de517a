"""Push: partnership contract rummy for 4 players (see :mod:`cardenvs.push.rules`)."""
