"""Shared-policy PPO with action masking on any cardenvs game, with Ray RLlib.

    python examples/rllib_train.py --game pepper_v0 --num-env-runners 2 --iterations 20
    python examples/rllib_train.py --game spit_v0 --config reward='"cards_shed"' max_ticks=2000
    python examples/rllib_train.py --game pepper_v0 --address auto   # join a running Ray cluster

Every seat plays the same module (RLlib's action-masking RLModule); each
env runner steps ``--envs-per-runner`` games at once through the vector
engine (``cardenvs.integrations.rllib.CardEnvRunner``).  Without
``--config`` each game trains on short, densely rewarded episodes (the
options of ``examples/train_<game>.py``, in ``TRAINING_CONFIG``); ``--config``
replaces them (values are JSON, else strings).  Every ``--eval-every``
iterations (and before the first) the policy holds one seat (rotated)
against uniformly random legal players for ``--eval-games`` episodes of the
same config: its mean return is the learning curve.  Output in ``--run-dir``:
``progress.jsonl`` (one line per iteration), ``learning_curve.png`` and
``checkpoint/`` (``Algorithm.from_checkpoint(path)`` restores it).
See docs/rllib.md, also for running on a cluster.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import time
from typing import Any

import numpy as np

import cardenvs
import cardenvs.vector

# short episodes with a dense reward, as examples/train_<game>.py use them
TRAINING_CONFIG: dict[str, dict[str, Any]] = {
    "pepper_v0": {"max_hands": 1, "reward": "score_delta"},
    "cancellation_hearts_v0": {"max_hands": 1, "reward": "score_delta"},
    "push_v0": {"rounds": [1], "reward": "score_delta"},
    "spit_v0": {"reward": "cards_shed", "max_ticks": 600},
}


def parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="pepper_v0", choices=cardenvs.GAMES)
    p.add_argument(
        "--config", nargs="*", default=None, metavar="KEY=VALUE", help="game options (default: TRAINING_CONFIG[game])"
    )
    p.add_argument("--num-env-runners", type=int, default=2)
    p.add_argument("--envs-per-runner", type=int, default=16, help="games each env runner steps at once")
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--address", default=None, help="Ray cluster to join ('auto' or HOST:PORT); default: start one here")
    p.add_argument("--num-cpus", type=int, default=None, help="CPUs of the local Ray instance (without --address)")
    p.add_argument("--run-dir", default=None, help="default: runs/rllib_<game>")
    p.add_argument("--train-batch", type=int, default=4000, help="env steps per training iteration")
    p.add_argument("--minibatch", type=int, default=256)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    p.add_argument("--eval-every", type=int, default=5, help="iterations between evaluations (0: none)")
    p.add_argument("--eval-games", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def evaluate(module: Any, game: str, config: dict, games: int, seed: int) -> tuple[float, float]:
    """Mean return (and its 95% half-width) of ``module`` holding one seat
    (rotated over the episodes) against random legal players; its actions
    are sampled from the masked policy."""
    import torch

    engine = cardenvs.vector.make(game, games, seed, obs_dtype="float32", **config)
    simultaneous = cardenvs.registry.spec(game).simultaneous
    rng = np.random.default_rng(seed)
    gen = torch.Generator().manual_seed(seed)
    seat = np.arange(games) % engine.num_players
    rows = np.arange(games)
    total = np.zeros(games)
    running = np.ones(games, bool)
    obs, info = engine.reset(seed=seed)
    module.eval()
    while running.any():
        mask = info["action_mask"]
        if simultaneous:
            own_obs, own_mask = obs[rows, seat], mask[rows, seat]
        else:
            own_obs, own_mask = obs, mask
        with torch.no_grad():
            out = module.forward_inference(
                {
                    "obs": {
                        "observations": torch.from_numpy(own_obs),
                        "action_mask": torch.from_numpy(own_mask.astype(np.float32)),
                    }
                }
            )
            logits = out["action_dist_inputs"]
            mine = torch.multinomial(torch.softmax(logits, -1), 1, generator=gen).numpy()[:, 0]
        noise = rng.random(mask.shape) * mask
        actions = noise.argmax(axis=-1)  # uniform random legal actions
        if simultaneous:
            actions[rows, seat] = mine
        else:
            ours = info["current_player"] == seat
            actions[ours] = mine[ours]
        obs, rewards, terminated, truncated, info = engine.step(actions)
        total += np.where(running, rewards[rows, seat], 0.0)
        running &= ~(terminated | truncated)
    engine.close()
    return float(total.mean()), float(1.96 * total.std(ddof=1) / math.sqrt(games)) if games > 1 else 0.0


def plot(history: list[dict], path: pathlib.Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    ev = [h for h in history if h.get("eval_reward") is not None]
    if ev:
        x = [h["env_steps"] for h in ev]
        y = np.array([h["eval_reward"] for h in ev])
        ci = np.array([h["eval_ci"] for h in ev])
        ax1.plot(x, y, "o-", label="policy seat vs random players")
        ax1.fill_between(x, y - ci, y + ci, alpha=0.25)
    ax1.axhline(0.0, color="grey", lw=0.8)
    ax1.set_xlabel("env steps sampled")
    ax1.set_ylabel("mean return of the policy's seat")
    ax1.set_title("evaluation (95% CI)")
    ax1.legend(loc="lower right")
    tr = [h for h in history if h.get("iteration", 0) > 0]
    x = [h["env_steps"] for h in tr]
    ax2.plot(x, [h.get("entropy") for h in tr], label="policy entropy")
    if any(h.get("episode_len") is not None for h in tr):
        ax3 = ax2.twinx()
        ax3.plot(x, [h.get("episode_len") for h in tr], color="tab:orange", label="episode length")
        ax3.set_ylabel("episode length (env steps)")
        ax3.legend(loc="upper right")
    ax2.set_xlabel("env steps sampled")
    ax2.set_ylabel("entropy")
    ax2.legend(loc="upper left")
    ax2.set_title("training (RLlib metrics)")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    import ray

    from cardenvs.integrations.rllib import SHARED_POLICY, ppo_config

    if args.config is None:
        game_config = dict(TRAINING_CONFIG[args.game])
    else:
        game_config = {k: parse_value(v) for k, v in (kv.split("=", 1) for kv in args.config)}
    run_dir = pathlib.Path(args.run_dir or f"runs/rllib_{args.game}")
    run_dir.mkdir(parents=True, exist_ok=True)

    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False)
    print(
        f"Ray: {ray.cluster_resources().get('CPU', 0):.0f} CPUs in the cluster; {args.game} {game_config}", flush=True
    )

    config = ppo_config(
        args.game,
        env_config=game_config,
        num_env_runners=args.num_env_runners,
        num_envs_per_env_runner=args.envs_per_runner,
        model_config={"fcnet_hiddens": args.hidden, "fcnet_activation": "relu"},
        seed=args.seed,
    ).training(
        train_batch_size_per_learner=args.train_batch,
        minibatch_size=args.minibatch,
        num_epochs=args.epochs,
        lr=args.lr,
    )
    algo = config.build_algo()
    history: list[dict] = []
    progress = (run_dir / "progress.jsonl").open("w")
    title = f"{args.game} {game_config or ''}: shared-policy PPO with action masking (RLlib)"

    def record(row: dict) -> None:
        history.append(row)
        progress.write(json.dumps(row) + "\n")
        progress.flush()

    def run_eval(iteration: int) -> tuple[float, float]:
        return evaluate(algo.get_module(SHARED_POLICY), args.game, game_config, args.eval_games, args.seed + iteration)

    t0 = time.perf_counter()
    prev_steps = 0
    if args.eval_every:
        mean, ci = run_eval(0)
        record({"iteration": 0, "env_steps": 0, "eval_reward": mean, "eval_ci": ci})
        print(f"iter   0  untrained policy vs random: {mean:+.3f} ± {ci:.3f}", flush=True)
    for it in range(1, args.iterations + 1):
        result = algo.train()
        runners = result.get("env_runners", {})
        learner = result.get("learners", {}).get(SHARED_POLICY, {})
        steps = int(result.get("num_env_steps_sampled_lifetime", runners.get("num_env_steps_sampled_lifetime", 0)))
        row = {
            "iteration": it,
            "env_steps": steps,
            "time_s": round(time.perf_counter() - t0, 1),
            "iteration_s": round(float(result.get("time_this_iter_s", float("nan"))), 2),
            "episode_len": runners.get("episode_len_mean"),
            "episodes": runners.get("num_episodes_lifetime"),
            "entropy": learner.get("entropy"),
            "policy_loss": learner.get("policy_loss"),
            "vf_loss": learner.get("vf_loss"),
        }
        row = {k: (float(v) if isinstance(v, (np.floating, np.integer)) else v) for k, v in row.items()}
        line = (
            f"iter {it:3d}  steps {steps:8d}  "
            f"{(steps - prev_steps) / row['iteration_s']:6.0f} steps/s (sample+update)  "
            f"entropy {row['entropy'] or float('nan'):.3f}  vf_loss {row['vf_loss'] or float('nan'):.3f}"
        )
        if row["episode_len"] is not None and not math.isnan(row["episode_len"]):
            line += f"  episode length {row['episode_len']:.0f}"
        if args.eval_every and (it % args.eval_every == 0 or it == args.iterations):
            row["eval_reward"], row["eval_ci"] = run_eval(it)
            line += f"  | vs random: {row['eval_reward']:+.3f} ± {row['eval_ci']:.3f}"
        record(row)
        prev_steps = steps
        print(line, flush=True)
        plot(history, run_dir / "learning_curve.png", title)
    checkpoint = algo.save_to_path(str((run_dir / "checkpoint").resolve()))
    progress.close()
    plot(history, run_dir / "learning_curve.png", title)
    print(f"checkpoint: {checkpoint}\nlearning curve: {run_dir / 'learning_curve.png'}", flush=True)
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
