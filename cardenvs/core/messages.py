"""Small helpers for one-line error messages about untrusted values (replay
files, run folders, requests): a value shown short, a message on one line,
a value's JSON kind.  Shared by the application and the agents' run
folders, so it lives in ``core``, which imports nothing above it."""

from __future__ import annotations

from typing import Any


def show(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters (a hostile value may be huge)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def cut(message: Any, limit: int = 300) -> str:
    """An error message from the env as one line of at most ``limit`` characters."""
    text = " ".join(str(message).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def kind(value: Any) -> str:
    """The JSON name of a value's type, for messages."""
    if value is None:
        return "null"
    for t, name in ((bool, "a boolean"), (int, "an integer"), (float, "a number"), (str, "a string")):
        if isinstance(value, t):
            return name
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else type(value).__name__


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
