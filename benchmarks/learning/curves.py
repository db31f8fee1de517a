"""Learning curves with every seed: each snapshot of each run rated against
the rule agent (duplicate deals of the whole game, seeds never used in
training; :func:`rate.rate`), drawn against CPU-minutes and learner steps.

    python benchmarks/learning/curves.py --game cancellation_hearts_v0 \\
        --runs runs/scratch_cancellation_hearts_v0_s1,runs/scratch_cancellation_hearts_v0_s2 \\
        --deals 100 --out benchmarks/learning/results/curves-cancellation_hearts_v0.json

Snapshots already in ``--out`` (same run, same file, same digest) are not
rated again, so a run can be added to the file later.  The picture goes to
``docs/images/learning-curves-<game>.png``, and ``--json`` also writes the
points as a results file (``benchmarks/results/learning_curves-<game>.json``)
for the results page (``tools/gen_results.py``).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(pathlib.Path(__file__).resolve().parent)]

import report  # noqa: E402
from rate import edge_text, rate  # noqa: E402

IMAGES = ROOT / "docs" / "images"


def records(curves: dict) -> list[dict]:
    """One flat record per rated snapshot, for the results page."""
    out = []
    for name, run in sorted(curves.items()):
        for p in sorted(run["points"], key=lambda p: p["cpu_seconds"]):
            out.append(
                {"run": name, "learner": run["learner"], "seed": run["seed"], "cpu_minutes": p["cpu_seconds"] / 60}
                | {
                    "steps": p["steps"],
                    "win_edge": edge_text(p["win"]),
                    "hand_edge": edge_text(p["hand"]),
                    "deals": p["deals"],
                }
            )
    return out


def picked(snapshots: list[dict], every: float | None) -> list[dict]:
    """The snapshots to rate: all, or with ``every`` CPU-seconds the last
    one within each multiple of it, and the final one."""
    if not every:
        return snapshots
    last: dict[int, dict] = {}
    for snap in snapshots:
        last[int(snap["cpu_seconds"] // every)] = snap
    keep = {id(s) for s in last.values()} | {id(s) for s in snapshots if s.get("final")}
    return [s for s in snapshots if id(s) in keep]


def read_run(run_dir: pathlib.Path) -> dict:
    """``run.json``; for a run stopped before it wrote one, its snapshots'
    own training records (each policy file says its seed, CPU-seconds and steps)."""
    if (run_dir / "run.json").exists():
        return json.loads((run_dir / "run.json").read_text())
    snaps = []
    for path in sorted(run_dir.glob("policy_*.json")):
        training = json.loads(path.read_text())["training"]
        snaps.append({"file": path.name, **{k: training[k] for k in ("cpu_seconds", "steps")}, "final": False})
    seed = json.loads(path.read_text())["training"].get("seed") if snaps else None
    return {"args": {"seed": seed}, "snapshots": snaps, "stopped_early": True}


def rated_runs(game: str, runs: list[pathlib.Path], deals: int, seed: int, old: dict, every: float | None) -> dict:
    """Per run folder: its seed, learner and its (picked) snapshots' ratings."""
    out = dict(old)
    for run_dir in runs:
        run = read_run(run_dir)
        args = run.get("args", {})
        key = run_dir.name
        before = {p["file"]: p for p in old.get(key, {}).get("points", [])}
        points = []
        for snap in picked(run["snapshots"], every):
            meta = json.loads((run_dir / snap["file"]).read_text())
            kept = before.get(snap["file"])
            if kept is None or kept.get("sha256") != meta["sha256"] or kept.get("deals") != deals:
                kept = {**snap, "sha256": meta["sha256"], **rate(game, f"mlp:{run_dir / snap['file']}", deals, seed)}
                print(key, snap["file"], "win", kept["win"], "hand", kept["hand"], flush=True)
            points.append(kept)
        learner = meta["training"].get("algorithm", "?")
        out[key] = {"seed": args.get("seed"), "learner": learner, "cpu_budget": args.get("cpu_minutes")}
        out[key]["points"] = points
    return out


def plot(game: str, curves: dict, path: pathlib.Path) -> None:
    """Win edge against the rule agent (95% interval as a band), one line a
    run, against CPU-minutes (left) and learner steps (right)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for _, run in sorted(curves.items()):
        pts = sorted(run["points"], key=lambda p: p["cpu_seconds"])
        label = f"{run['learner']} seed {run['seed']}"
        for ax, x in zip(axes, ([p["cpu_seconds"] / 60 for p in pts], [p["steps"] for p in pts])):
            (line,) = ax.plot(x, [p["win"][0] for p in pts], marker="o", label=label)
            low, high = [p["win"][1] for p in pts], [p["win"][2] for p in pts]
            ax.fill_between(x, low, high, alpha=0.15, color=line.get_color())
    steps = "learner steps (PPO: games x engine steps; expert iteration: labelled decisions)"
    for ax, xlabel in zip(axes, ("CPU-minutes of training", steps)):
        ax.axhline(0, color="grey", lw=1, ls="--")
        ax.set_xlabel(xlabel)
    axes[0].set_ylabel("win-share edge over the rule agent")
    axes[0].legend(fontsize=8)
    fig.suptitle(f"{game}: learned from scratch, rated in duplicate against the rule agent (95% intervals)")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", required=True)
    p.add_argument("--runs", required=True, help="run folders (with run.json), comma-separated")
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--seed", type=int, default=777_000, help="deal seeds never used in training")
    p.add_argument("--out", required=True, help="the JSON to write (and to resume from)")
    p.add_argument("--every", type=float, default=None, help="rate a snapshot per this many CPU-seconds")
    p.add_argument("--json", action="store_true", help="also write benchmarks/results/learning_curves-<game>.json")
    args = p.parse_args(argv)
    out = pathlib.Path(args.out)
    old = json.loads(out.read_text())["runs"] if out.exists() else {}
    runs = [pathlib.Path(r) for r in args.runs.split(",") if r]
    curves = rated_runs(args.game, runs, args.deals, args.seed, old, args.every)
    summary = {"game": args.game, "deals": args.deals, "deal_seed": args.seed, "against": "rule", "runs": curves}
    out.write_text(json.dumps(summary, indent=1) + "\n")
    image = IMAGES / f"learning-curves-{args.game}.png"
    plot(args.game, curves, image)
    if args.json:
        path = report.RESULTS / f"learning_curves-{args.game}.json"
        report.write(
            path,
            "learning_curves",
            records(curves),
            script="benchmarks/learning/curves.py",
            images=[f"images/{image.name}"],
        )
    return summary


if __name__ == "__main__":
    main()
