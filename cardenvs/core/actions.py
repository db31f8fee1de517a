"""Action texts: one table per game, the single source of ``action_to_str``
and ``str_to_action`` (exact inverses for every action id)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


class ActionTable:
    """The text of every action id of a game, and the way back.

    ``game`` names the game in error messages; ``examples`` are a few texts
    quoted when an unknown text is asked for."""

    def __init__(self, texts: Sequence[str], game: str, examples: Sequence[str] = ()):
        self.texts = tuple(texts)
        if len(set(self.texts)) != len(self.texts):
            raise ValueError(f"{game}: action texts must be distinct")
        self.game = game
        self.examples = tuple(examples) or self.texts[:3]
        self._ids = {t: i for i, t in enumerate(self.texts)}

    def __len__(self) -> int:
        return len(self.texts)

    def text(self, action: Any) -> str:
        """The text of action id ``action`` (ValueError if it is not one)."""
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"an action id is an int, got {action!r}")
        if not 0 <= action < len(self.texts):
            raise ValueError(f"action {action!r} out of range 0..{len(self.texts) - 1}")
        return self.texts[int(action)]

    def action(self, text: Any) -> int:
        """The action id of ``text`` (ValueError if no action has that text)."""
        try:
            return self._ids[text]
        except (KeyError, TypeError):
            examples = ", ".join(repr(t) for t in self.examples)
            raise ValueError(f"unknown {self.game} action {text!r}; e.g. {examples}") from None
