"""A features extractor that encodes an observation's repeated blocks with one
shared layer: :class:`SlotFeatures` (``TrainConfig.slot_features``).

Push's observation is 4,961 numbers, 4,752 of them the 36 table meld slots
of 132 each (:data:`cardenvs.games.push.observation.SLOT`), and an advised learner
sees the 2,371-column advice one-hot after it.  SB3's MLP policy feeds all
7,332 columns to the first layer of its policy net and of its value net, and
that product was most of Push's training time.  A meld slot means the same
thing wherever it stands, so :class:`SlotFeatures` maps every slot through
one ``Linear(132, k)`` + ReLU (the same weights for each slot, its place kept
by where its features stand), the advice one-hot through ``Linear(2371, k)``
(an embedding of the advised action; the advice still also adds its
logit bonus, see :mod:`cardenvs.agents.advice`), and passes the other
columns through unchanged.  The first layers then see 801 features instead
of 7,332, with nothing of the observation left out.

The blocks are read from the game's observation layout (the registry's
``layouts``): every field repeated ``count`` times whose repeat is wider than
``k``, so for Push the meld slots and not the 4 seats of 3 numbers.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch as th
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from ..core.layout import Layout
from ..registry import load, spec

Block = tuple[int, int, int]  # (offset, count, size): ``count`` repeats of ``size`` columns from ``offset``


def repeated_blocks(game: str, obs_size: int, width: int) -> list[Block]:
    """The blocks of ``game``'s observation (the layout of ``obs_size``
    entries) that :class:`SlotFeatures` encodes at ``width`` features per
    repeat: its repeated fields whose repeat is wider than ``width``."""
    layouts = [load(path) for path in spec(game).layouts]
    layout: Layout | None = next((lay for lay in layouts if lay.size == obs_size), None)
    if layout is None:
        raise ValueError(f"{game} has no observation layout of {obs_size} entries")
    return [(f.offset, f.count, f.size) for f in layout if f.count > 1 and f.size > width]


class SlotFeatures(BaseFeaturesExtractor):
    """The features, in this order: every column outside the blocks and the
    advice as it is; each block's repeats, in order, each through the
    block's one ``Linear(size, width)`` + ReLU; the last ``advice_size``
    columns (0: none) through ``Linear(advice_size, width)`` + ReLU."""

    def __init__(self, observation_space: gym.spaces.Box, blocks: list[Block], width: int, advice_size: int = 0):
        n = int(observation_space.shape[0])
        ends = [(offset, offset + count * size) for offset, count, size in blocks]
        if width < 1 or any(lo < 0 or hi > n - advice_size for lo, hi in ends) or not 0 <= advice_size < n:
            raise ValueError(f"blocks {blocks} (width {width}, advice {advice_size}) do not fit {n} columns")
        kept, at = [], 0  # the columns outside every block, as slices
        for lo, hi in sorted(ends):
            if lo < at:
                raise ValueError(f"blocks {blocks} overlap")
            kept += [(at, lo)] if lo > at else []
            at = hi
        kept += [(at, n - advice_size)] if n - advice_size > at else []
        features = sum(hi - lo for lo, hi in kept) + sum(count for _, count, _ in blocks) * width
        features += width if advice_size else 0
        super().__init__(observation_space, features)
        self.blocks, self.kept, self.advice_size = [tuple(b) for b in blocks], kept, int(advice_size)
        self.encoders = th.nn.ModuleList(th.nn.Linear(size, width) for _, _, size in blocks)
        self.advice = th.nn.Linear(advice_size, width) if advice_size else None

    def forward(self, obs: th.Tensor) -> th.Tensor:
        parts = [obs[:, lo:hi] for lo, hi in self.kept]
        for (offset, count, size), encoder in zip(self.blocks, self.encoders):
            slots = obs[:, offset : offset + count * size].reshape(-1, count, size)
            parts.append(th.relu(encoder(slots)).flatten(1))
        if self.advice is not None:
            parts.append(th.relu(self.advice(obs[:, -self.advice_size :])))
        return th.cat(parts, dim=1)


def slot_policy_kwargs(game: str, observation_space: Any, width: int, advice_size: int) -> dict[str, Any]:
    """The ``policy_kwargs`` entries that give a policy :class:`SlotFeatures`
    (``TrainConfig.slot_features = width``); {} for ``width`` 0."""
    if isinstance(width, bool) or not isinstance(width, int) or width < 0:
        raise ValueError(f"slot_features must be an int >= 0 (0: the raw observation), not {width!r}")
    if not width:
        return {}
    blocks = repeated_blocks(game, int(observation_space.shape[0]) - advice_size, width)
    return {
        "features_extractor_class": SlotFeatures,
        "features_extractor_kwargs": {"blocks": blocks, "width": width, "advice_size": advice_size},
    }
