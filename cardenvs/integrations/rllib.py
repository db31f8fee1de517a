"""Ray RLlib (new API stack) for every cardenvs game, with no user fixes.

>>> from cardenvs.integrations.rllib import ppo_config
>>> algo = ppo_config("pepper_v0", num_env_runners=2).build_algo()
>>> result = algo.train()

What it gives:

- :class:`CardGameEnv`: one game as an RLlib ``MultiAgentEnv``
  (``make_env(name, **config)``, or ``config.environment(CardGameEnv,
  env_config={"game": name, **config})``).  Observations are
  ``{"observations": float32 Box, "action_mask": float32 Box(0, 1)}``: the
  keys and dtypes RLlib's action-masking RLModule
  (``ray.rllib.examples.rl_modules.classes.action_masking_rlm``) expects.
  Illegal actions end the game with -1 for the offender
  (``illegal_action="terminate"``), so RLlib's env pre-check (which steps
  unmasked random actions) passes.  Turn-based games (Pepper, Cancellation
  Hearts, Push) hand out only the acting seat's observation each step;
  every seat's reward of a step is reported to it (RLlib adds a reward that
  arrives between two of an agent's turns to its pending action), and at
  the end of a game every seat gets its final observation (mask all zeros:
  nothing is legal) and reward.  Spit: both seats observe and act every
  tick, one multi-agent step per tick.
- :class:`CardVectorMultiAgentEnv`: ``num_envs`` games stepped at once by
  the vector engine (:func:`cardenvs.vector.make`), behind RLlib's
  ``VectorMultiAgentEnv`` interface with its ``"next_step"`` autoreset
  (RLlib's env runner expects a finished game's slot to hand out the new
  game's first observation on the *next* step).
- :class:`CardEnvRunner`: RLlib's ``MultiAgentEnvRunner`` whose env is a
  :class:`CardVectorMultiAgentEnv` of ``num_envs_per_env_runner`` games
  (RLlib's own runner would build that many separate one-game envs and step
  them one after another in Python).
- :func:`ppo_config`: shared-policy PPO (every seat maps to one module)
  with the action-masking RLModule, on :class:`CardEnvRunner`.

The vector engine's games reset themselves in the step that ends them
(same-step autoreset); RLlib wants the new game one step later.  The
adapter therefore leaves a finished row out of the next engine step
(``step(actions, rows=...)``, turn-based and simultaneous engines alike)
and hands out its new game's first observation then.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

try:
    from ray.rllib.callbacks.utils import make_callback
    from ray.rllib.env.env_context import EnvContext
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
    from ray.rllib.env.vector.vector_multi_agent_env import VectorMultiAgentEnv
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "cardenvs.integrations.rllib needs Ray RLlib: pip install 'cardenvs[rllib]' (see docs/rllib.md)"
    ) from exc

import cardenvs
import cardenvs.vector
from cardenvs.registry import spec

__all__ = [
    "OBS_KEY",
    "MASK_KEY",
    "SHARED_POLICY",
    "CardGameEnv",
    "CardVectorMultiAgentEnv",
    "CardEnvRunner",
    "make_env",
    "register",
    "shared_policy",
    "ppo_config",
]

OBS_KEY = "observations"  # the keys of RLlib's action-masking RLModule
MASK_KEY = "action_mask"
SHARED_POLICY = "shared"


def _game_config(config: dict[str, Any]) -> dict[str, Any]:
    """The engine config for RLlib: ``illegal_action="terminate"`` unless
    another non-raising mode is asked for, ``obs_dtype="float32"`` always."""
    config = dict(config)
    if config.get("illegal_action", "terminate") == "raise":
        raise ValueError(
            "illegal_action='raise' cannot run under RLlib (its env pre-check steps unmasked random actions); "
            "use 'terminate' (the default here)"
        )
    config.setdefault("illegal_action", "terminate")
    if config.setdefault("obs_dtype", "float32") != "float32":
        raise ValueError(f"obs_dtype must be 'float32' under RLlib, got {config['obs_dtype']!r}")
    return config


def _split_env_config(env_config: Any, env: Any = None) -> tuple[str, dict[str, Any]]:
    """``(game, config)`` from an RLlib ``env_config`` (``{"game": name,
    **config}``); a name registered by :func:`register` also names the game."""
    config = dict(env_config or {})
    game = config.pop("game", None)
    if game is None and isinstance(env, str) and env.startswith("cardenvs_"):
        game = env[len("cardenvs_") :]
    if game is None:
        raise ValueError(f"env_config needs 'game', one of {list(cardenvs.GAMES)}; got {env_config!r}")
    return game, config


class _Games:
    """``num_envs`` games of one engine, in RLlib's per-row multi-agent dicts.

    After :meth:`reset`, :meth:`step` takes one ``{agent: action}`` dict per
    row and returns lists (one per row) of observations, rewards,
    terminateds, truncateds and infos, with RLlib's ``"next_step"``
    autoreset: a row whose game ended is handed its new game's first
    observation at the next step (its actions, an empty dict, are ignored).
    """

    def __init__(self, game: str, num_envs: int, seed: int | None = None, **config: Any):
        self.game = game
        self.simultaneous = spec(game).simultaneous
        self.config = _game_config(config)
        self.engine = cardenvs.vector.make(game, num_envs, seed, **self.config)
        self.num_envs = self.engine.num_envs
        self.num_players = self.engine.num_players
        self.num_actions = self.engine.num_actions
        self.agents = [f"player_{i}" for i in range(self.num_players)]
        box = self.engine.single_observation_space
        self.observation_space = gym.spaces.Dict(
            {
                OBS_KEY: gym.spaces.Box(box.low, box.high, box.shape, np.float32),
                MASK_KEY: gym.spaces.Box(0.0, 1.0, (self.num_actions,), np.float32),
            }
        )
        self.action_space = gym.spaces.Discrete(self.num_actions)
        self.pending = np.zeros(self.num_envs, bool)  # rows whose new game is handed out next step
        self._no_mask = np.zeros(self.num_actions, np.float32)

    # ------------------------------------------------------------ helpers
    def _take(self, obs: np.ndarray, info: dict) -> None:
        self._obs = obs
        self._mask = np.asarray(info["action_mask"], np.float32)
        self._current = info.get("current_player")

    def _row_obs(self, i: int) -> dict[str, dict[str, np.ndarray]]:
        if self.simultaneous:
            return {a: {OBS_KEY: self._obs[i, p], MASK_KEY: self._mask[i, p]} for p, a in enumerate(self.agents)}
        return {self.agents[self._current[i]]: {OBS_KEY: self._obs[i], MASK_KEY: self._mask[i]}}

    def _actions(self, actions: list[dict[str, Any]]) -> np.ndarray:
        if len(actions) != self.num_envs:
            raise ValueError(f"expected {self.num_envs} action dicts (one per game), got {len(actions)}")
        acts = np.zeros(self.engine.batch_shape, np.int64)  # (a waiting row's actions are not looked at)
        for i, act in enumerate(actions):
            if self.pending[i]:
                continue
            try:
                if self.simultaneous:
                    acts[i] = [act[a] for a in self.agents]
                else:
                    acts[i] = act[self.agents[self._current[i]]]
            except KeyError as exc:
                raise ValueError(f"game {i}: no action for {exc.args[0]} (got {act!r})") from exc
        return acts

    # ------------------------------------------------------------ API
    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[list, list]:
        obs, info = self.engine.reset(seed=seed, options=options or None)
        self._take(obs, info)
        self.pending[:] = False
        return [self._row_obs(i) for i in range(self.num_envs)], [{} for _ in range(self.num_envs)]

    def step(self, actions: list[dict[str, Any]]) -> tuple[list, list, list, list, list]:
        acts = self._actions(actions)
        pending = self.pending.copy()
        rows = np.flatnonzero(~pending) if pending.any() else None  # (the waiting rows are not stepped)
        obs, rewards, terminated, truncated, info = self.engine.step(acts, rows=rows)
        self._take(obs, info)
        done = terminated | truncated
        final_obs = info.get("final_obs")
        rewards = rewards.tolist()
        out_obs, out_rew, out_term, out_trunc = [], [], [], []
        for i in range(self.num_envs):
            if pending[i]:  # RLlib's reset step of this row: the new game's first observation
                out_obs.append(self._row_obs(i))
                out_rew.append({})
                out_term.append({"__all__": False})
                out_trunc.append({"__all__": False})
            elif done[i]:  # the game ended: every seat's last view and reward
                term = bool(terminated[i])
                trunc = bool(truncated[i]) and not term
                seen = final_obs[i]
                out_obs.append({a: {OBS_KEY: seen[p], MASK_KEY: self._no_mask} for p, a in enumerate(self.agents)})
                out_rew.append(dict(zip(self.agents, rewards[i])))
                out_term.append({**dict.fromkeys(self.agents, term), "__all__": term})
                out_trunc.append({**dict.fromkeys(self.agents, trunc), "__all__": trunc})
            else:
                out_obs.append(self._row_obs(i))
                out_rew.append(dict(zip(self.agents, rewards[i])))
                out_term.append({"__all__": False})
                out_trunc.append({"__all__": False})
        self.pending = done
        return out_obs, out_rew, out_term, out_trunc, [{} for _ in range(self.num_envs)]


class CardGameEnv(MultiAgentEnv):
    """One game of ``config["game"]`` as an RLlib ``MultiAgentEnv``.

    ``config``: ``{"game": "pepper_v0", **game_options}`` (an RLlib
    ``env_config``); options as in :func:`cardenvs.make`, with
    ``illegal_action="terminate"`` and ``obs_dtype="float32"`` set for you.
    ``agents`` stays every seat for the whole game (RLlib's pre-check checks
    the keys a step returns against it).
    """

    metadata = {"render_modes": []}

    def __init__(self, config: dict | None = None):
        game, options = _split_env_config(config)
        self._games = _Games(game, 1, **options)
        super().__init__()
        self.game = game
        self.possible_agents = list(self._games.agents)
        self.agents = list(self.possible_agents)
        self.observation_spaces = dict.fromkeys(self.agents, self._games.observation_space)
        self.action_spaces = dict.fromkeys(self.agents, self._games.action_space)
        self._over = True

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, infos = self._games.reset(seed, options)
        self._over = False
        return obs[0], infos[0]

    def step(self, action_dict: dict[str, Any]):
        if self._over:
            raise RuntimeError("call reset() first (the game is over or never started)")
        obs, rewards, terms, truncs, infos = self._games.step([action_dict])
        self._over = terms[0]["__all__"] or truncs[0]["__all__"]
        return obs[0], rewards[0], terms[0], truncs[0], infos[0]

    def state_dict(self) -> dict[str, Any]:
        """The game's full state (hidden cards included; for logs and tests).
        Once a game has ended the engine has already dealt the next one: this
        is that game's state."""
        return self._games.engine.state_dict(0)

    def close(self) -> None:
        self._games.engine.close()


def make_env(name: str, **config: Any) -> CardGameEnv:
    """One game of ``name`` as an RLlib ``MultiAgentEnv`` (see :class:`CardGameEnv`)."""
    return CardGameEnv({"game": name, **config})


class _RowSpaces(MultiAgentEnv):
    """What RLlib's env runner reads of one sub-env of a vector env (spaces,
    agents); the games themselves are stepped by the vector engine."""

    def __init__(self, games: _Games):
        super().__init__()
        self.possible_agents = list(games.agents)
        self.agents = list(games.agents)
        self.observation_spaces = dict.fromkeys(self.agents, games.observation_space)
        self.action_spaces = dict.fromkeys(self.agents, games.action_space)

    def reset(self, *, seed=None, options=None):  # pragma: no cover - not an env of its own
        raise NotImplementedError("a row of CardVectorMultiAgentEnv is stepped by the vector env")

    def step(self, action_dict):  # pragma: no cover
        raise NotImplementedError("a row of CardVectorMultiAgentEnv is stepped by the vector env")


class CardVectorMultiAgentEnv(VectorMultiAgentEnv):
    """``num_envs`` games of ``game`` stepped together by the vector engine,
    as RLlib's ``VectorMultiAgentEnv`` (``"next_step"`` autoreset).

    ``reset(seed)`` -> (one observation dict per game, one info dict per
    game); ``step([{agent: action}, ...])`` -> lists of per-game dicts, as
    RLlib's ``SyncVectorMultiAgentEnv`` returns them."""

    def __init__(self, game: str, num_envs: int = 1, seed: int | None = None, **config: Any):
        super().__init__()
        self._games = _Games(game, num_envs, seed, **config)
        self.game = game
        self.num_envs = self._games.num_envs
        self.metadata = {"autoreset_mode": "next_step"}
        self.possible_agents = list(self._games.agents)
        self.single_observation_spaces = dict.fromkeys(self.possible_agents, self._games.observation_space)
        self.single_action_spaces = dict.fromkeys(self.possible_agents, self._games.action_space)
        self.single_observation_space = gym.spaces.Dict(self.single_observation_spaces)
        self.single_action_space = gym.spaces.Dict(self.single_action_spaces)
        row = _RowSpaces(self._games)
        self.envs = [row] * self.num_envs

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed, options=options)
        return self._games.reset(seed, options)

    def step(self, actions: list[dict[str, Any]]):
        return self._games.step(actions)

    def render(self):
        return None

    def close_extras(self, **kwargs: Any) -> None:
        self._games.engine.close()


class CardEnvRunner(MultiAgentEnvRunner):
    """RLlib's multi-agent env runner with one vector engine of
    ``num_envs_per_env_runner`` games as its env (``env_config``:
    ``{"game": name, **options}``).  Use it with
    ``config.env_runners(env_runner_cls=CardEnvRunner)``."""

    def make_env(self) -> None:
        if self.env is not None:
            self.env.close()
            self.env = None
        env_ctx = self.config.env_config
        if not isinstance(env_ctx, EnvContext):
            env_ctx = EnvContext(
                env_ctx,
                worker_index=self.worker_index,
                num_workers=self.config.num_env_runners,
                remote=self.config.remote_worker_envs,
            )
        game, options = _split_env_config(env_ctx, self.config.env)
        self.env = CardVectorMultiAgentEnv(game, num_envs=self.config.num_envs_per_env_runner, **options)
        self.num_envs = self.env.num_envs
        if not self.config.disable_env_checking:  # RLlib's pre-check, on one game of the same config
            probe = make_env(game, **options)
            check_multiagent_environments(probe)
            probe.close()
        self._needs_initial_reset = True
        make_callback(
            "on_environment_created",
            callbacks_objects=self._callbacks,
            callbacks_functions=self.config.callbacks_on_environment_created,
            kwargs=dict(
                env_runner=self,
                metrics_logger=self.metrics,
                env=self.env.unwrapped,
                env_context=env_ctx,
            ),
        )


def register(games: list[str] | None = None) -> list[str]:
    """Register ``"cardenvs_<game>"`` with Ray Tune's env registry for each
    game (default: all), so ``config.environment("cardenvs_pepper_v0",
    env_config={...game options...})`` works; returns the names."""
    from ray.tune.registry import register_env

    names = []
    for game in games or cardenvs.GAMES:
        spec(game)  # ValueError for an unknown game
        register_env(f"cardenvs_{game}", lambda cfg, game=game: CardGameEnv({"game": game, **dict(cfg or {})}))
        names.append(f"cardenvs_{game}")
    return names


def shared_policy(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """Policy mapping: every seat plays the one shared module."""
    return SHARED_POLICY


def ppo_config(
    game: str,
    *,
    env_config: dict[str, Any] | None = None,
    num_env_runners: int = 2,
    num_envs_per_env_runner: int = 16,
    vectorised: bool = True,
    model_config: dict[str, Any] | None = None,
    seed: int | None = None,
):
    """A ``PPOConfig`` for ``game``: every seat maps to one shared module,
    RLlib's action-masking RLModule (``ActionMaskingTorchRLModule``),
    ``num_env_runners`` env runners each stepping ``num_envs_per_env_runner``
    games through the vector engine (:class:`CardEnvRunner`; with
    ``vectorised=False`` RLlib's own runner and one :class:`CardGameEnv` per
    game).  Chain ``.training(...)``, ``.learners(...)`` etc. on the result."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    spec(game)  # ValueError for an unknown game
    runners: dict[str, Any] = {
        "num_env_runners": num_env_runners,
        "num_envs_per_env_runner": num_envs_per_env_runner,
    }
    if vectorised:
        runners["env_runner_cls"] = CardEnvRunner
    module = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config=model_config or {"fcnet_hiddens": [256, 256], "fcnet_activation": "relu"},
    )
    return (
        PPOConfig()
        .environment(CardGameEnv, env_config={"game": game, **(env_config or {})})
        .env_runners(**runners)
        .multi_agent(policies={SHARED_POLICY}, policy_mapping_fn=shared_policy)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={SHARED_POLICY: module}))
        .debugging(seed=seed)
    )
