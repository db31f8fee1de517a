"""TorchRL: every cardenvs game as one batched ``EnvBase`` over the vector engine.

>>> from cardenvs.integrations.torchrl import make_env
>>> env = make_env("pepper_v0", num_envs=64, seed=0)
>>> rollout = env.rollout(100, break_when_any_done=False)  # masked random play

TorchRL's ``PettingZooWrapper`` steps one game at a time in Python; this env
steps ``num_envs`` games per call through :func:`cardenvs.vector.make` and
lays them out in TorchRL's multi-agent convention (the one ``PettingZooWrapper``
and BenchMARL use), with every seat in one group, ``"player"``, so one
network (e.g. ``MultiAgentMLP`` with shared parameters) plays every seat:

- ``("player", "observation")`` ``(num_envs, P, obs_size)`` float32: each
  seat's own view of its game (turn-based games too: the engine's
  ``observe(seats)`` for every seat, so a critic can read all of them).
- ``("player", "action_mask")`` ``(num_envs, P, n_actions)`` bool: the exact
  legal actions of a seat that acts; all True for a seat that does not (its
  action is ignored), as ``PettingZooWrapper`` does for AEC envs, so masked
  sampling of the whole ``(num_envs, P)`` action never meets an empty row.
- ``("player", "mask")`` ``(num_envs, P)`` bool: the seats that act now
  (turn-based: one per game; Spit: both; nobody in a finished game's last step).
- ``"current_player"`` ``(num_envs,)`` int64, turn-based games only: the seat
  to act (0 in a finished game's last step).
- ``("player", "action")`` ``(num_envs, P)``: a ``Categorical`` spec whose mask
  is updated every step, so ``env.rand_step()`` / ``env.rand_action()`` only
  play legal actions.  Only the acting seats' entries are played.
- ``("player", "reward")`` ``(num_envs, P, 1)``: what each seat earned on this
  step (the engine's per-seat rewards; a seat is paid on other seats' moves
  too, e.g. at the end of a game).
- ``"done"``/``"terminated"``/``"truncated"`` ``(num_envs, 1)`` and the same
  per seat under ``"player"`` ``(num_envs, P, 1)``: a game ends for every seat
  at once.
- ``("player", "illegal_waited")`` ``(num_envs, P)`` bool, Spit with
  ``illegal_action="wait"`` only: the seats whose illegal action was played
  as waiting on this step.  (An action id out of range is refused with
  ``IllegalActionError`` under every ``illegal_action``.)

Autoreset: the engine deals a finished game's successor within the step that
ends it.  This env hands out the finished game's last views (every seat's,
from ``info["final_obs"]``) with ``done`` set, keeps the new game, and gives
it out when TorchRL resets that row (``_reset`` with a ``"_reset"`` mask, as
``env.rollout(..., break_when_any_done=False)`` and the collectors do).  A
finished row that is stepped without a reset starts its new game then (its
action is ignored, reward 0).  Resetting rows whose games are still being
played cuts those games short and deals new ones there (the engine's
``restart``; the other games go on): what a time limit does,
``StepCounter(max_steps)`` truncating some rows (not on a process engine,
``num_processes > 1``: ValueError there; reset them all with ``env.reset()``).

Transforms: the action spec's mask is one tensor, updated in place and
shared by the spec's copies (:class:`LegalActions`), so a ``TransformedEnv``
(``StepCounter``, ``RewardSum``, ...) samples legal actions as the bare env
does; TorchRL's ``ActionMask`` transform is not needed.  A step without
``("player", "action")`` is a ValueError naming the key.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    import torch
    from tensordict import TensorDict, TensorDictBase
    from torchrl.data import Bounded, Categorical, Composite, Unbounded
    from torchrl.envs import EnvBase
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError("cardenvs.integrations.torchrl needs TorchRL: pip install 'cardenvs[torchrl]'") from exc

import cardenvs.vector
from cardenvs.registry import spec

__all__ = ["GROUP", "CardTorchRLEnv", "make_env"]

GROUP = "player"  # the one group of seats (PettingZooWrapper's default name for agents player_0, player_1, ...)
_DONE_KEYS = ("done", "terminated", "truncated")


def _engine_config(config: dict[str, Any]) -> dict[str, Any]:
    """The engine options: float32 observations always (networks read them;
    TorchRL specs have one dtype)."""
    config = dict(config)
    if config.setdefault("obs_dtype", "float32") != "float32":
        raise ValueError(f"obs_dtype must be 'float32' under TorchRL, got {config['obs_dtype']!r}")
    return config


class _Batch:
    """What the env shows of every game now (numpy): each seat's view, the
    action masks as handed out, the acting seats and the seat to act."""

    def __init__(self, views: np.ndarray, masks: np.ndarray, acting: np.ndarray, current: np.ndarray):
        self.views, self.masks, self.acting, self.current = views, masks, acting, current

    def copy(self) -> _Batch:
        return _Batch(self.views.copy(), self.masks.copy(), self.acting.copy(), self.current.copy())


class LegalActions(Categorical):
    """The action spec: a ``Categorical`` whose mask is the env's masks as
    handed out last.  The env writes each step's masks into that one tensor,
    and every copy of the spec shares it (``clone``: the copies a
    ``TransformedEnv`` keeps of its base env's specs), so ``rand_action``
    samples legal actions through any transform that leaves the action
    alone (``StepCounter``, ``RewardSum``, ...)."""

    def clone(self) -> LegalActions:
        return type(self)(n=self.space.n, shape=self.shape, device=self.device, dtype=self.dtype, mask=self.mask)


class CardTorchRLEnv(EnvBase):
    """``num_envs`` games of ``game`` as one TorchRL env, ``batch_size=[num_envs]``
    (keys and autoreset in the module docstring).  Options as in
    :func:`cardenvs.vector.make`; ``obs_dtype`` is float32 here."""

    def __init__(
        self, game: str, num_envs: int, seed: int | None = None, device: str | torch.device = "cpu", **config: Any
    ):
        self.game = game
        self.simultaneous = spec(game).simultaneous  # ValueError for an unknown game
        engine = cardenvs.vector.make(game, num_envs, seed, **_engine_config(config))
        super().__init__(device=device, batch_size=torch.Size([engine.num_envs]))
        self.engine = engine
        self.num_envs, self.num_players, self.num_actions = engine.num_envs, engine.num_players, engine.num_actions
        self._waits = engine.illegal_action == "wait"  # (Spit: an illegal action played as waiting, said per seat)
        self._rows = np.arange(self.num_envs)
        self._pending = np.zeros(self.num_envs, bool)  # finished rows whose new game is not handed out yet
        self._next_seed: int | None = None
        self._now: _Batch | None = None
        #: TorchRL's (and BenchMARL's) map of groups to agents: one group, every seat.
        self.group_map = {GROUP: [f"player_{p}" for p in range(self.num_players)]}
        self._make_specs()

    # ------------------------------------------------------------ specs
    def _make_specs(self) -> None:
        N, P, A = self.num_envs, self.num_players, self.num_actions
        box = self.engine.single_observation_space
        shape = (N, P, *box.shape)
        low = torch.as_tensor(box.low, dtype=torch.float32, device=self.device).expand(shape)
        high = torch.as_tensor(box.high, dtype=torch.float32, device=self.device).expand(shape)
        group = Composite(
            observation=Bounded(low, high, shape, dtype=torch.float32, device=self.device),
            action_mask=Categorical(2, (N, P, A), dtype=torch.bool, device=self.device),
            mask=Categorical(2, (N, P), dtype=torch.bool, device=self.device),
            shape=(N, P),
        )
        if self._waits:
            group["illegal_waited"] = Categorical(2, (N, P), dtype=torch.bool, device=self.device)
        observation = Composite({GROUP: group}, shape=(N,))
        if not self.simultaneous:
            observation["current_player"] = Categorical(P, (N,), dtype=torch.int64, device=self.device)
        self.observation_spec = observation
        self._legal = torch.ones((N, P, A), dtype=torch.bool, device=self.device)  # (written in place each step)
        action = LegalActions(A, (N, P), dtype=torch.int64, device=self.device, mask=self._legal)
        self.action_spec = Composite({GROUP: Composite(action=action, shape=(N, P))}, shape=(N,))
        reward = Unbounded((N, P, 1), dtype=torch.float32, device=self.device)
        self.reward_spec = Composite({GROUP: Composite(reward=reward, shape=(N, P))}, shape=(N,))

        def flags(*shape: int) -> dict[str, Categorical]:
            return {k: Categorical(2, shape, dtype=torch.bool, device=self.device) for k in _DONE_KEYS}

        self.done_spec = Composite({**flags(N, 1), GROUP: Composite(flags(N, P, 1), shape=(N, P))}, shape=(N,))

    # ------------------------------------------------------------ numpy side
    def _read(self, obs: np.ndarray, info: dict[str, Any]) -> _Batch:
        """The env's view of the engine's output: every seat's observation,
        masks (all True for a seat that does not act), acting seats."""
        N, P, A = self.num_envs, self.num_players, self.num_actions
        if self.simultaneous:
            acting = np.ones((N, P), bool)
            return _Batch(np.array(obs, np.float32), np.array(info["action_mask"], bool), acting, np.zeros(N, np.int64))
        current = np.asarray(info["current_player"], np.int64)
        views = np.stack([self.engine.observe(np.full(N, p)) for p in range(P)], axis=1, dtype=np.float32)
        masks = np.ones((N, P, A), bool)
        masks[self._rows, current] = info["action_mask"]
        acting = np.zeros((N, P), bool)
        acting[self._rows, current] = True
        return _Batch(views, masks, acting, current)

    def _finished(self, shown: _Batch, info: dict[str, Any], done: np.ndarray) -> None:
        """Puts the finished games' last views (every seat's) into ``shown``:
        nobody acts there."""
        for i in np.flatnonzero(done):
            shown.views[i] = info["final_obs"][i]
        shown.masks[done] = True
        shown.acting[done] = False
        shown.current[done] = 0

    # ------------------------------------------------------------ torch side
    def _tensordict(
        self, shown: _Batch, done: dict[str, np.ndarray], rewards: np.ndarray | None, waited: Any = None
    ) -> TensorDictBase:
        """The output tensordict (``waited``: the engine's ``illegal_waited``);
        also writes the masks shown into the action spec's, so ``rand_action``
        samples legal actions."""
        N, P = self.num_envs, self.num_players

        def t(a: np.ndarray) -> torch.Tensor:
            return torch.as_tensor(a, device=self.device)

        group: dict[str, torch.Tensor] = {
            "observation": t(shown.views),
            "action_mask": t(shown.masks),
            "mask": t(shown.acting),
        }
        if self._waits:
            group["illegal_waited"] = t(np.zeros((N, P), bool) if waited is None else np.asarray(waited, bool))
        out: dict[str, Any] = {}
        for key, flag in done.items():
            flag = t(flag).reshape(N, 1)
            out[key] = flag
            group[key] = flag.unsqueeze(1).expand(N, P, 1).clone()
        if rewards is not None:
            group["reward"] = t(rewards.astype(np.float32)).reshape(N, P, 1)
        out[GROUP] = TensorDict(group, batch_size=(N, P), device=self.device)
        if not self.simultaneous:
            out["current_player"] = t(shown.current)
        self._legal.copy_(group["action_mask"])  # (the action spec's mask, and every copy's: LegalActions)
        return TensorDict(out, batch_size=(N,), device=self.device)

    # ------------------------------------------------------------ EnvBase
    def _set_seed(self, seed: int | None) -> None:
        self._next_seed = seed  # the next full reset deals from it

    def _reset_rows(self, tensordict: TensorDictBase | None) -> np.ndarray | None:
        """The rows a partial reset asks for (any ``"_reset"`` key), or None for all."""
        if tensordict is None:
            return None
        found = [tensordict.get(key, None) for key in self.reset_keys]
        found = [f.reshape(self.num_envs, -1).any(-1).cpu().numpy() for f in found if f is not None]
        if not found:
            return None
        return np.logical_or.reduce(found)

    def _reset(self, tensordict: TensorDictBase | None = None, **kwargs: Any) -> TensorDictBase:
        rows = self._reset_rows(tensordict)
        if rows is None or self._now is None or (rows.all() and not self._pending.all()):
            seed, self._next_seed = self._next_seed, None
            obs, info = self.engine.reset(seed=seed)
            self._now = self._read(obs, info)
            self._pending[:] = False
        else:
            playing = np.flatnonzero(rows & ~self._pending)
            if playing.size:  # cut short (a time limit's truncation): new games there, the others untouched
                self._restart(playing)
            self._pending[rows] = False  # (the finished games' new games are already dealt)
        not_done = np.zeros(self.num_envs, bool)
        return self._tensordict(self._now.copy(), dict.fromkeys(_DONE_KEYS, not_done), None)

    def _restart(self, rows: np.ndarray) -> None:
        """New games in ``rows``, whose games are still being played."""
        restart = getattr(self.engine, "restart", None)
        if restart is None:
            raise ValueError(
                f"cannot cut short games still being played (rows {rows[:10].tolist()}) on a process engine "
                "(num_processes > 1): reset every game with env.reset(), or use one process"
            )
        self._now = self._read(*restart(rows))

    def _actions(self, tensordict: TensorDictBase) -> np.ndarray:
        """The ``(num_envs, P)`` actions of ``tensordict`` (ValueError naming the key if missing or misshapen)."""
        key, shape = (GROUP, "action"), (self.num_envs, self.num_players)
        action = tensordict.get(key, None)
        if action is None:
            raise ValueError(f"step needs the actions at {key!r}, shape {shape}; the tensordict has no such entry")
        if not isinstance(action, torch.Tensor) or action.numel() != self.num_envs * self.num_players:
            got = tuple(action.shape) if isinstance(action, torch.Tensor) else type(action).__name__
            raise ValueError(f"step needs the actions at {key!r}, shape {shape}; got {got}")
        return action.reshape(shape).cpu().numpy()

    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        if self._now is None:
            raise RuntimeError("call reset() before step()")
        actions = self._actions(tensordict)
        acts = actions if self.simultaneous else actions[self._rows, self._now.current]
        pending = self._pending.copy()
        waited = None
        if pending.all():  # every game is waiting to be handed out: nothing to play
            rewards = np.zeros((self.num_envs, self.num_players), np.float32)
            terminated = truncated = np.zeros(self.num_envs, bool)
            shown = self._now.copy()
        else:
            rows = np.flatnonzero(~pending) if pending.any() else None
            obs, rewards, terminated, truncated, info = self.engine.step(acts, rows=rows)
            waited = info.get("illegal_waited")
            self._now = shown = self._read(obs, info)
            if (terminated | truncated).any():  # (the new games stay in self._now for the reset)
                shown = self._now.copy()
                self._finished(shown, info, terminated | truncated)
        self._pending = terminated | truncated
        truncated = truncated & ~terminated
        flags = {"done": terminated | truncated, "terminated": terminated, "truncated": truncated}
        return self._tensordict(shown, flags, rewards, waited)

    def close(self, *, raise_if_closed: bool = True) -> None:
        self.engine.close()
        super().close(raise_if_closed=raise_if_closed)


def make_env(
    game: str, num_envs: int, seed: int | None = None, device: str | torch.device = "cpu", **config: Any
) -> CardTorchRLEnv:
    """``num_envs`` games of ``game`` as one batched TorchRL env (see
    :class:`CardTorchRLEnv`); ``config`` as in :func:`cardenvs.vector.make`."""
    return CardTorchRLEnv(game, num_envs, seed, device, **config)
