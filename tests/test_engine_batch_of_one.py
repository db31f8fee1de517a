"""The vector engine at batch 1 steps in one call of the rules where the
game has one (``VectorEnv.step``'s, ``SimultaneousVectorEnv._tick_one``),
with none of the batch machinery: it must give exactly what the batched
path gives -- observations, rewards, terminations, infos (final
observations and scores included), state dicts -- over many seeds and
through the automatic resets, and leave errors and forfeits to the batched
path (same exceptions, nothing changed)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from helpers import digest_into

import cardenvs.vector as V
from cardenvs.core.errors import IllegalActionError
from cardenvs.registry import GAMES

# Short games: many resets in a few hundred steps.
SHORT = {
    "pepper_v0": {"max_hands": 1},
    "cancellation_hearts_v0": {"max_hands": 1, "passing": "none"},
    "push_v0": {"rounds": [1], "max_turns": 10},
    "spit_v0": {"max_ticks": 40},
}
CASES = [(name, SHORT.get(name, {})) for name in GAMES] + [
    ("pepper_v0", {"num_players": 2, "all_pass": "redeal", "max_hands": 2}),
    ("spit_v0", {"variant": "speed", "max_ticks": 60}),
    ("spit_v0", {"max_ticks": 40, "obs_dtype": "float32"}),
    ("pepper_v0", {"max_hands": 1, "rng": "per_game"}),
    ("cancellation_hearts_v0", {"max_hands": 1, "passing": "none", "rng": "per_game"}),
    ("spit_v0", {"max_ticks": 40, "rng": "per_game"}),
]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in config.items())}" for name, config in CASES]


def batched(venv):
    """``venv`` stepping by the batched path only (what batch 1 did before)."""
    venv._one_path = False
    venv._tick_one = lambda *args: None
    return venv


def play(venv, seed: int, steps: int, bad: float = 0.0) -> tuple[list[str], int]:
    """Random play from ``reset(seed)``: a digest per step of what ``step``
    returned and the state dict; ``bad``: the share of random (often
    illegal) actions, whose errors are digested too."""
    rng = np.random.default_rng(seed)
    out = venv.reset(seed=seed)
    digests, finished = [], 0
    for _ in range(steps):
        h = hashlib.sha256()
        mask = out[-1]["action_mask"]
        actions = (rng.random(mask.shape) * mask).argmax(-1)
        if bad and rng.random() < bad:
            actions = rng.integers(-1, mask.shape[-1] + 1, actions.shape)
        try:
            out = venv.step(actions)
        except IllegalActionError as exc:
            h.update(str(exc).encode())
        else:
            finished += int(np.count_nonzero(out[2] | out[3]))
        digest_into(out, h)
        digest_into(venv.state_dict(0), h)
        digests.append(h.hexdigest())
    return digests, finished


@pytest.mark.parametrize(("name", "config"), CASES, ids=IDS)
def test_batch_of_one_is_the_batched_path(name, config):
    finished = 0
    for seed in range(6):
        one = V.make(name, num_envs=1, **config)
        reference, ended = play(batched(V.make(name, num_envs=1, **config)), seed, 150)
        got, _ = play(one, seed, 150)
        first = next((t for t, (a, b) in enumerate(zip(reference, got)) if a != b), None)
        assert first is None, f"seed {seed}: step {first} differs from the batched path"
        finished += ended
    assert finished >= 6  # games ended and were reset


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("illegal", ["raise", "terminate"])
def test_batch_of_one_errors_and_forfeits_are_the_batched_paths(name, illegal):
    config = {**SHORT.get(name, {}), "illegal_action": illegal}
    for seed in range(3):
        reference, _ = play(batched(V.make(name, num_envs=1, **config)), seed, 120, bad=0.15)
        assert play(V.make(name, num_envs=1, **config), seed, 120, bad=0.15)[0] == reference


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("actions", [[1.0], np.array([True]), np.zeros((1, 1, 1), np.int64), "0", None])
def test_batch_of_one_refuses_what_the_batched_path_refuses(name, actions):
    venv = V.make(name, num_envs=1, seed=0)
    venv.reset()
    before = venv.state_dict(0)
    if isinstance(actions, np.ndarray) and actions.dtype == np.int64 and GAMES[name].simultaneous:
        actions = actions[0, 0]  # (shape (1,) for a game of (1, 2) actions)
    with pytest.raises((TypeError, ValueError)):
        venv.step(actions)
    assert venv.state_dict(0) == before


@pytest.mark.parametrize("name", ["pepper_v0", "spit_v0"])
def test_batch_of_one_steps_in_one_rules_call(name, monkeypatch):
    """A game with a one-call step (``rules.step_one``) is stepped by it at
    batch 1: the batched step and the row shards are not used."""
    venv = V.make(name, num_envs=1, seed=0)
    _, info = venv.reset()
    rules = type(venv.rules)
    calls = []
    monkeypatch.setattr(rules, "step", lambda *a, **k: calls.append("step"))
    rng = np.random.default_rng(0)
    for _ in range(50):
        mask = info["action_mask"]
        info = venv.step((rng.random(mask.shape) * mask).argmax(-1))[-1]
    assert calls == []
