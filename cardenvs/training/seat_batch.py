"""The single-learner batch behind the learner vector envs.

:class:`TurnSeatBatch` (turn-based games) and :class:`SimultaneousSeatBatch`
(Spit) run ``num_envs`` games on the vector engine; in game i the learner
plays seat ``i % num_players`` (so every seat is learned) and agents play the
other seats.  They depend on no RL library; two views sit on them:

* :class:`cardenvs.training.gym_vector.SeatGymVectorEnv`: a
  :class:`gymnasium.vector.VectorEnv`, so Gymnasium's vector wrappers
  (``RecordEpisodeStatistics``, ``NormalizeReward``, ...) work on it;
* :class:`cardenvs.training.seat_env.SeatVecEnv` /
  :class:`~cardenvs.training.seat_env.ParallelSeatVecEnv`: stable-baselines3
  ``VecEnv`` s, for ``MaskablePPO``.

Reward accounting: the reward returned for a learner action is everything
the learner's seat earned from that action until its next turn (with
``reward_mode="relative"``: minus the mean of what the opponents' seats earned
meanwhile, a zero-sum training signal), including what it earned during the
other seats' moves.  When a game ends during the other seats' moves the
terminal reward is still delivered with that step (never lost); what the
learner earns in the next game before its first move is added to its first
move's reward.  The partner (in partnership games: the seat opposite) and the
opponents are chosen separately.

``illegal_action`` (a config option, as for every env): ``"raise"`` (default:
:class:`cardenvs.IllegalActionError`, nothing changes) or ``"terminate"`` (the
learner's game ends, the learner gets -1); Spit also takes ``"wait"``.
Observations are float32 with finite bounds (:func:`learner_space`).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

import cardenvs.vector as V
from cardenvs.core.options import action_array
from cardenvs.core.spaces import observation_box
from cardenvs.registry import spec

from ..agents.advice import advised_observation
from ..core.agent import Agent, RandomAgent

REWARD_MODES = ("seat", "relative")


def learner_space(rules: Any, advised: bool = False) -> gym.spaces.Box:
    """The observation space the learner sees: the game's bounds in float32,
    all finite (followed by the advice one-hot of ``num_actions`` columns if
    ``advised``, see :mod:`cardenvs.agents.advice`).

    Games emit compact integer observations (see ``cardenvs.core.spaces``);
    the learner envs hand out float32 arrays, so rollout buffers and networks
    work in float and saved models keep one space.
    """
    box = observation_box(rules, np.float32)
    if not advised:
        return box
    low = np.concatenate([box.low, np.zeros(rules.num_actions, np.float32)])
    high = np.concatenate([box.high, np.ones(rules.num_actions, np.float32)])
    return gym.spaces.Box(low, high, low.shape, np.float32)


def partner_offset(rules: Any) -> int | None:
    """Relative seat of the partner in a partnership game, else None."""
    return rules.num_players // 2 if getattr(rules, "partnerships", False) else None


def reward_weights(num_players: int, partner_rel: int | None, reward_mode: str) -> np.ndarray:
    """``w[s]``: the weights turning a game's rewards ``(P,)`` into the reward
    of a learner at seat ``s`` (``w[s] @ rewards``)."""
    if reward_mode not in REWARD_MODES:
        raise ValueError(f"reward_mode must be one of {list(REWARD_MODES)}, got {reward_mode!r}")
    n = num_players
    w = np.zeros((n, n))
    for s in range(n):
        w[s, s] = 1.0
        if reward_mode == "relative":
            rel = (np.arange(n) - s) % n
            opp = (rel != 0) & ((rel != partner_rel) if partner_rel is not None else True)
            w[s, opp] = -1.0 / opp.sum()
    return w


def reseed_agents(agents: list[Agent], seed: int) -> None:
    """Reseed the agents that draw from a numpy generator in ``rng`` (such as
    :class:`RandomAgent`), so that a seeded reset replays the same games."""
    seen: set[int] = set()
    for k, agent in enumerate(agents):
        if id(agent) not in seen and isinstance(getattr(agent, "rng", None), np.random.Generator):
            agent.rng = np.random.default_rng([seed, k])
        seen.add(id(agent))


class SeatBatch:
    """What the turn-based and simultaneous learner batches share: the engine,
    the learner's seats and reward weights, the agents, the spaces.

    ``_reset_batch(seed, options)`` -> the learner's observations;
    ``_step_batch(actions, hold=None)`` -> ``(obs, reward, terminated,
    truncated, finals)``, where ``finals`` describes the games that ended on
    the step: ``"rows"``, the learner's last ``"obs"``, ``"scores"`` (per
    seat) and ``"seat"`` (the learner's); the games in ``hold`` (a bool mask)
    are not stepped (their actions are ignored, reward 0).  The views name
    their own ``reset``/``step``.
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
        self.engine = V.make(game, num_envs=num_envs, seed=seed, **config)
        self.rules = self.engine.rules
        self.num_envs = self.engine.num_envs
        self.illegal_action = self.engine.illegal_action
        self.learner_seat = np.arange(self.num_envs) % self.rules.num_players
        self.opponents = opponents or RandomAgent(seed)
        self.partner = partner or self.opponents
        self._partner_rel = partner_offset(self.rules)
        self.reward_mode = reward_mode
        self._reward_weights = reward_weights(self.rules.num_players, self._partner_rel, reward_mode)
        self.advisor = advisor
        self.observation_space = learner_space(self.rules, advised=advisor is not None)
        self.action_space = self.engine.single_action_space
        self._batch_rows = np.arange(self.num_envs)
        self._carry = np.zeros(self.num_envs)

    def _reseed(self, seed: int | None) -> None:
        if seed is not None:
            reseed_agents([self.opponents, self.partner], int(seed))

    def _learner_view(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """What the learner is handed: float32, with the advice if advised."""
        if self.advisor is None:
            return obs.astype(np.float32)
        return advised_observation(self.advisor, obs, mask)

    def _learner_reward(self, rows: np.ndarray, rew: np.ndarray) -> np.ndarray:
        return np.einsum("kp,kp->k", self._reward_weights[self.learner_seat[rows]], rew[rows])

    def _final(self, rows: np.ndarray, info: dict) -> dict[str, np.ndarray]:
        """The ``finals`` of the games in ``rows`` (see the class docstring)."""
        seats = self.learner_seat[rows]
        if rows.size == 0:
            n = self.rules.num_players
            obs = np.zeros((0, *self.observation_space.shape), np.float32)
            return {"rows": rows, "obs": obs, "scores": np.zeros((0, n)), "seat": seats}
        last = np.stack([info["final_obs"][i][s] for i, s in zip(rows, seats)])
        no_mask = np.zeros((len(rows), self.rules.num_actions), bool)
        return {
            "rows": rows,
            "obs": self._learner_view(last, no_mask),
            "scores": np.asarray(info["final_scores"], np.float64)[rows],
            "seat": seats,
        }

    @staticmethod
    def _merge(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
        return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, ``(num_envs, n_actions)`` bool."""
        raise NotImplementedError


class TurnSeatBatch(SeatBatch):
    """The learner batch of a turn-based game: after every step, the agents
    move in each game until it is the learner's turn again."""

    def _reset_batch(self, seed: int | None = None, options: dict | None = None) -> np.ndarray:
        self._obs, _ = self.engine.reset(seed=seed, options=options)
        self._reseed(seed)
        self._carry = np.zeros(self.num_envs)
        # everything earned before the learners' first decisions is carried to them
        every = np.ones(self.num_envs, bool)
        self._advance(np.zeros(self.num_envs), every, every.copy(), [])
        return self._learner_view(self._obs, self.engine.state.legal)

    def _step_batch(self, actions: Any, hold: np.ndarray | None = None):
        held = hold is not None and hold.any()
        obs, rew, term, trunc, info = self.engine.step(actions, rows=~hold if held else None)
        self._obs = obs
        stepped = ~hold if held else self._batch_rows
        reward = self._learner_reward(self._batch_rows, rew)
        reward[stepped] += self._carry[stepped]  # a held game keeps what it carries
        self._carry[stepped] = 0.0
        terminated, truncated = term.copy(), trunc.copy()
        finals = [self._final(np.flatnonzero(term | trunc), info)]
        self._advance(reward, terminated, truncated, finals)
        obs = self._learner_view(self._obs, self.engine.state.legal)
        return obs, reward.astype(np.float32), terminated, truncated, self._merge(finals)

    def action_masks(self) -> np.ndarray:
        return self.engine.state.legal.copy()

    def _players(self, rel: np.ndarray) -> list[tuple[Agent, np.ndarray]]:
        is_partner = rel == self._partner_rel if self._partner_rel is not None else np.zeros(len(rel), bool)
        return [(self.partner, is_partner), (self.opponents, ~is_partner)]

    def _advance(self, reward: np.ndarray, terminated: np.ndarray, truncated: np.ndarray, finals: list[dict]) -> None:
        """Let the agents move in every game where it is not the learner's
        turn.  What the learner earns meanwhile is added to ``reward``, or
        carried to the next step for a game that already ended on this step
        (a new one is under way there); games that end now are marked in
        ``terminated``/``truncated`` and described in ``finals``."""
        n = self.rules.num_players
        state = self.engine.state
        while True:
            waiting = np.flatnonzero(state.current != self.learner_seat)
            if waiting.size == 0:
                return
            mask = state.legal[waiting]
            rel = (state.current[waiting] - self.learner_seat[waiting]) % n
            actions = np.zeros(self.num_envs, np.int64)
            for agent, sel in self._players(rel):
                if sel.any():
                    actions[waiting[sel]] = agent.act_batch(self._obs[waiting[sel]], mask[sel])
            obs, rew, term, trunc, info = self.engine.step(actions, rows=waiting)
            self._obs = obs
            gained = self._learner_reward(waiting, rew)
            again = (terminated | truncated)[waiting]
            reward[waiting[~again]] += gained[~again]
            self._carry[waiting[again]] += gained[again]
            ended = waiting[(term | trunc)[waiting] & ~again]
            terminated[ended], truncated[ended] = term[ended], trunc[ended]
            finals.append(self._final(ended, info))


class SimultaneousSeatBatch(SeatBatch):
    """The learner batch of a simultaneous game (Spit): at every tick the
    learner plays seat ``i % 2`` of game i and ``opponents`` the other seat
    (``partner`` is not used)."""

    def __init__(self, game: str, num_envs: int, *args: Any, **kwargs: Any):
        super().__init__(game, num_envs, *args, **kwargs)
        self._other = (self.learner_seat + 1) % 2
        self._obs = self._mask = None

    def _reset_batch(self, seed: int | None = None, options: dict | None = None) -> np.ndarray:
        self._obs, info = self.engine.reset(seed=seed, options=options)
        self._reseed(seed)
        self._mask = info["action_mask"]
        return self._learner_view(self._obs[self._batch_rows, self.learner_seat], self.action_masks())

    def _step_batch(self, actions: Any, hold: np.ndarray | None = None):
        r, other = self._batch_rows, self._other
        acts, in_range = action_array(actions, (self.num_envs,), self.rules.num_actions)
        joint = np.zeros((self.num_envs, 2), np.int64)
        joint[r, self.learner_seat] = np.where(in_range, acts, -1)  # out of range stays illegal
        joint[r, other] = self.opponents.act_batch(self._obs[r, other], self._mask[r, other])
        held = np.flatnonzero(hold) if hold is not None else np.zeros(0, np.int64)
        if held.size:  # played with legal stand-ins, then put back as they were
            saved = self.engine.state.select(held)
            joint[held] = self._mask[held].argmax(-1)
        obs, rew, term, trunc, info = self.engine.step(joint)
        if held.size:
            self.engine.state.assign(held, saved)
            obs, info["action_mask"] = self.engine.observe(), self.engine.state.legal.copy()
            rew[held], term[held], trunc[held] = 0.0, False, False
        self._obs, self._mask = obs, info["action_mask"]
        reward = self._learner_reward(r, rew)
        finals = self._final(np.flatnonzero(term | trunc), info)
        view = self._learner_view(self._obs[r, self.learner_seat], self.action_masks())
        return view, reward.astype(np.float32), term.copy(), trunc.copy(), finals

    def action_masks(self) -> np.ndarray:
        return self._mask[self._batch_rows, self.learner_seat].copy()


def seat_batch_class(game: str) -> type[SeatBatch]:
    """The learner batch that fits ``game`` (turn-based or simultaneous)."""
    return SimultaneousSeatBatch if spec(game).simultaneous else TurnSeatBatch
