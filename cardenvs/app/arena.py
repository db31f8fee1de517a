"""``cardenvs arena``: a league of agents in duplicate, rated together.

    cardenvs arena pepper --agents random,rule,ppo --deals 200 --out league/pepper
    cardenvs arena hearts --agents random,rule,pimc:worlds=8 --config '{"num_players": 6}'
    cardenvs arena spit --agents random,rule,mypackage.agents:MyAgent
    cardenvs arena --resume league/pepper            # go on after Ctrl-C
    cardenvs arena --resume league/spit --agents random,rule,mypackage.agents:MyAgent

Every pair of agents plays ``--deals`` duplicate deals (each deal once per
seat arrangement); the agents are rated together (Bradley-Terry /
Plackett-Luce, ``random`` = 0, 95% bootstrap intervals).  It prints the
league table and the pairs' results, and writes ``DIR/league.json``,
``DIR/league.md`` and ``DIR/league.png`` (docs/arena.md: the schema, what
duplicate means in each game).  Each pair is saved as it finishes
(``DIR/pairs/``): stopped midway, the league of the finished pairs is
written and ``--resume DIR`` plays the rest.  A run folder may come from
anyone, so resuming imports nothing it names: its agents' specs come from
``--agents``, which must list the recorded ones in order (it may be left
out when they are all built in: random, rule, ppo, pimc), and its files are
checked against the run first (docs/arena.md).  Bad input (an unknown game
or agent, a module that does not import, an agent for another game's
actions, ``--deals 0``, a bad config, a run folder's file that is not the
run's) gets one line and exit code 2, and nothing is written.  An agent
that raises or plays an illegal action forfeits that game (counted in the
table), or with ``--strict`` the run stops (exit code 1) naming the agent
and the deal.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from typing import Any

MANIFEST = "arena.json"  # (cardenvs.evaluation.leagues.MANIFEST: not imported here, to keep `cardenvs --help` light)


class ArenaInputError(ValueError):
    """Bad input to the command: reported in one line, exit code 2."""


def add_parser(sub: Any, progress_class: Any) -> None:
    """Register ``arena`` on the ``cardenvs`` subcommands; ``progress_class``: the CLI's progress line."""
    sp = sub.add_parser(
        "arena",
        help="rate agents against each other in duplicate deals (a league table)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sp.add_argument("game", nargs="?", help="pepper, hearts, push, spit, speed (or a registry name)")
    sp.add_argument(
        "--agents",
        help="comma-separated specs: random, rule, ppo, ppo:PATH, mlp:PATH, "
        "pimc[:worlds=N,rollout=random|rule,budget=S], "
        "package.module:Name (an Agent subclass, a factory or a policy function from your code)",
    )
    sp.add_argument("--deals", type=int, default=100, help="duplicate deals per pair (default 100)")
    sp.add_argument("--seed", type=int, default=0, help="the run's seed: its deals and its agents' randomness")
    sp.add_argument("--out", help="the output directory (default arena-GAME)")
    sp.add_argument("--config", default="{}", help="game options as JSON, e.g. '{\"num_players\": 6}'")
    sp.add_argument("--batch", type=int, default=64, help="deals played at once (part of what keys the deals)")
    sp.add_argument("--resume", metavar="DIR", help="go on with the run recorded in DIR")
    sp.add_argument("--strict", action="store_true", help="stop at an agent's first fault instead of forfeiting")
    sp.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples of the ratings (default 1000)")
    sp.set_defaults(func=lambda args: cmd_arena(args, progress_class))


def json_config(text: str) -> dict:
    """A ``--config`` option's game options: a JSON object (ArenaInputError, a ValueError, otherwise)."""
    try:
        config = json.loads(text)
    except json.JSONDecodeError as e:
        raise ArenaInputError(f"--config must be a JSON object, e.g. '{{\"num_players\": 3}}': {e}") from None
    if not isinstance(config, dict):
        raise ArenaInputError("--config must be a JSON object, e.g. '{\"num_players\": 3}'")
    return config


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    """The run's game, config, agents, deals, seed, batch and directory, from
    the arguments or (``--resume``) the run's manifest; ValueError if bad."""
    from ..agents.specs import split_specs
    from ..evaluation.run_dir import bounded, game_rules
    from .play import resolve_game

    if args.resume:
        return _resumed(args)
    if not args.game or not args.agents:
        raise ArenaInputError("give a GAME and --agents A,B,... (or --resume DIR)")
    game, extra = resolve_game(args.game)
    numbers = {key: bounded(getattr(args, key), f"--{key}", key) for key in ("deals", "seed", "batch")}
    specs = split_specs(args.agents)
    if len(set(specs)) != len(specs):
        raise ArenaInputError(f"an agent is listed twice in --agents {args.agents}")
    config = {**extra, **json_config(args.config)}
    try:
        game_rules(game, config)  # (before it is passed on as keywords: an unknown option is refused here)
    except ValueError as e:
        raise ArenaInputError(f"--config: {e}") from None
    out = args.out or f"arena-{args.game}"
    return {"game": game, "config": config, "agents": specs, **numbers, "out": out, "resume": False}


def _resumed(args: argparse.Namespace) -> dict[str, Any]:
    """The settings of the run recorded in ``--resume DIR``, its manifest
    checked (:mod:`cardenvs.evaluation.run_dir`) and its agents' specs taken
    from the command line (:func:`_resume_specs`); ValueError if bad."""
    from ..evaluation.run_dir import MANIFEST, MAX_MANIFEST, check_manifest, read_json
    from .play import resolve_game

    folder = pathlib.Path(args.resume)
    if args.out and pathlib.Path(args.out) != folder:
        raise ArenaInputError("--resume DIR is the output directory: leave --out out")
    manifest = check_manifest(read_json(folder / MANIFEST, MAX_MANIFEST)[1], folder / MANIFEST)
    if args.game and resolve_game(args.game)[0] != manifest["game"]:
        raise ArenaInputError(f"--resume {args.resume} is a run of {manifest['game']}, not {args.game}")
    agents = dict(zip(manifest["agents"], _resume_specs(args, manifest)))  # (names: labels only)
    numbers = {key: manifest[key] for key in ("game", "config", "deals", "seed", "batch")}
    return {**numbers, "agents": agents, "out": args.resume, "resume": True}


def _resume_specs(args: argparse.Namespace, manifest: dict) -> list[str]:
    """The specs of the run's agents: those of ``--agents``, which must be
    the recorded ones in their order; without it the recorded ones, if all
    are built in.  A run folder may come from anyone, so nothing it names
    is imported or read unless the command line names it too."""
    from ..agents.specs import is_built_in, split_specs
    from .replay_check import show

    recorded, folder = manifest["specs"], args.resume
    if None in recorded:
        name = manifest["agents"][recorded.index(None)]
        raise ArenaInputError(
            f"--resume {folder}: agent {show(name)} was given to league() as an object, not a spec: "
            "resume the run from Python, league(..., resume=True)"
        )
    if args.agents is not None:
        if split_specs(args.agents) != recorded:
            raise ArenaInputError(
                f"--resume {folder} is a run of the agents {show(recorded, 300)}: --agents must name them, in order"
            )
        return recorded
    outside = [spec for spec in recorded if not is_built_in(spec)]
    if outside:
        raise ArenaInputError(
            f"--resume {folder}: the run's agents {show(outside, 300)} are code or files, which are never taken "
            f"from a run folder: give the run's agents again with --agents (in order: {show(recorded, 300)})"
        )
    return recorded


def cmd_arena(args: argparse.Namespace, progress_class: Any) -> int:
    """Run the league; print its table; 2 for bad input, 1 for a strict stop, 130 when interrupted."""
    from ..evaluation.duplicate import AgentError
    from ..evaluation.leagues import league
    from ..evaluation.run_dir import bounded

    try:
        run = _settings(args)
        bounded(args.resamples, "--resamples", "resamples")
    except ValueError as e:  # (ArenaInputError, a RunDirError of the manifest, an unknown game...)
        return _fail(str(e))
    progress = progress_class(f"arena {run['game']}: games played")
    try:
        result = league(
            run["game"], run["agents"], run["deals"], run["seed"], run["out"], run["resume"], run["batch"],
            args.strict, args.resamples, lambda done, total: progress(done - 1, total) if done else None,
            **run["config"],
        )  # fmt: skip
    except ValueError as e:  # bad input, found before anything is written
        progress.close()
        return _fail(str(e))
    except AgentError as e:
        progress.close()
        return _fail(f"stopped (--strict): {e}; the finished pairs are kept in {run['out']}", 1)
    except KeyboardInterrupt:
        progress.close()
        return _fail(f"interrupted: the finished pairs are kept in {run['out']}; go on with --resume {run['out']}", 130)
    progress.close()
    print(f"{run['game']} {json.dumps(run['config'])}: {run['deals']} duplicate deals per pair, seed {run['seed']}\n")
    print(result.table())
    print("\nwrote " + ", ".join(result.written))
    return 0


def _fail(message: str, code: int = 2) -> int:
    sys.stderr.write(f"cardenvs arena: {message}\n")
    return code
