"""What is left of a duplicate pair's variance, and whether a luck term could
take it out (issue #31 item 4: the diagnostics behind duplicate_variance.py).

For the PPO baseline against the rule agent (both deterministic: the
baseline plays its most likely action) in Pepper 4p and Cancellation
Hearts 6p, each a game of one hand, every deal is played in the module's
duplicate seatings and, for the diagnosis only, twice more: all four (six)
seats held by A, and all by B.  Then, from the per-deal pair values ``d``
of the module's seatings (``win`` and ``score``, as
:func:`~cardenvs.evaluation.duplicate.pair_values`):

- ``alike_module``: the share of deals whose module copies all ended with
  the same scores seat by seat; ``alike_ab``: the share whose all-A and
  all-B games did (the two policies never told the game apart);
- ``r2_*``: the share of ``var(d)`` a least-squares fit on deal features
  explains, cross-fitted (fitted on one half of the deals, applied to the
  other, and the other way round, so no deal is fitted on itself: an
  honest control-variate gain; negative: the fit only adds noise).
  ``variance_left`` is ``var(d - fit) / var(d)``: a control variate on
  these features would divide the games a duplicate match needs by
  about ``1 / variance_left`` (before paying for its features).  The
  feature sets: ``reference`` -- the all-A and all-B games' scores per
  side and whether they ended alike (reference playouts: two more games
  per deal; :func:`reference_features`); Hearts ``passes`` -- the penalty
  points and Black Marias each agent passes from each seat's dealt hand,
  and at how many seats their passes differ (the pass is where Hearts'
  copies part; each pass reads only its own hand, so these cost no game);
  ``passes_summed``: the same summed over the seats (three features: less
  room to overfit).

A luck term from the dealt cards alone needs no measuring: each agent holds
every seat's cards equally often in the module's seatings, so any sum of
per-seat hand values drops out of A's result less B's exactly.

    python benchmarks/duplicate_luck.py --json     # the committed run (~3 min on 2 loaded cores)
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import report  # noqa: E402

from cardenvs.agents.registry import make_agent  # noqa: E402
from cardenvs.evaluation.duplicate import (  # noqa: E402
    DuplicateRecord,
    chunk_key,
    duplicate_seatings,
    pair_values,
    play_duplicate,
)
from cardenvs.evaluation.duplicate_play import Copy  # noqa: E402
from cardenvs.vector import rules_class  # noqa: E402

SEED = 310432  # this script's own seed (used nowhere else)
RESULTS = ROOT / "benchmarks" / "results" / "duplicate_luck.json"
GAMES = {
    "pepper_1hand": ("pepper_v0", {"num_players": 4, "max_hands": 1}, 1024),
    "hearts_1hand": ("cancellation_hearts_v0", {"num_players": 6, "max_hands": 1}, 384),
}


def with_references(rules) -> np.ndarray:
    """The module's seatings, then all seats A, then all seats B."""
    table = duplicate_seatings(rules)
    n = table.shape[1]
    return np.concatenate([table, np.zeros((1, n), np.int64), np.ones((1, n), np.int64)])


def module_part(record: DuplicateRecord) -> DuplicateRecord:
    """The record without its two reference seatings (the last two)."""
    keep = slice(0, len(record.seatings) - 2)
    return DuplicateRecord(
        record.game,
        record.config,
        record.seed,
        record.batch,
        record.names,
        record.seatings[keep],
        record.sides,
        record.low_score_wins,
        record.scores[:, keep],
        record.winners[:, keep],
        record.forfeits[:, keep],
    )


def crossfit_left(d: np.ndarray, features: np.ndarray) -> float:
    """``var(d - fit) / var(d)``, the fit (least squares with an intercept)
    on each half of the deals applied to the other half."""
    x = np.column_stack([np.ones(len(d)), features])
    half = len(d) // 2
    left = np.empty(len(d))
    for fit, use in ((slice(0, half), slice(half, None)), (slice(half, None), slice(0, half))):
        coef = np.linalg.lstsq(x[fit], d[fit], rcond=None)[0]
        left[use] = d[use] - x[use] @ coef
    return float(left.var() / d.var()) if d.var() > 0 else float("nan")


def reference_features(all_a: np.ndarray, all_b: np.ndarray, alike: np.ndarray, sides: np.ndarray) -> np.ndarray:
    """The reference games' features: each side's score in the all-A and the
    all-B game but the last side's (Hearts' scores add up to a constant but
    for a shot moon: all six would be collinear with the intercept on a half
    without one), whether the two games ended alike, and each score where
    they did not."""
    first = np.unique(sides, return_index=True)[1][:-1]
    scores = np.column_stack([all_a[:, first], all_b[:, first]])
    return np.column_stack([scores, alike, scores * ~alike[:, None]])


def passes(game: str, config: dict, agent, deals: int, seed: int, batch: int) -> np.ndarray:
    """Hearts: the card types ``agent`` passes from each seat of each deal
    ``(D, P, 52)`` (counts), the deals as play_duplicate keys them."""
    from cardenvs.cancellation_hearts.tables import NUM_TYPES, PASSING

    out = []
    for chunk, start in enumerate(range(0, deals, batch)):
        count = min(batch, deals - start)
        copy = Copy(game, config, count, chunk_key(seed, chunk, 0), False)
        got = np.zeros((count, copy.rules.num_players, NUM_TYPES))
        try:
            while (copy.state.phase == PASSING).any():  # everyone passes before anyone plays
                rows = copy.live()
                obs, mask = copy.observe(rows, None)
                actions = np.zeros(count, np.int64)
                actions[rows] = agent.act_batch(obs, mask)
                np.add.at(got, (rows, copy.state.current[rows], actions[rows]), 1)
                copy.step(actions)
        finally:
            copy.close()
        out.append(got)
    return np.concatenate(out)


def pass_features(game: str, config: dict, agents: list, deals: int, seed: int, batch: int) -> np.ndarray:
    """Per deal: each agent's penalty points and Black Marias passed from each seat, and the seats where they differ."""
    from cardenvs.cancellation_hearts.tables import BLACK_MARIA, CARD_POINTS

    a, b = (passes(game, config, agent, deals, seed, batch) for agent in agents)
    points = [p @ CARD_POINTS.astype(np.float64) for p in (a, b)]
    return np.column_stack([*points, a[..., BLACK_MARIA], b[..., BLACK_MARIA], (a != b).any(axis=2).sum(axis=1)])


def summed(features: np.ndarray, seats: int) -> np.ndarray:
    """Pass features summed over the seats (A's points less B's, A's Black Marias less B's, seats differing)."""
    points_a, points_b, maria_a, maria_b = (features[:, k * seats : (k + 1) * seats].sum(axis=1) for k in range(4))
    return np.column_stack([points_a - points_b, maria_a - maria_b, features[:, -1]])


def diagnose(name: str, deals: int, seed: int, batch: int) -> dict:
    game, config, _ = GAMES[name]
    agents = [make_agent(game, spec, seed=k, **config) for k, spec in enumerate(("ppo", "rule"))]
    table = with_references(rules_class(game)(**config))
    start = time.perf_counter()
    record = play_duplicate(game, agents, deals, seed, table, batch, names=["ppo", "rule"], **config)
    module = module_part(record)
    all_a, all_b = record.scores[:, -2], record.scores[:, -1]
    alike = (all_a == all_b).all(axis=1)
    sets = {"reference": reference_features(all_a, all_b, alike, record.sides)}
    if game == "cancellation_hearts_v0":
        sets["passes"] = pass_features(game, config, agents, deals, seed, batch)
        sets["passes_summed"] = summed(sets["passes"], record.scores.shape[2])
    row = {"game": name, "config": config, "a": "ppo", "b": "rule", "deals": deals}
    row["module_seatings"] = len(module.seatings)
    row["alike_module"] = float((module.scores == module.scores[:, :1]).all(axis=(1, 2)).mean())
    row["alike_ab"] = float(alike.mean())
    for measure in ("win", "score"):
        d = pair_values(module, measure)
        row[f"{measure}_mean"], row[f"{measure}_var"] = float(d.mean()), float(d.var(ddof=1))
        for label, features in sets.items():
            left = crossfit_left(d, features)
            row[f"{measure}_{label}_variance_left"] = left
            row[f"{measure}_{label}_r2"] = 1 - left
    row["seconds"] = time.perf_counter() - start
    return row


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", default=",".join(GAMES), help=f"comma-separated of {list(GAMES)}")
    p.add_argument("--scale", type=float, default=1.0, help="deals = the game's deals x this (at least 4)")
    p.add_argument("--seed", type=int, default=SEED)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--json", nargs="?", const=str(RESULTS), default=None, metavar="PATH", help=f"(alone: {RESULTS})")
    args = p.parse_args(argv)
    names = args.games.split(",")
    if unknown := [g for g in names if g not in GAMES]:
        p.error(f"unknown game(s) {unknown}; have {list(GAMES)}")
    rows = []
    for name in names:
        deals = max(4, round(GAMES[name][2] * args.scale))
        row = diagnose(name, deals, args.seed, args.batch)
        rows.append(row)
        shown = {k: round(v, 3) if isinstance(v, float) else v for k, v in row.items() if k != "config"}
        print(shown, flush=True)
    if args.json:
        report.write(args.json, "duplicate_luck", rows, argv=argv, seed=args.seed, batch=args.batch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
