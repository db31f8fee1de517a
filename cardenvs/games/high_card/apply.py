"""High Card: applying actions (compiled kernels).

A step is one compiled call, :func:`step_games`: it goes through the rows
once and applies each row's action by its phase, one function per phase
(:func:`swap_card`, :func:`play_card`), each rewriting the row's legal mask.
A hand that ends is scored here (:func:`end_hand`) and a game that is over
is ended here; the rows whose hand ended and whose game goes on are handed
back to the rules, which deal their next hands (dealing draws random
numbers, which kernels never do).

Why one call a step, whatever phases the rows are in (docs/adding-a-game.md,
"A fast game"): each call from Python into a kernel costs a few
microseconds, and splitting the rows by phase in numpy costs a pass over
the batch per phase and a copy of each subset; a loop over the rows that
branches on the phase costs neither.  A new phase is one more branch here
and one more function beside these.
"""

from __future__ import annotations

from cardenvs.core.jit import kernel

from .legal import refresh_legal
from .tables import DONE, KEEP, NUM_PLAYERS, PLAY0, PLAYING, RANK, SUIT, SWAP0, SWAPPING, Config, unpack_arrays


@kernel
def step_games(actions, config_values, arrays, rewards, dealt):
    """Apply ``actions[row]`` in every game that is on, by its phase.  The
    rows whose hand ended and whose game goes on are written to ``dealt``,
    in row order; returns how many."""
    config, state = Config(*config_values), unpack_arrays(arrays)
    count = 0
    for row in range(actions.shape[0]):
        phase = state.phase[row]
        if phase == SWAPPING:
            swap_card(row, actions[row], state)
        elif phase == PLAYING and play_card(row, actions[row], config, state, rewards):
            dealt[count] = row
            count += 1
    return count


@kernel
def swap_card(row, action, state):
    """``keep``, or discard a card face up and draw the top of the stock.
    Each seat decides once, from the dealer's left; then the play opens,
    led by the same seat."""
    seat = state.current[row]
    if action != KEEP:
        card = action - SWAP0
        state.hands[row, seat, card] = 0
        state.discards[row, card] = 1
        state.hands[row, seat, state.stock[row, state.stock_top[row]]] = 1
        state.stock_top[row] += 1
    state.turns[row] += 1
    if state.turns[row] == NUM_PLAYERS:
        state.phase[row] = PLAYING
        state.turns[row] = 0
        state.current[row] = (state.dealer[row] + 1) % NUM_PLAYERS
    else:
        state.current[row] = 1 - seat
    refresh_legal(row, state)


@kernel
def play_card(row, action, config, state, rewards):
    """Play one card; the second card ends the trick and the hand.  Returns
    True if the hand ended and the game goes on (a game that is over is
    ended here: nobody acts, nothing is legal)."""
    seat = state.current[row]
    card = action - PLAY0
    state.hands[row, seat, card] = 0
    state.table[row, state.turns[row]] = card
    state.turns[row] += 1
    if state.turns[row] < NUM_PLAYERS:
        state.current[row] = 1 - seat
        refresh_legal(row, state)
        return False
    if not end_hand(row, seat, config, state, rewards):
        return True
    state.done[row] = True
    state.phase[row] = DONE
    state.current[row] = -1
    state.legal[row, :] = False
    return False


@kernel
def end_hand(row, follower, config, state, rewards):
    """Score the trick of game ``row``: the follower wins with a higher card
    of the suit led, else the leader wins.  Returns True if that was the
    game's last hand (then win/loss rewards are paid)."""
    led, answer = state.table[row, 0], state.table[row, 1]
    beats = SUIT[answer] == SUIT[led] and RANK[answer] > RANK[led]
    winner = follower if beats else 1 - follower
    state.scores[row, winner] += 1
    if config.score_delta:  # (each seat is paid its score's change)
        rewards[row, winner] += 1.0
    state.hand_number[row] += 1
    if state.hand_number[row] < config.hands:
        return False
    lead = state.scores[row, 0] - state.scores[row, 1]  # win/loss: more hands won wins; a tie pays 0
    if not config.score_delta and lead != 0:
        rewards[row, 0] += 1.0 if lead > 0 else -1.0
        rewards[row, 1] -= 1.0 if lead > 0 else -1.0
    return True
