"""Process shards: the vector engine over several processes
(``cardenvs.vector.make(..., num_processes=k)``).

Threads share one interpreter, and a step's numpy and kernel calls hand its
lock back and forth between them (docs/vector.md, "Threads").
Processes share nothing of the kind: the games are cut into ``k``
contiguous shards, each an ordinary vector engine of its rows -- the first
in the calling process, the others each in a worker process of its own,
forked when the engine is made -- and a step is one command to each worker
and one reply, through shared memory.

* **The same games.** The shards draw from per-game streams
  (``rng="per_game"``, :mod:`.streams`): shard ``i`` is the slots
  ``lo..hi`` of the whole batch's streams, so every game is the game the
  one-process engine with ``rng="per_game"`` and the same seed plays in
  that row, for every ``k`` (tested).
* **No copies on the way.** Each shard writes its observations and masks
  straight into one of a few output blocks of the whole batch in shared
  memory, and the step hands out that block's arrays, **read-only**: over
  read-only buffers, so numpy refuses to make them writeable.  A block is
  written again only once every array handed out from it, and every view
  of one, is gone (their reference counts, :mod:`.holders`), so an array
  you hold never changes (hold more than :data:`~.workers.BLOCKS` steps'
  and the step copies into fresh arrays instead).  The finished games'
  last observations (``info["final_obs"]``) are read-only rows of the
  block too; rewards, flags and seats are small and come as fresh arrays.
* **Waiting.** A side waiting for the other polls the shared memory for
  :data:`~.workers.SPIN_SECONDS`, then sleeps on its pipe: a worker between two steps
  of a busy loop -- the caller's policy running in between -- never sleeps
  (a wake-up across cores costs as much as a small step: a longer poll made
  two processes clearly faster over one, Push most),
  and an engine left idle costs no CPU after that.  (OpenMP runtimes do
  the same: Intel's waits actively for a while by default.)  Set
  :data:`~.workers.SPIN_SECONDS` before making an engine to change it; 0 sleeps at
  once.  On cores shared with other work the poll would take the core
  from the very process it waits for, so after
  :data:`~.workers.YIELD_AFTER` it offers the core at each poll and
  sleeps once another process took it; and an engine made where this
  process can tell that the cores are short (its CPU affinity, the load
  average) warns (RuntimeWarning): such processes step slower than one.
* **Bad input changes nothing.** The calling process checks every action
  against the masks it handed out last -- the games' own, since nobody
  can write to them -- before it sends anything; the shards then step
  without checking again (``CHECKED``).  The error names the actions as
  one process's engine does.  (With ``illegal_action="terminate"`` or
  ``"wait"`` each shard deals with its own.)  ``reset``'s seed and
  options are checked here too, over the whole batch as one process
  checks them: a bad one raises that engine's error and keeps the games.
* **Never half a command.** A step that fails in any shard, a command
  interrupted while the shards work (a ``KeyboardInterrupt`` caught
  around ``step``) and a worker that died close the engine: the shards no
  longer agree with each other or with the masks handed out, so every
  later call raises a RuntimeError saying why (make a new engine).  An
  error of a call that moves nothing (``state_dict``, ``observe``) is
  only raised.  A command's arguments reach the worker after it is told to
  read them, so no size of them can block both sides.

Not offered with processes: the batch's ``state`` (each shard's lives in its
own process; ``state_dict(i)``, ``observe(...)`` ask the shard that has the
row), pickles, and use from a forked child (each raises a clear error).
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import types
import warnings
import weakref
from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np

from . import illegal
from .engine import VectorEnv, batch_space, final_info_of, step_rows
from .errors import IllegalActionError
from .game import positive_int
from .holders import read_only
from .options import check_seed, integer_array, legal_actions, legal_into, seat_array
from .shards import cut
from .streams import check_rng_mode
from .workers import (
    BLOCK,
    BLOCKS,
    CALL,
    CHECKED,
    DONE,
    FAILED,
    FINISHED,
    MAIN_ASLEEP,
    OP,
    ROWS_GIVEN,
    SEQ,
    STEP,
    WORKER_ASLEEP,
    OutputBlock,
    StepIO,
    serve_forked,
    shared_cores,
    step_shard,
    stop_workers,
    wait_for,
    wake_up,
)

#: What every call raises once a command was cut short half-way (``what``: the command).
INTERRUPTED = "the process engine was closed because {} was interrupted; make a new one"


class WorkerDiedError(RuntimeError):
    """A worker process of the engine is gone (the engine is closed)."""


def check_arguments(num_envs: Any, num_processes: Any, rng: Any, seed: Any, options: dict) -> None:
    """ValueError for what a process-sharded engine cannot be made with."""
    positive_int("num_envs", num_envs)
    positive_int("num_processes", num_processes)
    if num_processes > num_envs:
        raise ValueError(f"num_processes must be at most the number of games ({num_envs}), got {num_processes}")
    if check_rng_mode(rng) != "per_game":
        raise ValueError(
            "num_processes > 1 needs rng='per_game': each process draws for its own games "
            "(the shared generator's draws depend on every game's)"
        )
    if options.get("num_threads", 1) != 1:
        raise ValueError("num_processes and num_threads cannot both be more than 1")
    if "fork" not in multiprocessing.get_all_start_methods():
        raise ValueError(
            "num_processes > 1 forks its workers, and this platform cannot fork (Windows): "
            "use num_processes=1 (or num_threads)"
        )


class ProcessVectorEnv:
    """``num_envs`` games of one game, stepped in ``num_processes`` row
    shards at once, each in a process of its own (see the module
    docstring).  The same API as the engine of one process -- ``reset``,
    ``step(actions, rows=None)``, ``observe``, ``state_dict``, the spaces,
    ``close`` -- and the same results as ``rng="per_game"`` there; the
    observations and masks come read-only.

    ``engine_class(rules, num_envs, seed, first_slot=..., **options)`` makes
    one shard's engine."""

    def __init__(
        self,
        engine_class: type,
        rules: Any,
        num_envs: int,
        seed: int | None = None,
        num_processes: int = 2,
        rng: str = "per_game",
        **options: Any,
    ):
        check_arguments(num_envs, num_processes, rng, seed, options)
        busy = shared_cores(num_processes)
        if busy is not None:
            warnings.warn(
                f"num_processes={num_processes}, but {busy}: processes that share cores can step several times "
                "slower than one, each step waiting for the slowest (benchmarks/thread_scaling.py --contention); "
                "use fewer processes (num_processes=1 has no workers to wait for)",
                RuntimeWarning,
                stacklevel=3,
            )
        options.pop("num_threads", None)
        self.num_envs = int(num_envs)
        self.num_processes = int(num_processes)
        self.bounds = cut(self.num_envs, self.num_processes)
        self._seed = seed
        self._pid = os.getpid()
        self._started = False
        self._masks: np.ndarray | None = None
        self.closed = False
        # (why the engine was closed, if not by close(): every later call raises it; set while a
        # command moves the shards, so that one cut short anywhere leaves it set)
        self._fault: str | None = None
        shards = [
            engine_class(rules, hi - lo, seed, rng="per_game", first_slot=lo, **options) for lo, hi in self.bounds
        ]
        self._shard = shards[0]
        first = shards[0]
        self.rules = rules
        self.illegal_action = first.illegal_action
        self.num_players, self.num_actions = first.num_players, first.num_actions
        self.single_observation_space, self.single_action_space = (
            first.single_observation_space,
            first.single_action_space,
        )
        self.metadata = first.metadata
        self.simultaneous = len(first.batch_shape) > 1
        n, per_row = self.num_envs, first.batch_shape[1:]  # (Spit: a row per player)
        self.batch_shape = (n, *per_row)
        self.observation_space = batch_space(self.single_observation_space, self.batch_shape)
        self.action_space = batch_space(self.single_action_space, self.batch_shape)
        obs_space = self.single_observation_space
        # (one finished game's last observations: every seat's)
        seen_tail = (self.num_players, *obs_space.shape)
        mask_shape = (*self.batch_shape, self.num_actions)
        self._block_shapes = (self.observation_space.shape, obs_space.dtype, mask_shape, seen_tail)
        act_tail = per_row
        score_dtype = rules.seat_scores(rules.new_state(1, np.random.default_rng(0))).dtype
        self._blocks = [OutputBlock(*self._block_shapes) for _ in range(BLOCKS + 1)]
        self._io = StepIO(n, num_processes, self.num_players, act_tail, score_dtype)
        self._ctl = self._io.ctl
        self._start_workers(shards[1:])

    def _start_workers(self, shards: list[Any]) -> None:
        """Fork a worker for each of ``shards`` (the engines of shards 1...)."""
        self._conns: list[Any] = []
        self._wakes: list[Any] = []
        self._workers: list[Any] = []
        context = multiprocessing.get_context("fork")
        for k, (shard, (lo, hi)) in enumerate(zip(shards, self.bounds[1:]), 1):
            (mine, theirs), (wake, woken) = context.Pipe(), context.Pipe()
            process = context.Process(
                target=serve_forked,
                args=(shard, self._io, k, self._blocks, lo, hi, theirs, woken, self._pid),
                daemon=True,
                name=f"cardenvs-shard-{lo}",
            )
            process.start()
            theirs.close()
            woken.close()
            self._conns.append(mine)
            self._wakes.append(wake)
            self._workers.append(process)
        self._finalizer = weakref.finalize(self, stop_workers, self._workers, self._ctl[1:], self._conns, self._wakes)

    # ------------------------------------------------------------------ plumbing
    def _require(self, started: bool = True) -> None:
        if os.getpid() != self._pid:
            raise RuntimeError(
                f"this vector engine's worker processes belong to process {self._pid}: "
                "make a new engine in this process"
            )
        if self._fault is not None and not self.closed:  # (a command cut short before its handler ran)
            self.close()
        if self.closed:
            raise RuntimeError(self._fault or "the engine is closed")
        if started and not self._started:
            raise RuntimeError("call reset() before step()")

    def _start(self, k: int, op: int, call: bytes | None = None) -> None:
        """Start a command in worker ``k`` (shard ``k + 1``): a ``call`` is
        the pickle of ``(name, args)`` of its engine (a step's words are set
        before).  The worker is told first and then sent the call, which it
        reads as it comes: a call of any size crosses (written first, one
        larger than the pipe's buffer would block both sides)."""
        ctl = self._ctl[k + 1]
        ctl[OP] = op
        ctl[SEQ] += 1
        try:
            wake_up(ctl, WORKER_ASLEEP, self._wakes[k])
            if call is not None:
                self._conns[k].send_bytes(call)
        except OSError:  # (a broken pipe: the worker is gone)
            raise self._died(k) from None

    def _finish(self, k: int, op: int) -> tuple[BaseException | None, Any]:
        """Wait for worker ``k``'s reply: (its error or None, a CALL's
        result).  WorkerDiedError if it died."""
        ctl, conn, process = self._ctl[k + 1], self._conns[k], self._workers[k]
        try:
            wait_for(ctl, DONE, ctl[SEQ], self._wakes[k], MAIN_ASLEEP, process.is_alive)
            if op == CALL:
                ok, value = pickle.loads(conn.recv_bytes())
                return (None, value) if ok else (value, None)
            return (pickle.loads(conn.recv_bytes()) if ctl[FAILED] else None), None
        except (RuntimeError, EOFError, OSError):
            raise self._died(k) from None

    def _died(self, k: int) -> WorkerDiedError:
        """The error of worker ``k`` gone: how it ended."""
        process = self._workers[k]
        process.join(1)  # (its pipes close as it exits, a moment before it can be waited for)
        code = process.exitcode
        how = "still running but not answering" if code is None else f"exit code {code}"
        if code is not None and code < 0:
            how = f"killed by signal {-code}"
        return WorkerDiedError(
            f"a worker process of the vector engine died (pid {process.pid}, {how}): "
            "the engine is closed; make a new one"
        )

    def _fail(self, what: str, error: BaseException) -> NoReturn:
        """Close the engine after ``what`` (a command) stopped half-way with
        ``error``, and raise: the error itself (a step's error in a shard, an
        interrupt), or a RuntimeError saying that a worker died (also for a
        pipe error that says only that).  Every later call raises why."""
        died = error if isinstance(error, WorkerDiedError) else None
        if died is None and isinstance(error, Exception):
            dead = next((k for k, process in enumerate(self._workers) if not process.is_alive()), None)
            died = None if dead is None else self._died(dead)
        if died is not None:
            self._fault = str(died)
        elif isinstance(error, Exception):
            name = f"{type(error).__name__}: {error}"[:200]
            self._fault = f"the process engine was closed because {what} failed ({name}); make a new one"
        else:  # (KeyboardInterrupt, SystemExit: raised as they are)
            self._fault = INTERRUPTED.format(what)
        self.close()
        if died is not None:
            raise RuntimeError(self._fault) from None if died is error else error
        raise error

    def _call(self, name: str, args_of: Callable[[int, int], tuple], shards: list[int] | None = None) -> list[Any]:
        """``name(*args_of(lo, hi))`` on the engines of ``shards`` (default:
        every one; the workers' at the same time as the calling process's):
        their results in shard order, or the first error of a shard's engine
        (raised once every shard is done; the engine stays open).  A worker
        that died, or an interrupt, closes the engine."""
        results, errors = self._command(name, args_of, shards)
        error = next((e for e in errors if e is not None), None)
        if error is not None:
            raise error
        return results

    def _command(self, name: str, args_of: Callable, shards: list[int] | None = None) -> tuple[list, list]:
        """:meth:`_call`'s results and errors (None where none), shard by shard."""
        shards = list(range(self.num_processes)) if shards is None else shards
        calls = {k: pickle.dumps((name, args_of(*self.bounds[k]))) for k in shards if k}  # (before anything moves)
        self._fault = INTERRUPTED.format(name)
        try:
            done = self._calls(name, args_of, shards, calls)
        except BaseException as error:
            self._fail(name, error)
        self._fault = None
        return done

    def _calls(self, name: str, args_of: Callable, shards: list[int], calls: dict[int, bytes]) -> tuple[list, list]:
        """:meth:`_call`'s commands: the results and errors of ``shards``."""
        for k, process in enumerate(self._workers):  # (every call after a worker's death raises it)
            if not process.is_alive():
                raise self._died(k)
        for k in shards:
            if k:
                self._start(k - 1, CALL, call=calls[k])
        results: list[Any] = []
        errors: list[BaseException | None] = []
        if 0 in shards:
            try:
                results.append(getattr(self._shard, name)(*args_of(*self.bounds[0])))
                errors.append(None)
            except Exception as error:
                results.append(None)
                errors.append(error)
        for k in shards:
            if k:
                error, value = self._finish(k - 1, CALL)
                errors.append(error)
                results.append(value)
        return results, errors

    # ------------------------------------------------------------------ the engine's API
    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """New games in every slot (see :meth:`VectorEnv.reset
        <cardenvs.core.engine.VectorEnv.reset>`); per-row options are cut
        at the shards.  A bad seed or options raise the error of one
        process's engine before any shard moves: the games go on."""
        self._require(started=False)
        check_reset(self.rules, seed, options, self.num_envs)
        if seed is None and not self._started and self._seed is None:
            seed = int(np.random.SeedSequence().entropy % 2**63)  # (one key for every shard's streams)
        parts, errors = self._command("reset", lambda lo, hi: (seed, _options_of(options, lo, hi, self.num_envs)))
        error = next((e for e in errors if e is not None), None)
        if error is not None:
            # (refused by every shard, nothing moved: the games go on)
            if not all(e is not None for e in errors):
                self._started = False
            raise error
        block = self._take_block()
        for (lo, hi), (obs, info) in zip(self.bounds, parts):
            block.obs[lo:hi] = obs
            block.masks[lo:hi] = info["action_mask"]
        obs, masks, _ = block.hand_out()
        self._masks = masks
        self._started = True
        info = {"action_mask": masks}
        if not self.simultaneous:
            info["current_player"] = np.concatenate([p[1]["current_player"] for p in parts])
        return obs, info

    def step(self, actions: np.ndarray, rows: np.ndarray | None = None):
        """Step every game (or the games ``rows``) with ``actions``: the
        returns, errors and ``rows`` of :meth:`VectorEnv.step
        <cardenvs.core.engine.VectorEnv.step>`; nothing changes before
        every action is checked."""
        self._require()
        idx = self._shard_rows(rows)
        shape = self._masks.shape[:-1]
        if type(actions) is np.ndarray and actions.dtype == np.int64 and actions.shape == shape:
            arr = actions  # (what a policy usually hands over)
        else:
            arr = integer_array(actions, shape).astype(np.int64)  # (TypeError / IllegalActionError)
        io, check, waited = self._io, illegal.raises(self.illegal_action), None
        # (checked against the masks handed out last: nobody can have written to them)
        if check and idx is None:  # (the usual step: checked and written where the shards read them, in one pass)
            if not legal_into(arr, self._masks, io.actions):
                raise self._illegal(actions, legal_actions(arr, self._masks)[1], idx)
        else:
            if check:
                acts, ok = legal_actions(arr, self._masks)
                if not ok[idx].all():
                    raise self._illegal(actions, ok, idx)
                arr = acts  # (out of range made 0, in the rows not played too)
            else:  # (out of range: refused under every policy; "wait": who waits, said in the info)
                illegal.refuse_out_of_range(arr, shape, self.num_actions, idx)
                waited = self._waited(arr, idx)
            np.copyto(io.actions, arr)
        if idx is not None:
            io.rows[...] = False
            io.rows[idx] = True
        block_index = self._free_block()
        spare = block_index is None
        if spare:
            block_index = len(self._blocks) - 1
        block = self._blocks[block_index]
        for ctl in self._ctl:
            ctl[ROWS_GIVEN], ctl[CHECKED], ctl[BLOCK] = idx is not None, check, block_index
        # (from here the shards move: cut short anywhere before the new masks are kept, the engine is closed)
        self._fault = INTERRUPTED.format("a step")
        try:
            out = self._step_shards(block, spare)
        except BaseException as error:
            self._fail("a step", error)
        self._fault = None
        if waited is not None:
            out[-1]["illegal_waited"] = waited
        return out

    def _waited(self, arr: np.ndarray, idx: np.ndarray | None) -> np.ndarray | None:
        """``illegal_action="wait"``: the players whose action (in range) is
        illegal in the games played, played as waiting; else None."""
        if self.illegal_action != illegal.WAIT:
            return None
        waited = ~legal_actions(arr, self._masks)[1]
        if idx is not None:
            waited[np.setdiff1d(np.arange(self.num_envs), idx)] = False
        return waited

    def _step_shards(self, block: OutputBlock, spare: bool) -> tuple:
        """Step every shard (their actions, rows and words set) and return
        what they wrote; raise the first error of any shard."""
        for k in range(self.num_processes - 1):
            self._start(k, STEP)
        errors: list[BaseException | None] = [None]
        try:
            step_shard(self._shard, self._io, self._ctl[0], self._blocks, *self.bounds[0])
        except Exception as error:  # (raised once the workers are done)
            errors[0] = error
        errors += [self._finish(k, STEP)[0] for k in range(self.num_processes - 1)]
        error = next((e for e in errors if e is not None), None)
        if error is not None:
            raise error
        return self._outputs(block, spare)

    def _outputs(self, block: OutputBlock, spare: bool) -> tuple:
        """What the shards wrote, as :meth:`step` returns it."""
        io = self._io
        if spare:  # every block still held: fresh copies of the spare's (as unwritable)
            obs, masks = (read_only(a.copy()).reshape(a.shape) for a in (block.obs, block.masks))
            seen = block.seen
        else:
            obs, masks, seen = block.hand_out()
        self._masks = masks
        info: dict[str, Any] = {}
        counts = [int(ctl[FINISHED]) for ctl in self._ctl]
        if any(counts):  # (each finished game's last observations: a row of the block's, from the shard's first row)
            at = np.concatenate([np.arange(lo, lo + n) for (lo, _), n in zip(self.bounds, counts) if n])
            finished = np.zeros(self.num_envs, bool)
            finished[io.final_rows[at]] = True
            scores = io.final_scores[at]  # (in row order: shards in order, each in order)
            # (the spare block is written again next step: its rows copied out)
            info = final_info_of(finished, seen[at], scores) if spare else final_info_of(finished, seen, scores, at)
        info["action_mask"] = masks
        if not self.simultaneous:
            info["current_player"] = io.current.copy()
        return obs, io.rewards.copy(), io.terminated.copy(), io.truncated.copy(), info

    def _illegal(self, actions: Any, ok: np.ndarray, idx: np.ndarray | None) -> IllegalActionError:
        """The error naming the first illegal actions (as one process's
        engine names them); ``ok``: which actions are legal."""
        if idx is not None:
            chosen = np.zeros(self.num_envs, bool)
            chosen[idx] = True
            ok = ok | (~chosen if ok.ndim == 1 else ~chosen[:, None])
        if self.simultaneous:
            return illegal.joint_error(self.rules, self._masks, actions, ok)
        return illegal.rows_error(actions, np.flatnonzero(~ok))

    def _shard_rows(self, rows: Any) -> np.ndarray | None:
        return step_rows(rows, self.num_envs)

    def _free_block(self) -> int | None:
        for k, block in enumerate(self._blocks[:-1]):
            if not block.held:
                return k
        return None

    def _take_block(self) -> OutputBlock:
        k = self._free_block()
        if k is None:  # (every block held: a new one for this output alone)
            return OutputBlock(*self._block_shapes)
        return self._blocks[k]

    def observe(self, seats: np.ndarray | None = None) -> np.ndarray:
        """Every game seen by ``seats`` (one per row; Spit: every player's view, no argument)."""
        self._require()
        if self.simultaneous:
            return np.concatenate(self._call("observe", lambda lo, hi: ()))
        seats = seat_array(seats, self.num_envs, self.num_players)  # (one process's errors, the batch's rows)
        return np.concatenate(self._call("observe", lambda lo, hi: (seats[lo:hi],)))

    def state_dict(self, index: int) -> dict:
        """The game in row ``index`` (asked of the shard that has it)."""
        self._require()
        if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
            raise TypeError(f"index must be an int row, got {index!r}")
        if not 0 <= index < self.num_envs:
            raise ValueError(f"index {index} out of range 0..{self.num_envs - 1}")
        k = next(k for k, (lo, hi) in enumerate(self.bounds) if lo <= index < hi)
        return self._call("state_dict", lambda lo, hi: (int(index) - lo,), [k])[0]

    @property
    def single_state_space(self) -> Any:
        """One game's state space (see :meth:`VectorEnv.states`)."""
        return self._shard.single_state_space

    @property
    def state_space(self) -> Any:
        """The space of :meth:`states`: ``(num_envs, state_size)``."""
        return batch_space(self.single_state_space, (self.num_envs,))

    def states(self) -> np.ndarray:
        """Every game's state ``(num_envs, state_size)`` (see
        :meth:`VectorEnv.states`), each shard's rows asked of its process."""
        self._require()
        return np.concatenate(self._call("states", lambda lo, hi: ()))

    def close(self) -> None:
        """Stop the worker processes (the engine cannot be used again)."""
        if self.closed:
            return
        self.closed = True
        if os.getpid() == self._pid:
            self._finalizer()

    def __reduce__(self) -> Any:
        raise TypeError(
            "a vector engine with worker processes cannot be pickled or copied: "
            "make one with the same arguments (its games follow from the seed)"
        )

    def __repr__(self) -> str:
        rules, n, k = type(self.rules).__name__, self.num_envs, self.num_processes
        return f"ProcessVectorEnv({rules}, num_envs={n}, num_processes={k})"


def check_reset(rules: Any, seed: Any, options: Any, n: int) -> None:
    """Raise what the one-process engine of ``n`` games (per-game streams)
    raises for ``reset(seed, options)`` -- the same checks, messages and
    order -- before any shard moves: the shards see only their rows, and a
    bad option found by some of them would leave the others reset."""
    if options is not None and not isinstance(options, dict):
        raise ValueError(f"options must be a dict with keys 'decks' and 'dealer', got {options!r}")
    check_seed(seed, per_game=True)
    options = options or {}
    VectorEnv._dealers(types.SimpleNamespace(rules=rules, num_envs=n), options.get("dealer"))
    decks = options.get("decks")
    per_row = isinstance(decks, dict)
    if per_row and set(decks) != {"per_row"}:
        raise ValueError("options['decks'] is a list of decks, or {'per_row': [decks of row 0, ...]}")
    rules.set_fixed_decks(types.SimpleNamespace(batch=n), decks["per_row"] if per_row else decks, per_row=per_row)


def _options_of(options: dict | None, lo: int, hi: int, n: int) -> dict | None:
    """The reset options of rows ``lo:hi`` (checked by :func:`check_reset`):
    per-row decks and dealers cut, the rest as given."""
    if not options:
        return options
    mine = dict(options)
    decks = options.get("decks")
    if isinstance(decks, dict):  # (checked: {"per_row": a sequence of n})
        mine["decks"] = {"per_row": [decks["per_row"][i] for i in range(lo, hi)]}
    dealer = options.get("dealer")
    if dealer is not None and not isinstance(dealer, (int, np.integer)):
        dealers = np.asarray(dealer, object).reshape(-1)
        if len(dealers) == n:
            mine["dealer"] = list(dealers[lo:hi])
    return mine
