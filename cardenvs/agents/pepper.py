"""A rule-based Pepper player.

Strategy (:class:`PepperRuleAgent`):

* **Bidding.** For each possible trump suit it estimates the tricks its hand
  takes: right bower 1.0, left bower 0.9, ace of trumps 0.8, king 0.6, any
  other trump 0.4, an off-suit ace 0.7 and an off-suit king 0.25; at 4
  players the partner is counted for one more trick.  It bids the lowest
  legal number if that is at most its estimate and the estimate is at least
  3, Little Pepper if it expects every trick, and otherwise passes (a stuck
  dealer bids the lowest it may).
* **Trump.** The suit with the best estimate, or no-trump when its aces and
  kings promise more than any suit.
* **Play.** Leading: the right bower if held, else an off-suit ace, else its
  lowest card.  Following: if the partner is winning the trick it throws its
  lowest legal card; otherwise it wins as cheaply as it can, or throws its
  lowest card when it cannot win.

It reads only its own observation (no hidden information).
"""

from __future__ import annotations

import numpy as np

from cardenvs.pepper import observation as O
from cardenvs.pepper.tables import (
    BID_BIG,
    BID_LITTLE,
    EFFECTIVE_SUIT,
    NO_TRUMP,
    PASS,
    PLAIN_STRENGTH,
    PLAY0,
    TRUMP0,
    TRUMP_NONE,
    TRUMP_STRENGTH,
)

from .base import Agent

TRUMP_VALUE = np.array([0.4, 0.4, 0.4, 0.6, 0.8, 0.9, 1.0])  # by trump strength 9 T Q K A left right


def hand_strength(hand: np.ndarray, trump: int, partners: bool) -> float:
    """Estimated tricks of ``hand`` (card types) with ``trump`` (0..3, 4 none)."""
    est = 1.0 if partners else 0.0
    for c in hand:
        ts = TRUMP_STRENGTH[trump, c]
        if ts >= 0:
            est += TRUMP_VALUE[ts]
        elif PLAIN_STRENGTH[c] == 5:
            est += 0.9 if trump == NO_TRUMP else 0.7
        elif PLAIN_STRENGTH[c] == 4:
            est += 0.4 if trump == NO_TRUMP else 0.25
    return est


def card_value(card: int, trump: int, led: int) -> int:
    """Strength of ``card`` in a trick led in effective suit ``led`` (-1 = cannot win)."""
    ts = TRUMP_STRENGTH[trump, card]
    if ts >= 0:
        return 100 + ts
    return int(PLAIN_STRENGTH[card]) if EFFECTIVE_SUIT[trump, card] == led else -1


def throw_value(card: int, trump: int) -> int:
    """How costly a card is to throw away (trumps dearest, then by rank)."""
    ts = TRUMP_STRENGTH[trump, card]
    return 100 + ts if ts >= 0 else int(PLAIN_STRENGTH[card])


class PepperRuleAgent(Agent):
    name = "rule"

    def act(self, obs: np.ndarray, mask: np.ndarray) -> int:
        obs = np.asarray(obs)
        legal = np.flatnonzero(mask)
        n = 2 + int(obs[O.NUM_PLAYERS : O.NUM_PLAYERS + 3].argmax())
        partners = n == 4
        hand = np.flatnonzero(obs[O.HAND : O.HAND + 24])
        phase = obs[O.PHASE : O.PHASE + 3]
        if phase[0]:
            return self._bid(hand, legal, n, partners)
        if phase[1]:
            est = [hand_strength(hand, t, partners) for t in range(5)]
            return TRUMP0 + int(np.argmax(est)) if max(est[:4]) + 0.5 >= est[4] else TRUMP_NONE
        return self._play(obs, hand, legal, n, partners)

    def _bid(self, hand, legal, n, partners) -> int:
        est = max(hand_strength(hand, t, partners) for t in range(5))
        tricks = 6 if n == 4 else 8
        numbers = [a for a in legal if 1 <= a <= 7]
        if est >= tricks and BID_LITTLE in legal:
            return BID_LITTLE
        if numbers and numbers[0] <= est and est >= 3:
            return int(numbers[0])
        if PASS in legal:
            return PASS
        return int(min(a for a in legal if a <= BID_BIG))

    def _play(self, obs, hand, legal, n, partners) -> int:
        trump = int(obs[O.TRUMP : O.TRUMP + 6].argmax()) - 1
        cards = legal - PLAY0
        table = [np.flatnonzero(obs[O.SEATS + O.SEAT_PLANES * k + O.TABLE :][:24]) for k in range(n)]
        played = {k: int(t[0]) for k, t in enumerate(table) if t.size}
        if not played:  # leading
            right = [c for c in cards if TRUMP_STRENGTH[trump, c] == 6]
            aces = [c for c in cards if TRUMP_STRENGTH[trump, c] < 0 and PLAIN_STRENGTH[c] == 5]
            pick = right[0] if right else aces[0] if aces else min(cards, key=lambda c: throw_value(c, trump))
            return PLAY0 + int(pick)
        leader = int(obs[O.LEADER : O.LEADER + 4].argmax())
        led = EFFECTIVE_SUIT[trump, played[leader]]
        values = {k: card_value(c, trump, led) for k, c in played.items()}
        winner = max(values, key=values.get)
        cheapest = min(cards, key=lambda c: throw_value(c, trump))
        if partners and winner == 2:
            return PLAY0 + int(cheapest)
        beating = [c for c in cards if card_value(c, trump, led) > values[winner]]
        if beating:
            return PLAY0 + int(min(beating, key=lambda c: card_value(c, trump, led)))
        return PLAY0 + int(cheapest)
