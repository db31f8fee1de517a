"""Pepper: the card and action constants and the compiled per-row kernels
(see :mod:`cardenvs.core.jit`).

:class:`~cardenvs.pepper.rules.PepperRules` keeps the phases, the order of a
step and every random draw; these kernels are what it runs on the rows of a
phase: a bid or pass, the trump choice, a card played (with the trick it
completes, the hand's scoring and the end of the game), opening a dealt
hand, and the legal mask of a row.  Each loops over batch rows and reads and
writes the state's arrays in place (the arrays of ``PepperRules.new_state``:
hands ``int8``, the public planes ``int16``, ``passed`` and ``legal`` bool,
everything else ``int64``; ``rewards`` ``float32``).

No kernel draws a random number: the deck orders are shuffled by the rules
with the batch's numpy generator and passed in.  The step kernels take the
whole batch's ``actions`` (one per game) and the rows to step; those that
end hands write the rows needing a new deal to an output array (in row
order) and return how many, so the rules deal them all at once, in the same
order as ever.
"""

from __future__ import annotations

import numpy as np

from ..core.cards import standard_deck
from ..core.jit import kernel
from ..core.tricks import playable
from .observation import BID, PLAYED, SCORE, SEAT_PLANES, TABLE, TRICKS

DECK = standard_deck("9TJQKA")  # 24 card types, one copy each
NUM_TYPES = DECK.num_types

# Action ids (see the rules module's table).
PASS, BID_LITTLE, BID_BIG = 0, 8, 9
TRUMP0, TRUMP_NONE, PLAY0 = 10, 14, 15
NUM_ACTIONS = PLAY0 + NUM_TYPES
NO_TRUMP = 4  # trump index for a no-trump hand (0..3 are the suits)
NO_BID = 0  # ``high_bid`` before anyone bid (the id of "pass")

# Phases (``state.phase``).
BIDDING, CHOOSING_TRUMP, PLAYING, DONE = 0, 1, 2, 3

JACK = 2  # r index of the jack
TRUMP_WINS = 100  # added to a trump's strength: any trump beats any card of the suit led


def _rank_tables() -> tuple[np.ndarray, np.ndarray]:
    """For each trump index (C, D, H, S, none): the effective suit of every
    card type and its strength when it is a trump (-1 when it is not).

    The left bower (the jack of the other suit of the trump's colour,
    ``suit ^ 3`` with suits ordered C D H S) belongs to the trump suit.
    Trump order, low to high: 9 T Q K A, left bower, right bower.
    """
    suit = DECK.suit.astype(np.int64)
    r = np.arange(NUM_TYPES) % 6
    eff = np.tile(suit, (5, 1))
    trump_strength = np.full((5, NUM_TYPES), -1)
    for t in range(4):
        right, left = t * 6 + JACK, (t ^ 3) * 6 + JACK
        eff[t, left] = t
        is_trump = eff[t] == t
        trump_strength[t] = np.where(is_trump, np.array([0, 1, -1, 2, 3, 4])[r], -1)
        trump_strength[t, left], trump_strength[t, right] = 5, 6
    return eff, trump_strength


EFFECTIVE_SUIT, TRUMP_STRENGTH = (t.astype(np.int8) for t in _rank_tables())
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


# ---------------------------------------------------------------- a step
@kernel
def rows_by_phase(done, phase, rows):
    """Write the unfinished games in each phase to a row of ``rows`` (in
    row order): ``rows[0]`` playing, ``rows[1]`` bidding, ``rows[2]``
    choosing trump (the order the rules step them in); return how many
    each.

    A compaction without a branch per game (the phases of random games
    would mispredict it): each game is written at the next free slot of
    every group, which only advances in its own group -- so each row of
    ``rows`` needs one slot more than the batch.
    """
    playing = bidding = choosing = 0
    for row in range(phase.shape[0]):
        ph = phase[row] if not done[row] else DONE
        rows[0, playing] = row
        rows[1, bidding] = row
        rows[2, choosing] = row
        playing += ph == PLAYING
        bidding += ph == BIDDING
        choosing += ph == CHOOSING_TRUMP
    return playing, bidding, choosing


@kernel
def clockwise(seat, steps, n):
    """The seat ``steps`` (0..n) places clockwise of ``seat`` (0..n-1), by a
    comparison instead of ``%`` (no integer division)."""
    after = seat + steps
    return after - n if after >= n else after


# ---------------------------------------------------------------- legal masks
# The per-row helpers take the few arrays they use and scalars: a call
# between compiled functions costs more the more arrays it passes (a mask
# helper taking the whole state cost more than the mask itself).
@kernel
def bid_mask(legal, row, high, may_pass, bid_allowed):
    """``legal[row]`` in the auction: a bid above ``high`` (on this player
    count's ladder, ``bid_allowed``), and pass if ``may_pass``."""
    for a in range(NUM_ACTIONS):
        legal[row, a] = False
    for a in range(high + 1, BID_BIG + 1):
        legal[row, a] = bid_allowed[a]
    legal[row, PASS] = may_pass


@kernel
def may_pass(stick_dealer, high, seat, dealer):
    """Whether ``seat`` may pass: not when sticking the dealer, nobody has
    bid and it is the dealer's turn (so everyone else passed)."""
    return not (stick_dealer and high == NO_BID and seat == dealer)


@kernel
def trump_mask(legal, row):
    """``legal[row]`` of the winning bidder: the four suits and no-trump."""
    for a in range(NUM_ACTIONS):
        legal[row, a] = TRUMP0 <= a <= TRUMP_NONE


@kernel
def play_mask(legal, hands, row, seat, trump, led):
    """``legal[row]`` of ``seat`` in the play: a card of the (effective) suit
    ``led`` if it holds one (the left bower is a trump, not a card of its
    printed suit), else any card it holds; ``led`` -1: it leads (the row of
    :data:`SUIT_MEMBERS` for nobody led is empty: any card).
    """
    mask = legal[row]
    for a in range(PLAY0):
        mask[a] = False
    playable(mask[PLAY0:], hands[row, seat], SUIT_MEMBERS[trump, led + 1])


# ---------------------------------------------------------------- the deal
@kernel
def open_hands(
    rows,
    orders,
    slot_of_position,
    n,
    dealer,
    scores,
    side_of_seat,
    hands,
    dead,
    phase,
    current,
    high_bid,
    bidder,
    passed,
    trump,
    trick,
    in_trick,
    trick_no,
    public,
    history,
    trick_leaders,
    trick_winners,
    bid_allowed,
    stick_dealer,
    legal,
):
    """Deal deck ``orders[i]`` (card types, top first) in game ``rows[i]``
    and open its auction.

    Deck position k goes to slot ``slot_of_position[k]``: slot j < n is the
    seat j + 1 places left of the dealer; every other card (the dead hand at
    2 players) goes to ``dead``.  The hand's state starts afresh (the public
    planes hold only the game scores), and the player left of the dealer
    bids first.
    """
    for i in range(rows.shape[0]):
        row = rows[i]
        for s in range(n):
            for t in range(NUM_TYPES):
                hands[row, s, t] = 0
            for c in range(SEAT_PLANES):
                public[row, s, c] = 0
            public[row, s, SCORE] = scores[row, side_of_seat[s]]
            passed[row, s] = False
            trick[row, s] = -1
        for t in range(NUM_TYPES):
            dead[row, t] = 0
        for k in range(orders.shape[1]):
            slot = slot_of_position[k]
            if 0 <= slot < n:
                hands[row, clockwise(dealer[row], 1 + slot, n), orders[i, k]] += 1
            else:
                dead[row, orders[i, k]] += 1
        for k in range(history.shape[1]):
            for s in range(n):
                history[row, k, s] = -1
            trick_leaders[row, k] = 0
            trick_winners[row, k] = -1
        phase[row] = BIDDING
        high_bid[row] = NO_BID
        bidder[row] = -1
        trump[row] = -1
        in_trick[row] = 0
        trick_no[row] = 0
        current[row] = clockwise(dealer[row], 1, n)
        bid_mask(legal, row, NO_BID, may_pass(stick_dealer, NO_BID, current[row], dealer[row]), bid_allowed)


# ---------------------------------------------------------------- the auction
@kernel
def bid(
    rows,
    actions,
    n,
    target_score,
    max_hands,
    score_delta,
    side_of_seat,
    current,
    passed,
    high_bid,
    bidder,
    public,
    phase,
    dealer,
    bid_allowed,
    stick_dealer,
    scores,
    hand_number,
    done,
    legal,
    rewards,
    redeal,
):
    """The pass or bid ``actions[row]`` in each of ``rows``, then the row's new legal mask.

    A player who passes is out of the auction.  It ends when all but one
    player have passed after a bid, or at Big Pepper: the high bidder names
    trump.  Otherwise the next seat clockwise still in the auction speaks.
    When everyone passed without a bid (only possible with
    ``all_pass="redeal"``) the hand is thrown in: no score, and the game
    ends (:func:`game_over`, at ``max_hands``) or the row is written to
    ``redeal`` (in ``rows`` order) for the next deal; returns how many.
    """
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
        for a in range(BID, BID + 10):
            public[row, seat, a] = 0
        public[row, seat, BID + action] = 1  # pass is action 0, bids 1..9
        still_in = 0
        for s in range(n):
            still_in += not passed[row, s]
        high = high_bid[row]
        if high == NO_BID and still_in == 0:  # thrown in
            count = hand_over(
                row,
                count,
                redeal,
                hand_number,
                n,
                target_score,
                max_hands,
                score_delta,
                side_of_seat,
                scores,
                done,
                phase,
                current,
                legal,
                rewards,
            )
        elif high != NO_BID and (still_in == 1 or high == BID_BIG):
            phase[row] = CHOOSING_TRUMP
            current[row] = bidder[row]
            trump_mask(legal, row)
        else:
            nxt = clockwise(seat, 1, n)  # (never kept: a bid ends the auction before everyone is out)
            for k in range(1, n + 1):
                if not passed[row, clockwise(seat, k, n)]:
                    nxt = clockwise(seat, k, n)
                    break
            current[row] = nxt
            bid_mask(legal, row, high, may_pass(stick_dealer, high, nxt, dealer[row]), bid_allowed)
    return count


@kernel
def choose_trump(rows, actions, trump, phase, bidder, leader, current, hands, legal):
    """In each of ``rows`` the winning bidder names trump (or no-trump) with
    ``actions[row]`` and leads the first trick."""
    for i in range(rows.shape[0]):
        row = rows[i]
        trump[row] = actions[row] - TRUMP0
        phase[row] = PLAYING
        leader[row] = bidder[row]
        current[row] = bidder[row]
        play_mask(legal, hands, row, current[row], trump[row], -1)


# ---------------------------------------------------------------- the play
@kernel
def trick_winner(trick, row, n, leader, trump):
    """Seat winning the full trick of ``row`` (led by seat ``leader``): the
    strongest card by :data:`CARD_STRENGTH` for the suit led."""
    led = EFFECTIVE_SUIT[trump, trick[row, leader]]
    best, winner = -1, 0
    for s in range(n):
        strength = CARD_STRENGTH[trump, led, trick[row, s]]
        if strength > best:
            best, winner = strength, s
    return winner


@kernel
def play(
    rows,
    actions,
    n,
    num_tricks,
    num_sides,
    side_of_seat,
    fail_penalty,
    big_pepper,
    target_score,
    max_hands,
    score_delta,
    current,
    hands,
    trick,
    public,
    in_trick,
    trump,
    leader,
    trick_no,
    trick_leaders,
    trick_winners,
    history,
    high_bid,
    bidder,
    scores,
    hand_number,
    done,
    phase,
    legal,
    rewards,
    redeal,
):
    """The card ``actions[row]`` played in each of ``rows``, then the row's new legal mask.

    A full trick goes to its winner, who leads the next one; after the
    hand's last trick the hand is scored (:func:`score_hand`) and the game
    ends (:func:`game_over`) or goes on.  Rows whose game goes on need a
    new deal: they are written to ``redeal`` (in ``rows`` order) and their
    mask is left to the deal; returns how many.
    """
    count = 0
    for i in range(rows.shape[0]):
        row = rows[i]
        seat = current[row]
        card = actions[row] - PLAY0
        hands[row, seat, card] = 0
        trick[row, seat] = card
        public[row, seat, TABLE + card] = 1
        in_trick[row] += 1
        if in_trick[row] < n:
            nxt = clockwise(seat, 1, n)
            current[row] = nxt
            play_mask(legal, hands, row, nxt, trump[row], EFFECTIVE_SUIT[trump[row], trick[row, leader[row]]])
            continue
        winner = trick_winner(trick, row, n, leader[row], trump[row])
        k = trick_no[row]
        trick_leaders[row, k] = leader[row]
        trick_winners[row, k] = winner
        for s in range(n):  # each seat's table card joins the cards it played
            c = trick[row, s]
            history[row, k, s] = c
            public[row, s, TABLE + c] = 0
            public[row, s, PLAYED + c] += 1
            trick[row, s] = -1
        public[row, winner, TRICKS] += 1
        in_trick[row] = 0
        trick_no[row] = k + 1
        leader[row] = winner
        current[row] = winner
        if k + 1 < num_tricks:
            play_mask(legal, hands, row, winner, trump[row], -1)
            continue
        score_hand(
            scores,
            public,
            rewards,
            side_of_seat,
            row,
            n,
            num_tricks,
            num_sides,
            fail_penalty,
            big_pepper,
            score_delta,
            high_bid[row],
            side_of_seat[bidder[row]],
        )
        count = hand_over(
            row,
            count,
            redeal,
            hand_number,
            n,
            target_score,
            max_hands,
            score_delta,
            side_of_seat,
            scores,
            done,
            phase,
            current,
            legal,
            rewards,
        )
    return count


@kernel
def side_tricks(public, row, n, side_of_seat, side):
    """Tricks the seats of ``side`` won this hand in ``row``."""
    tricks = 0
    for s in range(n):
        if side_of_seat[s] == side:
            tricks += public[row, s, TRICKS]
    return tricks


@kernel
def score_hand(
    scores,
    public,
    rewards,
    side_of_seat,
    row,
    n,
    num_tricks,
    num_sides,
    fail_penalty,
    big_pepper,
    score_delta,
    high,
    bidding_side,
):
    """Score the finished hand of ``row`` (high bid ``high`` by ``bidding_side``).

    Every side scores 1 point per trick it won, except the bidding side:
    made, the tricks it won (Big Pepper: ``big_pepper``); failed,
    ``-fail_penalty`` (Big Pepper: ``-big_pepper``).  A Pepper contracts for
    every trick.  With ``score_delta`` every seat is rewarded its side's change.
    """
    for side in range(num_sides):
        delta = side_tricks(public, row, n, side_of_seat, side)
        if side == bidding_side:
            made = delta >= (num_tricks if high >= BID_LITTLE else high)
            if high == BID_BIG:
                delta = big_pepper if made else -big_pepper
            elif not made:
                delta = -fail_penalty
        scores[row, side] += delta
        for s in range(n):
            if side_of_seat[s] == side:
                public[row, s, SCORE] = scores[row, side]
                if score_delta:
                    rewards[row, s] += np.float32(delta)


@kernel
def hand_over(
    row,
    count,
    redeal,
    hand_number,
    n,
    target_score,
    max_hands,
    score_delta,
    side_of_seat,
    scores,
    done,
    phase,
    current,
    legal,
    rewards,
):
    """The hand of ``row`` is over (played out or thrown in): the game ends,
    or the row joins the ``count`` rows of ``redeal`` awaiting a new deal.
    Returns the new count."""
    hand_number[row] += 1
    if game_over(scores, row, target_score, max_hands, hand_number[row]):
        end_game(row, n, score_delta, side_of_seat, scores, done, phase, current, legal, rewards)
        return count
    redeal[count] = row
    return count + 1


@kernel
def game_over(scores, row, target_score, max_hands, hands_played):
    """Whether the game of ``row`` ends after its ``hands_played``-th hand: a
    side reached ``target_score``, or ``max_hands`` were played (0: no limit)."""
    over = max_hands > 0 and hands_played >= max_hands
    for side in range(scores.shape[1]):
        over |= scores[row, side] >= target_score
    return over


@kernel
def end_game(row, n, score_delta, side_of_seat, scores, done, phase, current, legal, rewards):
    """The game of ``row`` is over: nobody acts, nothing is legal.  The sides
    with the highest score win (+1 per seat, the others -1, unless
    ``score_delta``)."""
    done[row] = True
    phase[row] = DONE
    current[row] = -1
    legal[row] = False
    if not score_delta:
        top = scores[row, 0]
        for side in range(scores.shape[1]):
            top = max(top, scores[row, side])
        for s in range(n):
            rewards[row, s] += np.float32(1.0 if scores[row, side_of_seat[s]] == top else -1.0)
