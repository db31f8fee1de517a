"""Golden playthroughs (``tests/playthroughs.py``): every recorded game is
played again through the AEC (Spit: parallel) env and replayed through the
vector engine, and both must match the file line for line."""

from __future__ import annotations

import pytest
from playthroughs import PLAYTHROUGHS, path_of, playthrough, replay_in_vector_engine

HOW = "if play is meant to change, regenerate with `python tests/playthroughs.py` and say what changed"


@pytest.mark.parametrize("name", sorted(PLAYTHROUGHS))
def test_env_plays_the_recorded_game(name):
    recorded = path_of(name).read_text().splitlines()
    played = playthrough(name)
    for lineno, (want, got) in enumerate(zip(recorded, played), start=1):
        assert got == want, f"{path_of(name).name}:{lineno} differs ({HOW})\n want {want[:300]}\n got  {got[:300]}"
    assert len(played) == len(recorded), f"{path_of(name).name}: {len(played)} lines, recorded {len(recorded)} ({HOW})"


@pytest.mark.parametrize("name", sorted(PLAYTHROUGHS))
def test_vector_engine_replays_the_recorded_game(name):
    replay_in_vector_engine(name, path_of(name).read_text().splitlines())


def test_every_game_has_playthroughs():
    games = {game for game, _, _ in PLAYTHROUGHS.values()}
    assert games == {"pepper_v0", "cancellation_hearts_v0", "push_v0", "spit_v0"}
    assert sorted(p.stem for p in path_of("x").parent.glob("*.txt")) == sorted(PLAYTHROUGHS)
