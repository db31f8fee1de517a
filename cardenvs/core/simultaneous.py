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
* :class:`SimultaneousAECEnv`: an AEC view of the parallel env (players
  submit in seat order; the tick is applied when the last one has).

Illegal actions raise :class:`IllegalActionError` and change nothing, unless
the rules were configured with ``illegal_action="wait"``: then an illegal
action is played as the rules' ``wait_action`` (PettingZoo's
``parallel_seed_test`` samples actions without the mask).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

from .aec import after_the_end
from .engine import VectorEnv, final_info, final_info_of
from .errors import IllegalActionError
from .game import BatchState, TurnBasedRules
from .onegame import OneGame
from .options import action_id, legal_actions
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
    illegal_action: str = "raise"  # or "wait"

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


def illegal_joint_actions(
    rules: SimultaneousRules, legal: np.ndarray, actions: Any, ok: np.ndarray
) -> IllegalActionError:
    """The error naming the first few illegal actions (``ok`` False)."""
    arr = np.asarray(actions)
    parts = []
    for r, p in np.argwhere(~ok)[:5]:
        a = arr[r, p]
        if not 0 <= a < rules.num_actions:
            parts.append(f"row {r} player_{p}: {int(a)} out of range 0..{rules.num_actions - 1}")
            continue
        legal_now = ", ".join(repr(rules.action_to_str(x)) for x in np.flatnonzero(legal[r, p]))
        parts.append(f"row {r} player_{p}: {int(a)} ({rules.action_to_str(int(a))!r}), legal now: {legal_now}")
    return IllegalActionError("illegal actions: " + "; ".join(parts))


def check_joint_actions(
    rules: SimultaneousRules,
    legal: np.ndarray,
    actions: Any,
    illegal_action: str = "raise",
    rows: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Validate ``actions`` ``(k, P)`` against ``legal`` ``(k, P, A)``: returns
    (the actions to play as int64, which players acted illegally).  An illegal
    action raises :class:`IllegalActionError` with ``illegal_action="raise"``,
    is played as ``rules.wait_action`` with ``"wait"``, and is reported in the
    second array (and played as waiting) with ``"terminate"``.  ``rows``
    (indices): only those games are played, only their actions checked."""
    arr, ok = legal_actions(actions, legal)  # (TypeError, or IllegalActionError for a wrong shape)
    if rows is not None:
        played = np.zeros(len(ok), bool)
        played[rows] = True
        ok |= ~played[:, None]
    if ok.all():
        return arr, ~ok
    if illegal_action == "raise":
        raise illegal_joint_actions(rules, legal, actions, ok)
    return np.where(ok, arr, rules.wait_action), ~ok if illegal_action == "terminate" else np.zeros_like(ok)


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

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        self._start(seed, options)
        return self._cast(self.rules.observe(self.state)), {"action_mask": self.state.legal.copy()}

    def step(self, actions: np.ndarray, rows: np.ndarray | None = None):
        """One tick of every game with ``actions`` ``(N, P)``, or only of the
        games in ``rows`` (an index array or bool mask; the others stay as
        they are, reward 0, and their actions are not looked at).  Errors as
        :meth:`VectorEnv.step`'s; nothing changes before the checks pass."""
        state = self.state
        if state is None or self.closed:
            state = self._require_state()  # (raises)
        if rows is None and self.num_envs == 1:
            one = self._tick_one(state, actions)
            if one is not None:
                return one
        idx = self._step_rows(rows)
        actions, forfeit = check_joint_actions(self.rules, state.legal, actions, self.illegal_action, idx)
        if idx is None and state.streams is not None and self.num_threads > 1 and not forfeit.any():
            return self._tick_in_shards(state, actions)
        rewards = self._step_games(state, actions, idx)
        # (a reduction along an axis of 2 costs ~50 us at 4096 games: only when someone forfeited)
        ended = forfeit.any(axis=1) if forfeit.any() else np.zeros(self.num_envs, bool)
        if ended.any():  # illegal_action="terminate": the offenders -1, everyone else 0, the game over
            rewards[ended] = np.where(forfeit[ended], -1.0, 0.0)
        done = state.done | ended
        truncated = state.done & state.truncated & ~ended
        terminated = done & ~truncated
        info: dict[str, Any] = {}
        if np.count_nonzero(done):
            rows = np.flatnonzero(done)
            info = final_info(self.rules, state, done, self._cast(self.rules.observe(state, rows)))
            self.rules.reset(state, rows)
        info["action_mask"] = state.legal.copy()
        return self._cast(self.rules.observe(state)), rewards, terminated, truncated, info

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
        observed, _, done, _ = rules.step_one(state, one.actions, one)
        rewards = one.rewards.copy()  # (the tick writes every tick's, zeros included)
        info: dict[str, Any] = {}
        if done:  # over (at max_ticks: truncated), and reset
            truncated = state.truncated.copy()
            terminated = ~truncated
            seen = self._cast(rules.observe(state, self._rows))
            info = final_info(rules, state, state.done.copy(), seen)
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
        info: dict[str, Any] = final_info_of(done, seen, scores) if ended.size else {}
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

    def joint_action(self, actions: dict[str, Any]) -> tuple[np.ndarray, np.ndarray | None]:
        """``{agent: action}`` -> the ``(1, P)`` actions to play and who acted
        illegally (see :func:`check_joint_actions`; None when every action is
        a legal int, the usual case, checked without building arrays: written
        to the rules' one-game buffer when there is one);
        :class:`IllegalActionError` for a missing agent, ``TypeError`` for a
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
                return (np.array([row]) if one is None else one.actions), None
        if not isinstance(actions, dict) or set(actions) != set(self.possible_agents):
            raise IllegalActionError(
                f"actions must be a dict with one action for each of {self.possible_agents}, got {actions!r}"
            )
        row = []
        for a in self.possible_agents:
            try:
                row.append(action_id(actions[a], self.rules.num_actions))
            except IllegalActionError:
                row.append(-1)  # out of range: illegal, however large
        return check_joint_actions(self.rules, self._state.legal, np.array([row], np.int64), self.illegal_action)

    def step(self, actions: dict[str, Any]):
        self._require_game()
        if not self.agents:
            raise RuntimeError("the game is over: call reset()")
        joint, forfeit = self.joint_action(actions)
        return self._play(joint, forfeit)

    def _play(self, joint: np.ndarray, forfeit: np.ndarray | None):
        """:meth:`step` with the checked ``(1, P)`` actions (and who acted
        illegally, see :meth:`joint_action`)."""
        agents = self.agents  # (every agent until the game is over)
        if forfeit is not None and forfeit.any():  # illegal_action="terminate": nothing is played
            self._forfeit = int(np.flatnonzero(forfeit[0])[0])
            rewards, done, trunc = np.where(forfeit[0], -1.0, 0.0).tolist(), True, False
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
        rewards_of = self._no_rewards.copy() if rewards is None else dict(zip(agents, rewards))
        return obs, rewards_of, terminations, truncations, infos

    def _advance(self, joint: np.ndarray) -> tuple[dict, list | None, bool, bool]:
        """The tick of :meth:`_play` (nobody forfeiting), shared with the AEC
        view (which keeps dicts of its own): every player's observation
        (``{agent: {...}}``), the rewards in seat order (None: all 0),
        whether the game is over and whether it was cut by the tick limit."""
        state, one = self._state, self._one
        if one is not None:
            observed, scored, done, trunc = self.rules.step_one(state, joint, one)
            rewards = one.rewards[0].tolist() if scored else None
        else:
            rewards, observed = self.rules.step(state, joint)[0].tolist(), False
            done, trunc = bool(state.done[0]), bool(state.truncated[0])
        return self._after_tick(observed, rewards, done, trunc)

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


class SimultaneousAECEnv(AECEnv):
    """AEC view of a :class:`SimultaneousParallelEnv`.

    At every tick the players submit in seat order (``player_0`` first).  An
    action is checked against the submitting player's mask at once (illegal
    -> :class:`IllegalActionError`, nothing buffered); the tick is applied
    when the last player has submitted.  Until then every player observes the
    position before the tick, so nobody sees another's pending action.
    """

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "is_parallelizable": True, "render_fps": 1}
    parallel_class: type[SimultaneousParallelEnv]
    _updates = 0  # (steps taken so far, as CardGameAECEnv's)

    def __init__(self, render_mode: str | None = None, **config: Any):
        super().__init__()
        self.parallel = self.parallel_class(render_mode=render_mode, **config)
        self.illegal_action = self.parallel.illegal_action
        self.render_mode = render_mode
        self.rules = self.parallel.rules
        self.possible_agents = self.parallel.possible_agents[:]
        self._seats = {a: i for i, a in enumerate(self.possible_agents)}
        self._later = dict(zip(self.possible_agents, self.possible_agents[1:]))
        self._num_actions = self.rules.num_actions
        self.agents = self.possible_agents[:]
        self.observation_spaces = self.parallel.observation_spaces
        self.action_spaces = self.parallel.action_spaces
        self._pending: dict[str, int] = {}
        self._checked_alone = False  # an action of this tick went through _check_alone (not a legal int)
        # the rewards a player's submission clears to (PettingZoo's ints) and a tick nobody scores in leaves (floats)
        self._cleared = dict.fromkeys(self.possible_agents, 0)
        self._zeros = dict.fromkeys(self.possible_agents, 0.0)
        self._scored = False  # (the last tick's cumulative rewards are not all 0.0)
        self._obs: dict[str, dict] = {}

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._obs, _ = self.parallel.reset(seed=seed, options=options)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self._scored = False
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._pending = {}
        self._checked_alone = False
        self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if self.parallel._state is None:
            self.parallel._require_game()  # (raises)
        return self._obs[agent]

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last``, observing as :meth:`observe` does without the call."""
        agent = self.agent_selection
        assert agent is not None
        if not observe:
            obs = None
        else:
            try:
                obs = self._obs[agent]
            except KeyError:  # (none before a game: observe raises as it does)
                obs = self.observe(agent)
        return (
            obs,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def step(self, action: Any) -> None:
        parallel = self.parallel
        state = parallel._state
        if state is None:
            parallel._require_game()  # (raises)
        self._updates += 1
        agent = self.agent_selection
        try:
            dead = self.terminations[agent] or self.truncations[agent]
        except KeyError:  # (every agent gone: the order-enforcing wrapper's warning)
            return after_the_end(self)
        if dead:
            return self._was_dead_step(action)
        seat = self._seats[agent]
        if type(action) is int and 0 <= action < self._num_actions and state.legal[0, seat, action]:
            probe_action = action  # a legal int (the usual case): nothing more to check
        else:  # check this player's action against its own mask (the others' masks let anything pass)
            probe_action = self._check_alone(seat, action)
            self._checked_alone = True
        pending = self._pending
        pending[agent] = probe_action
        # who submits next this tick (None: the tick is complete); every agent plays in seat order
        # while the game goes on (an agent leaves only once it is over, by a dead step)
        later = self._later.get(agent)
        if later is not None:
            if not seat:  # the tick's first submission (PettingZoo's _clear_rewards, in place, without the call)
                self.rewards.update(self._cleared)
            self.agent_selection = later
            return
        agents = self.agents
        if self._checked_alone or len(agents) != len(self.possible_agents):
            obs, rewards, self.terminations, self.truncations, self.infos = parallel.step(pending)
            self._checked_alone = False
            self.rewards = rewards
            self._cumulative_rewards, self._scored = dict(rewards), True
        else:  # every action a legal int, checked as it came: the parallel env's own checks would pass
            obs = self._tick(pending)
        pending.clear()
        self._obs = obs
        self.agent_selection = agents[0]

    def _tick(self, pending: dict[str, int]) -> dict[str, dict]:
        """The tick of :meth:`step` with every player's legal int action in
        ``pending``: the parallel env's tick (:meth:`SimultaneousParallelEnv._advance`)
        without its dicts, this view's kept current in place of them; returns
        every player's observation.  A dict that does not change in a tick
        is not made anew: the terminations, truncations and infos of a game
        going on."""
        parallel, agents = self.parallel, self.agents
        one = parallel._one
        if one is None:
            obs, rewards, done, trunc = parallel._advance(np.array([[pending[a] for a in agents]]))
        else:  # parallel._advance's usual tick, without the call (~0.1 us of a tick's ~9 in the AEC loop)
            row = one.actions_row  # (written where the rules' one-call tick reads them: in seat order, as submitted)
            for i, a in enumerate(pending.values()):
                row[i] = a
            observed, scored, done, trunc = parallel.rules.step_one(parallel._state, one.actions, one)
            rewards = one.rewards[0].tolist() if scored else None
            if not observed or done or parallel.render_mode == "human":  # (the rest of _advance's tick)
                obs, rewards, done, trunc = parallel._after_tick(observed, rewards, done, trunc)
            else:
                cast, obs = parallel.obs_dtype, {}
                for a, seen, mask in one.seat_rows:
                    obs[a] = {
                        "observation": seen.copy() if cast is None else seen.astype(cast),
                        "action_mask": mask.copy(),
                    }
        if rewards is not None:
            self.rewards = dict(zip(agents, rewards))
            self._cumulative_rewards = dict(zip(agents, rewards))
            self._scored = True
        else:  # (floats, fresh dicts: as the parallel env's; the cumulative ones left as they are if all 0.0)
            self.rewards = self._zeros.copy()
            if self._scored:
                self._cumulative_rewards, self._scored = self._zeros.copy(), False
        if done:
            self.terminations, self.truncations = dict.fromkeys(agents, not trunc), dict.fromkeys(agents, trunc)
            self.infos = {a: {} for a in agents}
        return obs

    def _check_alone(self, seat: int, action: Any) -> int:
        """``action`` of ``seat`` as the tick will play it (-1: out of range,
        with ``illegal_action`` other than "raise"), checked against the
        seat's own mask: :class:`IllegalActionError` or ``TypeError`` as
        :func:`check_joint_actions` raises them, nothing buffered."""
        try:
            probe_action = action_id(action, self.rules.num_actions)
        except IllegalActionError:
            if self.parallel.illegal_action == "raise":
                raise
            probe_action = -1
        probe = np.full((1, self.rules.num_players), self.rules.wait_action, np.int64)
        probe[0, seat] = probe_action
        legal = np.ones_like(self.parallel._state.legal)
        legal[0, seat] = self.parallel._state.legal[0, seat]
        check_joint_actions(self.rules, legal, probe, self.parallel.illegal_action)
        return probe_action

    def render(self, seat: int | None = None) -> Any:
        return self.parallel.render(seat)

    def close(self) -> None:
        self.parallel.close()

    # ------------------------------------------------------------- extras
    def action_to_str(self, action: int) -> str:
        return self.rules.action_to_str(action)

    def str_to_action(self, text: str) -> int:
        return self.rules.str_to_action(text)

    def state_dict(self) -> dict[str, Any]:
        return self.parallel.state_dict()
