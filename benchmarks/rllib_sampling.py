"""RLlib's sampling throughput on a cardenvs game: env steps per second
collected by 1 and 2 env runners (Ray actors, one CPU each) with the
shared-policy action-masking PPO module choosing every action.

    python benchmarks/rllib_sampling.py                      # Pepper, 1 and 2 runners
    python benchmarks/rllib_sampling.py --game spit_v0 --runners 1 2 4 --compare

Each env runner steps ``--envs-per-runner`` games through the vector engine
(``CardEnvRunner``); ``--compare`` also times RLlib's own runner, which
builds that many one-game envs and steps them one after another.  Timed:
``EnvRunner.sample(num_timesteps=...)`` on every runner at once (after a
warm-up sample), env steps counted from the episodes returned.  No
training; the figures are the sampling half of a PPO iteration.
"""

from __future__ import annotations

import argparse
import time

import cardenvs


def measure(game: str, runners: int, envs: int, steps: int, vectorised: bool, config: dict) -> float:
    from cardenvs.integrations.rllib import ppo_config

    algo = ppo_config(
        game, env_config=config, num_env_runners=runners, num_envs_per_env_runner=envs, vectorised=vectorised, seed=0
    ).build_algo()
    try:

        def sample(runner, n=steps):
            return sum(e.env_steps() for e in runner.sample(num_timesteps=n, explore=True))

        algo.env_runner_group.foreach_env_runner(lambda r: sample(r, 200), local_env_runner=False)  # warm-up
        t0 = time.perf_counter()
        counts = algo.env_runner_group.foreach_env_runner(sample, local_env_runner=False)
        return sum(counts) / (time.perf_counter() - t0)
    finally:
        algo.stop()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="pepper_v0", choices=cardenvs.GAMES)
    p.add_argument("--runners", type=int, nargs="+", default=[1, 2])
    p.add_argument("--envs-per-runner", type=int, default=16)
    p.add_argument("--steps", type=int, default=4000, help="env steps each runner samples in the timed call")
    p.add_argument("--compare", action="store_true", help="also time RLlib's own runner (one env per game)")
    p.add_argument("--address", default=None, help="Ray cluster to join; default: a local instance")
    args = p.parse_args()

    import ray

    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=max(args.runners), include_dashboard=False, log_to_driver=False)
    print(f"RLlib sampling, {args.game}, {args.envs_per_runner} games per env runner, {args.steps} steps per runner")
    for runners in args.runners:
        modes = [True, False] if args.compare else [True]
        for vectorised in modes:
            rate = measure(args.game, runners, args.envs_per_runner, args.steps, vectorised, {})
            how = "vector engine (CardEnvRunner)" if vectorised else "RLlib's runner, one env per game"
            print(f"  {runners} env runner(s), {how}: {rate:8.0f} env steps/s", flush=True)
    ray.shutdown()


if __name__ == "__main__":
    main()
