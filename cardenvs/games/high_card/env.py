"""High Card — PettingZoo AEC environment (``cardenvs.high_card_v0``).

The template game: two players, 16 cards (J Q K A of each suit), three
cards each.  Each player in turn keeps their hand or swaps one card for the
top of the stock, then each plays one card: follow suit if able; the higher
card of the suit led wins the hand.  After ``hands`` hands, more hands won
wins.  ``from cardenvs import high_card_v0; env = high_card_v0.env()``.
Agents ``player_0``, ``player_1``; actions ``Discrete(33)`` with an
``action_mask``; observation ``Box((55,), int8)``.

Config: ``hands`` (3), ``reward`` (``"win_loss"`` or ``"score_delta"``),
``illegal_action``, ``obs_dtype``, ``render_mode``.  Reset options:
``{"dealer": k, "decks": [deck0, ...]}`` (a deck is the 16 card texts, top
first).  Actions: ``keep``, ``swap QH``, ``play QH``.

The rules in full, the config, action and observation tables and the
rewards are in docs/high_card.md; the observation table below is generated
from :data:`cardenvs.games.high_card.observation.LAYOUT`, as the page's is.
"""

from __future__ import annotations

from typing import Any

from cardenvs.core.aec import CardGameAECEnv, wrap
from cardenvs.core.layout import with_observation_table

from .observation import LAYOUT
from .rules import HighCardRules

__doc__ = with_observation_table(__doc__, ("Observation", LAYOUT))


class raw_env(CardGameAECEnv):  # noqa: N801 - PettingZoo naming
    __doc__ = __doc__
    metadata = {**CardGameAECEnv.metadata, "name": "high_card_v0"}
    rules_class = HighCardRules


def env(**config: Any):
    """The High Card AEC env wrapped as PettingZoo classic envs are."""
    return wrap(raw_env(**config))
