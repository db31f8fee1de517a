"""Spit: the batched rules class (every rule of ``docs/spit.md``),
and :func:`spit_rules`, the rules of ``spit_v0`` by variant.

:class:`SpitRules` holds the configuration and applies a tick to all rows
at once (the tick's skeleton is :class:`~cardenvs.games.spit.tick.TickRules`,
shared with Speed): the per-row work is compiled (:mod:`.deal`,
:mod:`.legal`, :mod:`.apply`, :mod:`.scoring`); this class keeps the order
of a tick and every random draw.  After the actions come the automatic
events: turning face-down cards (immediate), stalemate spits, the end of a
deal, and the legal masks.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from ...core.game import NO_ROWS, BatchState, choice, positive_int
from ...core.jit import pack, raw_source
from ...core.onegame import OneGame, step_call
from ...core.shards import deal_in_shards
from ...core.simultaneous import SimultaneousVectorEnv
from . import apply, deal, legal, observation
from .scoring import truncate
from .speed.rules import SpeedRules
from .tables import (
    NONE,
    SLAPPING,
    STOCKPILE_CHOICES,
    TABLES_KINDS,
    VARIANTS,
    StatePack,
    action_tables,
    layout_tables,
    mask_tables,
    spit_action_table,
)
from .tick import TickRules, card_texts

# No stuck games: no still-stuck flags (bool: merged with other shards'
# flags, they must stay a bool mask; positions and rounds are NO_ROWS).
NOT_DRY = np.empty(0, bool)
NOT_DRY.flags.writeable = False
_ROW_0 = np.zeros(1, np.int64)  # (the row of a batch of one)


def coin_source(state: BatchState) -> tuple[int, int] | None:
    """What a batch of one's coin (``state.random(rows)[0] < 0.5``) can be
    drawn with in the tick's kernel (:func:`~.apply.tick_one`): the raw
    draw of the state's PCG64 (the default generator; see
    :func:`~cardenvs.core.jit.raw_source`), None for any other generator or
    per-game streams.  ``Generator.random()`` is ``(next64 >> 11) *
    2**-53``, below 0.5 exactly when the raw 64-bit draw is below 2**63:
    the same draw, the same coin, without ``random()``'s dtype handling nor
    a Python call (``random_raw()``, a visible part of a tick in the AEC loop).
    Kept among the state's bundles (which keep its ``rng`` alive): a state
    whose ``rng`` or ``streams`` is bound anew makes it again."""
    if state.streams is None and type(state.rng.bit_generator) is np.random.PCG64:
        return raw_source(state.rng)
    return None


def tick_requests(
    slaps: int,
    faster: int,
    ends: int,
    stuck_count: int,
    end_rows: np.ndarray,
    end_taker: np.ndarray,
    stuck: np.ndarray,
) -> list[Any]:
    """What :func:`~.apply.tick_rows` wrote, as the requests of
    :meth:`SpitRules.follow_up`: the rows and takers of the deals that
    ended by slaps, by the faster hands and by the slower, then the rows
    the masks found stuck (none when a deal ended: no masks were made)."""
    ended = [(end_rows[lo:hi], end_taker[lo:hi]) for lo, hi in ((0, slaps), (slaps, faster), (faster, ends))]
    return [*ended, np.flatnonzero(stuck) if stuck_count else NO_ROWS]


_ROW_0 = np.zeros(1, np.int64)  # the row of a batch of one


class SpitRules(TickRules):
    """Batched Spit rules for one configuration.

    Config (defaults from the rules file): ``stockpiles`` 5/4, and the
    options of :class:`~cardenvs.games.spit.tick.TickRules` (``alternate_colors``,
    ``max_ticks``, ``reward``).
    """

    variant = "spit"
    title = "Spit"
    round_name = "deal"
    own_options = {"stockpiles": 5}  # the options only Spit has, at their defaults
    #: How each of :attr:`own_options` is checked (ValueError naming it): by ``__init__``, and by
    #: :func:`spit_rules` when it is given with the other variant.
    own_checks = {"stockpiles": lambda value: choice("stockpiles", value, STOCKPILE_CHOICES)}
    obs_size = observation.LAYOUT.size
    obs_dtype = observation.OBS_DTYPE
    obs_low = observation.OBS_LOW
    obs_high = observation.OBS_HIGH

    def __init__(self, stockpiles: int = 5, **shared: Any):
        super().__init__(**shared)
        self.stockpiles = self.own_checks["stockpiles"](stockpiles)
        self.actions = spit_action_table(self.stockpiles)
        self.num_actions = len(self.actions)
        self.action_tables = action_tables(self.stockpiles, self.shed)
        self.mask_tables = mask_tables(self.stockpiles, self.alternate_colors)
        self.layout_tables = layout_tables(self.stockpiles)
        # as the kernels are called with them (see the packs in .tables)
        self.make_packs()

    pack_names = ("tables_pack",)

    def make_packs(self) -> None:
        # the tables as the kernels take them (see tables' packs)
        tables = (*self.action_tables, *self.mask_tables, *self.layout_tables)
        limits = (-1 if limit is None else limit for limit in (self.max_ticks, self.stall_ticks))
        self.tables_pack = pack((*tables, *limits), TABLES_KINDS)

    # ------------------------------------------------------------------ state
    def new_state(self, batch: int, rng: np.random.Generator) -> BatchState:
        """A state of ``batch`` games (see :class:`~.tables.SpitArrays` for
        the arrays of the layouts and spit cards)."""
        state = self.common_state(batch, rng)
        size = self.stockpiles
        state.stockpiles = np.full((batch, 2, size, size), NONE, np.int8)
        state.stockpile_count = np.zeros((batch, 2, size), np.int8)
        state.stockpile_top = np.full((batch, 2, size), NONE, np.int8)
        state.layout_count = np.zeros((batch, 2), np.int64)
        state.layout_shape = np.zeros((batch, 2), np.int64)
        state.spit_cards = np.full((batch, 2, 52), NONE, np.int8)
        state.spit_count = np.zeros((batch, 2), np.int64)
        # the seat each card joined face up when the cards were last gathered
        # (-1: never; both players saw it go there, so a face-down card is
        # known to be that seat's until it turns up again): what an
        # information-set sampler needs, kept here as only the rules see the
        # moment of gathering
        state.gathered = np.full((batch, 52), -1, np.int8)
        return state

    def start_game(self, state: BatchState, rows: np.ndarray) -> None:
        """The deck is split 26/26 (seat 0: the first 26 cards); each player
        lays out their cards and spits."""
        order = self.deck_orders(state, rows)
        state.gathered[rows] = -1
        cards = np.empty((len(rows), 2, 52), np.int64)  # (a few rows a step: fewer calls than stack + concatenate)
        cards.fill(NONE)
        cards[:, 0, :26], cards[:, 1, :26] = order[:, :26], order[:, 26:]
        self._lay_out(state, rows, cards, np.full((len(rows), 2), 26, np.int64))
        self._settle(state, rows)

    # ------------------------------------------------------------------ tick
    def play_tick(
        self, state: BatchState, actions: np.ndarray, first: np.ndarray, active: np.ndarray, rewards: np.ndarray
    ) -> list[Any]:
        """Slaps, plays and moves of the ``active`` games and, unless a deal
        ends in these games, their masks (one kernel,
        :func:`~.apply.tick_rows`).  Returns the requests of
        :meth:`follow_up`: the deals that ended, each with the seat taking
        spit pile 0 and pile 1 -- by slaps, by the faster hands going out,
        by the slower -- then the games the masks found stuck."""
        batch = state.batch
        end_rows, end_taker, stuck = np.empty(batch, np.int64), np.empty((batch, 2), np.int64), np.empty(batch, bool)
        arrays = state.bundle(StatePack)  # (a row view's own pack: its arrays are slices of the batch's)
        counts = apply.tick_rows(actions, first, active, self.tables_pack, arrays, rewards, end_rows, end_taker, stuck)
        return tick_requests(*counts, end_rows, end_taker, stuck)

    def follow_up(self, state: BatchState, requests: list[Any], rewards: np.ndarray) -> None:
        """The deals that ended are laid out anew, together, in the order of
        the seeded deck orders: slaps first, then the faster hands going
        out, then the slower; then stalemates and masks (:meth:`_settle`).
        The deck orders are drawn here; the layouts, masks and spits made in
        the row shards; the ends of stuck deals (they draw) here.  When no
        deal ended, the tick made every mask (:meth:`play_tick`): only the
        games it found stuck are left to settle."""
        *ended, stuck = requests
        rows = np.concatenate([rows for rows, _ in ended])
        if not rows.size:  # (the usual tick)
            if stuck.size:
                spat, dry = self._spit_until_playable(state, stuck)
                self._end_stalemates(state, state.every_row(), stuck, spat, dry)
            return
        takers = np.concatenate([taker for _, taker in ended])
        (stalemates,) = deal_in_shards(
            state,
            self.deck,
            [(rows, takers)],
            lambda view, rows, keys, takers: self._new_layouts(view, rows, takers, keys),
            lambda view: [self._spit_stalemates(view, np.arange(view.batch))],
        )
        self._end_stalemates(state, np.arange(state.batch), *stalemates)

    def _new_layouts(
        self, state: BatchState, rows: np.ndarray, taker: np.ndarray, keys: np.ndarray | None = None
    ) -> None:
        """End of a deal: each player gathers their stockpile and spit cards
        plus the spit pile(s) they take (``taker`` (k, 2): seat taking spit
        pile 0 and pile 1), in the order of the next deck order (a seeded
        shuffle -- from the shuffle ``keys`` if given -- or ``decks[k]``),
        and lays out a new layout."""
        order = self.deck_orders(state, rows, keys)
        cards = np.empty((len(rows), 2, 52), np.int64)
        cards.fill(NONE)  # (np.full's Python costs more: a batch of one's deal ends often)
        counts = np.empty((len(rows), 2), np.int64)
        arrays = state.bundle(StatePack)
        deal.note_gathered(rows, taker, arrays, state.gathered)
        deal.gather_cards(rows, taker, order, arrays, cards, counts)
        if len(rows) == 1:  # (one game: a scalar add, cheaper than the fancy one)
            state.hand_number[rows[0]] += 1
        else:
            state.hand_number[rows] += 1
        self._lay_out(state, rows, cards, counts)

    def _lay_out(self, state: BatchState, rows: np.ndarray, cards: np.ndarray, counts: np.ndarray) -> None:
        """Each player of ``rows`` lays out ``cards`` (k, 2, 52) int64
        (``counts`` of them, in order) and turns a spit card."""
        deal.lay_out(rows, cards, counts, self.tables_pack, state.bundle(StatePack))

    def _masks(self, state: BatchState, rows: np.ndarray) -> np.ndarray:
        """Recompute the legal masks of ``rows``; returns which of them are
        stuck: playing, nobody can play and nobody can expose a card by
        moving into an empty space."""
        return self._masks_counted(state, rows)[0]

    def _masks_counted(self, state: BatchState, rows: np.ndarray) -> tuple[np.ndarray, int]:
        """:meth:`_masks`, and how many of ``rows`` are stuck."""
        stuck = np.empty(len(rows), bool)
        count = legal.masks(rows, self.tables_pack, state.bundle(StatePack), stuck)
        return stuck, count

    def _spit_until_playable(self, state: BatchState, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Stuck games ``rows``: both players spit, round after round, until a
        stockpile top fits a spit pile or the spit cards run out.  Returns
        the rounds spat, and whether the game is still stuck."""
        spat, dry = np.empty(len(rows), np.int64), np.empty(len(rows), bool)
        apply.spit_until_playable(rows, self.mask_tables.fits, state.bundle(StatePack), spat, dry)
        return spat, dry

    def _settle(self, state: BatchState, rows: np.ndarray | None) -> None:
        """Resolve stalemates (spit again; without spit cards the deal ends)
        and recompute the legal masks of ``rows`` (None = every row).

        Stuck games spit one card each per *round*; a game that runs out of
        spit cards still stuck ends its deal in the round after its last
        spit.  The rounds are counted per game and the ends of deals are
        handled round by round, games in the order of ``rows``, so the
        seeded draws (the coin and the new deck orders) always go to the
        same games."""
        every = state.every_row() if rows is None else np.asarray(rows, np.int64)
        self._end_stalemates(state, every, *self._spit_stalemates(state, every))

    def _spit_stalemates(self, state: BatchState, every: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The first half of :meth:`_settle` (no draws): the masks of the
        games ``every``; the stuck ones spit until playable.  Returns their
        positions in ``every``, the rounds they spat and whether they are
        still stuck."""
        stuck, count = self._masks_counted(state, every)
        if not count:  # the usual tick: nobody stuck
            return NO_ROWS, NO_ROWS, NOT_DRY
        touched = np.flatnonzero(stuck)  # positions in ``every``
        spat, dry = self._spit_until_playable(state, every[touched])
        return touched, spat, dry

    def _end_stalemates(
        self, state: BatchState, every: np.ndarray, touched: np.ndarray, spat: np.ndarray, dry: np.ndarray
    ) -> None:
        """The second half of :meth:`_settle`: the stuck games still stuck
        end their deals, round by round (seeded draws), and the masks of the
        games that were stuck are made anew."""
        if not touched.size:
            return
        waiting, rounds = touched[dry], spat[dry] + 1  # deals to end, and in which round
        for guard in range(10001):
            if not waiting.size:
                break
            if guard == 10000:
                raise RuntimeError("Spit stalemate resolution did not converge")
            now = rounds == rounds.min()
            positions, round_ = np.sort(waiting[now]), rounds[now][0]
            waiting, rounds = waiting[~now], rounds[~now]
            again = self._end_stuck_deals(state, every, positions)
            if again.size:
                spat, dry = self._spit_until_playable(state, every[again])
                waiting = np.concatenate([waiting, again[dry]])
                rounds = np.concatenate([rounds, round_ + spat[dry] + 1])
        # (every game changed here was stuck at first: it is in ``touched``)
        self._masks(state, every[touched])

    def _end_stuck_deals(self, state: BatchState, every: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """Stuck games ``every[positions]`` with no spit cards left: with both
        spit piles, both slap; with one, the player with more layout cards
        left takes it (equal: a seeded coin) and new layouts are dealt.
        Returns the positions of the games stuck again at once."""
        rows = every[positions]
        one_pile = (state.centre_count[rows] == 0).any(axis=1)
        state.phase[rows[~one_pile]] = SLAPPING
        one = rows[one_pile]
        if not one.size:
            return one
        left = state.layout_count[one]
        coin = (state.random(one) < 0.5).astype(np.int64)
        seat = np.where(left[:, 0] > left[:, 1], 0, np.where(left[:, 1] > left[:, 0], 1, coin))
        self._new_layouts(state, one, np.stack([seat, seat], axis=1))
        return positions[one_pile][self._masks(state, one)]

    def one_game(self) -> OneGame:
        # scratch: the rows and takers of the deals that end, which games are stuck, the tick's counts,
        # and the active flags, faster hands and rows a batch of one's tick needs (see apply.tick_one)
        # and the rounds spat and whether still stuck, and who went out (see apply.tick_one)
        scratch = (np.empty(1, np.int64), np.empty((1, 2), np.int64), np.empty(1, bool), np.zeros(4, np.int64))
        rows = (np.empty(1, bool), np.empty(1, np.int64), np.zeros(1, np.int64))
        ends = (np.zeros(1, np.int64), np.zeros(1, bool), np.zeros(1, np.int64))
        return OneGame(self, every_seat=True, scratch=(*scratch, *rows, *ends))

    def step_one(self, state: BatchState, actions: np.ndarray, one: OneGame) -> tuple[bool, bool, bool, bool]:
        """The tick of a batch of one in one compiled call
        (:func:`~.apply.tick_one`): the tick as :meth:`step` plays it, then
        both observations and masks -- unless a deal ends, or the game is
        still stuck once both spat until playable, which the rules finish
        here as :meth:`step` does (and the caller observes).  The coin is the same draw as :func:`.tick.faster_hands`'
        (``random(1)``'s double, read off the raw draw in the kernel: :func:`coin_source`)."""
        if actions is not one.actions:  # (the parallel env writes them there)
            one.actions[:] = actions
        held = self.held_cards(state) if self.held_reward else None  # (reward="cards_held")
        made = state._bundles.get(one)  # (step_call's, without the call)
        if made is None:
            source = coin_source(state)  # (drawn in the kernel: the pack's scalars 3 and 4, (0, 0): not)
            step = step_call(state, one, self.tables_pack, StatePack, apply.tick_one, "bool", source or (0, 0))
            made = state._bundles[one] = (*step, source is not None)
            if source is not None and held is None:  # nothing for Python before or after an observed tick
                one.tick, one.tick_for = partial(step[0], False, step[1]), state._bundles
        tick, packs, drawn = made
        out = tick(False if drawn else state.random(_ROW_0)[0] < 0.5, packs)
        if out[0]:  # observed (truncated at max_ticks and observed in the kernel)
            if held is None:
                return out
            one.rewards += self.held_change(held, state)  # (the kernel wrote this tick's rewards, zeros included)
            return True, bool(one.rewards.any()), out[2], out[3]
        return self._finish_one(state, one, held)

    def finish_one(self, state: BatchState, one: OneGame, out: tuple) -> tuple[bool, bool, bool, bool]:
        """:meth:`_finish_one` after ``one.tick`` (left only without ``reward="cards_held"``)."""
        return self._finish_one(state, one, None)

    def _finish_one(self, state: BatchState, one: OneGame, held: np.ndarray | None) -> tuple[bool, bool, bool, bool]:
        """:meth:`step_one` once the kernel stopped (a deal ended, or the
        game is still stuck), with the cards held before the tick for
        ``reward="cards_held"``."""
        _, end_taker, _, counts, *_, spat, dry = one.scratch
        if counts[2]:  # the deal ended: laid out anew, as follow_up does with one shard (without its plumbing)
            rows = np.zeros(1, np.int64)
            self._new_layouts(state, rows, end_taker)  # (the shuffle drawn as deck_keys draws it, or from the stream)
            self._end_stalemates(state, rows, *self._spit_stalemates(state, rows))
        else:  # stuck, and still after spitting (in the kernel): follow_up's rest, the deal ends (drawn)
            self._end_stalemates(state, state.every_row(), _ROW_0, spat, dry)
        truncate(state, self.max_ticks)
        if held is not None:
            one.rewards += self.held_change(held, state)
        return False, any(one.rewards[0].tolist()), bool(state.done[0]), bool(state.truncated[0])

    def held_cards(self, state: BatchState) -> np.ndarray:
        """Each player's stockpile and spit cards (the cards in the spit piles
        belong to nobody until a slap)."""
        return state.stockpile_count.sum(axis=2, dtype=np.int64) + state.spit_count

    # ------------------------------------------------------------ observation
    def observe(self, state: BatchState, rows: np.ndarray | None = None) -> np.ndarray:
        return observation.observe(state, rows, self.max_ticks, self.stall_ticks)

    def observe_into(self, state: BatchState, out: np.ndarray) -> None:
        if out.dtype != self.obs_dtype:  # (obs_dtype="float32": the kernel writes int16)
            return super().observe_into(state, out)
        observation.observe(state, None, self.max_ticks, self.stall_ticks, out)

    # ------------------------------------------------------------ state_dict / render
    def variant_state_dict(self, state: BatchState, row: int) -> dict[str, Any]:
        b, size = row, self.stockpiles
        return {
            "stockpiles": [
                [card_texts(state.stockpiles[b, s, i], state.stockpile_count[b, s, i]) for i in range(size)]
                for s in range(2)
            ],
            "face_up": [[int(state.stockpile_count[b, s, i] > 0) for i in range(size)] for s in range(2)],
            "spit_cards": [
                card_texts(state.spit_cards[b, s], state.spit_count[b, s], top_first=True) for s in range(2)
            ],
        }

    def seat_text(self, d: dict[str, Any], seat: int) -> str:
        stacks = " ".join(("[" + "#" * (len(p) - 1) + p[-1] + "]") if p else "[ ]" for p in d["stockpiles"][seat])
        return f"{stacks}  spit cards {len(d['spit_cards'][seat])}"

    def centre_text(self, d: dict[str, Any]) -> str:
        return "spit " + self.piles_text(d)


def spit_rules(variant: str = "spit", max_cycles: int | None = None, **config: Any) -> TickRules:
    """The rules of ``spit_v0``: :class:`SpitRules` or, with
    ``variant="speed"``, :class:`~cardenvs.games.spit.speed.rules.SpeedRules`, built
    from the rest of ``config``.  An option of the other variant is checked
    as that variant checks it (``speed_side_piles=10.0``: ValueError, an
    integer option given as a float) and allowed only at its default value
    (ValueError otherwise).  ``max_cycles`` is PettingZoo's name for
    ``max_ticks`` (see :func:`ticks_of_cycles`)."""
    variant = choice("variant", variant, VARIANTS)
    if max_cycles is not None:
        config["max_ticks"] = ticks_of_cycles(max_cycles, config)
    rules_class = SpeedRules if variant == "speed" else SpitRules
    other_class = SpitRules if variant == "speed" else SpeedRules
    for option, default in other_class.own_options.items():
        if option in config:
            value = other_class.own_checks[option](config.pop(option))
            if value != default:
                raise ValueError(
                    f"{option} applies only to variant={other_class.variant!r}"
                    f" (got {option}={value!r} with variant={variant!r})"
                )
    return rules_class(**config)


def ticks_of_cycles(max_cycles: Any, config: dict[str, Any]) -> int:
    """``max_cycles``, the tick limit under PettingZoo's name: one cycle of
    the parallel API (every agent acts once) is one tick, so it is
    ``max_ticks`` itself, not a second limit (PettingZoo's
    ``max_cycles_test`` and tools that cap episodes pass it).  A positive
    int; ValueError if ``config`` also gives a different ``max_ticks``."""
    cycles = positive_int("max_cycles", max_cycles)
    if "max_ticks" in config and positive_int("max_ticks", config["max_ticks"], allow_none=True) != cycles:
        raise ValueError(
            f"max_cycles is another name for max_ticks: give one (got max_cycles={max_cycles!r}"
            f" and max_ticks={config['max_ticks']!r})"
        )
    return cycles


# What the library reads from the rules callable of a game before building it
# (training.seat_env picks the simultaneous learner env by it).
spit_rules.vector_env_class = SimultaneousVectorEnv  # type: ignore[attr-defined]
# The rules classes it picks from (their options are the game's config options).
spit_rules.variants = (SpitRules, SpeedRules)  # type: ignore[attr-defined]
