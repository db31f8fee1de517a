"""A rule-based Spit and Speed player.

Strategy (:class:`SpitRuleAgent`):

* **Slapping:** slap the smaller spit pile (fewer cards to take back).
* **Spit, playing:** play at once whenever a card fits: among the legal
  plays, the one from the stockpile with the most face-down cards under its
  top (exposing hidden cards is what empties a layout); otherwise move a top
  card into an empty space when that exposes a face-down card; otherwise
  wait.
* **Denial** (``deny=True``, Spit only; off by default, so "the rule agent"
  is the greedy player above): among the legal plays, the one after which
  the opponent's face-up tops fit the two spit piles the fewest times, then
  the one exposing the most face-down cards.  A play onto the pile the
  opponent was about to use takes its play away.  It beats the default
  rule agent (seeds 7000 and 7100, thousands of games), and is the teacher
  of the advised Spit baseline (``examples/train_spit.py``).
* **Speed:** play the first card that fits (a played card is refilled from
  the stock at once); otherwise wait.

It reads only its own observation and mask.  The rules are written twice:
:meth:`SpitRuleAgent.act_row` decides one row in Python (the reference),
:func:`decide_rows` a whole batch in one compiled pass;
``tests/test_agents_batched.py`` checks that they agree.
"""

from __future__ import annotations

import numpy as np

from ...core.agent import RuleAgent
from ...core.jit import kernel
from .observation import (
    MAX_STOCKPILES,
    OPPONENT_STOCKPILES,
    OWN_FACE_DOWN_AT,
    OWN_STOCKPILES,
    SPIT_PILE_SIZE,
    SPIT_PILE_SIZE_AT,
    SPIT_PILES,
    STOCKPILE_SIZE,
)
from .rules import spit_rules

WAIT, PLAY, MOVE, SLAP = range(4)  # the kinds of action (KINDS[kind] is its word)
KINDS = ("wait", "play", "move", "slap")


class SpitRuleAgent(RuleAgent):
    name = "rule"

    def __init__(self, reference: bool = False, deny: bool = False, **config):
        super().__init__(reference)
        rules = spit_rules(**{k: v for k, v in config.items() if k in ("variant", "stockpiles")})
        self.speed = rules.variant == "speed"
        if not isinstance(deny, bool):
            raise ValueError(f"SpitRuleAgent's deny is True or False, got {deny!r}")
        if deny and self.speed:
            raise ValueError("deny=True is a Spit strategy: Speed refills a played card at once, so it has no effect")
        self.deny = deny
        if deny:
            self.name = "rule(deny)"
        texts = [rules.action_to_str(a).split() for a in range(rules.num_actions)]
        self.kind = [t[0] for t in texts]
        self.args = [tuple(int(x) for x in t[1:]) if not self.speed or t[0] != "play" else (int(t[2]),) for t in texts]
        # for the batched rules: each action's kind and first number (the stockpile, or the pile slapped)
        self.kind_code = np.array([KINDS.index(k) for k in self.kind], np.int64)
        self.first_arg = np.array([args[0] if args else -1 for args in self.args], np.int64)
        self.pile = np.array(
            [a[1] if k == "play" and len(a) > 1 else -1 for k, a in zip(self.kind, self.args)], np.int64
        )
        if self.speed and SLAP in self.kind_code:
            raise ValueError("the batched Speed rules assume that Speed has no slaps")

    def _decide(self, obs: np.ndarray, mask: np.ndarray, out: np.ndarray) -> None:
        decide_rows(obs, mask, self.kind_code, self.first_arg, self.pile, self.speed, self.deny, out)

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
        if plays and self.deny:
            return int(min(plays, key=lambda a: (opponent_fits_after(obs, *self.args[a]), -hidden(self.args[a][0]), a)))
        if plays:
            return int(max(plays, key=lambda a: (hidden(self.args[a][0]), -a)))
        moves = [a for a in legal if kinds[a] == "move" and hidden(self.args[a][0]) > 0]
        if moves:
            return int(max(moves, key=lambda a: (hidden(self.args[a][0]), -a)))
        return int(next(a for a in legal if kinds[a] == "wait"))


def rank_at(obs: np.ndarray, at: int) -> int:
    """The rank (0..12) of the card coded at ``obs[at:]``, -1 for no card."""
    code = obs[at : at + 13]
    return int(np.argmax(code)) if code.any() else -1


def opponent_fits_after(obs: np.ndarray, stockpile: int, pile: int) -> int:
    """How many (opponent top, spit pile) pairs fit once own ``stockpile``'s
    top is played on ``pile`` (a card fits one rank above or below, A-2 too)."""
    tops = [rank_at(obs, SPIT_PILES + SPIT_PILE_SIZE * p) for p in range(2)]
    tops[pile] = rank_at(obs, OWN_STOCKPILES + STOCKPILE_SIZE * stockpile)
    theirs = [rank_at(obs, OPPONENT_STOCKPILES + STOCKPILE_SIZE * i) for i in range(MAX_STOCKPILES)]
    return sum(t >= 0 and c >= 0 and (t - c) % 13 in (1, 12) for t in theirs for c in tops)


# ---------------------------------------------------------------- the batched rules
# The same decisions as SpitRuleAgent.act_row, row by row in one compiled
# pass (ties go to the lowest action id, as the reference's keys break them).


@kernel
def decide_rows(obs, mask, kind, arg, pile, speed, deny, out):
    """``out[i]``: the rule agent's action for ``obs[i]``, ``mask[i]`` (-1: none)."""
    for i in range(obs.shape[0]):
        out[i] = _decide_row(obs[i], mask[i], kind, arg, pile, speed, deny)


@kernel
def _decide_row(obs, mask, kind, arg, pile, speed, deny):
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
            if play < 0 or _better_play(obs, a, play, arg, pile, deny):
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
def _better_play(obs, a, best, arg, pile, deny):
    """Whether play ``a`` beats the best so far (``a`` > ``best``: ties keep ``best``)."""
    if deny:
        fits_a, fits_best = _opponent_fits_after(obs, arg[a], pile[a]), _opponent_fits_after(obs, arg[best], pile[best])
        if fits_a != fits_best:
            return fits_a < fits_best
    return _hidden(obs, arg[a]) > _hidden(obs, arg[best])


@kernel
def _rank_at(obs, at):
    for r in range(13):
        if obs[at + r] != 0:
            return r
    return -1


@kernel
def _opponent_fits_after(obs, stockpile, pile):
    """See :func:`opponent_fits_after`."""
    top0, top1 = _rank_at(obs, SPIT_PILES), _rank_at(obs, SPIT_PILES + SPIT_PILE_SIZE)
    mine = _rank_at(obs, OWN_STOCKPILES + STOCKPILE_SIZE * stockpile)
    if pile == 0:
        top0 = mine
    else:
        top1 = mine
    n = 0
    for i in range(MAX_STOCKPILES):
        t = _rank_at(obs, OPPONENT_STOCKPILES + STOCKPILE_SIZE * i)
        if t >= 0:
            for c in (top0, top1):
                if c >= 0 and (t - c) % 13 in (1, 12):
                    n += 1
    return n


@kernel
def _hidden(obs, pile):
    """Face-down cards under the top of own stockpile ``pile``."""
    return obs[OWN_FACE_DOWN_AT[pile]]
