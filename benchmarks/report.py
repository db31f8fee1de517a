"""Machine-readable results of the benchmarks: every script's ``--json``.

A results file is one JSON object: the benchmark's name and command, the
commit, the date, the Python and the machine it ran on (CPUs, the load
average beside it), and ``results``, a list of flat records (one per row of
the script's table).  ``--json`` alone writes ``benchmarks/results/<name>.json``,
from which ``tools/gen_results.py`` writes ``docs/results.md``: the one place
the documentation takes figures from.

A file also says how it was run: ``mode`` ("quick" or "full") and, for a
quick run, its ``budget`` (what it measured less of), as ``make results``
sets them (``tools/make_results.py``: the environment variables
:data:`MODE_VARIABLE` and :data:`BUDGET_VARIABLE`); a run by hand with the
benchmark's defaults is a full one.  The command is recorded as a user runs
it from the repository's root: a path in it is written relative to the
root (:func:`portable`), never as a folder of the machine that ran it.
"""

from __future__ import annotations

import json
import os
import pathlib
import platform
import re
import shlex
import subprocess
import sys
import time
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
MODE_VARIABLE, BUDGET_VARIABLE = "CARDENVS_RESULTS_MODE", "CARDENVS_RESULTS_BUDGET"


def cpu_model() -> str:
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def portable(text: str) -> str:
    """``text`` (a command-line argument, or a path) with every absolute
    path in it written relative to the repository's root, which is where
    the recorded commands run from: ``/x/repo/runs/a`` is ``runs/a``, a path
    outside the root ``../a``-style.  Paths are found whole, as the parts
    of a comma-separated list or of ``KEY=PATH``, and after an agent spec's
    ``KIND:`` (``mlp:/x/policy.json``)."""

    def one(part: str) -> str:
        kind, _, rest = part.rpartition(":") if re.match(r"[\w.-]+:/", part) else ("", "", part)
        if not os.path.isabs(rest):
            return part
        return (kind + ":" if kind else "") + os.path.relpath(rest, ROOT)

    return ",".join("=".join(one(p) for p in item.split("=")) for item in text.split(","))


def command(script: str, argv: list[str]) -> str:
    """The command line of a run, as typed from the repository's root."""
    return " ".join(shlex.quote(portable(a)) for a in ["python", script, *argv])


def how_run() -> dict[str, Any]:
    """``mode`` and (quick runs) ``budget``, from ``make results``'s environment."""
    mode = os.environ.get(MODE_VARIABLE) or "full"
    budget = os.environ.get(BUDGET_VARIABLE)
    return {"mode": mode, **({"budget": budget} if budget and mode == "quick" else {})}


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
    argv: list[str] | None = None,
    **extra: Any,
) -> None:
    """Write ``results`` (flat records) with the commit and the machine
    (``info``: :func:`machine` as it was when the run started; default now).
    ``script``: the script that ran, when it is not ``benchmarks/<name>.py``;
    ``argv``: its arguments, when they are not ``sys.argv[1:]``."""
    document = {
        "benchmark": name,
        "command": command(script or f"benchmarks/{name}.py", sys.argv[1:] if argv is None else argv),
        **how_run(),
        **(info or machine()),
        **extra,
        "results": results,
    }
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1, default=float) + "\n")
    print(f"wrote {path}")
