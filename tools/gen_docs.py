"""Fill the generated parts of the docs pages from the code.

Each game's page ``docs/<folder>.md`` holds its observation index table
between ``<!-- generated:observation -->`` and ``<!-- /generated:observation -->``
(one pair per variant, in the order of the game's ``layouts`` in
``cardenvs.registry``), and its state index table (``state()``, the whole
game for centralised critics) between ``<!-- generated:state -->`` and
``<!-- /generated:state -->`` (likewise, in the order of ``state_layouts``),
rendered from the layout data (``cardenvs.core.layout.Layout``), so the
tables cannot drift from the code.

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


def pages() -> dict[pathlib.Path, str]:
    """Every game page with its generated blocks filled."""
    out = {}
    for game in GAMES.values():
        path = ROOT / game.doc
        text = path.read_text()
        for kind, field in KINDS.items():
            tables = [observation_table(load(spec)) for spec in getattr(game, field)]
            text = render_page(text, tables, game.doc, kind)
        out[path] = text
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
