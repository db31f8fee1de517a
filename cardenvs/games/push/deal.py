"""Push: dealing a round (compiled kernels): the hands, the upcard and the
stock from a deck order drawn by the rules (numpy: kernels draw no random
numbers), an empty table, and the first turn's state (the player left of the
dealer draws first)."""

from __future__ import annotations

from ...core.cards import deal_round_robin
from ...core.jit import kernel
from .tables import DRAW, IS_WILD, NO_MELD, Cards, MeldBlocks, Table, Turn


@kernel
def deal_rows(rows, orders, per_seat, cards, table, blocks, turn, buried):
    """Deal game ``rows[i]`` from the deck order ``orders[i]`` (top first),
    ``per_seat[i]`` cards each (:func:`deal_cards`), with an empty table
    and a new turn; ``buried[b]``: how many wilds were turned up and put
    under the stock.  (The bundles come as plain tuples: see ``tables.plain``.)"""
    cards, table, blocks, turn = Cards(*cards), Table(*table), MeldBlocks(*blocks), Turn(*turn)
    for i in range(rows.shape[0]):
        b = rows[i]
        buried[b] = deal_cards(b, orders[i], per_seat[i], turn.dealer[b], cards)
        clear_table(b, table, blocks)
        first_turn(b, turn)


@kernel
def deal_cards(b, order, per_seat, dealer, cards):
    """``per_seat`` cards to each seat, one at a time clockwise from the
    dealer's left; the upcard is the first natural after the deal, the wilds
    turned before it go (in turn order) to the bottom of the stock, which
    holds the rest in order.  Returns how many wilds were buried (every
    seat saw them: the bottom of the stock is known)."""
    num_cards = order.shape[0]
    start = 4 * per_seat
    deal_round_robin(cards.hands, b, order, start, dealer)
    cards.held[b, :] = per_seat
    first = start  # the upcard: the first natural after the deal
    while first < num_cards and IS_WILD[order[first]]:
        first += 1
    if first == num_cards:  # (no natural left: cannot happen with 12 wilds in 108 cards)
        first = 0
    upcard = order[first]
    cards.pile[b, :] = 0
    cards.pile[b, 0] = upcard
    cards.pile_size[b] = 1
    cards.pile_counts[b, :] = 0
    cards.pile_counts[b, upcard] = 1
    size = num_cards - start  # cards left after the deal, the upcard among them
    for j in range(num_cards):  # the stock: the cards after the upcard, then the buried wilds
        source = start + (first - start + 1 + j) % size
        cards.stock[b, j] = order[min(source, num_cards - 1)] if j < size - 1 else 0
    cards.stock_top[b] = 0
    cards.stock_size[b] = size - 1
    return max(first - start, 0)


@kernel
def clear_table(b, table, blocks):
    """No melds on the table of game ``b`` (and empty observation blocks:
    stamp 0 marks an empty slot)."""
    table.n_melds[b] = 0
    table.meld_kind[b, :] = 0
    table.meld_owner[b, :] = 0
    table.meld_rank[b, :] = 0
    table.meld_suit[b, :] = 0
    table.meld_lo[b, :] = 0
    table.meld_hi[b, :] = 0
    table.meld_pos[b, :, :] = -1
    table.meld_counts[b, :, :] = 0
    table.meld_len[b, :] = 0
    blocks.meld_obs[b, :, :] = 0
    blocks.meld_stamp[b, :] = 0


@kernel
def first_turn(b, turn):
    """The round's first turn: nothing pending, no contract laid, the player
    left of the dealer to draw."""
    turn.pend[b] = NO_MELD
    turn.pend_next[b] = 0
    turn.pend_nat[b] = False
    turn.in_contract[b] = False
    turn.contract_idx[b] = 0
    turn.contract_done[b, :] = False
    turn.owed[b] = -1
    turn.turns[b] = 0
    turn.phase[b] = DRAW
    turn.current[b] = (turn.dealer[b] + 1) % 4
