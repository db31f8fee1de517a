"""``python -m cardenvs.testing NAME [--check CHECK ...] [--quick]``: run the
conformance kit on a registered game, one line per check; the exit status is
1 if any check failed."""

from __future__ import annotations

import argparse
import json
import sys

from cardenvs.registry import GAMES

from . import CHECKS, check_game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cardenvs.testing", description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=list(GAMES), help="the registered game to check")
    parser.add_argument("--check", action="append", choices=list(CHECKS), help="run only this check (repeatable)")
    parser.add_argument("--quick", action="store_true", help="one seed and fewer steps")
    parser.add_argument("--seeds", type=int, default=None, help="how many seeds (default 3, --quick 1)")
    parser.add_argument("--steps", type=int, default=None, help="the most actions per seed (default 200, --quick 100)")
    parser.add_argument(
        "--config", type=json.loads, default=None, help="the game's config as JSON, e.g. '{\"max_hands\": 1}'"
    )
    args = parser.parse_args(argv)
    seeds = args.seeds or (1 if args.quick else 3)
    steps = args.steps or (100 if args.quick else 200)
    report = check_game(args.game, seeds=seeds, steps=steps, config=args.config, checks=args.check)
    for result in report:
        print(result.line(), flush=True)
    failed = len(report.failures)
    print(f"{args.game}: {len(report) - failed} passed or skipped, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
