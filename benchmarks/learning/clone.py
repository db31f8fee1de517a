"""Diagnosis 1: can a network on the observation imitate the rule agent?

Collects the rule agent's decisions (every seat played by it) on the
batched engine, fits the learners' own network (``cardenvs.agents.mlp``:
symlog, two tanh layers) to them by masked cross-entropy, and reports the
held-out accuracy per phase and the clone's duplicate edge over the rule
agent.  If the clone falls well short, the observation lacks something the
rules use; if it matches, learning stops for another reason.

    python benchmarks/learning/clone.py --game pepper_v0 --seed 1 --out benchmarks/learning/results
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import cardenvs.vector as V  # noqa: E402
from cardenvs.agents.mlp import MLPAgent, build_mlp, imitate, symlog  # noqa: E402
from cardenvs.agents.registry import make_agent  # noqa: E402
from cardenvs.evaluation.duplicate import duplicate_match  # noqa: E402

PHASES = {  # action ids -> phase name, per game (the first id of a mask's legal set names its phase)
    "pepper_v0": [(0, 10, "bid"), (10, 15, "trump"), (15, 39, "play")],
}


def collect(game: str, config: dict, num_envs: int, steps: int, seed: int) -> tuple[np.ndarray, ...]:
    """The rule agent's (observation, mask, action) at every decision, every seat."""
    venv = V.make(game, num_envs, seed=seed, **config)
    obs, info = venv.reset()
    rule = make_agent(game, "rule", **config)
    xs, ms, ys = [], [], []
    for _ in range(steps):
        mask = info["action_mask"]
        if obs.ndim == 3:  # Spit: both seats decide on every step; one decision per seat
            act = np.stack([rule.act_batch(obs[:, s], mask[:, s]) for s in range(obs.shape[1])], axis=1)
            xs.append(np.asarray(obs, np.int16).reshape(-1, obs.shape[2]))
            ms.append(mask.reshape(-1, mask.shape[2]).copy()), ys.append(act.reshape(-1))
        else:
            act = rule.act_batch(obs, mask)
            xs.append(np.asarray(obs, np.int16)), ms.append(mask.copy()), ys.append(act)
        obs, _, _, _, info = venv.step(act)
    return np.concatenate(xs), np.concatenate(ms), np.concatenate(ys)


def phase_of(game: str, mask: np.ndarray) -> np.ndarray:
    first = mask.argmax(axis=1)
    out = np.empty(len(mask), object)
    for lo, hi, name in PHASES.get(game, [(0, mask.shape[1], "all")]):
        out[(first >= lo) & (first < hi)] = name
    return out


def fit(x: np.ndarray, m: np.ndarray, y: np.ndarray, hidden: int, epochs: int, seed: int) -> torch.nn.Module:
    torch.manual_seed(seed)
    net = build_mlp(x.shape[1], [hidden, hidden], m.shape[1])
    for epoch, loss in enumerate(imitate(net, x, m, y, epochs=epochs, seed=seed)):
        print(f"epoch {epoch + 1}/{epochs}: loss {loss:.4f}", flush=True)
    return net


def accuracy(game: str, net: torch.nn.Module, x, m, y) -> dict[str, float]:
    with torch.no_grad():
        pred = net(symlog(x)).masked_fill(~torch.as_tensor(m), -1e9).argmax(1).numpy()
    phases = phase_of(game, m)
    out = {"all": float((pred == y).mean())}
    for name in sorted(set(phases)):
        sel = phases == name
        out[name] = float((pred[sel] == y[sel]).mean())
        out[name + "_decisions"] = int(sel.sum())
    # (a decision with one legal action is not a choice: accuracy over real choices)
    real = m.sum(1) > 1
    out["all_real_choices"] = float((pred[real] == y[real]).mean())
    return out


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="pepper_v0")
    p.add_argument("--config", default="{}")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--num-envs", type=int, default=1024)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--deals", type=int, default=200, help="duplicate deals of the clone against the rule agent")
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    config = json.loads(args.config)
    torch.set_num_threads(1)
    print(f"behaviour cloning of the rule agent: {args.game} {config}, seed {args.seed}", flush=True)
    t0 = time.process_time()
    x, m, y = collect(args.game, config, args.num_envs, args.steps, args.seed)
    test = collect(args.game, config, 256, args.steps, args.seed + 10**6)  # games never trained on
    print(f"{len(x)} decisions to fit, {len(test[0])} held out", flush=True)
    net = fit(x, m, y, args.hidden, args.epochs, args.seed)
    train_acc, test_acc = accuracy(args.game, net, x, m, y), accuracy(args.game, net, *test)
    print("held-out accuracy:", json.dumps(test_acc), flush=True)
    clone = MLPAgent(
        net,
        {"game": args.game, "config": config, "obs_size": x.shape[1], "num_actions": m.shape[1]},
        name="clone",
    )
    rule = make_agent(args.game, "rule", **config)
    edge = duplicate_match(args.game, clone, rule, deals=args.deals, seed=args.seed + 2 * 10**6, **config)
    print(edge, flush=True)
    result = {
        "game": args.game,
        "config": config,
        "seed": args.seed,
        "decisions": len(x),
        "train_accuracy": train_acc,
        "heldout_accuracy": test_acc,
        "edge_vs_rule": {"mean": edge.mean, "low": edge.low, "high": edge.high, "deals": edge.deals},
        "cpu_seconds": time.process_time() - t0,
    }
    if args.out:
        out = pathlib.Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / f"clone-{args.game}.json").write_text(json.dumps(result, indent=1) + "\n")
    return result


if __name__ == "__main__":
    main()
