"""The vector engine on row shards in threads (``num_threads``,
``cardenvs.core.shards``): every game, stepped by 1, 2 or 3 threads from
the same seed, gives identical results -- observations, masks, rewards,
terminations, infos, state dicts and state arrays -- through many finished
and reset games, ``rows=`` steps and forfeits; a shard never draws."""

from __future__ import annotations

import hashlib
import pickle
import threading
import time

import numpy as np
import pytest
from helpers import SHORT_GAMES, digest_into

import cardenvs.vector as V
from cardenvs.core.shards import MIN_SHARD_ROWS, Shards
from cardenvs.registry import GAMES

BATCH = 257  # 3 threads: shards of 85, 86 and 86 rows

# Short games, so that hundreds of games finish and are reset -- each reset
# and each new hand a deal drawn in the calling thread for rows of every shard.
SHORT = SHORT_GAMES
CASES = [(name, SHORT.get(name, {})) for name in GAMES] + [
    ("spit_v0", {"variant": "speed", "max_ticks": 80}),
    ("spit_v0", {"variant": "speed", "target_score": 2, "max_ticks": 150}),
    ("pepper_v0", {"num_players": 2, "all_pass": "redeal", "max_hands": 3}),
    ("cancellation_hearts_v0", {"max_hands": 1, "passing": "none", "obs_dtype": "float32"}),
]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in config.items())}" for name, config in CASES]


def _state_arrays(venv) -> dict:
    """Every array of the engine's state, but Push's meld stamps (each thread
    draws stamps of its own: see ``PushState.before_shards``)."""
    arrays = {k: v for k, v in vars(venv.state).items() if isinstance(v, np.ndarray)}
    arrays.pop("meld_stamp", None)
    return arrays


def play(name: str, config: dict, num_threads: int, steps: int = 240, rows: bool = True, bad: float = 0.0):
    """Random legal play of ``BATCH`` games with ``num_threads``: one digest
    per step (everything ``step`` returned, and every 40 steps the state
    dicts of some rows and the state's arrays), and the number of games that
    finished.  ``rows``: every fifth step moves only some games; ``bad``:
    the share of actions replaced by random ones (with
    ``illegal_action="terminate"``)."""
    venv = V.make(name, num_envs=BATCH, seed=11, num_threads=num_threads, **config)
    venv.shards.min_rows = 16  # (shard the small jobs too: the finished games' observations, rows= steps)
    rng = np.random.default_rng(3)
    out = venv.reset()
    digests, finished = [], 0
    for t in range(steps):
        h = hashlib.sha256()
        digest_into(out, h)
        mask = out[-1]["action_mask"]
        actions = (rng.random(mask.shape, dtype=np.float32) * mask).argmax(-1)
        if bad:
            wrong = rng.random(actions.shape) < bad
            actions = np.where(wrong, rng.integers(0, mask.shape[-1], actions.shape), actions)
        if rows and t % 5 == 4:
            out = venv.step(actions, rows=rng.random(BATCH) < 0.5)
        else:
            out = venv.step(actions)
        finished += int(np.count_nonzero(out[2] | out[3]))
        if t % 40 == 0:
            digest_into([venv.state_dict(i) for i in range(0, BATCH, 17)], h)
            digest_into(_state_arrays(venv), h)
        digests.append(h.hexdigest())
    venv.close()
    return digests, finished


def assert_same(reference: list[str], other: list[str], what: str) -> None:
    first = next((t for t, (a, b) in enumerate(zip(reference, other)) if a != b), None)
    assert first is None, f"{what}: step {first} differs from one thread"


@pytest.mark.parametrize(("name", "config"), CASES, ids=IDS)
def test_every_thread_count_gives_the_same_games(name, config):
    reference, finished = play(name, config, 1)
    assert finished > BATCH  # many games ended and were reset (on every shard)
    for k in (2, 3):
        assert_same(reference, play(name, config, k)[0], f"{k} threads")


@pytest.mark.parametrize("name", list(GAMES))
def test_forfeits_are_the_same_with_threads(name):
    """``illegal_action="terminate"``: illegal actions end their games (the
    others step on a subset of the rows) alike for every thread count."""
    config = {**SHORT.get(name, {}), "illegal_action": "terminate"}
    reference, finished = play(name, config, 1, steps=120, rows=False, bad=0.02)
    assert finished > 50
    assert_same(reference, play(name, config, 3, steps=120, rows=False, bad=0.02)[0], "3 threads")


def test_a_shard_never_draws_and_never_rebinds():
    """A row view refuses the generator (a deal drawn inside a shard would
    make results depend on the shards) and attribute binding (it would not
    reach the state); writes into its arrays land in the state."""
    venv = V.make("pepper_v0", num_envs=64, seed=0, num_threads=2)
    venv.reset()
    view = venv.state.view(10, 20)
    assert view.batch == 10
    with pytest.raises(RuntimeError, match="drew random numbers"):
        view.rng.random(3)
    with pytest.raises(AttributeError, match="row view"):
        view.scores = np.zeros_like(view.scores)
    view.scores[0, 0] = 7
    assert venv.state.scores[10, 0] == 7


def test_a_rule_that_draws_while_advancing_is_caught(monkeypatch):
    """Were a game to deal inside :meth:`advance` (in a shard), stepping
    would fail at once rather than give results that depend on the threads."""
    from cardenvs.games.pepper.rules import PepperRules

    advance = PepperRules.advance

    def dealing_advance(self, state, actions, rewards):
        requests = advance(self, state, actions, rewards)
        for rows in requests:
            if len(rows):
                self.pass_the_deal(state, rows)  # draws from state.rng
        return [rows[:0] for rows in requests]

    monkeypatch.setattr(PepperRules, "advance", dealing_advance)
    # (one thread steps the state itself, with no row view to catch it -- the
    # fast path of a batch of one; any two threads catch it for every batch)
    for k in (2, 3):
        venv = V.make("pepper_v0", num_envs=32, seed=0, num_threads=k, max_hands=2)
        _, info = venv.reset()
        rng = np.random.default_rng(0)
        with pytest.raises(RuntimeError, match="drew random numbers"):
            for _ in range(200):
                mask = info["action_mask"]
                _, _, _, _, info = venv.step((rng.random(mask.shape) * mask).argmax(-1))


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2", None, 65])
def test_bad_thread_counts_are_refused(name, bad):
    with pytest.raises(ValueError, match="num_threads"):
        V.make(name, num_envs=64, num_threads=bad)


def test_shards_are_contiguous_and_near_equal():
    shards = Shards(257, 3)
    assert shards.bounds(257) == ((0, 85), (85, 171), (171, 257))  # the whole batch: as many as threads
    assert Shards(10, 4).bounds(10) == ((0, 2), (2, 5), (5, 7), (7, 10))
    # other jobs: no shard smaller than min_rows
    assert shards.bounds(2 * MIN_SHARD_ROWS - 1) == ((0, 2 * MIN_SHARD_ROWS - 1),)
    assert shards.bounds(2 * MIN_SHARD_ROWS) == ((0, MIN_SHARD_ROWS), (MIN_SHARD_ROWS, 2 * MIN_SHARD_ROWS))
    assert Shards(8, 1).bounds(5) == ((0, 5),)


def test_map_returns_in_shard_order_and_raises_once_no_shard_runs():
    shards = Shards(100, 3)
    assert shards.map(100, lambda lo, hi: (lo, hi)) == [(0, 33), (33, 66), (66, 100)]
    started, finished = set(), set()

    def fail_first(lo, hi):
        if lo == 0:
            raise KeyError("first shard")
        started.add(lo)
        time.sleep(0.05)
        finished.add(lo)

    with pytest.raises(KeyError, match="first shard"):
        shards.map(100, fail_first)
    assert started == finished  # (a shard not started by then never runs)
    shards.close()
    assert shards.map(100, lambda lo, hi: hi - lo) == [33, 33, 34]  # a closed pool is made anew
    shards.close()


def test_map_runs_the_shards_no_worker_has_started_in_the_calling_thread():
    """With every worker busy (here: blocked), a map still completes: the
    calling thread runs the shards nobody picked up."""
    shards = Shards(300, 3)
    release, started = threading.Event(), threading.Barrier(3)
    pool = shards._executor()
    blockers = [pool.submit(lambda: (started.wait(), release.wait(10))) for _ in range(2)]
    started.wait()  # both workers are blocked now
    who = shards.map(300, lambda lo, hi: (lo, threading.current_thread() is threading.main_thread()))
    assert who == [(0, True), (100, True), (200, True)]
    release.set()
    for blocker in blockers:
        blocker.result()
    shards.close()


def test_a_pickled_engine_steps_on_with_threads_of_its_own():
    venv = V.make("cancellation_hearts_v0", num_envs=96, seed=2, num_threads=2)
    _, info = venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):
        mask = info["action_mask"]
        _, _, _, _, info = venv.step((rng.random(mask.shape) * mask).argmax(-1))
    twin = pickle.loads(pickle.dumps(venv))
    assert twin.num_threads == 2 and twin.shards is not venv.shards
    actions = (rng.random(info["action_mask"].shape) * info["action_mask"]).argmax(-1)
    mine, theirs = venv.step(actions), twin.step(actions)
    for a, b in zip(mine[:4], theirs[:4]):
        np.testing.assert_array_equal(a, b)
    venv.close()
    twin.close()


@pytest.mark.parametrize("rng", ["shared", "per_game"])
@pytest.mark.parametrize("name", ["pepper_v0", "cancellation_hearts_v0", "spit_v0"])
def test_a_step_is_one_hand_off(name, rng, monkeypatch):
    """With threads a step hands the shards one job (each moves its games
    on and writes their observations and masks; with per-game streams it
    also deals and resets them) -- not one per phase.  (Shared Spit keeps
    its phases: its deals and stalemates are drawn in rounds.)"""
    venv = V.make(name, num_envs=512, seed=0, num_threads=2, rng=rng, **SHORT.get(name, {}))
    _, info = venv.reset()
    jobs = []
    plain = venv.shards.map
    # (a job small enough for one shard runs in the calling thread: no hand-off)
    monkeypatch.setattr(
        venv.shards, "map", lambda n, fn: (len(venv.shards.bounds(n)) > 1 and jobs.append(n)) or plain(n, fn)
    )
    rng_ = np.random.default_rng(0)
    finished = 0
    for _ in range(120):
        jobs.clear()
        mask = info["action_mask"]
        _, _, terminated, truncated, info = venv.step((rng_.random(mask.shape) * mask).argmax(-1))
        ended = int(np.count_nonzero(terminated | truncated))
        finished += ended
        if rng == "per_game" or (name != "spit_v0" and ended < 32):
            # (the few rows dealt or reset are finished in the calling thread; with the shared
            # generator hundreds of games ending at once are observed and reset in the shards)
            assert jobs == [512]
    assert finished  # (resets happened during the steps checked)
