#!/usr/bin/env python
"""Rule agents' speed: the per-row reference (``act_row``, Python per
observation) against the batched rules (one compiled pass), deciding the
same batch of reachable decision states.

    python benchmarks/agents.py                         # 4,096 rows, every config
    python benchmarks/agents.py --rows 1024 --json    # + benchmarks/results/agents.json (docs/results.md)

The states are :func:`cardenvs.agents.states.decision_states`: half from
random play, half from rule-guided play (20% random moves).  The per-row
figure is the best of ``--repeats`` passes over the batch, the batched one
the median of repeated calls for ``--seconds``; both decide the whole batch
and return its actions (the timing checks they agree).  A rule agent
without batched rules would be timed per row only (its row says so).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
import time

import numpy as np
import report  # benchmarks/report.py: --json

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from cardenvs.agents.registry import rule_agent  # noqa: E402
from cardenvs.agents.states import decision_states  # noqa: E402

CONFIGS = [
    ("pepper_v0", {"num_players": 4}),
    ("pepper_v0", {"num_players": 3}),
    ("pepper_v0", {"num_players": 2}),
    ("cancellation_hearts_v0", {"num_players": 6}),
    ("cancellation_hearts_v0", {"num_players": 11}),
    ("spit_v0", {}),
    ("spit_v0", {"stockpiles": 4}),
    ("spit_v0", {"variant": "speed"}),
    ("push_v0", {}),
]


def states(game: str, config: dict, rows: int) -> tuple[np.ndarray, np.ndarray]:
    guide = rule_agent(game, **config)
    half = decision_states(game, rows // 2, seed=1, **config)
    rest = decision_states(game, rows - rows // 2, seed=2, guide=guide, explore=0.2, **config)
    return np.concatenate([half[0], rest[0]]), np.concatenate([half[1], rest[1]])


def measure(game: str, config: dict, rows: int, repeats: int, seconds: float) -> dict:
    obs, mask = states(game, config, rows)
    batched = rule_agent(game, **config)
    has_batched = hasattr(batched, "reference")
    reference = rule_agent(game, reference=True, **config) if has_batched else batched
    per_row = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        expected = reference.act_batch(obs, mask)
        per_row.append(time.perf_counter() - t0)
    result = {"game": game, "config": config, "rows": len(obs), "per_row": min(per_row), "batched": None}
    if has_batched:
        if not np.array_equal(batched.act_batch(obs, mask), expected):  # also the warm-up (compile)
            raise AssertionError(f"{game} {config}: batched and per-row decisions differ")
        times = []
        stop = time.perf_counter() + seconds
        while time.perf_counter() < stop or len(times) < 5:
            t0 = time.perf_counter()
            batched.act_batch(obs, mask)
            times.append(time.perf_counter() - t0)
        result["batched"] = statistics.median(times)
    return result


def table(results: list[dict]) -> list[str]:
    lines = [
        f"{'game':24} {'config':18} {'rows':>5} {'per-row ms':>11} {'us/row':>7} "
        f"{'batched ms':>11} {'us/row':>7} {'speed-up':>9}"
    ]
    for r in results:
        config = ",".join(f"{k}={v}" for k, v in r["config"].items()) or "default"
        per_row = r["per_row"]
        line = f"{r['game']:24} {config:18} {r['rows']:>5} {per_row * 1e3:>11.1f} {per_row / r['rows'] * 1e6:>7.2f}"
        if r["batched"] is None:
            line += f" {'-':>11} {'-':>7} {'per-row only':>9}"
        else:
            b = r["batched"]
            line += f" {b * 1e3:>11.3f} {b / r['rows'] * 1e6:>7.3f} {r['per_row'] / b:>8.0f}x"
        lines.append(line)
    return lines


def json_record(r: dict) -> dict:
    """A row of the table as ``--json`` writes it (times in milliseconds)."""
    batched = r["batched"]
    return {
        "game": r["game"],
        "config": ",".join(f"{k}={v}" for k, v in r["config"].items()) or "default",
        "rows": r["rows"],
        "per_row_ms": r["per_row"] * 1e3,
        "batched_ms": None if batched is None else batched * 1e3,
        "speedup": None if batched is None else r["per_row"] / batched,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=4096)
    ap.add_argument("--repeats", type=int, default=3, help="per-row passes (the best counts)")
    ap.add_argument("--seconds", type=float, default=1.0, help="time spent repeating the batched call")
    ap.add_argument("--games", default=None, help="comma-separated games (default: all)")
    ap.add_argument("--append", default=None, help="append the results as a section of this file")
    report.add_json_option(ap, "agents")
    args = ap.parse_args(argv)
    games = set(args.games.split(",")) if args.games else None
    results = []
    for game, config in CONFIGS:
        if games is None or game in games:
            print(f"measuring {game} {config} ...", flush=True)
            results.append(measure(game, config, args.rows, args.repeats, args.seconds))
    lines = table(results)
    print("\n".join(lines))
    if args.json:
        report.write(args.json, "agents", [json_record(r) for r in results])
    if args.append:
        load = "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
        head = [
            "",
            "## Batched rule agents (benchmarks/agents.py)",
            f"# date: {time.strftime('%Y-%m-%dT%H:%M:%S%z')}",
            f"# command: python benchmarks/agents.py {' '.join(argv if argv is not None else sys.argv[1:])}",
            f"# {os.cpu_count()} logical CPUs shared with other workers; {load}; one thread",
            "# the same batch of reachable decision states (half random play, half rule-guided) decided by the",
            "# per-row reference (act_row: best of the passes) and by the batched rules (median call); equal decisions",
            "",
        ]
        with open(args.append, "a") as fh:
            fh.write("\n".join(head + lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
