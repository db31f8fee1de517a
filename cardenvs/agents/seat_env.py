"""Training environments where a learner controls one seat of a turn-based
cardenvs game and agents play every other seat.

* :class:`SeatEnv`: a Gymnasium env over the PettingZoo AEC env (one game);
  ``action_masks()`` is a method of the env itself, so it works inside
  SB3's ``SubprocVecEnv`` and with ``MaskablePPO``.
* :class:`SeatVecEnv`: an SB3 ``VecEnv`` over the batched engine, which
  steps ``num_envs`` games per call instead of one env per process.

Reward accounting (both): the reward returned for a learner action is
everything the learner's seat earned from that action until its next turn,
(with ``reward_mode="relative"`` (SeatVecEnv): minus the mean of what the
opponents' seats earned meanwhile, a zero-sum training signal),
including what it earned during the other seats' moves; when a game ends
during the other seats' moves the terminal reward is still delivered with
``terminated=True`` (never lost).  The partner (in partnership games: the
seat opposite) and the opponents are chosen separately.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

import cardenvs
import cardenvs.vector as V
from cardenvs.core.spaces import observation_box

from .advice import advised_observation
from .base import Agent, RandomAgent


def learner_space(rules, advised: bool = False) -> gym.spaces.Box:
    """The observation space the learner sees: the game's bounds in float32
    (followed by the advice one-hot of ``num_actions`` columns if ``advised``,
    see :mod:`cardenvs.agents.advice`).

    Games emit compact integer observations (see ``cardenvs.core.spaces``);
    the learner envs hand stable-baselines3 float32 arrays, so its rollout
    buffers and networks work in float and saved models keep one space.
    """
    box = observation_box(rules, np.float32)
    if not advised:
        return box
    low = np.concatenate([box.low, np.zeros(rules.num_actions, np.float32)])
    high = np.concatenate([box.high, np.ones(rules.num_actions, np.float32)])
    return gym.spaces.Box(low, high, low.shape, np.float32)


def _partner_offset(rules) -> int | None:
    """Relative seat of the partner in a partnership game, else None."""
    return rules.num_players // 2 if getattr(rules, "partnerships", False) else None


class SeatEnv(gym.Env):
    """One seat of a turn-based game (``"pepper_v0"``, ...) as a Gymnasium env.

    ``seat``: the learner's seat, or ``"random"`` (a new seat each episode).
    ``opponents``/``partner``: agents for the other seats (partner defaults to
    ``opponents``); ``config``: the game's options.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: str,
        seat: int | str = "random",
        opponents: Agent | None = None,
        partner: Agent | None = None,
        seed: int | None = None,
        **config: Any,
    ):
        self.aec = cardenvs.make(game, **config)
        self.raw = self.aec.unwrapped
        self.rules = self.raw.rules
        n = self.rules.num_players
        if seat != "random" and not (isinstance(seat, (int, np.integer)) and 0 <= seat < n):
            raise ValueError(f"seat must be 'random' or 0..{n - 1}, got {seat!r}")
        self.seat_choice = seat
        self.opponents = opponents or RandomAgent(seed)
        self.partner = partner or self.opponents
        self._partner_rel = _partner_offset(self.rules)
        self.observation_space = learner_space(self.rules)
        self.action_space = self.raw.action_space(self.raw.possible_agents[0])
        self._rng = np.random.default_rng(seed)
        self.seat = 0
        self._mask = np.zeros(self.action_space.n, bool)

    @property
    def learner(self) -> str:
        return self.raw.possible_agents[self.seat]

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (bool)."""
        return self._mask.copy()

    def reset(self, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        n = self.rules.num_players
        self.seat = int(self._rng.integers(n)) if self.seat_choice == "random" else int(self.seat_choice)
        self.aec.reset(seed=int(self._rng.integers(2**31)), options=options)
        obs, reward, done = self._advance()
        if done:  # the game ended before the learner ever moved: start another
            return self.reset(options=options)
        self._carry = reward
        return obs.astype(np.float32), {"seat": self.seat}

    def step(self, action: int):
        if not self._mask[int(action)]:
            raise cardenvs.IllegalActionError(f"illegal action {action} ({self.raw.action_to_str(action)!r})")
        self.aec.step(int(action))
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

    def render(self) -> str:
        return self.rules.render(self.raw._state, 0)


try:  # the VecEnv needs stable-baselines3 (the "train" extra)
    from stable_baselines3.common.vec_env import VecEnv
except ImportError:  # pragma: no cover - exercised only without SB3
    VecEnv = object


class _LearnerVecEnv(VecEnv):
    """What the learner VecEnvs share: SB3 plumbing, the learner's reward
    weights, episode bookkeeping.  Game i's learner plays seat ``i % P``.
    With an ``advisor`` the learner's observations carry its advice (see
    :mod:`cardenvs.agents.advice`)."""

    def __init__(
        self,
        game: str,
        num_envs: int,
        opponents: Agent | None,
        partner: Agent | None,
        seed: int | None,
        reward_mode: str,
        config: dict,
        advisor: Agent | None = None,
    ):
        if VecEnv is object:
            raise ImportError("the learner VecEnvs need stable-baselines3: pip install 'cardenvs[train]'")
        if reward_mode not in ("seat", "relative"):
            raise ValueError(f"reward_mode must be 'seat' or 'relative', got {reward_mode!r}")
        self.reward_mode = reward_mode
        self.engine = V.make(game, num_envs=num_envs, seed=seed, **config)
        self.rules = self.engine.rules
        n = self.rules.num_players
        self.learner_seat = np.arange(num_envs) % n
        self.opponents = opponents or RandomAgent(seed)
        self.partner = partner or self.opponents
        self._partner_rel = _partner_offset(self.rules)
        # weights turning a game's rewards (num_envs, P) into the learner's
        w = np.zeros((n, n))  # w[learner_seat] . rewards
        for s in range(n):
            w[s, s] = 1.0
            if reward_mode == "relative":
                rel = (np.arange(n) - s) % n
                opp = (rel != 0) & ((rel != self._partner_rel) if self._partner_rel is not None else True)
                w[s, opp] = -1.0 / opp.sum()
        self._reward_weights = w
        self.render_mode = None
        self.advisor = advisor
        super().__init__(
            num_envs, learner_space(self.rules, advised=advisor is not None), self.engine.single_action_space
        )
        self._actions = None
        self._ep_return = np.zeros(num_envs)
        self._ep_len = np.zeros(num_envs, np.int64)
        self._carry = np.zeros(num_envs)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, np.int64)

    def close(self) -> None:
        pass

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
        if indices is None:
            return np.arange(self.num_envs)
        return np.atleast_1d(np.arange(self.num_envs)[indices])

    def _learner_view(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """What the learner is handed: float32, with the advice if advised."""
        if self.advisor is None:
            return obs.astype(np.float32)
        return advised_observation(self.advisor, obs, mask)

    def _learner_reward(self, rows: np.ndarray, rew: np.ndarray) -> np.ndarray:
        return np.einsum("kp,kp->k", self._reward_weights[self.learner_seat[rows]], rew[rows])

    def _finish(self, rows: np.ndarray, info: dict, infos: list[dict]) -> None:
        if not len(rows):
            return
        last = np.stack([np.asarray(info["final_obs"][i][self.learner_seat[i]]) for i in rows])
        views = self._learner_view(last, np.zeros((len(rows), self.rules.num_actions), bool))
        for i, view in zip(rows, views):
            infos[i]["terminal_observation"] = view
            infos[i]["final_scores"] = info["final_scores"][i]
            infos[i]["seat"] = int(self.learner_seat[i])

    def _episodes(self, reward: np.ndarray, done: np.ndarray, infos: list[dict]) -> None:
        self._ep_len += 1
        self._ep_return += reward
        for i in np.flatnonzero(done):  # what SB3's logger reads as rollout/ep_rew_mean
            infos[i]["episode"] = {"r": float(self._ep_return[i]), "l": int(self._ep_len[i])}
        self._ep_return[done] = 0
        self._ep_len[done] = 0


class SeatVecEnv(_LearnerVecEnv):
    """``num_envs`` games of a turn-based game on the batched engine; in game
    i the learner plays seat ``i % num_players`` (so every seat is learned)
    and agents play the rest.  An SB3 ``VecEnv``: use it directly with
    ``MaskablePPO``.

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
        super().__init__(game, num_envs, opponents, partner, seed, reward_mode, config, advisor)
        self._obs = None

    def reset(self):
        self._obs, _ = self.engine.reset()
        self._ep_return[:] = 0
        self._ep_len[:] = 0
        self._carry = np.zeros(self.num_envs)
        self._advance(np.zeros(self.num_envs), np.zeros(self.num_envs, bool), [{} for _ in range(self.num_envs)])
        return self._learner_view(self._obs, self.engine.state.legal)

    def step_wait(self):
        rows = np.arange(self.num_envs)
        obs, rew, term, trunc, info = self.engine.step(self._actions)
        self._obs = obs
        reward = self._learner_reward(rows, rew) + self._carry
        self._carry = np.zeros(self.num_envs)
        done = term | trunc
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        self._finish(np.flatnonzero(done), info, infos)
        self._advance(reward, done, infos)
        self._episodes(reward, done, infos)
        return self._learner_view(self._obs, self.engine.state.legal), reward.astype(np.float32), done, infos

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner in every game, (num_envs, n_actions)."""
        return self.engine.state.legal.copy()

    def _player_for(self, rel: np.ndarray) -> list[tuple[Agent, np.ndarray]]:
        """(agent, rows it plays) pairs: one call per agent, however many seats it plays."""
        if self._partner_rel is None or self.partner is self.opponents:
            return [(self.opponents, np.ones(len(rel), bool))]
        is_partner = rel == self._partner_rel
        return [(self.partner, is_partner), (self.opponents, ~is_partner)]

    def _advance(self, reward: np.ndarray, done: np.ndarray, infos: list[dict]) -> None:
        """Let the agents move in every game where it is not the learner's
        turn; rewards the learner earns meanwhile are added to ``reward`` (or
        carried to the next step for a game that already ended this step)."""
        n = self.rules.num_players
        state = self.engine.state
        while True:
            waiting = np.flatnonzero(state.current != self.learner_seat)
            if waiting.size == 0:
                return
            mask = state.legal[waiting]
            rel = (state.current[waiting] - self.learner_seat[waiting]) % n
            actions = np.zeros(self.num_envs, np.int64)
            for agent, sel in self._player_for(rel):
                if sel.any():
                    actions[waiting[sel]] = agent.act_batch(self._obs[waiting[sel]], mask[sel])
            # (every game waiting: the engine steps the whole batch, without selecting rows)
            step_rows = None if waiting.size == self.num_envs else waiting
            obs, rew, term, trunc, info = self.engine.step(actions, rows=step_rows)
            self._obs = obs
            gained = self._learner_reward(waiting, rew)
            again = done[waiting]  # a game that already ended in this step: a new one is under way
            reward[waiting[~again]] += gained[~again]
            self._carry[waiting[again]] += gained[again]
            ended = waiting[(term | trunc)[waiting] & ~again]
            done[ended] = True
            self._finish(ended, info, infos)


class ParallelSeatVecEnv(_LearnerVecEnv):
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
        super().__init__(game, num_envs, opponents, None, seed, reward_mode, config, advisor)
        self._rows = np.arange(num_envs)
        self._other = (self.learner_seat + 1) % 2
        self._obs = self._mask = None

    def reset(self):
        self._obs, info = self.engine.reset()
        self._mask = info["action_mask"]
        self._ep_return[:] = 0
        self._ep_len[:] = 0
        return self._learner_view(self._obs[self._rows, self.learner_seat], self.action_masks())

    def step_wait(self):
        r, other = self._rows, self._other
        joint = np.zeros((self.num_envs, 2), np.int64)
        joint[r, self.learner_seat] = self._actions
        joint[r, other] = self.opponents.act_batch(self._obs[r, other], self._mask[r, other])
        self._obs, rew, term, trunc, info = self.engine.step(joint)
        self._mask = info["action_mask"]
        reward = self._learner_reward(r, rew)
        done = term | trunc
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        self._finish(np.flatnonzero(done), info, infos)
        self._episodes(reward, done, infos)
        return (
            self._learner_view(self._obs[r, self.learner_seat], self.action_masks()),
            reward.astype(np.float32),
            done,
            infos,
        )

    def action_masks(self) -> np.ndarray:
        return self._mask[self._rows, self.learner_seat].copy()


def learner_vec_env(
    game: str,
    num_envs: int,
    opponents: Agent | None = None,
    partner: Agent | None = None,
    seed: int | None = None,
    reward_mode: str = "seat",
    advisor: Agent | None = None,
    **config: Any,
) -> _LearnerVecEnv:
    """The learner VecEnv that fits ``game`` (turn-based or simultaneous)."""
    if getattr(V.rules_class(game), "vector_env_class", None) is not None:
        return ParallelSeatVecEnv(game, num_envs, opponents, seed, reward_mode, advisor, **config)
    return SeatVecEnv(game, num_envs, opponents, partner, seed, reward_mode, advisor, **config)


def make_seat_env(game: str, **kwargs: Any) -> Callable[[], SeatEnv]:
    """A factory for ``DummyVecEnv``/``SubprocVecEnv``."""
    return lambda: SeatEnv(game, **kwargs)
