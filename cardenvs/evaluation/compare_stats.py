"""The statistics and pictures of an algorithm benchmark (:mod:`.comparison`),
by **rliable** (Agarwal et al., 2021, "Deep RL at the edge of the
statistical precipice"): a benchmark has few runs per game, so a point
estimate alone says little, and the mean is pulled by one lucky run.

- Per algorithm, over every game it trains and every seed: the interquartile mean (IQM,
  the mean of the middle half of the scores) and the mean, each with a
  95% stratified percentile bootstrap interval -- the seeds resampled within
  each game (``rliable.library.get_interval_estimates`` with
  ``rliable.metrics.aggregate_iqm`` and ``aggregate_mean``).
- Per pair of algorithms (a, b): the probability of improvement
  P(a > b) -- the chance that a run of a scores above a run of b on the same
  game, averaged over the games both train (Mann-Whitney U) -- with its interval
  (``rliable.metrics.probability_of_improvement``).
- Performance profiles (the share of runs scoring above each threshold)
  and the sample-efficiency curves (per game and algorithm, the score
  against environment steps averaged over the seeds, with a 95% bootstrap
  band), drawn with matplotlib's Agg backend.

Nothing here is computed by hand: the numbers are rliable's own functions
on the score matrices ``(seeds, games)`` (a test checks them against rliable
called directly).  rliable 1.2.0 draws its bootstrap resamples from numpy's
*global* generator (``np.random.choice``) and ignores the ``random_state``
its documentation says it uses, so each call here runs with the global
generator seeded from :data:`BOOTSTRAP_SEED` and restored after
(:func:`seeded_bootstrap`): the intervals replay, and a caller's own global
draws are left as they were.

Per game too: each algorithm's IQM and mean over its seeds, with intervals
(with fewer than 4 runs a game the IQM is their mean, and the table says
so; an interval of zero width -- every run the same score -- is flagged),
beside the reference rows (random 0, rule 1, the trivial policies).
"""

from __future__ import annotations

import contextlib
import itertools
import pathlib
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

#: the bootstrap's random state seed (for every interval of a comparison)
BOOTSTRAP_SEED = 0


def games_of(runs: Sequence[dict], algorithms: Sequence[str], games: Sequence[str]) -> dict[str, list[str]]:
    """The games each algorithm has runs on, in the comparison's order
    (an algorithm x game that is not applicable has none)."""
    ran = {(r["algorithm"], r["game"]) for r in runs}
    return {a: [g for g in games if (a, g) in ran] for a in algorithms}


def score_matrices(runs: Sequence[dict], algorithms: Sequence[str], games: Sequence[str], seeds: int) -> dict:
    """Each algorithm's scores ``(seeds, its games)`` from the runs
    (rliable's layout: runs x tasks), over the games it has runs on."""
    played = games_of(runs, algorithms, games)
    matrices = {a: np.full((seeds, len(played[a])), np.nan) for a in algorithms}
    for run in runs:
        matrices[run["algorithm"]][run["seed"], played[run["algorithm"]].index(run["game"])] = run["score"]
    return matrices


@contextlib.contextmanager
def seeded_bootstrap(seed: int = BOOTSTRAP_SEED) -> Iterator[np.random.RandomState]:
    """numpy's global generator seeded with ``seed`` for the block (where
    rliable draws its resamples), restored after; yields a RandomState of
    the same seed for the ``random_state`` rliable takes (and ignores)."""
    saved = np.random.get_state()
    np.random.seed(seed)
    try:
        with warnings.catch_warnings():  # (arch warns that rliable passes a RandomState)
            warnings.simplefilter("ignore", FutureWarning)
            yield np.random.RandomState(seed)
    finally:
        np.random.set_state(saved)


def _rliable() -> tuple[Any, Any]:
    from rliable import library, metrics

    return library, metrics


def iqm_and_mean(scores: np.ndarray) -> np.ndarray:
    """The aggregates of one score matrix: [IQM, mean] (rliable's)."""
    _, metrics = _rliable()
    return np.array([metrics.aggregate_iqm(scores), metrics.aggregate_mean(scores)])


def aggregates(matrices: dict[str, np.ndarray], reps: int, seed: int = BOOTSTRAP_SEED) -> dict[str, dict]:
    """``{algorithm: {"iqm": [point, low, high], "mean": [point, low, high]}}``:
    rliable's stratified bootstrap, ``reps`` resamples, 95%."""
    library, _ = _rliable()
    with seeded_bootstrap(seed) as state:
        points, intervals = library.get_interval_estimates(matrices, iqm_and_mean, reps=reps, random_state=state)
    return {
        a: {key: [float(points[a][k]), float(intervals[a][0, k]), float(intervals[a][1, k])] for k, key in
            enumerate(("iqm", "mean"))}
        for a in matrices
    }  # fmt: skip


def improvement(
    matrices: dict[str, np.ndarray], reps: int, seed: int = BOOTSTRAP_SEED, played: dict[str, list[str]] | None = None
) -> list[dict]:
    """One ``{"a", "b", "probability": [point, low, high]}`` per pair of
    algorithms (in their order): P(a > b), rliable's, with its interval.
    With ``played`` (each matrix's games), a pair is compared on the games
    both have (its ``games``); a pair with none in common is left out."""
    library, metrics = _rliable()
    data, games, pairs = {}, {}, []
    for a, b in itertools.combinations(matrices, 2):
        both = [g for g in played[a] if g in played[b]] if played else None
        if both == []:
            continue
        pair = [matrices[x] if both is None else matrices[x][:, [played[x].index(g) for g in both]] for x in (a, b)]
        data[f"{a},{b}"], games[f"{a},{b}"] = pair, both
        pairs.append((a, b))
    if not data:
        return []
    with seeded_bootstrap(seed) as state:
        points, intervals = library.get_interval_estimates(
            data, metrics.probability_of_improvement, reps=reps, random_state=state
        )
    return [
        {"a": a, "b": b, "probability": [float(points[k]), float(intervals[k][0][0]), float(intervals[k][1][0])]}
        | ({"games": games[k]} if played else {})
        for (a, b), k in zip(pairs, data)
    ]


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_profiles(matrices: dict[str, np.ndarray], path: pathlib.Path, reps: int) -> str:
    """Performance profiles (rliable's, with their bootstrap bands) into ``path``."""
    plt = _pyplot()
    from rliable import plot_utils

    library, _ = _rliable()
    every = np.concatenate([m.ravel() for m in matrices.values()])
    taus = np.linspace(min(0.0, every.min()), max(1.0, every.max()), 101)
    with seeded_bootstrap():
        profiles, bands = library.create_performance_profile(matrices, taus, reps=min(reps, 2000))
    fig, ax = plt.subplots(figsize=(7, 4))
    plot_utils.plot_performance_profiles(
        profiles, taus, performance_profile_cis=bands, ax=ax, xlabel="score on points (random 0, rule 1)"
    )
    ax.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path.name


def mean_curve(runs: Sequence[dict], grid: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The runs' curves (score against steps) on a common ``grid`` of steps
    (each interpolated within its own steps, nothing beyond): the mean over
    the runs with a 95% bootstrap band of that mean (seeded), where at
    least one run has a point; None without curves."""
    curves = [run.get("curve") or [] for run in runs]
    curves = [c for c in curves if c]
    if not curves:
        return None
    values = np.full((len(curves), len(grid)), np.nan)
    for k, points in enumerate(curves):
        x, y = np.array([p["steps"] for p in points], float), np.array([p["score"] for p in points], float)
        inside = (grid >= x.min()) & (grid <= x.max())
        values[k, inside] = np.interp(grid[inside], x, y)
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    picks = rng.integers(0, len(curves), (200, len(curves)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (a grid point no run, or no resample, covers: nan)
        mean = np.nanmean(values, axis=0)
        boot = np.nanmean(values[picks], axis=1)
        low, high = np.nanpercentile(boot, [2.5, 97.5], axis=0)
    return mean, low, high


def plot_curves(
    runs: Sequence[dict],
    algorithms: Sequence[str],
    games: Sequence[str],
    path: pathlib.Path,
    reference: dict[str, dict[str, dict]] | None = None,
) -> str:
    """Score against environment steps, one panel per game, into ``path``
    (:func:`curve_figure`)."""
    plt = _pyplot()
    fig = curve_figure(runs, algorithms, games, reference)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path.name


def curve_figure(
    runs: Sequence[dict], algorithms: Sequence[str], games: Sequence[str], reference: dict | None = None
) -> Any:
    """Score against environment steps (engine steps x games, every
    learner alike), one panel per game: per algorithm the mean over its
    seeds with a 95% bootstrap band, as rliable's sample-efficiency curves;
    each game's trivial policies (``reference[game]``: :data:`TRIVIAL`)
    dashed beside them, so that a curve a trivial policy matches shows it."""
    plt = _pyplot()
    from matplotlib.ticker import EngFormatter

    from .compare_score import TRIVIAL

    fig, axes = plt.subplots(1, len(games), figsize=(5 * len(games), 4), squeeze=False)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, game in zip(axes[0], games):
        for k, spec in enumerate(algorithms):
            mine = [r for r in runs if r["algorithm"] == spec and r["game"] == game]
            steps = sorted({p["steps"] for r in mine for p in r.get("curve") or []})
            if not steps:
                continue
            grid = np.linspace(steps[0], steps[-1], 50) if len(steps) > 1 else np.array(steps, float)
            mean, low, high = mean_curve(mine, grid)
            colour = colours[k % len(colours)]
            ax.plot(grid, mean, "-", color=colour, label=f"{spec} ({len(mine)} seeds)")
            ax.fill_between(grid, low, high, color=colour, alpha=0.2)
        for style, name in zip(("--", ":"), TRIVIAL):
            row = (reference or {}).get(game, {}).get(name)
            if row is not None:
                ax.axhline(row["score"], color="black", linestyle=style, linewidth=1, label=f"{name} (trivial)")
        ax.axhline(1, color="grey", linewidth=0.5)
        ax.axhline(0, color="grey", linewidth=0.5)
        ax.xaxis.set_major_formatter(EngFormatter(sep=""))  # 200k, not 200000 (labels that do not overlap)
        ax.set_title(game)
        ax.set_xlabel("environment steps (engine steps x games)")
        ax.set_ylabel("score on points (random 0, rule 1)")
        if ax.get_legend_handles_labels()[0]:  # (a game no algorithm here trains has no line)
            ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def per_game(doc: dict) -> dict[str, dict[str, Any]]:
    """Each game's table: per algorithm its runs, IQM and mean over its seeds
    with 95% intervals (rliable, seeded), flags; the reference rows' scores."""
    s = doc["settings"]
    out: dict[str, dict[str, Any]] = {}
    for game in s["games"]:
        matrices = {
            a: np.array([[r["score"]] for r in doc["runs"] if r["algorithm"] == a and r["game"] == game])
            for a in s["algorithms"]
        }
        matrices = {a: m for a, m in matrices.items() if len(m)}
        rows = {}
        if matrices:
            for a, agg in aggregates(matrices, s["reps"]).items():
                runs = len(matrices[a])
                rows[a] = {**agg, "runs": runs, "iqm_is_mean": runs < 4, "zero_width": agg["mean"][1] == agg["mean"][2]}
        reference = {name: row["score"] for name, row in doc.get("reference", {}).get(game, {}).items()}
        out[game] = {"algorithms": rows, "reference": reference}
    return out


def table_text(doc: dict) -> str:
    """The per-game tables as the command prints them."""
    lines = []
    for game, table in doc["games"].items():
        lines.append(f"{game} (score on points: random 0, rule 1; 95% intervals over seeds)")
        for a, row in table["algorithms"].items():
            iqm, mean = ("{:+.3f} [{:+.3f}, {:+.3f}]".format(*row[key]) for key in ("iqm", "mean"))
            notes = [f"{row['runs']} runs"]
            notes += ["IQM over fewer than 4 runs is their mean"] if row["iqm_is_mean"] else []
            notes += ["ZERO-WIDTH interval: every run scored the same"] if row["zero_width"] else []
            lines.append(f"  {a}: IQM {iqm}  mean {mean}  ({'; '.join(notes)})")
        for name, score in table["reference"].items():
            lines.append(f"  {name} (reference): {score:+.3f}")
    return "\n".join(lines)


def summarise(doc: dict, out: pathlib.Path) -> None:
    """Fill a finished comparison's ``aggregates``, ``games``, ``improvement`` and ``plots``."""
    s = doc["settings"]
    matrices = score_matrices(doc["runs"], s["algorithms"], s["games"], s["seeds"])
    played = games_of(doc["runs"], s["algorithms"], s["games"])
    doc["aggregates"] = aggregates(matrices, s["reps"])
    doc["games"] = per_game(doc)
    doc["improvement"] = improvement(matrices, s["reps"], played=played)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        doc["plots"] = ["skipped: matplotlib is not installed (pip install 'cardenvs[train]')"]
        return
    doc["plots"] = [
        plot_profiles(matrices, out / "profiles.png", s["reps"]),
        plot_curves(doc["runs"], s["algorithms"], s["games"], out / "curves.png", doc.get("reference")),
    ]
