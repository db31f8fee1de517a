"""Speed: the batched rules class (the Speed rules of ``docs/spit.md``).

:class:`SpeedRules` holds the configuration and applies a tick to all rows
at once in whole-batch numpy (branches are row subsets); the tick's
skeleton, the seeded coin and the end of the episode are Spit's
(:class:`~cardenvs.games.spit.tick.TickRules`).  After the plays come the
automatic events: stalemates (the side piles flip, rebuilt from the centre
when they run dry; a game nobody can ever continue is a draw), the end of a
game, and the legal masks.  Built through ``spit_v0`` with
``variant="speed"`` (:func:`cardenvs.games.spit.rules.spit_rules`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ....core.game import NO_ROWS, BatchState, choice, positive_int
from ....core.shards import deal_in_shards
from ..scoring import finish_games
from ..tables import NONE, PLAYING, WAIT, adjacency
from ..tick import TickRules, card_texts
from . import apply, deal, legal, observation, scoring
from .tables import SIDE_PILE_CHOICES, SPEED_ACTIONS, fitting_cards, stock_size


class SpeedRules(TickRules):
    """Batched Speed rules for one configuration.

    Config (defaults from the rules file): ``speed_side_piles`` 10/5,
    ``target_score`` (None or a positive int), and the options of
    :class:`~cardenvs.games.spit.tick.TickRules` (``alternate_colors``,
    ``max_ticks``, ``reward``).
    """

    variant = "speed"
    title = "Speed"
    round_name = "game"
    own_options = {"speed_side_piles": 10, "target_score": None}  # the options only Speed has, at their defaults
    #: How each of :attr:`own_options` is checked (ValueError naming it): by ``__init__``, and by
    #: :func:`~cardenvs.games.spit.rules.spit_rules` when it is given with the other variant.
    own_checks = {
        "speed_side_piles": lambda value: choice("speed_side_piles", value, SIDE_PILE_CHOICES),
        "target_score": lambda value: positive_int("target_score", value, allow_none=True),
    }
    actions = SPEED_ACTIONS
    num_actions = len(SPEED_ACTIONS)
    obs_size = observation.LAYOUT.size

    def __init__(self, speed_side_piles: int = 10, target_score: int | None = None, **shared: Any):
        super().__init__(**shared)
        self.speed_side_piles = self.own_checks["speed_side_piles"](speed_side_piles)
        self.target_score = self.own_checks["target_score"](target_score)
        self.side_pile_size = self.speed_side_piles
        self.stock_size = stock_size(self.side_pile_size)  # 15 (20 with side piles of 5)
        self.fits = fitting_cards(self.alternate_colors)  # (53, 52)
        self.fits_flat = adjacency(self.alternate_colors).ravel()  # [top * 53 + card]
        max_score = observation.score_bound(self.target_score)
        self.obs_dtype = observation.obs_dtype(max_score, self.max_ticks, self.stall_ticks)
        self.obs_low, self.obs_high = (b.astype(np.float32) for b in observation.speed_layout(max_score).bounds())

    # ------------------------------------------------------------------ state
    def new_state(self, batch: int, rng: np.random.Generator) -> BatchState:
        """A state of ``batch`` games: besides the common fields, the hands
        (B, 2, 52) bool, the stocks and side piles (B, 2, 52), bottom first,
        with their counts."""
        state = self.common_state(batch, rng)
        state.hand = np.zeros((batch, 2, 52), bool)
        state.hand_count = np.zeros((batch, 2), np.int64)
        state.stock = np.full((batch, 2, 52), NONE, np.int16)
        state.stock_count = np.zeros((batch, 2), np.int64)
        state.side_piles = np.full((batch, 2, 52), NONE, np.int16)
        state.side_count = np.zeros((batch, 2), np.int64)
        # the side piles were rebuilt from the centre this game: both players
        # saw those cards, so the side piles' cards are known (not their order)
        state.side_rebuilt = np.zeros(batch, bool)
        return state

    def start_game(self, state: BatchState, rows: np.ndarray) -> None:
        self._deal(state, rows)
        self._settle(state, rows)
        for _ in range(100):
            # A deal nobody could ever play from (vanishingly rare) is
            # dealt again, so that an episode never starts finished.
            dead = rows[state.done[rows]]
            if not dead.size:
                break
            state.done[dead] = False
            state.hand_number[dead] = 0
            self._deal(state, dead)
            self._settle(state, dead)

    def _deal(self, state: BatchState, rows: np.ndarray, keys: np.ndarray | None = None) -> None:
        orders = self.deck_orders(state, rows, keys)
        deal.deal_games(state, rows, orders, self.stock_size, self.side_pile_size)

    # ------------------------------------------------------------------ tick
    def play_tick(
        self, state: BatchState, actions: np.ndarray, first: np.ndarray, active: np.ndarray, rewards: np.ndarray
    ) -> list[np.ndarray]:
        """The faster hands' plays, then the slower ones' (a card lands only
        if it still fits, and not after the game ended).  Returns the games
        won by the faster hands, then by the slower, that go on to the next
        game (a target score not reached)."""
        ended = np.zeros(state.batch, bool)  # the game ended during this tick
        state.stall[active & (state.phase == PLAYING)] += 1  # (a card played starts it again: apply.play_cards)
        flat_actions, base = actions.reshape(-1), 2 * np.arange(state.batch)
        next_games = [NO_ROWS, NO_ROWS]
        for k in (0, 1):
            seat = first ^ k
            action = flat_actions[base + seat]
            rows = np.flatnonzero(active & ~ended & (action != WAIT))
            if rows.size:
                out_rows, out_seats = apply.play_cards(
                    state, rows, seat[rows], action[rows], k == 1, self.fits_flat, self.shed, rewards
                )
                if out_rows.size:
                    ended[out_rows] = True
                    next_games[k] = self._won(state, out_rows, out_seats, rewards)
        return next_games

    def follow_up(self, state: BatchState, requests: list[np.ndarray], rewards: np.ndarray) -> None:
        """The next games are dealt (those won by the faster hands first);
        then stalemates and masks (:meth:`_settle`).  The deck orders are
        drawn here; the deals and masks made in the row shards; stalemates
        (they draw) resolved here."""
        (stuck,) = deal_in_shards(state, self.deck, requests, self._deal, lambda view: [self._masks(view, None)])
        self._unstick(state, stuck)

    def _won(self, state: BatchState, rows: np.ndarray, seats: np.ndarray, rewards: np.ndarray) -> np.ndarray:
        """``seats`` won the game in ``rows``: the episode ends, or (with a
        target score not reached) the next game is dealt: returns those rows."""
        scoring.score_game(state, rows, seats)
        over = scoring.match_won(state, rows, seats, self.target_score)
        finish_games(state, rows[over], seats[over], rewards)
        return rows[~over]

    def _settle(self, state: BatchState, rows: np.ndarray | None) -> None:
        """Nobody can play: the side piles flip a card each onto the centre
        pile beside them (rebuilt from the centre when both are empty) until
        somebody can; a game nobody can ever continue is a draw.  Then the
        legal masks of ``rows`` (None: all)."""
        self._unstick(state, self._masks(state, rows))

    def _masks(self, state: BatchState, rows: np.ndarray | None) -> np.ndarray:
        """Write the legal masks of the games ``rows`` (None: all); returns
        those where nobody can play (stuck)."""
        plays = legal.playable(self.fits, state, rows)
        legal.write_masks(state, rows, plays)
        stuck = legal.stuck(state, rows, plays) | legal.stalled(state, rows, self.stall_ticks)
        return np.flatnonzero(stuck) if rows is None else rows[stuck]

    def _unstick(self, state: BatchState, rows: np.ndarray) -> None:
        """The stuck games ``rows`` (in row order): their side piles flip,
        round after round (:meth:`_flip`, seeded draws), until somebody can
        play or the game is over; then their masks."""
        stuck = rows
        for guard in range(10001):
            if not stuck.size:
                break
            if guard == 10000:
                raise RuntimeError("Speed stalemate resolution did not converge")
            self._flip(state, stuck)
            stuck = stuck[legal.stuck(state, stuck, legal.playable(self.fits, state, stuck))]
        if rows.size:
            self._masks(state, rows)

    def _flip(self, state: BatchState, rows: np.ndarray) -> None:
        """Stuck games ``rows``: a game nobody can ever continue is a draw
        (this includes "no card left to turn"); in the others the side piles
        flip, rebuilt first from the cards under the centre tops (in a
        seeded random order) where both are empty."""
        hope = legal.can_ever_play(self.fits, state, rows)
        dead = rows[~hope]
        if dead.size:
            self._draw(state, dead)
        rows = rows[hope]
        if not rows.size:
            return
        dry = rows[(state.side_count[rows] == 0).all(axis=1)]
        if dry.size:
            keys = state.random(dry, state.centre.shape[1] * state.centre.shape[2])
            apply.rebuild_side_piles(state, dry, keys)
        apply.flip_side_piles(state, rows)

    def _draw(self, state: BatchState, rows: np.ndarray) -> None:
        """Nobody can ever play again: a drawn game (no points).  With a
        target score the next game is dealt; otherwise the episode ends."""
        state.hand_number[rows] += 1
        if self.target_score is None:
            finish_games(state, rows, np.full(len(rows), -1), np.zeros((state.batch, 2), np.float32))
        else:
            self._deal(state, rows)

    # ------------------------------------------------------------ observation
    def observe(self, state: BatchState, rows: np.ndarray | None = None) -> np.ndarray:
        return observation.observe(state, rows, self.obs_dtype, (self.max_ticks, self.stall_ticks))

    def observe_into(self, state: BatchState, out: np.ndarray) -> None:
        observation.observe(state, None, out.dtype, (self.max_ticks, self.stall_ticks), out)

    # ------------------------------------------------------------ state_dict / render
    def variant_state_dict(self, state: BatchState, row: int) -> dict[str, Any]:
        b = row
        return {
            "hands": [self.deck.texts_of(np.flatnonzero(state.hand[b, s])) for s in range(2)],
            "stocks": [card_texts(state.stock[b, s], state.stock_count[b, s], top_first=True) for s in range(2)],
            "side_piles": [
                card_texts(state.side_piles[b, p], state.side_count[b, p], top_first=True) for p in range(2)
            ],
        }

    def seat_text(self, d: dict[str, Any], seat: int) -> str:
        return f"hand {' '.join(d['hands'][seat]) or '-'}  stock {len(d['stocks'][seat])}"

    def centre_text(self, d: dict[str, Any]) -> str:
        sides = d["side_piles"]
        return f"centre {self.piles_text(d)}  side piles {len(sides[0])}/{len(sides[1])}"
