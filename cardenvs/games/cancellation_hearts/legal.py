"""Cancellation Hearts: the legal-action masks (compiled kernels), one
function per phase.

Passing: any card held.  Playing: follow the suit led if able; a lead may
not be a heart before hearts are broken, and the opening lead neither a
heart nor a Black Maria, unless the hand holds nothing else.  Moon choice:
both choices.  Over: nothing.  The kernels that apply actions and deal
call :func:`refresh_legal` for every game they change.
"""

from __future__ import annotations

from ...core.jit import kernel
from ...core.tricks import playable
from .tables import (
    LEAD_ALLOWED,
    LEAD_BROKEN,
    LEAD_OPENING,
    LEAD_UNBROKEN,
    MOON_CHOICE,
    MOON_OTHERS,
    MOON_SELF,
    NUM_TYPES,
    PASS0,
    PASSING,
    PLAY0,
    PLAYING,
    SUIT,
    SUIT_CARDS,
)


@kernel
def refresh_legal(row, state):
    """Rewrite the legal mask of game ``row`` for its seat to act (:func:`legal_row`)."""
    legal_row(
        state.legal[row],
        state.hands[row, state.current[row]],
        state.phase[row],
        state.trick[row, 0],
        state.trick_no[row] == 0,
        state.hearts_broken[row],
    )


@kernel
def legal_row(mask, hand, phase, lead_card, opening, hearts_broken):
    """Rewrite one game's legal ``mask`` by its phase; its seat to act holds
    ``hand``.  (Takes the game's slices, not the state's arrays: see
    :class:`.tables.Arrays`.)"""
    mask[:] = False
    if phase == PLAYING:
        playing_mask(mask[PLAY0 : PLAY0 + NUM_TYPES], hand, lead_card, opening, hearts_broken)
    elif phase == PASSING:
        passing_mask(mask[PASS0 : PASS0 + NUM_TYPES], hand)
    elif phase == MOON_CHOICE:
        mask[MOON_SELF] = True
        mask[MOON_OTHERS] = True


@kernel
def playing_mask(play, hand, lead_card, opening, hearts_broken):
    """The cards ``hand`` may play (``play``, one entry per card type):
    following ``lead_card``'s suit if the hand holds any (-1: leading); a
    lead by the rules for the ``opening`` lead, or for hearts broken or not."""
    if lead_card >= 0:
        playable(play, hand, SUIT_CARDS[SUIT[lead_card]])
    elif opening:
        playable(play, hand, LEAD_ALLOWED[LEAD_OPENING])
    else:
        playable(play, hand, LEAD_ALLOWED[LEAD_BROKEN if hearts_broken else LEAD_UNBROKEN])


@kernel
def passing_mask(mask, hand):
    """Any card held may be passed: ``mask[:] = hand > 0``."""
    for t in range(hand.shape[0]):
        mask[t] = hand[t] > 0
