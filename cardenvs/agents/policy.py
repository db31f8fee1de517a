"""Agents that play a trained MaskablePPO policy (the ``train`` extra:
torch, stable-baselines3, sb3-contrib), and loading and saving policies.

Loading never unpickles anything, whichever kind the file is (a cardenvs
policy file or an SB3 zip): see :mod:`cardenvs.agents.checkpoint`."""

from __future__ import annotations

import os
import pathlib
from typing import Any

import numpy as np

from ..core.agent import Agent
from .advice import advice_size, advised_observation
from .checkpoint import (
    HYPER,
    SUFFIX,
    TRAIN_EXTRA,
    Checkpoint,
    CheckpointError,
    read_checkpoint,
    train_extra,
)
from .checkpoint_write import write_policy_file

__all__ = [
    "TRAIN_EXTRA",
    "CheckpointError",
    "FrozenPolicyAgent",
    "PolicyAgent",
    "PolicyModel",
    "load_model",
    "load_policy",
    "one_torch_thread",
    "save_policy",
    "save_trained",
]


class PolicyModel:
    """A saved policy loaded to play: just what :class:`PolicyAgent` needs of
    a model (``policy``, ``observation_space``, ``action_space``,
    :meth:`predict`), and what :func:`save_policy` writes again."""

    def __init__(self, policy: Any, checkpoint: Checkpoint):
        self.policy = policy
        self.path = checkpoint.path
        self.observation_space = checkpoint.observation_space
        self.action_space = checkpoint.action_space
        self.policy_kwargs = checkpoint.policy_kwargs
        self.hyperparameters = dict(checkpoint.hyperparameters)
        self.num_timesteps = checkpoint.num_timesteps

    def predict(self, observation: Any, action_masks: Any = None, deterministic: bool = True) -> tuple[Any, Any]:
        return self.policy.predict(observation, action_masks=action_masks, deterministic=deterministic)


def _check_shapes(ck: Checkpoint, expected: dict[str, tuple[int, ...]]) -> None:
    """A CheckpointError unless ``ck``'s weights are exactly the names and
    shapes ``expected`` (a policy's, by its state dict)."""
    missing = sorted(set(expected) - set(ck.weights))
    extra = sorted(set(ck.weights) - set(expected))
    if missing or extra:
        raise ck.error(f"its weights are not those of its policy: missing {missing[:4]}, unexpected {extra[:4]}")
    for name, want in expected.items():
        got = tuple(ck.weights[name].shape)
        if got != want:
            raise ck.error(f"the weight {name} has shape {got}; its policy's is {want}")


def _check_sizes(ck: Checkpoint, rate: float) -> None:
    """``ck``'s policy built without storage (torch's ``meta`` device: no
    memory, no initialisation) and its weights' names and shapes compared
    with those the file holds: a description of layers larger than its
    weights is refused before anything of their sizes is allocated."""
    import torch as th

    # (SB3 moves modules to the policy's device, the CPU when it has no parameter yet: meta here)
    probe_class = type("SizeProbe", (ck.policy_class,), {"device": property(lambda self: th.device("meta"))})
    spaces = (ck.observation_space, ck.action_space)
    with th.device("meta"):
        probe = _built(ck, lambda: probe_class(*spaces, lambda _: rate, **ck.policy_kwargs))
    _check_shapes(ck, {name: tuple(t.shape) for name, t in probe.state_dict().items()})


def _load_weights(ck: Checkpoint, policy: Any) -> None:
    """``ck``'s weights into ``policy``, after checking they are exactly its
    parameters, of its shapes (a CheckpointError naming what differs)."""
    import torch as th

    expected = policy.state_dict()
    _check_shapes(ck, {name: tuple(t.shape) for name, t in expected.items()})
    state = {}
    for name in expected:
        value = ck.weights[name]
        if isinstance(value, np.ndarray):
            if value.dtype.kind not in "fiub":
                raise ck.error(f"the weight {name} is of dtype {value.dtype}, not a number")
            value = th.from_numpy(np.array(value, order="C"))  # (a copy: ascontiguousarray would make a 0-d array 1-d)
        state[name] = value
    policy.load_state_dict(state, strict=True)


def _built(ck: Checkpoint, build: Any) -> Any:
    """``build()``, its errors (options the classes refuse) a CheckpointError."""
    try:
        return build()
    except CheckpointError:
        raise
    except Exception as e:  # noqa: BLE001 (whatever the policy's classes raise for options that do not fit)
        raise ck.error(f"its policy cannot be built from its options ({type(e).__name__}: {e})") from e


def load_policy(path: str | pathlib.Path) -> PolicyModel:
    """The policy saved at ``path`` (a cardenvs policy file or an SB3 zip),
    to play, on the CPU, loaded without unpickling anything; a
    :class:`CheckpointError` (a ValueError) naming the file and the fault
    for a file that is not a sound checkpoint."""
    train_extra()
    ck = read_checkpoint(path)
    rate = ck.hyperparameters.get("learning_rate")
    rate = float(rate) if isinstance(rate, (int, float)) else 0.0  # (the optimizer a policy builds; not used to play)
    spaces = (ck.observation_space, ck.action_space)
    _check_sizes(ck, rate)
    policy = _built(ck, lambda: ck.policy_class(*spaces, lambda _: rate, **ck.policy_kwargs))
    _load_weights(ck, policy)
    policy.set_training_mode(False)
    return PolicyModel(policy, ck)


def load_model(path: str | pathlib.Path, env: Any = None) -> Any:
    """The checkpoint at ``path`` as a ``MaskablePPO`` to train on (with
    ``env``, whose spaces must be the checkpoint's), on the CPU, built from
    its recorded hyper-parameters without unpickling anything.  An SB3 zip
    brings its optimizer's state; a policy file starts a fresh one."""
    train_extra()
    from sb3_contrib import MaskablePPO

    ck = read_checkpoint(path)
    if ck.unknown:
        raise ck.error(
            f"its {', '.join(ck.unknown)} are stored only as pickles, which cardenvs does not run: "
            "it can be played (load_policy, make_agent) but not trained on"
        )
    if env is not None:
        obs, act = env.observation_space, env.action_space
        if obs.shape != ck.observation_space.shape or getattr(act, "n", None) != ck.action_space.n:
            raise ck.error(
                f"a policy of {ck.observation_space.shape} observations and {ck.action_space.n} actions; "
                f"the env has {obs.shape} and {getattr(act, 'n', act)}"
            )
    hyper = dict(ck.hyperparameters)
    rate = hyper.get("learning_rate")
    _check_sizes(ck, float(rate) if isinstance(rate, (int, float)) else 0.0)

    def build() -> Any:
        model = MaskablePPO(
            ck.policy_class, env, policy_kwargs=dict(ck.policy_kwargs), device="cpu", _init_setup_model=False, **hyper
        )
        if env is None:
            model.observation_space, model.action_space, model.n_envs = ck.observation_space, ck.action_space, 1
        model._setup_model()
        return model

    model = _built(ck, build)
    _load_weights(ck, model.policy)
    if ck.optimizer is not None:
        try:
            model.policy.optimizer.load_state_dict(ck.optimizer)
        except (ValueError, KeyError, RuntimeError, TypeError) as e:
            raise ck.error(f"its optimizer's state does not fit its policy ({e})") from e
    model.num_timesteps = ck.num_timesteps
    return model


def save_policy(model: Any, path: str | pathlib.Path) -> pathlib.Path:
    """Save ``model``'s policy (a ``MaskablePPO`` or a :class:`PolicyModel`)
    as a cardenvs policy file at ``path``: its weights as numpy arrays, its
    class, options, spaces and PPO's hyper-parameters as JSON (see
    :mod:`cardenvs.agents.checkpoint`).  It loads without unpickling
    anything, to play or to train on (with a fresh optimizer)."""
    if isinstance(model, PolicyModel):
        hyper = model.hyperparameters
    else:
        hyper = {k: getattr(model, "_stats_window_size" if k == "stats_window_size" else k) for k in HYPER}
    return write_policy_file(
        path,
        model.policy,
        model.policy_kwargs,
        model.observation_space,
        model.action_space,
        hyper,
        model.num_timesteps,
    )


def save_trained(model: Any, path: str | pathlib.Path) -> pathlib.Path:
    """Where training saves a model: an SB3 zip (``MaskablePPO.save``, with
    the optimizer's state, to train on) when ``path`` ends in ``.zip``, else
    a cardenvs policy file (``.npz`` added to a path without a suffix)."""
    path = pathlib.Path(path)
    if path.suffix == ".zip":
        path.parent.mkdir(parents=True, exist_ok=True)
        model.save(str(path))
        return path
    return save_policy(model, path if path.suffix else path.with_suffix(SUFFIX))


def one_torch_thread() -> None:
    """Run torch on one thread (if torch is installed).  A policy plays small
    batches, and on shared cores torch's spinning OpenMP threads made Push's
    evaluation many times slower; the training loop and the engine share
    two cores the same way."""
    try:
        import torch
    except ImportError:  # pragma: no cover - only without the train extra
        return
    torch.set_num_threads(1)


class PolicyAgent(Agent):
    """A trained (sb3-contrib) MaskablePPO policy as an agent.

    ``model`` is a ``MaskablePPO``, a :class:`PolicyModel` or the path of a
    saved policy (loaded by :func:`load_policy`, without unpickling).  It plays its
    most likely action by default (``deterministic=True``): sampling would
    now and then pick a wild bid, which costs far more than predictability.
    A rule-advised model (:mod:`cardenvs.agents.advice`) needs its ``advisor``, the
    game's rule-based agent (``cardenvs.agents.registry.make_agent`` passes it).

    Observation layouts only ever grow at the end (0.2 appended each game's
    "left before the cap" field): a model trained on a shorter observation
    reads the first entries, the ones it was trained on.
    """

    def __init__(self, model: Any, deterministic: bool = True, name: str = "ppo", advisor: Agent | None = None):
        if isinstance(model, (str, bytes)) or hasattr(model, "__fspath__"):
            model = load_policy(os.fsdecode(model))
        self.model = model
        self.deterministic = deterministic
        self.name = name
        self.advisor = advisor
        if advice_size(model) and advisor is None:
            raise ValueError("this model was trained with rule advice: pass advisor=<the game's rule agent>")
        space = getattr(model, "observation_space", None)
        # the observation entries the model was trained on (None: not known, e.g. a frozen snapshot)
        self.obs_width = space.shape[-1] - advice_size(model) if space is not None and space.shape else None

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = np.asarray(mask, bool)
        obs = np.asarray(obs)
        if self.obs_width is not None and obs.shape[-1] > self.obs_width:
            obs = obs[..., : self.obs_width]  # a model trained before the layout grew (see the class doc)
        if self.advisor is not None:
            obs = advised_observation(self.advisor, obs, mask)
        actions, _ = self.model.predict(
            np.asarray(obs, np.float32), action_masks=mask, deterministic=self.deterministic
        )
        return np.asarray(actions, np.int64)


class FrozenPolicyAgent(PolicyAgent):
    """A snapshot of a learner's policy for self-play: its weights are copied
    at :meth:`update` and stay fixed while the learner trains on."""

    def __init__(self, learner: Any, name: str = "snapshot", advisor: Agent | None = None):
        self.learner = learner
        # A fresh policy of the same architecture (deepcopy fails on policies
        # whose tensors are not graph leaves mid-training).
        policy = learner.policy.__class__(**learner.policy._get_constructor_parameters())
        policy.load_state_dict(learner.policy.state_dict())
        policy.set_training_mode(False)

        class _Model:  # just enough of a model for PolicyAgent.act_batch
            def __init__(self, policy):
                self.policy = policy  # (its advice_size tells PolicyAgent whether it needs the advisor)

            def predict(self, obs, action_masks=None, deterministic=False):
                return self.policy.predict(obs, action_masks=action_masks, deterministic=deterministic)

        # sampled, not greedy: self-play opponents should vary their play
        super().__init__(_Model(policy), deterministic=False, name=name, advisor=advisor)

    def update(self) -> None:
        """Copy the learner's current weights into the snapshot."""
        self.model.policy.load_state_dict(self.learner.policy.state_dict())
