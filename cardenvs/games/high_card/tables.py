"""High Card: constants and tables.

The deck, the action ids and their texts, the phase ids, and what the
compiled kernels take: :class:`Config` (the configuration's numbers) and
:class:`Arrays` (the state's arrays they read and write), handed to them as
one pack (:data:`ArrayValues`, named again by :func:`unpack_arrays`).

16 cards: the jack, queen, king and ace of each suit.  A card's local id is
``4 * suit + rank`` (suits ``C D H S``, ranks ``J Q K A``), the order of
:data:`DECK`'s texts; every card exists once, so a hand is a 0/1 per card.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from cardenvs.core.actions import ActionTable
from cardenvs.core.cards import standard_deck
from cardenvs.core.jit import kernel, pack_kind, view1, view2, view3

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

    The rules hand a kernel ``state.bundle(ArrayValues)``, one int64 array
    holding every array's address and shape (a *pack*,
    :func:`cardenvs.core.jit.pack`, made once per state), and the kernel
    names the arrays again on entry (``state = unpack_arrays(arrays)``).
    Why a pack, not a tuple of the arrays: the kernels pass ``state`` on to
    small functions called for every row (:func:`~.legal.refresh_legal`,
    :func:`~.apply.play_card`), and each such call of an array numpy owns
    updates its reference count, twice per array (atomic operations, as
    much as the row's work); the arrays of a pack own nothing, so the calls
    cost nothing more (docs/adding-a-game.md, "A fast game")."""

    phase: np.ndarray  # (B,) SWAPPING, PLAYING, DONE
    done: np.ndarray  # (B,) bool, the game is over
    current: np.ndarray  # (B,) seat to act (-1: game over)
    legal: np.ndarray  # (B, 33) bool, the legal actions of the seat to act
    dealer: np.ndarray  # (B,)
    hand_number: np.ndarray  # (B,) hands completed in this game
    scores: np.ndarray  # (B, 2) hands won in this game
    hands: np.ndarray  # (B, 2, 16) int8: 1 where the seat holds the card
    stock: np.ndarray  # (B, STOCK_SIZE) the stock's cards, top first (face down)
    stock_top: np.ndarray  # (B,) how many stock cards were drawn (the next is stock[row, stock_top])
    discards: np.ndarray  # (B, 16) int8: 1 where a card was swapped away this hand (face up)
    table: np.ndarray  # (B, 2) the cards played to the trick, in play order (-1: none)
    turns: np.ndarray  # (B,) actions taken in this phase


_I64, _I64_2, _BOOL, _BOOL_2, _I8_2 = (np.int64, 1), (np.int64, 2), (np.bool_, 1), (np.bool_, 2), (np.int8, 2)
#: The dtype and dimensions of each array of :class:`Arrays`, in its order (a new array: a field
#: of Arrays, its kind here, its view in unpack_arrays, all three in the same place of the order).
ARRAY_KINDS = (
    *(_I64, _BOOL, _I64, _BOOL_2, _I64, _I64, _I64_2),  # phase, done, current, legal, dealer, hand_number, scores
    *((np.int8, 3), _I64_2, _I64, _I8_2, _I64_2, _I64),  # hands, stock, stock_top, discards, table, turns
)
#: ``state.bundle(ArrayValues)``: the state's :class:`Arrays` as one pack (made once per state).
ArrayValues = pack_kind(Arrays._fields, ARRAY_KINDS)


@kernel
def unpack_arrays(p):
    """The :class:`Arrays` of a pack of :data:`ArrayValues`."""
    return Arrays(
        view1(p, 0, np.int64),
        view1(p, 1, np.bool_),
        view1(p, 2, np.int64),
        view2(p, 3, np.bool_),
        view1(p, 4, np.int64),
        view1(p, 5, np.int64),
        view2(p, 6, np.int64),
        view3(p, 7, np.int8),
        view2(p, 8, np.int64),
        view1(p, 9, np.int64),
        view2(p, 10, np.int8),
        view2(p, 11, np.int64),
        view1(p, 12, np.int64),
    )
