"""What a pip-installed cardenvs holds: every package folder, found by
setup.py rather than listed (a new game's folder needs no line), plus the
baselines, which come from agents/checkpoints/ and load from the package;
and no top-level package other than cardenvs is installed."""

from __future__ import annotations

import pathlib

import pytest

import cardenvs

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_every_package_folder_is_packaged():
    import ast

    from cardenvs.registry import GAME_FOLDERS

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "packages" not in config, "the package list is derived in setup.py, not written in pyproject.toml"
    assert config["package-dir"] == {"cardenvs.baselines": "agents/checkpoints"}
    setup = (ROOT / "setup.py").read_text()
    call = next(
        n for n in ast.walk(ast.parse(setup)) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "setup"
    )
    listed = ast.unparse(call.keywords[0].value)
    assert listed == "[*find_packages(include=['cardenvs', 'cardenvs.*']), 'cardenvs.baselines']"
    setuptools = pytest.importorskip("setuptools")
    found = set(setuptools.find_packages(str(ROOT), include=["cardenvs", "cardenvs.*"]))
    folders = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "cardenvs").rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    assert found == folders
    assert {f"cardenvs.games.{folder}" for folder in GAME_FOLDERS} <= found
    assert not (ROOT / "agents" / "__init__.py").exists(), "the top-level agents/ folder is not a package"


def test_baselines_are_package_data():
    from cardenvs.agents.registry import BASELINES, CHECKPOINTS

    assert CHECKPOINTS.resolve() == (ROOT / "agents" / "checkpoints").resolve()
    for game, path in BASELINES.items():
        assert path.exists(), game
        assert path.stat().st_size <= 10_000_000, f"{path.name}: ship checkpoints small, without optimizer state"


def test_every_baseline_says_how_it_was_trained_within_the_budget():
    """Each committed baseline's summary: its config, a training budget of
    at most 60 CPU-minutes (older summaries recorded wall time only) and,
    for runs with model selection, which policy was kept on which seeds."""
    import json

    from cardenvs.agents.registry import BASELINES

    for game, path in BASELINES.items():
        summary = json.loads(path.with_name(path.name.replace("_ppo.npz", "_summary.json")).read_text())
        assert summary["config"]["game"] == game
        assert summary.get("train_cpu_seconds", summary.get("train_seconds")) <= 3600, game
        if "selection" in summary:
            chosen = summary["selection"]["chosen_steps"]
            assert chosen == summary["timesteps"] and chosen <= summary["run_timesteps"], game


def test_version_has_one_source():
    text = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in text and cardenvs.__version__ not in text
