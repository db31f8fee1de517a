"""Test helpers shared by every game's tests (one module, so no test file
keeps its own copy): driving an AEC env by action texts, and checks every
turn-based game's property tests run."""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import signal
import sys
from types import ModuleType

import numpy as np
import pytest

import cardenvs
import cardenvs.vector as V
from cardenvs.registry import GAMES
from cardenvs.testing.common import digest_into  # noqa: F401 (the tests' digests are the kit's)


# --- an AEC env driven by action texts (rules tests from fixed deals) --------
def sd(env) -> dict:
    """The env's full state (``state_dict()``)."""
    return env.unwrapped.state_dict()


def seat(env) -> int:
    """The seat to act."""
    return int(env.agent_selection.rsplit("_", 1)[1])


def legal(env) -> set[str]:
    """The texts of the actions legal for the seat to act."""
    mask = env.observe(env.agent_selection)["action_mask"]
    return {env.unwrapped.action_to_str(int(a)) for a in np.flatnonzero(mask)}


def act(env, *texts: str) -> None:
    """Step the actions named by ``texts``, in order."""
    for t in texts:
        env.step(env.unwrapped.str_to_action(t))


def play_random(env, rng: np.random.Generator, seed: int, check, max_steps: int = 5000) -> int:
    """Play one game of the AEC ``env`` from ``reset(seed)`` with uniformly
    random legal actions, calling ``check(env, agent, obs, action)`` before
    every step; returns the number of actions taken."""
    env.reset(seed=seed)
    steps = 0
    for agent in env.agent_iter(max_iter=max_steps):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        check(env, agent, obs, a)
        env.step(a)
        steps += 1
    return steps


def check_vector_engine_rejects_illegal_actions(game: str, **config) -> None:
    """The vector engine refuses an illegal action in one row, a short action
    array and out-of-range ids, changing nothing, then steps legal ones."""
    venv = V.make(game, num_envs=4, seed=0, **config)
    _, info = venv.reset()
    legal_actions = info["action_mask"].argmax(1)
    bad = legal_actions.copy()
    bad[2] = np.flatnonzero(~info["action_mask"][2])[0]
    before = [json.dumps(venv.state_dict(i)) for i in range(4)]
    for wrong in (bad, legal_actions[:3], np.full(4, venv.num_actions), np.full(4, 2**40)):
        with pytest.raises(cardenvs.IllegalActionError):
            venv.step(wrong)
    assert [json.dumps(venv.state_dict(i)) for i in range(4)] == before
    venv.step(legal_actions)


def play_aec_and_vector_together(game: str, seed: int = 42, **config) -> tuple[np.ndarray, int, object]:
    """Play one game in the AEC env and in a batch of one of the vector
    engine, same seed and the same random actions, asserting at every step
    that both show the same seat to act, observation and mask, and that the
    game ends in both at once.  Returns the vector engine's summed rewards
    (after asserting the AEC env's sum is the same), the number of steps and
    the vector engine's last ``info``."""
    venv = V.make(game, num_envs=1, seed=seed, **config)
    vobs, info = venv.reset()
    env = cardenvs.make(game, **config)
    env.reset(seed=seed)
    n = venv.num_players
    rng = np.random.default_rng(1)
    totals = np.zeros(n)
    aec_totals = np.zeros(n)
    steps = 0
    while True:
        seat = int(env.agent_selection.split("_")[1])
        obs, _, term, _, _ = env.last()
        if term:
            break
        assert info["current_player"][0] == seat
        np.testing.assert_array_equal(obs["observation"], vobs[0])
        np.testing.assert_array_equal(obs["action_mask"].astype(bool), info["action_mask"][0])
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(a)
        steps += 1
        aec_totals += [env.rewards[f"player_{i}"] for i in range(n)]
        vobs, rew, term_v, _, info = venv.step(np.array([a]))
        totals += rew[0]
        if term_v[0]:
            assert all(env.terminations.values())
            np.testing.assert_array_equal(info["final_scores"][0], env.unwrapped.state_dict()["scores"])
            break
    np.testing.assert_allclose(totals, aec_totals)
    return totals, steps, info


def vector_trajectory_digest(game: str, batch: int, steps: int, seed: int, **config) -> str:
    """A hash of everything the vector engine of ``game`` returns over
    ``steps`` random legal steps (turn-based games: every 7th step moves
    only a random subset of the games; finished games restart)."""
    import hashlib

    digest = hashlib.sha256()
    venv = V.make(game, num_envs=batch, seed=seed, **config)
    simultaneous = game == "spit_v0"
    rng = np.random.default_rng(seed + 1)
    obs, info = venv.reset()
    digest.update(obs.tobytes() + info["action_mask"].tobytes())
    for t in range(steps):
        mask = info["action_mask"]
        actions = (rng.random(mask.shape) * mask).argmax(-1)
        if simultaneous:
            obs, rewards, term, trunc, info = venv.step(actions)
        else:
            rows = rng.random(batch) < 0.5 if t % 7 == 3 else None
            obs, rewards, term, trunc, info = venv.step(actions, rows)
        for a in (obs, rewards, term, trunc, info["action_mask"], info.get("current_player", 0)):
            digest.update(np.ascontiguousarray(a).tobytes())
        for i in np.flatnonzero(term | trunc):
            digest.update(np.asarray(info["final_obs"][i]).tobytes())
            digest.update(np.asarray(info["final_scores"][i]).tobytes())
    return digest.hexdigest()


#: Short games (a hand or two, a round, a few dozen ticks), so that a batch
#: stepped for a few hundred steps finishes and resets hundreds of games:
#: each game's first variant's ``short_config`` in the registry.
SHORT_GAMES = {name: dict(game.short_config[0]) for name, game in GAMES.items()}
#: (game, short config) of every variant of every game (Spit, then Speed).
SHORT_VARIANTS = [(name, dict(config)) for name, game in GAMES.items() for config in game.short_config]


# --- the repository's scripts, loaded as modules ------------------------------
ROOT = pathlib.Path(__file__).resolve().parents[1]


def load_script(path: str, name: str | None = None) -> ModuleType:
    """A script of the checkout (``"examples/dmc.py"``, a benchmark) as a
    fresh module, its folder on the path (the scripts import their neighbours)."""
    file = ROOT / path
    sys.path.insert(0, str(file.parent))
    spec = importlib.util.spec_from_file_location(name or f"{file.stem}_under_test", file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- real Ctrl-Cs -------------------------------------------------------------
@pytest.fixture
def python_sigint_handler():
    """Python's own SIGINT handler (raises KeyboardInterrupt), whatever an
    earlier test or library installed (test files use it with autouse)."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def ctrl_c() -> None:
    """A real Ctrl-C: SIGINT to this process; Python's handler raises KeyboardInterrupt in the main thread."""
    os.kill(os.getpid(), signal.SIGINT)
    for _ in range(10**6):  # (the handler runs between bytecodes: within a few)
        pass
    raise AssertionError("SIGINT was not delivered")


def legal_random(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row (the last axis is the mask)."""
    return ((rng.random(mask.shape) + 0.01) * mask).argmax(-1)
