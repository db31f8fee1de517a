"""Training environments where a learner controls one seat of a cardenvs
game and agents play every other seat.

* :class:`SeatEnv`: a Gymnasium env over the PettingZoo AEC env (one game,
  any game); ``action_masks()`` is a method of the env itself, so it works
  inside SB3's ``SubprocVecEnv`` and with ``MaskablePPO``.
* :class:`SeatVecEnv` (turn-based games) and :class:`ParallelSeatVecEnv`
  (Spit): SB3 ``VecEnv`` s over the batched engine, which step ``num_envs``
  games per call instead of one env per process; :func:`learner_vec_env`
  picks the one that fits a game.
* :class:`SeatGymVectorEnv` (from :mod:`cardenvs.training.gym_vector`): the
  same batch as a Gymnasium ``VectorEnv``, for Gymnasium's vector wrappers.

Reward accounting (all of them): the reward returned for a learner action is
everything the learner's seat earned from that action until its next turn
(with ``reward_mode="relative"``, vector envs only: minus the mean of what
the opponents' seats earned meanwhile, a zero-sum training signal),
including what it earned during the other seats' moves; when a game ends
during the other seats' moves the terminal reward is still delivered with
``terminated=True`` (never lost).  The partner (in partnership games: the
seat opposite) and the opponents are chosen separately.

Every one takes the env options ``illegal_action`` (``"raise"``, the default,
or ``"terminate"``: an illegal learner action ends the game with -1 for the
learner, so unmasked checkers such as ``gymnasium.utils.env_checker.check_env``
and SB3's ``check_env`` can step it) and hands out float32 observations with
finite bounds (:func:`learner_space`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

import cardenvs
from cardenvs.registry import spec

from ..core.agent import Agent, RandomAgent
from .gym_vector import SeatGymVectorEnv
from .seat_batch import (
    SeatBatch,
    SimultaneousSeatBatch,
    TurnSeatBatch,
    learner_space,
    partner_offset,
    reseed_agents,
)

__all__ = [
    "ParallelSeatVecEnv",
    "SeatEnv",
    "SeatGymVectorEnv",
    "SeatVecEnv",
    "learner_space",
    "learner_vec_env",
    "make_seat_env",
]


class SeatEnv(gym.Env):
    """One seat of a game (``"pepper_v0"``, ...) as a Gymnasium env.

    ``seat``: the learner's seat, or ``"random"`` (a new seat each episode).
    ``opponents``/``partner``: agents for the other seats (partner defaults to
    ``opponents``; default: random legal play); ``config``: the game's options,
    ``illegal_action`` included.  ``reset(seed=s)`` also reseeds agents that
    draw from a numpy generator (``RandomAgent``), so a seeded reset replays
    the same game for the same actions.  ``render_mode``: None or ``"ansi"``.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        game: str,
        seat: int | str = "random",
        opponents: Agent | None = None,
        partner: Agent | None = None,
        seed: int | None = None,
        render_mode: str | None = None,
        **config: Any,
    ):
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self.aec = cardenvs.make(game, render_mode=render_mode, **config)
        self.raw = self.aec.unwrapped
        self.rules = self.raw.rules
        n = self.rules.num_players
        if not (isinstance(seat, str) and seat == "random") and not (
            isinstance(seat, (int, np.integer)) and not isinstance(seat, bool) and 0 <= seat < n
        ):
            raise ValueError(f"seat must be 'random' or 0..{n - 1}, got {seat!r}")
        self.seat_choice = seat
        self.opponents = opponents or RandomAgent(seed)
        self.partner = partner or self.opponents
        self._partner_rel = partner_offset(self.rules)
        self.observation_space = learner_space(self.rules)
        self.action_space = self.raw.action_space(self.raw.possible_agents[0])
        self._rng = np.random.default_rng(seed)
        self.seat = 0
        self._carry = 0.0
        self._mask = np.zeros(self.action_space.n, bool)

    @property
    def learner(self) -> str:
        return self.raw.possible_agents[self.seat]

    @property
    def illegal_action(self) -> str:
        return self.raw.illegal_action

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (bool)."""
        return self._mask.copy()

    def reset(self, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            reseed_agents([self.opponents, self.partner], int(self._rng.integers(2**31)))
        n = self.rules.num_players
        self.seat = int(self._rng.integers(n)) if self.seat_choice == "random" else int(self.seat_choice)
        self.aec.reset(seed=int(self._rng.integers(2**31)), options=options)
        obs, reward, done = self._advance()
        if done:  # the game ended before the learner ever moved: start another
            return self.reset(options=options)
        self._carry = reward
        return obs.astype(np.float32), {"seat": self.seat}

    def step(self, action: Any):
        """The learner's ``action``; an illegal one raises
        :class:`cardenvs.IllegalActionError` (nothing changes) or, with
        ``illegal_action="terminate"``, ends the game with reward -1."""
        self.aec.step(action)  # the env checks it (type, range, legality)
        obs, reward, done = self._advance()
        reward += self._carry
        self._carry = 0.0
        info = {"seat": self.seat}
        if done:
            info["final_state"] = self.raw.state_dict()
        return obs.astype(np.float32), reward, done, False, info

    def _advance(self) -> tuple[np.ndarray, float, bool]:
        """Let the other seats move until the learner must act or the game
        ends; returns the learner's observation, reward since its last move
        and whether the game is over."""
        n = self.rules.num_players
        while True:
            agent = self.aec.agent_selection
            if all(self.aec.terminations.values()) or all(self.aec.truncations.values()):
                # the learner's accumulated reward, read before any dead step clears it
                reward = float(self.raw._cumulative_rewards[self.learner])
                obs = self.aec.observe(self.learner)["observation"]
                self._mask = np.zeros(self.action_space.n, bool)
                return obs, reward, True
            obs = self.aec.observe(agent)
            if agent == self.learner:
                self._mask = obs["action_mask"].astype(bool)
                return obs["observation"], float(self.raw._cumulative_rewards[agent]), False
            seat = self.raw.possible_agents.index(agent)
            player = self.partner if (seat - self.seat) % n == self._partner_rel else self.opponents
            self.aec.step(int(player.act(obs["observation"], obs["action_mask"])))

    def render(self) -> str | None:
        return self.aec.render() if self.render_mode is not None else None

    def close(self) -> None:
        self.aec.close()


try:  # the SB3 VecEnvs need stable-baselines3 (the "train" extra)
    from stable_baselines3.common.vec_env import VecEnv
except ImportError:  # pragma: no cover - exercised only without SB3
    VecEnv = object


class _SB3VecEnv(VecEnv):
    """SB3 ``VecEnv`` plumbing over a :class:`SeatBatch` (mixed in after this
    class): ``reset``/``step_wait`` over the batch's ``_reset_batch`` and
    ``_step_batch``, per-env infos (``terminal_observation``, ``episode``,
    ``final_scores``, ``seat``), ``env_method("action_masks")``.  Seeds and
    options set with ``seed()``/``set_options()`` apply at the next reset.

    ``step_reward`` (default 0) is added to every learner step's reward: a
    cost of time (negative) makes stalling -- waiting forever where a draw
    by the tick limit beats a likely loss -- worth less than playing on."""

    num_envs: int
    step_reward: float = 0.0

    def _sb3_init(self) -> None:
        if VecEnv is object:
            raise ImportError("the SB3 learner VecEnvs need stable-baselines3: pip install 'cardenvs[train]'")
        self.render_mode = None
        VecEnv.__init__(self, self.num_envs, self.observation_space, self.action_space)
        self._actions = None
        self._ep_return = np.zeros(self.num_envs)
        self._ep_len = np.zeros(self.num_envs, np.int64)

    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds else None
        options = (self._options[0] or None) if self._options else None
        obs = self._reset_batch(seed, options)
        self._reset_seeds()
        self._reset_options()
        self._ep_return[:] = 0
        self._ep_len[:] = 0
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        obs, reward, terminated, truncated, finals = self._step_batch(self._actions)
        if self.step_reward:
            reward = reward + np.float32(self.step_reward)
        done = terminated | truncated
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        for k, i in enumerate(finals["rows"]):
            infos[i]["terminal_observation"] = finals["obs"][k]
            infos[i]["final_scores"] = finals["scores"][k]
            infos[i]["seat"] = int(finals["seat"][k])
        self._ep_len += 1
        self._ep_return += reward
        for i in np.flatnonzero(done):  # what SB3's logger reads as rollout/ep_rew_mean
            infos[i]["episode"] = {"r": float(self._ep_return[i]), "l": int(self._ep_len[i])}
        self._ep_return[done] = 0
        self._ep_len[done] = 0
        return obs, reward, done, infos

    def close(self) -> None:
        self.engine.close()

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *args, indices=None, **kwargs) -> list[Any]:
        idx = self._indices(indices)
        if method_name == "action_masks":
            return list(self.action_masks()[idx])
        result = getattr(self, method_name)(*args, **kwargs)
        return [result] * len(idx)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def _indices(self, indices) -> np.ndarray:
        """SB3's ``indices`` (None: every env; an int or a list of ints) as
        env indices: ``TypeError`` for anything else (a bool, a float, a
        mask), ``IndexError`` out of range (as SB3's own vec envs)."""
        if indices is None:
            return np.arange(self.num_envs)
        idx = np.atleast_1d(np.asarray(indices))
        if not idx.size:
            return np.zeros(0, np.int64)
        if idx.ndim != 1 or idx.dtype == np.bool_ or not np.issubdtype(idx.dtype, np.integer):
            raise TypeError(f"indices must be None, an int or a list of ints, got {indices!r}")
        return np.arange(self.num_envs)[idx]


class SeatVecEnv(_SB3VecEnv, TurnSeatBatch):
    """``num_envs`` games of a turn-based game on the batched engine; in game
    i the learner plays seat ``i % num_players`` (so every seat is learned)
    and agents play the rest.  An SB3 ``VecEnv``: use it directly with
    ``MaskablePPO`` (and SB3's ``VecMonitor``/``VecNormalize``).

    ``opponents``/``partner`` may be changed between rollouts (self-play):
    set the attributes or call ``set_attr``.
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
        **config: Any,
    ):
        TurnSeatBatch.__init__(self, game, num_envs, opponents, partner, seed, reward_mode, advisor, **config)
        self._sb3_init()


class ParallelSeatVecEnv(_SB3VecEnv, SimultaneousSeatBatch):
    """``num_envs`` games of a simultaneous game (Spit): at every tick the
    learner plays seat ``i % 2`` of game i and ``opponents`` the other seat;
    an SB3 ``VecEnv`` like :class:`SeatVecEnv`."""

    def __init__(
        self,
        game: str,
        num_envs: int,
        opponents: Agent | None = None,
        seed: int | None = None,
        reward_mode: str = "seat",
        advisor: Agent | None = None,
        **config: Any,
    ):
        SimultaneousSeatBatch.__init__(self, game, num_envs, opponents, None, seed, reward_mode, advisor, **config)
        self._sb3_init()


def learner_vec_env(
    game: str,
    num_envs: int,
    opponents: Agent | None = None,
    partner: Agent | None = None,
    seed: int | None = None,
    reward_mode: str = "seat",
    advisor: Agent | None = None,
    **config: Any,
) -> SeatBatch:
    """The SB3 learner VecEnv that fits ``game`` (turn-based or simultaneous)."""
    if spec(game).simultaneous:
        return ParallelSeatVecEnv(game, num_envs, opponents, seed, reward_mode, advisor, **config)
    return SeatVecEnv(game, num_envs, opponents, partner, seed, reward_mode, advisor, **config)


def make_seat_env(game: str, **kwargs: Any) -> Callable[[], SeatEnv]:
    """A factory for ``DummyVecEnv``/``SubprocVecEnv``."""
    return lambda: SeatEnv(game, **kwargs)
