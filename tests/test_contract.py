"""The public contract check from ../shared (skipped when it is absent)."""

import pathlib
import subprocess
import sys

import pytest

import cardenvs.registry

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHECK = ROOT.parent / "shared" / "checks" / "contract.py"
GAMES = list(cardenvs.registry.GAMES)


def implemented(game: str) -> bool:
    return (ROOT / "cardenvs" / f"{game}.py").exists()


@pytest.mark.skipif(not CHECK.exists(), reason="../shared/checks/contract.py not present beside the project")
@pytest.mark.parametrize("game", GAMES)
def test_contract(game):
    if not implemented(game):
        pytest.skip(f"cardenvs/{game}.py not written yet")
    out = subprocess.run(
        [sys.executable, str(CHECK), "--quick", game], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert " 0 failed" in out.stdout.strip().splitlines()[-1]
