"""Checks shared by every turn-based game's property tests."""

from __future__ import annotations

import numpy as np

import cardenvs
import cardenvs.vector as V


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
