"""The layers: the renderer (cardenvs/render/) sits beside core and imports
nothing of the package but core and itself; a game folder imports only
core, the renderer and itself; the application (cardenvs/app/) sits on
top, imported by no other part, and the old renderer paths under its old
name (``cardenvs.table.canvas``, ...) are aliases of the renderer's modules."""

from __future__ import annotations

import ast
import importlib
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _imports(path: pathlib.Path) -> set[str]:
    """The cardenvs modules ``path`` imports (relative imports resolved), anywhere in it."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    if path.name == "__init__.py":
        package = ".".join(path.relative_to(ROOT).parts[:-1])
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                out.add(".".join(base + ([node.module] if node.module else [])))
            else:
                out.add(node.module or "")
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m.startswith("cardenvs")}


def test_the_renderer_imports_only_core_and_itself():
    files = sorted((ROOT / "cardenvs" / "render").glob("*.py"))
    assert files
    for path in files:
        for module in _imports(path):
            assert module.startswith(("cardenvs.render", "cardenvs.core")), f"{path.name} imports {module}"


def test_game_folders_import_only_core_the_renderer_and_themselves():
    games = ROOT / "cardenvs" / "games"
    for path in sorted(games.rglob("*.py")):
        if path.name.startswith(("test_", "conftest")):
            continue  # (a game's own tests use the public API, as users do)
        folder = path.relative_to(games).parts[0]
        own = ("cardenvs.games" if folder == "__init__.py" else f"cardenvs.games.{folder}",)
        for module in _imports(path):
            assert module.startswith(("cardenvs.core", "cardenvs.render", *own)), f"{path} imports {module}"


def test_no_other_part_imports_the_application():
    package = ROOT / "cardenvs"
    for path in sorted(package.rglob("*.py")):
        if path.relative_to(package).parts[0] == "app" or path.name.startswith(("test_", "conftest")):
            continue
        imported = {m for m in _imports(path) if m == "cardenvs.app" or m.startswith("cardenvs.app.")}
        # (cardenvs/__init__.py's picture maker, imported on first use: render_mode="rgb_array")
        allowed = {"cardenvs.app"} if path == package / "__init__.py" else set()
        assert imported <= allowed, f"{path.relative_to(ROOT)} imports {imported}"


def test_the_old_renderer_paths_are_the_renderer_modules():
    import cardenvs.app
    import cardenvs.table

    assert cardenvs.table is cardenvs.app  # (the application's old name: its renderer entries still win)
    for name in ("canvas", "svg_backend", "rgb_backend"):
        assert importlib.import_module(f"cardenvs.table.{name}") is importlib.import_module(f"cardenvs.render.{name}")
    from cardenvs.app import games
    from cardenvs.render import parts

    assert games.header is parts.header and games.generic is parts.generic
