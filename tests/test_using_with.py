"""Every ```python snippet of docs/using-with.md runs as it is, from the
repository root, with a tiny CARDENVS_DOC_STEPS (each in its own process;
a snippet whose tool is not installed is skipped)."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "using-with.md"
TOOLS = {"sb3_contrib": "sb3-contrib", "stable_baselines3": "stable-baselines3", "tianshou": "tianshou"}
TOOLS.update(supersuit="supersuit", torch="torch", torchrl="torchrl", tensordict="tensordict", benchmarl="benchmarl")


def snippets() -> list[tuple[str, str]]:
    """(id, code) of every python block: the id is its section's title and
    its number within the section."""
    found, section, count = [], "intro", 0
    for part in re.split(r"(^## [^\n]*$|^```python\n.*?^```$)", DOC.read_text(), flags=re.M | re.S):
        if part.startswith("## "):
            section, count = re.sub(r"\W+", "-", part[3:]).strip("-").lower(), 0
        elif part.startswith("```python"):
            count += 1
            found.append((f"{section}-{count}", part.removeprefix("```python\n").removesuffix("```")))
    return found


SNIPPETS = snippets()


def test_the_page_has_a_snippet_for_each_tool():
    sections = {name.rsplit("-", 1)[0] for name, _ in SNIPPETS}
    for tool in ("pettingzoo", "stable-baselines3", "tianshou", "supersuit", "gymnasium", "cleanrl", "torchrl"):
        assert any(tool in s for s in sections), (tool, sections)


def test_the_compatibility_table_has_a_row_for_each_tool():
    """Issue #34's list: each tool's row says what works and what does not."""
    page = DOC.read_text()
    table = page[page.index("## Compatibility") :].split("\n## ", 1)[0]
    rows = [line.split(" | ") for line in table.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert all(len(row) == 4 for row in rows), rows
    tools = " ".join(row[0] for row in rows)
    for tool in ("api_test", "seed_test", "parallel_seed_test", "max_cycles_test", "Gymnasium `check_env`"):
        assert tool in tools, tool
    for tool in ("SB3 `check_env`", "Gymnasium vector wrappers", "SuperSuit", "Tianshou", "RLlib", "CleanRL"):
        assert tool in tools, tool
    for tool in ("TorchRL", "BenchMARL"):
        assert tool in tools, tool


@pytest.mark.parametrize("code", [c for _, c in SNIPPETS], ids=[n for n, _ in SNIPPETS])
def test_snippet_runs(code, tmp_path):
    for module, package in TOOLS.items():
        if re.search(rf"^(from|import) {module}\b", code, re.M) and importlib.util.find_spec(module) is None:
            pytest.skip(f"{package} is not installed (the dev/train/torchrl extras; BenchMARL: a venv of its own)")
    if "examples/selfplay_ppo.py" in code and importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed (the train extra)")
    env = dict(os.environ, CARDENVS_DOC_STEPS="256", PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", MPLBACKEND="Agg")
    script = tmp_path / "snippet.py"
    script.write_text(code)
    out = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-4000:]
