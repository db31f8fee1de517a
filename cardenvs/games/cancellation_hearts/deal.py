"""Cancellation Hearts: dealing a hand and opening its first phase (compiled kernels).

Deal one card at a time clockwise from the dealer's left, floor(104 / n)
each; the cards left over are the widow, face down until the first trick
won.  Hand 1 passes to the left, hand 2 to the right, and so on (or nobody
passes, with ``passing="none"``: play starts at once).  The deck orders
come from the rules (the only random draws).
"""

from __future__ import annotations

from ...core.cards import deal_round_robin
from ...core.jit import kernel
from . import observation as ob
from .legal import refresh_legal
from .tables import (
    LEFT,
    MIN_SEATS,
    NO_PASS,
    PASSING,
    PLAYING,
    RIGHT,
    WIDOW_NOBODY,
    WIDOW_WAITING,
    Arrays,
    Config,
)


@kernel
def deal_hands(rows, orders, config_values, state_arrays):
    """Deal deck ``orders[i]`` (card types, top first) in game ``rows[i]``
    (its dealer already set) and open the hand: the last hand cleared, the
    player left of the dealer to pass first (or to lead), the public block
    and the legal mask written."""
    config, state = Config(*config_values), Arrays(*state_arrays)  # (see tables.Arrays)
    dealt = config.num_players * config.hand_size
    for i in range(rows.shape[0]):
        row = rows[i]
        deal_round_robin(state.hands, row, orders[i], dealt, state.dealer[row])
        state.widow[row] = 0
        for k in range(dealt, orders.shape[1]):
            state.widow[row, orders[i, k]] += 1
        clear_hand(row, config.widow_size, state)
        leader = (state.dealer[row] + 1) % config.num_players  # leads the first trick ...
        state.leader[row] = leader
        state.current[row] = leader  # ... and passes first
        if not config.passing:
            direction = NO_PASS
        else:  # hand 1 (hand_number 0) to the left, hand 2 to the right, and so on
            direction = LEFT if state.hand_number[row] % 2 == 0 else RIGHT
        state.pass_dir[row] = direction
        phase = PLAYING if direction == NO_PASS else PASSING
        state.phase[row] = phase
        public = state.public[row]
        public[:] = 0
        public[ob.WIDOW_WAITING] = config.widow_size > 0
        public[ob.PHASE + phase] = 1
        public[ob.PASS_DIR + direction] = 1
        public[ob.NUM_PLAYERS + config.num_players - MIN_SEATS] = 1
        refresh_legal(row, state)


@kernel
def clear_hand(row, widow_size, state):
    """Forget the last hand of game ``row``: nothing passed, no trick, no
    pile, nothing taken, no points; the widow waits (if there is one)."""
    state.widow_holder[row] = WIDOW_WAITING if widow_size else WIDOW_NOBODY
    state.pass_chosen[row] = 0
    state.pass_count[row] = 0
    state.trick[row] = -1
    state.trick_slot[row] = 0
    state.in_trick[row] = 0
    state.trick_no[row] = 0
    state.pile[row] = 0
    state.pile_points[row] = 0
    state.taken[row] = 0
    state.uncollected[row] = 0
    state.points[row] = 0
    state.seen_points[row] = 0
    state.hearts_broken[row] = False
    state.moon_seat[row] = -1
    state.private[row] = 0
