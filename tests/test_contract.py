"""The public contract check from ../shared (skipped when it is absent)."""

import pathlib
import subprocess
import sys

import pytest

import cardenvs.registry

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHECK = ROOT.parent / "shared" / "checks" / "contract.py"
GAMES = list(cardenvs.registry.GAMES)


@pytest.mark.skipif(not CHECK.exists(), reason="../shared/checks/contract.py not present beside the project")
@pytest.mark.parametrize("game", GAMES)
def test_contract(game):
    out = subprocess.run(
        [sys.executable, str(CHECK), "--quick", game], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    if out.stdout.startswith(f"SKIP {game}"):  # (a game the contract does not name, e.g. the template)
        pytest.skip(out.stdout.splitlines()[0])
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert " 0 failed" in out.stdout.strip().splitlines()[-1]
