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

from ..core.cards import deal_round_robin, holdings, standard_deck
from ..core.game import BatchState, TurnBasedRules, choice, positive_int
from ..core.jit import kernel
from ..core.tricks import playable
from . import observation as ob

DECK = standard_deck(copies=2)  # 52 card types, two copies each
NUM_TYPES = DECK.num_types
SUIT = DECK.suit.astype(np.int64)
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

# The card types of each suit (following: a row of SUIT_CARDS), and the card
# types a player may lead, by situation (a row of LEAD_ALLOWED); when the
# hand holds none of them, any card it holds may be played (core.tricks.playable).
SUIT_CARDS = SUIT[None, :] == np.arange(4)[:, None]
LEAD_BROKEN, LEAD_UNBROKEN, LEAD_OPENING = 0, 1, 2
LEAD_ALLOWED = np.zeros((3, NUM_TYPES), bool)
LEAD_ALLOWED[LEAD_BROKEN] = True
LEAD_ALLOWED[LEAD_UNBROKEN] = ~IS_HEART  # hearts not led until broken
LEAD_ALLOWED[LEAD_OPENING] = ~BREAKS_HEARTS  # the opening lead: no heart, no Black Maria


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

    def __init__(
        self,
        num_players: int = 6,
        target_score: int = 150,
        max_hands: int | None = None,
        reward: str = "win_loss",
        passing: str = "left_right",
    ):
        self.num_players = choice("num_players", num_players, tuple(range(6, 12)))
        self.target_score = positive_int("target_score", target_score)
        self.max_hands = positive_int("max_hands", max_hands, allow_none=True)
        self.reward = choice("reward", reward, ("win_loss", "score_delta"))
        self.passing = choice("passing", passing, ("left_right", "none"))
        n = self.num_players
        self.hand_size = DECK.num_cards // n
        self.num_tricks = self.hand_size
        self.widow_size = DECK.num_cards % n
        self.seats = np.arange(n)
        # relative_seat[viewer, seat]: seat as seen from viewer (0 = self, 1 = left neighbour)
        self.relative_seat = (self.seats[None, :] - self.seats[:, None]) % n
        self.seat_of_relative = (self.seats[:, None] + self.seats[None, :]) % n  # [viewer, relative seat]
        self.action_texts = (
            [f"pass {t}" for t in DECK.texts] + [f"play {t}" for t in DECK.texts] + ["moon self", "moon others"]
        )
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
        deal_rows(rows, self.deck_orders(state, rows), state.dealer, n, self.hand_size, state.hands, state.widow)
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
        legal_masks(
            rows, state.phase, state.current, state.hands, state.trick, state.trick_no, state.hearts_broken, state.legal
        )

    # ------------------------------------------------------------------ step
    def step(self, state: BatchState, actions: np.ndarray) -> np.ndarray:
        return self.step_by_phase(
            state, actions, ((PLAYING, self._play), (PASSING, self._pass), (MOON_CHOICE, self._moon))
        )

    def _pass(self, state, rows, actions, rewards) -> None:
        """One card set aside to pass; after the last seat's third card, the exchange."""
        pass_cards(
            rows,
            actions,
            self.num_players,
            state.hands,
            state.pass_chosen,
            state.pass_count,
            state.pass_dir,
            state.dealer,
            state.leader,
            state.current,
            state.phase,
            state.private,
            state.public,
            state.trick,
            state.trick_no,
            state.hearts_broken,
            state.legal,
        )

    def _play(self, state, rows, actions, rewards) -> None:
        """One card played per row (tricks resolved as they fill); the hands that end are scored."""
        hand_over = np.empty(len(rows), np.int64)
        ended = play_cards(
            rows,
            actions,
            self.num_players,
            self.num_tricks,
            state.phase,
            state.hands,
            state.current,
            state.leader,
            state.in_trick,
            state.trick_no,
            state.trick,
            state.trick_slot,
            state.pile,
            state.pile_points,
            state.taken,
            state.uncollected,
            state.points,
            state.seen_points,
            state.widow,
            state.widow_holder,
            state.hearts_broken,
            state.public,
            state.legal,
            hand_over,
        )
        if ended:
            self._score_hand(state, hand_over[:ended], rewards)

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
            state.public[m, ob.PHASE : ob.PHASE + 3] = 0
            state.public[m, ob.PHASE + MOON_CHOICE] = 1
            state.legal[m] = False
            state.legal[m, MOON_SELF : MOON_OTHERS + 1] = True
        if (~shot).any():
            self._finish_hand(state, rows[~shot], points[~shot], rewards)

    def _moon(self, state, rows, actions, rewards) -> None:
        is_shooter = state.moon_seat[rows, None] == self.seats[None, :]
        delta = np.where(
            (actions == MOON_SELF)[:, None], np.where(is_shooter, -MOON_SWING, 0), np.where(is_shooter, 0, MOON_SWING)
        )
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
            state.public[end, ob.PHASE : ob.PHASE + 3] = 0
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
        if (
            isinstance(action, (bool, np.bool_))
            or not isinstance(action, (int, np.integer))
            or not 0 <= action < NUM_ACTIONS
        ):
            raise ValueError(f"action {action!r} out of range 0..{NUM_ACTIONS - 1}")
        return self.action_texts[int(action)]

    def str_to_action(self, text: str) -> int:
        try:
            return self.action_ids[text]
        except (KeyError, TypeError):
            raise ValueError(
                f"unknown Cancellation Hearts action {text!r}; expected 'pass 7H', "
                "'play 7H', 'moon self' or 'moon others'"
            ) from None

    # ------------------------------------------------------------ state_dict / render
    def state_dict(self, state: BatchState, row: int = 0) -> dict[str, Any]:
        n, b = self.num_players, row
        texts = DECK.counts_to_texts
        leader = int(state.leader[b])
        trick = state.trick[b, : state.in_trick[b]]
        cancelled = state.public[b, ob.CANCELLED : ob.CANCELLED + len(trick)]  # marked by play_cards
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
            "trick": [
                {"seat": (leader + k) % n, "card": DECK.texts[c], "cancelled": bool(x)}
                for k, (c, x) in enumerate(zip(trick, cancelled))
            ],
            "tricks_played": int(state.trick_no[b]),
            "carried": texts(
                state.pile[b] - holdings(np.zeros((1, len(trick)), np.int64), trick[None], 1, NUM_TYPES)[0, 0]
            ),
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
        lines = [
            f"Cancellation Hearts ({self.num_players} players) hand {d['hand_number'] + 1}, "
            f"dealer {d['dealer']}, phase {d['phase']}, pass {d['pass_direction']}, scores {d['scores']}",
            f"hearts broken: {d['hearts_broken']}, widow: {d['widow_status']}"
            + (f" (player_{d['widow_taken_by']})" if d["widow_taken_by"] is not None else "")
            + (f", carried: {' '.join(d['carried'])}" if d["carried"] else ""),
        ]
        for s in range(self.num_players):
            mark = "*" if s == d["current_player"] else " "
            chosen = f"  passing {' '.join(d['passing'][s])}" if d["passing"][s] else ""
            lines.append(f"{mark} player_{s}: {' '.join(d['hands'][s]) or '-'}  points {d['points_taken'][s]}{chosen}")
        if d["trick"]:
            lines.append(
                "trick: "
                + ", ".join(
                    f"player_{c['seat']} {c['card']}" + (" (cancelled)" if c["cancelled"] else "") for c in d["trick"]
                )
            )
        if d["moon_shooter"] is not None:
            lines.append(f"player_{d['moon_shooter']} shot the moon")
        if d["done"]:
            lines.append(f"game over, winners: {['player_' + str(s) for s in d['winners']]}")
        return "\n".join(lines)


# ---------------------------------------------------------------- kernels
# Per-row loops over the state's arrays (see cardenvs.core.jit); the module's
# constant tables are frozen into the compiled code.  Card type t is suit
# t // 13, rank t % 13 (DECK's order).


@kernel
def legal_masks(rows, phase, current, hands, trick, trick_no, hearts_broken, legal):
    """Rewrite ``legal[row]`` for every row in ``rows`` (:func:`legal_row`)."""
    for i in range(rows.shape[0]):
        row = rows[i]
        legal_row(
            legal[row], hands[row, current[row]], phase[row], trick[row, 0], trick_no[row] == 0, hearts_broken[row]
        )


@kernel
def legal_row(mask, hand, phase, lead_card, opening, hearts_broken):
    """Rewrite one row's legal ``mask`` (its seat to act holds ``hand``) from its phase.

    Passing: any card held.  Playing: follow the suit of ``lead_card`` if
    able (-1: leading); a lead may not be a heart before hearts are broken,
    and the ``opening`` lead neither a heart nor a Black Maria, unless the
    hand holds nothing else.  Moon choice: both choices.  Over: nothing.

    (Takes the row's slices, not the whole arrays: a call passes every
    array as several machine words, and this runs once per row.)
    """
    mask[:] = False
    if phase == MOON_CHOICE:
        mask[MOON_SELF] = True
        mask[MOON_OTHERS] = True
        return
    if phase == PASSING:
        held_cards(hand, mask[PASS0 : PASS0 + NUM_TYPES])
        return
    if phase != PLAYING:
        return
    play = mask[PLAY0 : PLAY0 + NUM_TYPES]
    if lead_card >= 0:  # following: the suit led if the hand holds any
        playable(play, hand, SUIT_CARDS[SUIT[lead_card]])
    else:
        playable(
            play, hand, LEAD_ALLOWED[LEAD_OPENING if opening else (LEAD_BROKEN if hearts_broken else LEAD_UNBROKEN)]
        )


@kernel
def held_cards(counts, mask):
    """``mask[:] = counts > 0``."""
    for t in range(counts.shape[0]):
        mask[t] = counts[t] > 0


@kernel
def deal_rows(rows, orders, dealer, n, hand_size, hands, widow):
    """Deal deck ``orders[i]`` (card types, top first) in game ``rows[i]``:
    one card at a time clockwise from the dealer's left, ``hand_size`` each;
    the cards left over are the widow."""
    for i in range(rows.shape[0]):
        row = rows[i]
        deal_round_robin(hands, row, orders[i], n * hand_size, dealer[row])
        widow[row] = 0
        for k in range(n * hand_size, orders.shape[1]):
            widow[row, orders[i, k]] += 1


@kernel
def pass_cards(
    rows,
    actions,
    n,
    hands,
    pass_chosen,
    pass_count,
    pass_dir,
    dealer,
    leader,
    current,
    phase,
    private,
    public,
    trick,
    trick_no,
    hearts_broken,
    legal,
):
    """Set one card aside to pass in each row (seats choose in turn from the
    dealer's left, 3 cards each; after the last choice, the exchange), then
    the row's new legal mask."""
    for i in range(rows.shape[0]):
        row = rows[i]
        seat = current[row]
        card = actions[i] - PASS0
        hands[row, seat, card] -= 1
        pass_chosen[row, seat, card] += 1
        private[row, seat, ob.PASSED + card] += 1
        count = pass_count[row] + 1
        pass_count[row] = count
        current[row] = (dealer[row] + 1 + count // CARDS_PASSED) % n
        if count == CARDS_PASSED * n:
            exchange(row, n, hands, pass_chosen, pass_dir, leader, current, phase, private, public)
        legal_row(
            legal[row], hands[row, current[row]], phase[row], trick[row, 0], trick_no[row] == 0, hearts_broken[row]
        )


@kernel
def exchange(row, n, hands, pass_chosen, pass_dir, leader, current, phase, private, public):
    """Everyone's passed cards reach their receiver at once; play starts."""
    giver_step = -1 if pass_dir[row] == LEFT else 1  # left: seat s receives from s - 1; right: from s + 1
    for s in range(n):
        giver = (s + giver_step) % n
        for t in range(NUM_TYPES):
            got = pass_chosen[row, giver, t]
            hands[row, s, t] += got
            private[row, s, ob.RECEIVED + t] = got
    pass_chosen[row] = 0
    phase[row] = PLAYING
    public[row, ob.PHASE + PASSING] = 0
    public[row, ob.PHASE + PLAYING] = 1
    public[row, ob.PHASE + MOON_CHOICE] = 0
    current[row] = leader[row]


@kernel
def play_cards(
    rows,
    actions,
    n,
    num_tricks,
    phase,
    hands,
    current,
    leader,
    in_trick,
    trick_no,
    trick,
    trick_slot,
    pile,
    pile_points,
    taken,
    uncollected,
    points,
    seen_points,
    widow,
    widow_holder,
    hearts_broken,
    public,
    legal,
    hand_over,
):
    """Play one card in each row, resolve the trick it completes and write
    the row's new legal mask; return how many hands ended, their rows
    written to ``hand_over[:count]`` (in ``rows`` order).

    A played card joins the pile (the cards the next trick's winner
    collects) and the public trick block; identical cards in one trick
    cancel (``trick_slot`` finds the twin).
    """
    ended = 0
    for i in range(rows.shape[0]):
        row = rows[i]
        seat = current[row]
        card = actions[i] - PLAY0
        suit = card // 13
        pos = in_trick[row]
        hands[row, seat, card] -= 1
        pile[row, card] += 1
        pile_points[row] += CARD_POINTS[card]
        twin = np.int64(trick_slot[row, card]) - 1  # an identical card already in this trick (-1: none)
        trick_slot[row, card] = pos + 1
        trick[row, pos] = card
        at = ob.TRICK + ob.CARD_PLANES * pos
        public[row, at + suit] = 1
        public[row, at + 4 + card % 13] = 1
        public[row, ob.SEEN + card] += 1
        if twin >= 0:  # identical cards cancel: mark the pair
            public[row, ob.CANCELLED + twin] = 1
            public[row, ob.CANCELLED + pos] = 1
        if BREAKS_HEARTS[card]:
            hearts_broken[row] = True
            public[row, ob.HEARTS_BROKEN] = 1
        pos += 1
        in_trick[row] = pos
        current[row] = (seat + 1) % n
        if pos == n and end_trick(
            row,
            n,
            num_tricks,
            current,
            leader,
            in_trick,
            trick_no,
            trick,
            trick_slot,
            pile,
            pile_points,
            taken,
            uncollected,
            points,
            seen_points,
            widow,
            widow_holder,
            public,
        ):
            hand_over[ended] = row
            ended += 1
        legal_row(
            legal[row], hands[row, current[row]], phase[row], trick[row, 0], trick_no[row] == 0, hearts_broken[row]
        )
    return ended


@kernel
def end_trick(
    row,
    n,
    num_tricks,
    current,
    leader,
    in_trick,
    trick_no,
    trick,
    trick_slot,
    pile,
    pile_points,
    taken,
    uncollected,
    points,
    seen_points,
    widow,
    widow_holder,
    public,
):
    """Resolve the full trick of ``row``; return whether that ended the hand.

    The highest uncancelled card of the suit led wins; with none the trick
    stays in the pile for the next trick won (and the same leader leads
    again).  The first trick won also takes the face-down widow; an
    unclaimed last trick (and what it carried) goes to nobody.
    """
    led = trick[row, 0] // 13
    best_rank, best_pos = -1, 0
    for k in range(n):  # (clearing the trick's entries on the way)
        c = trick[row, k]
        if c // 13 == led and public[row, ob.CANCELLED + k] == 0 and c % 13 > best_rank:
            best_rank, best_pos = c % 13, k
        trick_slot[row, c] = 0
        trick[row, k] = -1
        public[row, ob.TRICK + ob.CARD_PLANES * k + c // 13] = 0
        public[row, ob.TRICK + ob.CARD_PLANES * k + 4 + c % 13] = 0
        public[row, ob.CANCELLED + k] = 0
    in_trick[row] = 0
    trick_no[row] += 1
    if best_rank >= 0:  # the winner collects the trick and everything carried into it
        w = (leader[row] + best_pos) % n
        got = pile_points[row]
        points[row, w] += got
        seen_points[row, w] += got
        won, carried = taken[row, w], pile[row]
        for t in range(NUM_TYPES):
            won[t] += carried[t]
        carried[:] = 0
        pile_points[row] = 0
        if widow_holder[row] == WIDOW_WAITING:  # the first trick won takes the widow, face down
            widow_holder[row] = w
            for t in range(NUM_TYPES):
                points[row, w] += np.int64(widow[row, t]) * CARD_POINTS[t]
            public[row, ob.WIDOW_WAITING] = 0
        leader[row] = w  # (an unclaimed trick's leader leads again)
        public[row, ob.CARRIED_CARDS] = 0
    else:  # unclaimed: the pile waits for the next trick won
        public[row, ob.CARRIED_CARDS] += n
    current[row] = leader[row]
    public[row, ob.CARRIED_POINTS] = pile_points[row]
    if trick_no[row] < num_tricks:
        return False
    nobodys, carried = uncollected[row], pile[row]
    for t in range(NUM_TYPES):  # the hand is over: an unclaimed pile goes to nobody
        nobodys[t] += carried[t]
    carried[:] = 0
    pile_points[row] = 0
    if widow_holder[row] == WIDOW_WAITING:
        widow_holder[row] = WIDOW_NOBODY
    public[row, ob.CARRIED_POINTS] = 0
    public[row, ob.CARRIED_CARDS] = 0
    public[row, ob.WIDOW_WAITING] = 0
    return True
