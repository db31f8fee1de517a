"""Pepper's compiled legal-action kernels (:mod:`cardenvs.core.jit`): who acts
next and the mask of each phase (the auction, the trump choice, the play).

Each writes ``legal[row]`` of one row; the deal and apply kernels call them
for the rows they step.  They take the few arrays they use and scalars, not
the state's bundle: a call between compiled functions costs more the more
arrays it passes (a mask helper taking the whole state cost more than the
mask itself).
"""

from __future__ import annotations

from ...core.jit import kernel
from ...core.tricks import playable
from .tables import BID_BIG, NO_BID, NUM_ACTIONS, PASS, PLAY0, SUIT_MEMBERS, TRUMP0, TRUMP_NONE


@kernel
def clockwise(seat, steps, num_players):
    """The seat ``steps`` (0..n) places clockwise of ``seat`` (0..n-1), by a
    comparison instead of ``%`` (no integer division)."""
    after = seat + steps
    return after - num_players if after >= num_players else after


# ---------------------------------------------------------------- the auction
@kernel
def may_pass(stick_dealer, high, seat, dealer):
    """Whether ``seat`` may pass: not when sticking the dealer, nobody has
    bid and it is the dealer's turn (so everyone else passed)."""
    return not (stick_dealer and high == NO_BID and seat == dealer)


@kernel
def bid_mask(legal, row, high, passing_allowed, bid_allowed):
    """``legal[row]`` in the auction: a bid above ``high`` (on this player
    count's ladder, ``bid_allowed``), and pass if ``passing_allowed``."""
    for action in range(NUM_ACTIONS):
        legal[row, action] = False
    for action in range(high + 1, BID_BIG + 1):
        legal[row, action] = bid_allowed[action]
    legal[row, PASS] = passing_allowed


# ---------------------------------------------------------------- the trump choice
@kernel
def trump_mask(legal, row):
    """``legal[row]`` of the winning bidder: the four suits and no-trump."""
    for action in range(NUM_ACTIONS):
        legal[row, action] = TRUMP0 <= action <= TRUMP_NONE


# ---------------------------------------------------------------- the play
@kernel
def play_mask(legal, hands, row, seat, trump, led):
    """``legal[row]`` of ``seat`` in the play: a card of the (effective) suit
    ``led`` if it holds one (the left bower is a trump, not a card of its
    printed suit), else any card it holds; ``led`` -1: it leads (the row of
    :data:`~cardenvs.games.pepper.tables.SUIT_MEMBERS` for nobody led is empty: any card).
    """
    mask = legal[row]
    for action in range(PLAY0):
        mask[action] = False
    playable(mask[PLAY0:], hands[row, seat], SUIT_MEMBERS[trump, led + 1])
