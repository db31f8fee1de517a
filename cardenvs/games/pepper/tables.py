"""Pepper's constants and fixed tables: the deck, the phases, the
action ids and their texts, the card tables the kernels read (effective suit,
trump strength, suit membership, trick strength), and the two named bundles
the kernels take (:class:`Config` of the rules' settings, :class:`Table` of
the state's arrays).

Card types (local ids): ``suit * 6 + rank`` with suits ``C D H S`` and ranks
0..5 for ``9 T J Q K A``.  Action ids (one ``Discrete(39)`` space for every
player count): 0 pass, 1..7 the numbered bids, 8 Little Pepper, 9 Big
Pepper, 10..13 trump C..S, 14 no-trump, 15..38 play a card (15 + card type);
:data:`ACTIONS` holds their texts.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...core.actions import ActionTable
from ...core.cards import standard_deck
from ...core.jit import kernel, pack_kind, scalar, view1, view2, view3

DECK = standard_deck("9TJQKA")  # 24 card types, one copy each
NUM_TYPES = DECK.num_types
SUITS = "CDHS"

# ---------------------------------------------------------------- phases (``state.phase``)
BIDDING, CHOOSING_TRUMP, PLAYING, DONE = 0, 1, 2, 3
PHASE_NAMES = ("bidding", "choosing_trump", "playing", "done")

# ---------------------------------------------------------------- actions
PASS, BID_LITTLE, BID_BIG = 0, 8, 9
TRUMP0, TRUMP_NONE, PLAY0 = 10, 14, 15
NUM_ACTIONS = PLAY0 + NUM_TYPES
NO_TRUMP = 4  # trump index for a no-trump hand (0..3 are the suits)
NO_BID = 0  # ``high_bid`` before anyone bid (the id of "pass")
NUM_CALLS = BID_BIG + 1  # the auction's calls: pass and the nine bids (action ids 0..9)

#: The word of each call (index = action id 0..9), as actions and ``state_dict`` name it.
CALL_WORDS = ("pass", "1", "2", "3", "4", "5", "6", "7", "little", "big")

ACTIONS = ActionTable(
    ["pass"]
    + [f"bid {word}" for word in CALL_WORDS[1:]]
    + [f"trump {suit}" for suit in SUITS]
    + ["trump none"]
    + [f"play {card}" for card in DECK.texts],
    "Pepper",
    examples=("pass", "bid 3", "bid little", "trump none", "play JC"),
)

# ---------------------------------------------------------------- card tables
JACK = 2  # rank index of the jack
TRUMP_WINS = 100  # added to a trump's strength: any trump beats any card of the suit led


def _rank_tables() -> tuple[np.ndarray, np.ndarray]:
    """For each trump index (C, D, H, S, none): the effective suit of every
    card type and its strength when it is a trump (-1 when it is not).

    The left bower (the jack of the other suit of the trump's colour,
    ``suit ^ 3`` with suits ordered C D H S) belongs to the trump suit.
    Trump order, low to high: 9 T Q K A, left bower, right bower.
    """
    suit = DECK.suit.astype(np.int64)
    rank = np.arange(NUM_TYPES) % 6
    effective = np.tile(suit, (5, 1))
    trump_strength = np.full((5, NUM_TYPES), -1)
    for trump in range(4):
        right, left = trump * 6 + JACK, (trump ^ 3) * 6 + JACK
        effective[trump, left] = trump
        is_trump = effective[trump] == trump
        trump_strength[trump] = np.where(is_trump, np.array([0, 1, -1, 2, 3, 4])[rank], -1)
        trump_strength[trump, left], trump_strength[trump, right] = 5, 6
    return effective, trump_strength


EFFECTIVE_SUIT, TRUMP_STRENGTH = (table.astype(np.int8) for table in _rank_tables())
PLAIN_STRENGTH = np.arange(NUM_TYPES) % 6  # A high .. 9 low


def _suit_members() -> np.ndarray:
    """``SUIT_MEMBERS[trump, led + 1, t]``: 1 if card type t counts as suit
    ``led`` under ``trump`` (row ``led + 1 = 0``, nobody led: all 0)."""
    members = np.zeros((5, 5, NUM_TYPES), np.int8)
    for led in range(4):
        members[:, led + 1] = led == EFFECTIVE_SUIT
    return members


SUIT_MEMBERS = _suit_members()


def _card_strengths() -> np.ndarray:
    """``CARD_STRENGTH[trump, led, t]``: how card type t ranks in a trick
    whose (effective) suit led is ``led``: a trump beats any card of the
    suit led (``TRUMP_WINS`` + its trump strength), which beats any other
    card (-1: cannot win); at no-trump nothing is a trump."""
    strength = np.full((5, 4, NUM_TYPES), -1, np.int8)
    for trump in range(5):
        for led in range(4):
            strength[trump, led] = np.where(EFFECTIVE_SUIT[trump] == led, PLAIN_STRENGTH, -1)
            is_trump = TRUMP_STRENGTH[trump] >= 0
            strength[trump, led, is_trump] = TRUMP_WINS + TRUMP_STRENGTH[trump, is_trump]
    return strength


CARD_STRENGTH = _card_strengths()


# ---------------------------------------------------------------- the kernels' bundles
# The kernels read the rules' settings as ``cfg`` (a Config) and the state's
# arrays as ``s`` (a Table).  From Python each is passed as one pack
# (:func:`cardenvs.core.jit.pack`: ``rules.config_pack``,
# ``state.bundle(TablePack)``) and named again first thing in the called
# kernel (``unpack_config``, ``unpack_table``, free once compiled): numba
# types and unboxes every array of a plain tuple one by one, so at batch 1 a
# call with the two bundles as tuples of their 33 values cost several times
# what it costs with the two packs.


class Config(NamedTuple):
    """The rules' settings as the kernels read them (built once by
    :class:`~cardenvs.games.pepper.rules.PepperRules`)."""

    num_players: int
    num_sides: int  # 2 (partnerships) at 4 players, else one side per seat
    side_of_seat: np.ndarray  # (num_players,) int64
    num_tricks: int  # tricks in a hand (= cards in a hand)
    slot_of_position: np.ndarray  # deck position -> deal slot (slot num_players: the dead hand at 2 players)
    bid_allowed: np.ndarray  # (NUM_ACTIONS,) bool: the bids on this player count's ladder
    stick_dealer: bool  # all_pass="stick_dealer": the dealer may not pass when everyone else did
    fail_penalty: int  # points a failed numbered bid or Little Pepper loses
    big_pepper: int  # points Big Pepper wins or loses
    target_score: int
    max_hands: int  # 0: no limit
    score_delta: bool  # reward="score_delta" (else win/loss at the end)


#: What each field of a :class:`Config` is, for its pack (see :func:`unpack_config`).
CONFIG_KINDS = (
    (None, 0),
    (None, 0),
    (np.int64, 1),
    (None, 0),
    (np.int64, 1),
    (np.bool_, 1),
    (None, 0),
    (None, 0),
    (None, 0),
    (None, 0),
    (None, 0),
    (None, 0),
)


@kernel
def unpack_config(p):
    """The :class:`Config` of a pack made with :data:`CONFIG_KINDS`."""
    return Config(
        scalar(p, 0),
        scalar(p, 1),
        view1(p, 2, np.int64),
        scalar(p, 3),
        view1(p, 4, np.int64),
        view1(p, 5, np.bool_),
        scalar(p, 6) != 0,
        scalar(p, 7),
        scalar(p, 8),
        scalar(p, 9),
        scalar(p, 10),
        scalar(p, 11) != 0,
    )


class Table(NamedTuple):
    """The state's arrays the kernels read and write (the fields of
    ``PepperRules.new_state`` of the same names; ``state.bundle(TablePack)``)."""

    dealer: np.ndarray
    current: np.ndarray
    phase: np.ndarray
    done: np.ndarray
    legal: np.ndarray
    hand_number: np.ndarray
    scores: np.ndarray
    hands: np.ndarray
    dead: np.ndarray
    high_bid: np.ndarray
    bidder: np.ndarray
    passed: np.ndarray
    trump: np.ndarray
    trick: np.ndarray
    leader: np.ndarray
    in_trick: np.ndarray
    trick_no: np.ndarray
    public: np.ndarray
    history: np.ndarray
    trick_leaders: np.ndarray
    trick_winners: np.ndarray


_I64_1, _I64_2, _BOOL_1, _BOOL_2 = (np.int64, 1), (np.int64, 2), (np.bool_, 1), (np.bool_, 2)
#: The dtype and dimensions of each field of a :class:`Table` (see :func:`unpack_table`).
TABLE_KINDS = (
    *(_I64_1, _I64_1, _I64_1, _BOOL_1, _BOOL_2),  # dealer, current, phase, done, legal
    *(_I64_1, _I64_2, (np.int8, 3), (np.int8, 2)),  # hand_number, scores, hands, dead
    *(_I64_1, _I64_1, _BOOL_2, _I64_1, _I64_2),  # high_bid, bidder, passed, trump, trick
    *(_I64_1, _I64_1, _I64_1, (np.int16, 3)),  # leader, in_trick, trick_no, public
    *((np.int64, 3), _I64_2, _I64_2),  # history, trick_leaders, trick_winners
)

#: ``state.bundle(TablePack)``: the state's :class:`Table` as one pack (made once per state).
TablePack = pack_kind(Table._fields, TABLE_KINDS)


@kernel
def unpack_table(p):
    """The :class:`Table` of a pack made with :data:`TABLE_KINDS`."""
    return Table(
        view1(p, 0, np.int64),
        view1(p, 1, np.int64),
        view1(p, 2, np.int64),
        view1(p, 3, np.bool_),
        view2(p, 4, np.bool_),
        view1(p, 5, np.int64),
        view2(p, 6, np.int64),
        view3(p, 7, np.int8),
        view2(p, 8, np.int8),
        view1(p, 9, np.int64),
        view1(p, 10, np.int64),
        view2(p, 11, np.bool_),
        view1(p, 12, np.int64),
        view2(p, 13, np.int64),
        view1(p, 14, np.int64),
        view1(p, 15, np.int64),
        view1(p, 16, np.int64),
        view3(p, 17, np.int16),
        view3(p, 18, np.int64),
        view2(p, 19, np.int64),
        view2(p, 20, np.int64),
    )
