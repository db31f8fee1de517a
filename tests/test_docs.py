"""The docs pages agree with the code: generated observation tables are up
to date, every config option and default in a page's config table is the
code's, and the action tables' ids and texts round-trip."""

from __future__ import annotations

import ast
import importlib
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


def tables(page: str, header: str) -> list[list[list[str]]]:
    """Every Markdown table in ``page`` whose header row is ``header``: its
    rows, each a list of cells (stripped)."""
    found: list[list[list[str]]] = []
    inside = False
    for line in page.splitlines():
        if line.strip() == header:
            found.append([])
            inside = True
            continue
        if inside and line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not set("".join(cells)) <= set("-: "):
                found[-1].append(cells)
        else:
            inside = False
    return found


def table(page: str, header: str) -> list[list[str]]:
    """The rows of every table with ``header``, one after another."""
    return [row for rows in tables(page, header) for row in rows]


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


# The envs whose action ids a page's action tables give, in the order of the tables.
VARIANT_CONFIGS = {"spit_v0": [{}, {"variant": "speed"}]}


@pytest.mark.parametrize("game", list(GAMES))
def test_action_table_round_trips(game):
    found = tables(page_of(game), "| id | text |")
    configs = VARIANT_CONFIGS.get(game, [{}])
    assert len(found) == len(configs), f"{GAMES[game].doc}: {len(found)} action tables, want {len(configs)}"
    for rows, config in zip(found, configs):
        env = cardenvs.make(game, **config).unwrapped
        checked = 0
        for ids, text in rows:
            texts = codes(text)
            if not texts or not re.fullmatch(r"\d+(\.\.\d+)?", ids.strip()):
                continue  # rows given by formula
            numbers = [int(x) for x in ids.split("..")]
            assert env.str_to_action(texts[0]) == numbers[0], f"{game}: `{texts[0]}` is not action {numbers[0]}"
            if numbers[-1] != numbers[0]:
                assert env.str_to_action(texts[-1]) == numbers[-1], f"{game}: `{texts[-1]}` is not {numbers[-1]}"
            checked += 1
        assert checked >= 2, f"{game} {config}: too few action rows checked"


def test_readme_links_every_page():
    readme = (ROOT / "README.md").read_text()
    for game in GAMES.values():
        assert game.doc in readme
        assert (ROOT / game.doc).exists()
    assert (ROOT / "docs" / "adding-a-game.md").exists()
    assert "shared/rules" not in readme, "the rules are in docs/: the repository must stand alone"


@pytest.mark.parametrize("game", list(GAMES))
def test_layout_covers_the_observation(game):
    for path in GAMES[game].layouts + GAMES[game].state_layouts:
        layout = load(path)
        covered = sorted(i for f in layout for i in range(f.offset, f.stop))
        assert covered == list(range(layout.size))


@pytest.mark.parametrize("game", list(GAMES))
def test_help_shows_the_generated_observation_table(game):
    module = importlib.import_module(GAMES[game].module)
    for path in GAMES[game].layouts:
        assert load(path).markdown() in module.__doc__
    assert GAMES[game].doc in module.__doc__


@pytest.mark.parametrize("game", list(GAMES))
def test_state_tables_are_the_envs_states(game):
    """The page's "State" section holds one generated table per variant, each
    the layout of that variant's ``state()`` (its size the env's)."""
    page = page_of(game)
    section = page[page.index("## State (for centralised critics)") : page.index("## Rewards")]
    configs = VARIANT_CONFIGS.get(game, [{}])
    assert len(GAMES[game].state_layouts) == len(configs) == section.count("<!-- generated:state -->")
    for path, config in zip(GAMES[game].state_layouts, configs):
        layout = load(path)
        assert (layout.size,) == cardenvs.make(game, **config).state_space.shape
        assert layout.markdown() in section


def test_a_page_missing_a_generated_block_is_refused():
    text = "<!-- generated:observation -->\nold\n<!-- /generated:observation -->\n"
    assert gen_docs.render_page(text, ["new"], "page.md") == text.replace("old", "new")
    with pytest.raises(SystemExit, match="0 generated state blocks, want 1"):
        gen_docs.render_page(text, ["table"], "page.md", "state")
