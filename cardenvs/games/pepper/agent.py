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

It reads only its own observation (no hidden information).  The rules are
written twice: :meth:`PepperRuleAgent.act_row` decides one row in Python
(the reference), :func:`decide_rows` a whole batch in one compiled pass;
``tests/test_agents_batched.py`` checks that they agree.
"""

from __future__ import annotations

import numpy as np

from ...core.agent import RuleAgent
from ...core.jit import kernel
from . import observation as O
from .tables import (
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

TRUMP_VALUE = np.array([0.4, 0.4, 0.4, 0.6, 0.8, 0.9, 1.0])  # by trump strength 9 T Q K A left right


@kernel
def card_tricks(trump, c):
    """Estimated tricks card type ``c`` takes with ``trump`` (0..3, 4 none):
    the one table both the per-row and the batched bidding read."""
    ts = TRUMP_STRENGTH[trump, c]
    if ts >= 0:
        return TRUMP_VALUE[ts]
    if PLAIN_STRENGTH[c] == 5:
        return 0.9 if trump == NO_TRUMP else 0.7
    if PLAIN_STRENGTH[c] == 4:
        return 0.4 if trump == NO_TRUMP else 0.25
    return 0.0


def hand_strength(hand: np.ndarray, trump: int, partners: bool) -> float:
    """Estimated tricks of ``hand`` (card types) with ``trump`` (0..3, 4 none)."""
    est = 1.0 if partners else 0.0
    for c in hand:
        est += card_tricks(trump, c)
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


class PepperRuleAgent(RuleAgent):
    name = "rule"

    def _decide(self, obs: np.ndarray, mask: np.ndarray, out: np.ndarray) -> None:
        decide_rows(obs, mask, out)

    def act_row(self, obs: np.ndarray, mask: np.ndarray) -> int:
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


# ---------------------------------------------------------------- the batched rules
# The same decisions as PepperRuleAgent.act_row, row by row in one compiled
# pass: every ``max``/``min``/``argmax`` of the reference keeps its first
# best element, and the hand strengths add the same float64 terms in the
# same order, so the estimates (and their comparisons) are bit-identical.

HAND, PHASE, TRUMP, LEADER, NUM_PLAYERS = O.HAND, O.PHASE, O.TRUMP, O.LEADER, O.NUM_PLAYERS
TABLE_AT = O.SEATS + O.TABLE  # relative seat k's table card: TABLE_AT + k * SEAT_PLANES
SEAT_PLANES, NUM_CARDS = O.SEAT_PLANES, TRUMP_STRENGTH.shape[1]


@kernel
def decide_rows(obs, mask, out):
    """``out[i]``: the rule agent's action for ``obs[i]``, ``mask[i]`` (-1: none)."""
    est = np.empty(5)  # scratch: the hand's estimate per trump
    played = np.empty(4, np.int64)  # scratch: the card each relative seat has on the table
    for i in range(obs.shape[0]):
        out[i] = _decide_row(obs[i], mask[i], est, played) if mask[i].any() else -1


@kernel
def _first_max(values):
    best = 0
    for k in range(1, values.shape[0]):
        if values[k] > values[best]:
            best = k
    return best


@kernel
def _strength(obs, trump, partners):
    """:func:`hand_strength` of the hand in ``obs``."""
    est = 1.0 if partners else 0.0
    for c in range(NUM_CARDS):
        if obs[HAND + c] != 0:
            est += card_tricks(trump, c)
    return est


@kernel
def _decide_row(obs, mask, est, played):
    n = 2 + _first_max(obs[NUM_PLAYERS : NUM_PLAYERS + 3])
    partners = n == 4
    if obs[PHASE] == 0 and obs[PHASE + 1] == 0:
        return _play_row(obs, mask, n, partners, played)
    for t in range(5):
        est[t] = _strength(obs, t, partners)
    if obs[PHASE] != 0:
        return _bid_row(est, mask, n)
    top = max(est[0], est[1], est[2], est[3])
    return TRUMP0 + _first_max(est) if top + 0.5 >= est[4] else TRUMP_NONE


@kernel
def _bid_row(est, mask, n):
    best = est.max()
    tricks = 6 if n == 4 else 8
    if best >= tricks and mask[BID_LITTLE]:
        return BID_LITTLE
    for a in range(1, 8):
        if mask[a]:
            if a <= best and best >= 3:
                return a
            break
    if mask[PASS]:
        return PASS
    for a in range(BID_BIG + 1):
        if mask[a]:
            return a
    return -1


@kernel
def _value(card, trump, led):
    """:func:`card_value`."""
    ts = TRUMP_STRENGTH[trump, card]
    if ts >= 0:
        return 100 + ts
    return PLAIN_STRENGTH[card] if EFFECTIVE_SUIT[trump, card] == led else -1


@kernel
def _throw(card, trump):
    """:func:`throw_value`."""
    ts = TRUMP_STRENGTH[trump, card]
    return 100 + ts if ts >= 0 else PLAIN_STRENGTH[card]


@kernel
def _play_row(obs, mask, n, partners, played):
    trump = _first_max(obs[TRUMP : TRUMP + 6]) - 1
    anyone = False
    for k in range(n):
        played[k] = -1
        at = TABLE_AT + k * SEAT_PLANES
        for c in range(NUM_CARDS):
            if obs[at + c] != 0:
                played[k] = c
                anyone = True
                break
    cheapest, right, ace = -1, -1, -1
    for c in range(NUM_CARDS):
        if mask[PLAY0 + c]:
            if cheapest < 0 or _throw(c, trump) < _throw(cheapest, trump):
                cheapest = c
            if right < 0 and TRUMP_STRENGTH[trump, c] == 6:
                right = c
            if ace < 0 and TRUMP_STRENGTH[trump, c] < 0 and PLAIN_STRENGTH[c] == 5:
                ace = c
    if cheapest < 0:
        return -1
    if not anyone:  # leading
        return PLAY0 + (right if right >= 0 else ace if ace >= 0 else cheapest)
    leader = played[_first_max(obs[LEADER : LEADER + 4])]
    if leader < 0:
        return -1
    led = EFFECTIVE_SUIT[trump, leader]
    winner, best = -1, -1
    for k in range(n):
        if played[k] >= 0:
            v = _value(played[k], trump, led)
            if winner < 0 or v > best:
                winner, best = k, v
    if partners and winner == 2:
        return PLAY0 + cheapest
    pick = -1
    for c in range(NUM_CARDS):
        if mask[PLAY0 + c]:
            v = _value(c, trump, led)
            if v > best and (pick < 0 or v < _value(pick, trump, led)):
                pick = c
    return PLAY0 + (pick if pick >= 0 else cheapest)
