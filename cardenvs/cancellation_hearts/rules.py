"""Cancellation Hearts: the batched rules core (every rule of
``shared/rules/cancellation_hearts.md``).

State is a :class:`~cardenvs.core.game.BatchState` of arrays with one row per
game; :class:`CancellationHeartsRules` holds the configuration and applies
the rules to all rows at once.  The PettingZoo env
(:mod:`cardenvs.cancellation_hearts.env`) and the vector engine
(:mod:`cardenvs.vector`) are both views over this class.

Two 52-card decks: the 52 card *types* (local id ``13 * suit + rank``, suits
``C D H S``, ranks ``2 .. A``) exist twice each, so hands are counts 0..2
per type and an action names a card type.

Action ids (one fixed ``Discrete(106)`` space for every player count):

=========  =============================================================
id         text
=========  =============================================================
0..51      ``"pass 2C"`` .. ``"pass AS"``: one of the 3 cards to pass
52..103    ``"play 2C"`` .. ``"play AS"`` (52 + card type)
104        ``"moon self"``: the moon shooter takes 26 off its own score
105        ``"moon others"``: the moon shooter adds 26 to everyone else's
=========  =============================================================

A hand: deal (floor(104 / n) cards each, the rest is the widow), passing
(3 single-card actions per seat, seats in turn from the dealer's left; the
exchange happens after the last choice), floor(104 / n) tricks, then the
scoring, with a moon-choice phase when one seat took all 26 hearts and both
Black Marias.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..core.cards import deal_hands, deal_slots, holdings, standard_deck
from ..core.game import BatchState, TurnBasedRules, choice, positive_int
from ..core.tricks import cancelled_mask, trick_winner
from . import observation as ob

DECK = standard_deck(copies=2)  # 52 card types, two copies each
NUM_TYPES = DECK.num_types
SUIT = DECK.suit.astype(np.int64)
RANK = DECK.rank.astype(np.int64)
HEARTS = 2
BLACK_MARIA = DECK.type_of("QS")
IS_HEART = SUIT == HEARTS
IS_BLACK_MARIA = np.arange(NUM_TYPES) == BLACK_MARIA
CARD_POINTS = IS_HEART.astype(np.int64) + 13 * IS_BLACK_MARIA
BREAKS_HEARTS = IS_HEART | IS_BLACK_MARIA  # playing either breaks hearts
MOON_POINTS = int(CARD_POINTS.sum() * 2)  # 52: all 26 hearts and both Black Marias
MOON_SWING = 26
CARDS_PASSED = 3

PASS0, PLAY0, MOON_SELF, MOON_OTHERS = 0, 52, 104, 105
NUM_ACTIONS = 106

# Phases (``state.phase``).
PASSING, PLAYING, MOON_CHOICE, DONE = 0, 1, 2, 3
PHASE_NAMES = ("passing", "playing", "moon_choice", "done")
# Pass direction of a hand (``state.pass_dir``).
NO_PASS, LEFT, RIGHT = 0, 1, 2
PASS_DIR_NAMES = ("none", "left", "right")
# ``state.widow_holder``: a seat, or one of these.
WIDOW_WAITING, WIDOW_NOBODY = -1, -2

# The card types a player may play, by situation (a row of ALLOWED); when
# the hand holds none of them, any card it holds may be played (ANY_CARD).
FOLLOW_C = 0  # 0..3: following the suit led (C D H S)
LEAD_BROKEN, LEAD_UNBROKEN, LEAD_OPENING = 4, 5, 6
ANY_CARD = LEAD_BROKEN
ALLOWED = np.zeros((7, NUM_TYPES), bool)
ALLOWED[:4] = SUIT[None, :] == np.arange(4)[:, None]
ALLOWED[LEAD_BROKEN] = True
ALLOWED[LEAD_UNBROKEN] = ~IS_HEART  # hearts not led until broken
ALLOWED[LEAD_OPENING] = ~BREAKS_HEARTS  # the opening lead: no heart, no Black Maria

# Public-block columns of card type t played at trick position 0 (add 17 * position).
TRICK_SUIT_COL = ob.TRICK + SUIT
TRICK_RANK_COL = ob.TRICK + 4 + RANK


class CancellationHeartsRules(TurnBasedRules):
    """Batched Cancellation Hearts rules for one configuration.

    Config (defaults from the rules file): ``num_players`` 6..11 (6),
    ``target_score`` (150), ``max_hands`` (None = play to the target),
    ``reward`` ``"win_loss"``/``"score_delta"``, ``passing``
    ``"left_right"``/``"none"``.
    """

    name = "cancellation_hearts_v0"
    deck = DECK
    num_actions = NUM_ACTIONS
    obs_size = ob.OBS_SIZE
    obs_low, obs_high = ob.OBS_LOW, ob.OBS_HIGH
    obs_dtype = ob.OBS_DTYPE

    def __init__(self, num_players: int = 6, target_score: int = 150, max_hands: int | None = None,
                 reward: str = "win_loss", passing: str = "left_right"):
        self.num_players = choice("num_players", num_players, tuple(range(6, 12)))
        self.target_score = positive_int("target_score", target_score)
        self.max_hands = positive_int("max_hands", max_hands, allow_none=True)
        self.reward = choice("reward", reward, ("win_loss", "score_delta"))
        self.passing = choice("passing", passing, ("left_right", "none"))
        n = self.num_players
        self.hand_size = DECK.num_cards // n
        self.num_tricks = self.hand_size
        self.widow_size = DECK.num_cards % n
        self.slot_of_position = deal_slots(DECK.num_cards, n, self.hand_size)
        self.seats = np.arange(n)
        # relative_seat[viewer, seat]: seat as seen from viewer (0 = self, 1 = left neighbour)
        self.relative_seat = (self.seats[None, :] - self.seats[:, None]) % n
        self.seat_of_relative = (self.seats[:, None] + self.seats[None, :]) % n  # [viewer, relative seat]
        self.action_texts = ([f"pass {t}" for t in DECK.texts] + [f"play {t}" for t in DECK.texts]
                             + ["moon self", "moon others"])
        self.action_ids = {t: a for a, t in enumerate(self.action_texts)}

    # ------------------------------------------------------------------ state
    def new_state(self, batch: int, rng: np.random.Generator) -> BatchState:
        n, B = self.num_players, batch
        s = self.common_state(batch, rng, n)
        s.phase[:] = DONE
        s.hands = np.zeros((B, n, NUM_TYPES), np.int8)
        s.pass_dir = np.zeros(B, np.int64)
        s.pass_chosen = np.zeros((B, n, NUM_TYPES), np.int8)  # set aside to pass, not yet exchanged
        s.pass_count = np.zeros(B, np.int64)  # single-card pass choices made this hand
        s.widow = np.zeros((B, NUM_TYPES), np.int8)  # stays here all hand; widow_holder says where it is
        s.widow_holder = np.full(B, WIDOW_NOBODY, np.int64)
        s.trick = np.full((B, n), -1, np.int64)  # card type at each position of the trick, in play order
        # 1 + the position of each card type in the current trick (0: not in
        # it), so the twin that cancels a card is one lookup away
        s.trick_slot = np.zeros((B, NUM_TYPES), np.int8)
        s.leader = np.zeros(B, np.int64)
        s.in_trick = np.zeros(B, np.int64)  # cards played to the current trick
        s.trick_no = np.zeros(B, np.int64)  # tricks completed this hand
        # The cards the next trick's winner collects: the current trick and
        # any unclaimed tricks before it (added as they are played).
        s.pile = np.zeros((B, NUM_TYPES), np.int8)
        s.pile_points = np.zeros(B, np.int64)
        s.taken = np.zeros((B, n, NUM_TYPES), np.int8)  # cards won in tricks this hand (widow excluded)
        s.uncollected = np.zeros((B, NUM_TYPES), np.int8)  # an unclaimed last trick (and its carried pile)
        s.points = np.zeros((B, n), np.int64)  # points taken this hand, widow included
        s.seen_points = np.zeros((B, n), np.int64)  # the same without the face-down widow (observed)
        s.hearts_broken = np.zeros(B, bool)
        s.moon_seat = np.full(B, -1, np.int64)
        # The observation's blocks, kept up to date by the rules (layout in
        # observation.py): one per viewer, one shared by all.
        s.private = np.zeros((B, n, ob.PRIVATE_SIZE), np.int8)
        s.public = np.zeros((B, ob.PUBLIC_SIZE), np.int8)
        return s

    def start_game(self, state: BatchState, rows: np.ndarray) -> None:
        self._deal(state, rows)

    def _deal(self, state: BatchState, rows: np.ndarray) -> None:
        """Deal a new hand in ``rows`` (dealer already set) and start the passing."""
        n = self.num_players
        orders = self.deck_orders(state, rows)
        hands, state.widow[rows] = deal_hands(orders, self.slot_of_position, state.dealer[rows], n, NUM_TYPES)
        state.hands[rows] = hands
        state.widow_holder[rows] = WIDOW_WAITING if self.widow_size else WIDOW_NOBODY
        state.pass_chosen[rows] = 0
        state.pass_count[rows] = 0
        state.trick[rows] = -1
        state.trick_slot[rows] = 0
        state.in_trick[rows] = 0
        state.trick_no[rows] = 0
        state.pile[rows] = 0
        state.pile_points[rows] = 0
        state.taken[rows] = 0
        state.uncollected[rows] = 0
        state.points[rows] = 0
        state.seen_points[rows] = 0
        state.hearts_broken[rows] = False
        state.moon_seat[rows] = -1
        leader = (state.dealer[rows] + 1) % n  # the player left of the dealer leads the first trick
        state.leader[rows] = leader
        state.current[rows] = leader  # ... and passes first
        if self.passing == "none":
            direction = np.full(len(rows), NO_PASS)
        else:  # hand 1 (hand_number 0) to the left, hand 2 to the right, and so on
            direction = np.where(state.hand_number[rows] % 2 == 0, LEFT, RIGHT)
        state.pass_dir[rows] = direction
        phase = np.where(direction == NO_PASS, PLAYING, PASSING)
        state.phase[rows] = phase

        state.private[rows] = 0
        pub = np.zeros((len(rows), ob.PUBLIC_SIZE), np.int8)
        k = np.arange(len(rows))
        pub[:, ob.WIDOW_WAITING] = self.widow_size > 0
        pub[k, ob.PHASE + phase] = 1
        pub[k, ob.PASS_DIR + direction] = 1
        pub[:, ob.NUM_PLAYERS + n - 6] = 1
        state.public[rows] = pub
        self._update_legal(state, rows)

    # ------------------------------------------------------------ legal mask
    def _update_legal(self, state: BatchState, rows: np.ndarray) -> None:
        whole = len(rows) == state.batch  # rows are sorted and distinct: every row
        phase = state.phase if whole else state.phase[rows]
        playing = phase == PLAYING
        legal = np.zeros((len(rows), NUM_ACTIONS), bool)
        if playing.all():  # the common case: no row subsets
            legal[:, PLAY0:PLAY0 + NUM_TYPES] = self._playable(state, rows)
        else:
            p = np.flatnonzero(playing)
            if p.size:
                legal[p, PLAY0:PLAY0 + NUM_TYPES] = self._playable(state, rows[p])
        p = np.flatnonzero(phase == PASSING)
        if p.size:
            r = rows[p]
            legal[p, PASS0:PASS0 + NUM_TYPES] = state.hands[r, state.current[r]] > 0
        legal[phase == MOON_CHOICE, MOON_SELF:MOON_OTHERS + 1] = True
        if whole:
            state.legal = legal
        else:
            state.legal[rows] = legal

    def _playable(self, state: BatchState, rows: np.ndarray) -> np.ndarray:
        """Card types the seat to act may play, ``(len(rows), 52)``: follow
        suit if able; a lead may not be a heart before hearts are broken, and
        the opening lead neither a heart nor a Black Maria, unless the hand
        holds nothing else."""
        k = len(rows)
        held = state.hands.reshape(-1, NUM_TYPES).take(rows * self.num_players + state.current[rows], axis=0) > 0
        lead_card = state.trick[rows, 0]
        following = lead_card >= 0
        situation = np.where(following, SUIT[lead_card],
                             np.where(state.trick_no[rows] == 0, LEAD_OPENING,
                                      np.where(state.hearts_broken[rows], LEAD_BROKEN, LEAD_UNBROKEN)))
        # Whether the hand holds an allowed card, looked at only where it
        # matters (a pass over 13 cards of one suit, or over the leaders'
        # hands) -- cheaper than testing every row's whole allowed set.
        can = np.ones(k, bool)
        f = np.flatnonzero(following)
        if f.size:
            can[f] = held.reshape(k, 4, 13)[f, situation[f]].any(axis=1)
        lead = np.flatnonzero(~following & (situation != LEAD_BROKEN))
        if lead.size:
            can[lead] = (held[lead] & ALLOWED[situation[lead]]).any(axis=1)
        return held & ALLOWED[np.where(can, situation, ANY_CARD)]

    # ------------------------------------------------------------------ step
    def step(self, state: BatchState, actions: np.ndarray) -> np.ndarray:
        return self.step_by_phase(state, actions, ((PLAYING, self._play), (PASSING, self._pass),
                                                   (MOON_CHOICE, self._moon)))

    def _pass(self, state, rows, actions, rewards) -> None:
        """One card set aside to pass; after the last seat's third card, the exchange."""
        n = self.num_players
        seat = state.current[rows]
        card = actions - PASS0
        state.hands[rows, seat, card] -= 1
        state.pass_chosen[rows, seat, card] += 1
        state.private[rows, seat, ob.PASSED + card] += 1
        count = state.pass_count[rows] + 1
        state.pass_count[rows] = count
        state.current[rows] = (state.dealer[rows] + 1 + count // CARDS_PASSED) % n
        x = rows[count == CARDS_PASSED * n]
        if x.size:
            self._exchange(state, x)
        self._update_legal(state, rows)

    def _exchange(self, state, rows) -> None:
        """Everyone's passed cards reach their receiver at once; play starts."""
        chosen = state.pass_chosen[rows]
        left = (state.pass_dir[rows] == LEFT)[:, None, None]
        # left: seat s receives from s - 1 (roll by +1); right: from s + 1
        got = np.where(left, np.roll(chosen, 1, axis=1), np.roll(chosen, -1, axis=1))
        state.hands[rows] += got
        state.pass_chosen[rows] = 0
        state.private[rows, :, ob.RECEIVED:ob.RECEIVED + NUM_TYPES] = got
        state.phase[rows] = PLAYING
        state.public[rows, ob.PHASE:ob.PHASE + 3] = 0
        state.public[rows, ob.PHASE + PLAYING] = 1
        state.current[rows] = state.leader[rows]

    def _play(self, state, rows, actions, rewards) -> None:
        # Hot path: every update is a 1-D index into a flattened array (much
        # cheaper in numpy than indexing with several arrays), and when every
        # game plays (the usual case) whole columns are read as views.
        n = self.num_players
        r = slice(None) if len(rows) == state.batch else rows
        seat = state.current[r]
        card = actions - PLAY0
        pos = state.in_trick[r]
        state.hands.reshape(-1)[(rows * n + seat) * NUM_TYPES + card] -= 1
        row_card = rows * NUM_TYPES + card
        state.pile.reshape(-1)[row_card] += 1
        state.pile_points[r] += CARD_POINTS[card]
        slot = state.trick_slot.reshape(-1)
        twin = slot[row_card] - 1  # an identical card already in this trick (-1: none)
        slot[row_card] = pos + 1
        state.trick.reshape(-1)[rows * n + pos] = card
        pub = state.public.reshape(-1)
        at = rows * ob.PUBLIC_SIZE
        pub[at + TRICK_SUIT_COL[card] + ob.CARD_PLANES * pos] = 1
        pub[at + TRICK_RANK_COL[card] + ob.CARD_PLANES * pos] = 1
        pub[at + ob.SEEN + card] += 1
        c = np.flatnonzero(twin >= 0)
        if c.size:  # identical cards cancel: mark the pair
            pub[at[c] + ob.CANCELLED + twin[c]] = 1
            pub[at[c] + ob.CANCELLED + pos[c]] = 1
        b = np.flatnonzero(BREAKS_HEARTS[card])
        if b.size:
            state.hearts_broken[rows[b]] = True
            pub[at[b] + ob.HEARTS_BROKEN] = 1
        pos = pos + 1
        state.in_trick[r] = pos
        state.current[r] = (seat + 1) % n
        full = pos == n
        end = None
        if full.any():
            end = self._end_trick(state, rows[full])
        self._update_legal(state, rows)
        if end is not None and end.size:
            self._score_hand(state, end, rewards)

    def _end_trick(self, state, rows) -> np.ndarray:
        """Resolve the full tricks in ``rows``; returns the rows whose hand is over."""
        n = self.num_players
        cards = state.trick[rows]  # (k, n) in play order
        led = SUIT[cards[:, 0]]
        # cancelled pairs were marked as their second card was played (same as
        # cancelled_mask(cards), without redoing it)
        cancelled = state.public[rows, ob.CANCELLED:ob.CANCELLED + n] > 0
        # the highest uncancelled card of the suit led wins; none left: unclaimed
        strength = np.where((SUIT[cards] == led[:, None]) & ~cancelled, RANK[cards], -1)
        pos, claimed = trick_winner(strength)
        state.trick[rows] = -1
        state.trick_slot[rows] = 0
        state.in_trick[rows] = 0
        state.trick_no[rows] += 1
        waiting = np.where(claimed, 0, state.public[rows, ob.CARRIED_CARDS] + n)
        state.public[rows, ob.TRICK:ob.SEEN] = 0

        c = rows[claimed]
        if c.size:  # the winner collects the trick and everything carried into it
            w = (state.leader[c] + pos[claimed]) % n
            got = state.pile_points[c]
            state.taken[c, w] += state.pile[c]
            state.points[c, w] += got
            state.seen_points[c, w] += got
            state.pile[c] = 0
            state.pile_points[c] = 0
            wt = state.widow_holder[c] == WIDOW_WAITING
            if wt.any():  # the first trick won takes the widow, face down
                cw, ww = c[wt], w[wt]
                state.widow_holder[cw] = ww
                state.points[cw, ww] += state.widow[cw] @ CARD_POINTS
                state.public[cw, ob.WIDOW_WAITING] = 0
            state.leader[c] = w  # (an unclaimed trick's leader leads again)
        state.current[rows] = state.leader[rows]
        state.public[rows, ob.CARRIED_POINTS] = state.pile_points[rows]
        state.public[rows, ob.CARRIED_CARDS] = waiting

        end = rows[state.trick_no[rows] == self.num_tricks]
        if end.size:  # an unclaimed last trick (and what it carried) goes to nobody
            state.uncollected[end] += state.pile[end]
            state.pile[end] = 0
            state.pile_points[end] = 0
            state.widow_holder[end] = np.where(state.widow_holder[end] == WIDOW_WAITING, WIDOW_NOBODY,
                                               state.widow_holder[end])
            state.public[end, ob.CARRIED_POINTS:ob.WIDOW_WAITING + 1] = 0
        return end

    def _score_hand(self, state, rows, rewards) -> None:
        points = state.points[rows]
        moon = points == MOON_POINTS  # took all 26 hearts and both Black Marias
        shot = moon.any(axis=1)
        m = rows[shot]
        if m.size:  # the shooter decides how the moon is scored
            shooter = moon[shot].argmax(axis=1)
            state.phase[m] = MOON_CHOICE
            state.moon_seat[m] = shooter
            state.current[m] = shooter
            state.public[m, ob.PHASE:ob.PHASE + 3] = 0
            state.public[m, ob.PHASE + MOON_CHOICE] = 1
            state.legal[m] = False
            state.legal[m, MOON_SELF:MOON_OTHERS + 1] = True
        if (~shot).any():
            self._finish_hand(state, rows[~shot], points[~shot], rewards)

    def _moon(self, state, rows, actions, rewards) -> None:
        is_shooter = state.moon_seat[rows, None] == self.seats[None, :]
        delta = np.where((actions == MOON_SELF)[:, None],
                         np.where(is_shooter, -MOON_SWING, 0), np.where(is_shooter, 0, MOON_SWING))
        self._finish_hand(state, rows, delta, rewards)

    def _finish_hand(self, state, rows, delta, rewards) -> None:
        """Add the hand's points to the scores; end the game or deal the next hand."""
        state.scores[rows] += delta
        state.hand_number[rows] += 1
        if self.reward == "score_delta":
            rewards[rows] -= delta  # fewer points is better
        scores = state.scores[rows]
        over = (scores >= self.target_score).any(axis=1)
        if self.max_hands is not None:
            over |= state.hand_number[rows] >= self.max_hands
        end = rows[over]
        if end.size:  # the lowest total wins; everyone tied for it wins
            sc = state.scores[end]
            win = sc == sc.min(axis=1, keepdims=True)
            self.end_games(state, end, DONE)
            state.public[end, ob.PHASE:ob.PHASE + 3] = 0
            if self.reward == "win_loss":
                rewards[end] += np.where(win, 1.0, -1.0)
        nxt = rows[~over]
        if nxt.size:
            self.pass_the_deal(state, nxt)

    # ------------------------------------------------------------ observation
    def observe(self, state: BatchState, seats: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        return ob.encode(self, state, np.asarray(seats, np.int64), rows)

    def seat_scores(self, state: BatchState) -> np.ndarray:
        return state.scores.copy()

    def winners(self, state: BatchState, row: int = 0) -> list[int]:
        """Seats that won a finished game (empty while it is running)."""
        if not state.done[row]:
            return []
        sc = state.scores[row]
        return [int(s) for s in np.flatnonzero(sc == sc.min())]

    # ------------------------------------------------------------ texts
    def action_to_str(self, action: int) -> str:
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) \
                or not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action {action!r} out of range 0..{NUM_ACTIONS - 1}")
        return self.action_texts[int(action)]

    def str_to_action(self, text: str) -> int:
        try:
            return self.action_ids[text]
        except (KeyError, TypeError):
            raise ValueError(f"unknown Cancellation Hearts action {text!r}; expected 'pass 7H', "
                             "'play 7H', 'moon self' or 'moon others'") from None

    # ------------------------------------------------------------ state_dict / render
    def state_dict(self, state: BatchState, row: int = 0) -> dict[str, Any]:
        n, b = self.num_players, row
        texts = DECK.counts_to_texts
        leader = int(state.leader[b])
        trick = state.trick[b, :state.in_trick[b]]
        cancelled = cancelled_mask(trick[None])[0]
        holder = int(state.widow_holder[b])
        if holder >= 0:
            widow_status = "taken"
        elif holder == WIDOW_WAITING:
            widow_status = "face down"
        else:
            widow_status = "uncollected" if self.widow_size else "none"
        return {
            "game": self.name,
            "num_players": n,
            "phase": PHASE_NAMES[state.phase[b]],
            "dealer": int(state.dealer[b]),
            "hand_number": int(state.hand_number[b]),
            "scores": [int(x) for x in state.scores[b]],
            "done": bool(state.done[b]),
            "current_player": int(state.current[b]),
            "pass_direction": PASS_DIR_NAMES[state.pass_dir[b]],
            "hands": [texts(state.hands[b, s]) for s in range(n)],
            # cards set aside to pass, until the exchange
            "passing": [texts(state.pass_chosen[b, s]) for s in range(n)],
            "leader": leader,
            "trick": [{"seat": (leader + k) % n, "card": DECK.texts[c], "cancelled": bool(x)}
                      for k, (c, x) in enumerate(zip(trick, cancelled))],
            "tricks_played": int(state.trick_no[b]),
            "carried": texts(state.pile[b] - holdings(np.zeros((1, len(trick)), np.int64), trick[None],
                                                      1, NUM_TYPES)[0, 0]),
            "taken": [texts(state.taken[b, s]) for s in range(n)],
            "uncollected": texts(state.uncollected[b]),
            # the widow's cards stay listed here wherever they went (widow_status)
            "widow": texts(state.widow[b]),
            "widow_status": widow_status,
            "widow_taken_by": holder if holder >= 0 else None,
            "points_taken": [int(x) for x in state.points[b]],
            "hearts_broken": bool(state.hearts_broken[b]),
            "moon_shooter": int(state.moon_seat[b]) if state.phase[b] == MOON_CHOICE else None,
            "winners": self.winners(state, b),
        }

    def render(self, state: BatchState, row: int = 0) -> str:
        d = self.state_dict(state, row)
        lines = [f"Cancellation Hearts ({self.num_players} players) hand {d['hand_number'] + 1}, "
                 f"dealer {d['dealer']}, phase {d['phase']}, pass {d['pass_direction']}, scores {d['scores']}",
                 f"hearts broken: {d['hearts_broken']}, widow: {d['widow_status']}"
                 + (f" (player_{d['widow_taken_by']})" if d["widow_taken_by"] is not None else "")
                 + (f", carried: {' '.join(d['carried'])}" if d["carried"] else "")]
        for s in range(self.num_players):
            mark = "*" if s == d["current_player"] else " "
            chosen = f"  passing {' '.join(d['passing'][s])}" if d["passing"][s] else ""
            lines.append(f"{mark} player_{s}: {' '.join(d['hands'][s]) or '-'}  "
                         f"points {d['points_taken'][s]}{chosen}")
        if d["trick"]:
            lines.append("trick: " + ", ".join(
                f"player_{c['seat']} {c['card']}" + (" (cancelled)" if c["cancelled"] else "") for c in d["trick"]))
        if d["moon_shooter"] is not None:
            lines.append(f"player_{d['moon_shooter']} shot the moon")
        if d["done"]:
            lines.append(f"game over, winners: {['player_%d' % s for s in d['winners']]}")
        return "\n".join(lines)
