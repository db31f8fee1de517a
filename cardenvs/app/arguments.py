"""``argparse`` types for command lines (the examples' learners among them):
each reads one argument and raises :class:`argparse.ArgumentTypeError` for
a value outside its range, which argparse prints as one line, ``usage`` and
``error: argument --NAME: ...``, and exits with status 2.

>>> p.add_argument("--seed", type=whole(0, MAX_SEED), default=1)
>>> p.add_argument("--cpu-minutes", type=number(above=0))  # finite, above 0
>>> p.add_argument("--config", type=json_object, default={})
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from typing import Any

MAX_SEED = 2**63 - 1  # (the engines' and numpy's generators take any seed from 0 to this)


def whole(low: int, high: int | None = None) -> Callable[[str], int]:
    """A reader of a whole number from ``low`` to ``high`` (None: no limit)."""
    said = f"a whole number from {low:,}" + ("" if high is None else f" to {high:,}")

    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {said}, not {text!r}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be {said}, not {text}")
        return value

    read.__name__ = "whole number"
    return read


def number(above: float | None = None, low: float | None = None, high: float | None = None) -> Callable[[str], float]:
    """A reader of a finite number (never NaN or an infinity) above
    ``above``, and from ``low`` to ``high`` (None: no such limit)."""
    parts = ["a finite number"]
    parts += [] if above is None else [f"above {above:g}"]
    parts += [] if low is None else [f"at least {low:g}"]
    parts += [] if high is None else [f"at most {high:g}"]
    said = " ".join(parts[:2]) + "".join(f" and {p}" for p in parts[2:])

    def read(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {said}, not {text!r}") from None
        inside = math.isfinite(value) and (above is None or value > above)
        inside = inside and (low is None or value >= low) and (high is None or value <= high)
        if not inside:
            raise argparse.ArgumentTypeError(f"must be {said}, not {text}")
        return value

    read.__name__ = "number"
    return read


def json_object(text: str) -> dict[str, Any]:
    """A JSON object (``{"num_players": 6}``), each key once."""

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [k for k, _ in pairs]
        twice = next((k for k in keys if keys.count(k) > 1), None)
        if twice is not None:
            raise ValueError(f"the key {twice!r} is given more than once")
        return dict(pairs)

    try:
        value = json.loads(text, object_pairs_hook=unique)
    except (ValueError, RecursionError) as e:  # (json.JSONDecodeError is a ValueError)
        raise argparse.ArgumentTypeError(f"must be a JSON object, not {text[:80]!r} ({e})") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"must be a JSON object, not {text[:80]!r}")
    return value
