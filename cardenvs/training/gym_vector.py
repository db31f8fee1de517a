"""The single-learner batch as a Gymnasium ``VectorEnv``, for Gymnasium's
vector wrappers and for training loops written against Gymnasium's vector
API (any game: the learner plays one seat of each game, agents the rest).

    >>> import gymnasium as gym
    >>> from cardenvs.training.gym_vector import SeatGymVectorEnv
    >>> env = gym.wrappers.vector.RecordEpisodeStatistics(SeatGymVectorEnv("pepper_v0", 8, seed=0, max_hands=1))
    >>> obs, info = env.reset(seed=0)   # obs (8, obs_size) float32; info["action_mask"] (8, n_actions) bool
    >>> obs, reward, terminated, truncated, info = env.step(actions)

Autoreset (``metadata["autoreset_mode"]``, chosen with ``autoreset_mode=``):

* ``NEXT_STEP`` (default, as Gymnasium's own vector envs; every Gymnasium
  vector wrapper takes it): the step that ends a game returns its last
  observation (with an all-False mask); on the next step that game's action
  is ignored and the slot returns the next game's first observation, reward
  0, not done.
* ``SAME_STEP`` (as the vector engine): a finished game's slot already
  holds the next game; ``info["final_obs"]`` (an object array, marked by
  ``info["_final_obs"]``) has the learner's last observation.  Gymnasium's
  observation wrappers (``NormalizeObservation``, ``TransformObservation``,
  ``FlattenObservation``, ...) refuse this mode with a bare
  ``AssertionError`` (their check, in ``VectorObservationWrapper``): keep
  the default with them.

Either way ``info["final_scores"]`` (marked by ``info["_final_scores"]``)
has each seat's final score of the games that ended on the step, and
``info["seat"]`` the learner's seat per game.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..core.agent import Agent
from .seat_batch import seat_batch_class

AUTORESET_MODES = (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP)


def autoreset_mode_of(mode: Any) -> AutoresetMode:
    """``mode`` as an :class:`AutoresetMode`: the enum, or its name or value
    as text in any case (``"same_step"``, ``"NextStep"``, ...)."""
    if isinstance(mode, AutoresetMode) and mode in AUTORESET_MODES:
        return mode
    if isinstance(mode, str):
        for m in AUTORESET_MODES:
            if mode.lower().replace("_", "") == m.value.lower():
                return m
    raise ValueError(f"autoreset_mode must be one of {[m.name.lower() for m in AUTORESET_MODES]}, got {mode!r}")


class SeatGymVectorEnv(gym.vector.VectorEnv):
    """One learner seat in each of ``num_envs`` games of ``game``, as a
    :class:`gymnasium.vector.VectorEnv` over the batched engine; in game i the
    learner plays seat ``i % num_players``.

    Arguments as :func:`cardenvs.training.seat_env.learner_vec_env`
    (``opponents``, ``partner``, ``seed``, ``reward_mode``, ``advisor``, the
    game's config with ``illegal_action``), plus ``autoreset_mode`` (see the
    module docstring).  Reward accounting: see :mod:`cardenvs.training.seat_batch`.
    ``opponents``/``partner`` may be set between rollouts (self-play).
    """

    def __init__(
        self,
        game: str,
        num_envs: int,
        opponents: Agent | None = None,
        partner: Agent | None = None,
        seed: int | None = None,
        reward_mode: str = "seat",
        advisor: Agent | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        **config: Any,
    ):
        self.metadata = {"autoreset_mode": autoreset_mode_of(autoreset_mode)}
        batch = seat_batch_class(game)
        self.core = batch(game, num_envs, opponents, partner, seed, reward_mode, advisor, **config)
        self.num_envs = self.core.num_envs
        self.single_observation_space = self.core.observation_space
        self.single_action_space = self.core.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._ended = np.zeros(self.num_envs, bool)  # NEXT_STEP: games that ended on the last step

    # the batch's parts, for inspection and self-play
    engine = property(lambda self: self.core.engine)
    rules = property(lambda self: self.core.rules)
    learner_seat = property(lambda self: self.core.learner_seat)

    @property
    def opponents(self) -> Agent:
        return self.core.opponents

    @opponents.setter
    def opponents(self, agent: Agent) -> None:
        self.core.opponents = agent

    @property
    def partner(self) -> Agent:
        return self.core.partner

    @partner.setter
    def partner(self, agent: Agent) -> None:
        self.core.partner = agent

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """New games in every slot; ``options`` as the engine's (``"decks"``, ``"dealer"``)."""
        super().reset(seed=seed)
        obs = self.core._reset_batch(seed, options)
        self._ended[:] = False
        return obs, self._info()

    def step(self, actions: Any):
        next_step = self.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
        hold = self._ended.copy() if next_step else None
        obs, reward, terminated, truncated, finals = self.core._step_batch(actions, hold=hold)
        rows = finals["rows"]
        if next_step:
            self._ended[:] = False
            self._ended[rows] = True
            obs[rows] = finals["obs"]
        info = self._info()
        if not next_step and rows.size:
            final_obs = np.empty(self.num_envs, dtype=object)
            for k, i in enumerate(rows):
                final_obs[i] = finals["obs"][k]
            info.update(final_obs=final_obs, _final_obs=self._rows_mask(rows))
        if rows.size:
            scores = np.zeros((self.num_envs, self.rules.num_players), finals["scores"].dtype)
            scores[rows] = finals["scores"]
            info.update(final_scores=scores, _final_scores=self._rows_mask(rows))
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, ``(num_envs, n_actions)``
        bool (``info["action_mask"]`` of the last step)."""
        mask = self.core.action_masks()
        mask[self._ended] = False
        return mask

    def _rows_mask(self, rows: np.ndarray) -> np.ndarray:
        mask = np.zeros(self.num_envs, bool)
        mask[rows] = True
        return mask

    def _info(self) -> dict[str, np.ndarray]:
        every = np.ones(self.num_envs, bool)
        return {
            "action_mask": self.action_masks(),
            "_action_mask": every,
            "seat": self.core.learner_seat.copy(),
            "_seat": every.copy(),
        }

    def close_extras(self, **kwargs: Any) -> None:
        if hasattr(self, "core"):  # (not when __init__ raised)
            self.core.engine.close()
