"""Push — PettingZoo AEC environment (``cardenvs.push_v0``).

A partnership contract rummy for 4 players (teams {0, 2} v {1, 3}) with 108
cards (two decks and four jokers; 2s and jokers are wild), played over five
rounds of 6..10 cards, lowest total penalty wins.  Rules:
``shared/rules/push.md`` (implemented in :mod:`cardenvs.push.rules`, whose
docstring has the action-space plan and its reasoning); observation
encoding: :mod:`cardenvs.push.observation`.

=====================  =====================================================
Import                 ``from cardenvs import push_v0``
Actions                Discrete(2371)
Parallel API           No
Agents                 ``player_0`` .. ``player_3`` (seat = index, clockwise)
Observation            Dict: ``observation`` Box((4960,), int16; 0/1 except
                       counts and raw scores),
                       ``action_mask`` Box(0, 1, (2371,), int8)
=====================  =====================================================

Config (``push_v0.env(**config)``)
----------------------------------
===============  ================  ==========================================
option           default           allowed
===============  ================  ==========================================
rounds           [1, 2, 3, 4, 5]   non-empty list of distinct round numbers
                                   1..5, played in that order (e.g. ``[1]``)
reward           "win_loss"        "win_loss", "score_delta"
max_turns        200               positive int: a round that lasts this many
                                   turns ends as if the stock ran out (both
                                   teams score their hands); taking the
                                   discard never uses the stock, so without a
                                   limit a round could last forever
render_mode      None              None, "ansi", "human"
===============  ================  ==========================================

Reset options: ``reset(seed, options={"dealer": k, "decks": [deck0, ...]})``;
a deck is 108 card texts (``"JK"`` for a joker), top first; deal k (round k
of the game) uses ``decks[k]``: cards are dealt one at a time clockwise from
the dealer's left, the next natural card is the upcard (wilds turned before
it go to the bottom of the stock), the rest is the stock in order.

Actions
-------
A turn: ``take`` or ``push``; then any melding actions; then ``discard X``
(not needed if the player melded their last card).  Melds are built in a
*pending meld*: declare its shape, then add its cards one by one.  The mask
offers a step only if the meld (and, when laying the contract, the whole
contract) can still be finished from the hand.  Run positions: ``Alo`` (ace
low), ``2`` .. ``K``, ``Ahi`` (ace high).

==================  ==========================================================
id                  text (``env.unwrapped.action_to_str(id)``)
==================  ==========================================================
0                   ``take`` (the discard pile's top card)
1                   ``push`` (stock top and discard top to the left-hand
                    player, then draw the next stock card)
2..54               ``discard 2C`` .. ``discard JK``
55..66              ``set 3`` .. ``set A``: declare a set of that rank
67..374             ``run H 5-8``: declare a run of a suit over ranks lo..hi
                    (``run S A-3`` ace low, ``run S Q-A`` ace high)
375..383            ``add C`` .. ``add S`` (a natural of the set's rank in that
                    suit), ``add 2C`` .. ``add 2S``, ``add JK``
384                 ``end set`` (a set of 3 or more cards is finished)
385..390            ``fill nat`` / ``fill 2C`` .. ``fill JK``: the next
                    position of the run gets its natural card or that wild
391 + 55m + j       on table meld m (0..35):
                    ``layoff m C`` .. ``layoff m JK`` (on a set; j 0..8),
                    ``layoff m low nat`` .. ``layoff m low JK`` (j 9..14),
                    ``layoff m high nat`` .. ``layoff m high JK`` (j 15..20),
                    ``swap m Alo`` .. ``swap m Ahi`` (give a run position's
                    natural, take its wild; j 21..34),
                    ``swap m C 2D`` (give a natural of a set's rank in suit C,
                    take a 2D from the set; j 35..54)
==================  ==========================================================

The first meld a player declares in a round starts their contract (round 1:
two sets of 3; 2: a set of 3 then a run of 4; 3: two runs of 4; 4: three
sets of 3; 5: two runs of 5; melds may be longer): its melds are declared in
that order and all finished before anything else.  After a swap the wild
taken must be laid off or melded before the turn can end.

Observation
-----------
See :mod:`cardenvs.push.observation` for the index table: own hand, discard
pile (top and contents), stock size, every seat's hand size, contract status
and score, round, turn phase, contract progress, the pending meld, an owed
wild, and 36 table meld slots (owner, kind, rank or suit, what card or wild
stands at each run position, a set's cards).

Rewards
-------
``"win_loss"`` (default): at game end +1 to both players of the team with the
lower total, -1 to the others, 0 to everyone in a draw.  ``"score_delta"``:
after every round each player receives minus their team's penalty points for
that round.  Stepping an illegal action raises
:class:`cardenvs.IllegalActionError` and changes nothing.
"""

from __future__ import annotations

from typing import Any

from ..core.aec import CardGameAECEnv, wrap
from .rules import PushRules


class raw_env(CardGameAECEnv):  # noqa: N801 - PettingZoo naming
    __doc__ = __doc__
    metadata = {**CardGameAECEnv.metadata, "name": "push_v0"}
    rules_class = PushRules


def env(**config: Any):
    """The Push AEC env wrapped as PettingZoo classic envs are."""
    return wrap(raw_env(**config))
