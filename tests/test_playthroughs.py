"""Golden playthroughs (``tests/playthroughs.py``): every game has some, and
every file is one of them.  Each recorded game is played again through the AEC
(Spit: parallel) env and replayed through the vector engine, matching the file
line for line, by the conformance kit's ``playthroughs`` check
(``tests/test_conformance.py``)."""

from __future__ import annotations

from playthroughs import PLAYTHROUGHS, path_of

from cardenvs.registry import GAMES


def test_every_game_has_playthroughs():
    games = {game for game, _, _ in PLAYTHROUGHS.values()}
    assert games == set(GAMES)
    assert sorted(p.stem for p in path_of("x").parent.glob("*.txt")) == sorted(PLAYTHROUGHS)
