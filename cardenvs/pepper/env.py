"""Pepper — PettingZoo AEC environment (``cardenvs.pepper_v0``).

A bidding trick-taking game for 2-4 players with a 24-card deck (9 to A)
and bowers.  Rules: ``shared/rules/pepper.md`` (implemented in
:mod:`cardenvs.pepper.rules`); observation encoding:
:mod:`cardenvs.pepper.observation`.

=====================  =====================================================
Import                 ``from cardenvs import pepper_v0``
Actions                Discrete(39)
Parallel API           No
Agents                 ``player_0`` .. ``player_{n-1}`` (seat = index, clockwise)
Observation            Dict: ``observation`` Box((298,), int16; 0/1 except
                       counts and raw scores),
                       ``action_mask`` Box(0, 1, (39,), int8)
=====================  =====================================================

Config (``pepper_v0.env(**config)``)
------------------------------------
===============  ================  ==========================================
option           default           allowed
===============  ================  ==========================================
num_players      4                 2, 3, 4 (4 = partnerships {0,2} v {1,3})
target_score     30                positive int; the game ends after the hand
                                   in which a side reaches it
max_hands        50                positive int: cut the game after N hands
                                   (highest score wins); None = no limit
reward           "win_loss"        "win_loss", "score_delta"
all_pass         "stick_dealer"    "stick_dealer", "redeal"
render_mode      None              None, "ansi", "human"
===============  ================  ==========================================

Reset options: ``reset(seed, options={"dealer": k, "decks": [deck0, ...]})``;
a deck is 24 card texts, top first, dealt one at a time clockwise from the
dealer's left (at 2 players a dead hand sits after the two players).

Actions
-------
=========  =====================================================
id         text (``env.unwrapped.action_to_str(id)``)
=========  =====================================================
0          ``pass``
1..7       ``bid 1`` .. ``bid 7`` (6 and 7 only at 2-3 players)
8, 9       ``bid little``, ``bid big``
10..13     ``trump C``, ``trump D``, ``trump H``, ``trump S``
14         ``trump none`` (no-trump)
15..38     ``play 9C``, ``play TC``, .., ``play AS`` (15 + 6*suit + rank,
           suits C D H S, ranks 9 T J Q K A)
=========  =====================================================

Observation
-----------
==========  =====  =========================================================
index       size   meaning (seats relative to the viewer: 0 = self,
                   1 = next clockwise, 2 = partner at 4 players)
==========  =====  =========================================================
0           24     own hand
24          4x24   current trick: card played by each relative seat
120         4x24   earlier tricks this hand: cards played by each relative seat
216         4x10   each relative seat's bid: 0 passed, 1..9 its last bid
256         10     high bid one-hot (0 none)
266         4      high bidder (relative seat)
270         6      trump: not chosen, C, D, H, S, no-trump
276         3      phase: bidding, choosing trump, playing
279         4      leader of the current trick (relative seat)
283         4      dealer (relative seat)
287         4      tricks won this hand per relative seat
291         4      score per relative seat (its side's total)
295         3      number of players: 2, 3, 4
==========  =====  =========================================================

Rewards
-------
``"win_loss"`` (default): +1 to every seat of a winning side, -1 to every
other seat, when the game ends (partners share).  ``"score_delta"``: after
every hand each seat receives its side's score change for that hand.
Stepping an illegal action raises :class:`cardenvs.IllegalActionError` and
changes nothing.
"""

from __future__ import annotations

from typing import Any

from ..core.aec import CardGameAECEnv, wrap
from .rules import PepperRules


class raw_env(CardGameAECEnv):  # noqa: N801 - PettingZoo naming
    __doc__ = __doc__
    metadata = {**CardGameAECEnv.metadata, "name": "pepper_v0"}
    rules_class = PepperRules


def env(**config: Any):
    """The Pepper AEC env wrapped as PettingZoo classic envs are."""
    return wrap(raw_env(**config))
