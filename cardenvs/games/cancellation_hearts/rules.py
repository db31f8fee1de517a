"""Cancellation Hearts: the batched rules class (every rule of
``docs/cancellation_hearts.md``).

State is a :class:`~cardenvs.core.game.BatchState` of arrays with one row per
game (:class:`~.tables.Arrays` lists them); :class:`CancellationHeartsRules`
holds the configuration, deals (the only random draws) and hands each
phase's actions to its compiled kernel (:mod:`.apply`).  The PettingZoo env
(:mod:`cardenvs.games.cancellation_hearts.env`) and the vector engine
(:mod:`cardenvs.vector`) are both views over this class.

A hand: deal (floor(104 / n) cards each, the rest is the widow), passing
(3 single-card actions per seat, seats in turn from the dealer's left; the
exchange happens after the last choice), floor(104 / n) tricks, then the
scoring, with a moon-choice phase when one seat took all 26 hearts and both
Black Marias.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...core.cards import holdings
from ...core.game import NO_ROWS, BatchState, TurnBasedRules, choice, positive_int
from . import observation as ob
from .apply import choose_moon, pass_cards, play_cards
from .deal import deal_hands
from .tables import (
    ACTIONS,
    DECK,
    DONE,
    MAX_SEATS,
    MIN_SEATS,
    MOON_CHOICE,
    NUM_ACTIONS,
    NUM_TYPES,
    PASS_DIR_NAMES,
    PASSING,
    PHASE_NAMES,
    PLAYING,
    WIDOW_NOBODY,
    WIDOW_WAITING,
    ArrayValues,
    Config,
)


class CancellationHeartsRules(TurnBasedRules):
    """Batched Cancellation Hearts rules for one configuration.

    Config (defaults from the rules file): ``num_players`` 6..11 (6),
    ``target_score`` (150), ``max_hands`` (None = play to the target),
    ``reward`` ``"win_loss"``/``"score_delta"``, ``passing``
    ``"left_right"``/``"none"``.
    """

    name = "cancellation_hearts_v0"
    title = "Cancellation Hearts"
    deck = DECK
    actions = ACTIONS
    low_score_wins = True
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
        self.num_players = choice("num_players", num_players, tuple(range(MIN_SEATS, MAX_SEATS + 1)))
        self.target_score = positive_int("target_score", target_score)
        self.max_hands = positive_int("max_hands", max_hands, allow_none=True)
        self.reward = choice("reward", reward, ("win_loss", "score_delta"))
        self.passing = choice("passing", passing, ("left_right", "none"))
        self.hand_size = DECK.num_cards // self.num_players
        self.widow_size = DECK.num_cards % self.num_players
        self.config = Config(
            num_players=self.num_players,
            hand_size=self.hand_size,
            widow_size=self.widow_size,
            passing=self.passing != "none",
            target_score=self.target_score,
            max_hands=self.max_hands or 0,
            score_delta=self.reward == "score_delta",
        )
        self.config_values = tuple(self.config)  # as the kernels take it (see tables.Arrays)

    # ------------------------------------------------------------------ state
    def new_state(self, batch: int, rng: np.random.Generator) -> BatchState:
        """A state of ``batch`` games: the common fields and the arrays of
        :class:`~.tables.Arrays` (their meaning is documented there)."""
        players, games = self.num_players, batch
        state = self.common_state(batch, rng, players)
        state.phase[:] = DONE
        state.hands = np.zeros((games, players, NUM_TYPES), np.int8)
        state.pass_dir = np.zeros(games, np.int64)
        state.pass_chosen = np.zeros((games, players, NUM_TYPES), np.int8)
        state.pass_count = np.zeros(games, np.int64)
        state.widow = np.zeros((games, NUM_TYPES), np.int8)
        state.widow_holder = np.full(games, WIDOW_NOBODY, np.int64)
        state.trick = np.full((games, players), -1, np.int64)
        state.trick_slot = np.zeros((games, NUM_TYPES), np.int8)
        state.leader = np.zeros(games, np.int64)
        state.in_trick = np.zeros(games, np.int64)
        state.trick_no = np.zeros(games, np.int64)
        state.pile = np.zeros((games, NUM_TYPES), np.int8)
        state.pile_points = np.zeros(games, np.int64)
        state.taken = np.zeros((games, players, NUM_TYPES), np.int8)
        state.uncollected = np.zeros((games, NUM_TYPES), np.int8)
        state.points = np.zeros((games, players), np.int64)
        state.seen_points = np.zeros((games, players), np.int64)
        state.hearts_broken = np.zeros(games, bool)
        state.moon_seat = np.full(games, -1, np.int64)
        state.private = np.zeros((games, players, ob.KEPT_SIZE), np.int8)
        state.public = np.zeros((games, ob.PUBLIC_SIZE), np.int8)
        return state

    def start_game(self, state: BatchState, rows: np.ndarray) -> None:
        self._deal(state, rows)

    def _deal(self, state: BatchState, rows: np.ndarray, keys: np.ndarray | None = None) -> None:
        """Deal a new hand in ``rows`` (dealer already set) and open it."""
        deal_hands(rows, self.deck_orders(state, rows, keys), self.config_values, state.bundle(ArrayValues))

    # ------------------------------------------------------------------ step
    def advance(self, state: BatchState, actions: np.ndarray, rewards: np.ndarray) -> list[np.ndarray]:
        """The plays, passes and moon choices, each phase's rows by its
        kernel; the hands ended by plays, then by moon choices, are dealt
        anew (in that order)."""
        return self.step_by_phase(
            state, actions, rewards, ((PLAYING, self._play), (PASSING, self._pass), (MOON_CHOICE, self._moon))
        )

    def _pass(self, state: BatchState, rows: np.ndarray, actions: np.ndarray, rewards: np.ndarray) -> None:
        pass_cards(rows, actions, self.config_values, state.bundle(ArrayValues))

    def _play(self, state: BatchState, rows: np.ndarray, actions: np.ndarray, rewards: np.ndarray) -> np.ndarray:
        return self._then_next_hands(state, rows, play_cards, actions, rewards)

    def _moon(self, state: BatchState, rows: np.ndarray, actions: np.ndarray, rewards: np.ndarray) -> np.ndarray:
        return self._then_next_hands(state, rows, choose_moon, actions, rewards)

    def _then_next_hands(
        self, state: BatchState, rows: np.ndarray, apply: Callable[..., int], actions: np.ndarray, rewards: np.ndarray
    ) -> np.ndarray:
        """Apply ``actions`` in ``rows`` with the kernel ``apply`` and end the
        games whose last hand it finished; returns the other rows whose hand
        ended (their next hand is dealt)."""
        ended = np.empty((3, len(rows)), np.int64)  # the rows whose hand ended; 1 where that ended the game; room
        count = apply(rows, actions, self.config_values, state.bundle(ArrayValues), rewards, ended)
        if not count:  # (the usual step: no hand ended)
            return NO_ROWS
        finished, game_over = ended[0, :count], ended[1, :count] == 1
        if np.count_nonzero(game_over):
            self.end_games(state, finished[game_over], DONE)
        return finished[~game_over]

    # ------------------------------------------------------------ observation
    def observe(self, state: BatchState, seats: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        return ob.encode(state, self.num_players, self.max_hands or 0, seats, rows)

    def observe_into(self, state: BatchState, seats: np.ndarray, out: np.ndarray) -> None:
        if out.dtype != self.obs_dtype:  # (obs_dtype="float32": the kernel writes int8/int16)
            return super().observe_into(state, seats, out)
        ob.encode(state, self.num_players, self.max_hands or 0, seats, None, out)

    def seat_scores(self, state: BatchState) -> np.ndarray:
        return state.scores.copy()

    # ------------------------------------------------------------ state_dict / render
    def state_dict(self, state: BatchState, row: int = 0) -> dict[str, Any]:
        players = self.num_players
        texts = DECK.counts_to_texts
        leader = int(state.leader[row])
        trick = state.trick[row, : state.in_trick[row]]
        cancelled = state.public[row, ob.CANCELLED : ob.CANCELLED + len(trick)]  # marked by apply.place_card
        holder = int(state.widow_holder[row])
        if holder >= 0:
            widow_status = "taken"
        elif holder == WIDOW_WAITING:
            widow_status = "face down"
        else:
            widow_status = "uncollected" if self.widow_size else "none"
        in_trick = holdings(np.zeros((1, len(trick)), np.int64), trick[None], 1, NUM_TYPES)[0, 0]
        return {
            **self.state_head(state, row, players, PHASE_NAMES, state.scores[row]),
            "pass_direction": PASS_DIR_NAMES[state.pass_dir[row]],
            "hands": [texts(state.hands[row, s]) for s in range(players)],
            # cards set aside to pass, until the exchange
            "passing": [texts(state.pass_chosen[row, s]) for s in range(players)],
            "leader": leader,
            "trick": [
                {"seat": (leader + k) % players, "card": DECK.texts[card], "cancelled": bool(flag)}
                for k, (card, flag) in enumerate(zip(trick, cancelled))
            ],
            "tricks_played": int(state.trick_no[row]),
            "carried": texts(state.pile[row] - in_trick),
            "taken": [texts(state.taken[row, s]) for s in range(players)],
            "uncollected": texts(state.uncollected[row]),
            # the widow's cards stay listed here wherever they went (widow_status)
            "widow": texts(state.widow[row]),
            "widow_status": widow_status,
            "widow_taken_by": holder if holder >= 0 else None,
            "points_taken": [int(points) for points in state.points[row]],
            "hearts_broken": bool(state.hearts_broken[row]),
            "moon_shooter": int(state.moon_seat[row]) if state.phase[row] == MOON_CHOICE else None,
            "winners": self.winners(state, row),
        }

    def render_title(self, d: dict[str, Any]) -> str:
        return (
            f"{self.title} ({self.num_players} players) hand {d['hand_number'] + 1}, dealer {d['dealer']}, "
            f"phase {d['phase']}, pass {d['pass_direction']}, scores {d['scores']}"
        )

    def render_lines(self, d: dict[str, Any]) -> list[str]:
        widow = f"hearts broken: {d['hearts_broken']}, widow: {d['widow_status']}"
        if d["widow_taken_by"] is not None:
            widow += f" (player_{d['widow_taken_by']})"
        if d["carried"]:
            widow += f", carried: {' '.join(d['carried'])}"
        lines = [widow]
        for s in range(self.num_players):
            chosen = f"  passing {' '.join(d['passing'][s])}" if d["passing"][s] else ""
            hand = " ".join(d["hands"][s]) or "-"
            lines.append(self.seat_line(d, s, f"{hand}  points {d['points_taken'][s]}{chosen}"))
        if d["trick"]:
            played = [
                f"player_{play['seat']} {play['card']}" + (" (cancelled)" if play["cancelled"] else "")
                for play in d["trick"]
            ]
            lines.append("trick: " + ", ".join(played))
        if d["moon_shooter"] is not None:
            lines.append(f"player_{d['moon_shooter']} shot the moon")
        return lines
