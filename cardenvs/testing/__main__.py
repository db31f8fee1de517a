"""``python -m cardenvs.testing NAME [--config JSON] [--check CHECK ...] [--quick]``:
run the conformance kit on a registered game, one line per check; the exit
status is 1 if any check failed.

Without ``--config`` it runs the game's ``short_config`` (``GameSpec``; one
per variant, each in turn): short games reach their end, so every check
sees whole games.  ``--config '{}'`` runs the game's defaults, ``--config
JSON`` any other config.  The first line of each run says which config it
ran."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import cardenvs
from cardenvs.registry import GAMES

from . import CHECKS, check_game


def config_json(text: str) -> dict[str, Any]:
    """``--config``: a JSON object (argparse's one-line error otherwise)."""
    try:
        value = json.loads(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not JSON: {text!r} (e.g. '{{\"hands\": 2}}')") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"must be a JSON object of options, e.g. '{{\"hands\": 2}}', got {text!r}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cardenvs.testing", description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=list(GAMES), help="the registered game to check")
    parser.add_argument("--check", action="append", choices=list(CHECKS), help="run only this check (repeatable)")
    parser.add_argument("--quick", action="store_true", help="one seed and fewer steps")
    parser.add_argument("--seeds", type=int, default=None, help="how many seeds (default 3, --quick 1)")
    parser.add_argument("--steps", type=int, default=None, help="the most actions per seed (default 200, --quick 100)")
    parser.add_argument(
        "--config",
        type=config_json,
        default=None,
        help="the game's config as a JSON object, e.g. '{\"hands\": 2}' ('{}': its defaults; "
        "default: its short_config, one run per variant)",
    )
    args = parser.parse_args(argv)
    seeds = args.seeds or (1 if args.quick else 3)
    steps = args.steps or (100 if args.quick else 200)
    if args.config is None:
        runs = [(dict(config), "short_config") for config in GAMES[args.game].short_config]
    else:
        runs = [(args.config, "--config")]
    for config, _ in runs:
        try:
            cardenvs.make(args.game, **config)
        except (TypeError, ValueError) as refused:
            parser.error(f"{args.game} refuses the config {json.dumps(config)}: {refused}")
    passed = failed = 0
    for config, source in runs:
        print(f"{args.game} config {json.dumps(config, sort_keys=True)} ({source})", flush=True)
        report = check_game(args.game, seeds=seeds, steps=steps, config=config, checks=args.check)
        for result in report:
            print(result.line(), flush=True)
        failed += len(report.failures)
        passed += len(report) - len(report.failures)
    print(f"{args.game}: {passed} passed or skipped, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
