"""Push: the output arrays handed to callers, recycled, and the state that
owns them -- write-only-what-changed, safe by construction.

A large batch of observations or masks (at 4096 games: 40 MB of
observations and 10 MB of masks per step) as a fresh array is fresh memory,
which the system hands out as zeroed pages on first write: the zeroing costs
as much again as writing the batch.  So large outputs are recycled: an array
handed out before is written again once nothing but its pool refers to it
(its CPython reference count), i.e. once the caller has dropped it and every
view of it.  The array is not cleared: its writer keeps a record of what it
left in each row and writes only what changed (observations: the viewer and
each meld slot's stamp, see ``observation.py``; masks: how far each row
reaches, see ``legal.py``).  Masks are not even copied: the state's own mask
array is handed out, and the state moves to another recycled array before it
next writes masks (:meth:`Outputs.own_masks`).

Safe by construction, because everything here belongs to one state
(:class:`PushState`, the ``outputs`` attribute):

* **No shared pool.**  Each state has its own :class:`Outputs` (its arrays,
  their records, its stamp counter): engines stepped in different threads
  share nothing mutable, and the kernels release the GIL.
* **Stamps cannot collide.**  A meld block's stamp comes from the counter of
  the state that holds it, and is compared only with records of arrays of
  that same :class:`Outputs`.  A copy of the state (``copy()``, ``copy.deepcopy``,
  pickling, in this process or another, before or after a ``fork``) gets a
  new :class:`Outputs`: the counter goes on from where it was, the arrays and
  records are not carried over, so the first observation of the copy is
  written in full.  A subset of games (``select``) shares its state's
  :class:`Outputs` (it is stepped and put back); games put back from
  another state's subset get new stamps.
* **No write through a handed-out array.**  Recycled arrays are handed out
  as views of a read-only buffer (:meth:`Outputs.hand_out`): numpy refuses
  to make them writeable (``flags.writeable = True`` raises), so the
  records stay true.  Copy an array to change it.
"""

from __future__ import annotations

import math
import weakref
from typing import Any

import numpy as np

from ...core.game import BatchState
from ...core.holders import held, read_only
from ...core.jit import kernel
from .observation import refresh_slots

RECYCLE_BYTES = 4 << 20  # smaller arrays come from malloc's free lists anyway
POOL_SIZE = 6  # a step's observations and masks, the caller's last ones, and spares


class Outputs:
    """One state's recycled output arrays, each with its writer's record, and
    the counter its meld stamps are drawn from (see the module docstring)."""

    def __init__(self, next_stamp: int = 1):
        # The next stamp (0 marks an empty slot), and the step to the one
        # after (1; a row view's counter steps over its sibling views' stamps:
        # PushState.before_shards).
        self.stamp_clock = np.array([next_stamp, 1], np.int64)
        self._arrays: list[np.ndarray] = []
        self._records: list[tuple[str, np.ndarray]] = []  # per array: (writer, its per-row record)
        self._handed_masks: Any = None  # weak reference to the mask array last handed out
        self._kept: dict[Any, np.ndarray] = {}  # records of arrays the caller keeps (kept_record)

    # A copy (pickle, copy, deepcopy) keeps only the counter: the arrays and
    # their records stay with the original.
    def __getstate__(self) -> dict[str, int]:
        return {"next_stamp": int(self.stamp_clock[0])}

    def __setstate__(self, saved: dict[str, int]) -> None:
        self.__init__(saved["next_stamp"])

    def fork(self) -> Outputs:
        """A new :class:`Outputs` for a copy of the state: the same counter, no arrays."""
        return Outputs(int(self.stamp_clock[0]))

    # ------------------------------------------------------------------ recycled arrays
    def recycled_rows(
        self, shape: tuple[int, ...], dtype: Any, writer: str, unknown: int, record: tuple[int, ...] = ()
    ) -> tuple[np.ndarray, np.ndarray]:
        """An array of ``shape`` and ``dtype`` nobody else holds, and
        ``writer``'s record of it: ``written`` (``shape[0]``, ``*record``)
        int64, what ``writer`` noted of each row when it last filled this
        array, or ``unknown`` throughout when it did not (a new array, or one
        another writer filled).  The writer must keep ``written`` true as it
        fills the rows, and hand the array out through :meth:`hand_out`."""
        dtype = np.dtype(dtype)
        i = self._take(shape, dtype)
        if i is None:
            written = np.empty((shape[0], *record), np.int64)
            written.fill(unknown)
            return np.empty(shape, dtype), written
        who, written = self._records[i]
        if who != writer or written.shape != (shape[0], *record):
            written = np.full((shape[0], *record), unknown, np.int64)
            self._records[i] = (writer, written)
        return self._arrays[i], written

    def _take(self, shape: tuple[int, ...], dtype: np.dtype) -> int | None:
        """Index of an array of ``shape`` and ``dtype`` nobody holds, a new
        one if none is free (``None``: too small to recycle)."""
        if math.prod(shape) * dtype.itemsize < RECYCLE_BYTES:
            return None
        arrays = self._arrays
        for i in range(len(arrays)):
            array = arrays[i]
            if array.shape == shape and array.dtype == dtype:
                del array  # the check below must see the pool's reference only
                if not held(arrays, i):
                    return i
        if len(arrays) >= POOL_SIZE:
            arrays.pop(0)
            self._records.pop(0)
        arrays.append(np.empty(shape, dtype))
        self._records.append(("", np.empty(0, np.int64)))
        return len(arrays) - 1

    def kept_record(self, key: Any, shape: tuple[int, ...], unknown: int) -> np.ndarray:
        """The record of an array that is not the pool's but that this
        state writes again and again (a process shard's rows of an output
        block, named by ``key``: the engine writes them only through this
        state): ``unknown`` throughout the first time, and for a copy of
        the state (records are not carried over)."""
        record = self._kept.get(key)
        if record is None or record.shape != shape:
            record = self._kept[key] = np.full(shape, unknown, np.int64)
        return record

    def pooled(self, array: np.ndarray) -> bool:
        """Whether ``array`` is one of the recycled arrays."""
        return any(array is pooled for pooled in self._arrays)

    def hand_out(self, array: np.ndarray) -> np.ndarray:
        """``array`` for the caller: a recycled one as a view of a read-only
        buffer (numpy refuses to make it writeable; the view keeps the array
        held, so not recycled, while it or any view of it lives); an array
        too small to recycle is the caller's own, as it is."""
        if not self.pooled(array):
            return array
        return read_only(array).reshape(array.shape)

    # ------------------------------------------------------------------ the masks
    def masks_for_caller(self, state: BatchState) -> np.ndarray:
        """``state.legal`` for the caller to keep: a copy when small, else the
        state's own array, read-only (the state moves off it before it next
        writes masks: :meth:`own_masks`)."""
        if state.legal.nbytes < RECYCLE_BYTES:
            return state.legal.copy()
        if not self.pooled(state.legal):
            self._move_masks(state, copy=True)
        self._handed_masks = weakref.ref(state.legal)
        return self.hand_out(state.legal)

    def own_masks(self, state: BatchState, every_row_rewritten: bool = False) -> None:
        """Called before ``state.legal`` is written: if it is the array
        :meth:`masks_for_caller` handed out, move the state to a recycled
        array nobody holds -- with the masks copied, or, when every row is
        about to be rewritten (a step: :func:`apply.step_rows`), as it is."""
        if self._handed_masks is not None and self._handed_masks() is state.legal:
            self._move_masks(state, copy=not every_row_rewritten)

    def _move_masks(self, state: BatchState, copy: bool) -> None:
        legal, written = self.recycled_rows(state.legal.shape, np.bool_, "masks", state.legal.shape[1])
        if copy:
            copy_masks(legal, written, state.legal, state.legal_written)
        self._handed_masks = None
        state.legal, state.legal_written = legal, written  # (the array's record is the state's)


@kernel
def copy_masks(out, out_written, legal, legal_written):
    """``out[:] = legal``, reading each row only up to ``legal_written`` and
    clearing only what ``out``'s row held past it (``out_written``, updated)."""
    for b in range(legal.shape[0]):
        end = legal_written[b]
        for action in range(end):
            out[b, action] = legal[b, action]
        if out_written[b] > end:
            out[b, end : out_written[b]] = False
        out_written[b] = end


class PushState(BatchState):
    """Push's batched state: a :class:`BatchState` with its own
    :class:`Outputs` (``outputs``) -- new for a copy, shared by a subset."""

    outputs: Outputs

    @property
    def stamp_clock(self) -> np.ndarray:
        """The meld stamp counter of the state's outputs (named so that a
        pack, ``tables.StatePack``, can hold it; rebinding ``outputs``
        remakes the packs)."""
        return self.outputs.stamp_clock

    @classmethod
    def adopt(cls, common: BatchState) -> PushState:
        """A state holding the fields of ``common`` (``TurnBasedRules.common_state``)
        and new outputs."""
        state = cls(common.batch, common.rng)
        for name, value in vars(common).items():
            if name != "_bundles":
                setattr(state, name, value)
        state.outputs = Outputs()
        return state

    def copy(self) -> PushState:
        new = super().copy()
        new.outputs = self.outputs.fork()
        return new

    # Row views (BatchState.view) stepped in threads must not share the stamp
    # counter: each view has outputs of its own (a counter, never arrays),
    # and the views of one run draw from disjoint stamps.
    def _make_view(self, lo: int, hi: int) -> PushState:
        view = super()._make_view(lo, hi)
        view.__dict__["outputs"] = Outputs()
        return view

    def before_step(self) -> None:
        """Before the rules' step: the state moves to masks no caller holds
        (every row is written again by the step)."""
        self.outputs.own_masks(self, every_row_rewritten=True)

    def before_shards(self, views: list[BatchState]) -> None:
        """View k of K stamps with ``next + k``, ``next + k + K``, ... (this
        state's next stamp): no two views alike, each stamp new."""
        start = int(self.outputs.stamp_clock[0])
        for k, view in enumerate(views):
            view.outputs.stamp_clock[:] = (start + k, len(views))

    def after_shards(self, views: list[BatchState]) -> None:
        """This state's counter goes on past every stamp the views drew."""
        self.outputs.stamp_clock[0] = max(int(view.outputs.stamp_clock[0]) for view in views)

    def assign(self, rows: np.ndarray, part: BatchState) -> None:
        """Write the games of ``part`` back into ``rows``, never into mask rows
        a caller holds; games from another state's subset get new stamps."""
        self.outputs.own_masks(self)
        super().assign(rows, part)
        if part.outputs is not self.outputs:  # stamps from another counter
            rows = np.arange(self.batch)[rows]
            slots = np.arange(self.meld_stamp.shape[1])
            refresh_slots(self, np.repeat(rows, len(slots)), np.tile(slots, len(rows)))
