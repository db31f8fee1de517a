"""The command line shared by the per-game training scripts
(``examples/train_<game>.py``): step counts or a wall-time budget
(``--minutes``), the opponent, model selection, overrides of any
:class:`~cardenvs.training.ppo.TrainConfig` field, where to save."""

from __future__ import annotations

from typing import Any

from .ppo import TRAIN_FIELDS, TrainConfig, _opponent_names, parse_overrides, train


def _parser(doc: str, variants: dict | None, fixed_steps: int, selfplay_steps: int, steps_per_second: float):
    import argparse

    from ..agents.registry import CHECKPOINTS

    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    if variants:
        p.add_argument("--variant", choices=list(variants), default=list(variants)[0])
    p.add_argument("--fixed-steps", type=int, default=fixed_steps, help="learner steps against fixed opponents")
    p.add_argument("--selfplay-steps", type=int, default=selfplay_steps, help="then learner steps of self-play")
    p.add_argument(
        "--team-steps",
        type=int,
        default=0,
        help="then steps with its own snapshot as partner against the fixed opponents",
    )
    p.add_argument("--init", default=None, help="continue training this saved model")
    p.add_argument(
        "--advice",
        action="store_true",
        help="a rule-advised policy: start from the rule-based agent and learn where to deviate",
    )
    p.add_argument(
        "--minutes",
        type=float,
        default=None,
        help="train for at most this many minutes of wall time, then evaluate (the step counts become an upper "
        f"bound: twice what ~{steps_per_second:,.0f} learner steps per second would reach)",
    )
    p.add_argument("--learning-rate", type=float, default=None, help="PPO's learning rate (default: the game's)")
    p.add_argument(
        "--ent-coef",
        type=float,
        default=None,
        help="PPO's entropy bonus (default: the game's; with --advice a bonus also pulls the advice weight down)",
    )
    p.add_argument(
        "--select-every",
        type=int,
        default=0,
        help="every this many learner steps play the rule agent on --select-seed; keep the best policy (0: the last)",
    )
    p.add_argument("--select-games", type=int, default=200, help="games per model-selection round")
    p.add_argument(
        "--select-seed", type=int, default=5000, help="the model selection's seed (keep it out of evaluations)"
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="override any TrainConfig field, e.g. --set advice_weight=2 --set net_arch=(128,128) (repeatable)",
    )
    p.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="an option of the training episodes, e.g. --env max_ticks=1000 (repeatable)",
    )
    p.add_argument(
        "--advisor",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="with --advice: an option of the advising rule agent, e.g. --advisor deny=True (Spit) (repeatable)",
    )
    p.add_argument("--opponent", choices=_opponent_names(), default="rule")
    p.add_argument("--num-envs", type=int, default=None, help="games stepped at once (default: the game's)")
    p.add_argument("--eval-games", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--run-dir", default=None, help="default runs/<name>")
    p.add_argument(
        "--save",
        default=None,
        help=f"the trained policy (default {CHECKPOINTS.name}/<name>_ppo.npz, a policy file that loads without "
        "unpickling; a PATH ending in .zip: an SB3 zip; '' = none; the run folder keeps final_model.zip to train on)",
    )
    p.add_argument("--no-progress", action="store_true")
    return p


def cli(
    game: str,
    doc: str,
    env_config: dict,
    eval_config: dict,
    name: str | None = None,
    fixed_steps: int = 600_000,
    selfplay_steps: int = 200_000,
    steps_per_second: float = 2000.0,
    variants: dict[str, tuple[dict, dict]] | None = None,
    **train_kwargs: Any,
) -> None:
    """The command line shared by ``examples/train_<game>.py``: ``--minutes``
    or explicit step counts, the opponent, where to save; ``variants`` maps a
    ``--variant`` name to (extra env options, extra eval options)."""
    from ..agents.registry import CHECKPOINTS, rule_agent

    name = name or game.removesuffix("_v0")
    args = _parser(doc, variants, fixed_steps, selfplay_steps, steps_per_second).parse_args()
    env_cfg, eval_cfg = dict(env_config), dict(eval_config)
    if variants:
        name = args.variant if args.variant != list(variants)[0] else name
        env_cfg.update(variants[args.variant][0])
        eval_cfg.update(variants[args.variant][1])
    fixed, selfplay = args.fixed_steps, args.selfplay_steps
    wall_seconds = 0.0
    if args.minutes is not None:  # (time decides, not steps: the count is an upper bound on a fast machine)
        total = int(2 * args.minutes * 60 * steps_per_second)
        fixed = int(total * fixed_steps / max(1, fixed_steps + selfplay_steps))  # the defaults' split
        selfplay = total - fixed
        wall_seconds = args.minutes * 60
    options = dict(
        wall_seconds=wall_seconds,
        fixed_steps=fixed,
        selfplay_steps=selfplay,
        team_steps=args.team_steps,
        init_model=args.init,
        advice=args.advice,
        eval_games=args.eval_games,
        seed=args.seed,
        select_every=args.select_every,
        select_games=args.select_games,
        select_seed=args.select_seed,
        **train_kwargs,
    )
    for option in ("learning_rate", "ent_coef", "num_envs"):
        if getattr(args, option) is not None:
            options[option] = getattr(args, option)
    options.update(parse_overrides(args.set, TRAIN_FIELDS, "--set"))  # the command line wins
    env_cfg.update(parse_overrides(args.env, None, "--env"))
    if args.advisor and not options["advice"]:
        raise SystemExit("--advisor sets the options of the rule agent that advises: it needs --advice")
    options["advisor_options"] = {
        **options.get("advisor_options", {}),
        **parse_overrides(args.advisor, None, "--advisor"),
    }
    cfg = TrainConfig(game=game, env_config=env_cfg, eval_config=eval_cfg, **options)
    save = args.save if args.save is not None else str(CHECKPOINTS / f"{name}_ppo.npz")
    summary = train(
        cfg,
        rule_agent(game, **eval_cfg),
        args.run_dir or f"runs/{name}",
        save or None,
        opponent=args.opponent,
        progress_bar=not args.no_progress,
    )
    minutes = summary["train_cpu_seconds"] / 60
    print(
        f"\n{name}: a run of {summary['run_timesteps']:,} learner steps in {minutes:.1f} CPU-minutes of training; "
        f"the policy kept ({summary['timesteps']:,} steps) in the end:"
    )
    for result in summary["results"]:
        print("  " + result["verdict"])
