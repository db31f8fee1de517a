"""A benchmark's settings and its results folder (:mod:`.comparison`): the
settings checked, the budget, ``DIR/compare.json`` written whole and read
back to resume -- every field of every recorded run checked, since a
results folder may come from anyone -- and the code identity of each
algorithm, so that a resumed comparison never mixes two versions of one.
Nothing here imports an algorithm."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import pathlib
import sys
import tempfile
from dataclasses import dataclass
from typing import Any

from ..core.messages import is_int, kind, show
from ..registry import GAMES
from .compare_score import ANCHOR, EVAL_SEED, MEASURE, OPPONENT, TRIVIAL, finite
from .run_dir import _replace, bounded, read_json

FORMAT, VERSION, RESULTS = "cardenvs-compare", 2, "compare.json"  # (2: the score on points, budgets in steps)
MAX_SEEDS, MAX_CURVE_POINTS, MAX_RESULTS = 1000, 100, 1 << 26
MAX_STEPS = 10**12
#: the largest score a run may record: far beyond any agent (the rule agent is 1), short of absurd
MAX_SCORE = 1e6
DEFAULT_STEPS = 200_000
#: the settings a resumed comparison must repeat, and the option each comes from
IDENTITY = {"algorithms": "--algorithms", "games": "--games", "seeds": "--seeds", "steps": "--steps"}
IDENTITY |= {"cpu_minutes": "--cpu-minutes", "deals": "--deals", "batch": "--batch", "reps": "--reps"}
IDENTITY |= {"curve_points": "--curve-points", "opponent": "the opponent", "anchor": "the anchor"}
IDENTITY |= {"reference_rows": "the reference rows", "measure": "the measure", "eval_seed": "the deals"}


class CompareError(ValueError):
    """Bad input to a comparison, or a results folder it cannot use (one line)."""


@dataclass(frozen=True)
class Budget:
    """A run's training budget: ``steps`` (engine steps x games, the
    learners' ``--total-steps``: a run replays) or ``cpu_minutes`` (every
    process of the run counted: :mod:`cardenvs.core.cpu`); exactly one is set."""

    steps: int | None = None
    cpu_minutes: float | None = None

    def text(self) -> str:
        return f"{self.steps:,} steps" if self.steps is not None else f"{self.cpu_minutes:g} CPU-minutes"


def budget_of(steps: Any, cpu_minutes: Any) -> Budget:
    """The budget the options give (``--steps`` by default, :data:`DEFAULT_STEPS`);
    CompareError naming the option for a bad one or for both."""
    if steps is not None and cpu_minutes is not None:
        raise CompareError("give one budget: --steps or --cpu-minutes, not both")
    if cpu_minutes is not None:
        if isinstance(cpu_minutes, bool) or not isinstance(cpu_minutes, (int, float)) or not 0 < cpu_minutes < 1e6:
            raise CompareError(f"--cpu-minutes must be a positive number of minutes, got {show(cpu_minutes)}")
        return Budget(cpu_minutes=float(cpu_minutes))
    steps = DEFAULT_STEPS if steps is None else steps
    if not is_int(steps) or not 1 <= steps <= MAX_STEPS:
        raise CompareError(f"--steps must be at least 1 and at most {MAX_STEPS}, got {kind(steps)} {show(steps)}")
    return Budget(steps=int(steps))


def settings(
    algorithms: Any, games: Any, seeds: Any, budget: Budget, deals: Any, batch: Any, reps: Any, curve_points: Any
) -> dict[str, Any]:
    """The comparison's settings, checked (CompareError naming the option)."""
    algorithms, games = list(algorithms), list(games)
    for what, items in (("--algorithms", algorithms), ("--games", games)):
        if not items or not all(isinstance(x, str) and x for x in items):
            raise CompareError(f"{what} must name at least one, got {show(items)}")
        if len(set(items)) != len(items):
            raise CompareError(f"{what} lists one twice: {show(items, 300)}")
    unknown = [g for g in games if g not in GAMES]
    if unknown:
        raise CompareError(f"unknown game {unknown[0]!r}: use one of {', '.join(GAMES)}")
    if not is_int(seeds) or not 1 <= seeds <= MAX_SEEDS:
        raise CompareError(f"--seeds must be at least 1 and at most {MAX_SEEDS}, got {kind(seeds)} {show(seeds)}")
    try:
        numbers = {"deals": bounded(deals, "--deals", "deals"), "batch": bounded(batch, "--batch", "batch")}
        numbers["reps"] = bounded(reps, "--reps", "resamples")
    except ValueError as e:
        raise CompareError(str(e)) from None
    if not is_int(curve_points) or not 0 <= curve_points <= MAX_CURVE_POINTS:
        raise CompareError(
            f"--curve-points must be at least 0 and at most {MAX_CURVE_POINTS}, got {show(curve_points)}"
        )
    numbers["curve_points"] = curve_points
    return {"algorithms": algorithms, "games": games, "seeds": seeds, "steps": budget.steps,
            "cpu_minutes": budget.cpu_minutes, **numbers, "opponent": OPPONENT, "anchor": ANCHOR,
            "reference_rows": list(TRIVIAL), "measure": MEASURE, "eval_seed": EVAL_SEED}  # fmt: skip


def check_out(out: pathlib.Path) -> None:
    """CompareError unless ``out`` can hold a comparison: a folder (or a new
    one) where files can be made, empty or holding a comparison already."""
    above = out
    while not (above.exists() or above.is_symlink()) and above != above.parent:
        above = above.parent
    if not above.is_dir() or above.is_symlink() and above == out:
        raise CompareError(f"--out {out} cannot be a folder: {above} is not a folder")
    try:  # (root may write where the permissions say no: ask the file system itself)
        pathlib.Path(tempfile.mkdtemp(prefix=".cardenvs-compare-", dir=above)).rmdir()
    except OSError as e:
        raise CompareError(f"--out {out}: cannot write in {above}: {e.strerror or e}") from None
    if above == out and any(out.iterdir()) and not (out / RESULTS).is_file():
        raise CompareError(f"--out {out} holds other files and no {RESULTS}: choose a new folder")


def recorded(out: pathlib.Path, wanted: dict[str, Any]) -> dict[str, Any]:
    """What ``out``'s results hold of this comparison: its finished runs and
    the code identities of its algorithms (nothing yet for a new folder);
    CompareError if they are another comparison's, naming the setting that
    differs, or not a file this library writes, or any field is malformed."""
    file = out / RESULTS
    if not (file.exists() or file.is_symlink()):
        return {"runs": [], "code": {}, "timing": []}
    if file.is_symlink():
        raise CompareError(f"{file} is a link: a comparison's folder holds its own files")
    try:
        doc = read_json(file, MAX_RESULTS)[1]
    except ValueError as e:
        raise CompareError(str(e)) from None
    return held_in(doc, wanted, out)


def held_in(doc: Any, wanted: dict[str, Any], out: pathlib.Path) -> dict[str, Any]:
    """What a comparison's document (``out``'s ``compare.json``, read or to be
    written) holds of this comparison, checked as :func:`recorded` says."""
    file = out / RESULTS
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("version") != VERSION:
        raise CompareError(f"{file} is not a comparison of this cardenvs ({FORMAT!r}, version {VERSION})")
    if not isinstance(doc.get("settings"), dict):
        raise CompareError(f"{file}: 'settings' must be an object, got {kind(doc.get('settings'))}")
    for key, option in IDENTITY.items():
        if doc["settings"].get(key) != wanted[key]:
            raise CompareError(
                f"--out {out} holds a comparison with {option} {show(doc['settings'].get(key), 200)}, not "
                f"{show(wanted[key], 200)}: resume it with the same settings, or choose another --out"
            )
    code = doc.get("code", {})
    if not isinstance(code, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in code.items()):
        raise CompareError(f"{file}: 'code' must map each algorithm to its code identity")
    runs = checked_runs(doc.get("runs"), wanted, file)
    return {"runs": runs, "code": code, "timing": checked_timing(doc.get("timing", []), runs, file)}


def checked_timing(timing: Any, runs: list[dict], file: pathlib.Path) -> list[dict]:
    """The recorded CPU of the recorded runs (one entry each at most)."""
    keys = {(r["algorithm"], r["game"], r["seed"]) for r in runs}
    if not isinstance(timing, list):
        raise CompareError(f"{file}: 'timing' must be a list")
    for entry in timing:
        ok = isinstance(entry, dict) and (entry.get("algorithm"), entry.get("game"), entry.get("seed")) in keys
        if not (ok and _number(entry.get("cpu_minutes"), low=0) and isinstance(entry.get("over_budget"), bool)):
            raise CompareError(f"{file}: a timing entry that is not one of a recorded run's: {show(entry)}")
    return timing


def checked_runs(runs: Any, wanted: dict[str, Any], file: pathlib.Path) -> list[dict]:
    """The recorded runs, each one of this comparison's, once, every field
    of the kind and range this library writes."""
    if not isinstance(runs, list):
        raise CompareError(f"{file}: 'runs' must be a list")
    seen = set()
    for run in runs:
        fault = run_fault(run, wanted)
        key = (run.get("algorithm"), run.get("game"), run.get("seed")) if isinstance(run, dict) else None
        if fault or key in seen:
            raise CompareError(f"{file}: a run that is not one of this comparison's ({fault or 'twice'}): {show(run)}")
        seen.add(key)
    return runs


def _number(value: Any, low: float = -MAX_SCORE, high: float = MAX_SCORE) -> bool:
    return finite(value) and low <= value <= high


def run_fault(run: Any, wanted: dict[str, Any]) -> str:
    """What is wrong with a recorded run ("" for nothing)."""
    if not isinstance(run, dict):
        return "not an object"
    if run.get("algorithm") not in wanted["algorithms"] or run.get("game") not in wanted["games"]:
        return "another algorithm or game"
    if not (is_int(run.get("seed")) and 0 <= run["seed"] < wanted["seeds"]):
        return "a seed out of range"
    if not _number(run.get("score")) or not _triple(run.get("margin")):
        return f"a score or margin that is not a finite number within +-{MAX_SCORE:g}"
    if not (isinstance(run.get("score_interval"), list) and len(run["score_interval"]) == 2):
        return "a score interval that is not two numbers"
    if not all(x is None or _number(x) for x in run["score_interval"]) or not _number(run.get("random_margin"), high=0):
        return "a score interval or an anchor that is not finite"
    ends = run.get("ends")
    if not isinstance(ends, dict) or set(ends) != {"won", "lost", "drawn", "truncated"}:
        return "no count of how its games ended"
    if not all(is_int(v) and 0 <= v <= 10**9 for v in ends.values()) or not is_int(run.get("forfeits")):
        return "counts that are not whole numbers"
    if run.get("steps_used") is not None and not (is_int(run["steps_used"]) and 0 <= run["steps_used"] <= MAX_STEPS):
        return "steps used that are not a whole number"
    curve = run.get("curve")
    if not isinstance(curve, list) or len(curve) > MAX_CURVE_POINTS:
        return "a curve that is not a list of points"
    for point in curve:
        if not isinstance(point, dict) or set(point) != {"steps", "score"}:
            return "a curve point that is not {steps, score}"
        if not (is_int(point["steps"]) and 0 <= point["steps"] <= MAX_STEPS) or not _number(point["score"]):
            return "a curve point out of range"
    return ""


def _triple(value: Any) -> bool:
    """A [point, low, high]: finite numbers, the ends in order or both null (unbounded: one deal)."""
    if not (isinstance(value, list) and len(value) == 3 and _number(value[0])):
        return False
    return value[1] is value[2] is None or _number(value[1]) and _number(value[2]) and value[1] <= value[2]


def code_identity(fn: Any, path: pathlib.Path | None = None) -> str:
    """What a run's algorithm is: the sha256 of its module file (``path``,
    else the file of the module ``fn`` is defined in), else its package's
    version; "unknown" when neither can be had (then a resume cannot tell a
    changed algorithm and says so nowhere: the identity is still recorded)."""
    if path is None:
        module = sys.modules.get(getattr(fn, "__module__", "") or "")
        found = getattr(module, "__file__", None)
        path = pathlib.Path(found) if found else None
    if path is not None and path.is_file():
        return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    top = (getattr(fn, "__module__", "") or "").partition(".")[0]
    try:
        return f"{top} {importlib.metadata.version(top)}"
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return "unknown"


def check_code(code: dict[str, str], now: dict[str, str], out: pathlib.Path) -> None:
    """CompareError if an algorithm's code changed since ``out``'s runs were made."""
    for spec, identity in now.items():
        if spec in code and code[spec] != identity:
            raise CompareError(
                f"--out {out}: the code of {spec} changed since its runs there were made ({code[spec][:23]}..., now "
                f"{identity[:23]}...): one comparison never mixes two versions of an algorithm; choose another --out"
            )


def write(out: pathlib.Path, doc: dict) -> None:
    """Write ``out/compare.json`` whole (CompareError if it cannot be)."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        _replace(out / RESULTS, (json.dumps(doc, indent=1) + "\n").encode())
    except OSError as e:
        raise CompareError(f"--out {out}: cannot write there: {e.strerror or e}") from None
