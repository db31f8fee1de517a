"""What runs in a worker process of the process-sharded vector engine
(:mod:`.processes`), and what both sides share: the arrays in shared
memory (:func:`shared_array`, :class:`OutputBlock`, :class:`StepIO`),
the control words and how a side waits for the other (:func:`wait_for`,
:func:`wake_up`), a shard's step (:func:`step_shard`: the calling process
runs it on its own shard too) and the worker's loop (:func:`serve`)."""

from __future__ import annotations

import mmap
import os
import pickle
import platform
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .holders import held, read_only, unheld_counts

#: How long a side waiting for the other polls shared memory before it sleeps on its pipe (seconds;
#: a worker keeps the value it had when it was forked).  Each poll keeps a core busy for that long.
SPIN_SECONDS = 0.05
#: Output blocks of the whole batch that the steps take in turn (one more is kept for copies).
BLOCKS = 4
#: Polling shared memory relies on x86's ordered stores; elsewhere every command and reply also
#: goes through the pipe (a system call orders memory).
SPIN = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")
#: How long a sleeping side sleeps before it looks again (a missed wake-up costs at most this).
NAP_SECONDS = 0.05
#: After polling this long (seconds), a waiting side offers its core at each poll (``sched_yield``)
#: and sleeps on its pipe as soon as another process took it: on cores shared with other work, a
#: poll that kept its core would take it from the very process it waits for (issue #35, R18:
#: ``benchmarks/thread_scaling.py --contention``).  With free cores nobody takes it, and the poll goes on as before.
#: ``math.inf``: never offer it.
YIELD_AFTER = 20e-6
#: A yield that returned later than this gave the core to another process (seconds).
GAVE_AWAY = 50e-6

# The control words of a shard (int64, shared): the command's number, what it is, the output
# block, the number of the last command done, whether it failed, who sleeps, the finished rows,
# whether rows were given, and whether the calling process checked the step's actions (every one
# legal: the shard steps without checking them again).
SEQ, OP, BLOCK, DONE, FAILED, WORKER_ASLEEP, MAIN_ASLEEP, FINISHED, ROWS_GIVEN, CHECKED = range(10)
STEP, CALL, STOP = 1, 2, 3
WAKE = b"w"


def shared_array(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """A zeroed array in anonymous shared memory: a process forked later
    sees the same bytes."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    buffer = mmap.mmap(-1, max(size, 1))
    return np.frombuffer(buffer, dtype, int(np.prod(shape, dtype=np.int64))).reshape(shape)


class OutputBlock:
    """One step's observations and masks of the whole batch, and the
    finished games' last observations (each shard's from its first row
    on), in shared memory; :meth:`hand_out` gives arrays over them that
    nobody can write through, and the block is :attr:`held` until every
    one of them (and every view of one) is gone."""

    def __init__(self, obs_shape: tuple[int, ...], obs_dtype: Any, mask_shape: tuple[int, ...], seen_tail: tuple):
        self.obs = shared_array(obs_shape, obs_dtype)
        self.masks = shared_array(mask_shape, bool)
        self.seen = shared_array((obs_shape[0], *seen_tail), obs_dtype)  # (pages only where written)
        arrays = (self.obs, self.masks, self.seen)
        # The arrays handed out, made once: each a view of a flat read-only view, which every view
        # taken of it refers to (numpy's base).  The block is held while any of the six has a
        # reference besides these: what each counts when nobody holds it is read here, once.
        flats = [read_only(array) for array in arrays]
        self._handed = [*flats, *(flat.reshape(array.shape) for flat, array in zip(flats, arrays))]
        del flats
        self._unheld = unheld_counts(self._handed)

    def hand_out(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The observations, masks and last observations, over read-only
        buffers (numpy refuses to make them writeable): the same three
        arrays each time."""
        handed = self._handed
        return handed[3], handed[4], handed[5]

    @property
    def held(self) -> bool:
        """Whether an array handed out from the block, or a view of one, lives."""
        handed = self._handed
        return any(held(handed, i, unheld) for i, unheld in enumerate(self._unheld))


class StepIO:
    """What the shards read and write besides the output blocks, over the
    whole batch (a shard uses its rows): actions and rows in; rewards,
    flags, seats and the finished games out.  Plus each shard's control
    words (``ctl[k]``).  All shared."""

    def __init__(self, n: int, shards: int, players: int, action_tail: tuple, score_dtype: Any):
        self.ctl = [shared_array((16,), np.int64) for _ in range(shards)]
        self.actions = shared_array((n, *action_tail), np.int64)
        self.rows = shared_array((n,), bool)
        self.rewards = shared_array((n, players), np.float32)
        self.terminated = shared_array((n,), bool)
        self.truncated = shared_array((n,), bool)
        self.current = shared_array((n,), np.int64)
        self.final_rows = shared_array((n,), np.int64)
        self.final_scores = shared_array((n, players), score_dtype)
        # what a shard takes as its actions' check when the calling process found every one legal
        self.all_legal = np.ones((n, *action_tail), bool)
        self.all_legal.flags.writeable = False


def step_shard(engine: Any, io: StepIO, ctl: np.ndarray, blocks: list[OutputBlock], lo: int, hi: int) -> None:
    """Step one shard's engine (rows ``lo:hi`` of the batch) with its
    actions in ``io`` (and its rows, when given) and write what it returns
    into its rows of the block and ``io``: the finished games (in order)
    from row ``lo`` of ``io.final_*`` and ``block.seen``.
    When ``ctl[CHECKED]`` says the calling process found every action
    legal, they are not checked again."""
    checked = (io.actions[lo:hi], io.all_legal[lo:hi]) if ctl[CHECKED] else None
    key = int(ctl[BLOCK])
    block = blocks[key]
    obs_out, masks_out = block.obs[lo:hi], block.masks[lo:hi]
    rows = np.flatnonzero(io.rows[lo:hi]) if ctl[ROWS_GIVEN] else None
    out = engine.step_into(io.actions[lo:hi], rows, (obs_out, masks_out, key), checked)
    obs, rewards, terminated, truncated, info = out
    if obs is not obs_out:  # (a path that made its own: Push, a shard of one game)
        np.copyto(obs_out, obs)
    if info["action_mask"] is not masks_out:
        np.copyto(masks_out, info["action_mask"])
    io.rewards[lo:hi] = rewards
    io.terminated[lo:hi] = terminated
    io.truncated[lo:hi] = truncated
    if "current_player" in info:
        io.current[lo:hi] = info["current_player"]
    finished, seen, scores = info.get("_final", ((), None, None))  # (raw: see VectorEnv._final_info)
    n = len(finished)
    if n:
        io.final_rows[lo : lo + n] = finished + lo  # (the batch's rows)
        block.seen[lo : lo + n] = seen
        io.final_scores[lo : lo + n] = scores
    ctl[FINISHED] = n


def wait_for(ctl: np.ndarray, word: int, value: int, wake: Any, asleep: int, alive: Callable[[], bool]) -> None:
    """Until ``ctl[word] == value``: poll for :data:`SPIN_SECONDS` (offering
    the core after :data:`YIELD_AFTER`, and no longer once another process
    took it), then sleep on the ``wake`` pipe (woken by the other side, or
    every :data:`NAP_SECONDS` to look again).  RuntimeError when
    ``alive()`` says the other side is gone."""
    if SPIN:
        start = time.perf_counter()
        while ctl[word] != value:
            now = time.perf_counter()
            if now - start > SPIN_SECONDS:
                break
            if now - start > YIELD_AFTER:
                os.sched_yield()
                if time.perf_counter() - now > GAVE_AWAY:  # (the core was wanted: sleep, it is free for them)
                    break
        else:
            return
    while ctl[word] != value:
        ctl[asleep] = 1
        if ctl[word] != value and wake.poll(NAP_SECONDS):
            drain(wake)
        ctl[asleep] = 0
        if ctl[word] != value and not alive():
            raise RuntimeError("a worker process of the vector engine died")


def shared_cores(num_processes: int) -> str | None:
    """Why ``num_processes`` processes (the calling one and its workers)
    would share cores here, where this process can tell: fewer CPUs it may
    run on than processes, or a 1-minute load average leaving them more
    than half a core short (counting the calling process in it).  None
    when it cannot tell or they fit."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # (no affinity on this platform)
        cpus = os.cpu_count() or 1
    if cpus < num_processes:
        return f"this process may run on {cpus} CPU(s)"
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return None
    if load + num_processes - 1 > cpus + 0.5:
        return f"the load average ({load:.1f}) says most of the {cpus} CPUs are busy"
    return None


def wake_up(ctl: np.ndarray, asleep: int, wake: Any) -> None:
    """Wake the other side if it sleeps (always where nothing spins)."""
    if not SPIN or ctl[asleep]:
        wake.send_bytes(WAKE)


def drain(wake: Any) -> None:
    """Read the wake-ups waiting (none left to wake a later wait).  A pipe
    whose other end is gone reads as empty: the wait's liveness check says why."""
    try:
        while wake.poll(0):
            wake.recv_bytes()
    except (EOFError, OSError):
        pass


def serve(
    engine: Any, io: StepIO, k: int, blocks: list[OutputBlock], lo: int, hi: int, conn: Any, wake: Any, parent: int
) -> None:
    """A worker's loop: carry out each command of the calling process on
    its shard's engine until told to stop (or the parent is gone).  Calls
    and their replies are pickles on ``conn``; ``wake`` carries wake-ups
    only."""
    done, ctl = 0, io.ctl[k]
    alive = lambda: os.getppid() == parent  # noqa: E731
    while True:
        try:
            wait_for(ctl, SEQ, done + 1, wake, WORKER_ASLEEP, alive)
        except RuntimeError:
            return
        done += 1
        op, reply = int(ctl[OP]), None
        if op == STEP:
            try:
                step_shard(engine, io, ctl, blocks, lo, hi)
            except BaseException as error:  # (raised in the calling process)
                reply = error
        elif op == CALL:
            name, args = pickle.loads(conn.recv_bytes())
            try:
                reply = (True, getattr(engine, name)(*args))
            except BaseException as error:
                reply = (False, error)
        # done first, then what there is to say: a large reply fills the pipe, and the calling
        # process reads it only once it sees the command done
        ctl[FAILED] = op == STEP and reply is not None
        ctl[DONE] = done
        wake_up(ctl, MAIN_ASLEEP, wake)
        if reply is not None:
            conn.send_bytes(pickle.dumps(reply))
        if op == STOP:
            return


def serve_forked(*args: Any) -> None:
    try:
        serve(*args)
    finally:
        os._exit(0)  # (no atexit handlers or finalizers of the parent's objects in the child)


def stop_workers(workers: list[Any], ctls: list[np.ndarray], conns: list[Any], wakes: list[Any]) -> None:
    """Tell each worker to stop, then make sure it did."""
    for process, ctl, wake in zip(workers, ctls, wakes):
        if process.is_alive():
            try:
                ctl[OP] = STOP
                ctl[SEQ] += 1
                wake.send_bytes(WAKE)
            except (OSError, ValueError):
                pass
    for conn in conns:  # (a worker reading a call cut short, or writing a reply nobody reads, stops: EOF)
        conn.close()
    for process in workers:
        process.join(timeout=2)
        if process.is_alive():
            process.kill()
            process.join(timeout=2)
    for wake in wakes:
        wake.close()
