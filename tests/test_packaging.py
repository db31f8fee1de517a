"""What a pip-installed cardenvs holds: every package folder is listed in
pyproject.toml (the list is explicit because the baselines come from
agents/checkpoints/), the baselines load from the package, and no top-level
package other than cardenvs is installed."""

from __future__ import annotations

import pathlib

import pytest

import cardenvs

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_every_package_folder_is_listed():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    folders = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "cardenvs").rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    assert folders | {"cardenvs.baselines"} == listed
    assert config["package-dir"] == {"cardenvs.baselines": "agents/checkpoints"}
    assert not (ROOT / "agents" / "__init__.py").exists(), "the top-level agents/ folder is not a package"


def test_baselines_are_package_data():
    from cardenvs.agents.registry import BASELINES, CHECKPOINTS

    assert CHECKPOINTS.resolve() == (ROOT / "agents" / "checkpoints").resolve()
    for game, path in BASELINES.items():
        assert path.exists(), game
        assert path.stat().st_size < 20_000_000, f"{path.name}: ship checkpoints without optimizer state"


def test_version_has_one_source():
    text = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in text and cardenvs.__version__ not in text
