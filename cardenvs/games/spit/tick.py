"""The real-time tick Spit and Speed share: :class:`TickRules`, the base of
:class:`~cardenvs.games.spit.rules.SpitRules` and
:class:`~cardenvs.games.spit.speed.rules.SpeedRules`.

At every *tick* both players submit one action.  A seeded coin per game
decides whose action is applied first (the faster hand); each action is
checked against the position as it is when applied, and one that no longer
fits (the other player just covered that pile) or comes after the end of the
game does nothing.  Then the automatic events of the variant (turning
cards, stalemates, the end of a deal) and its legal masks; last, games that
reached ``max_ticks`` are truncated (a draw).

This module holds what both variants do alike: the options they share, the
common state fields, the tick's skeleton and coin, the end of a game, and
the skeletons of ``state_dict`` and the text render.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.game import BatchState, GameRules, choice, positive_int
from ...core.shards import in_shards
from ...core.simultaneous import SimultaneousRules, SimultaneousVectorEnv
from .scoring import truncate
from .tables import DECK, DONE, NONE, PHASE_NAMES, WAIT


def faster_hands(state: BatchState) -> np.ndarray:
    """The faster hand of each game this tick (the seat whose action is
    applied first): a seeded coin per game, drawn from the batch's
    generator."""
    return (state.random(state.every_row()) < 0.5).astype(np.int64)


class TickRules(GameRules, SimultaneousRules):
    """What Spit and Speed share.  A variant sets ``variant``, ``title`` and
    ``round_name``, and implements ``start_game``, ``play_tick``,
    ``follow_up``, ``observe``, ``variant_state_dict``, ``seat_text`` and
    ``centre_text``.

    Shared options (defaults from the rules file): ``alternate_colors``
    (False), ``max_ticks`` (5000; None = no limit), ``reward``
    ``"win_loss"``/``"cards_shed"``/``"cards_held"``, ``stall_ticks`` (30;
    None = the originals' stalemate only: a player who can play may wait
    for ever).  (An illegal action never reaches the
    rules: the views play it as ``illegal_action`` says, :mod:`cardenvs.core.illegal`.)
    """

    name = "spit_v0"
    variant = ""
    round_name = ""  # what one hand is called in the render: "deal" or "game"
    deck = DECK
    num_players = 2
    wait_action = WAIT
    vector_env_class = SimultaneousVectorEnv

    def __init__(
        self,
        alternate_colors: bool = False,
        max_ticks: int | None = 5000,
        reward: str = "win_loss",
        stall_ticks: int | None = 30,
    ):
        if not isinstance(alternate_colors, (bool, np.bool_)):
            raise ValueError(f"alternate_colors must be one of [False, True], got {alternate_colors!r}")
        self.alternate_colors = bool(alternate_colors)
        self.max_ticks = positive_int("max_ticks", max_ticks, allow_none=True)
        # the stall rule: this many ticks of play with no card played (or spat) count as a stalemate
        self.stall_ticks = positive_int("stall_ticks", stall_ticks, allow_none=True)
        self.reward = choice("reward", reward, ("win_loss", "cards_shed", "cards_held"))
        if self.reward == "cards_held" and self.variant != "spit":
            # (a Speed match of several games deals every player new cards: no one potential)
            raise ValueError(f"reward='cards_held' is for Spit only, not variant {self.variant!r}")
        # reward per card played (float32, the dtype of the rewards; 0: none)
        self.shed = np.float32(1.0 / 52 if self.reward == "cards_shed" else 0.0)
        # "cards_held": each tick pays 1/52 per card a player's holding shrank by (and costs as much
        # per card it grew by: a pile taken back after a slap), see held_cards
        self.held_reward = self.reward == "cards_held"

    # ------------------------------------------------------------------ state
    def common_state(self, batch: int, rng: np.random.Generator) -> BatchState:
        """A state with the fields both variants have: the phase, masks
        ``legal`` (B, 2, A), the episode's end, counters, scores, and the two
        centre piles (Spit's spit piles, Speed's centre piles), bottom first."""
        state = BatchState(batch, rng)
        state.phase = np.full(batch, DONE, np.int64)
        state.legal = np.zeros((batch, 2, self.num_actions), bool)
        state.done = np.zeros(batch, bool)
        state.truncated = np.zeros(batch, bool)
        state.deals = np.zeros(batch, np.int64)
        state.hand_number = np.zeros(batch, np.int64)
        state.dealer = np.zeros(batch, np.int64)
        state.scores = np.zeros((batch, 2), np.int64)
        state.winner = np.full(batch, -1, np.int64)
        state.ticks = np.zeros(batch, np.int64)
        # the stall rule's count: ticks of play since a card was last played onto a centre pile (or spat,
        # or turned from a side pile); at stall_ticks the position counts as a stalemate
        state.stall = np.zeros(batch, np.int64)
        state.centre = np.full((batch, 2, 52), NONE, np.int8)
        state.centre_count = np.zeros((batch, 2), np.int64)
        state.centre_top = np.full((batch, 2), NONE, np.int64)
        return state

    def reset(self, state: BatchState, rows: np.ndarray, dealer: int | None = None) -> None:
        """Start a new game in ``rows``.  ``dealer`` is recorded only: nobody
        deals in Spit or Speed (both players lay out their own cards)."""
        rows = np.asarray(rows, np.int64)
        state.done[rows] = False
        state.truncated[rows] = False
        state.deals[rows] = 0
        state.hand_number[rows] = 0
        state.dealer[rows] = 0 if dealer is None else dealer
        state.scores[rows] = 0
        state.winner[rows] = -1
        state.ticks[rows] = 0
        self.start_game(state, rows)  # (its deal starts the stall rule's count: lay_out, deal_games)

    def start_game(self, state: BatchState, rows: np.ndarray) -> None:
        """Deal the first hand of a new game in ``rows`` (counters are reset)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ tick
    def step(self, state: BatchState, actions: np.ndarray) -> np.ndarray:
        """One tick: ``actions`` (B, 2); returns the rewards (B, 2).

        The coin is drawn here, for every game; then the plays, on the row
        shards of ``state`` (:func:`~cardenvs.core.shards.in_shards`: in
        threads, drawing nothing); then, over the whole batch in this
        thread, what draws (:meth:`follow_up`: new deals, stalemates) and the
        ``max_ticks`` cut."""
        actions = np.asarray(actions, np.int64)
        rewards = np.zeros((state.batch, 2), np.float32)
        held = self.held_cards(state) if self.held_reward else None
        first = faster_hands(state)
        requests = in_shards(
            state, lambda view, lo, hi: self.advance(view, actions[lo:hi], first[lo:hi], rewards[lo:hi])
        )
        self.follow_up(state, requests, rewards)
        truncate(state, self.max_ticks)
        if held is not None:
            rewards += self.held_change(held, state)
        return rewards

    def held_cards(self, state: BatchState) -> np.ndarray:
        """``(B, 2)``: the cards each player still has to get rid of (the
        ``"cards_held"`` reward's potential; implemented by Spit)."""
        raise NotImplementedError

    def held_change(self, before: np.ndarray, state: BatchState) -> np.ndarray:
        """The ``"cards_held"`` reward of a tick, ``(B, 2)`` float32: 1/52 per
        card a player's holding shrank by since ``before``.  A potential-based
        shaping (minus the cards held, /52): over a game it sums to what the
        holdings changed by, so unlike ``"cards_shed"`` (which pays again for
        every card played a second time after a pile was taken back) it can
        not be earned by losing deals."""
        return ((before - self.held_cards(state)) / np.float32(52)).astype(np.float32)

    def advance(self, state: BatchState, actions: np.ndarray, first: np.ndarray, rewards: np.ndarray) -> list[Any]:
        """The tick of the games of a row view (no draws): the clock, then
        the plays (:meth:`play_tick`)."""
        active = ~state.done
        # in place: ``state.ticks += ...`` would rebind the attribute and drop the state's bundles
        np.add(state.ticks, active, out=state.ticks)
        return self.play_tick(state, actions, first, active, rewards)

    def play_tick(
        self, state: BatchState, actions: np.ndarray, first: np.ndarray, active: np.ndarray, rewards: np.ndarray
    ) -> list[Any]:
        """Apply the actions of the ``active`` games, seat ``first`` first
        (no draws); returns the requests for :meth:`follow_up` (see
        :func:`~cardenvs.core.shards.in_shards`): the games to deal anew."""
        raise NotImplementedError

    def follow_up(self, state: BatchState, requests: list[Any], rewards: np.ndarray) -> None:
        """Over the whole batch: deal the games of ``requests`` anew, then
        the automatic events (stalemates) and the legal masks."""
        raise NotImplementedError

    # ------------------------------------------------------------------ results
    def seat_scores(self, state: BatchState) -> np.ndarray:
        return state.scores.copy()

    def winners(self, state: BatchState, row: int = 0) -> list[int]:
        """The seat that won a finished game; none for a draw or a
        truncation (which are not decided by the scores)."""
        return [int(state.winner[row])] if state.done[row] and state.winner[row] >= 0 else []

    # ------------------------------------------------------------ state_dict / render
    def state_dict(self, state: BatchState, row: int = 0) -> dict[str, Any]:
        b = row
        out: dict[str, Any] = {
            "game": self.name,
            "variant": self.variant,
            "phase": PHASE_NAMES[state.phase[b]],
            "dealer": int(state.dealer[b]),
            "hand_number": int(state.hand_number[b]),
            "scores": [int(x) for x in state.scores[b]],
            "done": bool(state.done[b]),
            "truncated": bool(state.truncated[b]),
            "winner": None if state.winner[b] < 0 else int(state.winner[b]),
            "tick": int(state.ticks[b]),
            "stall": int(state.stall[b]),
            "spit_piles": [card_texts(state.centre[b, p], state.centre_count[b, p]) for p in range(2)],
        }
        out.update(self.variant_state_dict(state, b))
        return out

    def variant_state_dict(self, state: BatchState, row: int) -> dict[str, Any]:
        """The variant's own entries of :meth:`state_dict`."""
        raise NotImplementedError

    def render(self, state: BatchState, row: int = 0) -> str:
        # GameRules.render's skeleton, with this game's result line: a
        # truncation or a draw has no winner, whatever the scores.
        d = self.state_dict(state, row)
        lines = [self.render_title(d), *self.render_lines(d)]
        if d["done"]:
            lines.append(f"game over: {self.result_text(d)}")
        return "\n".join(lines)

    @staticmethod
    def result_text(d: dict[str, Any]) -> str:
        if d["truncated"]:
            return "truncated (draw)"
        return "draw" if d["winner"] is None else f"player_{d['winner']} wins"

    def render_title(self, d: dict[str, Any]) -> str:
        return (
            f"{self.title} tick {d['tick']}, {self.round_name} {d['hand_number'] + 1}, "
            f"phase {d['phase']}, scores {d['scores']}"
        )

    def render_lines(self, d: dict[str, Any]) -> list[str]:
        """Each player's cards, with the centre between them."""
        return [f"player_0: {self.seat_text(d, 0)}", self.centre_text(d), f"player_1: {self.seat_text(d, 1)}"]

    @staticmethod
    def piles_text(d: dict[str, Any]) -> str:
        """The two centre piles: top card and size."""
        piles = d["spit_piles"]
        return "  ".join(f"pile {p}: {(piles[p] or ['--'])[-1]} ({len(piles[p])} cards)" for p in range(2))

    def seat_text(self, d: dict[str, Any], seat: int) -> str:
        raise NotImplementedError

    def centre_text(self, d: dict[str, Any]) -> str:
        raise NotImplementedError


def card_texts(cards: np.ndarray, count: int, top_first: bool = False) -> list[str]:
    """The texts of the first ``count`` cards of a stack stored bottom first
    (reversed: top first)."""
    texts = [DECK.texts[int(c)] for c in cards[:count]]
    return texts[::-1] if top_first else texts
