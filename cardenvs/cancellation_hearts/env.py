"""Cancellation Hearts — PettingZoo AEC environment (``cardenvs.cancellation_hearts_v0``).

Hearts for 6 to 11 players with two 52-card decks shuffled together: every
card exists twice, and two identical cards played to one trick cancel each
other.  Rules: ``shared/rules/cancellation_hearts.md`` (implemented in
:mod:`cardenvs.cancellation_hearts.rules`); observation layout:
:mod:`cardenvs.cancellation_hearts.observation`.

=====================  =====================================================
Import                 ``from cardenvs import cancellation_hearts_v0``
Actions                Discrete(106), the same for every player count
Parallel API           No
Agents                 ``player_0`` .. ``player_{n-1}`` (seat = index, clockwise)
Observation            Dict: ``observation`` Box((477,), int16; counts,
                       one-hots, points and raw scores), ``action_mask``
                       Box(0, 1, (106,), int8)
=====================  =====================================================

Config (``cancellation_hearts_v0.env(**config)``)
-------------------------------------------------
===============  ================  ==========================================
option           default           allowed
===============  ================  ==========================================
num_players      6                 6 .. 11 (each plays alone)
target_score     150               positive int; the game ends after the hand
                                   in which a total reaches it
max_hands        None              positive int: cut the game after N hands;
                                   None = no limit (see Episodes)
reward           "win_loss"        "win_loss", "score_delta"
passing          "left_right"      "left_right" (3 cards left on hands 1, 3,
                                   .., right on hands 2, 4, ..), "none"
render_mode      None              None, "ansi", "human"
===============  ================  ==========================================

Reset options: ``reset(seed, options={"dealer": k, "decks": [deck0, ...]})``;
a deck is the 104 card texts (each card twice), top first, dealt one at a
time clockwise from the dealer's left, ``floor(104 / n)`` cards each; the
remaining ``104 mod n`` cards are the widow.

Actions
-------
=========  =====================================================
id         text (``env.unwrapped.action_to_str(id)``)
=========  =====================================================
0..51      ``pass 2C`` .. ``pass AS``: set one card aside to pass (3 per
           seat, seats in turn from the dealer's left)
52..103    ``play 2C`` .. ``play AS`` (52 + 13 * suit + rank, suits
           C D H S, ranks 2 .. A)
104        ``moon self``: the moon shooter subtracts 26 from its own total
105        ``moon others``: the moon shooter adds 26 to everyone else's
=========  =====================================================

Observation
-----------
Seats relative to the viewer (0 = self, 1 = left neighbour): own hand,
passed and received cards, points and scores per seat, leader, dealer and
widow holder one-hots, the current trick with cancelled flags, cards seen,
the unclaimed pile, widow/hearts-broken flags, phase, pass direction and
player count.  The index table is generated from the layout data
(``cardenvs.cancellation_hearts.observation.LAYOUT``) in ``docs/cancellation_hearts.md``.

Never observed: other hands, other seats' pass choices, the widow's cards
(taken face down; they count only in the hand's scoring).

Rewards
-------
``"win_loss"`` (default): when the game ends, +1 to every seat with the
lowest total (ties all win), -1 to every other seat.  ``"score_delta"``:
after every hand each seat receives minus its score change for that hand.

Episodes
--------
Under random play a game to 150 lasts about a dozen hands.  Without
``max_hands`` an episode is not bounded in principle: a player who shoots
the moon every hand and takes 26 off its own total keeps everyone below
the target.  Set ``max_hands`` for training if that matters.

Stepping an illegal action raises :class:`cardenvs.IllegalActionError` and
changes nothing.
"""

from __future__ import annotations

from typing import Any

from ..core.aec import CardGameAECEnv, wrap
from .rules import CancellationHeartsRules


class raw_env(CardGameAECEnv):  # noqa: N801 - PettingZoo naming
    __doc__ = __doc__
    metadata = {**CardGameAECEnv.metadata, "name": "cancellation_hearts_v0"}
    rules_class = CancellationHeartsRules


def env(**config: Any):
    """The Cancellation Hearts AEC env wrapped as PettingZoo classic envs are."""
    return wrap(raw_env(**config))
