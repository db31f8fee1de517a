"""Trick-taking rules shared by the trick games (Pepper, Cancellation Hearts).

Compiled kernels (:mod:`cardenvs.core.jit`) working on one row: a game's
own mask kernel calls them with its rows' slices.
"""

from __future__ import annotations

from .jit import kernel


@kernel
def playable(play, hand, preferred):
    """Write into ``play`` (one flag per card type) the cards the hand may play:
    the held cards that are ``preferred`` if it holds any, else any card it
    holds.  That is following suit (``preferred``: the cards of the suit led,
    as the game counts suits), and a lead restriction that lapses when the
    hand holds nothing else (Hearts: no heart before hearts are broken).

    ``hand`` (counts) and ``preferred`` are read as zero / non-zero per card
    type, with no branch per card (random hands would mispredict it).
    """
    holds_preferred = False
    for t in range(hand.shape[0]):
        holds_preferred |= (hand[t] != 0) & (preferred[t] != 0)
    any_card = not holds_preferred
    for t in range(hand.shape[0]):
        play[t] = (hand[t] != 0) & ((preferred[t] != 0) | any_card)
