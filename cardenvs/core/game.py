"""The batched rules-core interface every turn-based game implements.

A game's rules live in one class (e.g. :class:`cardenvs.games.pepper.rules.PepperRules`)
holding only the configuration. All game state lives in a plain struct of
numpy arrays with a leading batch dimension (a :class:`BatchState`); the
rules are functions over the whole batch.  A branch in the rules is a boolean
mask (or a set of rows) over the batch, never a Python loop over games.

As in Pgx, the legal-action mask is part of the state: after every
``reset``/``step`` the rules recompute ``state.legal`` and ``state.current``,
so the PettingZoo view and the vector engine never compute legality
themselves.  ``step`` updates the state in place (copying every array on
every step would halve throughput in numpy); callers validate actions against
``state.legal`` *before* stepping, so an illegal action never touches it.

A game author writes the rules: :meth:`TurnBasedRules.step` (through
``advance``/``deal_next``), ``observe``, ``reset`` and the rest of "to
implement" below.  How a step is carried out -- one game in one call, a
batch, row shards in threads, shards in processes -- is the core's choice
(:meth:`cardenvs.core.engine.VectorEnv.step`), never the game's; a game may
declare *faster pieces* the core then uses, all listed in
:data:`FASTER_PIECES`.

Every rule is row-local except the random draws, so a step runs on row
shards in threads (:mod:`cardenvs.core.shards`): :meth:`TurnBasedRules.step`
lets :meth:`~TurnBasedRules.advance` move the games of each shard on (no
draw), draws the shuffles for the hands to deal in the calling thread, then
deals them (:meth:`~TurnBasedRules.deal_next`; in the shards when they are
many).  With per-game streams (:mod:`.streams`) every draw is a row's own,
through :meth:`BatchState.random` / :meth:`BatchState.integers`, and each
shard deals its games itself.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .actions import ActionTable
from .cards import DeckSpec, orders_from_keys
from .onegame import OneGame
from .shards import NO_DRAWS, SERIAL, Shards, deal_in_shards, in_shards
from .streams import RowStreams

#: The optional faster pieces of a game's rules, the only ones the core looks
#: for (name -> what it is and what the core does with it).  Without any, a
#: game is complete; each is checked against the plain path by the tests.
FASTER_PIECES: dict[str, str] = {
    "one_game / step_one": (
        "a batch of one stepped in one compiled call, the next observation and mask written in it: "
        "the AEC and parallel views and a vector engine of one game use it for a legal int action"
    ),
    "observe_into": "observations written straight into the core's arrays (default: observe, then a copy)",
    "action_masks": (
        "the masks handed to the vector engine's caller, if cheaper than a copy of state.legal "
        "that the caller can keep as safely (Push: its own array, read-only)"
    ),
    "write_changed_outputs": (
        "outputs written only where they changed, by the game's own record of arrays written again and "
        "again (Push's recycled outputs): the core then writes a process shard's output block through it, "
        "and writes a batch's outputs once after the step, never on row views in the threads (the record "
        "belongs to the whole batch)"
    ),
}

#: No rows: what :meth:`TurnBasedRules.advance` returns for a request with none.
NO_ROWS = np.zeros(0, np.int64)


class BatchState:
    """A struct of arrays, one row per game.  Common fields:

    ``current`` (B,) seat to act (-1 when the game is over); ``legal`` (B, A)
    bool mask of legal actions for that seat; ``done`` (B,) bool;
    ``deals`` (B,) deals made so far (indexes the fixed decks);
    ``rng`` the generator used for shuffles; ``fixed_decks`` (B, D, cards)
    deck orders (local ids) that deal k < ``fixed_count`` (B,) of a row uses
    instead of a shuffle (``options["decks"]``; D is 0 without them);
    ``shards`` how a step cuts the rows for threads (:class:`Shards`; the
    vector engine sets its own, else one shard).
    Games add their own arrays as attributes.
    """

    shards: Shards = SERIAL
    #: Per-game streams (:mod:`.streams`, the vector engine's opt-in
    #: ``rng="per_game"``), or None: every draw from ``rng``.
    streams: RowStreams | None = None

    def __init__(self, batch: int, rng: np.random.Generator):
        self.batch = batch
        self.rng = rng
        self.fixed_decks = np.zeros((batch, 0, 0), np.int16)
        self.fixed_count = np.zeros(batch, np.int64)

    def __setattr__(self, name: str, value: Any) -> None:
        # A bundle holds the arrays themselves: binding any attribute anew
        # forgets the bundles made so far (see :meth:`bundle`).  Forgotten
        # first: a pack holds only the arrays' addresses, so between binding
        # (which may free the old array) and forgetting, an interrupt (a
        # Ctrl-C) would leave a pack of freed memory for a kernel to write.
        if "_view_of" in self.__dict__:
            raise AttributeError(
                f"cannot bind {name!r} on a row view of a state: write into its arrays in place (see BatchState.view)"
            )
        if name != "_bundles":
            object.__setattr__(self, "_bundles", {})
        object.__setattr__(self, name, value)

    def __getstate__(self) -> dict[str, Any]:
        # A copy (pickle, copy.copy) makes its bundles, packs and views
        # again: a pack (cardenvs.core.jit.pack) holds the addresses of this
        # state's arrays, and a pickled view would be an array of its own,
        # not a view of the copy's.
        saved = dict(vars(self))
        saved["_bundles"] = {}
        return saved

    def bundle(self, kind: type) -> Any:
        """The state's arrays named by the fields of ``kind`` (a ``typing.NamedTuple``), as one ``kind``: a
        named bundle to hand to a compiled kernel instead of dozens of positional arrays.  Made once and kept
        until an attribute of the state is bound anew (the arrays are updated in place, so the bundle stays
        true); a copy or a subset of the state makes its own."""
        made = self._bundles.get(kind)
        if made is None:
            made = self._bundles[kind] = kind(*(getattr(self, f) for f in kind._fields))
        return made

    def random(self, rows: np.ndarray, width: int | None = None) -> np.ndarray:
        """Uniform floats for the games ``rows``: ``(len(rows),)``, or
        ``(len(rows), width)``.  From the batch's generator (the very call
        ``rng.random(len(rows))`` / ``rng.random((len(rows), width))``), or
        with per-game streams from each row's own (:mod:`.streams`) -- which
        a row view may draw from, its rows' streams being its own."""
        if self.streams is not None:
            return self.streams.random(self, rows, width)
        return self.rng.random(len(rows) if width is None else (len(rows), width))

    def integers(self, high: int, rows: np.ndarray) -> np.ndarray:
        """A uniform int in ``0..high-1`` for each of the games ``rows``:
        ``rng.integers(high, size=len(rows))``, or from the per-game streams."""
        if self.streams is not None:
            return (self.streams.random(self, rows) * high).astype(np.int64)
        return self.rng.integers(high, size=len(rows))

    def every_row(self) -> np.ndarray:
        """``np.arange(batch)``, made once (like a bundle): the rows argument
        of a kernel called for the whole batch.  Shared: never write to it
        (not flagged read-only, as numba would compile every kernel taking
        it a second time for a read-only array type)."""
        rows = self._bundles.get("every_row")
        if rows is None:
            rows = self._bundles["every_row"] = np.arange(self.batch)
        return rows

    def view(self, lo: int, hi: int) -> BatchState:
        """The games ``lo..hi-1`` as a state of their own whose arrays are
        views of this state's (``array[lo:hi]``: what a kernel writes there
        lands here) -- one row shard (:mod:`.shards`).  A view draws no random
        number (its ``rng`` raises) and binds no attribute (AttributeError:
        the binding would not reach this state).  Made once and kept, like
        the bundles, until an attribute of this state is bound anew."""
        key = ("view", lo, hi)
        made = self._bundles.get(key)
        if made is None:
            made = self._bundles[key] = self._make_view(lo, hi)
        return made

    def _make_view(self, lo: int, hi: int) -> BatchState:
        new = copy.copy(self)
        fields = {k: v[lo:hi] for k, v in self.arrays().items()}
        fields.update(batch=hi - lo, rng=NO_DRAWS, shards=SERIAL, _bundles={}, _view_of=(lo, hi))
        new.__dict__.update(fields)
        return new

    def before_step(self) -> None:
        """Called by the rules' step (:meth:`TurnBasedRules.step_then`)
        before any game of this state moves: a state that keeps records of
        its output arrays (Push's recycled outputs) settles them here."""

    def before_shards(self, views: list[BatchState]) -> None:
        """Called before the row views ``views`` are stepped in threads (by
        :func:`~.shards.in_shards`): a game whose rows share something
        mutable hands each view its own here."""

    def after_shards(self, views: list[BatchState]) -> None:
        """Called once the row views ``views`` are stepped (see :meth:`before_shards`)."""

    def arrays(self) -> dict[str, np.ndarray]:
        """The state's arrays by attribute name (not its generator, shards or views). Each has the batch as its
        leading dimension, so a subset of games can be cut out, stepped on its own and put back."""
        return {k: v for k, v in vars(self).items() if isinstance(v, np.ndarray)}

    def copy(self) -> BatchState:
        new = copy.copy(self)
        new.__dict__.update({k: v.copy() for k, v in self.arrays().items()})
        return new

    def same_arrays(self, other: BatchState) -> bool:
        """Whether ``other`` holds the same arrays, field by field (its
        generator and shards aside): e.g. a copy stepped alongside this state."""
        mine, theirs = self.arrays(), other.arrays()
        return mine.keys() == theirs.keys() and all(np.array_equal(v, theirs[k]) for k, v in mine.items())

    def select(self, rows: np.ndarray) -> BatchState:
        """A new state holding copies of the games in ``rows`` (same rng)."""
        new = copy.copy(self)
        new.__dict__.update({k: v[rows] for k, v in self.arrays().items()}, batch=len(rows))
        return new

    def assign(self, rows: np.ndarray, part: BatchState) -> None:
        """Write the games of ``part`` (from :meth:`select`) back into ``rows``."""
        for k, v in self.arrays().items():
            v[rows] = getattr(part, k)


class GameRules:
    """What the rules class of every game shares, turn-based or simultaneous:
    the action texts (``actions``, an :class:`ActionTable`), the winners of a
    finished game and the text render's skeleton."""

    name: str = ""
    title: str = ""  # the game's name in renders, e.g. "Pepper"
    num_players: int
    actions: ActionTable
    low_score_wins: bool = False  # Hearts and Push: the lowest score wins
    hidden_places: tuple[str, ...] = ()  # state_dict() keys nobody sees (a stock): the kit's information_sets

    def state_dict(self, state: BatchState, row: int = 0) -> dict[str, Any]:
        raise NotImplementedError

    # --- packs of the settings (cardenvs.core.jit.pack) -----------------------
    #: The attributes :meth:`make_packs` sets: they hold this object's
    #: addresses, so they are not copied or pickled (a copy makes its own).
    pack_names: tuple[str, ...] = ()

    def make_packs(self) -> None:
        """Set the packs named in :attr:`pack_names` (games whose kernels
        take their settings as a pack call this at the end of ``__init__``)."""

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items() if k not in self.pack_names}

    def __setstate__(self, saved: dict[str, Any]) -> None:
        self.__dict__.update(saved)
        self.make_packs()

    def seat_scores(self, state: BatchState) -> np.ndarray:
        """Game score of every seat ``(B, num_players)`` (a team's total for each partner)."""
        raise NotImplementedError

    def action_to_str(self, action: int) -> str:
        return self.actions.text(action)

    def str_to_action(self, text: str) -> int:
        return self.actions.action(text)

    def winners(self, state: BatchState, row: int = 0) -> list[int]:
        """Seats that won a finished game (empty while it is running): the
        best score, ties all winning."""
        if not state.done[row]:
            return []
        scores = self.seat_scores(state)[row]
        best = scores.min() if self.low_score_wins else scores.max()
        return [int(s) for s in np.flatnonzero(scores == best)]

    # --- the text render: a title line, the game's lines, the result ---------
    def render(self, state: BatchState, row: int = 0) -> str:
        d = self.state_dict(state, row)
        lines = [self.render_title(d), *self.render_lines(d)]
        if d["done"]:
            lines.append(f"game over, winners: {['player_' + str(s) for s in d['winners']]}")
        return "\n".join(lines)

    def render_title(self, d: dict[str, Any]) -> str:
        return f"{self.title} ({self.num_players} players) hand {d['hand_number'] + 1}, scores {d['scores']}"

    def render_lines(self, d: dict[str, Any]) -> list[str]:
        """The game's own lines of the render (hands, table, ...)."""
        return []

    @staticmethod
    def seat_line(d: dict[str, Any], seat: int, text: str) -> str:
        """``text`` for ``seat``, marked ``*`` when it is the seat to act."""
        mark = "*" if seat == d.get("current_player") else " "
        return f"{mark} player_{seat}: {text}"


class TurnBasedRules(GameRules):
    """Interface of a turn-based game's batched rules (see module doc)."""

    deck: DeckSpec
    partnerships: bool = False  # two teams, partners opposite (seats s and s + n/2)
    num_actions: int
    obs_size: int
    obs_low: float = 0.0
    obs_high: float = 1.0
    obs_dtype: Any = np.float32  # games use the smallest integer dtype that holds their values

    # --- to implement -------------------------------------------------------
    def new_state(self, batch: int, rng: np.random.Generator) -> BatchState:
        """A state of ``batch`` games (not started: see :meth:`reset`); games
        build it on :meth:`common_state`."""
        raise NotImplementedError

    def start_game(self, state: BatchState, rows: np.ndarray) -> None:
        """Set up the first deal of a new game in ``rows`` (the common fields
        and the dealer are already set by :meth:`reset`)."""
        raise NotImplementedError

    def advance(self, state: BatchState, actions: np.ndarray, rewards: np.ndarray) -> list[np.ndarray]:
        """Apply one legal action per unfinished row of ``state`` (a row view:
        no draws, see :meth:`step`), adding what each seat earns to ``rewards``
        ``(B, num_players)``, and end the games that are over.  Returns the
        rows whose next hand is dealt (by :meth:`deal_next`), as a list of
        *requests*: the same number at every call, each in row order (empty:
        :data:`NO_ROWS`); the deals are drawn request by request."""
        raise NotImplementedError

    def deal_next(self, state: BatchState, rows: np.ndarray, keys: np.ndarray) -> None:
        """Deal the next hand of the games ``rows`` from the shuffle ``keys``
        (one row of :func:`~.cards.deck_keys` each; no other draw): by default
        the deal passes on (:meth:`pass_the_deal`)."""
        self.pass_the_deal(state, rows, keys)

    def one_game(self) -> OneGame | None:
        """The buffers of a one-game view's fused step (:meth:`step_one`),
        or None: the game has none and the views step and observe as usual."""
        return None

    def step_one(self, state: BatchState, action: int, one: OneGame) -> tuple[bool, bool, int]:
        """The step of a batch of one with the legal ``action``, in one
        compiled call where it can: the rewards written to ``one.rewards``
        and, unless something is left to Python (a new deal, ...), the
        observation of the seat to act next to ``one.seen`` and its mask to
        ``one.mask``.  Returns whether those were written, whether any
        reward is not 0, and the seat to act next (-1: the game is over) --
        what the view would otherwise read off the arrays, a read at a time.
        Only for games whose :meth:`one_game` is not None."""
        raise NotImplementedError

    def observe(self, state: BatchState, seats: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Observation ``(len(seats), obs_size)`` (dtype ``obs_dtype``) of the games in
        ``rows`` (default all), row i seen by seat ``seats[i]``."""
        raise NotImplementedError

    def observe_into(self, state: BatchState, seats: np.ndarray, out: np.ndarray) -> None:
        """:meth:`observe` of every row of ``state`` written into ``out``
        (``(batch, obs_size)``, of any float or integer dtype); a game whose
        kernel can write there directly overrides this copy."""
        out[...] = self.observe(state, seats)

    #: A faster piece (see :data:`FASTER_PIECES`): ``write_changed_outputs(state, obs, masks, key)``
    #: writes every row's observation (by the seat to act) and mask into
    #: ``obs`` and ``masks`` -- arrays written again and again (a process
    #: shard's rows of the batch's output block ``key``) -- only where they
    #: changed, by the game's own record of them.  None: the game has none.
    write_changed_outputs: Callable[[BatchState, np.ndarray, np.ndarray, int], None] | None = None

    def action_masks(self, state: BatchState) -> np.ndarray:
        """The legal-action masks of every row, as the vector engine hands them
        out (``info["action_mask"]``) for the caller to keep: a copy of
        ``state.legal`` here.  A game may hand out something cheaper if the
        caller can keep it just as safely (Push: its own array, read-only)."""
        return state.legal.copy()

    # --- shared -------------------------------------------------------------
    def state_head(
        self, state: BatchState, row: int, num_players: int, phase_names: Sequence[str], scores: Sequence[Any]
    ) -> dict[str, Any]:
        """The fields a turn-based game's :meth:`state_dict` opens with, in
        the contract's order (``scores``: one per seat, as the game counts them)."""
        return {
            "game": self.name,
            "num_players": num_players,
            "phase": phase_names[state.phase[row]],
            "dealer": int(state.dealer[row]),
            "hand_number": int(state.hand_number[row]),
            "scores": [int(score) for score in scores],
            "done": bool(state.done[row]),
            "current_player": int(state.current[row]),
        }

    def common_state(self, batch: int, rng: np.random.Generator, score_width: int) -> BatchState:
        """A state with the fields every turn-based game has: ``phase``,
        ``dealer``, ``current``, ``legal``, ``done``, ``deals``,
        ``hand_number`` and ``scores`` (``(B, score_width)``: per seat, or per
        side in partnership games)."""
        s = BatchState(batch, rng)
        s.phase = np.zeros(batch, np.int64)
        s.dealer = np.zeros(batch, np.int64)
        s.current = np.full(batch, -1, np.int64)
        s.legal = np.zeros((batch, self.num_actions), bool)
        s.done = np.zeros(batch, bool)
        s.deals = np.zeros(batch, np.int64)
        s.hand_number = np.zeros(batch, np.int64)
        s.scores = np.zeros((batch, score_width), np.int64)
        return s

    def end_games(self, state: BatchState, rows: np.ndarray, done_phase: int) -> None:
        """The games in ``rows`` are over: nobody acts, nothing is legal."""
        state.done[rows] = True
        state.phase[rows] = done_phase
        state.current[rows] = -1
        state.legal[rows] = False

    def step(self, state: BatchState, actions: np.ndarray) -> np.ndarray:
        """Apply one legal action per row; returns rewards ``(B, num_players)``.

        On the row shards of ``state`` (:mod:`.shards`; one unless the vector
        engine was made with threads): each shard's games move on
        (:meth:`advance`), then the hands it asks for are shuffled here --
        request after request, each over the whole batch in row order, as
        one pass over the rows would -- and dealt (:meth:`deal_next`).  So
        the results do not depend on the shards."""
        return self.step_then(state, actions)[0]

    def step_then(
        self, state: BatchState, actions: np.ndarray, then: Callable[[BatchState, int, int], list] | None = None
    ) -> tuple[np.ndarray, np.ndarray, list]:
        """:meth:`step`, and ``then(view, lo, hi)`` in each shard right after
        its games moved on (the vector engine writes the shard's
        observations and masks there: one hand-off per step, not one per
        phase).  With per-game streams (``state.streams``) a shard deals its
        games' next hands itself, before ``then``: no draw is left to the
        calling thread.  Returns the rewards, the rows dealt anew after
        ``then`` (in row order: what it wrote for them is stale) and the
        requests ``then`` returned (merged over the shards, see
        :func:`~.shards.in_shards`)."""
        actions = np.asarray(actions, np.int64)
        rewards = np.zeros((state.batch, self.num_players), np.float32)
        count: list[int] = []
        state.before_step()

        def shard(view: BatchState, lo: int, hi: int) -> list[Any]:
            requests = self.advance(view, actions[lo:hi], rewards[lo:hi])
            if view.streams is not None:  # (the view's rows draw from their own streams, in any order)
                dealt = [r for r in requests if len(r)]
                self.deal_requests(view, [np.concatenate(dealt)] if len(dealt) > 1 else dealt)
                requests = [NO_ROWS] * len(requests)
            count[:] = [len(requests)]
            return [*requests, *(then(view, lo, hi) if then is not None else ())]

        merged = in_shards(state, shard)
        requests, extra = merged[: count[0]], merged[count[0] :]
        self.deal_requests(state, requests)
        dealt = [r for r in requests if len(r)]
        if len(dealt) > 1:
            return rewards, np.unique(np.concatenate(dealt)), extra
        return rewards, dealt[0] if dealt else NO_ROWS, extra

    def deal_requests(self, state: BatchState, requests: list[np.ndarray]) -> None:
        """Deal the next hand of each request's rows (:meth:`advance`): the
        shuffle keys drawn here, one draw per non-empty request, in order;
        the deals made in the shards (:func:`~.shards.deal_in_shards`)."""
        deal_in_shards(state, self.deck, requests, self.deal_next)

    def pass_the_deal(self, state: BatchState, rows: np.ndarray, keys: np.ndarray | None = None) -> None:
        """The next hand (round) of the games in ``rows``: the deal passes to
        the next seat clockwise, then the game's ``_deal`` deals it (from the
        shuffle ``keys`` if given, see :meth:`deck_orders`)."""
        state.dealer[rows] = (state.dealer[rows] + 1) % self.num_players
        self._deal(state, rows, keys)

    def step_by_phase(self, state: BatchState, actions: np.ndarray, rewards: np.ndarray, handlers) -> list[np.ndarray]:
        """Apply one action per unfinished game, the rows of each phase by its
        handler: ``handlers`` is ``[(phase, fn), ...]`` with
        ``fn(state, rows, actions_of_rows, rewards)`` returning the rows whose
        next hand is dealt (or None).  When every game is in the same phase
        the handler gets all rows at once (no subset copies).  Returns those
        rows of each handler, in handler order (the requests of :meth:`advance`)."""
        requests = [NO_ROWS] * len(handlers)
        for i, (ph, fn) in enumerate(handlers):
            if not state.done.any() and (state.phase == ph).all():
                requests[i] = _rows_or_none(fn(state, state.every_row(), actions, rewards))
                return requests
        active = np.flatnonzero(~state.done)
        phase = state.phase[active]
        for i, (ph, fn) in enumerate(handlers):
            rows = active[phase == ph]
            if rows.size:
                requests[i] = _rows_or_none(fn(state, rows, actions[rows], rewards))
        return requests

    def reset(self, state: BatchState, rows: np.ndarray, dealer: Any = None) -> None:
        """Start a new game in ``rows``: the first dealer is random (seeded)
        unless given (one seat, or one per row), scores and counters start
        from zero, then the game's :meth:`start_game` deals."""
        rows = np.asarray(rows, np.int64)
        if dealer is None:
            first = state.integers(self.num_players, rows)
        else:
            first = np.broadcast_to(np.asarray(dealer, np.int64), len(rows))
        state.done[rows] = False
        state.deals[rows] = 0
        state.hand_number[rows] = 0
        state.scores[rows] = 0
        state.dealer[rows] = first
        self.start_game(state, rows)

    def deck_orders(self, state: BatchState, rows: np.ndarray, keys: np.ndarray | None = None) -> np.ndarray:
        """The deck order (local ids, top first) for the next deal of each row:
        the row's fixed deck for that deal number if one was given, else a
        shuffle (drawn for every row alike, so fixed decks leave the
        generator where it would be) -- by the shuffle ``keys`` (drawn
        before, :func:`~.cards.deck_keys`) if given, else drawn here."""
        if keys is None:
            keys = state.random(rows, self.deck.num_cards)  # (deck_keys' draw)
        orders = orders_from_keys(self.deck, keys)
        if state.fixed_decks.shape[1]:  # (no row has fixed decks: the usual batch)
            k = state.deals[rows]
            fixed = k < state.fixed_count[rows]
            if np.count_nonzero(fixed):
                orders[fixed] = state.fixed_decks[rows[fixed], k[fixed]]
        state.deals[rows] += 1
        return orders

    def parse_decks(self, decks: Any) -> np.ndarray:
        """``options["decks"]`` (a list of deck orders, each a list of card
        texts, top first) -> ``(D, cards)`` local ids; ValueError on a
        malformed deck."""
        if isinstance(decks, (str, bytes)) or not isinstance(decks, Sequence):
            raise ValueError("options['decks'] must be a list of decks, each a list of card texts")
        parsed = [self.deck.parse_order(d) for d in decks]
        return np.array(parsed, np.int16).reshape(len(parsed), self.deck.num_cards)

    def set_fixed_decks(self, state: BatchState, decks: Any, per_row: bool = False) -> None:
        """Fix the deals of every row to ``decks`` (see :meth:`parse_decks`), or
        with ``per_row`` row i's to ``decks[i]`` (None: shuffled); ``None``
        shuffles every deal.  Validated before anything changes."""
        if decks is None:
            parsed = [np.zeros((0, self.deck.num_cards), np.int16)] * state.batch
        elif per_row:
            if isinstance(decks, (str, bytes)) or not isinstance(decks, Sequence) or len(decks) != state.batch:
                raise ValueError(f"options['decks'] per row must be a list of {state.batch} lists of decks (or None)")
            empty = np.zeros((0, self.deck.num_cards), np.int16)
            parsed = [empty if d is None else self.parse_decks(d) for d in decks]
        else:
            parsed = [self.parse_decks(decks)] * state.batch
        depth = max(len(p) for p in parsed)
        state.fixed_decks = np.zeros((state.batch, depth, self.deck.num_cards), np.int16)
        state.fixed_count = np.array([len(p) for p in parsed], np.int64)
        for i, p in enumerate(parsed):
            state.fixed_decks[i, : len(p)] = p

    def forget_fixed_decks(self, state: BatchState, rows: np.ndarray) -> None:
        """The next games of ``rows`` shuffle (the vector engine's automatic resets)."""
        state.fixed_count[rows] = 0

    def check_dealer(self, dealer: Any) -> int | None:
        if dealer is None:
            return None
        if (
            isinstance(dealer, (bool, np.bool_))
            or not isinstance(dealer, (int, np.integer))
            or not 0 <= dealer < self.num_players
        ):
            raise ValueError(f"options['dealer'] must be a seat 0..{self.num_players - 1}, got {dealer!r}")
        return int(dealer)


def _rows_or_none(rows: np.ndarray | None) -> np.ndarray:
    return NO_ROWS if rows is None else rows


def choice(name: str, value: Any, allowed: Sequence[Any]) -> Any:
    """Validate a config option against a list of allowed values: equal to
    one of them *and* of its kind (``4.0`` is not the player count ``4``,
    ``True`` is not ``1``; numpy integers count as ints)."""

    def same_kind(a: Any) -> bool:
        if isinstance(a, bool) or isinstance(value, (bool, np.bool_)):
            return isinstance(a, bool) and isinstance(value, (bool, np.bool_))
        if isinstance(a, int):
            return isinstance(value, (int, np.integer))
        return isinstance(value, type(a)) or a is None

    if not any(same_kind(a) and value == a for a in allowed):
        raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}")
    return value.item() if isinstance(value, np.generic) else value


#: The largest integer option a game takes: scores, counters and limits are
#: int64 in the state and compared with int32/int16 values in the kernels.
MAX_INT_OPTION = 2**31 - 1


def positive_int(name: str, value: Any, allow_none: bool = False, maximum: int = MAX_INT_OPTION) -> int | None:
    """Validate a positive integer option (an int, not a float or a bool) no
    larger than ``maximum``; ``None`` too with ``allow_none``."""
    if value is None and allow_none:
        return None
    extra = " or None" if allow_none else ""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer{extra}, got {value!r}")
    if value > maximum:
        raise ValueError(f"{name} must be at most {maximum}{extra}, got {value!r}")
    return int(value)
