"""Pepper: the batched rules core (every rule of ``shared/rules/pepper.md``).

State is a :class:`~cardenvs.core.game.BatchState` of arrays with one row per
game; :class:`PepperRules` holds the configuration and applies the rules to
all rows at once.  The PettingZoo env (:mod:`cardenvs.pepper.env`) and the
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

from ..core.cards import deal_hands, deal_slots, standard_deck
from ..core.game import BatchState, TurnBasedRules, choice, positive_int
from ..core.tricks import follow_suit_mask, trick_winner
from . import observation
from .observation import BID, PLAYED, SCORE, SEAT_PLANES, TABLE, TRICKS

DECK = standard_deck("9TJQKA")  # 24 card types, one copy each
NUM_TYPES = DECK.num_types
PASS, BID_LITTLE, BID_BIG = 0, 8, 9
TRUMP0, TRUMP_NONE, PLAY0 = 10, 14, 15
NUM_ACTIONS = PLAY0 + NUM_TYPES
NO_TRUMP = 4  # trump index for a no-trump hand (0..3 are the suits)

# Phases (``state.phase``).
BIDDING, CHOOSING_TRUMP, PLAYING, DONE = 0, 1, 2, 3
PHASE_NAMES = ("bidding", "choosing_trump", "playing", "done")

JACK = 2  # r index of the jack



def _rank_tables() -> tuple[np.ndarray, np.ndarray]:
    """For each trump index (C, D, H, S, none): the effective suit of every
    card type and its strength when it is a trump (-1 when it is not).

    The left bower (the jack of the other suit of the trump's colour,
    ``suit ^ 3`` with suits ordered C D H S) belongs to the trump suit.
    Trump order, low to high: 9 T Q K A, left bower, right bower.
    """
    suit = DECK.suit.astype(np.int64)
    r = np.arange(NUM_TYPES) % 6
    eff = np.tile(suit, (5, 1))
    trump_strength = np.full((5, NUM_TYPES), -1)
    for t in range(4):
        right, left = t * 6 + JACK, (t ^ 3) * 6 + JACK
        eff[t, left] = t
        is_trump = eff[t] == t
        trump_strength[t] = np.where(is_trump, np.array([0, 1, -1, 2, 3, 4])[r], -1)
        trump_strength[t, left], trump_strength[t, right] = 5, 6
    return eff, trump_strength


EFFECTIVE_SUIT, TRUMP_STRENGTH = (t.astype(np.int8) for t in _rank_tables())  # small ints: faster batched gathers
PLAIN_STRENGTH = np.arange(NUM_TYPES) % 6  # A high .. 9 low


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

    def __init__(self, num_players: int = 4, target_score: int = 30, max_hands: int | None = 50,
                 reward: str = "win_loss", all_pass: str = "stick_dealer"):
        self.num_players = choice("num_players", num_players, (2, 3, 4))
        self.target_score = positive_int("target_score", target_score)
        self.max_hands = positive_int("max_hands", max_hands, allow_none=True)
        self.reward = choice("reward", reward, ("win_loss", "score_delta"))
        self.all_pass = choice("all_pass", all_pass, ("stick_dealer", "redeal"))
        n = self.num_players
        self.partnerships = n == 4
        self.side_of_seat = np.arange(n) % 2 if self.partnerships else np.arange(n)
        self.num_sides = 2 if self.partnerships else n
        self.side_onehot = np.eye(self.num_sides, dtype=np.int64)[self.side_of_seat]  # (P, sides)
        self.hand_size = 6 if n == 4 else 8
        self.num_tricks = self.hand_size
        # Slots dealt round-robin: the players from the dealer's left, then (2p) the dead hand.
        self.num_slots = 3 if n == 2 else n
        self.slot_of_position = deal_slots(DECK.num_cards, self.num_slots, self.hand_size)
        # The bidding ladder: 4 players bid 1-5 and the peppers; 2-3 players 1-7 and the peppers.
        self.bid_allowed = np.zeros(NUM_ACTIONS, bool)
        self.bid_allowed[1:6 if n == 4 else 8] = True
        self.bid_allowed[[BID_LITTLE, BID_BIG]] = True
        self.fail_penalty = 6 if n == 4 else 8
        # relative_seat[viewer, seat]: seat as seen from viewer (0 = self); column -1 maps -1 to -1
        self.relative_seat = np.full((n, n + 1), -1, np.int64)
        self.relative_seat[:, :n] = (np.arange(n)[None, :] - np.arange(n)[:, None]) % n
        self.big_pepper = 12 if n == 4 else 16

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
        n = self.num_players
        orders = self.deck_orders(state, rows)
        # at 2 players the dead hand is the third slot of the deal
        state.hands[rows], state.dead[rows] = deal_hands(orders, self.slot_of_position, state.dealer[rows], n,
                                                         NUM_TYPES)
        state.phase[rows] = BIDDING
        state.high_bid[rows] = 0
        state.bidder[rows] = -1
        state.passed[rows] = False
        state.trump[rows] = -1
        state.trick[rows] = -1
        state.in_trick[rows] = 0
        state.trick_no[rows] = 0
        state.public[rows] = 0
        state.public[rows, :, SCORE] = state.scores[rows][:, self.side_of_seat]
        state.history[rows] = -1
        state.trick_leaders[rows] = 0
        state.trick_winners[rows] = -1
        state.current[rows] = (state.dealer[rows] + 1) % n
        self._update_legal(state, rows)

    # ------------------------------------------------------------ legal mask
    def _update_legal(self, state: BatchState, rows: np.ndarray) -> None:
        legal = np.zeros((len(rows), NUM_ACTIONS), bool)
        phase = state.phase[rows]
        cur = state.current[rows]

        bid = np.flatnonzero(phase == BIDDING)
        if bid.size:
            r = rows[bid]
            above = np.arange(NUM_ACTIONS)[None, :] > state.high_bid[r, None]
            legal[bid] = above & self.bid_allowed
            # stick the dealer: nobody has bid and everyone else passed
            stuck = (self.all_pass == "stick_dealer") & (state.high_bid[r] == 0) & (cur[bid] == state.dealer[r])
            legal[bid, PASS] = ~stuck

        tr = np.flatnonzero(phase == CHOOSING_TRUMP)
        legal[tr, TRUMP0:TRUMP_NONE + 1] = True

        play = np.flatnonzero(phase == PLAYING)
        if play.size:
            r = rows[play]
            eff = EFFECTIVE_SUIT[state.trump[r]]  # (k, 24)
            lead_card = state.trick[r, state.leader[r]]
            led = np.where(state.in_trick[r] > 0, eff[np.arange(len(r)), np.maximum(lead_card, 0)], -1)
            legal[play, PLAY0:] = follow_suit_mask(state.hands[r, cur[play]], eff, led)

        state.legal[rows] = legal

    # ------------------------------------------------------------------ step
    def step(self, state: BatchState, actions: np.ndarray) -> np.ndarray:
        return self.step_by_phase(state, actions, ((PLAYING, self._play), (BIDDING, self._bid),
                                                   (CHOOSING_TRUMP, self._choose_trump)))

    def _bid(self, state, rows, actions, rewards) -> None:
        n = self.num_players
        seat = state.current[rows]
        is_pass = actions == PASS
        state.passed[rows[is_pass], seat[is_pass]] = True
        b = ~is_pass
        state.high_bid[rows[b]] = actions[b]
        state.bidder[rows[b]] = seat[b]
        state.public[rows, seat, BID:BID + 10] = 0
        state.public[rows, seat, BID + actions] = 1  # pass is action 0, bids 1..9

        still_in = (~state.passed[rows]).sum(axis=1)
        high = state.high_bid[rows]
        won = (high > 0) & ((still_in == 1) | (high == BID_BIG))
        thrown_in = (high == 0) & (still_in == 0)  # only reachable with all_pass="redeal"
        going_on = ~(won | thrown_in)

        w = rows[won]
        state.phase[w] = CHOOSING_TRUMP
        state.current[w] = state.bidder[w]

        g = rows[going_on]
        if g.size:  # next seat clockwise still in the auction
            cand = (seat[going_on, None] + np.arange(1, n + 1)) % n
            ok = ~state.passed[g[:, None], cand]
            state.current[g] = cand[np.arange(len(g)), ok.argmax(axis=1)]

        self._update_legal(state, rows[~thrown_in])
        t = rows[thrown_in]
        if t.size:  # the hand is thrown in: no score, the deal passes on
            state.hand_number[t] += 1
            self._next_hand_or_end(state, t, rewards)

    def _choose_trump(self, state, rows, actions, rewards) -> None:
        state.trump[rows] = actions - TRUMP0
        state.phase[rows] = PLAYING
        state.leader[rows] = state.bidder[rows]  # the winning bidder leads the first trick
        state.current[rows] = state.bidder[rows]
        self._update_legal(state, rows)

    def _play(self, state, rows, actions, rewards) -> None:
        n = self.num_players
        seat = state.current[rows]
        card = actions - PLAY0
        state.hands[rows, seat, card] = 0
        state.trick[rows, seat] = card
        state.public[rows, seat, TABLE + card] = 1
        state.in_trick[rows] += 1

        full = state.in_trick[rows] == n
        state.current[rows[~full]] = (seat[~full] + 1) % n
        f = rows[full]
        if f.size:
            winner = self.trick_winner(state.trick[f], state.leader[f], state.trump[f])
            k = state.trick_no[f]
            state.trick_leaders[f, k] = state.leader[f]
            state.trick_winners[f, k] = winner
            state.history[f, k] = state.trick[f]
            pub = state.public[f]
            pub[:, :, PLAYED:PLAYED + 24] += pub[:, :, TABLE:TABLE + 24]
            pub[:, :, TABLE:TABLE + 24] = 0
            pub[np.arange(len(f)), winner, TRICKS] += 1
            state.public[f] = pub
            state.trick[f] = -1
            state.in_trick[f] = 0
            state.trick_no[f] += 1
            state.leader[f] = winner  # the trick's winner leads the next trick
            state.current[f] = winner
        self._update_legal(state, rows)
        end = f[state.trick_no[f] == self.num_tricks]
        if end.size:
            self._score_hand(state, end, rewards)

    @staticmethod
    def trick_winner(trick: np.ndarray, leader: np.ndarray, trump: np.ndarray) -> np.ndarray:
        """Seat winning each full trick. ``trick`` (k, P) card per seat,
        ``leader`` (k,), ``trump`` (k,) 0..3 or 4 for no-trump.

        The highest trump wins; with no trump in it (or at no-trump), the
        highest card of the suit led (the left bower's suit is the trump's).
        """
        k = np.arange(len(trick))
        eff = EFFECTIVE_SUIT[trump[:, None], trick]
        led = eff[k, leader]
        strength = np.where(eff == led[:, None], PLAIN_STRENGTH[trick], -1)
        trumped = TRUMP_STRENGTH[trump[:, None], trick]  # -1 for non-trumps and at no-trump
        strength = np.where(trumped >= 0, 100 + trumped, strength)
        return trick_winner(strength)[0]

    def _score_hand(self, state, rows, rewards) -> None:
        tricks = state.public[rows, :, TRICKS] @ self.side_onehot  # (k, sides)
        k = np.arange(len(rows))
        bid = state.high_bid[rows]
        side = self.side_of_seat[state.bidder[rows]]
        pepper = bid >= BID_LITTLE
        need = np.where(pepper, self.num_tricks, bid)
        made = tricks[k, side] >= need
        big = bid == BID_BIG
        delta = tricks.copy()  # every side scores 1 per trick won ...
        delta[k, side] = np.select(  # ... except the bidding side
            [made & big, made, big], [self.big_pepper, tricks[k, side], -self.big_pepper], -self.fail_penalty)
        state.scores[rows] += delta
        state.public[rows, :, SCORE] = state.scores[rows][:, self.side_of_seat]
        state.hand_number[rows] += 1
        if self.reward == "score_delta":
            rewards[rows] += delta[:, self.side_of_seat]
        self._next_hand_or_end(state, rows, rewards)

    def _next_hand_or_end(self, state, rows, rewards) -> None:
        scores = state.scores[rows]
        over = (scores >= self.target_score).any(axis=1)
        if self.max_hands is not None:
            over |= state.hand_number[rows] >= self.max_hands
        end = rows[over]
        if end.size:
            # Whoever reached the target with the most points wins; sides tied
            # at the top all win.  Cut short by max_hands: the highest score wins.
            sc = state.scores[end]
            win = sc == sc.max(axis=1, keepdims=True)
            self.end_games(state, end, DONE)
            if self.reward == "win_loss":
                rewards[end] += np.where(win, 1.0, -1.0)[:, self.side_of_seat]
        nxt = rows[~over]
        if nxt.size:
            self.pass_the_deal(state, nxt)

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
        bids = [None if not pub[s, BID:BID + 10].any() else
                "pass" if pub[s, BID] else self.bid_text(pub[s, BID:BID + 10].argmax()) for s in range(n)]
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
            "bid": None if state.bidder[b] < 0 else
            {"seat": int(state.bidder[b]), "value": self.bid_text(state.high_bid[b])},
            "bids": bids,
            "passed": [bool(x) for x in state.passed[b]],
            "trump": None if trump < 0 else ("none" if trump == NO_TRUMP else "CDHS"[trump]),
            "tricks_won": [int(x) for x in pub[:, TRICKS]],
            "tricks": [{"leader": int(state.trick_leaders[b, k]), "winner": int(state.trick_winners[b, k]),
                        "cards": trick_cards(state.history[b, k], int(state.trick_leaders[b, k]))}
                       for k in range(done_tricks)],
            "trick": trick_cards(state.trick[b], int(state.leader[b]))
            if state.phase[b] == PLAYING else [],
            "winners": self.winners(state, b),
        }

    def render(self, state: BatchState, row: int = 0) -> str:
        d = self.state_dict(state, row)
        lines = [f"Pepper ({self.num_players} players) hand {d['hand_number'] + 1}, dealer {d['dealer']}, "
                 f"phase {d['phase']}, scores {d['scores']}"]
        if d["bid"]:
            lines.append(f"bid: player_{d['bid']['seat']} {d['bid']['value']}, trump: {d['trump']}")
        for s in range(self.num_players):
            mark = "*" if s == d["current_player"] else " "
            lines.append(f"{mark} player_{s}: {' '.join(d['hands'][s]) or '-'}  "
                         f"bid {d['bids'][s] or '-'}  tricks {d['tricks_won'][s]}")
        if d["trick"]:
            lines.append("trick: " + ", ".join(f"player_{c['seat']} {c['card']}" for c in d["trick"]))
        if d["done"]:
            lines.append(f"game over, winners: {['player_%d' % s for s in d['winners']]}")
        return "\n".join(lines)
