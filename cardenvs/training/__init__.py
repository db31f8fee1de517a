"""Training: the learner envs, one learner seat with agents at the others,
and the MaskablePPO learner that trains in them.

It stands on :mod:`cardenvs.agents` (the opponents, the policies it saves)
and :mod:`cardenvs.evaluation` (the matches it evaluates with).  Every name
here needs the ``train`` extra (torch, Stable-Baselines3): each is imported
on first use, so ``import cardenvs.training`` imports neither.

- :func:`learner_vec_env` (:mod:`cardenvs.training.seat_env`): the vector
  learner env that fits a game, :class:`SeatVecEnv` (turn-based games) or
  :class:`ParallelSeatVecEnv` (Spit), SB3 ``VecEnv`` s over the batched
  engine (:mod:`cardenvs.training.seat_batch`); :class:`SeatEnv` and
  :func:`make_seat_env`, a Gymnasium env over the AEC env;
  :class:`SeatGymVectorEnv` (:mod:`cardenvs.training.gym_vector`), the batch
  as a Gymnasium ``VectorEnv``.
- :func:`train` and :class:`TrainConfig` (:mod:`cardenvs.training.ppo`):
  MaskablePPO against fixed opponents, then in self-play, with the
  learning curve it plots (:mod:`cardenvs.training.curves`);
  :mod:`cardenvs.training.cli`, the command line of the per-game training
  scripts (``examples/train_<game>.py``).
"""

import importlib
from typing import Any

#: public name -> the module of this package that defines it
_WHERE = {
    "learner_vec_env": "seat_env",
    "SeatEnv": "seat_env",
    "SeatVecEnv": "seat_env",
    "ParallelSeatVecEnv": "seat_env",
    "make_seat_env": "seat_env",
    "SeatGymVectorEnv": "gym_vector",
    "train": "ppo",
    "TrainConfig": "ppo",
}

__all__ = list(_WHERE)


def __getattr__(name: str) -> Any:
    # Gymnasium, SB3 and torch: imported on first use only.
    if name in _WHERE:
        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module 'cardenvs.training' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
