"""High Card: the batched rules class (every rule of ``docs/high_card.md``).

State is a :class:`~cardenvs.core.game.BatchState` of arrays with one row per
game (:class:`~.tables.Arrays` lists them); :class:`HighCardRules` holds the
configuration, deals (the only random draws) and hands a step's actions to
one compiled kernel (:mod:`.apply`).  The PettingZoo env (:mod:`.env`)
and the vector engine (:mod:`cardenvs.vector`) are both views over this
class: neither computes a rule.

A hand: deal (3 cards each, 10 in the stock), swapping (each seat keeps or
swaps one card once), one trick (follow suit if able; the higher card of
the suit led wins).  A game is ``hands`` hands; more tricks wins.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardenvs.core.game import BatchState, TurnBasedRules, choice, positive_int

from . import observation as ob
from .apply import step_games
from .deal import deal_hands
from .tables import (
    ACTIONS,
    DECK,
    DONE,
    MAX_HANDS,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_PLAYERS,
    PHASE_NAMES,
    STOCK_SIZE,
    ArrayValues,
    Config,
)


class HighCardRules(TurnBasedRules):
    """Batched High Card rules for one configuration.

    Config: ``hands`` (3), ``reward`` ``"win_loss"``/``"score_delta"``.  Every
    option is a keyword argument with its default: the envs, the vector
    engine and the docs' config table read them from this signature."""

    name = "high_card_v0"
    title = "High Card"
    num_players = NUM_PLAYERS
    deck = DECK
    actions = ACTIONS
    num_actions = NUM_ACTIONS
    obs_size = ob.OBS_SIZE
    obs_low, obs_high = ob.OBS_LOW, ob.OBS_HIGH
    obs_dtype = ob.OBS_DTYPE
    hidden_places = ("stock",)  # face down: seen by nobody (each hand by its seat alone)

    def __init__(self, hands: int = 3, reward: str = "win_loss"):
        self.hands = positive_int("hands", hands, maximum=MAX_HANDS)
        self.reward = choice("reward", reward, ("win_loss", "score_delta"))
        self.config_values = tuple(Config(hands=self.hands, score_delta=self.reward == "score_delta"))
        # win/loss pays +1 and -1 (or nothing): zero-sum, and saying so lets the kit check it at every step
        self.zero_sum = self.reward == "win_loss"

    # ------------------------------------------------------------------ state
    def new_state(self, batch: int, rng: np.random.Generator) -> BatchState:
        """A state of ``batch`` games: the common fields and the arrays of
        :class:`~.tables.Arrays` (their meaning is documented there)."""
        state = self.common_state(batch, rng, NUM_PLAYERS)
        state.phase[:] = DONE
        state.hands = np.zeros((batch, NUM_PLAYERS, NUM_CARDS), np.int8)
        state.stock = np.zeros((batch, STOCK_SIZE), np.int64)
        state.stock_top = np.zeros(batch, np.int64)
        state.discards = np.zeros((batch, NUM_CARDS), np.int8)
        state.table = np.full((batch, NUM_PLAYERS), -1, np.int64)
        state.turns = np.zeros(batch, np.int64)
        return state

    def start_game(self, state: BatchState, rows: np.ndarray) -> None:
        self._deal(state, rows)

    def _deal(self, state: BatchState, rows: np.ndarray, keys: np.ndarray | None = None) -> None:
        """Deal a new hand in ``rows`` (dealer already set): the deck orders
        are the only draw (:meth:`deck_orders`: a shuffle, or the fixed decks
        of ``reset(options={"decks": ...})``)."""
        deal_hands(rows, self.deck_orders(state, rows, keys), state.bundle(ArrayValues))

    # ------------------------------------------------------------------ step
    def advance(self, state: BatchState, actions: np.ndarray, rewards: np.ndarray) -> list[np.ndarray]:
        """Every game that is on, in one compiled call (:func:`~.apply.step_games`:
        each row by its phase, games that are over ended there).  The rows
        whose hand ended are returned, and the core deals their next hand
        (:meth:`deal_next`)."""
        dealt = np.empty(state.batch, np.int64)
        count = step_games(actions, self.config_values, state.bundle(ArrayValues), rewards, dealt)
        return [dealt[:count]]

    # ------------------------------------------------------------ observation
    def observe(self, state: BatchState, seats: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        return ob.encode(state, self.hands, seats, rows)

    def seat_scores(self, state: BatchState) -> np.ndarray:
        return state.scores.copy()

    def hidden_deals(self, deck: list[str]) -> tuple[list[str], list[str]]:
        """Two decks (card texts, top first) differing only in cards the
        first seat to act cannot see, dealt by seat 0: its first card traded
        with the stock's bottom one (the conformance kit's ``hidden_cards``
        check: with one opponent it cannot trade cards between two)."""
        other = list(deck)
        other[1], other[-1] = other[-1], other[1]
        return list(deck), other

    # ------------------------------------------------------------ state_dict / render
    def state_dict(self, state: BatchState, row: int = 0) -> dict[str, Any]:
        """The whole game as plain data (the public contract every test and
        tool reads): every card is in exactly one place."""
        texts = DECK.counts_to_texts
        played = [int(card) for card in state.table[row] if card >= 0]
        leader = (int(state.dealer[row]) + 1) % NUM_PLAYERS
        return {
            **self.state_head(state, row, NUM_PLAYERS, PHASE_NAMES, state.scores[row]),
            "hands": [texts(state.hands[row, s]) for s in range(NUM_PLAYERS)],
            "stock": [DECK.texts[card] for card in state.stock[row, state.stock_top[row] :]],  # top first
            "discards": texts(state.discards[row]),
            "trick": [{"seat": (leader + k) % NUM_PLAYERS, "card": DECK.texts[c]} for k, c in enumerate(played)],
            "winners": self.winners(state, row),
        }

    def render_lines(self, d: dict[str, Any]) -> list[str]:
        lines = [f"phase {d['phase']}, dealer player_{d['dealer']}, stock {len(d['stock'])} cards"]
        for s in range(NUM_PLAYERS):
            lines.append(self.seat_line(d, s, " ".join(d["hands"][s]) or "-"))
        if d["discards"]:
            lines.append("discards: " + " ".join(d["discards"]))
        if d["trick"]:
            lines.append("trick: " + ", ".join(f"player_{p['seat']} {p['card']}" for p in d["trick"]))
        return lines
