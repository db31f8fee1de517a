"""Push: the constants and tables every other module reads (no numba): the
deck and card types, run positions and spans, action ids and texts, phases,
contracts, the marginal costs of sets (:mod:`cardenvs.games.push.melds`), and the
named bundles of state arrays and config that the compiled kernels take.

Card types (local ids, 53): ``suit * 13 + rank`` with suits ``C D H S`` and
ranks ``2 3 4 5 6 7 8 9 T J Q K A`` (0..12); the joker is 52.  Two copies of
each standard card, four jokers.  Hands are counts per type.

Action-space plan
=================
A turn is a sequence of actions: a draw choice, melding actions, a discard.
Melds are built card by card in a *pending meld* whose shape is declared
first; the mask only offers an action if, after it, the pending meld (and,
inside a contract, the rest of the contract) can still be completed from the
cards left in hand.  That is decided exactly by the searches of
:mod:`cardenvs.games.push.melds`, so no declared meld or started contract is ever a
dead end.

Run positions: ``0`` = ace low, ``1`` = two, .. ``12`` = king, ``13`` = ace
high.  A run covers positions ``lo..hi`` (3 to 13 of them: ``0..13`` would
be a wrap-around).  A position's *natural* card is its rank in the run's
suit (position 1: the 2 of the suit, which there is natural, not wild).

=============  =====  ========================================================
ids            count  text / meaning
=============  =====  ========================================================
0              1      ``take``: take the top card of the discard pile
1              1      ``push``: stock top + discard top to the left-hand
                      player, then draw the next stock card
2..54          53     ``discard 7H`` (2 + card type): discard, end the turn
55..66         12     ``set 3`` .. ``set A``: declare a pending set of a rank
67..374        308    ``run H 5-8``: declare a pending run of a suit over
                      positions lo..hi (lo/hi written as ranks; a low ace
                      ``A-3``, a high ace ``Q-A``); 77 spans per suit, ordered
                      by suit, lo, hi
375..383       9      ``add C`` .. ``add S`` (a natural of the pending set's
                      rank in that suit), ``add 2C`` .. ``add 2S``, ``add JK``
                      (a wild)
384            1      ``end set``: finish the pending set (3+ cards)
385..390       6      ``fill nat`` (the natural card of the pending run's next
                      position), ``fill 2C`` .. ``fill JK`` (a wild there)
391 + 55m + j  36x55  actions on table meld ``m`` (0..35, table order):
                      j 0..8   ``layoff m C`` .. ``layoff m S`` (a natural of
                               a set's rank), ``layoff m 2C`` .. ``layoff m JK``
                      j 9..14  ``layoff m low nat``, ``layoff m low 2C`` ..
                               ``layoff m low JK`` (extend a run downwards)
                      j 15..20 ``layoff m high nat`` .. ``layoff m high JK``
                      j 21..34 ``swap m Alo``, ``swap m 2`` .. ``swap m K``,
                               ``swap m Ahi``: give the natural card of that
                               run position, take the wild standing there
                      j 35..54 ``swap m C 2D`` (natural suit x 5 + wild): give
                               a natural of a set's rank, take that wild
=============  =====  ========================================================

Why this shape:

* Cards are chosen by type (duplicates are interchangeable); the meld
  declared by its shape makes every wild placement reachable: a run's wilds
  stand for the positions they fill, chosen one position at a time in order
  ``lo..hi``.  A set's cards are added in any order; its first card must be a
  natural (no loss: every set holds one), so a set is never left without one.
* Dead-end freedom: a declare/add/fill is offered only if the completion
  check passes for the hand after it; a contract is started by declaring its
  first meld (in the order of the contract: sets before runs) and that is
  offered only if the whole contract can be completed.  Discarding is not
  offered while a meld or a contract is unfinished.  Melding the last card is
  going out (no discard needed), so emptying the hand is never a dead end.
* Bounded turns: no action returns cards to the hand except a swap (which
  gives one card for one) and a swap is not offered again until the wild it
  gave has left the hand; every declare is followed by 3+ cards leaving the
  hand.  So a turn has at most ``2 + 3 * cards held`` actions or so.
* Swap: a swapped-out wild is *owed*: until a card of its type goes to the
  table (laid off, or placed in a meld) no discard and no other swap is
  offered.  A swap is offered only if some table meld can take a wild (a set,
  or a run shorter than 13; the meld the wild came from counts) or the hand
  after the swap can make a new meld (a set, or a run of 3: once made it can
  take a wild); while a wild is owed, a lay-off that would make the last such
  run full is offered only if the hand after it can still make a new meld,
  and with no table meld to take the wild a 13-card run is declared or filled
  only if it can still take the owed wild itself.  Table melds only grow, so
  the owed wild can always be placed.
* Meld slots: 36 = 108 / 3.  Every finished meld holds 3+ cards and a meld is
  declared only with 3+ cards in hand, so at most 35 melds exist when one is
  declared: the cap can never be reached.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

import numpy as np

from ...core.actions import ActionTable
from ...core.cards import standard_deck
from ...core.jit import pack_kind

# ------------------------------------------------------------------ cards
DECK = standard_deck(copies=2, jokers=4)
NUM_TYPES = DECK.num_types  # 53
JOKER = 52
RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "CDHS"
WILD_TYPES = np.array([0, 13, 26, 39, 52])  # 2C 2D 2H 2S JK
WILD_NAMES = ("2C", "2D", "2H", "2S", "JK")
IS_WILD = np.zeros(NUM_TYPES, bool)
IS_WILD[WILD_TYPES] = True
# card type -> 0 natural / 1..5 its index among the wilds (a 2 in its own run place is natural)
WILD_INDEX = np.zeros(NUM_TYPES + 1, np.int64)
WILD_INDEX[WILD_TYPES] = [1, 2, 3, 4, 5]
# Penalty value per card type: 2 (wild) 20, 3-9 5, T-K 10, A 15, joker 20.
CARD_PENALTY = np.array([[20, 5, 5, 5, 5, 5, 5, 5, 10, 10, 10, 10, 15][t % 13] for t in range(52)] + [20], np.int64)

# ------------------------------------------------------------------ melds, run positions and spans
NUM_MELDS = 36
NUM_POSITIONS = 14
POSITION_RANK = np.array([12] + list(range(12)) + [12])  # position -> rank index
NATURAL_TYPE = np.arange(4)[:, None] * 13 + POSITION_RANK[None, :]  # (suit, position) -> natural type
POSITION_TOKENS = ["Alo"] + list("23456789TJQK") + ["Ahi"]
POSITION_CHARS = ["A"] + list("23456789TJQK") + ["A"]

# Spans of a run (same 77 for every suit): lo..hi, 3..13 positions.
SPANS = [(lo, hi) for lo in range(NUM_POSITIONS) for hi in range(lo + 2, NUM_POSITIONS) if hi - lo + 1 <= 13]
NUM_SPANS = len(SPANS)  # 77
SPAN_INDEX = np.full((NUM_POSITIONS, NUM_POSITIONS), -1, np.int64)  # (lo, hi) -> span j
for _j, (_lo, _hi) in enumerate(SPANS):
    SPAN_INDEX[_lo, _hi] = _j
SPAN_LO = np.array([s[0] for s in SPANS])
SPAN_HI = np.array([s[1] for s in SPANS])
# A span's positions are distinct ranks (it holds one ace at most): a run
# asks for each rank at most once, which the searches of melds.py rely on.
assert all(len({int(POSITION_RANK[p]) for p in range(lo, hi + 1)}) == hi - lo + 1 for lo, hi in SPANS)
# Ranks as bit masks (bit r = rank r): SPAN_RANKS[lo, hi] the ranks of the
# positions lo..hi (a window of L positions from lo is SPAN_RANKS[lo, lo + L - 1]);
# POPCOUNT[x] the number of ranks in a mask.
SPAN_RANKS = np.zeros((NUM_POSITIONS, NUM_POSITIONS), np.int64)
for _lo in range(NUM_POSITIONS):
    for _hi in range(_lo, NUM_POSITIONS):
        SPAN_RANKS[_lo, _hi] = (
            SPAN_RANKS[_lo, _hi - 1] | (1 << POSITION_RANK[_hi]) if _hi > _lo else 1 << POSITION_RANK[_lo]
        )
POPCOUNT = np.array([bin(_x).count("1") for _x in range(1 << 13)], np.int64)
# Windows: the minimal runs of L positions, lo = 0 .. 14 - L.
MAX_WINDOWS = NUM_POSITIONS - 3 + 1  # 12 windows of 3 positions (11 of 4, 10 of 5)

# ------------------------------------------------------------------ action ids
TAKE, PUSH, DISCARD0 = 0, 1, 2
SET0 = DISCARD0 + NUM_TYPES  # 55
RUN0 = SET0 + 12  # 67
ADD0 = RUN0 + 4 * NUM_SPANS  # 375
END_SET = ADD0 + 9  # 384
FILL0 = END_SET + 1  # 385
MELD0 = FILL0 + 6  # 391: the first action on table meld 0
# offsets inside the block of actions on one table meld
LAY_SET, LAY_LOW, LAY_HIGH, SWAP_RUN, SWAP_SET = 0, 9, 15, 21, 35
MELD_BLOCK = 55
NUM_ACTIONS = MELD0 + NUM_MELDS * MELD_BLOCK  # 2371

# Action kinds (what ``apply.py`` does with an action), per action id in
# ACTION_KIND, with its arguments in ACTION_ARG (the card type, rank, suit,
# card choice, or table meld) and ACTION_SUBARG (a run's span, or the move on
# the table meld).  The draws and the discard come first, then the melding
# kinds, the actions on table melds last (apply.py relies on this order).
(
    ACT_TAKE,
    ACT_PUSH,
    ACT_DISCARD,
    ACT_DECLARE_SET,
    ACT_DECLARE_RUN,
    ACT_ADD,
    ACT_END_SET,
    ACT_FILL,
    ACT_LAY_OFF_SET,
    ACT_LAY_OFF_RUN,
    ACT_SWAP_RUN,
    ACT_SWAP_SET,
) = range(12)

# ------------------------------------------------------------------ phases, meld kinds, contracts
DRAW, MELD, DONE = 0, 1, 2
PHASE_NAMES = ("draw", "meld", "done")
NO_MELD, SET, RUN = 0, 1, 2
KIND_NAMES = {SET: "set", RUN: "run"}

# Contracts: kinds in the order they are laid, and the minimum run length.
CONTRACT = {1: (SET, SET), 2: (SET, RUN), 3: (RUN, RUN), 4: (SET, SET, SET), 5: (RUN, RUN)}
RUN_MIN = {1: 3, 2: 4, 3: 4, 4: 3, 5: 5}
CONTRACT_KINDS = np.zeros((6, 3), np.int64)  # per round number
CONTRACT_LENGTH = np.zeros(6, np.int64)
CONTRACT_RUN_LENGTH = np.full(6, 3, np.int64)
for _round, _kinds in CONTRACT.items():
    CONTRACT_KINDS[_round, : len(_kinds)] = _kinds
    CONTRACT_LENGTH[_round] = len(_kinds)
    CONTRACT_RUN_LENGTH[_round] = RUN_MIN[_round]

# ------------------------------------------------------------------ marginal costs of sets (melds.py)
BIG = 1000
# MARGINAL_COST[n, c - 1]: wilds the c-th set (c = 1..3) of a rank with n naturals adds.
MARGINAL_COST = np.full((9, 3), BIG, np.int64)
for _n in range(9):
    for _c in range(1, 4):
        if _c <= _n:
            MARGINAL_COST[_n, _c - 1] = max(0, 3 * _c - _n) - max(0, 3 * _c - 3 - _n)
# MARGINAL_COST_COUNT[n, v]: how many of a rank's three marginal costs are v
# wilds (v = 0..3; impossible sets are not counted).  The cheapest k sets of
# a hand only depend on these counts summed over the ranks.
MARGINAL_COST_COUNT = np.zeros((9, 4), np.int64)
for _n in range(9):
    for _c in range(3):
        if MARGINAL_COST[_n, _c] < BIG:
            MARGINAL_COST_COUNT[_n, MARGINAL_COST[_n, _c]] += 1
# The same four counts packed in one integer, 6 bits each (a hand's 12 ranks
# count at most 36 of any value), so summing them over the ranks is one add.
PACKED_MARGINAL_COSTS = MARGINAL_COST_COUNT @ (64 ** np.arange(4))


# ------------------------------------------------------------------ action texts
def _action_tables() -> tuple[ActionTable, np.ndarray, np.ndarray, np.ndarray]:
    """The action texts, and per action id its kind and two arguments."""
    texts, kinds, args, subargs = [], [], [], []

    def add(text: str, kind: int, arg: int = 0, subarg: int = 0) -> None:
        texts.append(text), kinds.append(kind), args.append(arg), subargs.append(subarg)

    def card_choice(k: int) -> str:  # a natural of a suit, or a wild
        return SUIT_CHARS[k] if k < 4 else WILD_NAMES[k - 4]

    def fill_choice(k: int) -> str:  # the natural card of a position, or a wild
        return "nat" if k == 0 else WILD_NAMES[k - 1]

    add("take", ACT_TAKE)
    add("push", ACT_PUSH)
    for t in range(NUM_TYPES):
        add(f"discard {DECK.texts[t]}", ACT_DISCARD, t)
    for r in range(1, 13):
        add(f"set {RANK_CHARS[r]}", ACT_DECLARE_SET, r)
    for s in range(4):
        for j, (lo, hi) in enumerate(SPANS):
            add(f"run {SUIT_CHARS[s]} {POSITION_CHARS[lo]}-{POSITION_CHARS[hi]}", ACT_DECLARE_RUN, s, j)
    for k in range(9):
        add(f"add {card_choice(k)}", ACT_ADD, k)
    add("end set", ACT_END_SET)
    for k in range(6):
        add(f"fill {fill_choice(k)}", ACT_FILL, k)
    for m in range(NUM_MELDS):
        for k in range(9):
            add(f"layoff {m} {card_choice(k)}", ACT_LAY_OFF_SET, m, k)
        for end, name in ((0, "low"), (1, "high")):
            for k in range(6):
                add(f"layoff {m} {name} {fill_choice(k)}", ACT_LAY_OFF_RUN, m, end * 6 + k)
        for p in range(NUM_POSITIONS):
            add(f"swap {m} {POSITION_TOKENS[p]}", ACT_SWAP_RUN, m, p)
        for x in range(4):
            for w in range(5):
                add(f"swap {m} {SUIT_CHARS[x]} {WILD_NAMES[w]}", ACT_SWAP_SET, m, x * 5 + w)
    assert len(texts) == NUM_ACTIONS
    table = ActionTable(texts, "Push", ("take", "discard 7H", "run H 5-8", "layoff 0 low nat"))
    return table, np.array(kinds), np.array(args), np.array(subargs)


ACTIONS, ACTION_KIND, ACTION_ARG, ACTION_SUBARG = _action_tables()


# ------------------------------------------------------------------ bundles for the kernels
# Each names state arrays (attributes of the state, see ``PushRules.new_state``)
# that a kernel takes together.  The rules hand them over as plain tuples
# (``state.bundle(PLAIN_CARDS)``, see :func:`plain`), and the kernels called from
# Python name them again on entry (``cards = Cards(*cards)``; the kernels
# they call take the named tuples).
class Cards(NamedTuple):
    """Where the cards are (besides the table melds)."""

    hands: np.ndarray  # (B, 4, 53) counts per seat and type
    held: np.ndarray  # (B, 4) cards in each hand
    stock: np.ndarray  # (B, 108) top at stock_top
    stock_top: np.ndarray
    stock_size: np.ndarray
    pile: np.ndarray  # (B, 108) the discard pile, bottom first
    pile_size: np.ndarray
    pile_counts: np.ndarray  # (B, 53)


class Table(NamedTuple):
    """The melds on the table, slot by slot (a pending meld sits at slot ``n_melds``)."""

    n_melds: np.ndarray  # (B,) finished melds
    meld_kind: np.ndarray  # (B, 36) NO_MELD / SET / RUN
    meld_owner: np.ndarray
    meld_rank: np.ndarray  # a set's rank
    meld_suit: np.ndarray  # a run's suit, span lo..hi
    meld_lo: np.ndarray
    meld_hi: np.ndarray
    meld_pos: np.ndarray  # (B, 36, 14) the card type at each run position, -1 empty
    meld_counts: np.ndarray  # (B, 36, 53)
    meld_len: np.ndarray


class Turn(NamedTuple):
    """Whose turn it is and how far it has got."""

    phase: np.ndarray  # DRAW / MELD / DONE
    current: np.ndarray  # the seat to act (-1: game over)
    done: np.ndarray
    dealer: np.ndarray
    round_i: np.ndarray  # index into the config's rounds
    turns: np.ndarray  # turns completed this round
    pend: np.ndarray  # NO_MELD / SET / RUN: the pending meld
    pend_next: np.ndarray  # a pending run's next position to fill
    pend_nat: np.ndarray  # the pending meld holds a natural
    in_contract: np.ndarray
    contract_idx: np.ndarray  # contract melds finished this turn
    contract_done: np.ndarray  # (B, 4)
    owed: np.ndarray  # the wild type swapped out and not yet placed, -1 none


class Scores(NamedTuple):
    """What the rounds scored."""

    scores: np.ndarray  # (B, 2) per team
    last_penalty: np.ndarray  # (B, 2)
    went_out: np.ndarray  # who went out last round (-1 none)
    hand_number: np.ndarray  # rounds completed


class MeldBlocks(NamedTuple):
    """Each table slot's observation block and its stamp (observation.py)."""

    meld_obs: np.ndarray  # (B, 36, 132)
    meld_stamp: np.ndarray  # (B, 36)


class Masks(NamedTuple):
    """The legal-action masks and how far each row reaches (legal.py; recycled: outputs.py)."""

    legal: np.ndarray  # (B, 2371)
    legal_written: np.ndarray  # (B,) nothing at or past it is legal


class Config(NamedTuple):
    """The rules' configuration, as a kernel reads it."""

    rounds: np.ndarray  # round numbers, in play order
    max_turns: int
    score_delta: bool  # rewards after every round (else win/loss at the end)


def plain(kind: Any) -> Any:
    """A bundle kind for ``state.bundle``: the arrays named by ``kind``'s
    fields as a *plain* tuple.  Numba dispatches a plain tuple argument two to
    three times faster than a named one (measured on the observation kernel
    with Push's bundles, a cost a batch of one, the AEC env, pays at every
    step), so the kernels take plain tuples from Python."""

    def make(*arrays: np.ndarray) -> tuple:
        return arrays

    # named as the module-level constant that must hold it (PLAIN_MELD_BLOCKS
    # for MeldBlocks), so that a state holding its bundles pickles
    name = "PLAIN_" + re.sub(r"(?<!^)(?=[A-Z])", "_", kind.__name__).upper()
    make._fields = kind._fields
    make.__module__, make.__qualname__, make.__name__ = kind.__module__, name, name
    return make


PLAIN_CARDS, PLAIN_TABLE, PLAIN_TURN, PLAIN_SCORES, PLAIN_MELD_BLOCKS, PLAIN_MASKS = (
    plain(k) for k in (Cards, Table, Turn, Scores, MeldBlocks, Masks)
)

# ------------------------------------------------------------------ packs (a batch of one's step)
# The one-call step of a one-game view (``apply.step_one``) takes the state's
# arrays as one pack (:func:`cardenvs.core.jit.pack`): numba types and unboxes
# every array of a plain tuple one by one, which for a step's 36 arrays at
# batch 1 costs more than the step's work; a pack is one array.
_I8_2, _I8_3, _I64_1, _I64_2, _BOOL_1 = (np.int8, 2), (np.int8, 3), (np.int64, 1), (np.int64, 2), (np.bool_, 1)
#: The state's arrays a step reads and writes: :class:`Cards`, :class:`Table`,
#: :class:`Turn`, :class:`MeldBlocks`, :class:`Masks`, then the team scores (observed)
#: and the stamp counter (``PushState.stamp_clock``: the state's outputs').
STATE_FIELDS = (
    *(*Cards._fields, *Table._fields, *Turn._fields, *MeldBlocks._fields, *Masks._fields),
    *("scores", "stamp_clock"),
)
#: The dtype and dimensions of each of :data:`STATE_FIELDS` (see ``PushRules.new_state``).
STATE_KINDS = (
    *(_I8_3, (np.int16, 2), _I64_2, _I64_1, _I64_1, _I64_2, _I64_1, _I8_2),  # Cards
    *(_I64_1, _I8_2, _I8_2, _I8_2, _I8_2, _I8_2, _I8_2, _I8_3, _I8_3, _I8_2),  # Table
    *(_I64_1, _I64_1, _BOOL_1, _I64_1, _I64_1, _I64_1, _I64_1, _I64_1, _BOOL_1, _BOOL_1, _I64_1),  # Turn ...
    *((np.bool_, 2), _I64_1),  # ... contract_done, owed
    *(_I8_3, _I64_2),  # MeldBlocks
    *((np.bool_, 2), _I64_1),  # Masks
    _I64_2,  # scores
    _I64_1,  # stamp_clock
)
#: ``state.bundle(StatePack)``: :data:`STATE_FIELDS` as one pack (made once per state).
StatePack = pack_kind(STATE_FIELDS, STATE_KINDS)
#: What each field of a :class:`Config` is, for its pack (``PushRules.config_pack``).
CONFIG_KINDS = (_I64_1, (None, 0), (None, 0))
