"""Retrain a game's policy learned from scratch: the agent ``"scratch"``.

One command per game, with the learner, options and budget that made the
committed policy (``RECIPES``, ``STEPS`` and ``BUDGETS`` below, the one
place they are written):

    python examples/retrain_scratch.py --game cancellation_hearts_v0
    python examples/retrain_scratch.py --game cancellation_hearts_v0 --seed 2 --install

It prints the learner, its budget and its seed before it starts (the
budget in steps, engine steps x games, so that a run replays: ``--steps``,
by default ``STEPS``; the recipes trained before steps budgets keep their
CPU-minutes, ``--cpu-minutes``), trains with no rule advice (every seat is the learner itself, or in
Pepper and Spit its search, whose choices the network imitates; in
Cancellation Hearts the learner sits alone at one seat among past
snapshots of itself, the rule agent or random play in most games: the
rule agent is an opponent there, never a teacher: nothing is learned from
its decisions), and writes its snapshots to ``--run-dir`` (default
``runs/scratch_<game>_s<seed>``).  With ``--install`` the final policy is
copied to ``agents/checkpoints/`` under the name the game's GameSpec gives
(``scratch``), where ``make_agent(game, "scratch")`` reads it.  Rate it
with ``python benchmarks/learning/rate.py --game GAME --agents scratch``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pathlib
import shlex
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "examples")]

from cardenvs.app.arguments import MAX_SEED, number, whole  # noqa: E402
from cardenvs.registry import GAMES  # noqa: E402

BUDGET_MINUTES = 30.0
SNAPSHOT_EVERY = 300.0  # CPU-seconds: the points of the learning curves

#: per game: the learner (a module of examples/) and its options, less the
#: budget, the seed, the snapshots and the run folder, which this script adds
RECIPES: dict[str, tuple[str, list[str]]] = {
    "pepper_v0": (
        "expert_iteration",
        ["--game", "pepper_v0", "--worlds", "8", "--decisions", "10000", "--num-envs", "64"],
    ),
    "cancellation_hearts_v0": (  # against a population: alone at one seat among past snapshots, the rule
        "selfplay_ppo",  # agent (an opponent, never a teacher) or random play in 80% of the games
        [
            "--game",
            "cancellation_hearts_v0",
            "--config",
            '{"num_players": 6}',
            "--critic",
            "obs",
            "--opponents",
            "pool=0.3,rule=0.4,random=0.1",
            "--eval-games",
            "0",
        ],
    ),
    "push_v0": ("selfplay_ppo", ["--game", "push_v0", "--critic", "obs", "--num-envs", "64", "--eval-games", "0"]),
    "spit_v0": (  # the look-ahead over the next ticks (random roll-outs) distilled into a network
        "expert_iteration",
        ["--game", "spit_v0", "--worlds", "16", "--horizon", "4", "--decisions", "50000", "--num-envs", "64"],
    ),
}
#: the budgets (CPU-minutes) that differ from BUDGET_MINUTES
BUDGETS: dict[str, float] = {}
#: the recipes whose budget is in steps, by default: engine steps x games (expert iteration: the
#: decisions its search labels), so that their runs replay
STEPS: dict[str, int] = {"spit_v0": 600_000, "cancellation_hearts_v0": 4_000_000}


def learner_argv(
    game: str, seed: int, minutes: float | None, run_dir: str, steps: int | None = None
) -> tuple[str, list[str]]:
    """The learner module and the command line it runs with: a budget of
    ``steps`` (engine steps x games: the run replays; ten snapshots) or of
    CPU ``minutes`` (a snapshot every :data:`SNAPSHOT_EVERY` CPU-seconds)."""
    module, options = RECIPES[game]
    if steps is not None:
        budget = ["--total-steps", str(steps)]
        if module != "expert_iteration":  # (it saves a policy every round)
            budget += ["--snapshot-every-steps", str(max(1, steps // 10))]
    else:
        budget = ["--cpu-minutes", f"{minutes:g}", "--snapshot-every", f"{SNAPSHOT_EVERY:g}"]
    return module, [*options, *budget, "--seed", str(seed), "--run-dir", run_dir, "--quiet"]


def without_run_folder(recipe: list[str] | dict) -> list[str] | dict:
    """The learner's options less its run folder (``--run-dir``), a folder
    of the machine that trained: a shipped policy file does not name it."""
    if isinstance(recipe, dict):
        return {k: v for k, v in recipe.items() if k != "run_dir"}
    out = list(recipe)
    while "--run-dir" in out:
        at = out.index("--run-dir")
        del out[at : at + 2]
    return out


def final_policy(run_dir: pathlib.Path) -> tuple[pathlib.Path, dict]:
    """The policy file a finished run saved last (its ``run.json``'s final
    snapshot) and the run's arguments; ValueError naming what is wrong."""
    where = run_dir / "run.json"
    try:
        run = json.loads(where.read_text())
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ValueError(f"{where} is not a readable run record ({e})") from None
    snapshots = run.get("snapshots") if isinstance(run, dict) else None
    if not isinstance(snapshots, list) or not snapshots or not all(isinstance(s, dict) for s in snapshots):
        raise ValueError(f"{where} is not a finished run's record (no list of snapshots)")
    final = [s for s in snapshots if s.get("final") is True] or snapshots[-1:]
    name = final[-1].get("file")
    if not isinstance(name, str) or pathlib.Path(name).name != name:
        raise ValueError(f"{where}: its final snapshot names no file beside it ({name!r:.80})")
    args = run.get("args", {})
    return run_dir / name, args if isinstance(args, dict) else {}


def install(game: str, run_dir: pathlib.Path, recipe: list[str] | dict) -> pathlib.Path:
    """Copy the run's final policy to agents/checkpoints/ under the game's
    ``scratch`` name (read back and checked first); returns its JSON path.
    ValueError for a run that has no sound final policy of ``game``."""
    from cardenvs.agents.mlp import read_policy, save_policy

    actor, meta = read_policy(final_policy(run_dir)[0])
    if meta["game"] != game:
        raise ValueError(f"{run_dir}: a run of {meta['game']}, not {game}")
    training = {**meta["training"], "recipe": without_run_folder(recipe)}
    stem = ROOT / "agents" / "checkpoints" / GAMES[game].scratch.removesuffix(".json")
    keys = ("game", "config", "obs_size", "num_actions", "hidden")
    return save_policy(stem, actor, training=training, **{k: meta[k] for k in keys})


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, choices=sorted(RECIPES))
    p.add_argument("--seed", type=whole(0, MAX_SEED), default=1)
    budget = p.add_mutually_exclusive_group()
    budget.add_argument(
        "--steps",
        type=whole(1, 10**12),
        default=None,
        help="the training budget in engine steps x games: the run replays (default: STEPS, else --cpu-minutes)",
    )
    budget.add_argument(
        "--cpu-minutes",
        type=number(above=0),
        default=None,
        help=f"the training budget in CPU-minutes (default {BUDGET_MINUTES:g}; BUDGETS)",
    )
    p.add_argument("--run-dir", default=None, help="default: runs/scratch_<game>_s<seed>")
    p.add_argument("--install", action="store_true", help="copy the final policy to agents/checkpoints/")
    p.add_argument(
        "--install-from", default=None, metavar="RUN_DIR", help="install a finished run's policy; no training"
    )
    args = p.parse_args(argv)
    if args.steps is None and args.cpu_minutes is None:
        args.steps = STEPS.get(args.game)
        if args.steps is None:
            args.cpu_minutes = BUDGETS.get(args.game, BUDGET_MINUTES)
    if args.install and GAMES[args.game].scratch is None:
        p.error(f"--install: {args.game}'s GameSpec names no scratch file")
    if args.install_from:
        run = pathlib.Path(args.install_from)
        if not (run / "run.json").is_file():
            p.error(f"--install-from: {run} holds no finished run (no run.json)")
        try:
            print(f"installed {install(args.game, run, final_policy(run)[1])}", flush=True)
        except ValueError as e:
            p.error(f"--install-from: {e}")
        return 0
    run_dir = args.run_dir or f"runs/scratch_{args.game}_s{args.seed}"
    if pathlib.Path(run_dir).exists() and not pathlib.Path(run_dir).is_dir():
        p.error(f"--run-dir {run_dir} is a file, not a directory")
    module, learner = learner_argv(args.game, args.seed, args.cpu_minutes, run_dir, args.steps)
    budget = f"{args.steps:,} steps" if args.steps is not None else f"{args.cpu_minutes:g} CPU-minutes"
    print(
        f"retraining {args.game} from scratch with {module}: budget {budget}, seed {args.seed}, run folder {run_dir}",
        flush=True,
    )
    print(f"  python examples/{module}.py {shlex.join(learner)}", flush=True)
    trainer = importlib.import_module(module)
    trainer.train(trainer.parse_args(learner))
    if args.install:
        try:
            print(f"installed {install(args.game, pathlib.Path(run_dir), learner)}", flush=True)
        except ValueError as e:
            raise SystemExit(f"retrain_scratch.py: --install: {e}") from None
    return 0


if __name__ == "__main__":
    sys.exit(main())
