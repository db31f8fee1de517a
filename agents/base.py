"""The agent interface shared by every game.

An agent maps observations and legal-action masks to actions, one game at a
time (:meth:`Agent.act`) or a batch at once (:meth:`Agent.act_batch`, used
with the vector engine).  Agents only ever return actions their mask allows.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class Agent:
    """Base class: implement :meth:`act_batch` (or :meth:`act`)."""

    name = "agent"

    def __init__(self) -> None:
        pass

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``obs`` (N, obs_size), ``mask`` (N, n_actions) -> actions (N,) int."""
        return np.array([self.act(o, m) for o, m in zip(obs, mask)], dtype=np.int64)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """One observation and its mask -> one legal action."""
        return int(self.act_batch(np.asarray(obs)[None], np.asarray(mask)[None])[0])

    def __repr__(self) -> str:
        return self.name


class RandomAgent(Agent):
    """Uniformly random among the legal actions (seeded)."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = np.asarray(mask, bool)
        if not mask.any(axis=-1).all():
            raise ValueError("a row of the mask has no legal action")
        return (self.rng.random(mask.shape) * mask).argmax(axis=-1)


class PolicyAgent(Agent):
    """A trained (sb3-contrib) MaskablePPO policy as an agent.

    ``model`` is a ``MaskablePPO`` or a path to a saved one.  It plays its
    most likely action by default (``deterministic=True``): sampling would
    now and then pick a wild bid, which costs far more than predictability.
    A rule-advised model (:mod:`agents.advice`) needs its ``advisor``, the
    game's rule-based agent (``agents.registry.make_agent`` passes it).
    """

    def __init__(self, model: Any, deterministic: bool = True, name: str = "ppo", advisor: Agent | None = None):
        if isinstance(model, (str, bytes)) or hasattr(model, "__fspath__"):
            from sb3_contrib import MaskablePPO

            model = MaskablePPO.load(model, device="cpu")
        self.model = model
        self.deterministic = deterministic
        self.name = name
        self.advisor = advisor
        from .advice import advice_size  # (agents.advice builds on this module)

        if advice_size(model) and advisor is None:
            raise ValueError("this model was trained with rule advice: pass advisor=<the game's rule agent>")

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = np.asarray(mask, bool)
        if self.advisor is not None:
            from .advice import advised_observation

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
