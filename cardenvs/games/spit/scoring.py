"""Spit: the end of a deal and of the game, scores and rewards.

:func:`end_deals` is compiled (see :mod:`cardenvs.core.jit`): what happens
when a player plays the last card of their layout.  :func:`finish_games`
and :func:`truncate` are whole-batch numpy, shared with Speed: a game won
(+1 / -1) or drawn, and the ``max_ticks`` cut (a draw).
"""

from __future__ import annotations

import numpy as np

from ...core.game import BatchState
from ...core.jit import kernel
from .tables import DONE, SLAPPING


@kernel
def end_deals(faster, first, went_out, state, rewards, end_rows, end_taker, ends):
    """The games where seat ``went_out[r]`` (-1: none) played the last card
    of its layout, that seat being the faster hand (``faster``) or the
    slower one.  With no spit cards either, that player wins the game
    (+1 / -1); otherwise, with both spit piles in the centre, both slap next
    tick, and with one pile the deal ends: the other player takes it.

    The deals that end are appended to ``end_rows`` / ``end_taker`` from
    index ``ends``; returns the new count.  (Called for the faster hands
    first: the seeded deck orders of the new layouts go to the rows in that
    order.)"""
    for r in range(went_out.shape[0]):
        seat = went_out[r]
        if seat < 0 or (seat == first[r]) != faster:
            continue
        if state.spit_count[r, seat] == 0:  # no spit cards either: the game is won
            win(r, seat, state, rewards)
        elif state.centre_count[r, 0] == 0 or state.centre_count[r, 1] == 0:
            # One spit pile: the player who went out takes nothing from the
            # centre; the other collects the pile with their own cards.
            end_rows[ends] = r
            end_taker[ends, 0] = 1 - seat
            end_taker[ends, 1] = 1 - seat
            ends += 1
        else:
            state.phase[r] = SLAPPING  # both slap a spit pile next tick
    return ends


@kernel
def win(r, seat, state, rewards):
    """``seat`` wins game ``r``: a point, +1 to it and -1 to the other."""
    state.scores[r, seat] += 1
    state.done[r] = True
    state.phase[r] = DONE
    state.winner[r] = seat
    rewards[r, seat] += np.float32(1.0)
    rewards[r, 1 - seat] -= np.float32(1.0)


def finish_games(state: BatchState, rows: np.ndarray, winner: np.ndarray, rewards: np.ndarray) -> None:
    """The games ``rows`` are over: ``winner`` seat (-1: a draw) gets +1 and
    the other -1.  Shared with Speed."""
    state.done[rows] = True
    state.phase[rows] = DONE
    state.winner[rows] = winner
    won = winner >= 0
    rewards[rows[won], winner[won]] += 1.0
    rewards[rows[won], 1 - winner[won]] -= 1.0


def truncate(state: BatchState, max_ticks: int | None) -> None:
    """Games still running after ``max_ticks`` ticks (None: no limit) end as
    a truncated draw, without reward.  Shared with Speed."""
    if max_ticks is not None:
        truncate_rows(max_ticks, state.done, state.ticks, state.truncated, state.phase, state.legal)


@kernel
def truncate_rows(max_ticks, done, ticks, truncated, phase, legal):
    """:func:`truncate` (a kernel: at batch 1 the numpy version's four calls
    cost more than the tick's rules)."""
    for r in range(done.shape[0]):
        if not done[r] and ticks[r] >= max_ticks:
            done[r] = True
            truncated[r] = True
            phase[r] = DONE
            legal[r] = False
