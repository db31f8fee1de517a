"""Cards, decks and dealing, shared by every game.

A *card* is identified globally by ``suit * 13 + rank`` with ranks
``2 3 4 5 6 7 8 9 T J Q K A`` (0..12) and suits ``C D H S`` (0..3); the joker
is id 52.  A game plays with a :class:`DeckSpec`: the list of distinct card
*types* it uses (its local ids ``0..num_types-1``) and how many copies of each
exist.  Hands are stored as counts per type, shape ``(batch, seats, types)``,
which handles two-deck games (identical cards are interchangeable) and
one-deck games alike.

Deals are batched: a deck order is an int array ``(batch, num_cards)`` of
local type ids, top card first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .jit import kernel

RANKS = "23456789TJQKA"
SUITS = "CDHS"
JOKER = 52
JOKER_TEXT = "JK"


def card_text(card_id: int) -> str:
    """Global card id -> text, e.g. ``47 -> "TS"`` (spades are suit 3, ten is rank 8)."""
    if card_id == JOKER:
        return JOKER_TEXT
    if not 0 <= card_id < 52:
        raise ValueError(f"card id {card_id} out of range 0..52")
    return RANKS[card_id % 13] + SUITS[card_id // 13]


def card_id(text: str) -> int:
    """Card text -> global card id; raises ValueError for unknown text."""
    if text == JOKER_TEXT:
        return JOKER
    if not isinstance(text, str) or len(text) != 2 or text[0] not in RANKS or text[1] not in SUITS:
        raise ValueError(f"unknown card {text!r}: expected rank {RANKS!r} + suit {SUITS!r}, or 'JK'")
    return SUITS.index(text[1]) * 13 + RANKS.index(text[0])


@dataclass(frozen=True)
class DeckSpec:
    """The cards a game plays with.

    ``cards``: global ids of the distinct card types, in local-id order.
    ``copies``: how many of each type are in the deck.
    """

    cards: tuple[int, ...]
    copies: tuple[int, ...]
    texts: tuple[str, ...] = field(init=False)
    num_types: int = field(init=False)
    num_cards: int = field(init=False)
    # Per local type: rank index 0..12 (-1 joker), suit index 0..3 (-1 joker).
    rank: np.ndarray = field(init=False, repr=False, compare=False)
    suit: np.ndarray = field(init=False, repr=False, compare=False)
    # The full deck as local type ids, each type repeated ``copies`` times.
    multiset: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        cards = tuple(int(c) for c in self.cards)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "copies", tuple(int(c) for c in self.copies))
        object.__setattr__(self, "texts", tuple(card_text(c) for c in cards))
        object.__setattr__(self, "num_types", len(cards))
        object.__setattr__(self, "num_cards", int(sum(self.copies)))
        ids = np.array(cards)
        object.__setattr__(self, "rank", np.where(ids == JOKER, -1, ids % 13).astype(np.int8))
        object.__setattr__(self, "suit", np.where(ids == JOKER, -1, ids // 13).astype(np.int8))
        object.__setattr__(self, "multiset", np.repeat(np.arange(len(cards)), self.copies).astype(np.int16))
        object.__setattr__(self, "_index", {t: i for i, t in enumerate(self.texts)})

    def type_of(self, text: str) -> int:
        """Card text -> local type id of this deck; ValueError if not in it."""
        try:
            return self._index[text]
        except (KeyError, TypeError):
            card_id(text) if isinstance(text, str) else None  # a clearer message for malformed text
            raise ValueError(f"card {text!r} is not in this game's deck") from None

    def parse_order(self, texts: Sequence[str]) -> np.ndarray:
        """A deck order given as card texts (top first) -> local ids.

        Raises ValueError unless it is exactly this deck: every card the right
        number of times, nothing unknown, nothing missing.
        """
        if isinstance(texts, (str, bytes)) or not isinstance(texts, Iterable):
            raise ValueError("a deck must be a list of card texts, top card first")
        texts = list(texts)
        ids = np.array([self.type_of(t) for t in texts], dtype=np.int16)
        counts = np.bincount(ids, minlength=self.num_types) if ids.size else np.zeros(self.num_types, int)
        if len(texts) != self.num_cards or not np.array_equal(counts, self.copies):
            wrong = [
                f"{self.texts[i]} x{counts[i]} (want {self.copies[i]})"
                for i in np.flatnonzero(counts != np.array(self.copies))
            ]
            raise ValueError(
                f"malformed deck: {len(texts)} cards, want {self.num_cards}; wrong counts: {', '.join(wrong[:8])}"
            )
        return ids

    def texts_of(self, ids: Iterable[int]) -> list[str]:
        return [self.texts[int(i)] for i in ids]

    def counts_to_texts(self, counts: np.ndarray) -> list[str]:
        """A count vector over types -> sorted list of card texts (with repeats)."""
        return [self.texts[t] for t in np.repeat(np.arange(self.num_types), counts)]


def standard_deck(ranks: str = RANKS, copies: int = 1, jokers: int = 0) -> DeckSpec:
    """A deck of the given ranks in every suit (suit-major order), ``copies`` of
    each, plus ``jokers`` jokers."""
    cards = [s * 13 + RANKS.index(r) for s in range(4) for r in ranks]
    cps = [copies] * len(cards)
    if jokers:
        cards.append(JOKER)
        cps.append(jokers)
    return DeckSpec(tuple(cards), tuple(cps))


def deck_keys(deck: DeckSpec, rng: np.random.Generator, n: int) -> np.ndarray:
    """The draw behind ``n`` shuffles of the deck: a random key per card,
    ``(n, num_cards)`` -- all a shuffle takes from the generator, so the
    keys can be drawn in one thread and the decks made in others
    (:func:`orders_from_keys`, row by row)."""
    return rng.random((n, deck.num_cards))


def orders_from_keys(deck: DeckSpec, keys: np.ndarray) -> np.ndarray:
    """The shuffles that ``keys`` (:func:`deck_keys`) stand for: each row's
    cards in the order of its keys, ``(n, num_cards)`` local ids."""
    if len(keys) == 1:  # one game's deal (a batch of one's): the same sort, without 2-D fancy indexing's cost
        return deck.multiset[keys[0].argsort()][None]
    return deck.multiset[np.argsort(keys, axis=1)]


def deal_slots(num_cards: int, num_slots: int, per_slot: int) -> np.ndarray:
    """Slot receiving each deck position when dealing one card at a time.

    Position k (top first) goes to slot ``k % num_slots`` for the first
    ``num_slots * per_slot`` cards; the rest get -1 (they stay in the deck:
    stock, widow, ...).  Slot 0 is the player to the dealer's left.
    """
    k = np.arange(num_cards)
    return np.where(k < num_slots * per_slot, k % num_slots, -1)


@kernel
def deal_round_robin(hands, row, order, count, dealer):
    """Deal the first ``count`` cards of ``order`` (card types, top first) into
    ``hands[row]`` (seats x types, emptied first) one card at a time
    clockwise from ``dealer``'s left.  (Compiled, for a game's deal kernel;
    a game with a dead hand dealt between the seats maps deck positions with
    :func:`deal_slots` instead.)"""
    hands[row] = 0
    n = hands.shape[1]
    seat = dealer
    for k in range(count):
        seat = seat + 1 if seat + 1 < n else 0
        hands[row, seat, order[k]] += 1


def holdings(owner: np.ndarray, types: np.ndarray, num_owners: int, num_types: int) -> np.ndarray:
    """Count cards per (row, owner, type).

    ``owner`` and ``types`` are ``(rows, cards)``; cards with owner < 0 are
    skipped.  Returns ``(rows, num_owners, num_types)`` int8 counts.
    """
    rows = owner.shape[0]
    keep = owner >= 0
    flat = ((np.arange(rows)[:, None] * num_owners + owner) * num_types + types)[keep]
    counts = np.bincount(flat, minlength=rows * num_owners * num_types)
    return counts.reshape(rows, num_owners, num_types).astype(np.int8)
