"""Row shards: the rows of a batch cut into contiguous pieces that threads
step at the same time (``cardenvs.vector.make(..., num_threads=k)``).

Every per-row rule of a game is row-local -- a compiled kernel (nogil, see
:mod:`.jit`) or numpy over a set of rows reads and writes only those rows of
the state's arrays -- so a batch can be cut into contiguous shards, each
stepped by its own thread on views of the arrays (:meth:`BatchState.view
<cardenvs.core.game.BatchState.view>`, ``array[lo:hi]``, no copies), with
the very result of one pass over every row.

The one thing that is not row-local is the batch's random generator: what a
draw returns depends on every draw before it.  So a shard never draws from
it (a view's ``rng`` raises).  The vector engine's step is one hand-off
(:func:`in_shards`): each shard moves its games on, says which rows need a
deal (in row order) and writes its rows' observations and masks; then the
calling thread draws for the rows to deal, over the whole batch, in the
same order and with the same calls as one pass would (so results are
identical for every thread count, and to the single-threaded engine),
deals them from the drawn keys (:func:`deal_in_shards`: in the shards when
they are many), resets the finished games and observes those rows again.
What stays in the calling thread is the serial part that bounds the
speed-up (docs/vector.md, "Threads"; ``benchmarks/thread_scaling.py`` measures it).

With per-game streams (``vector.make(..., rng="per_game")``,
:mod:`.streams`) a row's draws depend on that row alone, so a view draws
for its rows itself: the shards deal and reset their own games in the same
hand-off, and only the merging of what they found is left to the calling
thread.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import numpy as np

from .cards import DeckSpec

T = TypeVar("T")

#: Fewest rows worth a shard of their own when a job is not over the whole
#: batch (the observations of the finished games, a ``rows=`` step): a
#: thread hand-off costs about what the kernels spend on a few hundred
#: rows.  (Results do not depend on it.)
MIN_SHARD_ROWS = 256


def cut(n: int, k: int) -> tuple[tuple[int, int], ...]:
    """``n`` rows as ``k`` contiguous pieces ``(lo, hi)`` of near-equal size
    (the thread shards here, the process shards of :mod:`.processes`)."""
    return tuple((i * n // k, (i + 1) * n // k) for i in range(k))


class Shards:
    """How a batch of ``num_rows`` rows is cut into row shards, and the
    threads that step them: ``num_threads`` contiguous shards of near-equal
    size (fixed here), the first stepped by the calling thread, the others
    by a persistent pool of ``num_threads - 1`` worker threads.

    The pool is made on first use and by the process that uses it: a
    pickled copy, or one inherited through ``fork``, makes its own.
    :meth:`close` stops it (a later :meth:`map` makes a new one)."""

    def __init__(self, num_rows: int, num_threads: int = 1, min_rows: int = MIN_SHARD_ROWS):
        for name, value in (("num_rows", num_rows), ("num_threads", num_threads)):
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if num_threads > num_rows:
            raise ValueError(f"num_threads must be at most the number of games ({num_rows}), got {num_threads}")
        self.num_rows = int(num_rows)
        self.num_threads = int(num_threads)
        self.min_rows = int(min_rows)
        self._bounds: dict[int, tuple[tuple[int, int], ...]] = {}
        self._pool: ThreadPoolExecutor | None = None
        self._pid = 0
        self.bounds(self.num_rows)

    def bounds(self, n: int) -> tuple[tuple[int, int], ...]:
        """The shards ``(lo, hi)`` of ``n`` rows: ``num_threads`` near-equal
        contiguous pieces for the whole batch (``n == num_rows``); for other
        jobs as many, but none smaller than ``min_rows`` (so one, ``(0, n)``,
        for fewer than twice that)."""
        if self.num_threads == 1:
            return ((0, n),)
        made = self._bounds.get(n)
        if made is None:
            k = self.num_threads if n == self.num_rows else max(1, min(self.num_threads, n // self.min_rows))
            made = self._bounds[n] = cut(n, k)
        return made

    def map(self, n: int, fn: Callable[[int, int], T]) -> list[T]:
        """``fn(lo, hi)`` for each shard of ``n`` rows (:meth:`bounds`), all
        at once, the first in the calling thread; their results in shard
        order.  A shard no worker has started by the time the calling thread
        is free runs there too (a machine whose cores are busy degrades to
        one thread, not to waiting for one).  Returns once every shard is
        done; an exception of a shard is raised then.  Raises only then
        too, whatever cuts the calling thread short (a Ctrl-C, again and
        again: see :class:`_Shard`): no thread still writes into the state
        once the caller sees an error (and closes its engine)."""
        bounds = self.bounds(n)
        if len(bounds) == 1:
            return [fn(*bounds[0])]
        pool = self._executor()
        shards = [_Shard(fn, lo, hi) for lo, hi in bounds[1:]]  # (nothing runs yet: nothing to wait for)
        try:
            for shard in shards:
                pool.submit(shard.run)
            out = [fn(*bounds[0])]
            for shard in shards:
                shard.run("caller")  # (if no worker has started it)
                out.append(shard.result())
        finally:  # never return (or raise) while a shard still runs
            interrupted = None
            for shard in shards:
                interrupted = shard.stop() or interrupted
            if interrupted is not None:
                raise interrupted
        return out

    def _executor(self) -> ThreadPoolExecutor:
        if self._pool is None or self._pid != os.getpid():
            # (a pool inherited through fork has no threads in this process)
            self._pool = ThreadPoolExecutor(self.num_threads - 1, thread_name_prefix="cardenvs-shard")
            self._pid = os.getpid()
        return self._pool

    def close(self) -> None:
        """Stop the worker threads (idle ones exit at once)."""
        if self._pool is not None and self._pid == os.getpid():
            self._pool.shutdown(wait=False)
        self._pool = None

    def __getstate__(self) -> dict[str, Any]:
        return {"num_rows": self.num_rows, "num_threads": self.num_threads, "min_rows": self.min_rows}

    def __setstate__(self, saved: dict[str, Any]) -> None:
        self.__init__(saved["num_rows"], saved["num_threads"], saved["min_rows"])

    def __repr__(self) -> str:
        return f"Shards(num_rows={self.num_rows}, num_threads={self.num_threads})"


class _Shard:
    """One shard's ``fn(lo, hi)`` for a worker thread of :meth:`Shards.map`:
    run by whichever of the worker and the calling thread claims it first
    (the other leaves it), and waited for by the calling thread.

    Claims and waits, not futures, so that an interrupt of the calling
    thread (a Ctrl-C: Python raises it at any call) does not leave a shard
    running unknown to it: a shard is known before it is submitted, and
    :meth:`stop` claims it (so it never runs) or waits for it to end, a wait
    that a second Ctrl-C does not cut short either.  A claim is an append
    to ``_owner`` (atomic; the first one owns the shard): claiming again,
    after an interrupt, changes nothing."""

    __slots__ = ("fn", "lo", "hi", "_owner", "_done", "_finished", "_value", "_error")

    def __init__(self, fn: Callable[[int, int], Any], lo: int, hi: int):
        self.fn, self.lo, self.hi = fn, lo, hi
        self._owner: list[str] = []
        # (held until the shard has run, then released by the thread that ran it, which sets
        # _finished first: a wait cut short between its acquire and release does not wait again)
        self._done = threading.Lock()
        self._done.acquire()
        self._finished = False
        self._value: Any = None
        self._error: BaseException | None = None

    def run(self, who: str = "worker") -> None:
        """Run the shard (in thread ``who``: ``"worker"`` or ``"caller"``)
        unless the other claimed it first."""
        owner = self._owner
        owner.append(who)
        if owner[0] != who:
            return
        try:
            self._value = self.fn(self.lo, self.hi)
        except BaseException as error:  # (raised in the calling thread, by result)
            self._error = error
        finally:
            self._finished = True
            self._done.release()

    def _wait(self) -> None:
        """Until the shard has run (a lock, not an Event: cheaper, per shard of every step)."""
        if not self._finished:
            self._done.acquire()
            self._done.release()

    def result(self) -> Any:
        """The shard's result once it has run (its exception raised)."""
        self._wait()
        if self._error is not None:
            raise self._error
        return self._value

    def stop(self) -> BaseException | None:
        """Claim the shard so that it never runs, or wait until its worker
        has run it, however often the wait is interrupted; returns the last
        interrupt (None if none), for the caller to raise once every shard
        is stopped."""
        self._owner.append("caller")
        if self._owner[0] == "caller":  # (not started, or run by the calling thread itself)
            return None
        interrupted = None
        while not self._finished:
            try:
                self._wait()
            except BaseException as exc:  # (a signal's exception while waiting: wait on)
                interrupted = exc
        return interrupted


#: One shard, stepped by the calling thread: every state's default.
SERIAL = Shards(1, 1)


class NoDraws:
    """The ``rng`` of a row view: a shard must not draw (see the module
    docstring), so any use of it raises."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(
            f"a row shard drew random numbers (rng.{name}): draws belong to the calling thread, "
            "over the whole batch (cardenvs.core.shards)"
        )

    def __reduce__(self) -> str:
        return "NO_DRAWS"

    # (a copy of a state with per-game streams, whose ``rng`` this is, keeps the one NO_DRAWS:
    # looked up on the instance, ``__deepcopy__`` would reach ``__getattr__`` and raise)
    def __copy__(self) -> NoDraws:
        return self

    def __deepcopy__(self, memo: dict) -> NoDraws:
        return self


NO_DRAWS = NoDraws()


def in_shards(state: Any, fn: Callable[[Any, int, int], Sequence[Any]]) -> list[Any]:
    """Run ``fn(view, lo, hi)`` on the row view of each shard of ``state``
    (by ``state.shards``) and merge what it returns: a list of *requests*,
    each the local rows of that shard needing something done by the calling
    thread (an int array, in row order), or a tuple of such rows and arrays
    aligned with them.  Each request comes back over the whole batch: the
    shards' pieces in shard order, rows made global (so in row order when
    each piece is).  ``state.before_shards`` / ``after_shards`` are called
    around (a game keeping a counter across rows hands each view its own)."""
    bounds = state.shards.bounds(state.batch)
    if len(bounds) == 1:  # one shard (the default): the state itself, no view to make, nothing to merge
        return list(fn(state, 0, state.batch))
    views = {lo: state.view(lo, hi) for lo, hi in bounds}
    state.before_shards(list(views.values()))
    try:
        parts = state.shards.map(state.batch, lambda lo, hi: fn(views[lo], lo, hi))
    finally:
        state.after_shards(list(views.values()))
    return merge_requests(parts, bounds)


def merge_requests(parts: list[Sequence[Any]], bounds: Sequence[tuple[int, int]]) -> list[Any]:
    """Each shard's requests (see :func:`in_shards`) as one list over the batch."""
    if len(parts) == 1:
        return list(parts[0])
    merged: list[Any] = []
    for pieces in zip(*parts):
        tuples = isinstance(pieces[0], tuple)
        # (the usual request has rows in few shards or none: only those are joined)
        some = [(p, lo) for p, (lo, _) in zip(pieces, bounds) if len(p[0] if tuples else p)]
        if not some:
            merged.append(pieces[0])
        elif tuples:
            columns = list(zip(*(p for p, _ in some)))
            rows = np.concatenate([p + lo for p, (_, lo) in zip(columns[0], some)])
            merged.append((rows, *(np.concatenate(c) for c in columns[1:])))
        else:
            merged.append(np.concatenate([p + lo for p, lo in some]))
    return merged


def deal_in_shards(
    state: Any,
    deck: DeckSpec,
    requests: Sequence[Any],
    deal: Callable[..., None],
    then: Callable[[Any], Sequence[Any]] | None = None,
) -> list[Any]:
    """Deal the games of each request (rows, or a tuple of rows and arrays
    aligned with them; see :func:`in_shards`) from shuffle keys
    (:func:`~.cards.deck_keys`) drawn here, one draw per non-empty request,
    in order: in the shards, ``deal(view, rows, keys, *aligned)`` with each
    shard's part of each request (local rows).  Then, if given,
    ``then(view)`` in each shard: its requests are returned, merged.
    (Nothing runs when there is nothing to deal and no ``then``.)"""
    if then is None and not any(len(r[0] if isinstance(r, tuple) else r) for r in requests):
        return []  # (the usual step: nothing to deal)
    requests = [r if isinstance(r, tuple) else (r,) for r in requests]
    requests = [r for r in requests if len(r[0])]
    keys = [state.random(r[0], deck.num_cards) for r in requests]  # (deck_keys' draw, rows' own with streams)
    if then is None and sum(len(r[0]) for r in requests) < state.shards.min_rows:
        # A few rows (the usual step: a few percent of the games need a new
        # hand): dealt here, in one call per request.  A deal's Python holds
        # the GIL, so shards would only take turns, after a hand-off each.
        for (rows, *aligned), drawn in zip(requests, keys):
            deal(state, rows, drawn, *aligned)
        return []

    def run(view: Any, lo: int, hi: int) -> Sequence[Any]:
        for (rows, *aligned), drawn in zip(requests, keys):
            if lo == 0 and hi == state.batch:  # (one shard, a process's: every row is its own)
                deal(view, rows, drawn, *aligned)
                continue
            mine = np.flatnonzero((rows >= lo) & (rows < hi))
            if mine.size:
                deal(view, rows[mine] - lo, drawn[mine], *(a[mine] for a in aligned))
        return [] if then is None else then(view)

    return in_shards(state, run)
