"""The README is a short guide: every python block runs as it is (training
cut to a few steps by CARDENVS_DOC_STEPS), each in its own process and
folder; every `make` target it names exists; it quotes no measured figure
(those live in docs/results.md, the league's ratings in docs/league.md)."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"^```python\n(.*?)^```$", README, re.M | re.S)
#: A block that imports one of these needs its extra (installed by `make test`).
EXTRAS = {"sb3_contrib": "train", "ray": "rllib", "cardenvs.integrations.rllib": "rllib"}


def test_the_readme_is_a_short_guide():
    assert len(README.splitlines()) <= 210
    # the league's generated tables live on their docs page (benchmarks/league/run.py writes it), linked from here
    assert "(docs/league.md)" in README and "| agent | rating |" not in README and "league:start" not in README
    assert len(BLOCKS) >= 5  # one game, the vector engine, training, rating, another tool


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block-{i}" for i in range(len(BLOCKS))])
def test_readme_block_runs(code, tmp_path):
    for module, extra in EXTRAS.items():
        if re.search(rf"^(from|import) {re.escape(module)}\b", code, re.M):
            root = module.split(".")[0] if module != "cardenvs.integrations.rllib" else "ray"
            if importlib.util.find_spec(root) is None:
                pytest.skip(f"needs the {extra} extra")
    env = dict(os.environ, CARDENVS_DOC_STEPS="256", PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", MPLBACKEND="Agg")
    script = tmp_path / "block.py"
    script.write_text(code)
    out = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-4000:]


def test_every_make_target_named_exists():
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([\w-]+):", makefile, re.M))
    named = set(re.findall(r"`?make ([\w-]+)", README))
    assert named and named <= targets, named - targets


def test_no_measured_figure():
    figures = [m.group(0) for m in re.finditer(r"\d+(\.\d+)?%", README) if m.group(0) != "95%"]  # (a 95% interval)
    assert not figures
    assert "results.txt" not in README
