"""The documentation site (mkdocs.yml): every public module has an API page
in the nav, and ``mkdocs build --strict`` passes (a broken link or anchor, a
page left out of the nav, a docstring mkdocstrings warns about: all fail it).

A module is public when the README or a page of ``docs/`` tells users to
import it (an ``import`` in one of their code blocks), or when it is a game
module of the registry: the docs are the one place the list comes from.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

from cardenvs.registry import GAMES

pytest.importorskip("griffe", reason="the docs extra is not installed (pip install -e '.[docs]')")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
import gen_results  # noqa: E402
import griffe_rst  # noqa: E402
import mkdocs_games  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
API = ROOT / "docs" / "api"
FENCE = re.compile(r"^```[a-z]*\n(.*?)^```", re.S | re.M)
IMPORT = re.compile(r"^\s*(?:from\s+(cardenvs[\w.]*)\s+import\s+([^#\n]+)|import\s+(cardenvs[\w.]*))", re.M)


def is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:
        return False


def imported_modules(code: str) -> set[str]:
    """The cardenvs modules a block of code imports (``from m import x`` counts
    ``m``, and ``m.x`` too where ``x`` is a module)."""
    found = set()
    for source, names, plain in IMPORT.findall(code):
        if plain:
            found.add(plain)
            continue
        found.add(source)
        for name in names.strip("() ").split(","):
            full = f"{source}.{name.split(' as ')[0].strip()}"
            if name.strip() and is_module(full):
                found.add(full)
    return found


def doc_pages() -> list[pathlib.Path]:
    return [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").glob("*.md"))]


def public_modules() -> set[str]:
    """What the README and the docs pages tell users to import, and the games."""
    modules = {spec.module for spec in GAMES.values()}
    for page in doc_pages():
        for code in FENCE.findall(page.read_text()):
            modules |= imported_modules(code)
    return modules


def listed_api_pages() -> list[str]:
    """The API pages mkdocs.yml's nav lists (module names)."""
    return re.findall(r"^\s+- [\w.]+: api/([\w.]+)\.md$", (ROOT / "mkdocs.yml").read_text(), re.M)


def nav_api_pages() -> list[str]:
    """The API pages of the site's nav: mkdocs.yml's, then the games' (tools/mkdocs_games.py)."""
    return listed_api_pages() + sorted(mkdocs_games.api_pages())


def test_the_public_modules_are_found_in_the_docs():
    modules = public_modules()
    # a few the README and the guides import: if these vanish, the parsing broke
    assert {"cardenvs", "cardenvs.vector", "cardenvs.pepper_v0", "cardenvs.evaluation"} <= modules
    assert all(is_module(m) for m in modules), sorted(m for m in modules if not is_module(m))


def test_imports_are_read_from_code():
    code = (
        "import cardenvs.vector as V\nfrom cardenvs import pepper_v0, make\n"
        "from cardenvs.agents.base import (RandomAgent)\n"
    )
    assert imported_modules(code) == {"cardenvs.vector", "cardenvs", "cardenvs.pepper_v0", "cardenvs.agents.base"}


def test_every_public_module_has_an_api_page_in_the_nav():
    nav = nav_api_pages()
    missing = sorted(public_modules() - set(nav))
    assert not missing, (
        f"public modules without an API page (add docs/api/<module>.md and list it in mkdocs.yml): {missing}"
    )
    on_disk = sorted(p.stem for p in API.glob("*.md"))
    assert sorted(listed_api_pages()) == on_disk, "every page of docs/api/ is in mkdocs.yml's nav, and only those"
    assert not set(on_disk) & set(mkdocs_games.api_pages()), "a game's API page is made by tools/mkdocs_games.py"


def test_the_games_nav_is_the_registry():
    """The nav's "Games" section and each game's API page come from the
    registry (tools/mkdocs_games.py), in its order: mkdocs.yml lists none."""
    config = {"nav": [{"Games": []}, {"API reference": [{"cardenvs": "api/cardenvs.md"}]}]}
    nav = mkdocs_games.on_config(config)["nav"]
    assert nav[0]["Games"] == [{game.title: game.doc.removeprefix("docs/")} for game in GAMES.values()]
    listed = [next(iter(entry)) for entry in nav[1]["API reference"]]
    assert listed[0] == "cardenvs" and {game.module for game in GAMES.values()} <= set(listed[1:])
    assert all((ROOT / game.doc).exists() for game in GAMES.values())


def api_page_texts() -> dict[str, str]:
    """Every API page's text by its file name: docs/api/'s and the games'."""
    made = {f"{name}.md": text for name, text in mkdocs_games.api_pages().items()}
    return {**{p.name: p.read_text() for p in API.glob("*.md")}, **made}


@pytest.mark.parametrize("page", sorted(api_page_texts()))
def test_each_api_page_renders_a_module(page):
    """A page ``docs/api/<module>.md`` is titled with its module and renders
    it, or the module it re-exports (a game module renders its env module)."""
    text = api_page_texts()[page]
    module = page.removesuffix(".md")
    assert text.startswith(f"# `{module}`\n")
    targets = re.findall(r"^::: ([\w.]+)$", text, re.M)
    assert len(targets) == 1 and is_module(targets[0]), targets
    if targets[0] != module:
        exported = importlib.import_module(module)
        assert exported.__doc__ == importlib.import_module(targets[0]).__doc__


#: The guides whose python blocks the tests run (docs/using-with.md's are tests/test_using_with.py's).
GUIDES = ("getting-started.md", "vector.md", "agents.md")


def guide_snippets() -> list[tuple[str, str]]:
    return [
        (f"{page}-{i}", code)
        for page in GUIDES
        for i, code in enumerate(re.findall(r"^```python\n(.*?)^```$", (ROOT / "docs" / page).read_text(), re.M | re.S))
    ]


@pytest.mark.parametrize("code", [c for _, c in guide_snippets()], ids=[n for n, _ in guide_snippets()])
def test_guide_snippet_runs(code, tmp_path):
    """Every python block of the guides runs as it is (training with a tiny
    CARDENVS_DOC_STEPS), each in its own process and folder."""
    for module in ("torch", "sb3_contrib"):
        if re.search(rf"cardenvs\.training\b|cardenvs\.agents\.policy|\bPolicyAgent\b|^from {module}\b", code, re.M):
            pytest.importorskip(module, reason="the train extra")
    env = dict(os.environ, CARDENVS_DOC_STEPS="256", PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", MPLBACKEND="Agg")
    script = tmp_path / "snippet.py"
    script.write_text(code)
    run = [sys.executable, str(script)]
    out = subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-4000:]


def test_the_results_page_is_the_results_files():
    """docs/results.md is what tools/gen_results.py makes of benchmarks/results/*.json."""
    assert gen_results.render() == (ROOT / "docs" / "results.md").read_text(), "run `make docs`"


def test_every_results_file_is_shown_with_its_commit_and_machine():
    for path in sorted(gen_results.RESULTS.glob("*.json")):
        doc = json.loads(path.read_text())
        assert {"benchmark", "command", "commit", "date", "cpus", "results"} <= set(doc), path.name
        assert doc["benchmark"] in {name for name, *_ in gen_results.SECTIONS}, path.name
        assert path in gen_results.files(doc["benchmark"]), f"{path.name}: name it <benchmark>[-<run>].json"
        assert doc["results"], path.name


def test_a_results_table_formats_its_figures():
    records = [{"game": "g", "rate": 1234567.8, "x": 1.234, "win": 0.5, "ci95_low": 0.4, "ci95_high": 0.6}]
    columns = [("game", "game", "str"), ("rate", "rate", "int"), ("x", "x", "x"), ("win", "win", "ci")]
    columns.append(("absent", "absent", "int"))
    assert gen_results.table(records, columns) == [
        "| game | rate | x | win |",
        "| --- | --- | --- | --- |",
        "| g | 1,234,568 | 1.23x | 50.0% [40.0%, 60.0%] |",
    ]


def test_docstrings_rst_markup_becomes_markdown():
    """The roles, doctest lines and literal blocks of the docstrings, as
    the API pages render them (tools/griffe_rst.py)."""
    text = (
        "See :class:`~cardenvs.vector.VectorEnv` and :func:`make`.\n\n"
        ">>> venv = make(1)\n>>> venv.reset()\n\nThe shape::\n\n    a = 1\n    b = 2\n\nAfter."
    )
    assert griffe_rst.markdown(text) == (
        "See `VectorEnv` and `make`.\n\n"
        "```pycon\n>>> venv = make(1)\n>>> venv.reset()\n```\n\nThe shape:\n\n```\na = 1\nb = 2\n```\n\nAfter."
    )


def test_the_site_builds_in_strict_mode(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings_handlers.python")
    out = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    warnings = [line for line in out.stderr.splitlines() if "WARNING" in line or "ERROR" in line]
    assert out.returncode == 0, "\n".join(warnings) or out.stderr[-3000:]
    assert (tmp_path / "site" / "api" / "cardenvs.vector" / "index.html").exists()
