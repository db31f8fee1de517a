"""Spit and Speed — PettingZoo parallel environment (``cardenvs.spit_v0``),
with an AEC view.

A real-time two-player shedding game: at every *tick* both players act at
once.  Rules: ``shared/rules/spit.md`` (implemented by
:class:`cardenvs.spit.rules.SpitRules` and
:class:`cardenvs.speed.rules.SpeedRules`, picked by ``variant``).

=====================  =====================================================
Import                 ``from cardenvs import spit_v0``
Parallel API           ``spit_v0.parallel_env(**config)``
AEC view               ``spit_v0.env(**config)`` (players submit in seat
                       order; the tick is applied when both have)
Actions                Spit: Discrete(33) (Discrete(23) with
                       ``stockpiles=4``); Speed: Discrete(105)
Agents                 ``player_0``, ``player_1``
Observation            Dict: ``observation`` Box((234,) Spit int8 / (98,)
                       Speed int8, int16 when ``target_score`` > 75 (int32
                       past 32715);
                       one-hots and counts), ``action_mask``
                       Box(0, 1, (n_actions,), int8)
=====================  =====================================================

Config (``spit_v0.parallel_env(**config)``, same for ``env``)
-------------------------------------------------------------
================  ==========  ================================================
option            default     allowed
================  ==========  ================================================
variant           "spit"      "spit", "speed"
stockpiles        5           5, 4 (Spit only)
alternate_colors  False       False, True: a played card must also be of the
                              other colour than the pile's top (Spit and Speed)
speed_side_piles  10          10, 5 (side piles of 10 and stocks of 15, or
                              5 and 20; Speed only)
target_score      None        None (one game) or a positive int: Speed games
                              repeat until a player has that many points
                              (Speed only)
max_ticks         5000        positive int (the episode is truncated, a draw,
                              after that many ticks) or None
reward            "win_loss"  "win_loss", "cards_shed"
illegal_action    "raise"     "raise" (IllegalActionError, state unchanged),
                              "wait" (an illegal action is played as waiting)
render_mode       None        None, "ansi", "human"
================  ==========  ================================================

Reset options: ``reset(seed, options={"decks": [deck0, ...], "dealer": k})``.
Spit: ``deck0`` (52 card texts, top first): ``player_0`` gets the first 26
cards, ``player_1`` the rest; each lays stockpile 0, 1, 2, ... (1, 2, 3, ...
cards) from their cards in order, the last card laid on a pile being its
face-up top, and the rest, in order, are their spit cards (first = top).
``decks[k]`` for k >= 1 orders the cards each player gathers at the end of
deal k: they are laid out in the order they appear in ``decks[k]`` (without
it, a seeded shuffle).  Speed: ``player_0``'s stock, ``player_1``'s stock,
side pile 0, side pile 1 (each top first), then the two middle cards (pile 0
first); ``decks[k]`` deals game k (with ``target_score``).  ``dealer`` is
validated and recorded only: nobody deals in Spit.

Actions
-------
Spit (S = number of stockpiles, stockpiles and piles numbered from 0):

==========================  ==================================================
id                          text (``env.unwrapped.action_to_str(id)``)
==========================  ==================================================
0                           ``wait`` (legal while the deal is in play)
1 + 2*I + P                 ``play I P``: the top card of stockpile I onto
                            spit pile P (rank one above or below, circular)
1 + 2S + I*(S-1) + J'       ``move I J``: the top card of stockpile I into the
                            empty space J (J' = J, or J - 1 when J > I)
1 + 2S + S(S-1) + P         ``slap P`` (only, and both, while slapping)
==========================  ==================================================

Speed: 0 ``wait``; ``1 + 2*card + P`` ``play CARD P`` (a card of the hand,
e.g. ``play QS 1``; card id = 13 * suit + rank, suits C D H S, ranks 2..A).

Observation
-----------
Spit: 234 numbers (``int8``): both players' stockpile tops and face-down
counts, the spit piles' tops and sizes, spit cards left, the phase and the
own seat.  Speed: 98 numbers: own hand, the centre tops, card counts, own
seat and scores.  The index tables are the layouts
:data:`cardenvs.spit.observation.LAYOUT` and
:data:`cardenvs.speed.observation.LAYOUT` (``LAYOUT.markdown()``; see
``docs/spit.md``).  Never encoded: face-down, spit, stock or side-pile
cards, the opponent's Speed hand.

Rewards
-------
``"win_loss"`` (default): +1 to the winner and -1 to the loser when the game
(Speed with ``target_score``: the match) is won; 0 to both for a draw or a
truncation.  ``"cards_shed"``: the same plus +1/52 to a player for every card
they play onto a centre pile.  Stepping an illegal action raises
:class:`cardenvs.IllegalActionError` and changes nothing (unless
``illegal_action="wait"``).
"""

from __future__ import annotations

from typing import Any

from ..core.aec import wrap
from ..core.simultaneous import SimultaneousAECEnv, SimultaneousParallelEnv
from .rules import spit_rules


class parallel_raw_env(SimultaneousParallelEnv):  # noqa: N801 - PettingZoo naming
    __doc__ = __doc__
    metadata = {**SimultaneousParallelEnv.metadata, "name": "spit_v0"}
    # a function picking SpitRules or SpeedRules by ``variant`` (static: not a method of the env)
    rules_class = staticmethod(spit_rules)


class raw_env(SimultaneousAECEnv):  # noqa: N801 - PettingZoo naming
    __doc__ = __doc__
    metadata = {**SimultaneousAECEnv.metadata, "name": "spit_v0"}
    parallel_class = parallel_raw_env


def parallel_env(**config: Any) -> parallel_raw_env:
    """The Spit / Speed PettingZoo parallel env."""
    return parallel_raw_env(**config)


def env(**config: Any):
    """The AEC view of the Spit / Speed env, wrapped as PettingZoo classic envs are."""
    return wrap(raw_env(**config))
