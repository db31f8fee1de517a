"""Push: applying an action (compiled kernels), one function per action
kind -- the draw (take, push), discarding, declaring a meld, adding to a
pending set, filling a pending run's next position, laying off on a table
meld, swapping a natural for a wild -- and the shared steps (a card from the
hand into a meld, a meld finished).  A round that ends (a player out, or the
stock or the turn limit exhausted) is only marked here; ``PushRules`` scores
it (``scoring.py``) and deals on (``deal.py``).

:func:`step_rows` is the one kernel a step calls from Python: it applies
every game's action and writes the new legal masks (one call rather than
two: a batch of one, the AEC env, pays numba's dispatch per call).  The
one-game view steps with :func:`step_one` instead: the state as one pack
(numba unboxes a plain tuple's arrays one by one, more than a step's work), and
the next observation and mask written in the same call.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import kernel, scalar, view1, view2, view3
from .legal import masks_of_rows
from .observation import Seen, encode_meld_block, write_heads, write_meld_slots
from .tables import (
    ACT_ADD,
    ACT_DECLARE_RUN,
    ACT_DECLARE_SET,
    ACT_DISCARD,
    ACT_END_SET,
    ACT_FILL,
    ACT_LAY_OFF_RUN,
    ACT_LAY_OFF_SET,
    ACT_PUSH,
    ACT_SWAP_RUN,
    ACT_TAKE,
    ACTION_ARG,
    ACTION_KIND,
    ACTION_SUBARG,
    CONTRACT_LENGTH,
    DRAW,
    MELD,
    NATURAL_TYPE,
    NO_MELD,
    RUN,
    SET,
    SPAN_HI,
    SPAN_LO,
    WILD_TYPES,
    Cards,
    Config,
    Masks,
    MeldBlocks,
    Table,
    Turn,
)


@kernel
def step_rows(actions, config, cards, table, turn, blocks, stamp_clock, masks, ended, out_seat):
    """:func:`step_named`, called from Python with the bundles as plain
    tuples (see ``tables.plain``)."""
    config, cards, table, turn = Config(*config), Cards(*cards), Table(*table), Turn(*turn)
    blocks, masks = MeldBlocks(*blocks), Masks(*masks)
    step_named(actions, config, cards, table, turn, blocks, stamp_clock, masks, ended, out_seat)


@kernel
def step_named(actions, config, cards, table, turn, blocks, stamp_clock, masks, ended, out_seat):
    """Apply ``actions[b]`` (legal) to every unfinished game ``b``
    (:func:`apply_actions`), then write the new legal masks of the games whose
    round goes on (the others' are written once their round is scored and the
    next one dealt); a finished game's mask row is cleared."""
    apply_actions(actions, config, cards, table, turn, blocks, stamp_clock, ended, out_seat)
    done, legal, legal_written = turn.done, masks.legal, masks.legal_written
    going_on = np.empty(actions.shape[0], np.int64)
    count = 0
    for b in range(actions.shape[0]):
        if done[b]:
            legal[b, : legal_written[b]] = False
            legal_written[b] = 0
        elif not ended[b]:
            going_on[count] = b
            count += 1
    masks_of_rows(going_on[:count], config, cards, table, turn, masks)


@kernel
def step_one(action, packs):
    """:func:`step_named` for a batch of one with the legal ``action`` (an
    int), for the one-game views (``PushRules.step_one``); ``packs``
    (:func:`~cardenvs.core.onegame.step_call`): the rules' config and the
    state's arrays as packs (``tables.CONFIG_KINDS``, ``tables.StatePack``)
    and the pack of a :class:`~cardenvs.core.onegame.OneGame` (rewards,
    observation, int8 mask, the action, then the observation's record and
    how far the mask was written).  Unless the round ends (scored and dealt on by the rules,
    which draw), it writes the next seat's observation -- only what changed
    since the buffer was last written (``observation.encode_rows``'s
    record) -- and its mask.  Returns whether the round goes on (then
    observed), the seat that went out (-1 none) and the seat to act next."""
    config, arrays, one = view2(packs, 0, np.int64), view2(packs, 1, np.int64), view2(packs, 2, np.int64)
    rewards, seen, mask = view2(one, 0, np.float32), view2(one, 1, np.int16), view2(one, 2, np.int8)
    actions, record, mask_written = view1(one, 3, np.int64), view2(one, 4, np.int64), view1(one, 5, np.int64)
    rewards[0, :] = 0
    actions[0] = action
    config = unpack_config(config)
    cards, table, turn, blocks, masks, scores, stamp_clock = unpack_state(arrays)
    ended, out_seat = np.zeros(1, np.bool_), np.full(1, -1, np.int64)
    step_named(actions, config, cards, table, turn, blocks, stamp_clock, masks, ended, out_seat)
    if ended[0]:
        return False, out_seat[0], -1
    rows = np.zeros(1, np.int64)
    seats = turn.current[:1]
    seen_arrays = Seen(
        cards.hands,
        cards.held,
        cards.pile,
        cards.pile_size,
        cards.pile_counts,
        cards.stock_size,
        turn.contract_done,
        scores,
        turn.round_i,
        turn.phase,
        turn.in_contract,
        turn.contract_idx,
        turn.pend,
        turn.owed,
        turn.dealer,
        turn.turns,
        turn.pend_next,
        table.n_melds,
        table.meld_owner,
        blocks.meld_obs,
        blocks.meld_stamp,
    )
    write_heads(seen, rows, seats, config, seen_arrays)
    write_meld_slots(seen, record, rows, seats, seen_arrays)
    legal, end = masks.legal, masks.legal_written[0]  # (nothing at or past end is legal)
    for a in range(end):
        mask[0, a] = legal[0, a]
    mask[0, end : mask_written[0]] = 0
    mask_written[0] = end
    return True, out_seat[0], turn.current[0]


@kernel
def unpack_config(p):
    """The :class:`~.tables.Config` of a pack made with ``tables.CONFIG_KINDS``."""
    return Config(view1(p, 0, np.int64), scalar(p, 1), scalar(p, 2) != 0)


@kernel
def unpack_state(p):
    """The state's :class:`~.tables.Cards`, :class:`~.tables.Table`,
    :class:`~.tables.Turn`, :class:`~.tables.MeldBlocks`,
    :class:`~.tables.Masks`, the scores and the stamp counter from a ``tables.StatePack``."""
    cards = Cards(
        view3(p, 0, np.int8),
        view2(p, 1, np.int16),
        view2(p, 2, np.int64),
        view1(p, 3, np.int64),
        view1(p, 4, np.int64),
        view2(p, 5, np.int64),
        view1(p, 6, np.int64),
        view2(p, 7, np.int8),
    )
    table = Table(
        view1(p, 8, np.int64),
        view2(p, 9, np.int8),
        view2(p, 10, np.int8),
        view2(p, 11, np.int8),
        view2(p, 12, np.int8),
        view2(p, 13, np.int8),
        view2(p, 14, np.int8),
        view3(p, 15, np.int8),
        view3(p, 16, np.int8),
        view2(p, 17, np.int8),
    )
    turn = Turn(
        view1(p, 18, np.int64),
        view1(p, 19, np.int64),
        view1(p, 20, np.bool_),
        view1(p, 21, np.int64),
        view1(p, 22, np.int64),
        view1(p, 23, np.int64),
        view1(p, 24, np.int64),
        view1(p, 25, np.int64),
        view1(p, 26, np.bool_),
        view1(p, 27, np.bool_),
        view1(p, 28, np.int64),
        view2(p, 29, np.bool_),
        view1(p, 30, np.int64),
    )
    blocks = MeldBlocks(view3(p, 31, np.int8), view2(p, 32, np.int64))
    masks = Masks(view2(p, 33, np.bool_), view1(p, 34, np.int64))
    return cards, table, turn, blocks, masks, view2(p, 35, np.int64), view1(p, 36, np.int64)


@kernel
def apply_actions(actions, config, cards, table, turn, blocks, stamp_clock, ended, out_seat):
    """Apply ``actions[b]`` to every unfinished game ``b``; a round that ends
    is marked in ``ended`` (who went out in ``out_seat``).  Each function
    below takes its arrays out of the bundles once, before its loop over the
    rows, and hands them on one by one: numba counts a reference whenever an
    array is taken out of a tuple, which inside the loop costs more than the
    work."""
    draws_and_discards(actions, config.max_turns, cards, turn, ended, out_seat)
    melding(actions, config.rounds, cards, table, turn, blocks, stamp_clock, ended, out_seat)


@kernel
def draws_and_discards(actions, max_turns, cards, turn, ended, out_seat):
    """The games whose action is a draw (take, push) or a discard."""
    hands, held, pile, pile_size, pile_counts = cards.hands, cards.held, cards.pile, cards.pile_size, cards.pile_counts
    stock, stock_top, stock_size = cards.stock, cards.stock_top, cards.stock_size
    done, current, phase, turns = turn.done, turn.current, turn.phase, turn.turns
    for b in range(actions.shape[0]):
        kind = ACTION_KIND[actions[b]]
        if done[b] or kind > ACT_DISCARD:
            continue
        seat = current[b]
        if kind == ACT_TAKE:  # the discard pile's top card
            card = take_from_discard(b, pile, pile_size, pile_counts)
            hands[b, seat, card] += 1
            held[b, seat] += 1
            phase[b] = MELD
        elif kind == ACT_PUSH:
            if stock_size[b] < 2:
                ended[b] = True  # the stock is exhausted: the round ends at once
                continue
            card = take_from_discard(b, pile, pile_size, pile_counts)
            push(b, seat, card, hands, held, stock, stock_top, stock_size)
            phase[b] = MELD
        else:
            card = ACTION_ARG[actions[b]]
            hands[b, seat, card] -= 1
            held[b, seat] -= 1
            put_on_discard(b, card, pile, pile_size, pile_counts)
            if end_turn(b, seat, max_turns, held, turns, current, phase):
                ended[b] = True
                if held[b, seat] == 0:
                    out_seat[b] = seat  # (went out)


@kernel
def melding(actions, rounds, cards, table, turn, blocks, stamp_clock, ended, out_seat):
    """The games whose action melds, on meld ``m`` (the pending one, or a
    table meld); the observation block of ``m`` is then re-encoded."""
    hands, held, done, current, owed = cards.hands, cards.held, turn.done, turn.current, turn.owed
    pend, pend_nat, pend_next, round_i = turn.pend, turn.pend_nat, turn.pend_next, turn.round_i
    in_contract, contract_idx, contract_done = turn.in_contract, turn.contract_idx, turn.contract_done
    n_melds, meld_rank, meld_suit, meld_lo, meld_hi = (
        table.n_melds,
        table.meld_rank,
        table.meld_suit,
        table.meld_lo,
        table.meld_hi,
    )
    meld_pos, meld_counts, meld_len = table.meld_pos, table.meld_counts, table.meld_len
    for b in range(actions.shape[0]):
        action = actions[b]
        kind, arg, subarg = ACTION_KIND[action], ACTION_ARG[action], ACTION_SUBARG[action]
        if done[b] or kind <= ACT_DISCARD:
            continue
        seat = current[b]
        m = arg if kind >= ACT_LAY_OFF_SET else n_melds[b]
        card = -1  # the card going from the hand to meld m
        complete = False  # the pending meld is finished
        if kind in (ACT_DECLARE_SET, ACT_DECLARE_RUN):
            if not contract_done[b, seat] and not in_contract[b]:  # a first meld starts the contract
                in_contract[b] = True
                contract_idx[b] = 0
            pend[b] = declare(b, seat, action, m, table)
            pend_nat[b] = False
            if pend[b] == RUN:
                pend_next[b] = meld_lo[b, m]
        elif kind == ACT_ADD:
            card = set_card(arg, meld_rank[b, m])
            pend_nat[b] = pend_nat[b] or arg < 4
        elif kind == ACT_END_SET:
            complete = True
        elif kind == ACT_FILL:
            card = fill_run(b, arg, m, meld_suit, meld_pos, pend_next)
            pend_nat[b] = pend_nat[b] or arg == 0
            complete = pend_next[b] > meld_hi[b, m]
        elif kind == ACT_LAY_OFF_SET:
            card = set_card(subarg, meld_rank[b, m])
        elif kind == ACT_LAY_OFF_RUN:
            card = lay_off_run(b, subarg, m, meld_suit, meld_lo, meld_hi, meld_pos)
        else:
            swap(b, seat, action, m, hands, owed, meld_rank, meld_suit, meld_pos, meld_counts)
        if card >= 0:
            place_card(b, seat, m, card, hands, held, meld_counts, meld_len, owed)
        if complete:
            length = CONTRACT_LENGTH[rounds[round_i[b]]]
            finish_meld(b, seat, length, n_melds, pend, in_contract, contract_idx, contract_done)
        # melding the last card is going out (not while a meld is pending)
        if (complete or kind in (ACT_LAY_OFF_SET, ACT_LAY_OFF_RUN)) and held[b, seat] == 0:
            ended[b] = True
            out_seat[b] = seat
        encode_meld_block(blocks, stamp_clock, b, m, table)


# ------------------------------------------------------------------ the draw and the discard
@kernel
def take_from_discard(b, pile, pile_size, pile_counts):
    """Take the discard pile's top card off it; that card."""
    card = pile[b, pile_size[b] - 1]
    pile_size[b] -= 1
    pile_counts[b, card] -= 1
    return card


@kernel
def put_on_discard(b, card, pile, pile_size, pile_counts):
    """``card`` on top of the discard pile."""
    pile[b, pile_size[b]] = card
    pile_size[b] += 1
    pile_counts[b, card] += 1


@kernel
def push(b, seat, top, hands, held, stock, stock_top, stock_size):
    """Push (the discard's ``top`` card already taken off): the stock's top
    card and ``top`` to the left-hand player, then ``seat`` draws the next
    stock card."""
    left = (seat + 1) % 4
    hands[b, left, stock[b, stock_top[b]]] += 1
    hands[b, left, top] += 1
    hands[b, seat, stock[b, stock_top[b] + 1]] += 1
    held[b, left] += 2
    held[b, seat] += 1
    stock_top[b] += 2
    stock_size[b] -= 2


@kernel
def end_turn(b, seat, max_turns, held, turns, current, phase):
    """The turn of ``seat`` ends (it discarded); True when that ends the
    round: the hand is empty (the player went out) or the turn limit is
    reached.  Else the next player draws."""
    turns[b] += 1
    if held[b, seat] == 0 or turns[b] >= max_turns:
        return True
    current[b] = (seat + 1) % 4
    phase[b] = DRAW
    return False


# ------------------------------------------------------------------ melding
@kernel
def declare(b, seat, action, m, table):
    """A new meld at slot ``m`` of the declared shape (a set's rank, a run's
    suit and span), owned by ``seat``, empty; its kind."""
    kind = SET if ACTION_KIND[action] == ACT_DECLARE_SET else RUN
    table.meld_kind[b, m] = kind
    table.meld_owner[b, m] = seat
    table.meld_len[b, m] = 0
    table.meld_counts[b, m, :] = 0
    table.meld_pos[b, m, :] = -1
    if kind == SET:
        table.meld_rank[b, m] = ACTION_ARG[action]
    else:
        span = ACTION_SUBARG[action]
        table.meld_suit[b, m] = ACTION_ARG[action]
        table.meld_lo[b, m] = SPAN_LO[span]
        table.meld_hi[b, m] = SPAN_HI[span]
    return kind


@kernel
def set_card(choice, rank):
    """The card type of a set's card ``choice``: 0..3 the natural of
    ``rank`` in that suit, 4..8 a wild."""
    return choice * 13 + np.int64(rank) if choice < 4 else WILD_TYPES[choice - 4]


@kernel
def fill_run(b, choice, m, meld_suit, meld_pos, pend_next):
    """The pending run's next position gets its natural (``choice`` 0) or a
    wild; that card."""
    position = pend_next[b]
    card = NATURAL_TYPE[meld_suit[b, m], position] if choice == 0 else WILD_TYPES[choice - 1]
    meld_pos[b, m, position] = card
    pend_next[b] += 1
    return card


@kernel
def lay_off_run(b, move, m, meld_suit, meld_lo, meld_hi, meld_pos):
    """Extend table run ``m`` at its low end (``move`` 0..5) or high end
    (6..11) by the natural (``move % 6`` 0) or a wild; the card laid."""
    choice = move % 6
    if move < 6:
        position = meld_lo[b, m] - 1
        meld_lo[b, m] = position
    else:
        position = meld_hi[b, m] + 1
        meld_hi[b, m] = position
    card = NATURAL_TYPE[meld_suit[b, m], position] if choice == 0 else WILD_TYPES[choice - 1]
    meld_pos[b, m, position] = card
    return card


@kernel
def swap(b, seat, action, m, hands, owed, meld_rank, meld_suit, meld_pos, meld_counts):
    """Give a natural, take the wild standing for it in table meld ``m``; the
    wild is owed (it must go to the table before the turn can end)."""
    move = ACTION_SUBARG[action]
    if ACTION_KIND[action] == ACT_SWAP_RUN:  # move: the run position
        wild = np.int64(meld_pos[b, m, move])
        natural = NATURAL_TYPE[meld_suit[b, m], move]
        meld_pos[b, m, move] = natural
    else:  # move: natural suit x 5 + wild
        natural = (move // 5) * 13 + meld_rank[b, m]
        wild = WILD_TYPES[move % 5]
    hands[b, seat, natural] -= 1
    hands[b, seat, wild] += 1
    meld_counts[b, m, natural] += 1
    meld_counts[b, m, wild] -= 1
    owed[b] = wild


@kernel
def place_card(b, seat, m, card, hands, held, meld_counts, meld_len, owed):
    """``card`` goes from the hand into meld ``m`` (paying an owed wild of its type)."""
    hands[b, seat, card] -= 1
    held[b, seat] -= 1
    meld_counts[b, m, card] += 1
    meld_len[b, m] += 1
    if owed[b] == card:
        owed[b] = -1


@kernel
def finish_meld(b, seat, contract_length, n_melds, pend, in_contract, contract_idx, contract_done):
    """The pending meld joins the table; in a contract (of
    ``contract_length`` melds), one more of its melds is done (all of them:
    the contract is laid)."""
    n_melds[b] += 1
    pend[b] = NO_MELD
    if in_contract[b]:
        contract_idx[b] += 1
        if contract_idx[b] == contract_length:
            contract_done[b, seat] = True
            in_contract[b] = False
