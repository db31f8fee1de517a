"""Cancellation Hearts — PettingZoo AEC environment (``cardenvs.cancellation_hearts_v0``).

Hearts for 6 to 11 players with two 52-card decks shuffled together: every
card exists twice, and two identical cards played to one trick cancel each
other.  ``from cardenvs import cancellation_hearts_v0;
env = cancellation_hearts_v0.env(num_players=6)``.  Agents ``player_0`` ..
``player_{n-1}`` (seat = index, clockwise); actions ``Discrete(106)`` (the
same for every table size) with an ``action_mask``; observation
``Box((478,), int16)``, sized for 11 seats.

Config: ``num_players`` (6), ``target_score`` (150), ``max_hands`` (None),
``passing`` (``"left_right"`` or ``"none"``), ``reward`` (``"win_loss"`` or
``"score_delta"``), ``illegal_action``, ``obs_dtype``, ``render_mode``.
Reset options: ``{"dealer": k, "decks": [deck0, ...]}`` (a deck is the 104
card texts, each twice, top first).  Actions: ``pass 7H`` (0..51, one of the
three cards to pass), ``play 7H`` (52..103), ``moon self``, ``moon others``.

The rules in full, with every decision we took, the config, action and
observation tables and the rewards are in docs/cancellation_hearts.md; the
observation table below is generated from
:data:`cardenvs.games.cancellation_hearts.observation.LAYOUT`, as the page's is.
"""

from __future__ import annotations

from typing import Any

from ...core.aec import CardGameAECEnv, wrap
from ...core.layout import with_observation_table
from .observation import LAYOUT
from .rules import CancellationHeartsRules

__doc__ = with_observation_table(__doc__, ("Observation", LAYOUT))


class raw_env(CardGameAECEnv):  # noqa: N801 - PettingZoo naming
    __doc__ = __doc__
    metadata = {**CardGameAECEnv.metadata, "name": "cancellation_hearts_v0"}
    rules_class = CancellationHeartsRules


def env(**config: Any):
    """The Cancellation Hearts AEC env wrapped as PettingZoo classic envs are."""
    return wrap(raw_env(**config))
