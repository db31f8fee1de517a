"""The vector engine of the turn-based games: ``num_envs`` games stepped
together on one batched state (the public entry point is
:func:`cardenvs.vector.make`, whose docstring describes what it returns)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector.vector_env import AutoresetMode

from . import illegal, jit
from .errors import cut_short
from .game import BatchState, TurnBasedRules
from .options import check_seed, legal_actions, seat_array
from .shards import NO_DRAWS, Shards
from .spaces import observation_box
from .state import encode_states, state_box
from .streams import RowStreams, check_rng_mode


def batch_space(space: spaces.Space, shape: tuple[int, ...]) -> spaces.Space:
    """``space`` batched to leading ``shape``: a Box of the tiled bounds, or a
    MultiDiscrete for a Discrete."""
    if isinstance(space, spaces.Discrete):
        return spaces.MultiDiscrete(np.full(shape, space.n, np.int64))
    low = np.broadcast_to(space.low, (*shape, *space.shape))
    high = np.broadcast_to(space.high, (*shape, *space.shape))
    return spaces.Box(low.copy(), high.copy(), low.shape, space.dtype)


def final_info_of(
    finished: np.ndarray, seen: np.ndarray, scores: np.ndarray, seen_at: np.ndarray | None = None
) -> dict[str, Any]:
    """The ``info`` entries for the games that just finished (bool
    ``finished`` per row): ``final_obs`` (an object array, each finished
    row's last observation per seat from ``seen``, in row order; None
    elsewhere), ``_final_obs`` (the finished rows) and ``final_scores`` (per
    seat, from ``scores``: the finished rows' in row order; 0 for other
    rows).  ``seen_at``: where in ``seen`` each finished row's observations
    are (default: in row order from its start)."""
    rows = np.flatnonzero(finished)
    final = np.empty(len(finished), dtype=object)
    at = range(len(scores)) if seen_at is None else seen_at.tolist()
    for i, k in zip(rows.tolist(), at):
        final[i] = seen[k]
    every = np.zeros((len(finished), scores.shape[1]), scores.dtype)
    every[rows] = scores  # (by index: at thousands of games a bool mask's assignment costs far more)
    return {"final_obs": final, "_final_obs": finished.copy(), "final_scores": every}


def step_rows(rows: Any, num_envs: int) -> np.ndarray | None:
    """``rows`` of a step (an index array or a bool mask of length
    ``num_envs``) as sorted row indices; None for every row.  TypeError or
    ValueError for anything else."""
    if rows is None:
        return None
    arr = np.asarray(rows)
    if arr.dtype == np.bool_:
        if arr.shape != (num_envs,):
            raise ValueError(f"a bool rows mask must have shape ({num_envs},), got {arr.shape}")
        return np.flatnonzero(arr)
    if arr.ndim != 1 or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
        raise TypeError(f"rows must be row indices (ints) or a bool mask, got {arr.dtype} {arr.shape}")
    idx = arr.astype(np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= num_envs or len(np.unique(idx)) != len(idx)):
        raise ValueError(f"rows must be distinct indices in 0..{num_envs - 1}, got {rows!r}")
    return np.sort(idx)


class VectorEnv:
    """``num_envs`` games of one turn-based game, stepped together.

    It follows :class:`gymnasium.vector.VectorEnv`'s conventions wherever a
    multi-agent engine can: ``single_observation_space`` /
    ``single_action_space`` and the batched ``observation_space`` /
    ``action_space``, ``metadata["autoreset_mode"]`` (same step: a finished
    game's slot already holds the next game), ``reset(seed, options)``,
    ``close()``.

    ``num_threads`` (default 1): the games are cut into that many row
    shards of near-equal size, stepped and observed in parallel by a
    persistent pool of threads (:mod:`.shards`); results are identical for
    every thread count."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        rules: TurnBasedRules,
        num_envs: int,
        seed: int | None = None,
        illegal_action: str = "raise",
        obs_dtype: np.dtype | None = None,
        num_threads: int = 1,
        rng: str = "shared",
        first_slot: int = 0,
    ):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.rng_mode = check_rng_mode(rng)
        seed = check_seed(seed, self.rng_mode == "per_game")
        self.shards = Shards(num_envs, num_threads)  # (ValueError for a bad num_threads)
        self.num_threads = self.shards.num_threads
        self.rules = rules
        self.num_envs = int(num_envs)
        self.num_players = rules.num_players
        self.num_actions = rules.num_actions
        self.illegal_action = illegal.parse(illegal_action, len(self.batch_shape) > 1)
        self.obs_dtype = obs_dtype
        self.single_observation_space = observation_box(rules, obs_dtype)
        self.single_action_space = spaces.Discrete(rules.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.batch_shape)
        self.action_space = batch_space(self.single_action_space, self.batch_shape)
        self._seed = seed
        # (a shard of a process-sharded engine, cardenvs.core.processes: its games are the slots from
        # first_slot on of the whole batch's per-game streams; during step_into, _out and _checked
        # hold where its outputs go and what its actions' check found)
        self._first_slot = int(first_slot)
        self._out: tuple[np.ndarray, np.ndarray, int] | None = None
        self._checked: tuple[np.ndarray, np.ndarray] | None = None
        self.state = None
        self._closed = False
        self._fault: str | None = None  # why a step cut short closed the engine (every later call raises it)
        # True from when a step (or reset) starts to move the games until it has finished them all:
        # set before and cleared after, so a step cut short anywhere in between -- even by a second
        # Ctrl-C in the handler that closes the engine -- leaves it set, and every later call refuses
        self._moving = False
        self._rows = np.arange(self.num_envs)
        # A batch of one steps in one call where the game has one (see step).
        self._one_path = self.num_envs == 1  # (False: every step by the batched path, as tests compare)
        self._first_step = self.num_envs > 1  # (until it ends, kernels not compiled yet run as Python at scale)
        if self._first_step:
            jit.first_step(type(rules).__module__, done=False)
        self._one = rules.one_game() if self.num_envs == 1 else None
        self._no_truncation = np.zeros(self.num_envs, bool)
        self._masks_copied = getattr(type(rules), "action_masks", None) is TurnBasedRules.action_masks
        # (which path a step takes is decided here, from the faster pieces the rules declare: game.FASTER_PIECES;
        # a game that writes its outputs by its own record of whole-batch arrays never has them written on row views)
        self._outputs_in_shards = getattr(rules, "write_changed_outputs", None) is None

    @property
    def batch_shape(self) -> tuple[int, ...]:
        """The leading shape of an observation batch (Spit adds the players)."""
        return (self.num_envs,)

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ran or a step (or reset) was cut short
        while it moved the games: every call but ``reset()`` raises then."""
        return self._closed or self._moving

    def _require_state(self) -> BatchState:
        if self._closed or self._moving:
            if self._fault is None and self._moving:  # (cut short before its handler could say by what)
                raise RuntimeError(cut_short("the engine", None))
            raise RuntimeError(self._fault or "the engine is closed")
        if self.state is None:
            raise RuntimeError("call reset() before step(), observe() or state_dict()")
        return self.state

    def _cast(self, obs: np.ndarray) -> np.ndarray:
        return obs if self.obs_dtype is None else obs.astype(self.obs_dtype)

    def _start(self, seed: int | None, options: dict | None = None) -> None:
        """New games in every slot; the generator is reseeded when ``seed`` is
        given (or on the first reset) and continues otherwise.  ``options``:
        ``"decks"`` (one list of deck orders for every row, or ``{"per_row":
        [...]}`` with one list, or None, per row) fixes the first games'
        deals; ``"dealer"`` (a seat, or one per row)."""
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"options must be a dict with keys 'decks' and 'dealer', got {options!r}")
        seed = check_seed(seed, self.rng_mode == "per_game")
        options = options or {}
        dealer = self._dealers(options.get("dealer"))
        if seed is not None or self.state is None:
            rng = np.random.default_rng(self._seed if seed is None else seed)
        else:
            rng = self.state.rng
        state = self.rules.new_state(self.num_envs, rng)
        state.shards = self.shards
        if self.rng_mode == "per_game":
            self._per_game_streams(state, seed)
        decks = options.get("decks")
        per_row = isinstance(decks, dict)
        if per_row and set(decks) != {"per_row"}:
            raise ValueError("options['decks'] is a list of decks, or {'per_row': [decks of row 0, ...]}")
        self.rules.set_fixed_decks(state, decks["per_row"] if per_row else decks, per_row=per_row)
        self._moving = True  # (from here the games are replaced: cut short, the engine stays closed)
        try:
            self.state = state
            self.rules.reset(state, self._rows, dealer=dealer)
        except BaseException as exc:
            self._cut_short(exc, "a reset")
            raise
        self._closed, self._fault, self._moving = False, None, False

    def _per_game_streams(self, state: BatchState, seed: int | None) -> None:
        """``rng="per_game"``: each game slot draws from a stream of its own
        (:mod:`.streams`), keyed by the seed (a fresh one from the OS when
        neither ``reset`` nor ``make`` gave one) and counting on from the
        slot's last game unless ``reset`` reseeds.  No draw is left for the
        batch's generator (using it raises)."""
        old = self.state
        if seed is not None or old is None or old.streams is None:
            key = seed if seed is not None else self._seed
            state.streams = RowStreams(np.random.SeedSequence().entropy if key is None else key)
            state.draws = np.zeros(self.num_envs, np.int64)
        else:
            state.streams, state.draws = old.streams, old.draws.copy()
        state.slot = np.arange(self._first_slot, self._first_slot + self.num_envs)
        state.rng = NO_DRAWS

    def _dealers(self, dealer: Any) -> Any:
        if dealer is None or isinstance(dealer, (int, np.integer)):
            return self.rules.check_dealer(dealer)
        seats = [self.rules.check_dealer(d) for d in np.asarray(dealer, object).reshape(-1)]
        if len(seats) != self.num_envs:
            raise ValueError(f"options['dealer'] must be a seat or one seat per row ({self.num_envs}), got {dealer!r}")
        return np.array(seats, np.int64)

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        self._start(seed, options)
        return self._outputs()

    def restart(self, rows: Any) -> tuple[np.ndarray, dict]:
        """New games in ``rows`` (an index array or bool mask), wherever their
        games stand: those games are dropped unfinished, without scores or
        last observations (a time limit's cut: TorchRL's
        ``StepCounter(max_steps)``), their next deals drawn as a finished
        game's are.  The other games are not touched.  Returns the batch's
        observations and info, as :meth:`reset`.  Errors for ``rows`` as
        :meth:`step`'s, before anything changes."""
        state = self._require_state()
        idx = self._step_rows(rows)
        idx = self._rows if idx is None else idx
        self._moving = True
        try:
            self.rules.forget_fixed_decks(state, idx)
            self.rules.reset(state, idx)
        except BaseException as exc:
            self._cut_short(exc, "a restart")
            raise
        self._moving = False
        return self._outputs()

    def _outputs(self) -> tuple[np.ndarray, dict]:
        """The batch's observations and info now (as :meth:`reset` gives them)."""
        return self._observe(), self._info()

    def close(self) -> None:
        """Free the games' state and stop the threads (``reset`` starts anew)."""
        self.state = None
        self._closed = True
        self.shards.close()

    def _step_rows(self, rows: Any) -> np.ndarray | None:
        return step_rows(rows, self.num_envs)

    def step_into(
        self,
        actions: np.ndarray,
        rows: np.ndarray | None,
        out: tuple[np.ndarray, np.ndarray, int],
        checked: tuple[np.ndarray, np.ndarray] | None = None,
    ):
        """:meth:`step`, writing the observations and masks into ``out`` --
        ``(obs, masks, key)``: a process shard's rows of the batch's output
        block ``key`` (:mod:`.processes`; a path that makes its own arrays
        returns those instead) -- and taking ``checked``, what
        :func:`~.options.legal_actions` found for ``actions``, instead of
        checking them again."""
        self._out, self._checked = out, checked
        try:
            return self.step(actions, rows)
        finally:
            self._out = self._checked = None

    def _step_games(self, state: BatchState, actions: np.ndarray, rows: np.ndarray | None) -> np.ndarray:
        """Step the games ``rows`` (sorted indices; None: every game) with
        their rows of ``actions`` (checked); returns the rewards, 0 for the
        games not stepped."""
        if rows is None:
            return self.rules.step(state, actions)
        part = state.select(rows)
        rewards = np.zeros((self.num_envs, self.num_players), np.float32)
        rewards[rows] = self.rules.step(part, actions[rows])
        state.assign(rows, part)
        return rewards

    def step(self, actions: np.ndarray, rows: np.ndarray | None = None):
        """Step every game with ``actions`` (num_envs,), or only the games in
        ``rows`` (an index array or bool mask; the others stay as they are,
        reward 0) -- e.g. to let other agents move while a learner waits.

        ``TypeError`` for non-integer actions or rows, ``ValueError`` for rows
        out of range, :class:`IllegalActionError` (a ``ValueError``) for a
        wrong shape or an illegal action (of any integer type and size), unless
        ``illegal_action="terminate"``: then that game ends, its acting seat
        gets -1 and the others 0.  Nothing changes before the checks pass.

        A batch of one whose action is a legal integer steps here, with none
        of the shard machinery (no call more than needed: at batch 1 a step's
        Python is as much as its rules): by the rules' one-call step
        (:meth:`~.game.TurnBasedRules.step_one`, which writes the next
        observation and mask too unless a hand is dealt) where the game has
        one, else their batched step.  Anything else (and every batch) takes
        :meth:`_step_batch`, which checks, raises or forfeits.  The same
        results either way (tested over many seeds, through resets).

        A step cut short once the games move (a Ctrl-C, a MemoryError, a
        fault in a kernel) closes the engine: the exception goes on, and
        every later call but ``reset()`` raises a RuntimeError saying why,
        rather than play on with games half-stepped."""
        if self._moving:  # (a step or reset cut short before: refused here, not cut short again)
            self._require_state()  # (raises)
        try:
            out = self._step(actions, rows)
        except BaseException as exc:
            if self._moving:  # some games may have moved and others not: nothing after this can be trusted
                self._cut_short(exc)
            raise
        self._moving = False  # (only now: the games are all moved on)
        if self._first_step:
            self._first_step = False
            jit.first_step(type(self.rules).__module__, done=True)
        return out

    def _cut_short(self, exc: BaseException, what: str = "a step") -> None:
        """Close the engine after ``what`` was cut short while it moved the
        games (the threads of its shards have finished: :meth:`~.shards.Shards.map`
        never returns before); every later call but :meth:`reset` raises why.
        ``_moving`` stays set (cut short here too, the engine still refuses)."""
        self._fault = cut_short("the engine", exc, what)
        self._closed = True  # (the state stays, for a post-mortem; no public call reads it)

    def _step(self, actions: np.ndarray, rows: np.ndarray | None = None):
        """:meth:`step` itself (any exception from where it sets ``_moving`` closes the engine)."""
        state = self.state
        if state is None:  # (no games yet, or closed; a step cut short was refused by step)
            state = self._require_state()  # (raises)
        if (
            rows is not None
            or not self._one_path
            or type(actions) is not np.ndarray
            or actions.shape != (1,)
            or actions.dtype.kind not in "iu"
        ):
            return self._step_batch(state, actions, rows)
        action = actions.item()
        if not (0 <= action < self.num_actions and state.legal.item(action)):  # (row 0's entry: batch of one)
            return self._step_batch(state, actions, rows)
        rules, one, no = self.rules, self._one, self._no_truncation
        self._moving = True
        if one is not None:
            observed, _, seat = rules.step_one(state, action, one)
            rewards = one.rewards.copy()  # (the kernel writes every step's, zeros included)
            over = seat < 0
        else:
            rewards, observed = rules.step(state, actions.astype(np.int64, copy=False)), False
            over = state.done.item()
        if over:
            terminated = np.ones(1, bool)
            info = {"action_mask": None, "current_player": None}
            info.update(self._final_info(terminated, *self._finish(state, self._rows)))
            observed = False
        else:
            terminated = no.copy()  # (all False)
            info = {}
        if observed:
            obs = one.seen.copy() if self.obs_dtype is None else one.seen.astype(self.obs_dtype)
        else:
            obs = self._observe()
        # (the rules' own action_masks only where a game has one: the usual copy without the call)
        info["action_mask"] = state.legal.copy() if self._masks_copied else rules.action_masks(state)
        info["current_player"] = state.current.copy()
        return obs, rewards, terminated, no.copy(), info

    def _step_batch(self, state: BatchState, actions: Any, rows: Any):
        """:meth:`step` by the batched path: the actions checked (and the
        rows), then every game (or the games ``rows``) stepped."""
        checked = self._checked  # (step_into's)
        acts, legal = checked if checked is not None else legal_actions(actions, state.legal)
        idx = self._step_rows(rows)
        chosen = self._rows if idx is None else idx
        ok = legal if idx is None else legal[idx]
        forfeit = None
        if not ok.all():  # (raises, or "terminate": those games forfeited, the others played)
            forfeit = illegal.settle_turns(self.illegal_action, actions, chosen, ok, self.num_envs, self.num_actions)
            idx = chosen[ok]
        self._moving = True
        if idx is None and self._outputs_in_shards and (self.num_threads > 1 or self._out is not None):
            return self._step_every_game(state, acts)
        rewards = self._step_games(state, acts, idx)
        if forfeit is not None:
            illegal.forfeit_turns(rewards, forfeit, state.current)
            terminated = state.done | forfeit
        else:
            terminated = state.done.copy()
        truncated = np.zeros(self.num_envs, bool)
        info_extra = {}
        if np.count_nonzero(terminated):  # (cheaper than .any() on a few rows)
            info_extra = self._final_info(terminated, *self._finish(state, np.flatnonzero(terminated)))
        if self._out is not None:  # (a process shard: its rows of the batch's outputs, written where they are)
            obs, masks, key = self._out
            self._write_outputs(state, obs, masks, key)
            info = {"action_mask": masks, "current_player": state.current.copy()}
        else:
            info, obs = self._info(), self._observe()
        info.update(info_extra)
        return obs, rewards, terminated, truncated, info

    def _write_outputs(self, state: BatchState, obs: np.ndarray, masks: np.ndarray, key: int) -> None:
        """Every row's observation (by the seat to act) and mask written into
        ``obs`` and ``masks``, a process shard's rows of the batch's output
        block ``key`` (:mod:`.processes`): by the game's
        ``write_changed_outputs`` where it has one, else observed into them."""
        if self._outputs_in_shards:
            self.rules.observe_into(state, state.current, obs)
            np.copyto(masks, state.legal)
        else:
            self.rules.write_changed_outputs(state, obs, masks, key)

    def _final_info(self, finished: np.ndarray, seen: np.ndarray, scores: np.ndarray) -> dict[str, Any]:
        """:func:`final_info_of` -- or, for a process shard's step
        (:meth:`step_into`), the finished rows with their last observations
        and scores as they are (``info["_final"]``): the shard writes them
        into the batch's block, and building a row object for each here
        would be work thrown away."""
        if self._out is None:
            return final_info_of(finished, seen, scores)
        return {"_final": (np.flatnonzero(finished), seen, scores)}

    def _finish(self, state: BatchState, done: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The finished games ``done`` (rows of ``state``, which may be a row
        view): their last observations ``(len(done), P, obs)`` and scores
        ``(len(done), P)``, then a new game in each (its deal drawn from
        ``state``: the batch's generator, or the rows' own streams)."""
        rules, n = self.rules, self.num_players
        if not len(done):  # (a shard's share of none: empties of the right types, to merge with the others')
            dtype = rules.obs_dtype if self.obs_dtype is None else self.obs_dtype
            return np.zeros((0, n, rules.obs_size), dtype), np.zeros((0, n), np.int64)
        scores = rules.seat_scores(state)[done]
        seen = rules.observe(state, np.tile(np.arange(n), len(done)), np.repeat(done, n))
        rules.forget_fixed_decks(state, done)
        rules.reset(state, done)
        return self._cast(seen.reshape(len(done), n, -1)), scores

    def _step_every_game(self, state: BatchState, actions: np.ndarray):
        """:meth:`step` of every game with legal ``actions``, the outputs
        written in the row shards: each shard moves its games on and writes
        their observations and masks in the same hand-off
        (:meth:`~.game.TurnBasedRules.step_then`).  Then, in this thread, the
        draws and what follows them -- the new hands dealt, the finished
        games' last observations and resets -- and the outputs of just
        those rows again.  With per-game streams (``rng="per_game"``) the
        shards deal and reset their games themselves: nothing is left here
        but merging what they found.  The same results as observing the
        batch after the step (tested against it).  (With one thread there
        is no hand-off to save, and observing the batch once after the
        deals is cheaper than observing the dealt rows twice.)"""
        rules, streams = self.rules, state.streams is not None
        dtype = rules.obs_dtype if self.obs_dtype is None else self.obs_dtype
        if self._out is not None:  # (a process shard's slices of the batch's outputs)
            obs, masks, _ = self._out
        else:
            obs = np.empty((self.num_envs, rules.obs_size), dtype)
            masks = np.empty((self.num_envs, rules.num_actions), bool)
        terminated = np.empty(self.num_envs, bool)

        def outputs(view: BatchState, lo: int, hi: int) -> list[Any]:
            finished = []
            if streams:  # the view's finished games: their last outputs, and new games (own draws)
                np.copyto(terminated[lo:hi], view.done)
                done = np.flatnonzero(view.done)
                finished = [(done, *self._finish(view, done))]
            rules.observe_into(view, view.current, obs[lo:hi])
            np.copyto(masks[lo:hi], view.legal)
            return finished

        rewards, stale, finished = rules.step_then(state, actions, outputs)
        info = {"action_mask": masks, "current_player": None}
        if not streams:
            np.copyto(terminated, state.done)
            if np.count_nonzero(terminated):
                done = np.flatnonzero(terminated)
                info.update(self._final_info(terminated, *self._finish(state, done)))
                stale = np.union1d(stale, done)
        elif len(finished[0][0]):
            info.update(self._final_info(terminated, *finished[0][1:]))
        if len(stale):
            obs[stale] = rules.observe(state, state.current[stale], stale)
            masks[stale] = state.legal[stale]
        info["current_player"] = state.current.copy()
        return obs, rewards, terminated, np.zeros(self.num_envs, bool), info

    def _observe(self) -> np.ndarray:
        return self._cast(self.rules.observe(self.state, self.state.current))

    def _info(self) -> dict:
        return {"action_mask": self.rules.action_masks(self.state), "current_player": self.state.current.copy()}

    def observe(self, seats: np.ndarray) -> np.ndarray:
        """Every game seen by ``seats``: one seat per row, an integer array of
        shape ``(num_envs,)`` with values in ``0..num_players - 1``.
        ``TypeError`` for a non-integer (or bool) array, ``ValueError`` for
        another shape or a seat out of range; nothing is read before the
        checks pass (:func:`~.options.seat_array`)."""
        state = self._require_state()
        return self._cast(self.rules.observe(state, seat_array(seats, self.num_envs, self.num_players)))

    def state_dict(self, index: int) -> dict:
        state = self._require_state()
        if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
            raise TypeError(f"index must be an int row, got {index!r}")
        if not 0 <= index < self.num_envs:
            raise ValueError(f"index {index} out of range 0..{self.num_envs - 1}")
        return self.rules.state_dict(state, int(index))

    # --- the whole game, for centralised critics (cardenvs.core.state) ---------
    @property
    def single_state_space(self) -> spaces.Box:
        """One game's state space (the PettingZoo env's ``state_space``;
        made when first asked)."""
        space = self.__dict__.get("_single_state_space")
        if space is None:
            space = self._single_state_space = state_box(self.rules, self.obs_dtype)
        return space

    @property
    def state_space(self) -> spaces.Box:
        """The space of :meth:`states`: ``(num_envs, state_size)``."""
        return batch_space(self.single_state_space, (self.num_envs,))

    def states(self) -> np.ndarray:
        """Every game's state ``(num_envs, state_size)``, row i what the
        PettingZoo env's ``state()`` is for game i: the whole game from a
        neutral view, for centralised critics (:mod:`cardenvs.core.state`).
        Plural because ``state`` is the engine's batch of games; computed
        only when called (no step computes it).  A finished game's slot
        already holds the next game (the automatic reset), so this is the
        new game's state."""
        return encode_states(self.rules, self._require_state(), None, self.obs_dtype)
