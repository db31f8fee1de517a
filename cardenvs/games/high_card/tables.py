"""High Card: constants and tables (no compiled code).

The deck, the action ids and their texts, the phase ids, and what the
compiled kernels take: :class:`Config` (the configuration's numbers) and
:class:`Arrays` (the state's arrays they read and write).

16 cards: the jack, queen, king and ace of each suit.  A card's local id is
``4 * suit + rank`` (suits ``C D H S``, ranks ``J Q K A``), the order of
:data:`DECK`'s texts; every card exists once, so a hand is a 0/1 per card.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from cardenvs.core.actions import ActionTable
from cardenvs.core.cards import standard_deck

DECK = standard_deck(ranks="JQKA")  # JC QC KC AC JD .. AS
NUM_CARDS = DECK.num_cards  # 16
SUIT = DECK.suit.astype(np.int64)  # 0..3 per card
RANK = (np.arange(NUM_CARDS) % 4).astype(np.int64)  # 0 (jack) .. 3 (ace) per card
NUM_PLAYERS = 2
HAND_SIZE = 3  # cards dealt to each seat
STOCK_SIZE = NUM_CARDS - NUM_PLAYERS * HAND_SIZE  # 10: the rest, face down
MAX_HANDS = 100  # the largest `hands` option (scores fit the int8 observation)

# Action ids: one Discrete(33) space.  Ids are grouped by phase, so a mask
# of one phase is one slice (see legal.py).
KEEP = 0  # keep the hand as dealt
SWAP0 = 1  # 1..16: "swap JC" .. "swap AS": discard that card face up, draw the top of the stock
PLAY0 = 17  # 17..32: "play JC" .. "play AS"
NUM_ACTIONS = 33
ACTIONS = ActionTable(
    ["keep"] + [f"swap {t}" for t in DECK.texts] + [f"play {t}" for t in DECK.texts],
    "High Card",
    ("keep", "swap JC", "play AS"),
)

# Phases (``state.phase``): each seat swaps or keeps once, then each plays one card.
SWAPPING, PLAYING, DONE = 0, 1, 2
PHASE_NAMES = ("swapping", "playing", "done")


class Config(NamedTuple):
    """The configuration as the kernels read it (built once by the rules)."""

    hands: int  # hands in a game
    score_delta: bool  # rewards: +1 to each hand's winner (else win/loss at the end)


class Arrays(NamedTuple):
    """The state's arrays the kernels use, by name; B games, 2 seats.

    The rules hand a kernel ``state.bundle(ArrayValues)``, a plain tuple of
    these arrays (made once per state), and the kernel names them again on
    entry (``Arrays(*arrays)``): numba passes a plain tuple more cheaply than
    a named one."""

    phase: np.ndarray  # (B,) SWAPPING, PLAYING, DONE
    current: np.ndarray  # (B,) seat to act (-1: game over)
    legal: np.ndarray  # (B, 33) bool, the legal actions of the seat to act
    dealer: np.ndarray  # (B,)
    hand_number: np.ndarray  # (B,) hands completed in this game
    scores: np.ndarray  # (B, 2) tricks won in this game
    hands: np.ndarray  # (B, 2, 16) int8: 1 where the seat holds the card
    stock: np.ndarray  # (B, STOCK_SIZE) the stock's cards, top first (face down)
    stock_top: np.ndarray  # (B,) how many stock cards were drawn (the next is stock[row, stock_top])
    discards: np.ndarray  # (B, 16) int8: 1 where a card was swapped away this hand (face up)
    table: np.ndarray  # (B, 2) the cards played to the trick, in play order (-1: none)
    turns: np.ndarray  # (B,) actions taken in this phase


class ArrayValues:
    """``state.bundle(ArrayValues)``: the arrays of :class:`Arrays` in its
    order, as a plain tuple (see :class:`Arrays`)."""

    _fields = Arrays._fields

    def __new__(cls, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:  # a tuple, not an ArrayValues
        return arrays
