"""``cardenvs arena``: a league of agents in duplicate, rated together.

    cardenvs arena pepper --agents random,rule,ppo --deals 200 --out league/pepper
    cardenvs arena hearts --agents random,rule,pimc:worlds=8 --config '{"num_players": 6}'
    cardenvs arena spit --agents random,rule,mypackage.agents:MyAgent
    cardenvs arena --resume league/pepper            # go on after Ctrl-C

Every pair of agents plays ``--deals`` duplicate deals (each deal once per
seat arrangement); the agents are rated together (Bradley-Terry /
Plackett-Luce, ``random`` = 0, 95% bootstrap intervals).  It prints the
league table and the pairs' results, and writes ``DIR/league.json``,
``DIR/league.md`` and ``DIR/league.png`` (docs/arena.md: the schema, what
duplicate means in each game).  Each pair is saved as it finishes
(``DIR/pairs/``): stopped midway, the league of the finished pairs is
written and ``--resume DIR`` plays the rest.  Bad input (an unknown game or
agent, a module that does not import, an agent for another game's actions,
``--deals 0``, a bad config) gets one line and exit code 2, and nothing is
written.  An agent that raises or plays an illegal action forfeits that
game (counted in the table), or with ``--strict`` the run stops (exit code
1) naming the agent and the deal.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from typing import Any

MANIFEST = "arena.json"  # (cardenvs.agents.league.MANIFEST: not imported here, to keep `cardenvs --help` light)


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
    the arguments or (``--resume``) the run's manifest; ArenaInputError if bad."""
    from ..agents.specs import split_specs
    from .play import resolve_game

    if args.resume:
        file = pathlib.Path(args.resume) / MANIFEST
        try:
            manifest = json.loads(file.read_text())
        except (OSError, ValueError) as e:
            raise ArenaInputError(f"--resume {args.resume}: no run recorded there ({e})") from None
        given = {"out": args.out, "agents": args.agents, "game": args.game}
        if given["out"] and pathlib.Path(given["out"]) != pathlib.Path(args.resume):
            raise ArenaInputError("--resume DIR is the output directory: leave --out out")
        if args.game and resolve_game(args.game)[0] != manifest.get("game"):
            raise ArenaInputError(f"--resume {args.resume} is a run of {manifest.get('game')}, not {args.game}")
        if args.agents and split_specs(args.agents) != manifest.get("agents"):
            raise ArenaInputError(f"--resume {args.resume} is a run of the agents {manifest.get('agents')}")
        keys = ("game", "config", "agents", "deals", "seed", "batch")
        return {**{k: manifest[k] for k in keys}, "out": args.resume, "resume": True}
    if not args.game or not args.agents:
        raise ArenaInputError("give a GAME and --agents A,B,... (or --resume DIR)")
    try:
        game, extra = resolve_game(args.game)
    except ValueError as e:
        raise ArenaInputError(str(e)) from None
    if args.deals < 1:
        raise ArenaInputError(f"--deals must be at least 1, got {args.deals}")
    if args.batch < 1:
        raise ArenaInputError(f"--batch must be at least 1, got {args.batch}")
    specs = split_specs(args.agents)
    if len(set(specs)) != len(specs):
        raise ArenaInputError(f"an agent is listed twice in --agents {args.agents}")
    out = args.out or f"arena-{args.game}"
    config = {**extra, **json_config(args.config)}
    return {"game": game, "config": config, "agents": specs, "deals": args.deals, "seed": args.seed,
            "batch": args.batch, "out": out, "resume": False}  # fmt: skip


def cmd_arena(args: argparse.Namespace, progress_class: Any) -> int:
    """Run the league; print its table; 2 for bad input, 1 for a strict stop, 130 when interrupted."""
    from ..agents.duplicate import AgentError
    from ..agents.league import league

    try:
        run = _settings(args)
        if args.resamples < 1:
            raise ArenaInputError(f"--resamples must be at least 1, got {args.resamples}")
    except ArenaInputError as e:
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
