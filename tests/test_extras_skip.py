"""A test file that needs an optional extra skips, with the reason, where
the extra is not installed, rather than failing at collection: here
tests/test_docs_site.py without Griffe (the ``docs`` extra), run in a
real pytest process whose ``griffe`` cannot be imported."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_the_docs_site_tests_skip_without_the_docs_extra(tmp_path):
    hidden = 'raise ModuleNotFoundError("No module named \'griffe\' (the test hides it)", name="griffe")\n'
    (tmp_path / "griffe.py").write_text(hidden)  # (as an absent module fails)
    path = os.pathsep.join([str(tmp_path), str(ROOT)])  # (the hidden griffe first)
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "tests/test_docs_site.py"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 5, ran.stdout[-2000:] + ran.stderr[-2000:]  # (pytest's "no test ran": all skipped)
    assert "error" not in ran.stdout.lower(), ran.stdout[-2000:]
    assert "1 skipped" in ran.stdout and "the docs extra is not installed" in ran.stdout, ran.stdout[-2000:]
