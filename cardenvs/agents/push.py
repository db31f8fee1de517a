"""A rule-based Push player.

Strategy (:class:`PushRuleAgent`), read from its own observation and mask:

* **Draw:** take the discard when it is wild or matches the rank of a
  natural card in hand (it helps a set), else push (the left-hand opponent
  gets two more cards to pay for, and we still draw).
* **Meld greedily:** whenever a meld can be declared, it is (the mask only
  offers melds, and contracts, that can be finished from the hand); sets are
  preferred to runs, the longest span first.  While building: naturals
  before wilds, a set is ended only when no natural of its rank is left.
  Naturals are laid off onto table melds whenever possible; wilds are kept
  for its own melds.  It never swaps (simple and safe).
* **Discard:** the natural card with the highest penalty that pairs with
  nothing in hand (K..10: 10, 9..3: 5, A: 15); wilds last.
"""

from __future__ import annotations

import numpy as np

from cardenvs.push.rules import PushRules

from .base import Agent

NATURAL_PENALTY = np.array([0, 5, 5, 5, 5, 5, 5, 5, 10, 10, 10, 10, 15])  # ranks 2..A (2 is wild)
JOKER = 52


def is_wild(card: int) -> bool:
    return card == JOKER or card % 13 == 0


class PushRuleAgent(Agent):
    name = "rule"

    def __init__(self) -> None:
        rules = PushRules()
        self.texts = [rules.action_to_str(a) for a in range(rules.num_actions)]
        self.words = [t.split() for t in self.texts]

    def act(self, obs: np.ndarray, mask: np.ndarray) -> int:
        legal = [int(a) for a in np.flatnonzero(mask)]
        hand = obs[:53]
        by_kind: dict[str, list[int]] = {}
        for a in legal:
            by_kind.setdefault(self.words[a][0], []).append(a)
        if "take" in by_kind or "push" in by_kind:
            return self._draw(obs, hand, by_kind)
        # building a meld: naturals first
        for kind in ("fill", "add"):
            if kind in by_kind:
                naturals = [a for a in by_kind[kind] if self.words[a][1] in ("nat", "C", "D", "H", "S")]
                if naturals:
                    return naturals[0]
                if kind == "add" and "end" in by_kind:
                    return by_kind["end"][0]
                return by_kind[kind][0]
        if "end" in by_kind:
            return by_kind["end"][0]
        for kind in ("set", "run"):
            if kind in by_kind:
                return max(by_kind[kind], key=lambda a: (self._span(a), -a))
        layoffs = [a for a in by_kind.get("layoff", []) if self.words[a][-1] in ("nat", "C", "D", "H", "S")]
        if layoffs:
            return layoffs[0]
        if "discard" in by_kind:
            return self._discard(hand, by_kind["discard"])
        return legal[0]  # an owed wild must be placed: any legal placement

    def _span(self, action: int) -> int:
        w = self.words[action]
        if w[0] != "run":
            return 3
        lo, hi = w[2].split("-")
        order = "A23456789TJQKA"
        return order.rindex(hi) - order.index(lo) + 1

    def _draw(self, obs, hand, by_kind) -> int:
        top = np.flatnonzero(obs[53:106])
        useful = False
        if top.size:
            c = int(top[0])
            same_rank = [t for t in range(52) if t % 13 == c % 13 and hand[t] > 0] if c != JOKER else []
            useful = is_wild(c) or bool(same_rank)
        if useful and "take" in by_kind:
            return by_kind["take"][0]
        return by_kind.get("push", by_kind.get("take"))[0]

    def _discard(self, hand, actions) -> int:
        def cost(a: int) -> tuple:
            card = self._card(self.words[a][1])
            if is_wild(card):
                return (0, 0, a)
            rank_count = sum(hand[s * 13 + card % 13] for s in range(4))
            return (1, NATURAL_PENALTY[card % 13] * (1 if rank_count <= 1 else 0.5), a)

        return max(actions, key=cost)

    @staticmethod
    def _card(text: str) -> int:
        if text == "JK":
            return JOKER
        return "CDHS".index(text[1]) * 13 + "23456789TJQKA".index(text[0])
