"""High Card: applying actions (compiled kernels), one function per phase.

Each kernel applies one legal action to every game of ``rows`` (the action
of ``rows[i]`` is ``actions[i]``) and rewrites the games' legal masks.  A
hand that ends is reported to the rules, which end the game or deal the
next hand (dealing draws random numbers, which kernels never do).
"""

from __future__ import annotations

from cardenvs.core.jit import kernel

from .legal import refresh_legal
from .tables import KEEP, NUM_PLAYERS, PLAY0, PLAYING, RANK, SUIT, SWAP0, Arrays, Config


@kernel
def swap_cards(rows, actions, arrays):
    """``keep``, or discard a card face up and draw the top of the stock.
    Each seat decides once, from the dealer's left; then the play opens,
    led by the same seat."""
    state = Arrays(*arrays)
    for i in range(rows.shape[0]):
        row = rows[i]
        seat = state.current[row]
        if actions[i] != KEEP:
            card = actions[i] - SWAP0
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
def play_cards(rows, actions, config_values, arrays, rewards, ended):
    """Play one card in each game; the second card ends the trick and the
    hand.  Returns how many hands ended: their rows are ``ended[0, :count]``
    (in ``rows`` order), ``ended[1, :count]`` 1 where that ended the game."""
    config, state = Config(*config_values), Arrays(*arrays)
    count = 0
    for i in range(rows.shape[0]):
        row = rows[i]
        seat = state.current[row]
        card = actions[i] - PLAY0
        state.hands[row, seat, card] = 0
        state.table[row, state.turns[row]] = card
        state.turns[row] += 1
        if state.turns[row] < NUM_PLAYERS:
            state.current[row] = 1 - seat
            refresh_legal(row, state)
            continue
        ended[0, count] = row
        ended[1, count] = end_hand(row, seat, config, state, rewards)
        count += 1
    return count


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
    lead = state.scores[row, 0] - state.scores[row, 1]  # win/loss: more tricks wins; a tie pays 0
    if not config.score_delta and lead != 0:
        rewards[row, 0] += 1.0 if lead > 0 else -1.0
        rewards[row, 1] -= 1.0 if lead > 0 else -1.0
    return True
