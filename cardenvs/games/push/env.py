"""Push -- PettingZoo AEC environment (``cardenvs.push_v0``).

A partnership contract rummy for 4 players (teams {0, 2} v {1, 3}) with 108
cards (two decks and four jokers; 2s and jokers are wild), played over five
rounds of 6..10 cards, lowest total penalty wins.  Agents ``player_0`` ..
``player_3`` (seat = index, clockwise); actions ``Discrete(2371)``;
observation ``Box((4961,), int16)`` with an ``int8`` action mask.

Config: ``rounds`` (the round numbers to play, in order; default
``[1, 2, 3, 4, 5]``), ``reward`` (``"win_loss"``: +1/-1 per team at the
end; ``"score_delta"``: minus the team's penalty after every round),
``max_turns`` (200: a round that lasts this many turns ends as if the stock
ran out), ``illegal_action``, ``obs_dtype``, ``render_mode``.  Reset options
``dealer`` and ``decks`` (108 card texts per deal, top first).

The rules in full, with every decision we took, the action table, the
observation table and the rewards are in docs/push.md; why the action ids
have their shape is in :mod:`cardenvs.games.push.tables`; the observation table
below is generated from :data:`cardenvs.games.push.observation.LAYOUT`, as the
page's is.
"""

from __future__ import annotations

from typing import Any

from ...core.aec import CardGameAECEnv, wrap
from ...core.layout import with_observation_table
from .observation import LAYOUT
from .rules import PushRules

__doc__ = with_observation_table(__doc__, ("Observation", LAYOUT))


class raw_env(CardGameAECEnv):  # noqa: N801 - PettingZoo naming
    __doc__ = __doc__
    metadata = {**CardGameAECEnv.metadata, "name": "push_v0"}
    rules_class = PushRules


def env(**config: Any):
    """The Push AEC env wrapped as PettingZoo classic envs are."""
    return wrap(raw_env(**config))
