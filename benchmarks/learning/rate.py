"""Rate policies against the rule agent in duplicate deals of the whole game:
the win-share edge (saturates: a learner that loses every game sits at -1)
and the score-per-hand edge (finer: how many points a hand the agent's side
gains on the rule agent's in the same deals).

    python benchmarks/learning/rate.py --game pepper_v0 --agents mlp:PATH,... --deals 200 --out FILE
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cardenvs.agents.specs import agent_factory, split_specs  # noqa: E402
from cardenvs.evaluation.duplicate import play_duplicate, summarise_pair  # noqa: E402

EVAL_CONFIG = {"pepper_v0": {"num_players": 4}, "cancellation_hearts_v0": {"num_players": 6}}


def edges(game: str, mine, other, deals: int, seed: int, names: list[str], config: dict) -> dict:
    """``mine`` against ``other`` in ``deals`` duplicate deals: the win and
    per-hand edges, each ``[mean, low, high]`` (95%)."""
    record = play_duplicate(game, [mine, other], deals, seed, names=names, **config)
    out = {}
    for measure in ("win", "hand"):
        pair = summarise_pair(record, measure)
        out[measure] = [round(pair.mean, 4), round(pair.low, 4), round(pair.high, 4)]
    return out


def edge_text(point: list[float]) -> str:
    """``[mean, low, high]`` as ``+0.123 [+0.045, +0.201]``."""
    return f"{point[0]:+.3f} [{point[1]:+.3f}, {point[2]:+.3f}]"


def rate(game: str, spec: str, deals: int, seed: int, against: str = "rule") -> dict:
    config = EVAL_CONFIG.get(game, {})
    mine, other = agent_factory(game, spec, config)(0), agent_factory(game, against, config)(1)
    out = edges(game, mine, other, deals, seed, [spec, against], config)
    out["deals"], out["against"] = deals, against
    return out


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="pepper_v0")
    p.add_argument("--agents", required=True, help="specs, or NAME=SPEC")
    p.add_argument("--deals", type=int, default=200)
    p.add_argument("--seed", type=int, default=777_000, help="deal seeds never used in training")
    p.add_argument("--against", default="rule", help="the opponent's spec (default: the rule agent)")
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    report = {}
    for item in split_specs(args.agents):
        name, _, spec = item.partition("=") if "=" in item.split(":")[0] else ("", "", item)
        report[name or spec] = rate(args.game, spec, args.deals, args.seed, args.against)
        print(name or spec, json.dumps(report[name or spec]), flush=True)
    if args.out:
        path = pathlib.Path(args.out)
        old = json.loads(path.read_text()) if path.exists() else {}
        path.write_text(json.dumps({**old, **report}, indent=1) + "\n")
    return report


if __name__ == "__main__":
    main()
