"""The registry and the game folders (issue #32): a game is one folder of
``cardenvs/games/`` whose ``spec.py`` the registry reads; ``cardenvs.<game>``
and the moved modules' old paths are aliases of the very modules of the new
paths; no game folder imports another; and a game without a rule agent, a
baseline, a sampler or a scene is a full game whose missing parts are
refused with a clear message."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.util
import json
import pathlib
import pickle
import subprocess
import sys

import pytest

import cardenvs
from cardenvs import registry
from cardenvs._aliases import MOVED
from cardenvs.core.gamespec import GameSpec

ROOT = pathlib.Path(__file__).resolve().parents[1]
GAMES_DIR = ROOT / "cardenvs" / "games"


def test_the_registry_is_the_game_folders():
    assert [g.folder for g in registry.GAMES.values()] == list(registry.GAME_FOLDERS)
    on_disk = sorted(p.name for p in GAMES_DIR.iterdir() if (p / "spec.py").exists())
    assert on_disk == sorted(registry.GAME_FOLDERS)
    assert tuple(registry.GAMES) == cardenvs.GAMES
    for game in registry.GAMES.values():
        assert isinstance(game, GameSpec) and game.name.endswith("_v0")
        assert (ROOT / game.doc).exists() and (GAMES_DIR / game.folder / "env.py").exists()
        assert len(game.short_config) == len(game.layouts) >= 1
    assert registry.GameSpec is GameSpec  # (still importable from the registry)


def test_a_spec_has_keyword_fields_and_says_what_is_wrong():
    with pytest.raises(TypeError):
        GameSpec("x_v0", "X", "2", "x", "m:f", False, ("m:L",))  # type: ignore[misc]
    with pytest.raises(ValueError, match="short_config has 1 configs for 2 variants"):
        GameSpec(name="x_v0", title="X", players="2", folder="x", rules="m:f", layouts=("m:A", "m:B"))
    with pytest.raises(ValueError, match="at least one observation layout"):
        GameSpec(name="x_v0", title="X", players="2", folder="x", rules="m:f", layouts=())


def test_importing_the_registry_imports_no_game_code():
    """The registry imports every spec; a spec imports nothing of its game."""
    code = (
        "import sys, json, cardenvs.registry\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('cardenvs.games.'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    folders = registry.GAME_FOLDERS
    assert sorted(loaded) == sorted(
        [f"cardenvs.games.{f}" for f in folders] + [f"cardenvs.games.{f}.spec" for f in folders]
    )


@pytest.mark.parametrize("name", list(registry.GAMES))
def test_the_game_module_is_the_env_module(name):
    game = registry.spec(name)
    module = importlib.import_module(game.module)
    assert module is importlib.import_module(game.env_module) is getattr(cardenvs, name)
    assert module.__name__ == game.env_module and module.__spec__.name == game.env_module
    exec(f"from cardenvs import {name} as m; import cardenvs.{name} as n", ns := {})
    assert ns["m"] is ns["n"] is module
    assert not (ROOT / "cardenvs" / f"{name}.py").exists(), "a game module needs no file of its own"


def test_unknown_names_stay_unknown():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("cardenvs.no_such_game_v0")
    with pytest.raises(AttributeError):
        cardenvs.no_such_game_v0  # noqa: B018
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("cardenvs.pepper.no_such_module")


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_is_the_new_module(old):
    module = importlib.import_module(old)
    assert module is importlib.import_module(MOVED[old])
    assert module.__name__ == MOVED[old] and module.__spec__.name == MOVED[old]


def test_old_submodule_paths_and_pickles_resolve_to_the_same_objects():
    from cardenvs.games.pepper.rules import PepperRules
    from cardenvs.games.spit.speed.rules import SpeedRules

    assert importlib.import_module("cardenvs.pepper.rules") is importlib.import_module("cardenvs.games.pepper.rules")
    assert importlib.import_module("cardenvs.speed.state") is importlib.import_module("cardenvs.games.spit.speed.state")
    # pickled by name under the old paths (protocol 0: "c<module>\n<name>\n")
    assert pickle.loads(b"ccardenvs.pepper.rules\nPepperRules\n.") is PepperRules
    assert pickle.loads(b"ccardenvs.speed.rules\nSpeedRules\n.") is SpeedRules
    # and new pickles name the new paths
    rules = PepperRules()
    assert b"cardenvs.games.pepper.rules" in pickle.dumps(rules)
    assert type(pickle.loads(pickle.dumps(rules))) is PepperRules


def test_the_top_level_moves_keep_their_old_paths():
    """The application (cardenvs.table, cardenvs.cli, .arena, .new_game) moved
    into cardenvs.app and seat_rewards into the vector view: an old path's
    modules follow it, and what was pickled under the old paths loads as the
    new classes."""
    from cardenvs.app.arena import ArenaInputError
    from cardenvs.app.replay import Replay
    from cardenvs.vector import SeatRewards

    for module in ("replay", "serve", "viewer", "agents"):
        assert importlib.import_module(f"cardenvs.table.{module}") is importlib.import_module(f"cardenvs.app.{module}")
    assert importlib.import_module("cardenvs.seat_rewards").SeatRewards is SeatRewards
    assert pickle.loads(b"ccardenvs.table.replay\nReplay\n.") is Replay
    assert pickle.loads(b"ccardenvs.seat_rewards\nSeatRewards\n.") is SeatRewards
    old = pickle.dumps(ArenaInputError("bad --deals"), 0).replace(b"cardenvs.app.arena", b"cardenvs.arena")
    assert b"ccardenvs.arena\n" in old
    loaded = pickle.loads(old)
    assert type(loaded) is ArenaInputError and loaded.args == ("bad --deals",)
    assert b"cardenvs.app.replay" in pickle.dumps(Replay)
    assert b"cardenvs.vector.seat_rewards" in pickle.dumps(SeatRewards)


def python_m(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, cwd=ROOT, timeout=300)


def test_python_m_runs_the_command_line_through_its_old_path():
    """``python -m cardenvs.cli`` runs ``cardenvs.app.cli`` as ``__main__``
    (its relative imports and its checkout, ROOT, its own); an old path of a
    package without ``__main__`` is refused in one line."""
    ran = {}
    for argv in (("new-game", "index"), ("arena", "--help")):
        new, old = python_m("cardenvs.app.cli", *argv), python_m("cardenvs.cli", *argv)
        assert (old.returncode, old.stdout, old.stderr) == (new.returncode, new.stdout, new.stderr), argv
        ran[argv[0]] = old
    assert ran["arena"].returncode == 0 and ran["arena"].stdout.startswith("usage: cardenvs arena")
    # (refused because docs/index.md exists: found from the checkout, ROOT)
    refused = ran["new-game"]
    assert refused.returncode == 2
    assert refused.stderr == "cardenvs new-game: docs/index.md exists already: choose another name\n"
    package = python_m("cardenvs.table")
    assert package.returncode == 1 and package.stderr.count("\n") == 1
    assert "cardenvs.table is the package cardenvs.app, which has no __main__" in package.stderr


def imported_games(path: pathlib.Path) -> set[str]:
    """The game folders a module of folder ``path.parent...`` imports (absolute or relative)."""
    module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    package = module.rsplit(".", 1)[0] if path.name != "__init__.py" else module.removesuffix(".__init__")
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.ImportFrom):
            base = (
                importlib.util.resolve_name("." * node.level + (node.module or ""), package)
                if node.level
                else node.module
            )
            names = [base or ""] + [f"{base}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            for old, new in MOVED.items():
                if name == old or name.startswith(old + "."):
                    name = new + name[len(old) :]
            parts = name.split(".")
            if parts[:2] == ["cardenvs", "games"] and len(parts) > 2:
                found.add(parts[2])
            elif len(parts) == 2 and parts[0] == "cardenvs" and parts[1] in registry.GAMES:
                found.add(registry.GAMES[parts[1]].folder)
    return found


@pytest.mark.parametrize("folder", registry.GAME_FOLDERS)
def test_a_game_folder_imports_no_other_game(folder):
    for path in sorted((GAMES_DIR / folder).rglob("*.py")):
        assert imported_games(path) <= {folder}, f"{path.relative_to(ROOT)} imports {imported_games(path) - {folder}}"


@pytest.fixture
def bare_game(monkeypatch):
    """A registered game without rule agent, baseline, sampler or scene (Pepper's rules and env)."""
    bare = dataclasses.replace(
        registry.GAMES["pepper_v0"], name="bare_v0", rule_agent=None, baseline=None, sampler=None, scene=None
    )
    monkeypatch.setitem(registry.GAMES, "bare_v0", bare)
    return bare


def test_a_game_without_agents_sampler_or_scene_is_still_a_game(bare_game):
    import cardenvs.vector as V
    from cardenvs.agents.registry import make_agent
    from cardenvs.app import games as scenes
    from cardenvs.search import sampler

    env = cardenvs.make("bare_v0", max_hands=1)
    env.reset(seed=0)
    venv = V.make("bare_v0", num_envs=2, seed=0, max_hands=1)
    venv.reset()
    with pytest.raises(ValueError, match="no rule-based agent for 'bare_v0': its GameSpec names none"):
        make_agent("bare_v0", "rule")
    with pytest.raises(ValueError, match="no trained baseline for 'bare_v0': its GameSpec names none"):
        make_agent("bare_v0", "ppo")
    with pytest.raises(ValueError, match="no information-set sampler for bare_v0"):
        sampler("bare_v0")
    state = {**env.unwrapped.state_dict(), "game": "bare_v0"}
    assert scenes.builder("bare_v0") is scenes.generic
    assert scenes.build(state).w > 0
    assert scenes.private_action("bare_v0", "pass 7H") is False
    assert scenes.private_action("cancellation_hearts_v0", "pass 7H") is True


def test_the_cli_says_in_one_line_what_a_game_lacks(bare_game, capsys):
    from cardenvs.app.cli import main

    code = main(["replay", "record", "bare_v0", "--agents", "rule", "-o", "/dev/null"])
    err = capsys.readouterr().err.strip()
    assert code != 0 and err.count("\n") == 0
    assert "no rule-based agent for 'bare_v0'" in err
