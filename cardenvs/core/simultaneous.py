"""The batched-core interface and the views shared by simultaneous-move games.

In a simultaneous game (Spit) every player submits one action at every
*tick*.  As for the turn-based games (:mod:`cardenvs.core.game`), a game's
rules live in one class over a struct of numpy arrays with a leading batch
dimension, and the rules keep the legal-action mask in the state — here one
mask per player, ``state.legal`` of shape ``(B, P, A)``.

Three views sit on top of a :class:`SimultaneousRules` core and implement no
rule themselves:

* :class:`SimultaneousVectorEnv`: ``num_envs`` games at once, actions
  ``(N, P)``, masks ``(N, P, A)``, observations ``(N, P, obs_size)``,
  rewards ``(N, P)``, automatic reset (``cardenvs.vector.make`` picks it
  through the rules class's ``vector_env_class``).
* :class:`SimultaneousParallelEnv`: the PettingZoo parallel API over a batch
  of one.
* :class:`~.simultaneous_aec.SimultaneousAECEnv` (in its own module): an
  AEC view of the parallel env (players submit in seat order; the tick is
  applied when the last one has).

Illegal actions raise :class:`IllegalActionError` and change nothing, unless
the view was made with ``illegal_action="wait"`` (an illegal action is
played as the rules' ``wait_action``: PettingZoo's ``parallel_seed_test``
samples actions without the mask) or ``"terminate"``: the policy lives in
:mod:`.illegal`, which every view calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import ParallelEnv

from . import illegal
from .engine import VectorEnv
from .errors import IllegalActionError
from .game import BatchState, TurnBasedRules
from .onegame import OneGame
from .options import action_id
from .shards import in_shards
from .view import RulesView


class SimultaneousRules:
    """Interface of a simultaneous game's batched rules.

    After every ``reset``/``step`` the rules recompute ``state.legal``
    ``(B, P, A)`` (all False in finished games), ``state.done`` ``(B,)``
    (the episode is over: won, drawn or truncated) and ``state.truncated``
    ``(B,)`` (it was cut by a tick limit).  ``step`` receives one action per
    player and row; it is only called with actions that are legal or equal
    to ``wait_action`` (see :func:`check_joint_actions`), and only for rows
    that are not done.
    """

    name: str = ""
    num_players: int
    num_actions: int
    obs_size: int
    obs_low: Any = 0.0
    obs_high: Any = 1.0
    obs_dtype: Any = np.float32  # games use the smallest integer dtype that holds their values
    wait_action: int = 0

    # The deck helpers are the turn-based games' (one implementation).
    deck_orders = TurnBasedRules.deck_orders
    parse_decks = TurnBasedRules.parse_decks
    set_fixed_decks = TurnBasedRules.set_fixed_decks
    forget_fixed_decks = TurnBasedRules.forget_fixed_decks
    check_dealer = TurnBasedRules.check_dealer

    def new_state(self, batch: int, rng: np.random.Generator) -> BatchState:
        raise NotImplementedError

    def reset(self, state: BatchState, rows: np.ndarray, dealer: int | None = None) -> None:
        raise NotImplementedError

    def step(self, state: BatchState, actions: np.ndarray) -> np.ndarray:
        """Apply one tick: ``actions`` ``(B, P)``; returns rewards ``(B, P)``."""
        raise NotImplementedError

    def one_game(self) -> OneGame | None:
        """The buffers of a one-game view's fused tick (:meth:`step_one`),
        or None: the game has none and the views step and observe as usual."""
        return None

    def step_one(self, state: BatchState, actions: np.ndarray, one: OneGame) -> tuple[bool, bool, bool, bool]:
        """The tick of a batch of one (``actions`` ``(1, P)``, as :meth:`step`
        takes them) in one compiled call where it can: the rewards written
        to ``one.rewards`` and, unless something is left to Python, every
        player's observation to ``one.seen`` and mask to ``one.mask``.
        Returns whether those were written, whether any reward is not 0,
        and whether the game is over (``state.done``) and truncated (what
        the view would otherwise read off the arrays).  Only for games
        whose :meth:`one_game` is not None."""
        raise NotImplementedError

    def finish_one(self, state: BatchState, one: OneGame, out: tuple) -> tuple[bool, bool, bool, bool]:
        """What :meth:`step_one` returns when the call it left in
        ``one.tick`` (see :class:`~.onegame.OneGame`), called in its place,
        returned ``out``, a tick not observed (``out[0]`` False): the rest of
        the tick as :meth:`step_one` plays it.  Only for games whose
        :meth:`step_one` leaves a ``tick``."""
        raise NotImplementedError

    def observe(self, state: BatchState, rows: np.ndarray | None = None) -> np.ndarray:
        """Observations ``(len(rows), P, obs_size)`` (dtype ``obs_dtype``), each player's own view."""
        raise NotImplementedError

    def observe_into(self, state: BatchState, out: np.ndarray) -> None:
        """:meth:`observe` of every row written into ``out`` (``(batch, P,
        obs_size)``, of any float or integer dtype); a game whose kernel can
        write there directly overrides this copy."""
        out[...] = self.observe(state)

    def state_dict(self, state: BatchState, row: int = 0) -> dict[str, Any]:
        raise NotImplementedError

    def seat_scores(self, state: BatchState) -> np.ndarray:
        raise NotImplementedError

    def render(self, state: BatchState, row: int = 0) -> str:
        raise NotImplementedError

    def action_to_str(self, action: int) -> str:
        raise NotImplementedError

    def str_to_action(self, text: str) -> int:
        raise NotImplementedError


#: (the names this module gave them: the policy lives in :mod:`.illegal`)
illegal_joint_actions = illegal.joint_error
check_joint_actions = illegal.settle_joint


class SimultaneousVectorEnv(VectorEnv):
    """``num_envs`` games of one simultaneous game, stepped together.

    ``reset(seed)`` -> ``(obs, info)``; ``step(actions)`` ->
    ``(obs, rewards, terminated, truncated, info)`` with ``obs``
    ``(N, P, obs_size)``, ``actions`` ``(N, P)``, ``rewards`` ``(N, P)``,
    ``terminated``/``truncated`` ``(N,)`` and ``info["action_mask"]``
    ``(N, P, A)`` bool.  A finished game is reset inside ``step``; its last
    observation is in ``info["final_obs"][i]`` (``(P, obs_size)``; an object
    array, None for other rows, ``info["_final_obs"]`` marks the rows) and its
    final score per seat in ``info["final_scores"]``.  ``step(actions,
    rows=...)`` plays a tick in those games only, as the turn-based engine's.
    """

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return (self.num_envs, self.num_players)

    def _outputs(self) -> tuple[np.ndarray, dict]:
        return self._cast(self.rules.observe(self.state)), {"action_mask": self.state.legal.copy()}

    def _step(self, actions: np.ndarray, rows: np.ndarray | None = None):
        """One tick of every game with ``actions`` ``(N, P)``, or only of the
        games in ``rows`` (an index array or bool mask; the others stay as
        they are, reward 0, and their actions are not looked at).  Errors as
        :meth:`VectorEnv.step`'s; nothing changes before the checks pass.
        With ``illegal_action="wait"``, ``info["illegal_waited"]`` ``(N, P)``
        bool: the players whose illegal action was played as waiting."""
        out, waited = self._tick(actions, rows)
        if self.illegal_action == illegal.WAIT:
            out[-1]["illegal_waited"] = np.zeros(self.batch_shape, bool) if waited is None else waited
        return out

    def _tick(self, actions: np.ndarray, rows: np.ndarray | None) -> tuple[tuple, np.ndarray | None]:
        """:meth:`_step`'s returns, and who waited (None: nobody)."""
        state = self.state
        if state is None:  # (no games yet, or closed; a tick cut short was refused by step)
            state = self._require_state()  # (raises)
        if rows is None and self.num_envs == 1:
            one = self._tick_one(state, actions)
            if one is not None:
                return one, None
        idx = self._step_rows(rows)
        checked = self._checked  # (step_into's)
        actions, forfeit, waited = illegal.settle_joint(
            self.rules, state.legal, actions, self.illegal_action, idx, checked
        )
        self._moving = True  # (VectorEnv.step: cut short from here, the engine closes)
        sharded = self.num_threads > 1 or self._out is not None
        if idx is None and state.streams is not None and sharded and not forfeit.any():
            return self._tick_in_shards(state, actions), waited
        rewards = self._step_games(state, actions, idx)
        ended = illegal.forfeit_joint(rewards, forfeit)  # ("terminate": the offenders -1, everyone else 0, over)
        done = state.done | ended
        truncated = state.done & state.truncated & ~ended
        terminated = done & ~truncated
        info: dict[str, Any] = {}
        if np.count_nonzero(done):
            rows = np.flatnonzero(done)
            seen = self._cast(self.rules.observe(state, rows))
            info = self._final_info(done, seen, self.rules.seat_scores(state)[done])
            self.rules.reset(state, rows)
        info["action_mask"] = state.legal.copy()
        return (self._cast(self.rules.observe(state)), rewards, terminated, truncated, info), waited

    def _tick_one(self, state: BatchState, actions: Any) -> tuple | None:
        """:meth:`step` of a batch of one whose actions are legal integers
        (None for anything else: the batched path checks them, raises,
        waits or forfeits), in the rules' one-call tick where the game has
        one (:meth:`SimultaneousRules.step_one`: the observations and masks
        written in the same call unless a deal ends).  The same results as
        the batched path (tested over many seeds, through resets)."""
        one = self._one
        if one is None or type(actions) is not np.ndarray or actions.shape != one.actions.shape:
            return None
        if actions.dtype.kind not in "iu":
            return None
        # each checked and written where the tick reads them (a row left half written is never read:
        # the batched path plays its own array, the next tick here writes every player's)
        legal, n, row = state.legal, self.num_actions, one.actions_row
        for p, a in enumerate(actions.tolist()[0]):
            if not (0 <= a < n and legal[0, p, a]):
                return None
            row[p] = a
        rules = self.rules
        self._moving = True
        observed, _, done, _ = rules.step_one(state, one.actions, one)
        rewards = one.rewards.copy()  # (the tick writes every tick's, zeros included)
        info: dict[str, Any] = {}
        if done:  # over (at max_ticks: truncated), and reset
            truncated = state.truncated.copy()
            terminated = ~truncated
            seen = self._cast(rules.observe(state, self._rows))
            info = self._final_info(state.done.copy(), seen, rules.seat_scores(state)[state.done])
            rules.reset(state, self._rows)
            observed = False
        else:
            terminated, truncated = np.zeros(1, bool), np.zeros(1, bool)
        if observed:
            obs = one.seen.copy() if self.obs_dtype is None else one.seen.astype(self.obs_dtype)
        else:
            obs = self._cast(rules.observe(state))
        info["action_mask"] = state.legal.copy()
        return obs, rewards, terminated, truncated, info

    def _tick_in_shards(self, state: BatchState, actions: np.ndarray):
        """:meth:`step` of every game with per-game streams (``rng="per_game"``)
        and threads: each row shard plays the whole tick of its games --
        coins, plays, new deals, stalemates, the ``max_ticks`` cut, the
        finished games' last observations and resets, the next observations
        and masks -- in one hand-off, drawing from its games' own streams;
        this thread only merges what the shards found."""
        rules, n = self.rules, self.num_envs
        dtype = rules.obs_dtype if self.obs_dtype is None else self.obs_dtype
        if self._out is not None:  # (a process shard's slices of the batch's outputs)
            obs, masks, _ = self._out
        else:
            obs = np.empty((n, self.num_players, rules.obs_size), dtype)
            masks = np.empty(state.legal.shape, bool)
        rewards = np.empty((n, self.num_players), np.float32)
        done, truncated = np.empty(n, bool), np.empty(n, bool)

        def shard(view: BatchState, lo: int, hi: int) -> list[Any]:
            rewards[lo:hi] = rules.step(view, actions[lo:hi])
            np.copyto(done[lo:hi], view.done)
            np.logical_and(view.done, view.truncated, out=truncated[lo:hi])
            ended = np.flatnonzero(view.done)
            seen, scores = self._cast(rules.observe(view, ended)), np.zeros((0, self.num_players), np.int64)
            if ended.size:
                scores = rules.seat_scores(view)[ended]
                rules.reset(view, ended)
            rules.observe_into(view, obs[lo:hi])
            np.copyto(masks[lo:hi], view.legal)
            return [(ended, seen, scores)]

        ((ended, seen, scores),) = in_shards(state, shard)
        info: dict[str, Any] = self._final_info(done, seen, scores) if ended.size else {}
        info["action_mask"] = masks
        return obs, rewards, done & ~truncated, truncated, info

    def observe(self) -> np.ndarray:
        return self._cast(self.rules.observe(self._require_state()))


class SimultaneousParallelEnv(RulesView, ParallelEnv):
    """PettingZoo parallel env over a batch of one of a :class:`SimultaneousRules`."""

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 1}
    rules_class: type[SimultaneousRules]

    def __init__(self, render_mode: str | None = None, **config: Any):
        self._set_up(self.rules_class, render_mode, config, simultaneous=True)
        self.agents: list[str] = []
        self._rng: np.random.Generator | None = None
        self._state = None
        # the buffers of the rules' one-call tick (None: the game has none)
        self._one = self.rules.one_game()
        if self._one is not None:
            self._one.name_seats(self.possible_agents)
        # Per-tick constants, made once: the number of actions, and the dicts
        # of a tick nobody scores in and of a game going on (handed out as copies).
        self._num_actions = self.rules.num_actions
        self._no_rewards = dict.fromkeys(self.possible_agents, 0.0)
        self._not_over = dict.fromkeys(self.possible_agents, False)

    def reset(self, seed: int | None = None, options: dict | None = None):
        self._state = self._new_game(seed, options)
        self.agents = self.possible_agents[:]
        if self.render_mode == "human":
            self.render()
        return self.observations(), {a: {} for a in self.agents}

    def observations(self, seen: np.ndarray | None = None, mask: np.ndarray | None = None):
        """Every player's observation of the current state (with its mask):
        ``seen`` and ``mask`` if the tick wrote them, else observed now."""
        if seen is None or mask is None:
            seen, mask = self.rules.observe(self._state)[0], self._state.legal[0].astype(np.int8)
        obs = self._cast(seen)
        return {a: {"observation": obs[i], "action_mask": mask[i]} for i, a in enumerate(self.possible_agents)}

    def joint_action(self, actions: dict[str, Any]) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
        """``{agent: action}`` -> the ``(1, P)`` actions to play, who forfeits
        and whose illegal action is played as waiting (see
        :func:`check_joint_actions`; None and None when every action is a
        legal int, the usual case, checked without building arrays: written
        to the rules' one-game buffer when there is one);
        :class:`IllegalActionError` for a missing agent or an action out of
        range (under every ``illegal_action``), ``TypeError`` for a
        non-integer action."""
        if type(actions) is dict and len(actions) == len(self.possible_agents):
            legal, n, one = self._state.legal, self._num_actions, self._one
            row = [] if one is None else one.actions_row
            for seat, agent in enumerate(self.possible_agents):
                a = actions.get(agent)
                if type(a) is not int or not 0 <= a < n or not legal[0, seat, a]:
                    break
                if one is None:
                    row.append(a)
                else:
                    row[seat] = a
            else:
                return (np.array([row]) if one is None else one.actions), None, None
        if not isinstance(actions, dict) or set(actions) != set(self.possible_agents):
            raise IllegalActionError(
                f"actions must be a dict with one action for each of {self.possible_agents}, got {actions!r}"
            )
        # (TypeError; IllegalActionError for one out of range, however large: refused under every policy)
        row = [action_id(actions[a], self.rules.num_actions) for a in self.possible_agents]
        return illegal.settle_joint(self.rules, self._state.legal, np.array([row], np.int64), self.illegal_action)

    def step(self, actions: dict[str, Any]):
        self._require_game()
        if not self.agents:
            raise RuntimeError("the game is over: call reset()")
        return self._play(*self.joint_action(actions))

    def _play(self, joint: np.ndarray, forfeit: np.ndarray | None, waited: np.ndarray | None = None):
        """:meth:`step` with the checked ``(1, P)`` actions (and who acted
        illegally, see :meth:`joint_action`): a player whose illegal action
        was played as waiting has ``infos[agent]["illegal_waited"]`` True."""
        agents = self.agents  # (every agent until the game is over)
        if forfeit is not None and forfeit.any():  # illegal_action="terminate": nothing is played
            self._forfeit = int(np.flatnonzero(forfeit[0])[0])
            rewards, done, trunc = illegal.forfeit_row(forfeit[0]), True, False
            obs = {a: {**o, "action_mask": np.zeros_like(o["action_mask"])} for a, o in self.observations().items()}
            self.agents = []
            if self.render_mode == "human":
                self.render()
        else:
            obs, rewards, done, trunc = self._advance(joint)
        if done:
            terminations, truncations = dict.fromkeys(agents, not trunc), dict.fromkeys(agents, trunc)
        else:
            terminations, truncations = self._not_over.copy(), self._not_over.copy()
        infos = {}
        for a in agents:
            infos[a] = {}
        if waited is not None and waited.any():
            for seat in np.flatnonzero(waited[0]):
                infos[self.possible_agents[seat]]["illegal_waited"] = True
        rewards_of = self._no_rewards.copy() if rewards is None else dict(zip(agents, rewards))
        return obs, rewards_of, terminations, truncations, infos

    def _advance(self, joint: np.ndarray) -> tuple[dict, list | None, bool, bool]:
        """The tick of :meth:`_play` (nobody forfeiting), shared with the AEC
        view (which keeps dicts of its own): every player's observation
        (``{agent: {...}}``), the rewards in seat order (None: all 0),
        whether the game is over and whether it was cut by the tick limit."""
        state, one = self._state, self._one
        try:
            if one is not None:
                observed, scored, done, trunc = self.rules.step_one(state, joint, one)
                rewards = one.rewards[0].tolist() if scored else None
            else:
                rewards, observed = self.rules.step(state, joint)[0].tolist(), False
                done, trunc = bool(state.done[0]), bool(state.truncated[0])
            return self._after_tick(observed, rewards, done, trunc)
        except BaseException as exc:  # cut short while the rules moved the game: it cannot be trusted
            self._state = None  # (first: see RulesView._cut_short)
            self._cut_short(exc)
            raise

    def _after_tick(self, observed: bool, rewards: list | None, done: bool, trunc: bool) -> tuple:
        """:meth:`_advance` once the rules played the tick (``observed``: the
        one-call tick wrote the observations and masks)."""
        if observed:  # written by the tick: copies for the caller to keep (loops: cheaper than comprehensions)
            cast, obs = self.obs_dtype, {}
            for a, seen, mask in self._one.seat_rows:
                obs[a] = {"observation": seen.copy() if cast is None else seen.astype(cast), "action_mask": mask.copy()}
        else:
            obs = self.observations()
        if done:
            self.agents = []
            trunc = bool(trunc)
        if self.render_mode == "human":
            self.render()
        return obs, rewards, done, trunc
