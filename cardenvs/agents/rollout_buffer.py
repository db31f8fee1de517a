"""MaskablePPO's rollout buffer, with its memory kept from one rollout to the
next: :class:`KeptRolloutBuffer` (every training run's buffer).

sb3-contrib's buffer allocates fresh arrays at every rollout (``reset``)
and again when the update reads them (``get`` swaps and flattens each into
a new array), and stores the action masks as float32.  For Push (256 games
x 128 steps of 7,332 float32 observation columns and 2,371 mask columns)
that is 2.5 GB of new memory per rollout, and on this machine the first
touch of a fresh page costs far more than the copy itself: filling and
flattening the buffer was a large share of Push's training loop (profiled).
This buffer allocates its arrays once, flattens
into arrays of its own, and stores the masks as bool (the masked
distributions turn them into bool anyway).  It holds the same numbers in
the same places, so training gives the same model bit for bit (tested).
Both layouts stay allocated between rollouts: for Push 2 x 1 GB of
observations, which sb3-contrib's buffer also holds during each update.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer

# The arrays sb3-contrib's get() swaps and flattens, in its order.
FLATTENED = ("observations", "actions", "values", "log_probs", "advantages", "returns", "action_masks")
# The other arrays of a rollout, kept too.
UNFLATTENED = ("rewards", "episode_starts")


class KeptRolloutBuffer(MaskableRolloutBuffer):
    """A :class:`MaskableRolloutBuffer` that reuses its arrays (see the module doc)."""

    def __init__(self, *args: Any, **kwargs: Any):
        self._rollout: dict[str, np.ndarray] = {}  # (steps, envs, ...) arrays, written by add()
        self._flat: dict[str, np.ndarray] = {}  # (envs * steps, ...) arrays, read by the update
        super().__init__(*args, **kwargs)

    def reset(self) -> None:
        if not self._rollout:
            super().reset()  # allocates the arrays, once
            self.action_masks = np.ones(self.action_masks.shape, bool)
            self._rollout = {name: self.__dict__[name] for name in FLATTENED + UNFLATTENED}
            self._flat = {name: np.empty(self._flat_shape(name), self.__dict__[name].dtype) for name in FLATTENED}
        else:
            for name, array in self._rollout.items():
                self.__dict__[name] = array
                # as a fresh buffer is (the observations excepted: add() writes every row before get() may read)
                if name != "observations":
                    array.fill(name == "action_masks")
            self.generator_ready = False
            self.pos, self.full = 0, False

    def get(self, batch_size: int | None = None):
        if not self.generator_ready:  # flatten into the kept arrays, then the parent's get() uses them as they are
            for name in FLATTENED:
                flat = self._flat[name]
                np.copyto(flat.reshape(self.n_envs, self.buffer_size, *flat.shape[1:]), self._swapped(name))
                self.__dict__[name] = flat
            self.generator_ready = True
        return super().get(batch_size)

    def _flat_shape(self, name: str) -> tuple[int, ...]:
        """The shape ``swap_and_flatten`` gives the rollout array ``name``."""
        shape = self.__dict__[name].shape
        return (shape[0] * shape[1], *(shape[2:] or (1,)))

    def _swapped(self, name: str) -> np.ndarray:
        """The rollout array ``name`` as (envs, steps, ...), a view (of the array in place now:
        ``compute_returns_and_advantage`` assigns ``returns`` a new one)."""
        array = self.__dict__[name]
        return (array if array.ndim > 2 else array[..., None]).swapaxes(0, 1)
