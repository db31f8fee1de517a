"""Machine-readable results of the benchmarks: every script's ``--json``.

A results file is one JSON object: the benchmark's name and command, the
commit, the date, the Python and the machine it ran on (CPUs, the load
average beside it), and ``results``, a list of flat records (one per row of
the script's table).  ``--json`` alone writes ``benchmarks/results/<name>.json``,
from which ``tools/gen_results.py`` writes ``docs/results.md``: the one place
the documentation takes figures from.
"""

from __future__ import annotations

import json
import os
import pathlib
import platform
import shlex
import subprocess
import sys
import time
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def cpu_model() -> str:
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict[str, Any]:
    """The commit, the date and the machine, as every results file has them."""
    git = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    dirty = subprocess.run(["git", "status", "--porcelain", "cardenvs"], capture_output=True, text=True, cwd=ROOT)
    return {
        "commit": git.stdout.strip() or None,
        "uncommitted_changes": bool(dirty.stdout.strip()),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu": cpu_model(),
        "cpus": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def default_path(name: str) -> str:
    """Where ``--json`` alone writes: ``benchmarks/results/<name>.json`` (a
    benchmark whose runs differ by more than their settings, as PIMC's
    matches do, names a file per run: ``<benchmark>-<run>.json``)."""
    return str(RESULTS / f"{name}.json")


def add_json_option(parser: Any, name: str) -> None:
    """``--json [PATH]``: write the results there (alone: the default file)."""
    parser.add_argument(
        "--json",
        nargs="?",
        const=default_path(name),
        default=None,
        metavar="PATH",
        help=f"also write the results as JSON, with the commit and the machine (alone: benchmarks/results/{name}.json)",
    )


def write(
    path: str | os.PathLike,
    name: str,
    results: list[dict[str, Any]],
    info: dict | None = None,
    script: str | None = None,
    **extra: Any,
) -> None:
    """Write ``results`` (flat records) with the commit and the machine
    (``info``: :func:`machine` as it was when the run started; default now).
    ``script``: the script that ran, when it is not ``benchmarks/<name>.py``."""
    document = {
        "benchmark": name,
        "command": " ".join(shlex.quote(a) for a in ["python", script or f"benchmarks/{name}.py", *sys.argv[1:]]),
        **(info or machine()),
        **extra,
        "results": results,
    }
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1, default=float) + "\n")
    print(f"wrote {path}")
