"""Checks that read the project's checkout beside the package (skipped in an
installed copy): the game's docs page in sync with the code, and its golden
playthroughs (``tests/playthroughs/``) replayed."""

from __future__ import annotations

import ast
import importlib.util
import pathlib
import re
import sys
from types import ModuleType
from typing import Any

import cardenvs
from cardenvs.core.options import rules_defaults
from cardenvs.registry import load, rules_class

from .report import Case, CheckFailed, Skip

ROOT = pathlib.Path(cardenvs.__file__).resolve().parents[1]
HOW = "if play is meant to change, regenerate with `python tests/playthroughs.py NAME` and say what changed"


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


def codes(cell: str) -> list[str]:
    """The `code` spans of a table cell."""
    return re.findall(r"`([^`]+)`", cell)


def _from_checkout(relative: str, what: str) -> pathlib.Path:
    path = ROOT / relative
    if not path.exists():
        raise Skip(f"{relative} is not beside the package (an installed copy?): {what} not checked")
    return path


def _module_at(path: pathlib.Path, name: str) -> ModuleType:
    """The module in file ``path`` (imported once, as ``name``)."""
    if name not in sys.modules:
        found = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(found)
        sys.modules[name] = module
        found.loader.exec_module(module)
    return sys.modules[name]


def docs_tables(case: Case) -> None:
    """The game's docs page (``GameSpec.doc``): its generated observation and
    state tables are the layouts' (``tools/gen_docs.py``), its config table
    lists exactly the options and defaults of the code, its first action
    table's ids and texts round-trip, and each layout covers its observation."""
    page_path = _from_checkout(case.spec.doc, "the docs page")
    page = page_path.read_text()
    gen_docs = _module_at(_from_checkout("tools/gen_docs.py", "the generated tables"), "_cardenvs_gen_docs")
    stale = gen_docs.pages().get(page_path)
    case.expect(stale is None or stale == page, f"{case.spec.doc}: generated tables out of date (run `make docs`)")
    _config_table(case, page)
    _action_table(case, page)
    for path in case.spec.layouts + case.spec.state_layouts:
        layout = load(path)
        covered = sorted(i for f in layout for i in range(f.offset, f.stop))
        case.expect(covered == list(range(layout.size)), f"{path} does not cover its {layout.size} entries once each")


def _config_table(case: Case, page: str) -> None:
    rows = [row for rows in tables(page, "| option | default | allowed |") for row in rows]
    case.expect(rows, f"{case.spec.doc}: no config table")
    documented = {codes(r[0])[0]: ast.literal_eval(codes(r[1])[0]) for r in rows}
    code = {**rules_defaults(rules_class(case.game)), "render_mode": None, "illegal_action": "raise", "obs_dtype": None}
    only_docs, only_code = sorted(set(documented) - set(code)), sorted(set(code) - set(documented))
    case.expect(not only_docs and not only_code, f"options differ: docs only {only_docs}, code only {only_code}")
    for name, default in documented.items():
        want = list(code[name]) if isinstance(code[name], tuple) else code[name]
        got = list(default) if isinstance(default, tuple) else default
        case.expect(got == want, f"{name}: documented default {default!r}, code {code[name]!r}")


def _action_table(case: Case, page: str) -> None:
    """The first ``| id | text |`` table: the default config's action ids."""
    found = tables(page, "| id | text |")
    case.expect(found, f"{case.spec.doc}: no action table")
    env = cardenvs.make(case.game).unwrapped
    checked = 0
    for ids, text in found[0]:
        texts = codes(text)
        if not texts or not re.fullmatch(r"\d+(\.\.\d+)?", ids.strip()):
            continue  # rows given by formula
        numbers = [int(x) for x in ids.split("..")]
        for t, n in ((texts[0], numbers[0]), (texts[-1], numbers[-1])):
            case.expect(env.str_to_action(t) == n, f"action table: `{t}` is not action {n}")
            case.expect(env.action_to_str(n) == t, f"action table: action {n} is not `{t}`")
        checked += 1
    case.expect(checked >= 2, "too few action rows checked")


def playthroughs(case: Case) -> None:
    """Every recorded playthrough of the game (``tests/playthroughs.py``) is
    played again through the AEC (parallel) env and replayed through the
    vector engine, and both match the file line for line (the step is the
    file's line)."""
    module: Any = _module_at(_from_checkout("tests/playthroughs.py", "the playthroughs"), "_cardenvs_playthroughs")
    mine = sorted(name for name, (game, _, _) in module.PLAYTHROUGHS.items() if game == case.game)
    if not mine:
        raise CheckFailed(f"no playthrough of {case.game} in tests/playthroughs.py (add one and record it)")
    for name in mine:
        case.at(module.PLAYTHROUGHS[name][2], None)
        path = module.path_of(name)
        case.expect(path.exists(), f"{path.name} not recorded (`python tests/playthroughs.py {name}`)")
        recorded = path.read_text().splitlines()
        played = module.playthrough(name)
        for lineno, (want, got) in enumerate(zip(recorded, played), start=1):
            case.step = lineno
            case.expect(got == want, f"{path.name}:{lineno} differs ({HOW})\n want {want[:300]}\n got  {got[:300]}")
        case.step = None
        case.expect(len(played) == len(recorded), f"{path.name}: {len(played)} lines, recorded {len(recorded)} ({HOW})")
        try:
            module.replay_in_vector_engine(name, recorded)
        except AssertionError as failure:
            raise CheckFailed(f"vector engine: {failure}") from None
