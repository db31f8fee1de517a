"""Cancellation Hearts: constants and tables (no compiled code).

The deck, the card points, the action ids and their texts, the phase ids,
the lead tables of the legal-move rule, and what the compiled kernels
take: :class:`Config` (the configuration's numbers) and :class:`Arrays`
(the state's arrays they read and write), handed over as plain tuples
(:class:`ArrayValues`).

Two 52-card decks: the 52 card *types* (local id ``13 * suit + rank``, suits
``C D H S``, ranks ``2 .. A``) exist twice each, so hands are counts 0..2
per type and an action names a card type.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...core.actions import ActionTable
from ...core.cards import standard_deck

DECK = standard_deck(copies=2)  # 52 card types, two copies each
NUM_TYPES = DECK.num_types
SUIT = DECK.suit.astype(np.int64)
HEARTS = 2
BLACK_MARIA = DECK.type_of("QS")
IS_HEART = SUIT == HEARTS
IS_BLACK_MARIA = np.arange(NUM_TYPES) == BLACK_MARIA
CARD_POINTS = IS_HEART.astype(np.int64) + 13 * IS_BLACK_MARIA
BREAKS_HEARTS = IS_HEART | IS_BLACK_MARIA  # playing either breaks hearts
MOON_POINTS = int(CARD_POINTS.sum() * 2)  # 52: all 26 hearts and both Black Marias
MOON_SWING = 26
CARDS_PASSED = 3
MIN_SEATS, MAX_SEATS = 6, 11

# Action ids: one fixed Discrete(106) space for every player count.
PASS0 = 0  # 0..51: "pass 2C" .. "pass AS", one of the 3 cards to pass
PLAY0 = 52  # 52..103: "play 2C" .. "play AS" (52 + card type)
MOON_SELF = 104  # the moon shooter takes 26 off its own score
MOON_OTHERS = 105  # the moon shooter adds 26 to everyone else's
NUM_ACTIONS = 106
ACTIONS = ActionTable(
    [f"pass {t}" for t in DECK.texts] + [f"play {t}" for t in DECK.texts] + ["moon self", "moon others"],
    "Cancellation Hearts",
    ("pass 7H", "play 7H", "moon self", "moon others"),
)

# Phases (``state.phase``).
PASSING, PLAYING, MOON_CHOICE, DONE = 0, 1, 2, 3
PHASE_NAMES = ("passing", "playing", "moon_choice", "done")
# Pass direction of a hand (``state.pass_dir``).
NO_PASS, LEFT, RIGHT = 0, 1, 2
PASS_DIR_NAMES = ("none", "left", "right")
# ``state.widow_holder``: a seat, or one of these.
WIDOW_WAITING, WIDOW_NOBODY = -1, -2

# The card types of each suit (following: a row of SUIT_CARDS), and the card
# types a player may lead, by situation (a row of LEAD_ALLOWED); when the
# hand holds none of them, any card it holds may be played (core.tricks.playable).
SUIT_CARDS = SUIT[None, :] == np.arange(4)[:, None]
LEAD_BROKEN, LEAD_UNBROKEN, LEAD_OPENING = 0, 1, 2
LEAD_ALLOWED = np.zeros((3, NUM_TYPES), bool)
LEAD_ALLOWED[LEAD_BROKEN] = True
LEAD_ALLOWED[LEAD_UNBROKEN] = ~IS_HEART  # hearts not led until broken
LEAD_ALLOWED[LEAD_OPENING] = ~BREAKS_HEARTS  # the opening lead: no heart, no Black Maria


class Config(NamedTuple):
    """The configuration as the kernels read it (built once by the rules)."""

    num_players: int
    hand_size: int  # cards dealt to each seat, also the number of tricks of a hand
    widow_size: int  # cards left over after the deal (the widow)
    passing: bool  # False: no passing (config ``passing="none"``)
    target_score: int
    max_hands: int  # 0: no limit
    score_delta: bool  # rewards: minus each hand's score change (else win/loss at the end)


class Arrays(NamedTuple):
    """The state's arrays the deal, legal, apply and scoring kernels use,
    by name; shapes with B games, n seats, 52 card types.

    How kernels take them (both measured at batch 1, where the one-game env
    pays these costs at every step):

    - The rules call a kernel with ``self.config_values`` and
      ``state.bundle(ArrayValues)``, plain tuples that the kernel names
      again on entry (``Arrays(*state_arrays)``): numba types a named-tuple
      argument by its field names at every call, which makes this one and
      Config dearer to pass than plain tuples of the same values.
    - Inside, a loop over games takes the named tuple; a helper called once
      per game takes that game's slices (``state.public[row]``), as each
      array a compiled call takes costs it reference counting (a helper
      taking the named tuple made the playing step three times slower).
    """

    phase: np.ndarray  # (B,) PASSING .. DONE
    current: np.ndarray  # (B,) seat to act (-1: game over)
    legal: np.ndarray  # (B, 106) bool, the legal actions of the seat to act
    dealer: np.ndarray  # (B,)
    hand_number: np.ndarray  # (B,) hands completed in this game
    scores: np.ndarray  # (B, n) game totals
    hands: np.ndarray  # (B, n, 52) int8 card counts
    pass_dir: np.ndarray  # (B,) NO_PASS, LEFT, RIGHT
    pass_chosen: np.ndarray  # (B, n, 52) int8: set aside to pass, not yet exchanged
    pass_count: np.ndarray  # (B,) single-card pass choices made this hand
    widow: np.ndarray  # (B, 52) int8: stays here all hand; widow_holder says where it is
    widow_holder: np.ndarray  # (B,) a seat, WIDOW_WAITING or WIDOW_NOBODY
    trick: np.ndarray  # (B, n) card type at each position of the trick, in play order (-1: none)
    # 1 + the position of each card type in the current trick (0: not in it),
    # so the twin that cancels a card is one lookup away
    trick_slot: np.ndarray  # (B, 52) int8
    leader: np.ndarray  # (B,) seat leading the current trick
    in_trick: np.ndarray  # (B,) cards played to the current trick
    trick_no: np.ndarray  # (B,) tricks completed this hand
    # The cards the next trick's winner collects: the current trick and any
    # unclaimed tricks before it (added as they are played), and their points.
    pile: np.ndarray  # (B, 52) int8
    pile_points: np.ndarray  # (B,)
    taken: np.ndarray  # (B, n, 52) int8: cards won in tricks this hand (widow excluded)
    uncollected: np.ndarray  # (B, 52) int8: an unclaimed last trick (and its carried pile)
    points: np.ndarray  # (B, n) points taken this hand, widow included
    seen_points: np.ndarray  # (B, n) the same without the face-down widow (observed)
    hearts_broken: np.ndarray  # (B,) bool
    moon_seat: np.ndarray  # (B,) the seat that shot the moon (-1: none)
    # The observation's blocks kept up to date by the kernels (observation.py):
    private: np.ndarray  # (B, n, KEPT_SIZE) int8, one per viewer: its passed and received cards
    public: np.ndarray  # (B, PUBLIC_SIZE) int8, the same for every viewer


class ArrayValues:
    """``state.bundle(ArrayValues)``: the arrays of :class:`Arrays` in its
    order, as the plain tuple the rules hand to a kernel (made once per
    state, as every bundle is; see :class:`Arrays`)."""

    _fields = Arrays._fields

    def __new__(cls, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:  # a tuple, not an ArrayValues
        return arrays
