"""``cardenvs new-game NAME``: a new game, made as a renamed copy of the
template game, High Card (``cardenvs/games/high_card/``).

It writes the game's folder ``cardenvs/games/NAME/`` (every identifier,
class name and title renamed, its golden playthrough included), its docs
page ``docs/NAME.md`` and its line in ``cardenvs/registry.py``'s
``GAME_FOLDERS``: the three places a game touches.  Then ``make docs``'s
generator (``tools/gen_docs.py``) lists it in the generated games tables of
``README.md`` and ``docs/index.md``.  The copy plays High
Card under the name ``NAME_v0`` and passes every test before any rule is
changed; ``docs/adding-a-game.md`` says what to change next.

It works in a source checkout (the package's own files are edited: an
installed package cannot add games to itself).  A bad name (one the
command line takes already included: ``hearts``, ``speed``, ``play``...) is
refused with one line and exit code 2, before anything is written; a
failure midway (the docs generator, a file that cannot be written) puts
every file back byte for byte, with one line and exit code 2 (1 for a
file that cannot be written).
"""

from __future__ import annotations

import argparse
import json
import keyword
import os
import pathlib
import re
import shutil
import subprocess
import sys
from collections.abc import Collection

ROOT = pathlib.Path(__file__).resolve().parents[2]  # the checkout, when run from one
TEMPLATE = "high_card"
TEMPLATE_CLASS, TEMPLATE_TITLE = "HighCard", "High Card"
#: Folder names a game may not take: the names of the package's own parts
#: (``cardenvs.<name>``; ``table``, the application's old name, is still an
#: alias), and the template's docs pages' neighbours are refused by their
#: page existing.
RESERVED = {
    *("core", "games", "agents", "search", "vector", "render", "app", "registry"),
    *("table", "testing", "integrations", "baselines", "template"),
}
HEAD = '''"""{title} (``cardenvs.{name}_v0``), made by ``cardenvs new-game`` from the template game,
High Card: change it file by file (see docs/adding-a-game.md).

'''
NEXT = """\
Next (docs/adding-a-game.md says more):
  1. cardenvs/games/{name}/tables.py: your deck, actions and phases; then legal.py, deal.py, apply.py
     (the rules: one kernel call a step, one function per phase), observation.py and state.py (what a
     seat sees, the whole game), rules.py (state_dict, render), agent.py (the rule agent); the docstrings
     say what each holds.
  2. docs/{name}.md: your rules, config, actions and rewards; then `make docs` rewrites its generated tables.
  3. cardenvs/games/{name}/test_rules.py: your rules' tests (its fixed deals are High Card's).
  4. python tests/playthroughs.py {name}   (record the golden playthrough again once play changes; its first
     line's config, {{}}, is your game's defaults: edit that line to record another config)
  5. python -m cardenvs.testing {name}_v0   (the conformance kit, in spec.py's short_config; --config '{{}}'
     for your defaults: run both, and every seat count, before the game is done)
"""


class NameError_(ValueError):  # noqa: N801, N818 (a refusal, shown as one line)
    """Why a name cannot be a new game."""


class NotMadeError(RuntimeError):
    """A new game that failed midway (a file that cannot be written): why,
    and that every file was put back (or which could not be)."""


def camel(name: str) -> str:
    """``card_duel`` -> ``CardDuel`` (the classes' prefix)."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def title_of(name: str) -> str:
    """``card_duel`` -> ``Card Duel``."""
    return " ".join(part[:1].upper() + part[1:] for part in name.split("_") if part)


def check_name(name: str, root: pathlib.Path, taken: Collection[str] = ()) -> None:
    """Refuse (:class:`NameError_`) a name that is not a lowercase
    identifier, is reserved, is an alias the command line takes for a game
    (``hearts``, ``speed``: the table of :mod:`.play`, which ``cardenvs
    play NAME`` would resolve to the other game) or one of ``taken`` (the
    command line's commands), or is taken by a game, a folder or a docs page."""
    from cardenvs.registry import GAMES

    from .play import ALIASES

    if not re.fullmatch(r"[a-z][a-z0-9_]{0,39}", name) or keyword.iskeyword(name) or name.endswith("_"):
        raise NameError_(
            f"{name!r} is not a game name: lowercase letters, digits and underscores, starting with a letter "
            "(at most 40), e.g. card_duel; it names the folder, the module cardenvs.<name>_v0 and the docs page"
        )
    if name.endswith("_v0"):
        raise NameError_(f"{name!r}: give the name without _v0 (the game will be {name}_v0)")
    if name in RESERVED:
        raise NameError_(f"{name!r} is reserved (a part of the package): choose another name")
    if name in ALIASES:
        raise NameError_(f"{name!r} is the command line's name for {ALIASES[name]}: choose another name")
    if name in taken:
        raise NameError_(f"{name!r} is a command of cardenvs (cardenvs {name}): choose another name")
    if f"{name}_v0" in GAMES or any(g.folder == name for g in GAMES.values()):
        raise NameError_(f"{name!r} is already a game ({name}_v0): choose another name")
    for taken in (root / "cardenvs" / "games" / name, root / "docs" / f"{name}.md", root / "cardenvs" / name):
        if taken.exists():
            raise NameError_(f"{taken.relative_to(root)} exists already: choose another name")


def check_checkout(root: pathlib.Path) -> str:
    """The registry's text, if ``root`` is a source checkout holding the
    template (else :class:`NameError_`: an installed package cannot add games)."""
    registry = root / "cardenvs" / "registry.py"
    missing = [p for p in (root / "pyproject.toml", root / "cardenvs" / "games" / TEMPLATE, registry) if not p.exists()]
    if missing:
        raise NameError_(
            f"{root} is not a source checkout of cardenvs ({missing[0].name} missing): new-game edits the "
            "package's files, so run it from a clone (git clone, then `pip install -e .`)"
        )
    text = registry.read_text(encoding="utf-8")
    if _folders_block(text) is None:
        raise NameError_(f"{registry}: no GAME_FOLDERS = (...) tuple to add the game to")
    return text


def _folders_block(text: str) -> re.Match[str] | None:
    return re.search(r"^GAME_FOLDERS\b[^=\n]*= \(\n(?P<lines>(?:    .*\n)*)\)", text, re.M)


def renamed(text: str, name: str, title: str) -> str:
    """The template's ``text`` for game ``name``: its folder and registry
    names, its class names and its title replaced."""
    return text.replace(TEMPLATE, name).replace(TEMPLATE_CLASS, camel(name)).replace(TEMPLATE_TITLE, title)


def make_game(name: str, title: str, root: pathlib.Path = ROOT, taken: Collection[str] = ()) -> list[pathlib.Path]:
    """Write the new game ``name`` (see the module doc) and return the files
    written; checks everything first (:class:`NameError_`, nothing written;
    ``taken``: the command line's commands).  If anything fails midway every
    file is put back byte for byte (:class:`Undo`) and the error raised
    again (:class:`NotMadeError` if it is not a NameError_, or if a file could not
    be put back)."""
    check_name(name, root, taken)
    registry_text = check_checkout(root)
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9 '-]{0,59}", title):
        raise NameError_(f"the title {title!r} must be letters, digits, spaces, hyphens or apostrophes (at most 60)")
    undo = Undo(root, root / "cardenvs" / "games" / name)
    undo.keep([root / "README.md", *sorted((root / "docs").glob("*.md"))])  # (what the docs generator may rewrite)
    try:
        written = _write_game(undo, name, title, registry_text)
        for page, text in _generated_docs(root).items():
            undo.write(page, text)
    except Exception as e:
        left = undo.restore()
        if isinstance(e, NameError_) and not left:
            raise
        kept = f"could not put back {', '.join(left)}" if left else "nothing kept"
        raise NotMadeError(f"{e if isinstance(e, NameError_) else f'{type(e).__name__}: {e}'}; {kept}") from e
    except BaseException:  # (an interrupt: put back, then stop)
        undo.restore()
        raise
    return written


def _write_game(undo: Undo, name: str, title: str, registry_text: str) -> list[pathlib.Path]:
    """The game's folder (the template's, renamed), its docs page and its registry line."""
    root = undo.root
    source, target = root / "cardenvs" / "games" / TEMPLATE, undo.folder
    written: list[pathlib.Path] = []
    for path in sorted(source.rglob("*")):
        if path.is_dir() or "__pycache__" in path.parts or path.suffix in (".pyc", ".nbi", ".nbc"):
            continue
        out = target / renamed(str(path.relative_to(source)), name, title)
        text = renamed(path.read_text(encoding="utf-8"), name, title)
        if path.name == "__init__.py":  # the folder's map: it is not the template any more
            text = re.sub(r'^""".*?\n\n', HEAD.format(name=name, title=title), text, count=1, flags=re.S)
        undo.write(out, text)
        written.append(out)
    template_page = (root / "docs" / f"{TEMPLATE}.md").read_text(encoding="utf-8")
    note = f"<!-- made by `cardenvs new-game` from docs/{TEMPLATE}.md: rewrite it for your game -->\n"
    page = root / "docs" / f"{name}.md"
    undo.write(page, note + renamed(template_page, name, title))
    written.append(page)
    block = _folders_block(registry_text)
    assert block is not None  # (checked by check_checkout)
    end = block.end("lines")
    undo.write(root / "cardenvs" / "registry.py", registry_text[:end] + f'    "{name}",\n' + registry_text[end:])
    return written


def _write(path: pathlib.Path, text: str) -> None:
    """Write one file (every write of new-game goes through here)."""
    path.write_text(text, encoding="utf-8")


class Undo:
    """The files new-game writes, each kept as it was before its first
    write (None: absent), to put them back byte for byte if anything fails;
    ``folder``, the new game's, did not exist and is removed whole."""

    def __init__(self, root: pathlib.Path, folder: pathlib.Path):
        self.root, self.folder = root, folder
        self.saved: dict[pathlib.Path, bytes | None] = {}

    def keep(self, paths: list[pathlib.Path]) -> None:
        """Keep the files ``paths`` as they are now (each once: its first state)."""
        for path in paths:
            if path not in self.saved:
                self.saved[path] = path.read_bytes() if path.exists() else None

    def write(self, path: pathlib.Path, text: str) -> None:
        self.keep([path])
        path.parent.mkdir(parents=True, exist_ok=True)
        _write(path, text)

    def restore(self) -> list[str]:
        """Put every file back; returns those that could not be (none, unless the disk fails us)."""
        left = []
        for path, data in reversed(self.saved.items()):
            try:
                if data is None:
                    path.unlink(missing_ok=True)
                elif not path.is_file() or path.read_bytes() != data:
                    path.write_bytes(data)
            except OSError:
                left.append(str(path.relative_to(self.root)))
        shutil.rmtree(self.folder, ignore_errors=True)
        return left


def _generated_docs(root: pathlib.Path) -> dict[pathlib.Path, str]:
    """The pages ``make docs``'s generator (``tools/gen_docs.py --json``)
    would rewrite, with their new text; it runs in a new process (this
    one's registry was read before the game existed) and writes nothing:
    new-game writes them, so it can put them back."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, str(root / "tools" / "gen_docs.py"), "--json"],
        cwd=root, env=env, capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        last = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()[-1]
        raise NameError_(f"tools/gen_docs.py failed on the new game, nothing kept: {last}")
    try:
        pages = json.loads(done.stdout.strip().splitlines()[-1])
        out = {(root / rel).resolve(): text for rel, text in pages.items() if isinstance(text, str)}
    except (ValueError, IndexError, TypeError, AttributeError):
        raise NameError_("tools/gen_docs.py --json did not print the pages as {path: text}, nothing kept") from None
    outside = [str(p) for p in out if not p.is_relative_to(root.resolve()) or not p.is_file() or p.suffix != ".md"]
    if outside or len(out) != len(pages):
        raise NameError_(f"tools/gen_docs.py --json named files that are not docs pages: {outside}, nothing kept")
    return out


def cmd_new_game(args: argparse.Namespace) -> int:
    name = args.name
    title = args.title or title_of(name)
    try:
        written = make_game(name, title, ROOT, taken=list(args.commands))
    except NameError_ as refusal:
        sys.stderr.write(f"cardenvs new-game: {refusal}\n")
        return 2
    except NotMadeError as failure:
        sys.stderr.write(f"cardenvs new-game: {failure}\n")
        return 1
    folder = ROOT / "cardenvs" / "games" / name
    print(f"made {name}_v0 ({title}), a copy of the template game {TEMPLATE_TITLE}:")
    print(f"  {folder.relative_to(ROOT)}/ ({sum(p.is_relative_to(folder) for p in written)} files)")
    print(f"  docs/{name}.md")
    print(f'  cardenvs/registry.py: "{name}" added to GAME_FOLDERS')
    print("  README.md, docs/index.md: the generated games tables (tools/gen_docs.py, as `make docs`)")
    print(f"It plays {TEMPLATE_TITLE} until you change its rules, and passes every test as it is.")
    print(NEXT.format(name=name), end="")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The ``new-game`` command of :mod:`cardenvs.app.cli`."""
    sp = sub.add_parser(
        "new-game",
        help="start a new game: a renamed copy of the template game (from a source checkout)",
        description=__doc__.split("\n\n")[0].replace("``", "").rstrip(".")
        + ". Writes cardenvs/games/NAME/, docs/NAME.md and NAME's line in cardenvs/registry.py, then says what "
        "to edit next. Run it in a source checkout (an installed package cannot add games to itself).",
    )
    sp.add_argument("name", help="the game's folder name, e.g. card_duel (the game is then card_duel_v0)")
    sp.add_argument("--title", help="its name in prose (default: from NAME, e.g. Card Duel)")
    # (the commands' names, as the parser has them when the command runs: names a game may not take)
    sp.set_defaults(func=cmd_new_game, commands=sub.choices)
