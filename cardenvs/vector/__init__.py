"""The vectorised engine: many games stepped at once on batched numpy state.

>>> import cardenvs.vector as V
>>> venv = V.make("pepper_v0", num_envs=1024, seed=0)
>>> obs, info = venv.reset()
>>> # obs (1024, obs_size); info["action_mask"] (1024, n_actions) bool;
>>> # info["current_player"] (1024,) the seat each observation belongs to
>>> obs, rewards, terminated, truncated, info = venv.step(actions)

Finished games reset automatically within ``step``: the returned
observation is already the new game's, ``terminated[i]`` is True and
``info["final_obs"][i]`` holds the finished game's last observation as seen
by every seat, shape ``(num_players, obs_size)`` (an object array, None for
rows that did not finish, as in Gymnasium's vector API; ``info["_final_obs"]``
marks the finished rows) and ``info["final_scores"][i]`` its final score per
seat.  ``rewards`` is ``(num_envs, num_players)``: what
each seat earned on this step, terminal rewards included.

Stepping an illegal action raises :class:`cardenvs.IllegalActionError` and
changes nothing.

Large outputs (Push: observation and mask batches of 4 MB or more) are
recycled arrays that are written only where they changed since they were
last handed out (``cardenvs.games.push.outputs``), so they come **read-only**:
copy one (``obs.astype(np.float32)``, ``mask.copy()``) to change it.  An
array you still hold is never written again.
"""

from __future__ import annotations

from typing import Any

from ..core.engine import VectorEnv
from ..core.game import positive_int
from ..core.options import build_rules
from ..core.processes import ProcessVectorEnv
from ..core.view import view_options
from ..registry import rules_class, spec
from .seat_rewards import SeatRewards as SeatRewards  # the self-play reward bookkeeping (re-exported)

__all__ = ["ProcessVectorEnv", "VectorEnv", "make", "rules_class"]


def make(
    name: str,
    num_envs: int,
    seed: int | None = None,
    num_threads: int = 1,
    rng: str = "shared",
    num_processes: int = 1,
    **config: Any,
) -> VectorEnv | ProcessVectorEnv:
    """A vector engine running ``num_envs`` games of ``name`` with ``config``.

    Turn-based games get a :class:`VectorEnv`; a rules class may name another
    engine class in ``vector_env_class`` (Spit's simultaneous moves).

    ``num_threads`` (a positive int, at most ``num_envs``; ValueError
    otherwise): the games are cut into that many contiguous shards of
    near-equal size, stepped and observed at the same time by a pool of
    threads the engine owns (``close()`` stops it), in one hand-off per
    step.  Every random draw (deals, resets, Spit's coins) stays in the
    calling thread, in the order one thread would make it, so results are
    identical for every thread count with the same seed.  Worth it at
    large batches (thousands of games) on a machine with free cores; see
    docs/vector.md and the measured scaling on docs/results.md.  A batch of one (``num_envs=1``) steps in one
    call of the rules where the game has one, as the PettingZoo envs do.

    ``rng``: ``"shared"`` (default: every draw from one generator seeded by
    ``seed``, as above) or ``"per_game"``: each game slot draws from a
    counter-based stream of its own keyed by the seed
    (:mod:`cardenvs.core.streams`), so the threads deal and reset their
    own games with no draw left to the calling thread -- the fastest with
    threads, the results identical for every thread count too, but other
    games than ``"shared"`` plays from the same seed.  ValueError for
    another value.

    ``num_processes`` (a positive int, at most ``num_envs``; default 1):
    more than one cuts the games into that many shards, each stepped by a
    process of its own (the first by this one; the others forked now and
    stopped by ``close()``), with ``rng="per_game"`` (ValueError for
    ``"shared"``, for threads as well, or where processes cannot fork:
    Windows).  No lock is shared, so it scales
    where threads do not: the same games as one process with
    ``rng="per_game"`` and the same seed, but the observations and masks
    come read-only, and the engine has no ``state`` and cannot be pickled
    (:class:`~cardenvs.core.processes.ProcessVectorEnv`)."""
    factory = rules_class(name)
    rules_config, illegal_action, obs_dtype = view_options(config, factory, spec(name).simultaneous)
    rules = build_rules(factory, rules_config)
    engine = getattr(rules, "vector_env_class", None) or VectorEnv
    if positive_int("num_processes", num_processes) > 1:
        return ProcessVectorEnv(
            engine,
            rules,
            num_envs,
            seed,
            num_processes,
            rng,
            illegal_action=illegal_action,
            obs_dtype=obs_dtype,
            num_threads=num_threads,
        )
    return engine(
        rules, num_envs, seed, illegal_action=illegal_action, obs_dtype=obs_dtype, num_threads=num_threads, rng=rng
    )
