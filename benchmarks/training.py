#!/usr/bin/env python
"""The training loop's speed: learner environment steps per second of each
game's default training config, over whole MaskablePPO rollouts and updates,
with what bounds it.

    python benchmarks/training.py                            # every game, 3 rollouts each after a warm-up
    python benchmarks/training.py --games pepper_v0 --agents batched,reference --stages fixed,selfplay
    python benchmarks/training.py --advice all --json        # + benchmarks/results/training.json

A game's default config is the one its ``examples/train_<game>.py`` trains
with (read from the script's ``cli(...)`` call), rule-advised where the
demo (``make demo``) advises: Pepper.  The timed part is whole rollouts and
updates (``model.learn``, one rollout of ``num_envs x n_steps`` learner steps
and its ``n_epochs`` update at a time) after one warm-up rollout; stage
``fixed`` plays against the rule agent (partner and opponents), stage
``selfplay`` against a frozen snapshot of the learner, as the example's two
stages do.  ``--agents reference`` plays the rule agents' per-row reference
(``act_row``, the code before the batched rules), ``batched`` the batched
rules; ``--advice all`` advises every game (as the committed baselines were
trained), ``--set`` overrides a TrainConfig field (a lighter recipe, say).

It prints learner steps per wall-clock second and per CPU-second of its
process (on a machine shared with other work the second is the steadier
figure), and the breakdown splits the process's CPU time into: the engine (``engine.step``), the
other seats' agents (their ``act_batch``), the advice (the advisor's
``act_batch``), the learner env's own Python (the rest of the VecEnv's
``step_wait``: rewards, infos, float32 views), the policy's forward passes
while collecting, SB3's rollout bookkeeping (the rest of
``collect_rollouts``: masks, tensors, the buffer, callbacks) and the update
(``train``: forward and backward passes over the epochs, the optimizer).
"""

from __future__ import annotations

import argparse
import ast
import functools
import os
import pathlib
import sys
import time
from collections import defaultdict
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]
CLOCK = time.process_time  # the breakdown counts this process's CPU time: the machine is shared
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import report  # noqa: E402  (benchmarks/report.py: --json)

from cardenvs.agents.base import Agent  # noqa: E402
from cardenvs.registry import GAMES  # noqa: E402

DEMO_ADVICE = {"pepper_v0"}  # make demo: examples/train_pepper.py --advice
ADVICE = {"demo": DEMO_ADVICE.__contains__, "all": lambda game: True, "none": lambda game: False}
EXAMPLE = {"cancellation_hearts_v0": "train_cancellation_hearts.py"}
BUCKETS = [
    ("engine", "engine.step"),
    ("agents", "other seats' agents"),
    ("advice", "advice (rule agent)"),
    ("env", "learner env Python"),
    ("forward", "policy forward (rollout)"),
    ("sb3", "SB3 rollout bookkeeping"),
    ("update", "update (fwd+bwd, optimizer)"),
    ("other", "other"),
]


def recipe_path(game: str) -> pathlib.Path:
    """``examples/train_<game>.py``, the game's training recipe."""
    return ROOT / "examples" / EXAMPLE.get(game, f"train_{game.removesuffix('_v0')}.py")


#: The games with a training recipe (High Card, the template game, has none): the default ``--games``.
RECIPE_GAMES = [game for game in GAMES if recipe_path(game).is_file()]


def example_settings(game: str) -> dict[str, Any]:
    """The keyword arguments of the ``cli(...)`` call in ``examples/train_<game>.py``."""
    path = recipe_path(game)
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "cli":
            from cardenvs.training import ppo as training

            out: dict[str, Any] = {}
            for kw in node.keywords:  # ``**NAME``: a recipe from cardenvs.training.ppo (LIGHT_RECIPE)
                out.update({kw.arg: ast.literal_eval(kw.value)} if kw.arg else getattr(training, kw.value.id))
            return out
    raise ValueError(f"no cli(...) call in {path}")


def train_config(game: str, advice: bool, overrides: dict | None = None) -> Any:
    """The TrainConfig the example's defaults give (its first variant), with ``overrides``."""
    from cardenvs.training.ppo import TrainConfig

    settings = example_settings(game)
    env_config, eval_config = dict(settings.pop("env_config", {})), settings.pop("eval_config", {})
    variants = settings.pop("variants", None)
    if variants:
        env_config.update(next(iter(variants.values()))[0])
    for key in ("name", "fixed_steps", "selfplay_steps", "steps_per_second"):
        settings.pop(key, None)
    settings.update(overrides or {})
    return TrainConfig(game=game, env_config=env_config, eval_config=eval_config, advice=advice, **settings)


class Timers(defaultdict):
    def __init__(self):
        super().__init__(float)

    def wrap(self, obj: Any, attr: str, bucket: str) -> None:
        """Time every call of ``obj.attr`` into ``bucket`` (an instance attribute shadows the method)."""
        fn = getattr(obj, attr)

        @functools.wraps(fn)
        def timed(*args, **kwargs):
            t0 = CLOCK()
            try:
                return fn(*args, **kwargs)
            finally:
                self[bucket] += CLOCK() - t0

        setattr(obj, attr, timed)


class TimedAgent(Agent):
    """``agent`` with its ``act_batch`` time counted in ``timers[bucket]``."""

    def __init__(self, agent: Agent, timers: Timers, bucket: str):
        self.agent, self.timers, self.bucket = agent, timers, bucket
        self.name = agent.name

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        t0 = CLOCK()
        try:
            return self.agent.act_batch(obs, mask)
        finally:
            self.timers[self.bucket] += CLOCK() - t0


def build(
    game: str, agents: str, stage: str, timers: Timers, overrides: dict, advice: str
) -> tuple[Any, Any, Any, str]:
    """(model, env, config, the rule agent's kind) of the game's default training, instrumented."""
    from cardenvs.agents.policy import FrozenPolicyAgent, one_torch_thread
    from cardenvs.agents.registry import rule_agent
    from cardenvs.training.ppo import _new_model
    from cardenvs.training.seat_env import learner_vec_env

    one_torch_thread()  # as cardenvs.training.ppo.train
    cfg = train_config(game, advice=ADVICE[advice](game), overrides=overrides)
    rule = rule_agent(game, **cfg.eval_config, **({"reference": True} if agents == "reference" else {}))
    fixed = TimedAgent(rule, timers, "agents")
    advisor = TimedAgent(rule, timers, "advice") if cfg.advice else None
    env = learner_vec_env(
        game,
        cfg.num_envs,
        opponents=fixed,
        partner=fixed,
        seed=cfg.seed,
        reward_mode=cfg.reward_mode,
        advisor=advisor,
        **cfg.env_config,
    )
    model = _new_model(cfg, env)
    if stage == "selfplay":
        # (its advice is counted as advice, not as the agents' time)
        inner = TimedAgent(rule, timers, "nested_advice") if cfg.advice else None
        snapshot = TimedAgent(FrozenPolicyAgent(model, advisor=inner), timers, "agents")
        env.opponents = env.partner = snapshot
    timers.wrap(env.engine, "step", "engine")
    timers.wrap(env, "step_wait", "step_wait")
    timers.wrap(model.policy, "forward", "forward")
    timers.wrap(model.policy, "predict_values", "forward")
    timers.wrap(model, "collect_rollouts", "collect")
    timers.wrap(model, "train", "update")
    # a rule agent without batched rules (the code before them) is per-row either way
    return model, env, cfg, agents if hasattr(rule, "reference") else "per-row"


def measure(
    game: str,
    agents: str,
    stage: str,
    rollouts: int,
    steps: int | None,
    seconds: float | None,
    overrides: dict,
    advice: str = "demo",
) -> dict:
    timers = Timers()
    model, env, cfg, agents = build(game, agents, stage, timers, overrides, advice)
    per_rollout = cfg.num_envs * cfg.n_steps
    if steps:
        rollouts = max(1, -(-steps // per_rollout))
    label = f"{game} {stage} ({agents} agents{', advised' if cfg.advice else ''})"
    t0 = time.perf_counter()
    model.learn(per_rollout)  # warm-up: compiles, first allocations
    print(f"  {label}: warm-up rollout {per_rollout:,} steps in {time.perf_counter() - t0:.1f} s", flush=True)
    timers.clear()
    start, cpu_start, done = time.perf_counter(), CLOCK(), 0
    for k in range(rollouts):
        model.learn(per_rollout, reset_num_timesteps=False)
        done += per_rollout
        elapsed, cpu = time.perf_counter() - start, CLOCK() - cpu_start
        print(
            f"  {label}: rollout {k + 1}/{rollouts}: {done:,} steps, {done / elapsed:,.0f} steps/s "
            f"({done / cpu:,.0f} per CPU-second)",
            flush=True,
        )
        if seconds is not None and elapsed >= seconds:
            break
    wall, total = time.perf_counter() - start, CLOCK() - cpu_start
    parts = dict(timers)
    nested = parts.get("nested_advice", 0.0)
    shares = {
        "engine": parts.get("engine", 0.0),
        "agents": parts.get("agents", 0.0) - nested,
        "advice": parts.get("advice", 0.0) + nested,
        "env": parts.get("step_wait", 0.0)
        - parts.get("engine", 0.0)
        - parts.get("agents", 0.0)
        - parts.get("advice", 0.0),
        "forward": parts.get("forward", 0.0),
        "sb3": parts.get("collect", 0.0) - parts.get("step_wait", 0.0) - parts.get("forward", 0.0),
        "update": parts.get("update", 0.0),
    }
    shares["other"] = total - sum(shares.values())
    return {
        "game": game,
        "stage": stage,
        "agents": agents,
        "advice": cfg.advice,
        "num_envs": cfg.num_envs,
        "steps": done,
        "seconds": wall,
        "rate": done / wall,
        "cpu_rate": done / total,
        "shares": {k: v / total for k, v in shares.items()},
    }


def table(results: list[dict]) -> list[str]:
    head = f"{'game':24} {'stage':8} {'agents':9} {'advice':6} {'steps':>7} {'steps/s':>8} {'/CPU-s':>8}"
    head += "".join(f" {key:>7}" for key, _ in BUCKETS)
    lines = [head]
    for r in results:
        advice = "yes" if r["advice"] else "no"
        line = f"{r['game']:24} {r['stage']:8} {r['agents']:9} {advice:6} {r['steps']:>7,}"
        line += f" {r['rate']:>8,.0f} {r['cpu_rate']:>8,.0f}"
        line += "".join(f" {100 * r['shares'][key]:>6.1f}%" for key, _ in BUCKETS)
        lines.append(line)
    lines.append("steps/s: learner steps per wall-clock second; /CPU-s: per CPU-second of this process")
    lines.append(
        "then each part's share of the process's CPU time: " + "; ".join(f"{k} = {text}" for k, text in BUCKETS)
    )
    return lines


def batched_rules(game: str) -> bool:
    """Whether the game's rule agent has batched rules (a per-row reference to compare with)."""
    from cardenvs.agents.base import RuleAgent
    from cardenvs.agents.registry import rule_agent

    return isinstance(rule_agent(game), RuleAgent)


def bound(r: dict) -> str:
    ranked = sorted(r["shares"].items(), key=lambda kv: -kv[1])
    names = dict(BUCKETS)
    return ", ".join(f"{names[k]} {100 * v:.0f}%" for k, v in ranked[:3])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--games", default=",".join(RECIPE_GAMES), help="comma-separated (default: every game with a recipe)"
    )
    ap.add_argument("--agents", default="batched", help="batched, reference or both (comma-separated)")
    ap.add_argument("--stages", default="fixed", help="fixed, selfplay or both (comma-separated)")
    ap.add_argument(
        "--advice",
        choices=list(ADVICE),
        default="demo",
        help="rule-advised learners: where make demo advises (Pepper), every game, or none",
    )
    ap.add_argument("--rollouts", type=int, default=3, help="timed rollouts (+ update) after the warm-up")
    ap.add_argument("--steps", type=int, default=None, help="timed learner steps instead (rounded up to rollouts)")
    ap.add_argument("--seconds", type=float, default=None, help="stop after the rollout that passes this time")
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a TrainConfig field (a Python literal), e.g. --set num_envs=256 --set 'net_arch=(128, 128)'",
    )
    ap.add_argument("--append", default=None, help="append the results as a section of this file")
    ap.add_argument("--note", default=None, help="a line for the appended section's heading")
    report.add_json_option(ap, "training")
    args = ap.parse_args(argv)
    overrides = {k: ast.literal_eval(v) for k, v in (item.split("=", 1) for item in args.set)}
    results = []
    for game in args.games.split(","):
        for stage in args.stages.split(","):
            for agents in args.agents.split(","):
                if agents == "reference" and not batched_rules(game):
                    continue  # its rule agent is per-row either way: measured once
                print(f"{game}, stage {stage}, {agents} rule agents:", flush=True)
                results.append(
                    measure(game, agents, stage, args.rollouts, args.steps, args.seconds, overrides, args.advice)
                )
    lines = table(results) + ["what bounds it (largest shares):"]
    if overrides:
        lines.insert(0, "training config overrides: " + ", ".join(f"{k}={v!r}" for k, v in overrides.items()))
    lines += [f"  {r['game']} {r['stage']} {r['agents']}: {bound(r)}" for r in results]
    print("\n".join(lines))
    if args.json:
        records = [{k: v for k, v in r.items() if k != "shares"} | {"bound": bound(r)} for r in results]
        report.write(args.json, "training", records, overrides={k: repr(v) for k, v in overrides.items()})
    if args.append:
        load = "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
        import torch

        head = [
            "",
            "## Training loop (benchmarks/training.py)",
            f"# date: {time.strftime('%Y-%m-%dT%H:%M:%S%z')}",
            f"# command: python benchmarks/training.py {' '.join(argv if argv is not None else sys.argv[1:])}",
            f"# {os.cpu_count()} logical CPUs shared with other workers ({load}); torch {torch.__version__}, "
            "1 torch thread (as training.py sets)",
            "# learner steps/s of each game's default training config (examples/train_<game>.py; Pepper advised as",
            "# in make demo), whole MaskablePPO rollouts + updates after one warm-up rollout",
        ]
        head += [f"# {args.note}"] if args.note else []
        head += [""]
        with open(args.append, "a") as fh:
            fh.write("\n".join(head + lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
