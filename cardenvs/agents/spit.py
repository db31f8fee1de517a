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

It reads only its own observation and mask.  The rules are written twice:
:meth:`SpitRuleAgent.act_row` decides one row in Python (the reference),
:func:`decide_rows` a whole batch in one compiled pass;
``tests/test_agents_batched.py`` checks that they agree.
"""

from __future__ import annotations

import numpy as np

from cardenvs.core.jit import kernel
from cardenvs.spit.observation import OWN_FACE_DOWN_AT, SPIT_PILE_SIZE_AT
from cardenvs.spit.rules import spit_rules

from .base import RuleAgent

WAIT, PLAY, MOVE, SLAP = range(4)  # the kinds of action (KINDS[kind] is its word)
KINDS = ("wait", "play", "move", "slap")


class SpitRuleAgent(RuleAgent):
    name = "rule"

    def __init__(self, reference: bool = False, **config):
        super().__init__(reference)
        rules = spit_rules(**{k: v for k, v in config.items() if k in ("variant", "stockpiles")})
        self.speed = rules.variant == "speed"
        texts = [rules.action_to_str(a).split() for a in range(rules.num_actions)]
        self.kind = [t[0] for t in texts]
        self.args = [tuple(int(x) for x in t[1:]) if not self.speed or t[0] != "play" else (int(t[2]),) for t in texts]
        # for the batched rules: each action's kind and first number (the stockpile, or the pile slapped)
        self.kind_code = np.array([KINDS.index(k) for k in self.kind], np.int64)
        self.first_arg = np.array([args[0] if args else -1 for args in self.args], np.int64)
        if self.speed and SLAP in self.kind_code:
            raise ValueError("the batched Speed rules assume that Speed has no slaps")

    def _decide(self, obs: np.ndarray, mask: np.ndarray, out: np.ndarray) -> None:
        decide_rows(obs, mask, self.kind_code, self.first_arg, self.speed, out)

    def act_row(self, obs: np.ndarray, mask: np.ndarray) -> int:
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


# ---------------------------------------------------------------- the batched rules
# The same decisions as SpitRuleAgent.act_row, row by row in one compiled
# pass (ties go to the lowest action id, as the reference's keys break them).


@kernel
def decide_rows(obs, mask, kind, arg, speed, out):
    """``out[i]``: the rule agent's action for ``obs[i]``, ``mask[i]`` (-1: none)."""
    for i in range(obs.shape[0]):
        out[i] = _decide_row(obs[i], mask[i], kind, arg, speed)


@kernel
def _decide_row(obs, mask, kind, arg, speed):
    if speed:  # Speed has no slaps: the first play, else the first legal action
        first = -1
        for a in range(mask.shape[0]):
            if mask[a]:
                if kind[a] == PLAY:
                    return a
                if first < 0:
                    first = a
        return first
    first, slap, play, move, wait = -1, -1, -1, -1, -1
    for a in range(mask.shape[0]):
        if not mask[a]:
            continue
        if first < 0:
            first = a
        k = kind[a]
        if k == SLAP:
            if slap < 0 or obs[SPIT_PILE_SIZE_AT[arg[a]]] < obs[SPIT_PILE_SIZE_AT[arg[slap]]]:
                slap = a
        elif k == PLAY:
            if play < 0 or _hidden(obs, arg[a]) > _hidden(obs, arg[play]):
                play = a
        elif k == MOVE:
            if _hidden(obs, arg[a]) > 0 and (move < 0 or _hidden(obs, arg[a]) > _hidden(obs, arg[move])):
                move = a
        elif wait < 0:
            wait = a
    if slap >= 0:
        return slap
    if play >= 0:
        return play
    return move if move >= 0 else wait


@kernel
def _hidden(obs, pile):
    """Face-down cards under the top of own stockpile ``pile``."""
    return obs[OWN_FACE_DOWN_AT[pile]]
