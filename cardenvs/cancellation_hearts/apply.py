"""Cancellation Hearts: applying actions (compiled kernels), one function per phase.

Each kernel applies one legal action to every game of ``rows`` (the
action of ``rows[i]`` is ``actions[i]``), ends the tricks and hands it
completes (:mod:`.scoring`) and writes the game's new legal mask.  Hands
that end are reported to the rules, which end the games or deal anew
(dealing draws random numbers, which kernels never do).
"""

from __future__ import annotations

import numpy as np

from ..core.jit import kernel
from . import observation as ob
from .legal import refresh_legal
from .scoring import GAME_OVER, end_tricks, finish_hand
from .tables import (
    BREAKS_HEARTS,
    CARD_POINTS,
    CARDS_PASSED,
    LEFT,
    MOON_CHOICE,
    MOON_SELF,
    MOON_SWING,
    NUM_TYPES,
    PASS0,
    PASSING,
    PLAY0,
    PLAYING,
)


# --------------------------------------------------------------- passing
@kernel
def pass_cards(rows, actions, cfg, arrays):
    """Set one card aside to pass in each game (seats choose in turn from
    the dealer's left, 3 cards each; after the last choice, the exchange)."""
    for i in range(rows.shape[0]):
        row = rows[i]
        seat = arrays.current[row]
        card = actions[i] - PASS0
        arrays.hands[row, seat, card] -= 1
        arrays.pass_chosen[row, seat, card] += 1
        arrays.private[row, seat, ob.PASSED + card] += 1
        count = arrays.pass_count[row] + 1
        arrays.pass_count[row] = count
        arrays.current[row] = (arrays.dealer[row] + 1 + count // CARDS_PASSED) % cfg.num_players
        if count == CARDS_PASSED * cfg.num_players:
            exchange(row, cfg.num_players, arrays)
        refresh_legal(row, arrays)


@kernel
def exchange(row, num_players, arrays):
    """Everyone's passed cards reach their receiver at once; play starts."""
    giver_step = -1 if arrays.pass_dir[row] == LEFT else 1  # left: seat s receives from s - 1; right: from s + 1
    for s in range(num_players):
        giver = (s + giver_step) % num_players
        for t in range(NUM_TYPES):
            got = arrays.pass_chosen[row, giver, t]
            arrays.hands[row, s, t] += got
            arrays.private[row, s, ob.RECEIVED + t] = got
    arrays.pass_chosen[row] = 0
    arrays.phase[row] = PLAYING
    public = arrays.public[row]
    public[ob.PHASE + PASSING] = 0
    public[ob.PHASE + PLAYING] = 1
    public[ob.PHASE + MOON_CHOICE] = 0
    arrays.current[row] = arrays.leader[row]


# --------------------------------------------------------------- playing
@kernel
def play_cards(rows, actions, cfg, arrays, rewards, finished, games_over):
    """Play one card in each game, then end the tricks that filled up
    (:func:`.scoring.end_tricks`: it scores the hands they complete); return
    how many hands were finished (scored, with no moon to choose), their
    rows written to ``finished[:count]`` (in ``rows`` order) and
    ``games_over[:count]`` saying whether that ended the game.

    (Full tricks are ended in a second loop, not game by game: every array
    a compiled call takes costs it reference counting, so the per-game
    helpers take the game's slices and only loops take the state's arrays.)"""
    full = np.empty(rows.shape[0], np.int64)  # the games whose trick is full
    num_full = 0
    for i in range(rows.shape[0]):
        row = rows[i]
        seat = arrays.current[row]
        card = actions[i] - PLAY0
        position = arrays.in_trick[row]
        arrays.hands[row, seat, card] -= 1
        arrays.pile_points[row] += CARD_POINTS[card]
        if BREAKS_HEARTS[card]:
            arrays.hearts_broken[row] = True
        place_card(card, position, arrays.pile[row], arrays.trick[row], arrays.trick_slot[row], arrays.public[row])
        arrays.in_trick[row] = position + 1
        arrays.current[row] = (seat + 1) % cfg.num_players
        if position + 1 == cfg.num_players:
            full[num_full] = row
            num_full += 1
        else:
            refresh_legal(row, arrays)
    return end_tricks(full[:num_full], cfg, arrays, rewards, finished, games_over)


@kernel
def place_card(card, position, pile, trick, trick_slot, public):
    """Card type ``card`` joins one game's ``pile`` (the cards the next
    trick's winner collects), its ``trick`` at ``position`` and the public
    trick block; identical cards in one trick cancel (``trick_slot`` finds
    the twin)."""
    pile[card] += 1
    twin = np.int64(trick_slot[card]) - 1  # an identical card already in this trick (-1: none)
    trick_slot[card] = position + 1
    trick[position] = card
    at = ob.TRICK + ob.CARD_PLANES * position
    public[at + card // 13] = 1
    public[at + ob.RANK_PLANE + card % 13] = 1
    public[ob.SEEN + card] += 1
    if twin >= 0:  # identical cards cancel: mark the pair
        public[ob.CANCELLED + twin] = 1
        public[ob.CANCELLED + position] = 1
    if BREAKS_HEARTS[card]:
        public[ob.HEARTS_BROKEN] = 1


# --------------------------------------------------------------- moon choice
@kernel
def choose_moon(rows, actions, cfg, arrays, rewards, finished, games_over):
    """The moon shooter of each game scores its moon: ``moon self`` takes 26
    off its own total, ``moon others`` adds 26 to everyone else's; the hand
    is finished (rows and game ends reported as by :func:`play_cards`)."""
    delta = np.zeros(cfg.num_players, np.int64)
    for i in range(rows.shape[0]):
        row = rows[i]
        shooter = arrays.moon_seat[row]
        if actions[i] == MOON_SELF:
            delta[:] = 0
            delta[shooter] = -MOON_SWING
        else:
            delta[:] = MOON_SWING
            delta[shooter] = 0
        finished[i] = row
        games_over[i] = finish_hand(row, delta, cfg, arrays, rewards) == GAME_OVER
    return rows.shape[0]
