"""The docs pages agree with the code: generated observation tables are up
to date, every config option and default in a page's config table is the
code's, and the action tables' ids and texts round-trip."""

from __future__ import annotations

import ast
import pathlib
import re
import sys

import pytest

import cardenvs
from cardenvs.core.options import rules_defaults
from cardenvs.registry import GAMES, load, rules_class

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import gen_docs  # noqa: E402


def table(page: str, header: str) -> list[list[str]]:
    """The rows (cells stripped) of every Markdown table in ``page`` whose header row is ``header``."""
    rows, inside = [], False
    for line in page.splitlines():
        if line.strip() == header:
            inside = True
            continue
        if inside and line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not set("".join(cells)) <= set("-: "):
                rows.append(cells)
        else:
            inside = False
    return rows


def codes(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def page_of(game: str) -> str:
    return (ROOT / GAMES[game].doc).read_text()


def test_generated_tables_are_up_to_date():
    stale = [str(p.relative_to(ROOT)) for p, text in gen_docs.pages().items() if p.read_text() != text]
    assert not stale, f"out of date: {stale}; run `make docs`"


def constructor_defaults(game: str) -> dict[str, object]:
    """Every config option the game takes, with its default (all variants)."""
    return {**rules_defaults(rules_class(game)), "render_mode": None, "illegal_action": "raise", "obs_dtype": None}


@pytest.mark.parametrize("game", list(GAMES))
def test_config_table_is_the_code(game):
    rows = table(page_of(game), "| option | default | allowed |")
    assert rows, f"{GAMES[game].doc}: no config table"
    documented = {codes(r[0])[0]: ast.literal_eval(codes(r[1])[0]) for r in rows}
    code = constructor_defaults(game)
    assert set(documented) == set(code), (
        f"options differ: docs only {set(documented) - set(code)}, code only {set(code) - set(documented)}"
    )
    for name, default in documented.items():
        want = code[name]
        want = list(want) if isinstance(want, tuple) else want
        got = list(default) if isinstance(default, tuple) else default
        assert got == want, f"{game}: {name} documented default {default!r}, code {code[name]!r}"


@pytest.mark.parametrize("game", list(GAMES))
def test_action_table_round_trips(game):
    rows = table(page_of(game), "| id | text |")
    assert rows, f"{GAMES[game].doc}: no action table"
    env = cardenvs.make(game).unwrapped
    checked = 0
    for ids, text in rows:
        texts = codes(text)
        numbers = [int(x) for x in re.findall(r"\d+", ids)]
        if not texts or not numbers or not re.fullmatch(r"\d+(\.\.\d+)?", ids.strip()):
            continue  # rows given by formula
        first, last = numbers[0], numbers[-1]
        assert env.str_to_action(texts[0]) == first, f"{game}: `{texts[0]}` is not action {first}"
        if last != first:
            assert env.str_to_action(texts[-1]) == last, f"{game}: `{texts[-1]}` is not action {last}"
        checked += 1
    assert checked >= 3


def test_readme_links_every_page():
    readme = (ROOT / "README.md").read_text()
    for game in GAMES.values():
        assert game.doc in readme
        assert (ROOT / game.doc).exists()
    assert (ROOT / "docs" / "adding-a-game.md").exists()
    assert "../shared" not in readme, "the repository must stand alone"


@pytest.mark.parametrize("game", list(GAMES))
def test_layout_covers_the_observation(game):
    for path in GAMES[game].layouts:
        layout = load(path)
        covered = sorted(i for f in layout for i in range(f.offset, f.stop))
        assert covered == list(range(layout.size))
