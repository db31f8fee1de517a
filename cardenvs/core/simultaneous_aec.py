"""The AEC view shared by the simultaneous-move games
(:class:`SimultaneousAECEnv`, over a :class:`~.simultaneous.SimultaneousParallelEnv`):
players submit in seat order, the tick is applied when the last one has.
It implements no rule itself (see :mod:`cardenvs.core.simultaneous`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from . import illegal
from .aec import after_the_end
from .options import action_id
from .simultaneous import SimultaneousParallelEnv

#: The key of a state's bundle (``BatchState.bundle``: made again once its ``legal`` is bound anew, never
#: copied) holding a memoryview of its ``legal``: :meth:`SimultaneousAECEnv.step` checks an action there,
#: a Python bool read without numpy's indexing (a visible part of a decision in the AEC loop).
_LEGAL = "legal memoryview"


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
        # each agent's seat and who submits after it in a tick (None: the last, whose step ticks)
        later = dict(zip(self.possible_agents, self.possible_agents[1:]))
        self._order = {a: (i, later.get(a)) for i, a in enumerate(self.possible_agents)}
        self._num_actions = self.rules.num_actions
        self._num_players = len(self.possible_agents)
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
        obs, _ = self.parallel.reset(seed=seed, options=options)  # (a ValueError: the current game goes on)
        try:  # cut short from here, the view's dicts (and a tick's pending actions) would be the old game's
            self._obs = obs
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
        except BaseException as exc:
            self.parallel._state = None  # (first: see RulesView._cut_short)
            self._obs = {}
            self.parallel._cut_short(exc, "a reset")
            raise

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
        seat, later = self._order[agent]
        pending, one = self._pending, parallel._one
        legal = state._bundles.get(_LEGAL)
        if legal is None:
            legal = state._bundles[_LEGAL] = memoryview(state.legal)
        if type(action) is int and 0 <= action < self._num_actions and legal[0, seat, action]:
            pending[agent] = action  # a legal int (the usual case): nothing more to check
            if one is not None:  # (and where the rules' one-call tick reads it)
                one.actions_mv[seat] = action
        else:  # check this player's action against its own mask (the others' masks let anything pass)
            pending[agent] = self._check_alone(seat, action)
            self._checked_alone = True
        # every agent plays in seat order while the game goes on (an agent leaves only once it is
        # over, by a dead step); the last one's submission completes the tick
        if later is not None:
            if not seat:  # the tick's first submission (PettingZoo's _clear_rewards, in place, without the call)
                self.rewards.update(self._cleared)
            self.agent_selection = later
            return
        # cut short from the tick to the end of this view's record of it (every action was checked as it
        # came: the tick moves the game at once), the game cannot be trusted
        try:
            if one is None or self._checked_alone or len(self.agents) != self._num_players:
                obs = self._tick_checked(pending)
            else:  # every action a legal int, checked as it came (and written to one.actions): the parallel
                # env's own checks would pass.  Its tick (_advance) without its dicts, this view's kept current
                # in their place; the usual tick (observed, not over) without _advance's call
                if one.tick_for is state._bundles:  # the rules' compiled tick, without step_one's frame
                    out = one.tick()
                    observed, scored, done, trunc = out if out[0] else parallel.rules.finish_one(state, one, out)
                else:
                    observed, scored, done, trunc = parallel.rules.step_one(state, one.actions, one)
                if observed and not done and parallel.obs_dtype is None and parallel.render_mode != "human":
                    obs = {}
                    for a, seen, mask in one.seat_rows:
                        obs[a] = {"observation": seen.copy(), "action_mask": mask.copy()}
                    if scored or self._scored:
                        self._tick_over(obs, one.rewards[0].tolist() if scored else None, False, False)
                    else:  # (nobody scored in this tick nor the last: _tick_over's fresh rewards, without the call)
                        self.rewards = self._zeros.copy()
                else:  # (the rest of the parallel env's tick)
                    rewards = one.rewards[0].tolist() if scored else None
                    obs = self._tick_over(*parallel._after_tick(observed, rewards, done, trunc))
            pending.clear()
            self._obs = obs
            self.agent_selection = self.agents[0]
        except BaseException as exc:
            parallel._state = None  # (first: see RulesView._cut_short)
            self._obs = {}  # (last() observes, and refuses, as before a game)
            parallel._cut_short(exc)
            raise

    def _tick_checked(self, pending: dict[str, int]) -> dict[str, dict]:
        """The tick of :meth:`step` when the usual one is not for it: an
        action went through :meth:`_check_alone` (the parallel env checks
        them all again, and plays illegal ones as its ``illegal_action``
        says), or the game has no one-call tick (the parallel env's tick
        without its dicts); returns every player's observation."""
        parallel = self.parallel
        if self._checked_alone or len(self.agents) != self._num_players:
            obs, rewards, self.terminations, self.truncations, self.infos = parallel.step(pending)
            self._checked_alone = False
            self.rewards = rewards
            self._cumulative_rewards, self._scored = dict(rewards), True
            return obs
        return self._tick_over(*parallel._advance(np.array([[pending[a] for a in self.agents]])))

    def _tick_over(self, obs: dict[str, dict], rewards: list | None, done: bool, trunc: bool) -> dict[str, dict]:
        """This view's dicts after a tick the parallel env finished (its
        ``_advance``: the rewards in seat order, None when all 0): a dict
        that does not change in a tick is not made anew (the terminations,
        truncations and infos of a game going on); returns ``obs``."""
        agents = self.agents
        if rewards is not None:
            self._score(rewards)
        else:  # (floats, fresh dicts: as the parallel env's; the cumulative ones left as they are if all 0.0)
            self.rewards = self._zeros.copy()
            if self._scored:
                self._cumulative_rewards, self._scored = self._zeros.copy(), False
        if done:
            self.terminations, self.truncations = dict.fromkeys(agents, not trunc), dict.fromkeys(agents, trunc)
            self.infos = {a: {} for a in agents}
        return obs

    def _score(self, rewards: list) -> None:
        """A tick's ``rewards`` (in seat order, someone scored) as this view's dicts."""
        agents = self.agents
        self.rewards = dict(zip(agents, rewards))
        self._cumulative_rewards = dict(zip(agents, rewards))
        self._scored = True

    def _check_alone(self, seat: int, action: Any) -> int:
        """``action`` of ``seat`` as the tick will play it, checked against the
        seat's own mask: :class:`IllegalActionError` or ``TypeError`` as
        :func:`.illegal.settle_joint` raises them (an action out of range
        under every ``illegal_action``), nothing buffered."""
        probe_action = action_id(action, self.rules.num_actions)
        probe = np.full((1, self.rules.num_players), self.rules.wait_action, np.int64)
        probe[0, seat] = probe_action
        legal = np.ones_like(self.parallel._state.legal)
        legal[0, seat] = self.parallel._state.legal[0, seat]
        illegal.settle_joint(self.rules, legal, probe, self.parallel.illegal_action)
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

    @property
    def state_space(self) -> spaces.Box:
        """PettingZoo's ``state_space``: the parallel env's (see :meth:`state`)."""
        return self.parallel.state_space

    def state(self) -> np.ndarray:
        """PettingZoo's ``state()``: the parallel env's, the whole game as it
        stands before the tick -- the actions submitted for the tick so far
        are not in it (as in no observation: they are played together)."""
        return self.parallel.state()
