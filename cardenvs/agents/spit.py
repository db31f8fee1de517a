"""A rule-based Spit and Speed player.

Strategy (:class:`SpitRuleAgent`):

* **Slapping:** slap the smaller spit pile (fewer cards to take back).
* **Spit, playing:** play at once whenever a card fits: among the legal
  plays, the one from the stockpile with the most face-down cards under its
  top (exposing hidden cards is what empties a layout); otherwise move a top
  card into an empty space when that exposes a face-down card; otherwise
  wait.
* **Speed:** play the first card that fits (a played card is refilled from
  the stock at once); otherwise wait.

It reads only its own observation and mask.
"""

from __future__ import annotations

import numpy as np

from cardenvs.spit.observation import OWN_FACE_DOWN_AT, SPIT_PILE_SIZE_AT
from cardenvs.spit.rules import spit_rules

from .base import Agent


class SpitRuleAgent(Agent):
    name = "rule"

    def __init__(self, **config):
        rules = spit_rules(**{k: v for k, v in config.items() if k in ("variant", "stockpiles")})
        self.speed = rules.variant == "speed"
        texts = [rules.action_to_str(a).split() for a in range(rules.num_actions)]
        self.kind = [t[0] for t in texts]
        self.args = [tuple(int(x) for x in t[1:]) if not self.speed or t[0] != "play" else (int(t[2]),) for t in texts]

    def act(self, obs: np.ndarray, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        kinds = {a: self.kind[a] for a in legal}
        slaps = [a for a in legal if kinds[a] == "slap"]
        if slaps:
            sizes = {a: obs[SPIT_PILE_SIZE_AT[self.args[a][0]]] for a in slaps}
            return int(min(slaps, key=lambda a: (sizes[a], a)))
        plays = [a for a in legal if kinds[a] == "play"]
        if self.speed:
            return int(plays[0]) if plays else int(legal[0] if kinds[legal[0]] == "wait" else legal[0])
        hidden = lambda pile: obs[OWN_FACE_DOWN_AT[pile]]  # noqa: E731 - face-down cards under a top
        if plays:
            return int(max(plays, key=lambda a: (hidden(self.args[a][0]), -a)))
        moves = [a for a in legal if kinds[a] == "move" and hidden(self.args[a][0]) > 0]
        if moves:
            return int(max(moves, key=lambda a: (hidden(self.args[a][0]), -a)))
        return int(next(a for a in legal if kinds[a] == "wait"))
