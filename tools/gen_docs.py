"""Fill the generated parts of the docs pages from the code.

Each game's page ``docs/<folder>.md`` holds its observation index table
between ``<!-- generated:observation -->`` and ``<!-- /generated:observation -->``
(one pair per variant, in the order of the game's ``layouts`` in
``cardenvs.registry``), and its state index table (``state()``, the whole
game for centralised critics) between ``<!-- generated:state -->`` and
``<!-- /generated:state -->`` (likewise, in the order of ``state_layouts``),
rendered from the layout data (``cardenvs.core.layout.Layout``), so the
tables cannot drift from the code.  The games table of ``docs/index.md`` and
of ``README.md`` (between ``<!-- generated:games -->`` and
``<!-- /generated:games -->``) is rendered from the registry, one row per
game, and so is the prose that counts the games: the README's
``games-prose`` paragraph (what every game has, what only some have) and
the number of games wherever it stands between ``<!-- generated:games-count -->``
and ``<!-- /generated:games-count -->`` in a sentence (a number word, in the
case it had: "Four games", "four games"; the template game not counted).

    python tools/gen_docs.py           # rewrite the pages
    python tools/gen_docs.py --check   # exit 1 if a page is out of date (run by the tests)
    python tools/gen_docs.py --json    # print the pages to rewrite as {path: text}, write nothing

(``cardenvs new-game`` uses ``--json`` and writes the pages itself, so it
can put every file back as it was if anything fails.)
"""

from __future__ import annotations

import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cardenvs.app.new_game import TEMPLATE  # noqa: E402
from cardenvs.registry import GAMES, load  # noqa: E402

#: The kinds of generated block, each with the registry field listing its layouts.
KINDS = {"observation": "layouts", "state": "state_layouts"}


def block(kind: str) -> re.Pattern[str]:
    """The generated blocks of ``kind`` in a page (markers included)."""
    start, end = markers(kind)
    return re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)


def markers(kind: str) -> tuple[str, str]:
    return f"<!-- generated:{kind} -->", f"<!-- /generated:{kind} -->"


def observation_table(layout) -> str:
    """A layout's index table as a page shows it (observations and states alike)."""
    return f"{layout.markdown()}\n\n({layout.size} entries.)"


def render_page(text: str, tables: list[str], page: str, kind: str = "observation") -> str:
    """``text`` with its generated ``kind`` blocks filled with ``tables``, in order."""
    pattern, (start, end) = block(kind), markers(kind)
    found = pattern.findall(text)
    if len(found) != len(tables):
        raise SystemExit(f"{page}: {len(found)} generated {kind} blocks, want {len(tables)}")
    parts = iter(tables)
    return pattern.sub(lambda _: f"{start}\n{next(parts)}\n{end}", text)


#: The pages holding the games table, with the path from each to the docs pages.
GAMES_TABLES = {"docs/index.md": "", "README.md": "docs/"}


def games_table(prefix: str) -> str:
    """The games table, one row per game of the registry (links to the game pages under ``prefix``)."""
    rows = ["| page | module | game | players | API |", "| --- | --- | --- | --- | --- |"]
    for game in GAMES.values():
        page = f"{prefix}{game.doc.removeprefix('docs/')}"
        api = "parallel + AEC" if game.simultaneous else "AEC"
        rows.append(f"| [{game.title}]({page}) | `{game.module}` | {game.summary} | {game.players} | {api} |")
    return "\n".join(rows)


#: The pages with generated prose about the games, and its kinds in each.
GAMES_PROSE = {"README.md": ("games-count", "games-prose"), "docs/getting-started.md": ("games-count",)}
NUMBER_WORDS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]


def number_word(n: int) -> str:
    return NUMBER_WORDS[n] if n < len(NUMBER_WORDS) else str(n)


def games_count() -> str:
    """How many games the library has, in words (the template game not counted)."""
    return number_word(sum(game.folder != TEMPLATE for game in GAMES.values()))


def titles(games: list) -> str:
    names = [game.title for game in games]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def games_prose() -> str:
    """The README's paragraph after its games table: what every game has,
    what the full games have (a PPO baseline and a world sampler) and which
    games lack some of it, and the template game."""
    games = [game for game in GAMES.values() if game.folder != TEMPLATE]
    full = [game for game in games if game.baseline and game.sampler]
    lacking: dict[str, list] = {}
    for game in games:
        missing = [what for what, has in (("PPO baseline", game.baseline), ("world sampler", game.sampler)) if not has]
        if missing:
            lacking.setdefault(" or ".join(missing), []).append(game)
    notes = [f"{titles(some)} {'has' if len(some) == 1 else 'have'} no {what} yet" for what, some in lacking.items()]
    template = next((game for game in GAMES.values() if game.folder == TEMPLATE), None)
    lines = [
        "Every game also has a rule-based agent and a picture of the table",
        "(`cardenvs play`, `cardenvs serve`, `cardenvs replay`: [the play page](docs/serve.md),",
        f"[replays](docs/replays.md)); the {number_word(len(full))} full games also have a PPO baseline",
        '(`make_agent(game, "ppo")`) and a world sampler for search' + "".join(f"; {note}" for note in notes) + ".",
    ]
    if template is not None:
        lines += [
            f"{template.title} is the template game: `cardenvs new-game NAME` copies it as the start of a",
            "new game ([Adding a game](docs/adding-a-game.md)).",
        ]
    return "\n".join(lines)


def render_count(text: str) -> str:
    """``text`` with every ``games-count`` span holding the number of games,
    in the case of the word it held."""
    start, end = markers("games-count")
    word = games_count()

    def cased(found: re.Match[str]) -> str:
        old = found.group(1)
        return start + (word.capitalize() if old[:1].isupper() else word) + end

    return re.sub(re.escape(start) + r"(.*?)" + re.escape(end), cased, text)


def pages() -> dict[pathlib.Path, str]:
    """Every game page with its generated blocks filled, and the pages with a games table or prose."""
    out = {}
    for page, prefix in GAMES_TABLES.items():
        out[ROOT / page] = render_page((ROOT / page).read_text(), [games_table(prefix)], page, "games")
    for page, kinds in GAMES_PROSE.items():
        text = out.get(ROOT / page) or (ROOT / page).read_text()
        if "games-count" in kinds:
            if markers("games-count")[0] not in text:
                raise SystemExit(f"{page}: no generated games-count span")
            text = render_count(text)
        if "games-prose" in kinds:
            text = render_page(text, [games_prose()], page, "games-prose")
        out[ROOT / page] = text
    for game in GAMES.values():
        path = ROOT / game.doc
        text = path.read_text()
        for kind, field in KINDS.items():
            tables = [observation_table(load(spec)) for spec in getattr(game, field)]
            text = render_page(text, tables, game.doc, kind)
        out[path] = text
    return out


def main(argv: list[str]) -> int:
    if "--json" in argv:  # (one line: the stale pages, by path from the root)
        stale = {str(p.relative_to(ROOT)): text for p, text in pages().items() if p.read_text() != text}
        print(json.dumps(stale))
        return 0
    stale = []
    for path, text in pages().items():
        if path.read_text() != text:
            stale.append(str(path.relative_to(ROOT)))
            if "--check" not in argv:
                path.write_text(text)
    if "--check" in argv and stale:
        print("out of date (run `make docs`): " + ", ".join(stale))
        return 1
    print(("rewrote: " + ", ".join(stale)) if stale else "docs up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
