"""``cardenvs new-game`` in a copy of the checkout (N8): a failure midway
-- a docs page that cannot be written after another was, a docs generator
that fails after writing -- leaves the tree byte for byte as it was; names
the command line takes already (its aliases, its commands) are refused.
The real command through ``main()``, on real files; the docs generator
runs as it does for users, in a subprocess (fast: no game is played)."""

from __future__ import annotations

import pathlib
import shutil
import subprocess

import pytest

import cardenvs.app.new_game as new_game
from cardenvs.app.cli import main

ROOT = pathlib.Path(__file__).resolve().parents[1]


def snapshot(tree: pathlib.Path) -> dict[str, bytes]:
    """Every file of the tree, by path (caches left out)."""
    return {
        str(p.relative_to(tree)): p.read_bytes()
        for p in tree.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> pathlib.Path:
    """The tracked files new-game reads and writes: the package, the docs, the generator."""
    listed = subprocess.run(["git", "ls-files", "-z", "cardenvs", "docs", "tools", "README.md", "pyproject.toml"],
                            cwd=ROOT, capture_output=True, check=False)  # fmt: skip
    if listed.returncode != 0:
        pytest.skip("not a git checkout: the tracked files cannot be listed")
    tree = tmp_path_factory.mktemp("checkout")
    for name in listed.stdout.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, tree / name)
    return tree


@pytest.fixture
def here(tree, monkeypatch) -> pathlib.Path:
    monkeypatch.setattr(new_game, "ROOT", tree)  # (the command works on the checkout it is in: this copy)
    return tree


def test_a_page_that_cannot_be_written_leaves_the_tree_as_it_was(here, monkeypatch, capsys):
    """docs/index.md is rewritten with the new row, then README.md fails."""
    real, written = new_game._write, []

    def failing(path: pathlib.Path, text: str) -> None:
        if path.name == "README.md":
            raise OSError(30, "Read-only file system", str(path))
        real(path, text)
        written.append(path.relative_to(here).as_posix())

    monkeypatch.setattr(new_game, "_write", failing)
    before = snapshot(here)
    assert main(["new-game", "ro_probe"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Read-only file system" in err[0] and "nothing kept" in err[0], err
    assert {"docs/index.md", "docs/ro_probe.md", "cardenvs/registry.py"} <= set(written)  # (it got that far)
    assert snapshot(here) == before
    assert not (here / "cardenvs" / "games" / "ro_probe").exists()


def test_a_generator_that_fails_after_writing_leaves_the_tree_as_it_was(here, capsys):
    generator = here / "tools" / "gen_docs.py"
    kept = generator.read_bytes()
    generator.write_text(
        "import pathlib, sys\n"
        "root = pathlib.Path(__file__).resolve().parents[1]\n"
        "for page in ('docs/index.md', 'README.md', 'docs/pepper.md'):\n"
        "    (root / page).write_text('rewritten')\n"
        "sys.exit('gen_docs: broken')\n"
    )
    try:
        before = snapshot(here)
        assert main(["new-game", "broken_docs"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "tools/gen_docs.py failed on the new game, nothing kept" in err[0], err
        assert snapshot(here) == before
    finally:
        generator.write_bytes(kept)


@pytest.mark.parametrize("name", ["hearts", "speed", "play", "arena", "train", "replay"])
def test_names_the_command_line_takes_are_refused(here, capsys, name):
    before = snapshot(here)
    assert main(["new-game", name]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and ("command line's name for" in err[0] or "is a command of cardenvs" in err[0]), err
    assert snapshot(here) == before
