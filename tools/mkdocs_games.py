"""MkDocs hook (mkdocs.yml ``hooks:``): the games' part of the site, read
from the registry, so a new game needs no line in mkdocs.yml.

- the nav's "Games" section: one page per game (its ``docs/<folder>.md``);
- the API reference: a page per game module (``cardenvs.<name>``, rendering
  its env module), per rule agent and per information-set sampler, made
  here (not files in docs/api/) and listed after the pages mkdocs.yml names.
"""

from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from cardenvs.registry import GAMES  # noqa: E402


def game_pages() -> list[tuple[str, str]]:
    """(title, page) of each game's page, in the registry's order."""
    return [(game.title, game.doc.removeprefix("docs/")) for game in GAMES.values()]


def api_pages() -> dict[str, str]:
    """Module name -> the text of its API page, for every game's module, rule agent and sampler."""
    pages = {}
    for game in GAMES.values():
        members = ["env", "parallel_env", "raw_env"] if game.simultaneous else ["env", "raw_env"]
        shown = ", ".join(f"`{m}`" for m in members[:-1]) + f" and `{members[-1]}`"
        pages[game.module] = (
            f"# `{game.module}`\n\n"
            f"The game module (`from cardenvs import {game.name}`): its {shown} are those of\n"
            f"`{game.env_module}`, documented here. The rules, actions, observation and rewards are on the\n"
            f"[game's page](../{game.doc.removeprefix('docs/')}).\n\n"
            f"::: {game.env_module}\n"
            f"    options:\n"
            f"      members: [{', '.join(members)}]\n"
            f"      show_if_no_docstring: true\n"
        )
        for path in (game.rule_agent, game.sampler):
            if path is not None:
                module = path.split(":")[0]
                pages[module] = f"# `{module}`\n\n::: {module}\n"
    return pages


def on_config(config, **_):
    for section in config["nav"]:
        if isinstance(section, dict) and "Games" in section:
            section["Games"] = [{title: page} for title, page in game_pages()]
        if isinstance(section, dict) and "API reference" in section:
            listed = section["API reference"]
            section["API reference"] = listed + [{name: f"api/{name}.md"} for name in sorted(api_pages())]
    return config


def on_files(files, config, **_):
    from mkdocs.structure.files import File

    for name, text in api_pages().items():
        files.append(File.generated(config, f"api/{name}.md", content=text))
    return files
