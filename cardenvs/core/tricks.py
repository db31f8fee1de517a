"""Trick-taking helpers shared by the trick games (Pepper, Cancellation Hearts).

Everything is batched: one row per game.
"""
from __future__ import annotations

import numpy as np


def follow_suit_mask(hand: np.ndarray, card_suit: np.ndarray, led_suit: np.ndarray) -> np.ndarray:
    """Card types a player may play to a trick.

    ``hand``: ``(B, T)`` counts of the player's cards; ``card_suit``: ``(B, T)``
    or ``(T,)`` the suit each type counts as (a game with bowers passes its
    *effective* suits); ``led_suit``: ``(B,)``, -1 when the player leads.
    A player must follow the suit led if able, else may play any card.
    """
    held = hand > 0
    same = held & (card_suit == led_suit[:, None])
    must_follow = same.any(axis=1) & (led_suit >= 0)
    return np.where(must_follow[:, None], same, held)


def trick_winner(strength: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Position of the winning card in each trick.

    ``strength``: ``(B, n)`` a game-specific strength per card played, with
    any negative value meaning "cannot win" (off-suit, cancelled, empty).
    Returns ``(winner_position, claimed)``: ``claimed`` is False where no card
    can win (the position returned there is meaningless).
    """
    pos = strength.argmax(axis=1)
    claimed = strength[np.arange(strength.shape[0]), pos] >= 0
    return pos, claimed


def cancelled_mask(cards: np.ndarray) -> np.ndarray:
    """Cards of a trick whose identical twin was played to the same trick.

    For multi-deck games (Cancellation Hearts), where identical cards played
    to one trick cancel each other.  ``cards``: ``(B, n)`` the card type at
    each position of the trick, -1 for no card.  Returns ``(B, n)`` bool:
    True where another position holds the same card type.
    """
    same = cards[:, :, None] == cards[:, None, :]
    return (same.sum(axis=2) > 1) & (cards >= 0)
