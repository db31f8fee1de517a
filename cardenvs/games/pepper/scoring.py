"""Pepper's compiled scoring kernels (:mod:`cardenvs.core.jit`): ending a
trick (its winner, the cards it moves to history), scoring a played hand,
the end of a hand (played out or thrown in) and of the game, and the
rewards.

The stages (``end_tricks``, ``score_hands``, ``hands_over``) are called by
the apply kernels once per step, each looping over its rows (see
:mod:`cardenvs.games.pepper.apply` for why); ``cfg`` is the rules'
:class:`~cardenvs.games.pepper.tables.Config` and ``s`` the state's
:class:`~cardenvs.games.pepper.tables.Table`.  The rest are their per-row helpers.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import kernel
from .legal import play_mask
from .observation import PLAYED, SCORE, TABLE, TRICKS
from .tables import BID_BIG, BID_LITTLE, CARD_STRENGTH, DONE, EFFECTIVE_SUIT


# ---------------------------------------------------------------- a trick
@kernel
def trick_winner(trick, row, num_players, leader, trump):
    """Seat winning the full trick of ``row`` (led by seat ``leader``): the
    strongest card by :data:`~cardenvs.games.pepper.tables.CARD_STRENGTH` for the suit led."""
    led = EFFECTIVE_SUIT[trump, trick[row, leader]]
    best, winner = -1, 0
    for seat in range(num_players):
        strength = CARD_STRENGTH[trump, led, trick[row, seat]]
        if strength > best:
            best, winner = strength, seat
    return winner


@kernel
def end_tricks(rows, cfg, s):
    """The full trick of each of ``rows`` goes to its winner, who leads the
    next one: it is recorded (``history``, its leader and winner), each
    seat's table card joins the cards it played, the winner's trick count
    goes up.  Rows whose hand is played out are moved to the front of
    ``rows`` (their mask is left to what follows); returns how many."""
    count = 0
    for i in range(rows.shape[0]):
        row = rows[i]
        leader, trump, k = s.leader[row], s.trump[row], s.trick_no[row]
        winner = trick_winner(s.trick, row, cfg.num_players, leader, trump)
        s.trick_leaders[row, k] = leader
        s.trick_winners[row, k] = winner
        for seat in range(cfg.num_players):
            card = s.trick[row, seat]
            s.history[row, k, seat] = card
            s.public[row, seat, TABLE + card] = 0
            s.public[row, seat, PLAYED + card] += 1
            s.trick[row, seat] = -1
        s.public[row, winner, TRICKS] += 1
        s.in_trick[row] = 0
        s.trick_no[row] = k + 1
        s.leader[row] = winner
        s.current[row] = winner
        if k + 1 < cfg.num_tricks:
            play_mask(s.legal, s.hands, row, winner, trump, -1)
        else:
            rows[count] = row
            count += 1
    return count


# ---------------------------------------------------------------- a hand
@kernel
def side_tricks(public, row, num_players, side_of_seat, side):
    """Tricks the seats of ``side`` won this hand in ``row``."""
    tricks = 0
    for seat in range(num_players):
        if side_of_seat[seat] == side:
            tricks += public[row, seat, TRICKS]
    return tricks


@kernel
def score_hands(rows, cfg, s, rewards):
    """Score the played-out hand of each of ``rows``.

    Every side scores 1 point per trick it won, except the bidding side:
    made, the tricks it won (Big Pepper: ``big_pepper``); failed,
    ``-fail_penalty`` (Big Pepper: ``-big_pepper``).  A Pepper contracts for
    every trick.  With ``score_delta`` every seat is rewarded its side's change.
    """
    for i in range(rows.shape[0]):
        row = rows[i]
        high = s.high_bid[row]
        bidding_side = cfg.side_of_seat[s.bidder[row]]
        for side in range(cfg.num_sides):
            delta = side_tricks(s.public, row, cfg.num_players, cfg.side_of_seat, side)
            if side == bidding_side:
                made = delta >= (cfg.num_tricks if high >= BID_LITTLE else high)
                if high == BID_BIG:
                    delta = cfg.big_pepper if made else -cfg.big_pepper
                elif not made:
                    delta = -cfg.fail_penalty
            s.scores[row, side] += delta
            for seat in range(cfg.num_players):
                if cfg.side_of_seat[seat] == side:
                    s.public[row, seat, SCORE] = s.scores[row, side]
                    if cfg.score_delta:
                        rewards[row, seat] += np.float32(delta)


@kernel
def hands_over(rows, cfg, s, rewards, redeal):
    """The hand of each of ``rows`` is over (played out or thrown in): the
    game ends, or the row is written to ``redeal`` to await a new deal.
    Returns how many were."""
    count = 0
    for i in range(rows.shape[0]):
        row = rows[i]
        s.hand_number[row] += 1
        if game_over(s.scores, row, cfg.target_score, cfg.max_hands, s.hand_number[row]):
            end_game(row, cfg.num_players, cfg.side_of_seat, cfg.score_delta, s, rewards)
        else:
            redeal[count] = row
            count += 1
    return count


# ---------------------------------------------------------------- the game
@kernel
def game_over(scores, row, target_score, max_hands, hands_played):
    """Whether the game of ``row`` ends after its ``hands_played``-th hand: a
    side reached ``target_score``, or ``max_hands`` were played (0: no limit)."""
    over = max_hands > 0 and hands_played >= max_hands
    for side in range(scores.shape[1]):
        over |= scores[row, side] >= target_score
    return over


@kernel
def end_game(row, num_players, side_of_seat, score_delta, s, rewards):
    """The game of ``row`` is over: nobody acts, nothing is legal.  The sides
    with the highest score win (+1 per seat, the others -1, unless
    ``score_delta``)."""
    s.done[row] = True
    s.phase[row] = DONE
    s.current[row] = -1
    s.legal[row] = False
    if not score_delta:
        top = s.scores[row, 0]
        for side in range(s.scores.shape[1]):
            top = max(top, s.scores[row, side])
        for seat in range(num_players):
            won = s.scores[row, side_of_seat[seat]] == top
            rewards[row, seat] += np.float32(1.0 if won else -1.0)
