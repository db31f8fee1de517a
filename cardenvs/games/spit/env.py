"""Spit and Speed — PettingZoo parallel environment (``cardenvs.spit_v0``),
with an AEC view.

A real-time two-player shedding game: at every *tick* both players act at
once (``spit_v0.parallel_env(**config)``); ``spit_v0.env(**config)`` is an
AEC view (players submit in seat order, the tick is applied when both have).
``variant="spit"`` (:class:`cardenvs.games.spit.rules.SpitRules`) or ``"speed"``
(:class:`cardenvs.games.spit.speed.rules.SpeedRules`).  Actions: Spit ``wait``,
``play I P``, ``move I J``, ``slap P`` (``Discrete(33)``, 23 with
``stockpiles=4``); Speed ``wait``, ``play CARD P`` (``Discrete(105)``); each
with an ``action_mask``.

Config: ``variant`` (``"spit"``), ``stockpiles`` (5; Spit), ``speed_side_piles``
(10; Speed), ``target_score`` (None; Speed: the winner of a game scores the
cards left in the loser's stock, games repeat to the target),
``alternate_colors`` (False), ``max_ticks`` (5000; ``max_cycles``, PettingZoo's name
for it, sets the same limit), ``stall_ticks`` (30: that many ticks with no
card played count as a stalemate; None: the originals), ``reward``
(``"win_loss"``, ``"cards_shed"`` or, Spit only, ``"cards_held"``), ``illegal_action`` (``"raise"``,
``"terminate"``, ``"wait"``), ``obs_dtype``, ``render_mode``.  Reset
options: ``{"decks": [deck0, ...], "dealer": k}``.

The rules in full, with every decision we took, the config, action and
observation tables and the rewards are in docs/spit.md; the observation
tables below are generated from the layouts, as the page's are.
"""

from __future__ import annotations

from typing import Any

from ...core.aec import wrap
from ...core.layout import with_observation_table
from ...core.simultaneous import SimultaneousParallelEnv
from ...core.simultaneous_aec import SimultaneousAECEnv
from .observation import LAYOUT as SPIT_LAYOUT
from .rules import spit_rules
from .speed.observation import LAYOUT as SPEED_LAYOUT

__doc__ = with_observation_table(__doc__, ("Spit observation", SPIT_LAYOUT), ("Speed observation", SPEED_LAYOUT))


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
