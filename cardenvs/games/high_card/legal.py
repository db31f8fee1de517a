"""High Card: the legal-action mask (compiled kernels).

Swapping: ``keep``, or swap any card held.  Playing: follow the suit led if
able, else any card held.  Over: nothing.  Every kernel that changes a game
(deal, apply) ends with :func:`refresh_legal` for it, so ``state.legal`` is
always the mask of the seat to act: the envs and the vector engine only
read it.
"""

from __future__ import annotations

from cardenvs.core.jit import kernel

from .tables import KEEP, NUM_CARDS, PLAY0, PLAYING, SUIT, SWAP0, SWAPPING


@kernel
def refresh_legal(row, state):
    """Rewrite the legal mask of game ``row`` for its seat to act."""
    mask = state.legal[row]
    mask[:] = False
    phase = state.phase[row]
    if phase != SWAPPING and phase != PLAYING:
        return  # the game is over: nothing is legal
    hand = state.hands[row, state.current[row]]
    if phase == SWAPPING:
        mask[KEEP] = True
        for card in range(NUM_CARDS):
            mask[SWAP0 + card] = hand[card] > 0
        return
    led = state.table[row, 0]  # -1: this seat leads
    can_follow = False
    if led >= 0:
        for card in range(NUM_CARDS):
            can_follow |= hand[card] > 0 and SUIT[card] == SUIT[led]
    for card in range(NUM_CARDS):
        mask[PLAY0 + card] = hand[card] > 0 and (not can_follow or SUIT[card] == SUIT[led])
