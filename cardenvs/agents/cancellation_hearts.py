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

It reads only its own observation and mask.
"""

from __future__ import annotations

import numpy as np

from cardenvs.cancellation_hearts import observation as O

from .base import Agent

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


class HeartsRuleAgent(Agent):
    name = "rule"

    def __init__(self, target_score: int = 150):
        self.target_score = target_score

    def act(self, obs: np.ndarray, mask: np.ndarray) -> int:
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
