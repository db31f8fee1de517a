"""Pepper — PettingZoo AEC environment (``cardenvs.pepper_v0``).

A bidding trick-taking game for 2-4 players (4: partnerships {0, 2} v
{1, 3}) with a 24-card deck (9 to A) and bowers: an auction (numbered bids,
Little and Big Pepper), the high bidder names trump, then the hand is played
out.  ``from cardenvs import pepper_v0; env = pepper_v0.env(num_players=4)``.
Agents ``player_0`` .. ``player_{n-1}`` (seat = index, clockwise); actions
``Discrete(39)`` with an ``action_mask``; observation ``Box((299,), int16)``.

Config: ``num_players`` (4), ``target_score`` (30), ``max_hands`` (50, None =
no limit), ``reward`` (``"win_loss"`` or ``"score_delta"``), ``all_pass``
(``"stick_dealer"`` or ``"redeal"``), ``render_mode``.  Reset options:
``{"dealer": k, "decks": [deck0, ...]}`` (a deck is 24 card texts, top first).
Rewards: ``"win_loss"`` +1 to every seat of a winning side and -1 to the
others at the end of the game; ``"score_delta"`` each hand's score change of
the seat's side.  An illegal action raises :class:`cardenvs.IllegalActionError`.

The rules, the action table, the observation table and the rewards are in
docs/pepper.md; the observation table below is generated from
:data:`cardenvs.games.pepper.observation.LAYOUT`, as the page's is.
"""

from __future__ import annotations

from typing import Any

from ...core.aec import CardGameAECEnv, wrap
from ...core.layout import with_observation_table
from .observation import LAYOUT
from .rules import PepperRules

__doc__ = with_observation_table(__doc__, ("Observation", LAYOUT))


class raw_env(CardGameAECEnv):  # noqa: N801 - PettingZoo naming
    __doc__ = __doc__
    metadata = {**CardGameAECEnv.metadata, "name": "pepper_v0"}
    rules_class = PepperRules


def env(**config: Any):
    """The Pepper AEC env wrapped as PettingZoo classic envs are."""
    return wrap(raw_env(**config))
