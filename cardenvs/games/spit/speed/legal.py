"""Speed: the legal-action masks, in whole-batch numpy over a set of rows
(see :mod:`.deal` for why Speed is not compiled).

While the game is in play a player may wait or play a card of their hand
that fits a centre pile (``fits[pile top, card]``); nothing once it is over.
"""

from __future__ import annotations

import numpy as np

from ....core.game import BatchState
from ..tables import NONE, PLAYING, WAIT


def playable(fits: np.ndarray, state: BatchState, rows: np.ndarray | None) -> np.ndarray:
    """``(k, 2, 52, 2)`` bool for the games ``rows`` (None: all): the seat
    holds the card and it fits centre pile P."""
    hand = state.hand if rows is None else state.hand[rows]
    centre_top = state.centre_top if rows is None else state.centre_top[rows]
    fitting = fits[centre_top].transpose(0, 2, 1)  # (k, 52, 2)
    return hand[:, :, :, None] & fitting[:, None, :, :]


def stuck(state: BatchState, rows: np.ndarray | None, plays: np.ndarray) -> np.ndarray:
    """``(k,)`` bool: the game is in play and nobody has a card to play
    (``plays`` from :func:`playable`)."""
    phase = state.phase if rows is None else state.phase[rows]
    return (phase == PLAYING) & ~plays.any(axis=(1, 2, 3))


def stalled(state: BatchState, rows: np.ndarray | None, stall_ticks: int | None) -> np.ndarray:
    """``(k,)`` bool: the game is in play and no card was played onto a
    centre pile (nor turned from a side pile) for ``stall_ticks`` ticks (the
    stall rule; None: never)."""
    phase = state.phase if rows is None else state.phase[rows]
    if stall_ticks is None:
        return np.zeros(len(phase), bool)
    stall = state.stall if rows is None else state.stall[rows]
    return (phase == PLAYING) & (stall >= stall_ticks)


def write_masks(state: BatchState, rows: np.ndarray | None, plays: np.ndarray) -> None:
    """Write the legal masks of the games ``rows`` (None: all) from their
    ``plays`` (:func:`playable`)."""
    phase = state.phase if rows is None else state.phase[rows]
    k = len(phase)
    legal = np.empty((k, 2, state.legal.shape[2]), bool)
    playing = (phase == PLAYING)[:, None]
    legal[:, :, WAIT] = playing
    legal[:, :, 1:] = plays.reshape(k, 2, 104) & playing[:, :, None]
    if rows is None:
        state.legal[:] = legal
    else:
        state.legal[rows] = legal


def can_ever_play(fits: np.ndarray, state: BatchState, rows: np.ndarray) -> np.ndarray:
    """``(k,)`` bool for stuck games ``rows``: some card that can still reach
    a centre top (a side-pile card, a card under a centre top, or a top
    itself) fits a card in a hand, and there is a card left to turn.  A game
    where this fails can never go on."""
    k = len(rows)
    games = np.arange(k)
    movable = np.zeros((k, NONE + 1), bool)
    movable[games[:, None], state.side_piles[rows].reshape(k, -1)] = True
    under = state.centre[rows].copy()
    under[games[:, None], np.arange(2)[None, :], state.centre_count[rows] - 1] = NONE  # the tops stay
    turnable = movable.copy()
    turnable[games[:, None], under.reshape(k, -1)] = True
    turnable[:, NONE] = False
    reachable = turnable.copy()
    reachable[games[:, None], state.centre_top[rows]] = True
    held = state.hand[rows].any(axis=1)  # (k, 52)
    fits_held = (reachable[:, :52] @ fits.astype(np.int64)[:52] * held).any(axis=1)
    return fits_held & turnable[:, :52].any(axis=1)
