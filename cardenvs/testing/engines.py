"""Checks across the ways of running a game: PettingZoo's own tests, the
AEC (parallel) env against the vector engine, the same seed giving the same
games (twice, in threads, in processes) and pickled envs playing on alike."""

from __future__ import annotations

import contextlib
import hashlib
import io
import pickle
import warnings

import numpy as np

from .common import (
    digest_into,
    first_difference,
    make_env,
    make_parallel,
    make_vector,
    play,
    random_legal,
    random_rows,
    vector_play,
)
from .report import Case


def pettingzoo_api(case: Case) -> None:
    """``pettingzoo.test``'s ``api_test`` and ``seed_test`` (simultaneous
    games: also ``parallel_api_test`` and ``parallel_seed_test``), with
    ``illegal_action="terminate"`` (they sample actions without the mask)."""
    from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

    cycles = max(10, case.steps // 4)
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (PettingZoo's advice on Dict spaces)
        api_test(make_env(case, illegal_action="terminate"), num_cycles=cycles)
        seed_test(lambda render_mode=None: make_env(case, illegal_action="terminate"), num_cycles=cycles)
        if case.spec.simultaneous:
            parallel_api_test(make_parallel(case, illegal_action="terminate"), num_cycles=cycles)
            parallel_seed_test(lambda: make_parallel(case, illegal_action="terminate"), num_cycles=cycles)


def aec_vector(case: Case) -> None:
    """The AEC env (simultaneous games: the parallel env) and a batch of one
    of the vector engine, same seed and actions, show the same seat to act,
    observations, masks and rewards at every step, and end together."""
    for seed in case.seeds:
        if case.spec.simultaneous:
            _parallel_and_vector(case, seed)
        else:
            _aec_and_vector(case, seed)


def _aec_and_vector(case: Case, seed: int) -> None:
    venv = make_vector(case, 1, seed)
    vobs, info = venv.reset()
    env = make_env(case)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals, aec_totals = np.zeros(venv.num_players), np.zeros(venv.num_players)
    for t in range(case.steps):
        case.at(seed, t)
        obs, _, term, trunc, _ = env.last()
        seat = env.possible_agents.index(env.agent_selection)
        case.expect(
            info["current_player"][0] == seat, f"vector engine: seat {info['current_player'][0]} to act, AEC {seat}"
        )
        case.expect(np.array_equal(obs["observation"], vobs[0]), "the observations differ")
        case.expect(np.array_equal(obs["action_mask"].astype(bool), info["action_mask"][0]), "the masks differ")
        action = random_legal(rng, obs["action_mask"])
        env.step(action)
        aec_totals += [env.rewards.get(a, 0.0) for a in env.possible_agents]
        vobs, rewards, term, trunc, info = venv.step(np.array([action]))
        totals += rewards[0]
        ended = all(env.terminations.values()) or all(env.truncations.values())
        case.expect(bool(term[0] or trunc[0]) == ended, "the game ends in one and not the other")
        if ended:
            break
    case.expect(np.allclose(totals, aec_totals), f"summed rewards differ: vector {totals}, AEC {aec_totals}")


def _parallel_and_vector(case: Case, seed: int) -> None:
    venv = make_vector(case, 1, seed)
    vobs, info = venv.reset()
    env = make_parallel(case)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for t in range(case.steps):
        case.at(seed, t)
        for p, agent in enumerate(env.possible_agents):
            case.expect(np.array_equal(obs[agent]["observation"], vobs[0, p]), f"{agent}'s observations differ")
            case.expect(
                np.array_equal(obs[agent]["action_mask"].astype(bool), info["action_mask"][0, p]), "masks differ"
            )
        actions = random_rows(rng, info["action_mask"])
        obs, rewards, terms, truncs, _ = env.step({a: int(actions[0, p]) for p, a in enumerate(env.possible_agents)})
        vobs, vrewards, term, trunc, info = venv.step(actions)
        got = [rewards[a] for a in env.possible_agents]
        case.expect(np.allclose(got, vrewards[0]), f"rewards differ: parallel {got}, vector {vrewards[0].tolist()}")
        ended = bool(term[0] or trunc[0])
        case.expect(ended == (not env.agents), "the game ends in one and not the other")
        if ended:
            return


def _aec_digests(case: Case, env: object, seed: int) -> list[str]:
    """One digest per step of random play: observation, mask, rewards, state."""
    digests = []
    for agent, obs in play(case, env, seed):
        h = hashlib.sha256()
        digest_into([agent, obs, env.rewards, env.unwrapped.state_dict()], h)
        digests.append(h.hexdigest())
    return digests


def seeds(case: Case) -> None:
    """The same seed and actions give the same game (AEC env and vector
    engine); two seeds give two deals."""
    for seed in case.seeds:
        a, b = _aec_digests(case, make_env(case), seed), _aec_digests(case, make_env(case), seed)
        t = first_difference(a, b)
        case.at(seed, t)
        case.expect(t is None, "the same seed and actions gave another game (AEC env)")
        runs = [vector_play(case, lambda: make_vector(case, 8, seed), seed) for _ in range(2)]
        t = first_difference(*runs)
        case.at(seed, t)
        case.expect(t is None, "the same seed and actions gave other games (vector engine)")
    case.at()
    deals = set()
    for seed in range(4):
        env = make_env(case)
        env.reset(seed=seed)
        deals.add(str(env.unwrapped.state_dict()))
    case.expect(len(deals) > 1, "four seeds gave the same deal")


def threads(case: Case) -> None:
    """The vector engine on 2 threads plays exactly the games of 1 thread."""
    for seed in case.seeds:

        def make(k: int, seed: int = seed):
            venv = make_vector(case, 48, seed, num_threads=k)
            venv.shards.min_rows = 8  # (shard the small jobs too)
            return venv

        t = first_difference(vector_play(case, lambda: make(1), seed), vector_play(case, lambda: make(2), seed))
        case.at(seed, t)
        case.expect(t is None, "2 threads play other games than 1 thread")


def processes(case: Case) -> None:
    """The vector engine (``rng="per_game"``) on 2 worker processes plays
    exactly the games of 1 process."""
    seed = case.seeds[0]
    one = vector_play(case, lambda: make_vector(case, 12, seed, rng="per_game"), seed)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "num_processes", RuntimeWarning)  # (a busy machine: slower, not wrong)
        two = vector_play(case, lambda: make_vector(case, 12, seed, rng="per_game", num_processes=2), seed)
    t = first_difference(one, two)
    case.at(seed, t)
    case.expect(t is None, "2 processes play other games than 1 process")


def pickling(case: Case) -> None:
    """An AEC env and a vector engine pickled mid-game play on exactly as
    the originals do."""
    for seed in case.seeds:
        env = make_env(case)
        half = case.steps // 2
        for _ in play(case, env, seed):
            if case.step >= half:
                break
        twin = pickle.loads(pickle.dumps(env))
        case.expect(twin.unwrapped.state_dict() == env.unwrapped.state_dict(), "the unpickled env holds another game")
        rng = np.random.default_rng(seed)
        for step in range(half):
            case.at(seed, half + step)
            if not env.agents:
                break
            obs, mine = env.last(), twin.last()
            digests = [hashlib.sha256(), hashlib.sha256()]
            digest_into(obs, digests[0])
            digest_into(mine, digests[1])
            case.expect(digests[0].hexdigest() == digests[1].hexdigest(), "the unpickled env plays on otherwise")
            action = None if obs[2] or obs[3] else int(rng.choice(np.flatnonzero(obs[0]["action_mask"])))
            env.step(action)
            twin.step(action)
        venv = make_vector(case, 4, seed)
        _, info = venv.reset()
        for _ in range(half):
            info = venv.step(random_rows(rng, info["action_mask"]))[-1]
        copy_ = pickle.loads(pickle.dumps(venv))
        actions = random_rows(rng, info["action_mask"])
        a, b = hashlib.sha256(), hashlib.sha256()
        digest_into(venv.step(actions), a)
        digest_into(copy_.step(actions), b)
        case.expect(a.hexdigest() == b.hexdigest(), "the unpickled vector engine steps otherwise")
