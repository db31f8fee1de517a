"""Module names that stand for other modules, by an import hook
(installed by ``cardenvs/__init__.py``):

- ``cardenvs.<name>``, for every game of the registry (``cardenvs.pepper_v0``):
  the game's env module, ``cardenvs.games.<folder>.env``, so a new game
  needs no file outside its folder;
- the paths of the modules moved into the game folders (``cardenvs.pepper``
  and its modules, ``cardenvs.agents.pepper``, ``cardenvs.search.push``, ...),
  into the renderer (``cardenvs.table.canvas`` -> ``cardenvs.render.canvas``,
  ...), into the application (``cardenvs.table`` -> ``cardenvs.app``,
  ``cardenvs.cli`` -> ``cardenvs.app.cli``, ...) and into the vector view
  (``cardenvs.seat_rewards`` -> ``cardenvs.vector.seat_rewards``):
  :data:`MOVED`, listed in CHANGELOG.md, kept for users' imports, for what
  was pickled under them and for ``python -m cardenvs.cli``.

An alias yields the very module object of the new path (``import
cardenvs.pepper.rules`` is ``cardenvs.games.pepper.rules``), not a copy: a
class has one identity and pickles under its new name, and numba compiles
and caches its kernels once.  The hook comes first among the finders, so a
stale folder left by an older checkout (``cardenvs/pepper/__pycache__``)
can never be imported in a moved module's place."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
from typing import Any

_GAMES = ("pepper", "cancellation_hearts", "push", "spit")

#: Old module path -> new one; an old path's submodules follow its package
#: (``cardenvs.speed.rules`` -> ``cardenvs.games.spit.speed.rules``).
MOVED: dict[str, str] = {
    **{f"cardenvs.{g}": f"cardenvs.games.{g}" for g in _GAMES},
    "cardenvs.speed": "cardenvs.games.spit.speed",
    "cardenvs.speed.env": "cardenvs.games.spit.env",  # (was a placeholder naming Spit's env, Speed's too)
    **{f"cardenvs.agents.{g}": f"cardenvs.games.{g}.agent" for g in _GAMES},
    **{f"cardenvs.search.{g}": f"cardenvs.games.{g}.sampler" for g in _GAMES},
    "cardenvs.search.push_turn": "cardenvs.games.push.push_turn",
    # the base classes and machinery game folders build on, moved into core (a game imports only core)
    "cardenvs.agents.base": "cardenvs.core.agent",
    **{f"cardenvs.search.{m}": f"cardenvs.core.sampling.{m}" for m in ("base", "streams", "worlds")},
    # the renderer, split from the application (cardenvs.table) into cardenvs.render
    # (exact entries: they win over cardenvs.table's, below)
    **{f"cardenvs.table.{m}": f"cardenvs.render.{m}" for m in ("canvas", "svg_backend", "rgb_backend")},
    # the package's top level: the application in cardenvs.app, the vector view in cardenvs.vector
    "cardenvs.table": "cardenvs.app",
    **{f"cardenvs.{m}": f"cardenvs.app.{m}" for m in ("cli", "arena", "new_game")},
    "cardenvs.seat_rewards": "cardenvs.vector.seat_rewards",
}


def target(name: str) -> str | None:
    """The module that module name ``name`` stands for, or None when it is
    no alias."""
    if not name.startswith("cardenvs.") or name.startswith("cardenvs.games."):
        return None
    if name in MOVED:
        return MOVED[name]
    head = name.rpartition(".")[0]
    while head:
        if head in MOVED:
            return f"{MOVED[head]}.{name[len(head) + 1 :]}"
        head = head.rpartition(".")[0]
    # (the registry is imported by cardenvs/__init__.py before any game can be asked for)
    registry = sys.modules.get("cardenvs.registry")
    if name.count(".") == 1 and registry is not None:
        found = getattr(registry, "GAMES", {}).get(name.partition(".")[2])
        if found is not None:
            return found.env_module
    return None


class AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds each alias (:func:`target`) and loads it as the module it
    stands for (imported first, if it is not yet)."""

    def __init__(self) -> None:
        self._specs: dict[str, Any] = {}

    def find_spec(self, fullname: str, path: Any = None, target_module: Any = None) -> Any:
        real = target(fullname)
        if real is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, origin=real)

    def create_module(self, spec: Any) -> ModuleType:
        module = importlib.import_module(spec.origin)
        self._specs[spec.name] = module.__spec__  # (the import system sets the alias's spec on it: put back in exec)
        return module

    def exec_module(self, module: ModuleType) -> None:
        for name, real_spec in list(self._specs.items()):
            if real_spec is not None and real_spec.name == module.__name__:
                module.__spec__ = real_spec
                del self._specs[name]

    def get_code(self, fullname: str) -> Any:
        """``python -m OLD.PATH`` (``python -m cardenvs.cli``): runpy runs
        the code the loader gives, under the old name; this code runs the new
        path's module as ``__main__`` instead, so its relative imports,
        ``__file__`` and ``sys.argv[0]`` are its own."""
        real = target(fullname)
        if real is None:
            raise ImportError(f"{fullname} is no alias", name=fullname)
        spec = importlib.util.find_spec(real)
        package = spec is not None and spec.submodule_search_locations is not None
        if package and importlib.util.find_spec(f"{real}.__main__") is None:  # (runpy prints it in one line)
            raise ImportError(f"{fullname} is the package {real}, which has no __main__ and cannot be run")
        source = f"import runpy\nrunpy.run_module({real!r}, run_name='__main__', alter_sys=True)\n"
        return compile(source, f"<{fullname}: an alias of {real}>", "exec")


def install() -> None:
    """Put the hook first among the finders (once)."""
    if not any(isinstance(f, AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, AliasFinder())
