"""A rule-based High Card player (``make_agent("high_card_v0", "rule")``).

Strategy (:class:`HighCardRuleAgent`), reading only its own observation and
mask:

* **Swapping:** swap its lowest card if that is a jack, else keep.
* **Leading:** its highest card.
* **Following:** the lowest card that wins the trick if it has one, else
  its lowest legal card.

The rules are written twice: :meth:`HighCardRuleAgent.act_row` decides one
row in Python (the readable reference), :func:`decide_rows` a whole batch in
one compiled pass; the game's tests check that they agree.
"""

from __future__ import annotations

import numpy as np

from cardenvs.core.agent import RuleAgent
from cardenvs.core.jit import kernel

from .observation import HAND, LED
from .tables import KEEP, NUM_CARDS, PLAY0, RANK, SUIT, SWAP0


def strength(card: int) -> int:
    """A card's rank, then its suit, as one number: the order of 'lowest'."""
    return 4 * int(RANK[card]) + int(SUIT[card])


class HighCardRuleAgent(RuleAgent):
    name = "rule"

    def act_row(self, obs: np.ndarray, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if mask[KEEP]:  # swapping
            lowest = min(np.flatnonzero(obs[HAND : HAND + NUM_CARDS]), key=strength)
            return int(SWAP0 + lowest) if RANK[lowest] == 0 else KEEP
        cards = sorted((int(a) - PLAY0 for a in legal), key=strength)
        led = np.flatnonzero(obs[LED : LED + NUM_CARDS])
        if not len(led):  # leading
            return PLAY0 + cards[-1]
        winners = [c for c in cards if SUIT[c] == SUIT[led[0]] and RANK[c] > RANK[led[0]]]
        return PLAY0 + (winners[0] if winners else cards[0])

    def _decide(self, obs: np.ndarray, mask: np.ndarray, out: np.ndarray) -> None:
        decide_rows(obs, mask, out)


@kernel
def decide_rows(obs, mask, out):
    """:meth:`HighCardRuleAgent.act_row` for every row (-1: no legal action)."""
    for i in range(obs.shape[0]):
        out[i] = -1
        if mask[i, KEEP]:
            lowest = -1
            for card in range(NUM_CARDS):
                if obs[i, HAND + card] and (lowest < 0 or order(card) < order(lowest)):
                    lowest = card
            out[i] = SWAP0 + lowest if RANK[lowest] == 0 else KEEP
            continue
        led = -1
        for card in range(NUM_CARDS):
            if obs[i, LED + card]:
                led = card
        best, lowest, highest = -1, -1, -1  # the lowest winner, lowest and highest legal cards
        for card in range(NUM_CARDS):
            if not mask[i, PLAY0 + card]:
                continue
            if lowest < 0 or order(card) < order(lowest):
                lowest = card
            if highest < 0 or order(card) > order(highest):
                highest = card
            wins = led >= 0 and SUIT[card] == SUIT[led] and RANK[card] > RANK[led]
            if wins and (best < 0 or order(card) < order(best)):
                best = card
        if lowest < 0:
            continue
        if led < 0:
            out[i] = PLAY0 + highest
        else:
            out[i] = PLAY0 + (best if best >= 0 else lowest)


@kernel
def order(card):
    """:func:`strength` (compiled)."""
    return 4 * RANK[card] + SUIT[card]
