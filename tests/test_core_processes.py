"""The vector engine over worker processes (``num_processes``,
``cardenvs.core.processes``): every game, stepped by 2 or 3 processes from
the same seed, gives exactly the games of one process with
``rng="per_game"`` -- observations, masks, rewards, flags, infos and state
dicts -- through many finished and reset games, ``rows=`` steps and
forfeits; outputs are read-only and never change once handed out; bad
input raises before anything moves; the workers stop with the engine."""

from __future__ import annotations

import copy
import hashlib
import os
import pickle

import numpy as np
import pytest
from helpers import SHORT_GAMES, digest_into

import cardenvs.vector as V
from cardenvs import IllegalActionError
from cardenvs.core import workers
from cardenvs.registry import GAMES

BATCH = 67  # 3 processes: shards of 22, 22 and 23 rows
SHORT = SHORT_GAMES
CASES = [(name, SHORT[name]) for name in GAMES] + [("spit_v0", {"variant": "speed", "max_ticks": 80})]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in config.items())}" for name, config in CASES]


def _random_legal(rng, masks):
    return (rng.random(masks.shape) * masks).argmax(-1).astype(np.int64)


def play(name: str, config: dict, processes_: int, steps: int = 150, bad: float = 0.0) -> tuple[list[str], int]:
    """Random legal play of ``BATCH`` games: one digest per step (what
    ``step`` returned, and every 30 steps some rows' state dicts), and how
    many games finished.  Every fifth step moves only some games; ``bad``:
    the share of actions replaced by random ones (``illegal_action="terminate"``)."""
    venv = V.make(name, num_envs=BATCH, seed=11, rng="per_game", num_processes=processes_, **config)
    rng = np.random.default_rng(3)
    out = venv.reset()
    digests, finished = [], 0
    try:
        for t in range(steps):
            h = hashlib.sha256()
            digest_into(out, h)
            if t % 30 == 0:
                digest_into([venv.state_dict(i) for i in (0, 21, 22, 44, 66)], h)
            digests.append(h.hexdigest())
            actions = _random_legal(rng, out[-1]["action_mask"])
            if bad:
                wild = rng.random(actions.shape) < bad
                actions[wild] = rng.integers(0, venv.num_actions, int(wild.sum()))
            rows = np.flatnonzero(rng.random(BATCH) < 0.6) if t % 5 == 4 else None
            out = venv.step(actions, rows=rows)
            finished += int(out[2].sum() + out[3].sum())
    finally:
        venv.close()
    return digests, finished


@pytest.mark.parametrize("name,config", CASES, ids=IDS)
def test_processes_play_the_games_of_one_process(name, config):
    one, finished = play(name, config, 1)
    assert finished > 20  # (resets in every shard: games of a hand or two)
    assert play(name, config, 2) == (one, finished)
    if name == "pepper_v0":
        assert play(name, config, 3) == (one, finished)


@pytest.mark.parametrize("name", ["pepper_v0", "spit_v0"])
def test_forfeits_are_the_same_in_processes(name):
    config = {**SHORT[name], "illegal_action": "terminate"}
    one, finished = play(name, config, 1, steps=60, bad=0.05)
    assert finished > 20
    assert play(name, config, 2, steps=60, bad=0.05) == (one, finished)


def test_observe_reset_options_and_reseeding_match_one_process():
    one = V.make("pepper_v0", 9, seed=4, rng="per_game")
    two = V.make("pepper_v0", 9, seed=4, rng="per_game", num_processes=2)
    try:
        dealers = [0, 1, 2, 3, 0, 1, 2, 3, 0]
        for options in ({"dealer": dealers}, {"dealer": 2}, None):
            a, b = one.reset(options=options), two.reset(options=options)
            _same(a, b)
            seats = np.arange(9) % 4
            assert np.array_equal(one.observe(seats), two.observe(seats))
        _same(one.reset(seed=8), two.reset(seed=8))
        _same(one.reset(), two.reset())  # (no seed: each slot's stream goes on)
    finally:
        two.close()


def _same(a, b) -> None:
    h1, h2 = hashlib.sha256(), hashlib.sha256()
    digest_into(a, h1)
    digest_into(b, h2)
    assert h1.hexdigest() == h2.hexdigest()


def test_outputs_are_read_only_and_never_change_once_handed_out():
    venv = V.make("cancellation_hearts_v0", 40, seed=2, rng="per_game", num_processes=2)
    rng = np.random.default_rng(0)
    try:
        obs, info = venv.reset()
        held = []
        for t in range(3 * workers.BLOCKS):  # (more held than there are blocks: copies then)
            out = venv.step(_random_legal(rng, info["action_mask"]))
            obs, info = out[0], out[-1]
            held.append((out, obs.copy(), info["action_mask"].copy()))
            if t % 3:  # (some dropped at once: their blocks come back)
                held.pop()
        for out, obs_then, masks_then in held:
            assert np.array_equal(out[0], obs_then) and np.array_equal(out[-1]["action_mask"], masks_then)
            for array in (out[0], out[-1]["action_mask"]):
                assert not array.flags.writeable
                with pytest.raises(ValueError):
                    array[0] = 0
                with pytest.raises(ValueError):  # (over a read-only buffer: not even on purpose)
                    array.flags.writeable = True
    finally:
        venv.close()


def test_a_held_slice_keeps_its_block():
    """A slice of an output (a view) keeps the block it came from as a
    whole array does: it never changes while held, and once it is dropped
    the block is written again (the steps go back to it)."""
    venv = V.make("pepper_v0", 40, seed=4, rng="per_game", num_processes=2)
    rng = np.random.default_rng(3)
    try:
        obs, info = venv.reset()
        part, masks_row = obs[18:23], info["action_mask"][21]  # (rows of both shards)
        part_then, row_then = part.copy(), masks_row.copy()
        del obs, info
        blocks = venv._blocks
        (held,) = [k for k, block in enumerate(blocks) if block.held]
        seen, info = set(), venv.step(_random_legal(rng, venv._masks))[-1]
        for _ in range(12):
            out = venv.step(_random_legal(rng, info["action_mask"]))
            info = out[-1]
            seen.add(next(k for k, block in enumerate(blocks) if block.held and k != held))
            del out
        assert held not in seen and len(seen) >= 2
        assert np.array_equal(part, part_then) and np.array_equal(masks_row, row_then)
        del part, masks_row
        assert not blocks[held].held
        for _ in range(4):
            info = venv.step(_random_legal(rng, info["action_mask"]))[-1]
            seen.add(next(k for k, block in enumerate(blocks) if block.held))
        assert held in seen
    finally:
        venv.close()


def test_bad_input_raises_and_changes_nothing():
    one = V.make("pepper_v0", 10, seed=6, rng="per_game")
    two = V.make("pepper_v0", 10, seed=6, rng="per_game", num_processes=2)
    rng = np.random.default_rng(1)
    try:
        (_, i1), (_, i2) = one.reset(), two.reset()
        masks = i2["action_mask"]
        illegal = _random_legal(rng, masks)
        illegal[7] = int(np.flatnonzero(~masks[7])[0])  # (a row of the worker's shard)
        with pytest.raises(IllegalActionError) as raised:
            two.step(illegal)
        with pytest.raises(IllegalActionError) as expected:
            one.step(illegal)
        assert str(raised.value) == str(expected.value)
        with pytest.raises(TypeError):
            two.step(illegal.astype(np.float64))
        with pytest.raises(IllegalActionError, match="shape"):
            two.step(illegal[:5])
        with pytest.raises(ValueError, match="rows"):
            two.step(illegal, rows=[3, 3])
        for _ in range(20):  # nothing moved: the same games go on
            actions = _random_legal(rng, i1["action_mask"])
            a, b = one.step(actions), two.step(actions)
            _same(a, b)
            i1 = a[-1]
    finally:
        two.close()


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"num_processes": 2}, "per_game"),  # (rng="shared", the default)
        ({"num_processes": 0, "rng": "per_game"}, "positive"),
        ({"num_processes": True, "rng": "per_game"}, "positive"),
        ({"num_processes": 9, "rng": "per_game"}, "at most"),
        ({"num_processes": 2, "num_threads": 2, "rng": "per_game"}, "both"),
    ],
)
def test_bad_configuration_is_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        V.make("pepper_v0", 8, seed=0, **kwargs)


def test_a_platform_that_cannot_fork_gets_a_clear_error(monkeypatch):
    import multiprocessing

    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    with pytest.raises(ValueError, match="cannot fork"):
        V.make("pepper_v0", 8, seed=0, rng="per_game", num_processes=2)
    V.make("pepper_v0", 8, seed=0, rng="per_game").close()  # (one process needs no fork)


def test_no_pickles_no_state_and_no_use_after_close():
    venv = V.make("spit_v0", 6, seed=0, rng="per_game", num_processes=2)
    with pytest.raises(RuntimeError, match="reset"):
        venv.step(np.zeros((6, 2), np.int64))
    venv.reset()
    for clone in (pickle.dumps, copy.deepcopy, copy.copy):
        with pytest.raises(TypeError, match="cannot be pickled"):
            clone(venv)
    assert not hasattr(venv, "state")
    workers = list(venv._workers)
    assert all(w.is_alive() for w in workers)
    venv.close()
    assert not any(w.is_alive() for w in workers)
    with pytest.raises(RuntimeError, match="closed"):
        venv.reset()


def test_a_dead_worker_is_an_error_not_a_hang():
    venv = V.make("pepper_v0", 8, seed=0, rng="per_game", num_processes=2)
    obs, info = venv.reset()
    venv._workers[0].kill()
    venv._workers[0].join()
    with pytest.raises(RuntimeError, match="died"):
        venv.step(_random_legal(np.random.default_rng(0), info["action_mask"]))
    assert venv.closed


def test_a_forked_child_cannot_drive_the_parents_workers():
    venv = V.make("pepper_v0", 8, seed=0, rng="per_game", num_processes=2)
    obs, info = venv.reset()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its step must refuse, not talk to the parent's workers
        try:
            venv.step(_random_legal(np.random.default_rng(0), info["action_mask"]))
            os.write(write, b"stepped")
        except RuntimeError as error:
            os.write(write, b"refused" if "belong to process" in str(error) else b"other")
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(read, 16) == b"refused"
    venv.step(_random_legal(np.random.default_rng(0), info["action_mask"]))  # (the parent's engine goes on)
    venv.close()


def test_the_scaling_benchmark_measures_processes():
    import pathlib
    import subprocess
    import sys

    script = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "thread_scaling.py"
    args = ["--processes", "1,2", "--batch", "64", "--seconds", "0.5", "--games", "pepper_v0"]
    out = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    rows = [line.split() for line in out.stdout.splitlines() if line.startswith("pepper_v0")]
    assert [r[1] for r in rows] == ["1", "2"]
    assert all(float(r[2].replace(",", "")) > 0 for r in rows) and rows[0][-1] == "1.00"


@pytest.mark.parametrize("name", ["pepper_v0", "spit_v0"])
def test_shards_of_one_game_each(name):
    """A shard of one game steps by the one-call path of a batch of one,
    and its outputs are copied into the block: the same games all the same."""

    def digests(processes_: int) -> list[str]:
        venv = V.make(name, num_envs=2, seed=5, rng="per_game", num_processes=processes_, **SHORT[name])
        rng, out, seen = np.random.default_rng(2), venv.reset(), []
        for _ in range(80):
            h = hashlib.sha256()
            digest_into(out, h)
            seen.append(h.hexdigest())
            out = venv.step(_random_legal(rng, out[-1]["action_mask"]))
        venv.close()
        return seen

    assert digests(2) == digests(1)


def _thread_scaling():
    import pathlib
    import sys

    bench = pathlib.Path(__file__).resolve().parents[1] / "benchmarks"
    sys.path.insert(0, str(bench))
    try:
        import thread_scaling
    finally:
        sys.path.remove(str(bench))
    return bench, thread_scaling


def test_the_ceiling_benchmark_steps_halves_in_lockstep():
    """--ceiling: two processes of half the games each, in lockstep, step
    the same number of times (to within the last), however busy the
    machine (at least MIN_STEPS each); the command prints a row per game.
    Nothing here depends on how fast the steps were."""
    import subprocess
    import sys

    bench, thread_scaling = _thread_scaling()
    (us0, n0), (us1, n1) = thread_scaling.halves("pepper_v0", 64, 20, 0.3, lockstep=True)
    assert us0 > 0 and us1 > 0 and min(n0, n1) >= thread_scaling.MIN_STEPS - 1 and abs(n0 - n1) <= 1
    args = ["--ceiling", "--batch", "64", "--seconds", "0.3", "--warm", "20", "--games", "pepper_v0"]
    out = subprocess.run([sys.executable, str(bench / "thread_scaling.py"), *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    (row,) = [line.split() for line in out.stdout.splitlines() if line.startswith("pepper_v0")]
    assert len(row) == 10 and all(float(c.replace(",", "")) >= 0 for c in row[1:])


def test_the_ceiling_table_computes_its_ratios_from_the_unrounded_figures():
    """The row's arithmetic on given figures (µs a step): bound = one over
    the slower halves, flow x = one over flow + check, x = one over engine;
    a check under a µs rounds to 0 in its column but still counts."""
    _, thread_scaling = _thread_scaling()
    row = thread_scaling.ceiling_row("pepper_v0", 1000.0, 480.0, 500.4, 540.0, 0.4, 800.0).split()
    assert row == ["pepper_v0", "1,000", "480", "500", "2.00", "540", "0", "1.85", "800", "1.25"]


def test_the_ceiling_benchmark_runs_the_data_flow_of_one_consumer():
    """--ceiling's "1 consumer" halves: side 1 steps with the actions side
    0's policy chose from side 1's masks (an illegal one would raise there
    and no result come back), in lockstep; only side 0 checks actions."""
    _, thread_scaling = _thread_scaling()
    for name in ("pepper_v0", "spit_v0"):
        (us0, n0, check0), (us1, n1, check1) = thread_scaling.consumer_halves(name, 64, 20, 0.3)
        assert us0 > 0 and us1 > 0 and n0 >= thread_scaling.MIN_STEPS and abs(n0 - n1) <= 1
        assert check0 > 0 and check1 == 0


def test_legal_into_agrees_with_legal_actions():
    """The process engine's one-pass check: the same verdict and actions
    as legal_actions, for every kind of bad action (out of range either
    way, masked out), over masks of one and of two seats per row."""
    from cardenvs.core.options import legal_actions, legal_into

    rng = np.random.default_rng(7)
    for shape in [(50,), (30, 2)]:
        legal = rng.random((*shape, 9)) < 0.4
        legal[..., 3] = True
        for trial in range(40):
            actions = np.where(legal[..., 3], 3, 0).astype(np.int64)
            if trial:  # (the first all legal)
                flat = actions.reshape(-1)
                flat[rng.integers(flat.size)] = rng.choice([-1, 9, 2**40, int(rng.integers(9))])
            out = np.full(actions.shape, -5, np.int64)
            acts, ok = legal_actions(actions, legal)
            assert legal_into(actions, legal, out) == bool(ok.all())
            assert np.array_equal(out, acts)
