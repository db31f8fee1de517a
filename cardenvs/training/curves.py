"""The learning curve a training run draws (``runs/<name>/learning_curve.png``)."""

from __future__ import annotations

import pathlib

import numpy as np


def plot_curve(curve: list[tuple[int, float]], path: pathlib.Path, title: str) -> None:
    """Episode returns (light) and their moving average against training steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    if curve:
        steps, rets = np.array(curve).T
        k = max(1, len(rets) // 50)
        smooth = np.convolve(rets, np.ones(k) / k, mode="valid")
        ax.plot(steps, rets, ".", alpha=0.08, color="tab:blue", markersize=2)
        ax.plot(steps[k - 1 :], smooth, color="tab:red", label=f"moving average ({k} episodes)")
        ax.legend()
    ax.set_xlabel("learner steps")
    ax.set_ylabel("episode return")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
