"""Diagnosis 3: what changes where self-play PPO stops?  One variable at a time.

Trains ``examples/selfplay_ppo.py`` once per variant (the same seed and CPU
budget; each variant changes one thing against ``self``, the league's
learner), then rates each final policy in duplicate deals of the whole
game against the rule agent, and (Pepper) records its behaviour per phase
against the rule agent (``behaviour.py``).  The rule agent appears only as
an opponent in the ``rule-opponent`` variant, never as a teacher.

    python benchmarks/learning/variants.py --game pepper_v0 --cpu-minutes 5 --seed 11 \\
        --runs runs/variants --out benchmarks/learning/results/variants-pepper_v0.json --jobs 2
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import pathlib
import re
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

VARIANTS = {  # name -> the learner's arguments beyond the game, seed and budget
    "self": [],
    "big-batch": ["--num-envs", "128", "--num-steps", "32"],
    "pool": ["--opponents", "pool=0.5"],
    "random-opponent": ["--opponents", "random=0.3"],
    "rule-opponent": ["--opponents", "rule=0.5"],
    "one-hand": ["--config", '{"max_hands": 1}'],
    "whole-game": ["--config", '{"reward": "win_loss", "max_hands": 50}'],
}


def train(game: str, name: str, extra: list[str], cpu_minutes: float, seed: int, runs: pathlib.Path) -> dict:
    run_dir = runs / game / name
    cmd = [sys.executable, str(ROOT / "examples/selfplay_ppo.py"), "--game", game, "--seed", str(seed)]
    cmd += ["--cpu-minutes", str(cpu_minutes), "--run-dir", str(run_dir), "--eval-games", "0", *extra]
    log = runs / game / f"{name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    t = time.time()
    with open(log, "w") as out:
        subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, check=True)
    lines = [line for line in log.read_text().splitlines() if line.startswith("[")]
    tail = lines[-max(1, len(lines) // 10) :]  # the last tenth of the iterations
    num = lambda key: [float(m.group(1)) for line in tail if (m := re.search(rf"\b{key} ([-+0-9.na]+)", line))]  # noqa: E731
    ev, v = num("ev"), num("v")
    run = json.loads((run_dir / "run.json").read_text())
    policy = sorted(run_dir.glob("policy_*.json"))[-1]
    return {
        "args": extra,
        "policy": str(policy),
        "steps": run.get("steps"),
        "wall_seconds": round(time.time() - t),
        "value_loss_last_tenth": sum(v) / len(v) if v else None,
        "explained_variance_last_tenth": sum(ev) / len(ev) if ev else None,
    }


def one(args: argparse.Namespace, name: str) -> tuple[str, dict]:
    out = train(args.game, name, VARIANTS[name], args.cpu_minutes, args.seed, pathlib.Path(args.runs))
    from rate import rate  # (benchmarks/learning/rate.py: the win and per-hand edges over the rule agent)

    out.update(rate(args.game, "mlp:" + out["policy"], args.deals, args.eval_seed))
    if args.game == "pepper_v0":
        from behaviour import agent_factory, play_hands

        mine = agent_factory(args.game, "mlp:" + out["policy"], {"num_players": 4})(0)
        rule = agent_factory(args.game, "rule", {"num_players": 4})(1)
        out["behaviour_self_play"] = play_hands([mine] * 4, 2048, args.eval_seed)
        out["behaviour_vs_rule"] = play_hands([mine, rule, mine, rule], 2048, args.eval_seed)
    print(name, json.dumps({k: v for k, v in out.items() if not k.startswith("behaviour")}), flush=True)
    out["policy"] = os.path.relpath(pathlib.Path(out["policy"]).resolve(), ROOT)  # (as run from the root)
    return name, out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="pepper_v0")
    p.add_argument("--variants", default=",".join(VARIANTS))
    p.add_argument("--cpu-minutes", type=float, default=5.0)
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--eval-seed", type=int, default=777_000, help="deal seeds never used in training")
    p.add_argument("--deals", type=int, default=200)
    p.add_argument("--runs", default="runs/variants")
    p.add_argument("--out", required=True)
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args(argv)
    names = args.variants.split(",")
    print(f"variants of self-play PPO on {args.game}: {names}; {args.cpu_minutes:g} CPU-minutes each, seed {args.seed}")
    sys.path.insert(0, str(pathlib.Path(__file__).parent))
    out_path = pathlib.Path(args.out)
    report = json.loads(out_path.read_text()) if out_path.exists() else {}
    report.setdefault("settings", {}).update(cpu_minutes=args.cpu_minutes, seed=args.seed, deals=args.deals)
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        for name, result in pool.map(one, [args] * len(names), names):
            report.setdefault("variants", {})[name] = result
            out_path.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
