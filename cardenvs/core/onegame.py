"""The buffers of a one-game view's fused step (:class:`OneGame`).

The PettingZoo views hold a batch of one, and at batch 1 a step's fixed
costs are what counts: every numpy array made and every array passed to a
compiled kernel costs about as much as the rules' work.  A game that
can step and observe in one compiled call (``rules.step_one``) writes the
rewards, the next observation(s) and mask(s) into the view's
:class:`OneGame`, made once with the view: its arrays are passed to the
kernel as one pack (:func:`cardenvs.core.jit.pack`), and the view hands out
copies of them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .jit import COMPILED, entry, pack

#: What a OneGame makes again rather than copies or pickles (its pack and views).
_VIEWS = ("pack", "seen_row", "mask_row", "actions_row", "actions_mv", "seat_rows", "tick", "tick_for")
#: The kinds of :func:`step_call`'s pack: three packs.
_THREE_PACKS = ((np.int64, 2),) * 3


class OneGame:
    """Buffers of a batch-of-one step: ``rewards`` ``(1, P)`` float32,
    ``seen`` ``(1, obs_size)`` (``(1, P, obs_size)`` with ``every_seat``:
    a simultaneous game's observations), ``mask`` ``(1, num_actions)`` int8
    (``(1, P, num_actions)``), ``actions`` ``(1, P)`` int64 with
    ``every_seat`` (else ``(1,)``: where a view may write the actions to
    play), then the game's ``scratch`` arrays, all in :attr:`pack` in that
    order; ``seen_row``, ``mask_row``: the views of row 0 the views hand out
    copies of (``seat_rows``, with ``every_seat``: each seat's label --
    see :meth:`name_seats`, else its number -- observation and mask),
    ``actions_row``: the view of row 0 of ``actions`` (made once: a view
    made per step costs as much as a copy), ``actions_mv``: a memoryview
    of it (an int written there without numpy's indexing: the AEC view of
    a simultaneous game writes each action as it is submitted).  Not copied or pickled
    with its pack (which holds these arrays' addresses) and views: a copy
    makes its own.

    ``owner``: free for the game's ``step_one``, which may keep there what
    its buffers were last written for (Push: the state's stamp counter, to
    which the record of an observation written only where it changed
    refers; a new game's state has another, and its first observation is
    written in full)."""

    owner: Any = None
    labels: tuple = ()
    #: What a game's ``step_one`` may leave for a view to call in its place (no Python frame: a
    #: ``functools.partial`` of the compiled call): the step of the actions in ``actions``, returning
    #: what ``step_one`` returns when it says the step was observed (else the rules' ``finish_one``
    #: finishes it); valid while the state's bundles are the dict ``tick_for`` (a state's arrays bound
    #: anew, or another state, make other bundles: the call's pack would be stale).  Not copied.
    tick: Any = None
    tick_for: Any = None

    def __init__(self, rules: Any, every_seat: bool = False, scratch: tuple[np.ndarray, ...] = ()):
        seats = (rules.num_players,) if every_seat else ()
        self.rewards = np.zeros((1, rules.num_players), np.float32)
        self.seen = np.zeros((1, *seats, rules.obs_size), rules.obs_dtype)
        self.mask = np.zeros((1, *seats, rules.num_actions), np.int8)
        self.actions = np.zeros((1, *seats), np.int64)
        self.scratch = scratch
        self._bind()

    def _bind(self) -> None:
        values = (self.rewards, self.seen, self.mask, self.actions, *self.scratch)
        self.pack = pack(values, [(v.dtype, v.ndim) for v in values])
        self.seen_row, self.mask_row, self.actions_row = self.seen[0], self.mask[0], self.actions[0]
        self.actions_mv = memoryview(self.actions_row)
        self.seat_rows: tuple = ()
        if self.seen.ndim == 3:  # every_seat
            labels = self.labels or range(len(self.seen_row))
            self.seat_rows = tuple(zip(labels, self.seen_row, self.mask_row))

    def name_seats(self, labels: Any) -> None:
        """Name the seats of ``seat_rows`` (a view's agents, in seat order)."""
        self.labels = tuple(labels)
        self._bind()

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items() if k not in _VIEWS}

    def __setstate__(self, saved: dict[str, Any]) -> None:
        self.__dict__.update(saved)
        self._bind()


def step_call(
    state: Any, one: OneGame, rules_pack: Any, kind: type, kernel: Any, action_kind: str, scalars: tuple[int, ...] = ()
) -> tuple:
    """What a one-call step (``rules.step_one``) calls: ``kernel``'s
    compiled entry point for an ``action_kind`` (``"int"``, ``"bool"``) and
    a pack (:func:`~.jit.entry`: no type dispatch), and that pack, of the
    rules' pack ``rules_pack``, the state's (``state.bundle(kind)``) and
    ``one.pack`` (the kernel views them again with ``view2(packs, k,
    np.int64)``), then ``scalars`` (ints: ``scalar(packs, 3)`` ...): numba
    unboxes every array argument, each a visible part of a
    Pepper step.  Kept among the state's bundles, keyed by
    ``one`` (a step reads ``state._bundles.get(one)`` first, without this
    call), so remade with them: for a new state, or once an array of the
    state is bound anew; what the pack points at is kept alive by the
    rules, the bundles and the key."""
    made = state._bundles.get(one)
    if made is None:
        values = (rules_pack, state.bundle(kind), one.pack, *scalars)
        packs = pack(values, _THREE_PACKS + ((None, 0),) * len(scalars)) if COMPILED else values
        made = state._bundles[one] = (entry(kernel, action_kind, "pack"), packs)
    return made
