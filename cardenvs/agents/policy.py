"""Agents that play a trained MaskablePPO policy (the ``train`` extra:
torch, stable-baselines3, sb3-contrib), and loading saved models."""

from __future__ import annotations

import pathlib
from typing import Any

import numpy as np

from .advice import AdvisedPolicy, advice_size, advised_observation
from .base import Agent

TRAIN_EXTRA = "this needs the 'train' extra (torch, stable-baselines3, sb3-contrib): pip install 'cardenvs[train]'"


def load_model(path: str | pathlib.Path, env: Any = None) -> Any:
    """A saved MaskablePPO model, on the CPU.  Models saved while the agents
    were the top-level package ``agents`` (the committed baselines before
    0.2) name their policy class ``agents.advice.AdvisedPolicy``: it is
    mapped to :class:`cardenvs.agents.advice.AdvisedPolicy`."""
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:
        raise ImportError(TRAIN_EXTRA) from exc
    import json
    import zipfile

    with zipfile.ZipFile(path) as archive:
        data = json.loads(archive.read("data"))
    custom = {}
    if data.get("policy_class", {}).get("__module__") == "agents.advice":
        custom["policy_class"] = AdvisedPolicy
    return MaskablePPO.load(path, env=env, device="cpu", custom_objects=custom)


def one_torch_thread() -> None:
    """Run torch on one thread (if torch is installed).  A policy plays small
    batches, and on shared cores torch's spinning OpenMP threads made Push's
    evaluation 30x slower (87 against 2.6 CPU-seconds for 60 games, measured);
    the training loop and the engine share two cores the same way."""
    try:
        import torch
    except ImportError:  # pragma: no cover - only without the train extra
        return
    torch.set_num_threads(1)


class PolicyAgent(Agent):
    """A trained (sb3-contrib) MaskablePPO policy as an agent.

    ``model`` is a ``MaskablePPO`` or a path to a saved one.  It plays its
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
            model = load_model(model)
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
