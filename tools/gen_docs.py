"""Fill the generated parts of the docs pages from the code.

Each game's page ``docs/<folder>.md`` holds its observation index table
between ``<!-- generated:observation -->`` and ``<!-- /generated:observation -->``
(one pair per variant, in the order of the game's ``layouts`` in
``cardenvs.registry``), rendered from the observation layout data
(``cardenvs.core.layout.Layout``), so the table cannot drift from the code.

    python tools/gen_docs.py           # rewrite the pages
    python tools/gen_docs.py --check   # exit 1 if a page is out of date (run by the tests)
"""

from __future__ import annotations

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cardenvs.registry import GAMES, load  # noqa: E402

START, END = "<!-- generated:observation -->", "<!-- /generated:observation -->"
BLOCK = re.compile(re.escape(START) + r".*?" + re.escape(END), re.S)


def observation_table(layout) -> str:
    return f"{layout.markdown()}\n\n({layout.size} entries.)"


def render_page(text: str, tables: list[str], page: str) -> str:
    blocks = BLOCK.findall(text)
    if len(blocks) != len(tables):
        raise SystemExit(f"{page}: {len(blocks)} generated observation blocks, want {len(tables)}")
    parts = iter(tables)
    return BLOCK.sub(lambda _: f"{START}\n{next(parts)}\n{END}", text)


def pages() -> dict[pathlib.Path, str]:
    """Every game page with its generated blocks filled."""
    out = {}
    for game in GAMES.values():
        path = ROOT / game.doc
        tables = [observation_table(load(spec)) for spec in game.layouts]
        out[path] = render_page(path.read_text(), tables, game.doc)
    return out


def main(argv: list[str]) -> int:
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
