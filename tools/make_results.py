"""Regenerate docs/results.md from the benchmarks, on this commit and machine (``make results``).

    python tools/make_results.py                 # the quick runs (about half an hour on 2 cores), then the page
    python tools/make_results.py --full          # every run at its full size, the long ones too (hours)
    python tools/make_results.py --only throughput,agents    # these jobs (their quick commands; --full: full)
    python tools/make_results.py --list          # what would run, and what it writes; nothing is run

The jobs and their commands are ``tools/results_plan.py``.  Each runs from
the repository's root with this checkout first on the path, and records in
its results file whether it was a quick run, and with what budget
(``benchmarks/report.py``).  Without ``--full`` the long runs (training
seeds, PIMC matches, the reference table) are not run: their tables are
re-rendered from the files their last runs wrote.  A job that fails is
reported and the others go on (its old file, if any, stays, with its own
commit and date); the exit status is 1 if any failed.  Then
``tools/gen_results.py`` writes the page.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import time

TOOLS = pathlib.Path(__file__).resolve().parent
ROOT = TOOLS.parent
sys.path[:0] = [str(TOOLS), str(ROOT / "benchmarks")]

import report  # noqa: E402  (benchmarks/report.py: the variables a results file's mode is read from)
from results_plan import PLAN, Job, shell  # noqa: E402


def chosen(only: str | None, full: bool) -> list[Job]:
    """The jobs to run: ``only``'s (comma-separated names), else every job
    this mode runs; SystemExit naming an unknown job."""
    if only is None:
        return [job for job in PLAN if job.command(full) is not None]
    names = [n for n in only.split(",") if n]
    known = {job.name: job for job in PLAN}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"make_results: unknown job(s) {unknown}; `--list` names them")
    jobs = [known[n] for n in names]
    if not full and (long := [job.name for job in jobs if job.command(False) is None]):
        raise SystemExit(f"make_results: {long} run only with --full (long runs)")
    return jobs


def environment(job: Job, full: bool) -> dict[str, str]:
    """This checkout first on the path; the run's mode and quick budget for its results file."""
    env = dict(os.environ, MPLBACKEND="Agg")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    env[report.MODE_VARIABLE] = job.mode(full)
    env.pop(report.BUDGET_VARIABLE, None)
    if job.mode(full) == "quick" and job.budget:
        env[report.BUDGET_VARIABLE] = job.budget
    return env


def run(jobs: list[Job], full: bool) -> list[tuple[Job, float, int]]:
    """Each job in turn: (job, wall seconds, exit status)."""
    done = []
    for k, job in enumerate(jobs, 1):
        command = job.command(full)
        assert command is not None
        print(f"\n== [{k}/{len(jobs)}] {job.name} ({job.mode(full)}): {shell(command)}", flush=True)
        start = time.perf_counter()
        status = subprocess.run([sys.executable, *command], cwd=ROOT, env=environment(job, full)).returncode
        done.append((job, time.perf_counter() - start, status))
        print(f"== {job.name}: {'done' if status == 0 else f'FAILED (exit {status})'} in {done[-1][1]:.0f} s")
    return done


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--full", action="store_true", help="the full runs, long ones included (make results FULL=1)")
    p.add_argument("--only", default=None, metavar="JOBS", help="comma-separated job names (see --list)")
    p.add_argument("--list", action="store_true", help="print the jobs, their commands and files; run nothing")
    args = p.parse_args(argv)
    jobs = chosen(args.only, args.full)
    if args.list:
        for job in PLAN:
            command = job.command(args.full)
            what = shell(command) if command else "(long: --full only)"
            print(f"{job.name:44} {job.mode(args.full):5}  {what}  -> {', '.join(job.outputs) or 'runs/'}")
        return 0
    start = time.perf_counter()
    done = run(jobs, args.full)
    total = time.perf_counter() - start
    print("\n== make results: wall time per job")
    for job, seconds, status in done:
        print(f"  {job.name:44} {seconds:7.0f} s{'' if status == 0 else f'  FAILED (exit {status})'}")
    print(f"  {'all':44} {total:7.0f} s ({total / 60:.1f} min)", flush=True)
    page = subprocess.run([sys.executable, str(TOOLS / "gen_results.py")], cwd=ROOT).returncode
    failed = [job.name for job, _, status in done if status]
    if failed:
        print(f"make results: {len(failed)} job(s) failed: {', '.join(failed)} (their old files stay)")
    return 1 if failed or page else 0


if __name__ == "__main__":
    sys.exit(main())
