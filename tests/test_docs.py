"""The docs pages agree with the code: every variant's action table round-trips,
the help and state tables are the layouts'.  (The generated tables being up
to date, the config table being the code's and the layouts covering their
observations are the conformance kit's ``docs_tables`` check:
``tests/test_conformance.py``.)"""

from __future__ import annotations

import importlib
import pathlib
import re
import sys

import pytest

import cardenvs
from cardenvs.registry import GAMES, load
from cardenvs.testing.repo import codes, tables

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import gen_docs  # noqa: E402


def page_of(game: str) -> str:
    return (ROOT / GAMES[game].doc).read_text()


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
