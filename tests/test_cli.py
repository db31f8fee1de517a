"""The ``cardenvs`` command line: every command's --help, the terminal game
driven through stdin by a script, replays, and the wrapped scripts."""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

from cardenvs.app import cli
from cardenvs.app.agents import AgentsUnavailableError, load_agent
from cardenvs.app.replay import Replay

ROOT = pathlib.Path(__file__).resolve().parents[1]


def run_cli(args, stdin=""):
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run(
        [sys.executable, "-m", "cardenvs.app.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=600,  # (a guard against a hang; a busy machine compiling from an empty cache is slow)
        cwd=str(ROOT),
        env=env,
    )


@pytest.mark.parametrize(
    "argv,expected",
    [
        ([], ["play", "serve", "replay", "eval", "bench", "train"]),
        (["play"], ["--seat", "--vs", "--save-replay"]),
        (["serve"], ["--port", "--tick"]),
        (["replay"], ["record", "view", "picture"]),
        (["replay", "record"], ["--agents", "--html"]),
        (["replay", "view"], ["--max-steps", "--start"]),
        (["replay", "picture"], ["--viewpoint", "--step"]),
        (["eval"], ["examples/evaluate.py", "--agents", "--games"]),
        (["bench"], ["benchmarks/throughput.py", "--quick"]),
        (["train"], ["examples/train_pepper.py", "examples/train_spit.py"]),
    ],
)
def test_every_command_has_help(argv, expected, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main([*argv, "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    for word in expected:
        assert word in out, (argv, word)


def test_terminal_game_is_played_through_stdin(tmp_path):
    replay_file = tmp_path / "game.json"
    script = "zzz\n99\n" + "1\n" * 60  # two bad inputs, then always the first legal move
    done = run_cli(
        ["play", "pepper", "--seat", "1", "--vs", "random", "--seed", "4", "--config", '{"max_hands": 1}',
         "--save-replay", str(replay_file)],
        script,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "you are player_1" in out and "legal moves:" in out
    assert "not a legal move: 'zzz'" in out and "not a legal move: '99'" in out
    assert "final scores:" in out and ("you win!" in out or "you lose." in out)
    first_table = out.split("legal moves:")[0]
    for line in first_table.splitlines():  # the others' hands are face down
        if line.startswith(("player_0 ", "player_2 ", "player_3 ")):
            assert "##" in line and not any(c in line.split() for c in ("AS", "KS", "QS", "JS", "TS", "9S"))
    replay = Replay.load(str(replay_file))
    assert replay.players[1] == "you" and replay.states()[-1]["done"]
    mine = [line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("you (player_1): ")]
    assert mine and all(m in replay.actions for m in mine)


def test_terminal_quit_spit_by_ticks_and_bad_arguments():
    done = run_cli(["play", "hearts", "--seed", "1"], "q\n")
    assert done.returncode == 1 and "quit." in done.stdout
    done = run_cli(["play", "speed", "--seed", "2", "--config", '{"max_ticks": 4}'], "wait\n" * 4)
    assert done.returncode == 0 and done.stdout.count("legal moves this tick:") == 4
    assert "final scores" in done.stdout
    assert cli.main(["play", "poker"]) == 2
    assert cli.main(["play", "pepper", "--seat", "9", "--config", "{}"]) == 2
    with pytest.raises(SystemExit):
        cli.main(["play", "pepper", "--config", "[1"])


def test_replay_commands(tmp_path, capsys):
    game, page, svg = tmp_path / "g.json", tmp_path / "g.html", tmp_path / "t.svg"
    cfg = json.dumps({"num_players": 2, "max_hands": 1})
    assert cli.main(["replay", "record", "pepper", "--config", cfg, "-o", str(game), "--html", str(page)]) == 0
    assert Replay.load(str(game)).players == ["random", "random"]
    assert page.read_text().startswith("<!DOCTYPE html>")
    full = page.stat().st_size
    assert cli.main(["replay", "view", str(game), "--max-steps", "5"]) == 0  # writes g.html again, cut
    assert page.stat().st_size < full
    assert cli.main(["replay", "picture", str(game), "--step", "3", "--viewpoint", "0", "-o", str(svg)]) == 0
    assert svg.read_text().startswith("<svg")
    assert cli.main(["replay", "picture", str(game), "-o", str(tmp_path / "t.png")]) == 0
    assert cli.main(["replay", "view", str(tmp_path / "missing.json")]) == 2
    assert "building the viewer" in capsys.readouterr().err  # progress


def test_wrapped_scripts(monkeypatch, tmp_path, capsys):
    done = run_cli(["eval", "--game", "pepper_v0", "--agents", "random", "rule", "--games", "4"])
    assert done.returncode == 0, done.stderr
    assert "random vs rule" in done.stdout
    monkeypatch.setattr(cli, "ROOT", tmp_path)  # as if installed without a checkout
    for argv in (["eval"], ["bench", "--quick"], ["train", "push"]):
        assert cli.main(argv) == 2
        assert "checkout" in capsys.readouterr().err
    assert cli.main(["train", "chess"]) == 2


def test_agents_unavailable_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "cardenvs.agents.registry", None)  # import fails
    with pytest.raises(AgentsUnavailableError, match="train extra"):
        load_agent("pepper_v0", "rule")
    assert load_agent("pepper_v0", "random").act([0], [0, 1, 0]) == 1
    with pytest.raises(ValueError, match="unknown agent"):
        load_agent("pepper_v0", "alien")


def test_play_without_a_seed_saves_a_replay_that_replays(tmp_path):
    """R11: a game played without --seed draws one, prints it and records it;
    the replay re-plays into the game's final state, and --seed plays it again."""
    from cardenvs import app

    replay_file, page = tmp_path / "g.json", tmp_path / "g.html"
    script = "1\n" * 80  # always the first legal move
    argv = ["play", "pepper", "--config", '{"max_hands": 1}', "--save-replay", str(replay_file)]
    done = run_cli(argv, script)
    assert done.returncode == 0, done.stderr
    seed = int(re.search(r"^pepper_v0 \(seed (\d+)\): you are player_0", done.stdout, re.M).group(1))
    replay = Replay.load(str(replay_file))
    assert replay.seed == seed and 0 <= seed < 2**31
    final = replay.states()[-1]
    assert final["done"] and f"final scores: {final['scores']}" in done.stdout
    assert "\n" + app.text(final, None) + "\n" in done.stdout  # the very table the game ended on
    assert cli.main(["replay", "view", str(replay_file), "-o", str(page)]) == 0 and page.stat().st_size > 0
    again = run_cli([*argv, "--seed", str(seed)], script)
    assert again.returncode == 0 and again.stdout == done.stdout
    assert Replay.load(str(replay_file)) == replay

    done = run_cli(["play", "speed", "--config", '{"max_ticks": 4}', "--save-replay", str(replay_file)], "wait\n" * 4)
    assert done.returncode == 0, done.stderr
    replay = Replay.load(str(replay_file))
    assert isinstance(replay.seed, int) and f"spit_v0 (seed {replay.seed})" in done.stdout
    assert replay.states()[-1]["done"] and len(replay.actions) == 4
