"""Golden playthroughs (``tests/playthroughs.py``): every game has some, and
every file is one of them.  Each recorded game is played again through the AEC
(Spit: parallel) env and replayed through the vector engine, matching the file
line for line, by the conformance kit's ``playthroughs`` check
(``tests/test_conformance.py``)."""

from __future__ import annotations

from playthroughs import FOLDER, IN_GAME_FOLDERS, PLAYTHROUGHS, path_of

from cardenvs.registry import GAMES


def test_every_game_has_playthroughs():
    games = {game for game, _, _ in PLAYTHROUGHS.values()}
    assert games == set(GAMES)
    in_tests = [p.stem for p in FOLDER.glob("*.txt")]
    assert sorted(in_tests + list(IN_GAME_FOLDERS)) == sorted(PLAYTHROUGHS)
    assert all(path_of(name).exists() for name in PLAYTHROUGHS)
