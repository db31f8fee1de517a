"""The statistics and pictures of an algorithm benchmark (:mod:`.compare`),
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
  and the sample-efficiency curves (score against CPU-minutes and against
  learner steps, one line per seed), drawn with matplotlib's Agg backend.

Nothing here is computed by hand: the numbers are rliable's own functions
on the score matrices ``(seeds, games)``, with ``numpy.random.RandomState(seed)``
passed to each bootstrap so they replay (a test checks them against rliable
called directly).
"""

from __future__ import annotations

import itertools
import pathlib
import warnings
from collections.abc import Sequence
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
    with warnings.catch_warnings():  # (arch warns that rliable passes a RandomState: it is still honoured)
        warnings.simplefilter("ignore", FutureWarning)
        points, intervals = library.get_interval_estimates(
            matrices, iqm_and_mean, reps=reps, random_state=np.random.RandomState(seed)
        )
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
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        points, intervals = library.get_interval_estimates(
            data, metrics.probability_of_improvement, reps=reps, random_state=np.random.RandomState(seed)
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
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        profiles, bands = library.create_performance_profile(matrices, taus, reps=min(reps, 2000))
    fig, ax = plt.subplots(figsize=(7, 4))
    plot_utils.plot_performance_profiles(
        profiles, taus, performance_profile_cis=bands, ax=ax, xlabel="rule-normalised score (random 0, rule 1)"
    )
    ax.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path.name


def plot_curves(runs: Sequence[dict], algorithms: Sequence[str], games: Sequence[str], path: pathlib.Path, x: str):
    """Score against ``x`` (``"cpu_minutes"`` or ``"steps"``) from each
    run's snapshots: one panel per game, one line per run, a colour per algorithm."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(games), figsize=(5 * len(games), 4), squeeze=False)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, game in zip(axes[0], games):
        for k, spec in enumerate(algorithms):
            for n, run in enumerate(r for r in runs if r["algorithm"] == spec and r["game"] == game):
                points = run.get("curve") or []
                ax.plot([p[x] for p in points], [p["score"] for p in points], "o-", alpha=0.7,
                        color=colours[k % len(colours)], label=spec if n == 0 else None)  # fmt: skip
        ax.axhline(1, color="grey", linewidth=0.5)
        ax.axhline(0, color="grey", linewidth=0.5)
        ax.set_title(game)
        ax.set_xlabel("training CPU-minutes" if x == "cpu_minutes" else "learner steps")
        ax.set_ylabel("rule-normalised score")
        if ax.get_legend_handles_labels()[0]:  # (a game no algorithm here trains has no line)
            ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path.name


def summarise(doc: dict, out: pathlib.Path) -> None:
    """Fill a finished comparison's ``aggregates``, ``improvement`` and ``plots``."""
    s = doc["settings"]
    matrices = score_matrices(doc["runs"], s["algorithms"], s["games"], s["seeds"])
    played = games_of(doc["runs"], s["algorithms"], s["games"])
    doc["aggregates"] = aggregates(matrices, s["reps"])
    doc["improvement"] = improvement(matrices, s["reps"], played=played)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        doc["plots"] = ["skipped: matplotlib is not installed (pip install 'cardenvs[train]')"]
        return
    doc["plots"] = [
        plot_profiles(matrices, out / "profiles.png", s["reps"]),
        plot_curves(doc["runs"], s["algorithms"], s["games"], out / "curves_cpu.png", "cpu_minutes"),
        plot_curves(doc["runs"], s["algorithms"], s["games"], out / "curves_steps.png", "steps"),
    ]
