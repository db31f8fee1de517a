"""Pepper's compiled apply kernels (:mod:`cardenvs.core.jit`): a step's games
grouped by phase (:func:`step_games`, the one call of a step), then one
kernel per phase applying each row's action and writing the row's next
mask: a pass or a bid, the trump choice, a card played.  The tricks the
cards complete and the hands those end are resolved by
:mod:`cardenvs.games.pepper.scoring`, one stage after the other, each for all its
rows at once.

The kernels take the whole batch's ``actions`` (one per game) and the rows
to step, with ``cfg`` (the rules' :class:`~cardenvs.games.pepper.tables.Config`)
and ``s`` (the state's :class:`~cardenvs.games.pepper.tables.Table`), and read and
write the state in place (hands ``int8``, the public planes ``int16``,
``passed`` and ``legal`` bool, everything else ``int64``; ``rewards``
``float32``).  A stage that keeps some of its rows for the next one moves
them to the front of its ``rows`` (the step's own scratch array) and returns
how many; those whose hand ends and game goes on are written to ``redeal``
(in row order), so the rules deal them all at once, in the same order as ever.

Why stages, and locals: a call between compiled functions that is not
inlined costs two atomic reference-count updates per array it passes (as
does reading an array off a bundle inside a loop), so the per-row helpers
(masks, seats) take a few arrays, the stages taking the whole state run once
per step, and the hot loops read the arrays they use into locals first.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import kernel, view1, view2
from .deal import open_hands
from .legal import bid_mask, clockwise, may_pass, play_mask, trump_mask
from .observation import BID, OBS_DTYPE, TABLE, encode_rows
from .scoring import end_tricks, hands_over, score_hands
from .tables import (
    BID_BIG,
    BIDDING,
    CHOOSING_TRUMP,
    DONE,
    EFFECTIVE_SUIT,
    NO_BID,
    NUM_CALLS,
    PASS,
    PLAY0,
    PLAYING,
    TRUMP0,
    unpack_config,
    unpack_table,
)


@kernel
def rows_by_phase(done, phase, rows):
    """Write the unfinished games in each phase to a row of ``rows`` (in
    row order): ``rows[0]`` playing, ``rows[1]`` bidding, ``rows[2]``
    choosing trump (the order they are stepped in); return how many
    each.

    A compaction without a branch per game (the phases of random games
    would mispredict it): each game is written at the next free slot of
    every group, which only advances in its own group -- so each row of
    ``rows`` needs one slot more than the batch.
    """
    playing = bidding = choosing = 0
    for row in range(phase.shape[0]):
        row_phase = phase[row] if not done[row] else DONE
        rows[0, playing] = row
        rows[1, bidding] = row
        rows[2, choosing] = row
        playing += row_phase == PLAYING
        bidding += row_phase == BIDDING
        choosing += row_phase == CHOOSING_TRUMP
    return playing, bidding, choosing


@kernel
def step_games(actions, config, arrays, rewards, dealt, seen, mask):
    """Apply ``actions[row]`` in every unfinished game by its phase: the plays,
    then the bids, then the trump choices (``config``, ``arrays``: the
    rules' Config and the state's Table as packs, see
    :mod:`cardenvs.games.pepper.tables`).  The rows needing a new deal are written
    to ``dealt[0]`` (a hand played out) and ``dealt[1]`` (a hand thrown in),
    in row order; returns how many each, and whether ``seen`` and ``mask``
    were written.  Those are the next observation and int8 legal mask of a
    batch of one (``(1, OBS_SIZE)``, ``(1, NUM_ACTIONS)``; ``(0, ..)``: none
    wanted), written when its game goes on without a new deal (the deal is
    the rules' to make, after this call)."""
    rows = np.empty((3, actions.shape[0] + 1), np.int64)
    return step_grouped(actions, config, arrays, rewards, dealt, rows, seen, mask)


@kernel
def step_grouped(actions, config, arrays, rewards, dealt, rows, seen, mask):
    """:func:`step_games` with ``rows`` ``(3, B + 1)`` to group the rows in
    (:func:`rows_by_phase`; a batch of one's kept with its view: every
    array a kernel makes costs an allocation, as much as a phase's work)."""
    cfg, s = unpack_config(config), unpack_table(arrays)
    playing, bidding, choosing = rows_by_phase(s.done, s.phase, rows)
    after_plays = apply_plays(rows[0, :playing], actions, cfg, s, rewards, dealt[0]) if playing else 0
    after_bids = apply_bids(rows[1, :bidding], actions, cfg, s, rewards, dealt[1]) if bidding else 0
    if choosing:
        apply_trumps(rows[2, :choosing], actions, s)
    observed = seen.shape[0] == 1 == s.done.shape[0] and after_plays == 0 and after_bids == 0 and not s.done[0]
    if observed:
        observe_one(config, arrays, rows[0, :1], seen, mask)
    return after_plays, after_bids, observed


@kernel
def observe_one(config, arrays, row, seen, mask):
    """The observation and int8 mask of the seat to act in a batch of one
    (``row``: scratch of one int, set to the row 0)."""
    s = unpack_table(arrays)
    row[0] = 0
    encode_rows(row, s.current[:1], config, arrays, seen)
    for action in range(mask.shape[1]):
        mask[0, action] = s.legal[0, action]


@kernel
def step_one(action, packs):
    """:func:`step_games` for a batch of one with ``action`` (an int) and the
    buffers of a one-game view; ``packs``: the rules' Config, the state's
    Table and the view's :class:`~cardenvs.core.onegame.OneGame` (rewards,
    observation, mask, the action, then the scratch ``dealt`` (2, 1) and
    ``rows`` (3, 2)), see :func:`~cardenvs.core.onegame.step_call`.
    Returns whether the hand is to be dealt anew, whether the observation
    and mask were written, whether anyone scored, and the seat to act next
    (-1: the game is over)."""
    config, arrays, one = view2(packs, 0, np.int64), view2(packs, 1, np.int64), view2(packs, 2, np.int64)
    rewards, seen, mask = view2(one, 0, np.float32), view2(one, 1, OBS_DTYPE), view2(one, 2, np.int8)
    actions, dealt, rows = view1(one, 3, np.int64), view2(one, 4, np.int64), view2(one, 5, np.int64)
    rewards[0, :] = 0
    actions[0] = action
    after_plays, after_bids, observed = step_grouped(actions, config, arrays, rewards, dealt, rows, seen, mask)
    scored = False
    for seat in range(rewards.shape[1]):
        scored |= rewards[0, seat] != 0
    s = unpack_table(arrays)
    return after_plays + after_bids > 0, observed, scored, -1 if s.done[0] else s.current[0]


@kernel
def deal_one(orders, packs):
    """The next hand of a batch of one from the deck ``orders`` (1, cards)
    (``rules.deck_orders``, drawn in Python): the deal passes to the next
    seat, the hand is dealt (:func:`~.deal.open_hands`), and the
    observation and mask of the seat to act are written to the OneGame (as
    :func:`step_one` writes them).  Returns that seat."""
    config, arrays, one = view2(packs, 0, np.int64), view2(packs, 1, np.int64), view2(packs, 2, np.int64)
    seen, mask, rows = view2(one, 1, OBS_DTYPE), view2(one, 2, np.int8), view2(one, 5, np.int64)
    s = unpack_table(arrays)
    s.dealer[0] = (s.dealer[0] + 1) % unpack_config(config).num_players
    rows[0, 0] = 0
    open_hands(rows[0, :1], orders, config, arrays)
    observe_one(config, arrays, rows[0, :1], seen, mask)
    return s.current[0]


#: What :func:`deal_keyed` returns when two shuffle keys are equal (nothing dealt).
TIED_KEYS = -2


@kernel
def deal_keyed(packs):
    """:func:`deal_one` with the deck made here from the shuffle keys the
    rules drew into the OneGame (its scratch ``keys`` (1, cards) float64,
    then the deck's ``multiset``): the cards in the order of their keys, as
    :func:`~cardenvs.core.cards.orders_from_keys` orders them -- one call
    less, and no numpy, for a batch of one's every new hand.  Two equal
    keys (never seen: 53-bit doubles) would leave the order to the sort's
    kind: then nothing is dealt and it returns :data:`TIED_KEYS`, for the
    rules to deal by numpy's order."""
    one = view2(packs, 2, np.int64)
    keys, multiset = view2(one, 6, np.float64), view1(one, 7, np.int16)
    order = np.argsort(keys[0])
    orders = np.empty((1, order.shape[0]), np.int16)
    for k in range(order.shape[0]):
        if k and keys[0, order[k]] == keys[0, order[k - 1]]:
            return TIED_KEYS
        orders[0, k] = multiset[order[k]]
    return deal_one(orders, packs)


# ---------------------------------------------------------------- the auction
@kernel
def apply_bids(rows, actions, cfg, s, rewards, redeal):
    """The pass or bid ``actions[row]`` in each of ``rows`` (:func:`make_calls`);
    the hands everyone passed are thrown in: no score, and the game ends (at
    ``max_hands``) or the row is written to ``redeal``.  Returns how many were."""
    count = make_calls(rows, actions, cfg, s)
    if count == 0:
        return 0
    return hands_over(rows[:count], cfg, s, rewards, redeal)


@kernel
def make_calls(rows, actions, cfg, s):
    """The pass or bid ``actions[row]`` in each of ``rows``, then the row's new legal mask.

    A player who passes is out of the auction.  It ends when all but one
    player have passed after a bid, or at Big Pepper: the high bidder names
    trump.  Otherwise the next seat clockwise still in the auction speaks.
    When everyone passed without a bid (only possible with
    ``all_pass="redeal"``) the row is thrown in: those rows are moved to the
    front of ``rows``; returns how many.
    """
    num_players, stick_dealer, bid_allowed = cfg.num_players, cfg.stick_dealer, cfg.bid_allowed
    current, passed, high_bid, bidder, public, legal = s.current, s.passed, s.high_bid, s.bidder, s.public, s.legal
    phase, dealer = s.phase, s.dealer
    count = 0
    for i in range(rows.shape[0]):
        row = rows[i]
        seat = current[row]
        action = actions[row]
        if action == PASS:
            passed[row, seat] = True
        else:
            high_bid[row] = action
            bidder[row] = seat
        for call in range(NUM_CALLS):
            public[row, seat, BID + call] = 0
        public[row, seat, BID + action] = 1  # pass is action 0, bids 1..9
        still_in = 0
        for other in range(num_players):
            still_in += not passed[row, other]
        high = high_bid[row]
        if high == NO_BID and still_in == 0:
            rows[count] = row
            count += 1
        elif high != NO_BID and (still_in == 1 or high == BID_BIG):
            phase[row] = CHOOSING_TRUMP
            current[row] = bidder[row]
            trump_mask(legal, row)
        else:
            after = next_in_auction(passed, row, seat, num_players)
            current[row] = after
            bid_mask(legal, row, high, may_pass(stick_dealer, high, after, dealer[row]), bid_allowed)
    return count


@kernel
def next_in_auction(passed, row, seat, num_players):
    """The next seat clockwise of ``seat`` still in the auction (someone is:
    the auction ends before everyone is out)."""
    for k in range(1, num_players + 1):
        if not passed[row, clockwise(seat, k, num_players)]:
            return clockwise(seat, k, num_players)
    return clockwise(seat, 1, num_players)


# ---------------------------------------------------------------- the trump choice
@kernel
def apply_trumps(rows, actions, s):
    """In each of ``rows`` the winning bidder names trump (or no-trump) with
    ``actions[row]`` and leads the first trick."""
    for i in range(rows.shape[0]):
        row = rows[i]
        s.trump[row] = actions[row] - TRUMP0
        s.phase[row] = PLAYING
        s.leader[row] = s.bidder[row]
        s.current[row] = s.bidder[row]
        play_mask(s.legal, s.hands, row, s.current[row], s.trump[row], -1)


# ---------------------------------------------------------------- the play
@kernel
def apply_plays(rows, actions, cfg, s, rewards, redeal):
    """The card ``actions[row]`` played in each of ``rows`` (:func:`play_cards`);
    the full tricks go to their winners (:func:`~.scoring.end_tricks`), the
    hands played out are scored and the games end or go on
    (:func:`~.scoring.score_hands`, :func:`~.scoring.hands_over`).  Rows whose
    game goes on need a new deal: they are written to ``redeal`` and their
    mask is left to the deal; returns how many."""
    num_full = play_cards(rows, actions, cfg.num_players, s)
    if num_full == 0:
        return 0
    num_played_out = end_tricks(rows[:num_full], cfg, s)
    if num_played_out == 0:
        return 0
    score_hands(rows[:num_played_out], cfg, s, rewards)
    return hands_over(rows[:num_played_out], cfg, s, rewards, redeal)


@kernel
def play_cards(rows, actions, num_players, s):
    """The card ``actions[row]`` leaves the hand for the table in each of
    ``rows``; the next seat clockwise follows suit (its mask), unless the
    trick is full: those rows are moved to the front of ``rows``; returns how many."""
    hands, trick, public, in_trick, current, legal = s.hands, s.trick, s.public, s.in_trick, s.current, s.legal
    count = 0
    for i in range(rows.shape[0]):
        row = rows[i]
        seat = current[row]
        card = actions[row] - PLAY0
        hands[row, seat, card] = 0
        trick[row, seat] = card
        public[row, seat, TABLE + card] = 1
        in_trick[row] += 1
        if in_trick[row] < num_players:
            after = clockwise(seat, 1, num_players)
            current[row] = after
            trump = s.trump[row]
            play_mask(legal, hands, row, after, trump, EFFECTIVE_SUIT[trump, trick[row, s.leader[row]]])
        else:
            rows[count] = row
            count += 1
    return count
