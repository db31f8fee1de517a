"""A rule-based Cancellation Hearts player.

Strategy (:class:`HeartsRuleAgent`):

* **Passing:** pass the most dangerous cards: Black Maria (QS) first, then the
  A and K of spades (they catch a Black Maria), then the highest hearts,
  then the highest other cards.
* **Leading:** the lowest legal card, preferring suits other than hearts.
* **Following suit:** duck: the highest card of the suit led that stays below
  the trick's current winner; when it cannot duck, its lowest card of the suit
  (it may still be cancelled by its twin, which cannot win).
* **Void in the suit led:** dump Black Maria if held, else its highest heart,
  else its highest card.
* **Moon:** ``moon others`` (everyone else +26) when that ends the game with
  this seat strictly lowest, else ``moon self`` (-26 to itself).

It reads only its own observation and mask.  The rules are written twice:
:meth:`HeartsRuleAgent.act_row` decides one row in Python (the reference),
:func:`decide_rows` a whole batch in one compiled pass;
``tests/test_agents_batched.py`` checks that they agree.
"""

from __future__ import annotations

import numpy as np

from ...core.agent import RuleAgent
from ...core.jit import kernel
from . import observation as O
from .tables import MIN_SEATS

PASS0, PLAY0, MOON_SELF, MOON_OTHERS = 0, 52, 104, 105
HEARTS, SPADES = 2, 3
QS = 13 * SPADES + 10
RANK = np.arange(52) % 13
SUIT = np.arange(52) // 13


def danger(card: int) -> float:
    """How much a card hurts to keep (for passing and dumping)."""
    if card == QS:
        return 100
    if SUIT[card] == SPADES and RANK[card] > 10:
        return 80 + RANK[card]
    if SUIT[card] == HEARTS:
        return 40 + RANK[card]
    return RANK[card]


class HeartsRuleAgent(RuleAgent):
    name = "rule"

    def __init__(self, target_score: int = 150, reference: bool = False):
        super().__init__(reference)
        self.target_score = target_score

    def _decide(self, obs: np.ndarray, mask: np.ndarray, out: np.ndarray) -> None:
        decide_rows(obs, mask, self.target_score, out)

    def act_row(self, obs: np.ndarray, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if MOON_SELF in legal:
            return self._moon(obs)
        if legal[0] < PLAY0:  # passing
            return int(max(legal, key=lambda a: (danger(a - PASS0), a)))
        cards = legal - PLAY0
        trick = obs[O.PUBLIC_AT + O.TRICK : O.PUBLIC_AT + O.CANCELLED].reshape(O.MAX_SEATS, O.CARD_PLANES)
        played = [(int(t[:4].argmax()), int(t[4:].argmax())) for t in trick if t.any()]
        if not played:  # leading
            return PLAY0 + int(min(cards, key=lambda c: (SUIT[c] == HEARTS, RANK[c], c)))
        led = played[0][0]
        cancelled = obs[O.PUBLIC_AT + O.CANCELLED : O.PUBLIC_AT + O.CANCELLED + len(played)] > 0
        live = [r for (s, r), x in zip(played, cancelled) if s == led and not x]
        winner = max(live) if live else -1
        if SUIT[cards[0]] == led and (SUIT[cards] == led).all():  # following suit
            under = [c for c in cards if RANK[c] < winner]
            pick = max(under, key=lambda c: RANK[c]) if under else min(cards, key=lambda c: RANK[c])
            return PLAY0 + int(pick)
        return PLAY0 + int(max(cards, key=lambda c: (danger(c), c)))  # void: dump

    def _moon(self, obs: np.ndarray) -> int:
        players = O.LAYOUT["num_players"]
        n = 6 + int(obs[players.offset : players.stop].argmax())
        scores = obs[O.PRIVATE_AT + O.SCORES : O.PRIVATE_AT + O.SCORES + n]
        others = scores[1:] + 26
        if others.max() >= self.target_score and scores[0] < others.min():
            return MOON_OTHERS
        return MOON_SELF


# ---------------------------------------------------------------- the batched rules
# The same decisions as HeartsRuleAgent.act_row, row by row in one compiled
# pass.  Its ``max``/``min`` keys are unique per card (ties broken by the
# card), so "the best card" is the same whichever way it is searched.

TRICK_AT, CANCELLED_AT = O.PUBLIC_AT + O.TRICK, O.PUBLIC_AT + O.CANCELLED
SCORES_AT, PLAYERS_AT = O.PRIVATE_AT + O.SCORES, O.LAYOUT["num_players"].offset
CARD_PLANES, MAX_SEATS, NUM_PLAYER_COUNTS = O.CARD_PLANES, O.MAX_SEATS, O.LAYOUT["num_players"].size
DANGER = np.array([danger(c) for c in range(52)], np.int64)


@kernel
def decide_rows(obs, mask, target_score, out):
    """``out[i]``: the rule agent's action for ``obs[i]``, ``mask[i]`` (-1: none)."""
    suits = np.empty(MAX_SEATS, np.int64)  # scratch: the trick's cards in play order
    ranks = np.empty(MAX_SEATS, np.int64)
    for i in range(obs.shape[0]):
        out[i] = _decide_row(obs[i], mask[i], target_score, suits, ranks)


@kernel
def _first_max(values, start, stop):
    best = start
    for k in range(start + 1, stop):
        if values[k] > values[best]:
            best = k
    return best - start


@kernel
def _decide_row(obs, mask, target_score, suits, ranks):
    if mask[MOON_SELF]:
        return _moon_row(obs, target_score)
    first = -1
    for a in range(mask.shape[0]):
        if mask[a]:
            first = a
            break
    if first < 0:
        return -1
    if first < PLAY0:  # passing: the most dangerous card
        pick = -1
        for a in range(PLAY0):
            if mask[a] and (pick < 0 or DANGER[a - PASS0] >= DANGER[pick - PASS0]):
                pick = a
        return pick
    played = 0
    for k in range(MAX_SEATS):
        at = TRICK_AT + k * CARD_PLANES
        for j in range(CARD_PLANES):
            if obs[at + j] != 0:
                suits[played] = _first_max(obs, at, at + 4)
                ranks[played] = _first_max(obs, at + 4, at + CARD_PLANES)
                played += 1
                break
    if played == 0:  # leading: the lowest card, hearts last
        pick, best = -1, 0
        for c in range(52):
            key = ((SUIT[c] == HEARTS) * 13 + RANK[c]) * 52 + c
            if mask[PLAY0 + c] and (pick < 0 or key < best):
                pick, best = c, key
        return PLAY0 + pick
    return PLAY0 + _follow_row(obs, mask, played, suits, ranks)


@kernel
def _follow_row(obs, mask, played, suits, ranks):
    """The card to play to a trick with ``played`` cards in it."""
    led = suits[0]
    winner = -1
    for k in range(played):
        if suits[k] == led and not obs[CANCELLED_AT + k] > 0:
            winner = max(winner, ranks[k])
    first, following = -1, True
    for c in range(52):
        if mask[PLAY0 + c]:
            if first < 0:
                first = c
            following = following and SUIT[c] == led
    if following:  # duck under the winner, else the lowest card of the suit
        under, lowest = -1, -1
        for c in range(52):
            if mask[PLAY0 + c]:
                if RANK[c] < winner and (under < 0 or RANK[c] > RANK[under]):
                    under = c
                if lowest < 0 or RANK[c] < RANK[lowest]:
                    lowest = c
        return under if under >= 0 else lowest
    pick = -1  # void: dump the most dangerous card
    for c in range(52):
        if mask[PLAY0 + c] and (pick < 0 or DANGER[c] >= DANGER[pick]):
            pick = c
    return pick


@kernel
def _moon_row(obs, target_score):
    n = MIN_SEATS + _first_max(obs, PLAYERS_AT, PLAYERS_AT + NUM_PLAYER_COUNTS)
    own = obs[SCORES_AT]
    high, low = obs[SCORES_AT + 1] + 26, obs[SCORES_AT + 1] + 26
    for j in range(2, n):
        high = max(high, obs[SCORES_AT + j] + 26)
        low = min(low, obs[SCORES_AT + j] + 26)
    return MOON_OTHERS if high >= target_score and own < low else MOON_SELF
