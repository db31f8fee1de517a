"""Pepper's compiled deal kernel (:mod:`cardenvs.core.jit`): a hand dealt
from a given deck order, its state started afresh and its auction opened.

No kernel draws a random number: the rules shuffle the deck orders with the
batch's numpy generator (or take the fixed decks of ``reset``) and pass them in.
"""

from __future__ import annotations

from ...core.jit import kernel
from .legal import bid_mask, clockwise, may_pass
from .observation import SCORE, SEAT_PLANES
from .tables import BIDDING, NO_BID, NUM_TYPES, unpack_config, unpack_table


@kernel
def open_hands(rows, orders, config, arrays):
    """Deal deck ``orders[i]`` (card types, top first) in game ``rows[i]`` and
    open its auction (``config``, ``arrays``: the rules'
    :class:`~cardenvs.games.pepper.tables.Config` and the state's
    :class:`~cardenvs.games.pepper.tables.Table` as packs).

    Deck position k goes to slot ``cfg.slot_of_position[k]``: slot j < n is
    the seat j + 1 places left of the dealer; every other card (the dead hand
    at 2 players) goes to ``s.dead``.  The hand's state starts afresh (the
    public planes hold only the game scores), and the player left of the
    dealer bids first.
    """
    cfg, s = unpack_config(config), unpack_table(arrays)
    num_players, slot_of_position = cfg.num_players, cfg.slot_of_position
    hands, dead, public, history = s.hands, s.dead, s.public, s.history  # (locals: see apply's module doc)
    for i in range(rows.shape[0]):
        row = rows[i]
        for seat in range(num_players):
            for card in range(NUM_TYPES):
                hands[row, seat, card] = 0
            for plane in range(SEAT_PLANES):
                public[row, seat, plane] = 0
            public[row, seat, SCORE] = s.scores[row, cfg.side_of_seat[seat]]
            s.passed[row, seat] = False
            s.trick[row, seat] = -1
        for card in range(NUM_TYPES):
            dead[row, card] = 0
        dealer = s.dealer[row]
        for k in range(orders.shape[1]):
            slot = slot_of_position[k]
            if 0 <= slot < num_players:
                hands[row, clockwise(dealer, 1 + slot, num_players), orders[i, k]] += 1
            else:
                dead[row, orders[i, k]] += 1
        for k in range(history.shape[1]):
            for seat in range(num_players):
                history[row, k, seat] = -1
            s.trick_leaders[row, k] = 0
            s.trick_winners[row, k] = -1
        s.phase[row] = BIDDING
        s.high_bid[row] = NO_BID
        s.bidder[row] = -1
        s.trump[row] = -1
        s.in_trick[row] = 0
        s.trick_no[row] = 0
        first = clockwise(dealer, 1, num_players)
        s.current[row] = first
        bid_mask(s.legal, row, NO_BID, may_pass(cfg.stick_dealer, NO_BID, first, dealer), cfg.bid_allowed)
