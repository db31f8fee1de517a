"""Cancellation Hearts: ending a trick and a hand, scores, game end and
rewards (compiled kernels).

A full trick is won by the highest uncancelled card of the suit led; with
none, it stays in the pile for the next trick won.  The first trick won
also takes the face-down widow; an unclaimed last trick (and what it
carried) goes to nobody.  At the end of a hand each seat adds the points it
took (hearts 1, Black Marias 13), unless one seat took all 26 hearts and
both Black Marias: that seat then chooses how the moon is scored.  The game
ends after a hand in which a total reaches the target (or after
``max_hands``); the lowest total wins, ties all winning.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import kernel
from . import observation as ob
from .legal import refresh_legal
from .tables import CARD_POINTS, MOON_CHOICE, MOON_POINTS, NUM_TYPES, WIDOW_NOBODY, WIDOW_WAITING

# What the end of a hand leads to (:func:`score_hand`, :func:`finish_hand`).
NEXT_HAND, GAME_OVER, MOON_SHOT = 0, 1, 2


@kernel
def end_tricks(rows, config, state, rewards, ended):
    """Resolve the full trick of every game in ``rows``, score the hands
    that ends (:func:`score_hand`) and write the games' legal masks; return
    how many hands were finished (with no moon to choose), reported in
    ``ended`` as by :func:`.apply.play_cards`."""
    count = 0
    for i in range(rows.shape[0]):
        row = rows[i]
        public = state.public[row]
        winner = trick_winner(state.trick[row], state.trick_slot[row], public, state.leader[row], config.num_players)
        state.in_trick[row] = 0
        state.trick_no[row] += 1
        if winner >= 0:  # the winner collects the trick and everything carried into it
            got = state.pile_points[row]
            state.points[row, winner] += got
            state.seen_points[row, winner] += got
            state.pile_points[row] = 0
            move_cards(state.pile[row], state.taken[row, winner])
            if state.widow_holder[row] == WIDOW_WAITING:  # the first trick won takes the widow, face down
                state.widow_holder[row] = winner
                state.points[row, winner] += points_of(state.widow[row])
                public[ob.WIDOW_WAITING] = 0
            state.leader[row] = winner
            public[ob.CARRIED_CARDS] = 0
        else:  # unclaimed: the pile waits for the next trick won, the same leader leads again
            public[ob.CARRIED_CARDS] += config.num_players
        state.current[row] = state.leader[row]
        public[ob.CARRIED_POINTS] = state.pile_points[row]
        if state.trick_no[row] == config.hand_size:  # the hand is over: an unclaimed pile goes to nobody
            move_cards(state.pile[row], state.uncollected[row])
            state.pile_points[row] = 0
            if state.widow_holder[row] == WIDOW_WAITING:
                state.widow_holder[row] = WIDOW_NOBODY
            public[ob.CARRIED_POINTS] = 0
            public[ob.CARRIED_CARDS] = 0
            public[ob.WIDOW_WAITING] = 0
            outcome = score_hand(row, config, state, rewards)
            if outcome != MOON_SHOT:
                ended[0, count] = row
                ended[1, count] = outcome == GAME_OVER
                count += 1
        refresh_legal(row, state)
    return count


@kernel
def trick_winner(trick, trick_slot, public, leader, num_players):
    """The seat that wins one game's full ``trick`` (-1: nobody, every card
    of the suit led cancelled): the highest uncancelled card of the suit led.
    Clears the trick on the way (``trick``, ``trick_slot`` and the public
    trick and cancelled blocks)."""
    led = trick[0] // 13
    best_rank, best_position = -1, 0
    for k in range(num_players):
        card = trick[k]
        if card // 13 == led and public[ob.CANCELLED + k] == 0 and card % 13 > best_rank:
            best_rank, best_position = card % 13, k
        trick_slot[card] = 0
        trick[k] = -1
        public[ob.TRICK + ob.CARD_PLANES * k + card // 13] = 0
        public[ob.TRICK + ob.CARD_PLANES * k + ob.RANK_PLANE + card % 13] = 0
        public[ob.CANCELLED + k] = 0
    if best_rank < 0:
        return -1
    return (leader + best_position) % num_players


@kernel
def move_cards(source, target):
    """Add the card counts ``source`` to ``target`` and empty ``source``."""
    for t in range(NUM_TYPES):
        target[t] += source[t]
        source[t] = 0


@kernel
def points_of(counts):
    """The points of the cards ``counts`` (hearts 1, Black Marias 13)."""
    total = 0
    for t in range(NUM_TYPES):
        total += np.int64(counts[t]) * CARD_POINTS[t]
    return total


@kernel
def score_hand(row, config, state, rewards):
    """Score the hand just played in game ``row``: the moon shooter's choice
    comes first (MOON_SHOT: its phase opens), else :func:`finish_hand`."""
    points = state.points[row]
    for seat in range(config.num_players):
        if points[seat] == MOON_POINTS:  # took all 26 hearts and both Black Marias
            state.phase[row] = MOON_CHOICE
            state.moon_seat[row] = seat
            state.current[row] = seat
            public = state.public[row]
            public[ob.PHASE : ob.PHASE + 3] = 0
            public[ob.PHASE + MOON_CHOICE] = 1
            return MOON_SHOT
    return finish_hand(row, points, config, state, rewards)


@kernel
def finish_hand(row, delta, config, state, rewards):
    """Add the hand's score changes ``delta`` (per seat) to the totals of
    game ``row`` and pay its rewards; return GAME_OVER if that ended the game
    (the target reached, or ``max_hands`` played), else NEXT_HAND."""
    scores = state.scores[row]
    over = False
    for seat in range(config.num_players):
        scores[seat] += delta[seat]
        if config.score_delta:
            rewards[row, seat] -= delta[seat]  # fewer points is better
        over |= scores[seat] >= config.target_score
    state.hand_number[row] += 1
    over |= config.max_hands > 0 and state.hand_number[row] >= config.max_hands
    if not over:
        return NEXT_HAND
    state.public[row, ob.PHASE : ob.PHASE + 3] = 0
    if not config.score_delta:  # win/loss: the lowest total wins; everyone tied for it wins
        lowest = scores.min()
        for seat in range(config.num_players):
            rewards[row, seat] += 1.0 if scores[seat] == lowest else -1.0
    return GAME_OVER
