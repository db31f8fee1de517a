"""Cancellation Hearts: dealing a hand and opening its first phase (compiled kernels).

Deal one card at a time clockwise from the dealer's left, floor(104 / n)
each; the cards left over are the widow, face down until the first trick
won.  Hand 1 passes to the left, hand 2 to the right, and so on (or nobody
passes, with ``passing="none"``: play starts at once).
"""

from __future__ import annotations

from ..core.cards import deal_round_robin
from ..core.jit import kernel
from . import observation as ob
from .legal import refresh_legal
from .tables import LEFT, MIN_SEATS, NO_PASS, PASSING, PLAYING, RIGHT, WIDOW_NOBODY, WIDOW_WAITING


@kernel
def deal_hands(rows, orders, cfg, arrays):
    """Deal deck ``orders[i]`` (card types, top first) in game ``rows[i]``
    (its dealer already set) and open the hand: everything of the last hand
    cleared, the player left of the dealer to pass first (or to lead), the
    public block and the legal mask written."""
    for i in range(rows.shape[0]):
        row = rows[i]
        dealt = cfg.num_players * cfg.hand_size
        deal_round_robin(arrays.hands, row, orders[i], dealt, arrays.dealer[row])
        arrays.widow[row] = 0
        for k in range(dealt, orders.shape[1]):
            arrays.widow[row, orders[i, k]] += 1
        clear_hand(row, cfg, arrays)
        leader = (arrays.dealer[row] + 1) % cfg.num_players  # leads the first trick ...
        arrays.leader[row] = leader
        arrays.current[row] = leader  # ... and passes first
        if not cfg.passing:
            direction = NO_PASS
        else:  # hand 1 (hand_number 0) to the left, hand 2 to the right, and so on
            direction = LEFT if arrays.hand_number[row] % 2 == 0 else RIGHT
        arrays.pass_dir[row] = direction
        phase = PLAYING if direction == NO_PASS else PASSING
        arrays.phase[row] = phase
        public = arrays.public[row]
        public[:] = 0
        public[ob.WIDOW_WAITING] = cfg.widow_size > 0
        public[ob.PHASE + phase] = 1
        public[ob.PASS_DIR + direction] = 1
        public[ob.NUM_PLAYERS + cfg.num_players - MIN_SEATS] = 1
        refresh_legal(row, arrays)


@kernel
def clear_hand(row, cfg, arrays):
    """Forget the last hand of game ``row``: nothing passed, no trick, no
    pile, nothing taken, no points; the widow waits (if there is one)."""
    arrays.widow_holder[row] = WIDOW_WAITING if cfg.widow_size else WIDOW_NOBODY
    arrays.pass_chosen[row] = 0
    arrays.pass_count[row] = 0
    arrays.trick[row] = -1
    arrays.trick_slot[row] = 0
    arrays.in_trick[row] = 0
    arrays.trick_no[row] = 0
    arrays.pile[row] = 0
    arrays.pile_points[row] = 0
    arrays.taken[row] = 0
    arrays.uncollected[row] = 0
    arrays.points[row] = 0
    arrays.seen_points[row] = 0
    arrays.hearts_broken[row] = False
    arrays.moon_seat[row] = -1
    arrays.private[row] = 0
