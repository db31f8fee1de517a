"""Ratings from duplicate matches: Bradley-Terry / Plackett-Luce strengths
on an Elo-like scale, with bootstrap intervals over deals.

The model.  Every game gives a finishing order of its sides (the places of
:meth:`~cardenvs.evaluation.duplicate.DuplicateRecord.ranks`: the winners first,
ties as the rules rank them).  Each two sides held by different agents are
one comparison: the side placed ahead wins it, a tie is half a win each
(partners count as one side: a comparison between two teams counts once).
Under Plackett-Luce -- the finishing order drawn by the strengths, the
first place among those left with probability proportional to strength --
the chance that one side finishes ahead of another is exactly their
Bradley-Terry chance ``g_a / (g_a + g_b)`` whoever else sits at the table,
so fitting Bradley-Terry to every comparison of every game (full rank
breaking) estimates the Plackett-Luce strengths consistently; with two
sides it is plain Bradley-Terry on wins, losses and draws.  The comparisons
of one game (and of the copies of one deal) are not independent: the
intervals come from a bootstrap over deals, which keeps them together.

The scale: ``rating = 400 · log10(strength)``, so an agent 400 points
above another finishes ahead of it 10 times out of 11, anchored at the
agent ``random`` = 0 (or at the first agent when there is no ``random``).
The fit adds one virtual drawn game between every two agents that met
(``prior``; between every two when the pairs that met do not join them
all): an agent that won every comparison gets a large, finite rating
rather than an infinite one.  Two agents that never met get no invented
draw (a learning curve's snapshots, each rated against the same pool, are
not pulled towards each other).

Held by the prior (:func:`held_by_prior`, the one rule the league's tables
and charts mark): where the comparisons give no path from an agent to the
anchor (it never lost, directly or through others, to the anchor's side:
"at least") or from the anchor to it ("at most"), its rating relative to
the anchor has no finite estimate without the prior; the prior sets it
and its interval's far end.  An interval is held when more than its tail
(2.5% of the resamples at 95%) are so separated.

The bootstrap: resample the deals of each pair (a stratum) with
replacement, refit, and take the 2.5th and 97.5th percentiles of each
rating (the anchor's interval is [0, 0] by construction).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .duplicate import DuplicateRecord

#: rating points per natural-log unit of strength
ELO = 400 / math.log(10)


def comparison_wins(ranks: np.ndarray, seat_agents: np.ndarray, sides: np.ndarray, num_agents: int) -> np.ndarray:
    """The comparisons of games: ``ranks`` ``(..., P)`` places and
    ``seat_agents`` (broadcastable to it) the agent of each seat ->
    ``(..., K, K)`` wins, entry [i, j] what agent i won against agent j
    (a tie half each; each two sides of different agents once)."""
    seat_agents = np.broadcast_to(seat_agents, ranks.shape)
    lead = ranks.shape[:-1]
    wins = np.zeros((*lead, num_agents, num_agents))
    size = np.bincount(sides)[sides]  # each seat's side's size: a side pair's seat pairs share one comparison
    for p in range(len(sides)):
        for q in range(len(sides)):
            if sides[p] == sides[q]:
                continue
            weight = 1.0 / (size[p] * size[q])
            ap, aq = seat_agents[..., p], seat_agents[..., q]
            score = np.where(ranks[..., p] < ranks[..., q], 1.0, np.where(ranks[..., p] == ranks[..., q], 0.5, 0.0))
            score = np.where(ap == aq, 0.0, score * weight)
            idx = np.indices(lead)
            np.add.at(wins, (*idx, ap, aq), score)
    return wins


def deal_wins(record: DuplicateRecord, agent_ids: Sequence[int] | None = None, num_agents: int | None = None):
    """A record's comparisons per deal ``(D, K, K)`` (summed over the
    seatings), its agents mapped to ``agent_ids`` among ``num_agents``."""
    ids = np.arange(len(record.names)) if agent_ids is None else np.asarray(agent_ids, np.int64)
    k = len(ids) if num_agents is None else num_agents
    per_game = comparison_wins(record.ranks(), ids[record.seatings], record.sides, k)
    return per_game.sum(axis=1)


def fit_bradley_terry(
    wins: np.ndarray, prior: float | np.ndarray = 1.0, tol: float = 1e-10, max_iter: int = 200
) -> np.ndarray:
    """Bradley-Terry log-strengths ``(..., K)`` (mean 0) from wins
    ``(..., K, K)`` (any leading shape: fitted together), by Newton's
    method on the log-likelihood, with ``prior`` virtual drawn games
    between every two agents (a ``(K, K)`` array: between each two, as it says)."""
    w = np.asarray(wins, np.float64)
    k = w.shape[-1]
    w = w + (np.asarray(prior, np.float64) / 2) * (1 - np.eye(k))
    n = w + np.swapaxes(w, -1, -2)
    theta = np.zeros(w.shape[:-1])
    ones = np.ones((k, k)) / k
    for _ in range(max_iter):
        p = 1 / (1 + np.exp(theta[..., None, :] - theta[..., :, None]))  # p[i, j]: i beats j
        grad = (w - n * p).sum(axis=-1)
        c = n * p * (1 - p)
        laplacian = np.eye(k) * c.sum(axis=-1)[..., None] - c
        step = np.linalg.solve(laplacian + ones, grad[..., None])[..., 0]
        step *= np.minimum(1.0, 2.0 / np.maximum(np.abs(step).max(axis=-1, keepdims=True), 1e-300))  # damped
        theta = theta + step
        theta -= theta.mean(axis=-1, keepdims=True)
        if np.abs(step).max() < tol:
            break
    return theta


@dataclass
class Rating:
    """An agent's rating and its 95% bootstrap interval (Elo-like points), and the games it played."""

    name: str
    rating: float
    low: float
    high: float
    games: int
    #: "" (estimated), "at least" / "at most" (held by the prior from below / above), "apart" (never compared)
    held: str = ""


def anchor_index(names: Sequence[str], anchor: str | int | None = None) -> int:
    """The anchor's index: ``anchor`` (a name or index), else ``random``, else 0."""
    if isinstance(anchor, (int, np.integer)) and not isinstance(anchor, bool):
        if not 0 <= anchor < len(names):
            raise ValueError(f"anchor index {anchor} out of range for {len(names)} agents")
        return int(anchor)
    if anchor is not None:
        if anchor not in names:
            raise ValueError(f"anchor {anchor!r} is not one of the agents {list(names)}")
        return list(names).index(anchor)
    return list(names).index("random") if "random" in names else 0


def rate(
    names: Sequence[str],
    wins: np.ndarray,
    strata: Sequence[int] | None = None,
    games: Sequence[int] | None = None,
    anchor: str | int | None = None,
    resamples: int = 1000,
    seed: int = 0,
    prior: float = 1.0,
    confidence: float = 0.95,
) -> list[Rating]:
    """Ratings of ``names`` from per-deal comparisons ``wins`` ``(C, K, K)``
    (:func:`deal_wins`; C deals, of the pairs ``strata`` ``(C,)``: the
    bootstrap resamples deals within each), with percentile bootstrap
    intervals over ``resamples`` refits (see the module docstring)."""
    wins = np.asarray(wins, np.float64)
    k = len(names)
    if wins.ndim != 3 or wins.shape[1:] != (k, k) or not len(wins):
        raise ValueError(f"wins must be (deals, {k}, {k}) with at least one deal, got {wins.shape}")
    strata_arr = np.zeros(len(wins), np.int64) if strata is None else np.asarray(strata, np.int64)
    a = anchor_index(names, anchor)
    total = wins.sum(axis=0)
    pairs = prior * met_pairs(total)
    theta = fit_bradley_terry(total, pairs)
    point = ELO * (theta - theta[a])
    weights = bootstrap_weights(strata_arr, resamples, np.random.default_rng(seed))
    resampled = np.einsum("bc,cij->bij", weights, wins)
    boot = fit_bradley_terry(resampled, pairs)
    boot = ELO * (boot - boot[:, a : a + 1])
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(boot, [tail, 100 - tail], axis=0)
    held = held_by_prior(resampled, a, (1 - confidence) / 2)
    played = np.zeros(k, np.int64) if games is None else np.asarray(games, np.int64)
    return [Rating(names[i], float(point[i]), float(low[i]), float(high[i]), int(played[i]), held[i]) for i in range(k)]


#: the tables' mark of a rating held by the prior, and the footnote that explains it (one wording everywhere)
HELD_MARK = "†"
HELD_NOTE = (
    f"{HELD_MARK} held by the prior: the games never separate this agent from the anchor both ways (it never "
    "lost, or never won, to the anchor's side in enough resamples), so the fit's one virtual draw per pair sets "
    "the rating and that end of its interval: read it as the bound it says (at least / at most)."
)


def held_mark(held: str) -> str:
    """A table cell's suffix for :attr:`Rating.held` (``" †"`` and the bound, or nothing)."""
    return f" {HELD_MARK} {held}" if held else ""


def reach(edges: np.ndarray) -> np.ndarray:
    """``(..., K, K)`` booleans -> which agent reaches which along them (itself included)."""
    k = edges.shape[-1]
    r = edges | np.eye(k, dtype=bool)
    for _ in range(max(1, int(np.ceil(np.log2(max(k, 2)))))):
        r = (r.astype(np.int64) @ r.astype(np.int64)) > 0
    return r


def met_pairs(total: np.ndarray) -> np.ndarray:
    """``(K, K)`` 1.0 where two agents met in ``total`` comparisons, else 0;
    all 1.0 (off the diagonal) when the pairs that met do not join every agent
    (a fit needs its agents joined: the prior's draws then join them)."""
    met = (total + total.T) > 0
    if not reach(met).all():
        met = ~np.eye(len(total), dtype=bool)
    return met.astype(np.float64)


def held_by_prior(wins: np.ndarray, anchor: int, tail: float = 0.025) -> list[str]:
    """The rule of the module docstring, over fits ``wins`` ``(B, K, K)``
    (the resamples, or the point's one): per agent "" when its rating
    relative to ``anchor`` is estimated in all but ``tail`` of them, else
    "at least" / "at most" (the data separate it above / below the anchor:
    the prior sets the rating and that end of its interval) or "apart"."""
    r = reach(np.asarray(wins).reshape(-1, *np.shape(wins)[-2:]) > 0)  # r[b, i, j]: i beat j, through others too
    up, down = r[:, :, anchor], r[:, anchor, :]  # up[b, i]: i reaches the anchor (it beat it, through others)
    above, below, apart = (up & ~down).mean(0), (down & ~up).mean(0), (~up & ~down).mean(0)
    out = []
    for i in range(len(above)):
        share = {"at least": above[i], "at most": below[i], "apart": apart[i]}
        worst = max(share, key=share.get)
        out.append(worst if share[worst] > tail else "")
    return out


def bootstrap_weights(strata: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """``(resamples, C)``: how many times each deal is drawn, each stratum's
    deals resampled with replacement to their own number."""
    weights = np.zeros((resamples, len(strata)))
    for s in np.unique(strata):
        members = np.flatnonzero(strata == s)
        weights[:, members] = rng.multinomial(len(members), np.full(len(members), 1 / len(members)), size=resamples)
    return weights


def rate_records(
    records: Sequence[DuplicateRecord],
    names: Sequence[str],
    anchor: str | int | None = None,
    resamples: int = 1000,
    seed: int = 0,
) -> list[Rating]:
    """Ratings of ``names`` from duplicate records among them (each
    record's agents found by name; each record a stratum)."""
    index = {name: i for i, name in enumerate(names)}
    parts, strata = [], []
    games = np.zeros(len(names), np.int64)
    for r, record in enumerate(records):
        missing = [n for n in record.names if n not in index]
        if missing:
            raise ValueError(f"a record's agents {missing} are not among {list(names)}")
        ids = [index[n] for n in record.names]
        parts.append(deal_wins(record, ids, len(names)))
        strata.append(np.full(record.deals, r))
        np.add.at(games, ids, record.games())
    return rate(names, np.concatenate(parts), np.concatenate(strata), games, anchor, resamples, seed)
