"""Cancellation Hearts: applying actions (compiled kernels), one function per phase.

Each kernel applies one legal action to every game of ``rows`` (the
action of ``rows[i]`` is ``actions[i]``), ends the tricks and hands it
completes (:mod:`.scoring`) and writes the games' new legal masks.  Hands
that end are reported to the rules, which end the games or deal anew
(dealing draws random numbers, which kernels never do).
"""

from __future__ import annotations

import numpy as np

from ...core.jit import kernel
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
    Arrays,
    Config,
)


# --------------------------------------------------------------- passing
@kernel
def pass_cards(rows, actions, config_values, state_arrays):
    """Set one card aside to pass in each game (seats choose in turn from
    the dealer's left, 3 cards each; after the last choice, the exchange)."""
    config, state = Config(*config_values), Arrays(*state_arrays)  # (see tables.Arrays)
    for i in range(rows.shape[0]):
        row = rows[i]
        seat = state.current[row]
        card = actions[i] - PASS0
        state.hands[row, seat, card] -= 1
        state.pass_chosen[row, seat, card] += 1
        state.private[row, seat, ob.PASSED + card] += 1
        count = state.pass_count[row] + 1
        state.pass_count[row] = count
        state.current[row] = (state.dealer[row] + 1 + count // CARDS_PASSED) % config.num_players
        if count == CARDS_PASSED * config.num_players:
            exchange(row, config.num_players, state)
        refresh_legal(row, state)


@kernel
def exchange(row, num_players, state):
    """Everyone's passed cards reach their receiver at once; play starts."""
    giver_step = -1 if state.pass_dir[row] == LEFT else 1  # left: seat s receives from s - 1; right: from s + 1
    for s in range(num_players):
        giver = (s + giver_step) % num_players
        for t in range(NUM_TYPES):
            got = state.pass_chosen[row, giver, t]
            state.hands[row, s, t] += got
            state.private[row, s, ob.RECEIVED + t] = got
    state.pass_chosen[row] = 0
    state.phase[row] = PLAYING
    public = state.public[row]
    public[ob.PHASE + PASSING] = 0
    public[ob.PHASE + PLAYING] = 1
    public[ob.PHASE + MOON_CHOICE] = 0
    state.current[row] = state.leader[row]


# --------------------------------------------------------------- playing
@kernel
def play_cards(rows, actions, config_values, state_arrays, rewards, ended):
    """Play one card in each game, then end the tricks that filled up
    (:func:`.scoring.end_tricks`: it scores the hands they complete); return
    how many hands were finished (scored, with no moon to choose): their
    rows are ``ended[0, :count]`` (in ``rows`` order), ``ended[1, :count]``
    1 where that ended the game; ``ended[2]`` is room for the games whose
    trick is full.

    (Full tricks are ended in a second loop rather than game by game: see
    :class:`.tables.Arrays` on what a call costs.)"""
    config, state = Config(*config_values), Arrays(*state_arrays)  # (see tables.Arrays)
    full = ended[2]  # the games whose trick is full
    num_full = 0
    for i in range(rows.shape[0]):
        row = rows[i]
        seat = state.current[row]
        card = actions[i] - PLAY0
        position = state.in_trick[row]
        state.hands[row, seat, card] -= 1
        state.pile_points[row] += CARD_POINTS[card]
        if BREAKS_HEARTS[card]:
            state.hearts_broken[row] = True
        place_card(card, position, state.pile[row], state.trick[row], state.trick_slot[row], state.public[row])
        state.in_trick[row] = position + 1
        state.current[row] = (seat + 1) % config.num_players
        if position + 1 == config.num_players:
            full[num_full] = row
            num_full += 1
        else:
            refresh_legal(row, state)
    if num_full == 0:
        return 0
    return end_tricks(full[:num_full], config, state, rewards, ended)


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
def choose_moon(rows, actions, config_values, state_arrays, rewards, ended):
    """The moon shooter of each game scores its moon: ``moon self`` takes 26
    off its own total, ``moon others`` adds 26 to everyone else's; the hand
    is finished (rows and game ends reported as by :func:`play_cards`)."""
    config, state = Config(*config_values), Arrays(*state_arrays)  # (see tables.Arrays)
    delta = np.zeros(config.num_players, np.int64)
    for i in range(rows.shape[0]):
        row = rows[i]
        shooter = state.moon_seat[row]
        if actions[i] == MOON_SELF:
            delta[:] = 0
            delta[shooter] = -MOON_SWING
        else:
            delta[:] = MOON_SWING
            delta[shooter] = 0
        ended[0, i] = row
        ended[1, i] = finish_hand(row, delta, config, state, rewards) == GAME_OVER
    return rows.shape[0]
