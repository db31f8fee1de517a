"""Pepper's rules class (every rule of ``docs/pepper.md``): the
config, the state's arrays, a step dispatched to the compiled kernels by
phase, and the state as a dict and as text.

State is a :class:`~cardenvs.core.game.BatchState` of arrays with one row per
game; :class:`PepperRules` holds the configuration and applies the rules to
all rows at once, the per-row work in the kernels of :mod:`.deal`,
:mod:`.apply` and :mod:`.scoring` (tables, action ids and phases in
:mod:`.tables`).  The PettingZoo env (:mod:`cardenvs.games.pepper.env`) and the
vector engine (:mod:`cardenvs.vector`) are both views over this class.
The action and observation tables are in docs/pepper.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.cards import deal_slots
from ...core.game import BatchState, TurnBasedRules, choice, positive_int
from ...core.jit import entry, pack
from ...core.onegame import OneGame, step_call
from . import apply, deal, observation
from .observation import BID, SEAT_PLANES, TRICKS
from .tables import (
    ACTIONS,
    BID_BIG,
    BID_LITTLE,
    CALL_WORDS,
    CONFIG_KINDS,
    DECK,
    DONE,
    NO_TRUMP,
    NUM_ACTIONS,
    NUM_CALLS,
    NUM_TYPES,
    PHASE_NAMES,
    PLAYING,
    SUITS,
    Config,
    TablePack,
)

# What the batched step passes for "no observation" (see apply.step_games), and the row of a batch of one.
_NO_SEEN = np.zeros((0, observation.OBS_SIZE), observation.OBS_DTYPE)
_NO_MASK = np.zeros((0, NUM_ACTIONS), np.int8)
_ROW_0 = np.zeros(1, np.int64)


class PepperRules(TurnBasedRules):
    """Batched Pepper rules for one configuration.

    Config (defaults from the rules file): ``num_players`` 2/3/4 (4),
    ``target_score`` (30), ``max_hands`` (50; None = play to the target
    however long it takes: random play drifts negative and almost never
    reaches 30, so a bound keeps every episode finite),
    ``reward`` ``"win_loss"``/``"score_delta"``, ``all_pass``
    ``"stick_dealer"``/``"redeal"``.
    """

    name = "pepper_v0"
    title = "Pepper"
    deck = DECK
    actions = ACTIONS
    num_actions = NUM_ACTIONS
    obs_size = observation.OBS_SIZE
    obs_low, obs_high = observation.OBS_LOW, observation.OBS_HIGH
    obs_dtype = observation.OBS_DTYPE

    def __init__(
        self,
        num_players: int = 4,
        target_score: int = 30,
        max_hands: int | None = 50,
        reward: str = "win_loss",
        all_pass: str = "stick_dealer",
    ):
        self.num_players = choice("num_players", num_players, (2, 3, 4))
        self.target_score = positive_int("target_score", target_score)
        self.max_hands = positive_int("max_hands", max_hands, allow_none=True)
        self.reward = choice("reward", reward, ("win_loss", "score_delta"))
        self.all_pass = choice("all_pass", all_pass, ("stick_dealer", "redeal"))
        num_players = self.num_players
        self.partnerships = num_players == 4
        self.side_of_seat = np.arange(num_players) % 2 if self.partnerships else np.arange(num_players)
        self.num_sides = 2 if self.partnerships else num_players
        self.hand_size = 6 if num_players == 4 else 8
        self.num_tricks = self.hand_size
        # Slots dealt round-robin: the players from the dealer's left, then (2p) the dead hand.
        self.num_slots = 3 if num_players == 2 else num_players
        # The bidding ladder: 4 players bid 1-5 and the peppers; 2-3 players 1-7 and the peppers.
        bid_allowed = np.zeros(NUM_ACTIONS, bool)
        bid_allowed[1 : 6 if num_players == 4 else 8] = True
        bid_allowed[[BID_LITTLE, BID_BIG]] = True
        self.config = Config(
            num_players=num_players,
            num_sides=self.num_sides,
            side_of_seat=self.side_of_seat,
            num_tricks=self.num_tricks,
            slot_of_position=deal_slots(DECK.num_cards, self.num_slots, self.hand_size),
            bid_allowed=bid_allowed,
            stick_dealer=self.all_pass == "stick_dealer",
            fail_penalty=6 if num_players == 4 else 8,
            big_pepper=12 if num_players == 4 else 16,
            target_score=self.target_score,
            max_hands=0 if self.max_hands is None else self.max_hands,
            score_delta=self.reward == "score_delta",
        )
        self.make_packs()

    pack_names = ("config_pack",)

    def make_packs(self) -> None:
        # the Config as the kernels take it (see tables.Config)
        self.config_pack = pack(tuple(self.config), CONFIG_KINDS)

    # ------------------------------------------------------------------ state
    def new_state(self, batch: int, rng: np.random.Generator) -> BatchState:
        num_players, num_tricks = self.num_players, self.num_tricks
        state = self.common_state(batch, rng, self.num_sides)
        state.phase[:] = DONE
        state.hands = np.zeros((batch, num_players, NUM_TYPES), np.int8)
        state.dead = np.zeros((batch, NUM_TYPES), np.int8)  # 2 players: the dead hand
        state.high_bid = np.zeros(batch, np.int64)  # action id of the high bid, 0 = none
        state.bidder = np.full(batch, -1, np.int64)
        state.passed = np.zeros((batch, num_players), bool)
        state.trump = np.full(batch, -1, np.int64)  # 0..3 suit, 4 no-trump, -1 not chosen
        state.trick = np.full((batch, num_players), -1, np.int64)  # card each seat played to the current trick
        state.leader = np.zeros(batch, np.int64)
        state.in_trick = np.zeros(batch, np.int64)  # cards played to the current trick
        state.trick_no = np.zeros(batch, np.int64)  # tricks completed this hand
        # What everyone can see of each seat (table card, cards played, bid,
        # tricks, score), kept up to date by the kernels; layout: observation.SEAT.
        state.public = np.zeros((batch, num_players, SEAT_PLANES), np.int16)
        state.history = np.full((batch, num_tricks, num_players), -1, np.int64)  # card each seat played to trick k
        state.trick_leaders = np.zeros((batch, num_tricks), np.int64)
        state.trick_winners = np.full((batch, num_tricks), -1, np.int64)
        return state

    def start_game(self, state: BatchState, rows: np.ndarray) -> None:
        self._deal(state, rows)

    def _deal(self, state: BatchState, rows: np.ndarray, keys: np.ndarray | None = None) -> None:
        """Deal a new hand in ``rows`` (dealer already set) and open the auction."""
        orders = self.deck_orders(state, rows, keys)
        deal.open_hands(rows, orders, self.config_pack, state.bundle(TablePack))

    # ------------------------------------------------------------------ step
    def advance(self, state: BatchState, actions: np.ndarray, rewards: np.ndarray) -> list[np.ndarray]:
        """Step every unfinished game by its phase: one compiled call
        (:func:`~cardenvs.games.pepper.apply.step_games`) groups the rows by phase
        and runs each phase's kernel on its rows (one call, not one per phase:
        at batch 1 each call from Python costs as much as a phase's work).  The hands played out,
        and after them those thrown in (everyone passed: no score), are dealt
        anew (:meth:`~cardenvs.core.game.TurnBasedRules.step`): the generator
        draws in that order, as it always has."""
        dealt = np.empty((2, state.batch), np.int64)
        arrays = state.bundle(TablePack)  # (a row view's own pack: its arrays are slices of the batch's)
        after_plays, after_bids = apply.step_games(
            actions, self.config_pack, arrays, rewards, dealt, _NO_SEEN, _NO_MASK
        )[:2]
        return [dealt[0, :after_plays], dealt[1, :after_bids]]

    def one_game(self) -> OneGame:
        # scratch: the rows of a new deal and the rows grouped by phase (see apply.step_one), then
        # a new hand's shuffle keys and the deck's cards (see apply.deal_keyed)
        keys, cards = np.zeros((1, self.deck.num_cards)), self.deck.multiset.copy()
        return OneGame(self, scratch=(np.zeros((2, 1), np.int64), np.zeros((3, 2), np.int64), keys, cards))

    def step_one(self, state: BatchState, action: int, one: OneGame) -> tuple[bool, bool, int]:
        """:meth:`step` of a batch of one, and the next observation and mask
        in the same call (:func:`~cardenvs.games.pepper.apply.step_one`); a hand
        dealt anew is drawn here, as :meth:`step` draws it, and dealt and
        observed in a second call (:func:`~cardenvs.games.pepper.apply.deal_keyed`,
        which makes the deck from the keys; :func:`~cardenvs.games.pepper.apply.deal_one`
        with fixed decks or per-game streams)."""
        made = state._bundles.get(one)  # (step_call's, without the call)
        step, packs = (
            made if made is not None else step_call(state, one, self.config_pack, TablePack, apply.step_one, "int")
        )
        redeal, observed, scored, seat = step(action, packs)
        if not redeal:
            return observed, scored, seat
        # pass_the_deal's deal: the deck drawn here, then dealt and observed in one call -- the usual
        # deck (no fixed decks, the batch's generator) made in that call from the keys, drawn as
        # deck_orders draws them (random((1, cards))'s doubles)
        keys = None
        if state.streams is None and not state.fixed_decks.shape[1]:
            keys = one.scratch[2]
            state.rng.random(out=keys)
            seat = int(entry(apply.deal_keyed, "pack")(packs))
            if seat != apply.TIED_KEYS:
                state.deals[0] += 1
                return True, scored, seat
        return True, scored, int(apply.deal_one(self.deck_orders(state, _ROW_0, keys), packs))

    # ------------------------------------------------------------ observation
    def observe(self, state: BatchState, seats: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        return observation.encode(self, state, np.asarray(seats, np.int64), rows)

    def observe_into(self, state: BatchState, seats: np.ndarray, out: np.ndarray) -> None:
        if out.dtype != self.obs_dtype:  # (obs_dtype="float32": the kernel writes int16)
            return super().observe_into(state, seats, out)
        observation.encode(self, state, np.asarray(seats, np.int64), None, out)

    def seat_scores(self, state: BatchState) -> np.ndarray:
        return state.scores[:, self.side_of_seat]

    # ------------------------------------------------------------ state_dict / render
    def state_dict(self, state: BatchState, row: int = 0) -> dict[str, Any]:
        num_players, b = self.num_players, row
        trump = int(state.trump[b])

        def trick_cards(cards: np.ndarray, leader: int) -> list[dict]:
            seats = [(leader + i) % num_players for i in range(num_players)]
            return [{"seat": s, "card": DECK.texts[cards[s]]} for s in seats if cards[s] >= 0]

        public = state.public[b]
        calls = public[:, BID : BID + NUM_CALLS]  # one-hot per seat, all zero before it speaks
        done_tricks = int(state.trick_no[b]) if state.phase[b] in (PLAYING, DONE) else 0
        return {
            **self.state_head(
                state, b, num_players, PHASE_NAMES, [state.scores[b, self.side_of_seat[s]] for s in range(num_players)]
            ),
            "hands": [DECK.counts_to_texts(state.hands[b, s]) for s in range(num_players)],
            "dead_hand": DECK.counts_to_texts(state.dead[b]),
            "bid": None
            if state.bidder[b] < 0
            else {"seat": int(state.bidder[b]), "value": CALL_WORDS[state.high_bid[b]]},
            "bids": [CALL_WORDS[calls[s].argmax()] if calls[s].any() else None for s in range(num_players)],
            "passed": [bool(flag) for flag in state.passed[b]],
            "trump": None if trump < 0 else ("none" if trump == NO_TRUMP else SUITS[trump]),
            "tricks_won": [int(tricks) for tricks in public[:, TRICKS]],
            "tricks": [
                {
                    "leader": int(state.trick_leaders[b, k]),
                    "winner": int(state.trick_winners[b, k]),
                    "cards": trick_cards(state.history[b, k], int(state.trick_leaders[b, k])),
                }
                for k in range(done_tricks)
            ],
            "trick": trick_cards(state.trick[b], int(state.leader[b])) if state.phase[b] == PLAYING else [],
            "winners": self.winners(state, b),
        }

    def render_title(self, d: dict[str, Any]) -> str:
        return (
            f"{self.title} ({self.num_players} players) hand {d['hand_number'] + 1}, dealer {d['dealer']}, "
            f"phase {d['phase']}, scores {d['scores']}"
        )

    def render_lines(self, d: dict[str, Any]) -> list[str]:
        lines = []
        if d["bid"]:
            lines.append(f"bid: player_{d['bid']['seat']} {d['bid']['value']}, trump: {d['trump']}")
        for s in range(self.num_players):
            hand = " ".join(d["hands"][s]) or "-"
            lines.append(self.seat_line(d, s, f"{hand}  bid {d['bids'][s] or '-'}  tricks {d['tricks_won'][s]}"))
        if d["trick"]:
            lines.append("trick: " + ", ".join(f"player_{card['seat']} {card['card']}" for card in d["trick"]))
        return lines
