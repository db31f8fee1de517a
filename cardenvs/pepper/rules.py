"""Pepper: the batched rules core (every rule of ``shared/rules/pepper.md``).

State is a :class:`~cardenvs.core.game.BatchState` of arrays with one row per
game; :class:`PepperRules` holds the configuration and applies the rules to
all rows at once, the per-row work in the compiled kernels of
:mod:`cardenvs.pepper.kernels` (which also define the card tables, action
ids and phases, re-exported here).  The PettingZoo env (:mod:`cardenvs.pepper.env`) and the
vector engine (:mod:`cardenvs.vector`) are both views over this class.

Card types (local ids): ``suit * 6 + r`` with suits ``C D H S`` and
``r`` = 0..5 for ``9 T J Q K A``.

Action ids (one fixed ``Discrete(39)`` space for every player count):

=========  =============================================
id         text
=========  =============================================
0          ``"pass"``
1..7       ``"bid 1"`` .. ``"bid 7"`` (6, 7 only at 2-3 players)
8          ``"bid little"`` (Little Pepper)
9          ``"bid big"`` (Big Pepper)
10..13     ``"trump C"`` .. ``"trump S"``
14         ``"trump none"`` (no-trump)
15..38     ``"play 9C"`` .. ``"play AS"`` (15 + card type)
=========  =============================================
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.cards import deal_slots
from ..core.game import BatchState, TurnBasedRules, choice, positive_int
from . import kernels, observation
from .kernels import (  # noqa: F401
    BID_BIG,
    BID_LITTLE,
    BIDDING,
    CHOOSING_TRUMP,
    DECK,
    DONE,
    EFFECTIVE_SUIT,
    NO_TRUMP,
    NUM_ACTIONS,
    NUM_TYPES,
    PASS,
    PLAIN_STRENGTH,
    PLAY0,
    PLAYING,
    TRUMP0,
    TRUMP_NONE,
    TRUMP_STRENGTH,
)
from .observation import BID, SEAT_PLANES, TRICKS

PHASE_NAMES = ("bidding", "choosing_trump", "playing", "done")


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
    deck = DECK
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
        n = self.num_players
        self.partnerships = n == 4
        self.side_of_seat = np.arange(n) % 2 if self.partnerships else np.arange(n)
        self.num_sides = 2 if self.partnerships else n
        self.hand_size = 6 if n == 4 else 8
        self.num_tricks = self.hand_size
        # Slots dealt round-robin: the players from the dealer's left, then (2p) the dead hand.
        self.num_slots = 3 if n == 2 else n
        self.slot_of_position = deal_slots(DECK.num_cards, self.num_slots, self.hand_size)
        # The bidding ladder: 4 players bid 1-5 and the peppers; 2-3 players 1-7 and the peppers.
        self.bid_allowed = np.zeros(NUM_ACTIONS, bool)
        self.bid_allowed[1 : 6 if n == 4 else 8] = True
        self.bid_allowed[[BID_LITTLE, BID_BIG]] = True
        self.fail_penalty = 6 if n == 4 else 8
        self.big_pepper = 12 if n == 4 else 16
        self.stick_dealer = self.all_pass == "stick_dealer"
        self.hand_limit = 0 if self.max_hands is None else self.max_hands  # for the kernels: 0 = no limit

    # ------------------------------------------------------------------ state
    def new_state(self, batch: int, rng: np.random.Generator) -> BatchState:
        n, B = self.num_players, batch
        s = self.common_state(batch, rng, self.num_sides)
        s.phase[:] = DONE
        s.hands = np.zeros((B, n, NUM_TYPES), np.int8)
        s.dead = np.zeros((B, NUM_TYPES), np.int8)  # 2 players: the dead hand
        s.high_bid = np.zeros(B, np.int64)  # action id of the high bid, 0 = none
        s.bidder = np.full(B, -1, np.int64)
        s.passed = np.zeros((B, n), bool)
        s.trump = np.full(B, -1, np.int64)  # 0..3 suit, 4 no-trump, -1 not chosen
        s.trick = np.full((B, n), -1, np.int64)  # card each seat played to the current trick
        s.leader = np.zeros(B, np.int64)
        s.in_trick = np.zeros(B, np.int64)  # cards played to the current trick
        s.trick_no = np.zeros(B, np.int64)  # tricks completed this hand
        # What everyone can see of each seat (table card, cards played, bid,
        # tricks, score), kept up to date by the rules; layout in observation.py.
        s.public = np.zeros((B, n, SEAT_PLANES), np.int16)
        s.history = np.full((B, self.num_tricks, n), -1, np.int64)  # card each seat played to trick k
        s.trick_leaders = np.zeros((B, self.num_tricks), np.int64)
        s.trick_winners = np.full((B, self.num_tricks), -1, np.int64)
        return s

    def start_game(self, state: BatchState, rows: np.ndarray) -> None:
        self._deal(state, rows)

    def _deal(self, state: BatchState, rows: np.ndarray) -> None:
        """Deal a new hand in ``rows`` (dealer already set) and open the auction."""
        kernels.open_hands(
            rows,
            self.deck_orders(state, rows),
            self.slot_of_position,
            self.num_players,
            state.dealer,
            state.scores,
            self.side_of_seat,
            state.hands,
            state.dead,
            state.phase,
            state.current,
            state.high_bid,
            state.bidder,
            state.passed,
            state.trump,
            state.trick,
            state.in_trick,
            state.trick_no,
            state.public,
            state.history,
            state.trick_leaders,
            state.trick_winners,
            self.bid_allowed,
            self.stick_dealer,
            state.legal,
        )

    # ------------------------------------------------------------------ step
    def step(self, state: BatchState, actions: np.ndarray) -> np.ndarray:
        """Step every unfinished game by its phase: the plays, then the bids,
        then the trump choices (so the deals the plays and bids need draw from
        the generator in that order).  One kernel pass groups the rows; each
        handler gets its rows and the whole ``actions`` (one per game)."""
        actions = np.asarray(actions, np.int64)
        rewards = np.zeros((state.batch, self.num_players), np.float32)
        rows = np.empty((3, state.batch + 1), np.int64)
        playing, bidding, choosing = kernels.rows_by_phase(state.done, state.phase, rows)
        if playing:
            self._play(state, rows[0, :playing], actions, rewards)
        if bidding:
            self._bid(state, rows[1, :bidding], actions, rewards)
        if choosing:
            self._choose_trump(state, rows[2, :choosing], actions, rewards)
        return rewards

    def _bid(self, state, rows, actions, rewards) -> None:
        """A pass or a bid per row; hands thrown in (everyone passed) are dealt anew."""
        redeal = np.empty(len(rows), np.int64)
        count = kernels.bid(
            rows,
            actions,
            self.num_players,
            self.target_score,
            self.hand_limit,
            self.reward == "score_delta",
            self.side_of_seat,
            state.current,
            state.passed,
            state.high_bid,
            state.bidder,
            state.public,
            state.phase,
            state.dealer,
            self.bid_allowed,
            self.stick_dealer,
            state.scores,
            state.hand_number,
            state.done,
            state.legal,
            rewards,
            redeal,
        )
        if count:  # the hand is thrown in: no score, the deal passes on
            self.pass_the_deal(state, redeal[:count])

    def _choose_trump(self, state, rows, actions, rewards) -> None:
        kernels.choose_trump(
            rows, actions, state.trump, state.phase, state.bidder, state.leader, state.current, state.hands, state.legal
        )

    def _play(self, state, rows, actions, rewards) -> None:
        """A card per row (tricks resolved, hands scored, games ended); the next hands are dealt."""
        redeal = np.empty(len(rows), np.int64)
        count = kernels.play(
            rows,
            actions,
            self.num_players,
            self.num_tricks,
            self.num_sides,
            self.side_of_seat,
            self.fail_penalty,
            self.big_pepper,
            self.target_score,
            self.hand_limit,
            self.reward == "score_delta",
            state.current,
            state.hands,
            state.trick,
            state.public,
            state.in_trick,
            state.trump,
            state.leader,
            state.trick_no,
            state.trick_leaders,
            state.trick_winners,
            state.history,
            state.high_bid,
            state.bidder,
            state.scores,
            state.hand_number,
            state.done,
            state.phase,
            state.legal,
            rewards,
            redeal,
        )
        if count:
            self.pass_the_deal(state, redeal[:count])

    # ------------------------------------------------------------ observation
    def observe(self, state: BatchState, seats: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        return observation.encode(self, state, np.asarray(seats, np.int64), rows)

    def seat_scores(self, state: BatchState) -> np.ndarray:
        return state.scores[:, self.side_of_seat]

    def winners(self, state: BatchState, row: int = 0) -> list[int]:
        """Seats that won a finished game (empty while it is running)."""
        if not state.done[row]:
            return []
        sc = state.scores[row]
        return [int(s) for s in range(self.num_players) if sc[self.side_of_seat[s]] == sc.max()]

    # ------------------------------------------------------------ texts
    def action_to_str(self, action: int) -> str:
        a = int(action)
        if a == PASS:
            return "pass"
        if 1 <= a <= 7:
            return f"bid {a}"
        if a == BID_LITTLE:
            return "bid little"
        if a == BID_BIG:
            return "bid big"
        if TRUMP0 <= a < TRUMP_NONE:
            return f"trump {'CDHS'[a - TRUMP0]}"
        if a == TRUMP_NONE:
            return "trump none"
        if PLAY0 <= a < NUM_ACTIONS:
            return f"play {DECK.texts[a - PLAY0]}"
        raise ValueError(f"action {action!r} out of range 0..{NUM_ACTIONS - 1}")

    def str_to_action(self, text: str) -> int:
        for a in range(NUM_ACTIONS):
            if self.action_to_str(a) == text:
                return a
        raise ValueError(f"unknown Pepper action {text!r}")

    def bid_text(self, action: int) -> str:
        return {BID_LITTLE: "little", BID_BIG: "big"}.get(int(action), str(int(action)))

    # ------------------------------------------------------------ state_dict / render
    def state_dict(self, state: BatchState, row: int = 0) -> dict[str, Any]:
        n, b = self.num_players, row
        trump = int(state.trump[b])

        def trick_cards(cards: np.ndarray, leader: int) -> list[dict]:
            seats = [(leader + i) % n for i in range(n)]
            return [{"seat": s, "card": DECK.texts[cards[s]]} for s in seats if cards[s] >= 0]

        pub = state.public[b]
        bids = [
            None
            if not pub[s, BID : BID + 10].any()
            else "pass"
            if pub[s, BID]
            else self.bid_text(pub[s, BID : BID + 10].argmax())
            for s in range(n)
        ]
        done_tricks = int(state.trick_no[b]) if state.phase[b] in (PLAYING, DONE) else 0
        return {
            "game": self.name,
            "num_players": n,
            "phase": PHASE_NAMES[state.phase[b]],
            "dealer": int(state.dealer[b]),
            "hand_number": int(state.hand_number[b]),
            "scores": [int(state.scores[b, self.side_of_seat[s]]) for s in range(n)],
            "done": bool(state.done[b]),
            "current_player": int(state.current[b]),
            "hands": [DECK.counts_to_texts(state.hands[b, s]) for s in range(n)],
            "dead_hand": DECK.counts_to_texts(state.dead[b]),
            "bid": None
            if state.bidder[b] < 0
            else {"seat": int(state.bidder[b]), "value": self.bid_text(state.high_bid[b])},
            "bids": bids,
            "passed": [bool(x) for x in state.passed[b]],
            "trump": None if trump < 0 else ("none" if trump == NO_TRUMP else "CDHS"[trump]),
            "tricks_won": [int(x) for x in pub[:, TRICKS]],
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

    def render(self, state: BatchState, row: int = 0) -> str:
        d = self.state_dict(state, row)
        lines = [
            f"Pepper ({self.num_players} players) hand {d['hand_number'] + 1}, dealer {d['dealer']}, "
            f"phase {d['phase']}, scores {d['scores']}"
        ]
        if d["bid"]:
            lines.append(f"bid: player_{d['bid']['seat']} {d['bid']['value']}, trump: {d['trump']}")
        for s in range(self.num_players):
            mark = "*" if s == d["current_player"] else " "
            lines.append(
                f"{mark} player_{s}: {' '.join(d['hands'][s]) or '-'}  "
                f"bid {d['bids'][s] or '-'}  tricks {d['tricks_won'][s]}"
            )
        if d["trick"]:
            lines.append("trick: " + ", ".join(f"player_{c['seat']} {c['card']}" for c in d["trick"]))
        if d["done"]:
            lines.append(f"game over, winners: {['player_' + str(s) for s in d['winners']]}")
        return "\n".join(lines)
