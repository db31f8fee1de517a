"""The three packages of agent code stand in layers, read from their imports
(parsed, nothing imported): ``cardenvs.agents`` at the bottom (the agents
and the files they load from), ``cardenvs.evaluation`` above it (matches,
duplicate, leagues, ratings, comparisons), ``cardenvs.training`` on top
(the learner envs and the learners, which evaluate as they train).  A
package imports only from the layers below it, and its modules import each
other in no circle.  Every import counts, a function's deferred one too."""

from __future__ import annotations

import ast
import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: bottom first: a package may import the ones before it, never one after it
LAYERS = ("agents", "evaluation", "training")


def module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(source: str, module: str, is_package: bool) -> set[str]:
    """The cardenvs modules that ``source`` (module ``module``) imports: ``from
    x import y`` counts ``x``, and ``x.y`` too where that is a module of the
    tree (relative imports resolved)."""
    package = module if is_package else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source_module = ".".join(base + ([node.module] if node.module else []))
            else:
                source_module = node.module or ""
            found.add(source_module)
            found |= {f"{source_module}.{alias.name}" for alias in node.names}
    return {m for m in found if m.startswith("cardenvs")}


def graph(sources: dict[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """Module -> the modules of ``sources`` it imports (itself left out)."""
    return {
        module: {m for m in imports_of(text, module, is_package) if m in sources and m != module}
        for module, (text, is_package) in sources.items()
    }


def layer_of(module: str) -> int | None:
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else None


def back_imports(edges: dict[str, set[str]]) -> list[str]:
    """``a -> b`` for every import from a lower layer into a higher one."""
    return sorted(
        f"{a} -> {b}"
        for a, targets in edges.items()
        for b in targets
        if layer_of(a) is not None and layer_of(b) is not None and layer_of(b) > layer_of(a)
    )


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def package_sources() -> dict[str, tuple[str, bool]]:
    out = {}
    for layer in LAYERS:
        for path in sorted((ROOT / "cardenvs" / layer).glob("*.py")):
            out[module_name(path)] = (path.read_text(), path.name == "__init__.py")
    return out


def test_the_three_packages_are_there():
    sources = package_sources()
    for layer in LAYERS:
        assert f"cardenvs.{layer}" in sources, f"cardenvs/{layer}/__init__.py"
    assert "cardenvs.agents.adaptor" in sources  # the general adaptor lives with the agents


def test_no_import_runs_back_up():
    """agents imports neither evaluation nor training; evaluation never imports training."""
    assert back_imports(graph(package_sources())) == []


def test_no_circle_of_imports():
    """No modules of the three packages import each other in a circle (a
    package's ``__init__`` included)."""
    assert circles(graph(package_sources())) == []


def test_the_layers_are_read():
    """The real imports are found: evaluation stands on agents, training on both."""
    edges = graph(package_sources())
    assert "cardenvs.agents.adaptor" in edges["cardenvs.evaluation.duplicate"]
    assert "cardenvs.evaluation.matches" in edges["cardenvs.training.ppo"]
    assert "cardenvs.agents.policy" in edges["cardenvs.training.ppo"]


@pytest.mark.parametrize(
    ("module", "line"),
    [
        ("cardenvs.agents.specs", "from ..evaluation.duplicate import play_duplicate"),
        ("cardenvs.agents.pimc", "    from cardenvs.training import learner_vec_env"),
        ("cardenvs.evaluation.matches", "from ..training.ppo import train"),
        ("cardenvs.agents.mlp", "import cardenvs.evaluation.leagues"),
        ("cardenvs.evaluation.ratings", "from ..training import ppo"),
    ],
)
def test_a_back_import_is_caught(module, line):
    sources = package_sources()
    text, is_package = sources[module]
    body = f"def later():\n{line}\n" if line.startswith(" ") else f"{line}\n"
    sources[module] = (text + "\n" + body, is_package)
    assert back_imports(graph(sources)), line


def test_a_circle_is_caught():
    sources = package_sources()
    text, is_package = sources["cardenvs.agents.adaptor"]
    sources["cardenvs.agents.adaptor"] = (text + "\nfrom .specs import agent_factory\n", is_package)
    assert ["cardenvs.agents.adaptor", "cardenvs.agents.specs"] in circles(graph(sources))


def test_the_packages_import_no_torch():
    """``import cardenvs.agents``, ``cardenvs.evaluation`` and ``cardenvs.training``
    import no torch (the ``train`` extra): what needs it is imported on first use."""
    code = (
        "import json, sys\n"
        "import cardenvs.agents, cardenvs.evaluation, cardenvs.training\n"
        "from cardenvs.evaluation import match, duplicate_match, league, compare\n"
        "print(json.dumps(sorted(m for m in ('torch', 'stable_baselines3', 'sb3_contrib') if m in sys.modules)))"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []
