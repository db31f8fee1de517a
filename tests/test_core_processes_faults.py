"""The process engine (``num_processes``) under faults (issue #35, R5, R6,
R12, R13): a command's arguments of any size reach the workers; a step or
call cut short (an interrupt, a failure in a shard, a worker that died)
closes the engine, and every later call says why; an interrupt before
anything moves, and a bad reset, leave the games as they were, playing on
as one process's engine plays them."""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import re
import signal
import socket
import warnings

import numpy as np
import pytest
from helpers import digest_into

import cardenvs.vector as V
from cardenvs.core import processes, workers


@contextlib.contextmanager
def hang_guard(seconds: float = 600):
    """Fail (TimeoutError) instead of hanging: a guard, never a speed check."""

    def expired(*_):
        raise TimeoutError(f"still waiting after {seconds} s: a hang")

    old = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _random_legal(rng, masks):
    return (rng.random(masks.shape) * masks).argmax(-1).astype(np.int64)


def _digest(value) -> str:
    h = hashlib.sha256()
    digest_into(value, h)
    return h.hexdigest()


def _states(venv) -> list[dict]:
    return [venv.state_dict(i) for i in range(venv.num_envs)]


def _pipe_buffer(venv) -> int:
    """How many bytes the calling process's end of worker 0's pipe takes
    before a write blocks (the socket's send buffer)."""
    with socket.socket(fileno=os.dup(venv._conns[0].fileno())) as sock:
        return sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)


def _pair(name: str, n: int, seed: int = 5, **config):
    """One process's engine and two processes' engine, same games."""
    one = V.make(name, n, seed=seed, rng="per_game", **config)
    two = V.make(name, n, seed=seed, rng="per_game", num_processes=2, **config)
    return one, two


def _play_on_alike(one, two, info, steps: int = 25, seed: int = 0) -> None:
    """Step both engines with the same legal actions: the same outputs."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        actions = _random_legal(rng, info["action_mask"])
        a, b = one.step(actions), two.step(actions)
        assert _digest(a) == _digest(b)
        info = a[-1]
    assert _digest(_states(one)) == _digest(_states(two))


# --- R5: large arguments ------------------------------------------------------------------------
def test_a_large_observe_crosses_to_the_workers():
    n = 65536
    one, two = _pair("pepper_v0", n)
    try:
        one.reset(), two.reset()
        seats = np.arange(n, dtype=np.int64) % 4
        # (the worker's part alone fills the pipe: written before the worker read, it blocked both sides)
        assert len(pickle.dumps(("observe", (seats[n // 2 :],)))) > _pipe_buffer(two)
        with hang_guard():
            seen = two.observe(seats)
        assert np.array_equal(seen, one.observe(seats))
    finally:
        two.close()


def test_a_large_per_row_deck_reset_crosses_to_the_workers():
    n = 4096
    one, two = _pair("cancellation_hearts_v0", n)
    try:
        deck, rng = two.rules.deck, np.random.default_rng(1)
        decks = [[[deck.texts[i] for i in rng.permutation(deck.multiset)]] if i % 3 else None for i in range(n)]
        options = {"decks": {"per_row": decks}}
        assert len(pickle.dumps(decks[n // 2 :])) > _pipe_buffer(two)
        with hang_guard():
            got = two.reset(options=options)
        expected = one.reset(options=options)
        assert _digest(got) == _digest(expected)
        assert two.state_dict(n - 2) == one.state_dict(n - 2)  # (a fixed deck in the worker's shard)
        _play_on_alike(one, two, expected[1], steps=3)
    finally:
        two.close()


# --- R6: an interrupted (or failed) command closes the engine -----------------------------------
def _assert_closed_for(venv, info, match: str) -> None:
    """Every call raises the same RuntimeError (``match``), and the workers are gone."""
    assert venv.closed
    assert not any(process.is_alive() for process in venv._workers)
    calls = [
        lambda: venv.step(_random_legal(np.random.default_rng(0), info["action_mask"])),
        lambda: venv.observe(np.zeros(venv.num_envs, np.int64)),
        lambda: venv.reset(seed=1),
        *(lambda i=i: venv.state_dict(i) for i in range(venv.num_envs)),
    ]
    messages = set()
    for call in calls:
        with pytest.raises(RuntimeError, match=match) as raised:
            call()
        messages.add(str(raised.value))
    assert len(messages) == 1 and "make a new one" in messages.pop()


def _interrupt_after(monkeypatch, owner, name: str) -> None:
    """``owner.name`` runs, then raises KeyboardInterrupt (once)."""
    real = getattr(owner, name)

    def interrupted(*args, **kwargs):
        real(*args, **kwargs)
        monkeypatch.setattr(owner, name, real)
        raise KeyboardInterrupt

    monkeypatch.setattr(owner, name, interrupted)


def _played(n: int = 24, steps: int = 20):
    venv = V.make("pepper_v0", n, seed=7, rng="per_game", num_processes=2)
    rng, info = np.random.default_rng(0), venv.reset()[1]
    for _ in range(steps):
        info = venv.step(_random_legal(rng, info["action_mask"]))[-1]
    return venv, info


@pytest.mark.parametrize(
    "where",
    [
        "wait_for",  # the worker's reply is there (the repro's place)
        "step_shard",  # the calling process's own shard has stepped
        "_outputs",  # every shard has stepped; the new masks not yet kept
    ],
)
def test_an_interrupted_step_closes_the_engine(monkeypatch, where):
    venv, info = _played()
    owner = processes.ProcessVectorEnv if where == "_outputs" else processes
    _interrupt_after(monkeypatch, owner, where)
    with pytest.raises(KeyboardInterrupt):
        venv.step(_random_legal(np.random.default_rng(1), info["action_mask"]))
    _assert_closed_for(venv, info, "closed because a step was interrupted")


@pytest.mark.parametrize("call", ["observe", "state_dict", "reset"])
def test_an_interrupted_call_closes_the_engine(monkeypatch, call):
    venv, info = _played(steps=3)
    _interrupt_after(monkeypatch, processes, "wait_for")
    with pytest.raises(KeyboardInterrupt):
        if call == "observe":
            venv.observe(np.zeros(venv.num_envs, np.int64))
        elif call == "state_dict":
            venv.state_dict(venv.num_envs - 1)  # (a row of the worker's shard)
        else:
            venv.reset()
    _assert_closed_for(venv, info, f"closed because {call} was interrupted")


def test_an_interrupt_during_the_close_still_closes_the_engine(monkeypatch):
    """A second Ctrl-C while the engine closes after the first: the next
    call closes it and raises, and nothing is stepped."""
    venv, info = _played(steps=3)
    _interrupt_after(monkeypatch, processes, "wait_for")
    real_close = processes.ProcessVectorEnv.close

    def close_interrupted(self):
        monkeypatch.setattr(processes.ProcessVectorEnv, "close", real_close)
        raise KeyboardInterrupt

    monkeypatch.setattr(processes.ProcessVectorEnv, "close", close_interrupted)
    with pytest.raises(KeyboardInterrupt):
        venv.step(_random_legal(np.random.default_rng(1), info["action_mask"]))
    assert not venv.closed  # (the close never ran)
    with pytest.raises(RuntimeError, match="closed because a step was interrupted"):
        venv.step(_random_legal(np.random.default_rng(2), info["action_mask"]))
    _assert_closed_for(venv, info, "closed because a step was interrupted")


def test_an_interrupt_before_anything_moves_leaves_the_games_playing(monkeypatch):
    one, two = _pair("pepper_v0", 24, seed=7)
    try:
        rng, info = np.random.default_rng(0), one.reset()[1]
        two.reset()
        for _ in range(10):
            actions = _random_legal(rng, info["action_mask"])
            info = one.step(actions)[-1]
            two.step(actions)

        def interrupted(*args):
            raise KeyboardInterrupt  # (while the actions are checked: no shard told anything yet)

        monkeypatch.setattr(processes, "legal_into", interrupted)
        with pytest.raises(KeyboardInterrupt):
            two.step(_random_legal(np.random.default_rng(9), info["action_mask"]))
        monkeypatch.undo()
        assert not two.closed
        assert _digest(_states(one)) == _digest(_states(two))
        _play_on_alike(one, two, info)
    finally:
        two.close()


def test_a_step_failing_in_a_worker_closes_the_engine(monkeypatch):
    def failing(*args):
        raise ValueError("boom")

    monkeypatch.setattr(workers, "step_shard", failing)  # (the workers' step: they are forked with it)
    venv = V.make("pepper_v0", 8, seed=0, rng="per_game", num_processes=2)
    monkeypatch.undo()
    info = venv.reset()[1]
    with pytest.raises(ValueError, match="boom"):
        venv.step(_random_legal(np.random.default_rng(0), info["action_mask"]))
    _assert_closed_for(venv, info, r"closed because a step failed \(ValueError: boom\)")


# --- R12: a worker that died --------------------------------------------------------------------
@pytest.mark.parametrize("first", ["step", "state_dict"])
@pytest.mark.parametrize("spin", [0.0, workers.SPIN_SECONDS])  # (0: the worker sleeps on its pipe at once)
def test_every_call_after_a_worker_died_raises_the_same_error(monkeypatch, first, spin):
    monkeypatch.setattr(workers, "SPIN_SECONDS", spin)
    venv = V.make("pepper_v0", 16, seed=0, rng="per_game", num_processes=2)
    info = venv.reset()[1]
    victim = venv._workers[0]
    os.kill(victim.pid, signal.SIGKILL)
    victim.join(60)
    with pytest.raises(RuntimeError, match=f"died \\(pid {victim.pid}, killed by signal 9\\)") as raised:
        if first == "step":
            venv.step(_random_legal(np.random.default_rng(0), info["action_mask"]))
        else:
            venv.state_dict(0)  # (a row of the calling process's own shard)
    _assert_closed_for(venv, info, f"died \\(pid {victim.pid}, killed by signal 9\\)")
    with pytest.raises(RuntimeError) as again:
        venv.state_dict(15)
    assert str(again.value) == str(raised.value)


# --- R13: a bad reset keeps the games -----------------------------------------------------------
BAD_RESETS = [
    ({}, {"dealer": [0, 1]}),
    ({}, {"dealer": 9}),
    ({}, {"dealer": [0] * 15 + [7]}),  # (a bad seat in the worker's rows only)
    ({}, {"decks": {"per_row": [None] * 16, "x": 1}}),
    ({}, {"decks": {"per_row": [None] * 15}}),
    ({}, {"decks": {"per_row": [None] * 15 + [[["AS"]]]}}),  # (a bad deck in the worker's rows only)
    ({}, {"decks": [["not a card"]]}),
    ({}, "dealer"),
    ({"seed": -1}, None),
    ({"seed": "x"}, None),
    ({"seed": 1.5}, None),
    ({"seed": 2**64}, None),
    ({"seed": -1}, {"dealer": 9}),  # (both bad: the seed's error, as one process checks it first)
]


@pytest.mark.parametrize("kwargs,options", BAD_RESETS)
def test_a_bad_reset_raises_as_one_process_and_keeps_the_games(kwargs, options):
    one, two = _pair("pepper_v0", 16)
    try:
        rng, info = np.random.default_rng(0), one.reset()[1]
        two.reset()
        for _ in range(8):
            actions = _random_legal(rng, info["action_mask"])
            info = one.step(actions)[-1]
            two.step(actions)
        before = _states(two)
        with pytest.raises(Exception) as expected:
            one.reset(options=options, **kwargs)
        with pytest.raises(type(expected.value)) as raised:
            two.reset(options=options, **kwargs)
        assert str(raised.value) == str(expected.value)
        assert not two.closed
        assert _states(two) == before
        _play_on_alike(one, two, info)
    finally:
        two.close()


@pytest.mark.parametrize(
    "seats",
    [np.full(16, 4), np.full(16, -1), np.r_[np.zeros(15, int), 99], np.zeros(15, int), np.zeros(16, float), [0.5] * 16],
)
def test_bad_seats_raise_as_one_process_and_change_nothing(seats):
    one, two = _pair("pepper_v0", 16)
    try:
        info = one.reset()[1]
        two.reset()
        with pytest.raises(Exception) as expected:
            one.observe(seats)
        with pytest.raises(type(expected.value)) as raised:
            two.observe(seats)
        assert str(raised.value) == str(expected.value)  # (the batch's rows named, not a shard's)
        _play_on_alike(one, two, info, steps=5)
    finally:
        two.close()


# --- R18: shared cores ---------------------------------------------------------------------------
class FakeClock:
    """``time.perf_counter`` moving ``tick`` a call, and ``jump`` at each yield."""

    def __init__(self, jump: float, done_after: int, ctl, word: int, value: int):
        self.now, self.jump, self.yields, self.polls = 0.0, jump, 0, 0
        self.done_after, self.ctl, self.word, self.value = done_after, ctl, word, value

    def perf_counter(self) -> float:
        self.now += 1e-6
        return self.now

    def sched_yield(self) -> None:
        self.yields += 1
        self.now += self.jump  # (another process ran on the core meanwhile, for a jump)
        if self.yields == self.done_after:
            self.ctl[self.word] = self.value

    def poll(self, timeout) -> bool:  # (the wake pipe: sleeping on it)
        self.polls += 1
        self.ctl[self.word] = self.value
        return False


@pytest.mark.parametrize("jump,slept", [(0.0, False), (1e-3, True)])
def test_a_wait_offers_its_core_and_sleeps_once_another_process_took_it(monkeypatch, jump, slept):
    """Polling, a side yields its core after YIELD_AFTER; a yield that came
    back late (another process ran) sends it to sleep on its pipe, one that
    came back at once lets it poll on (on a clock of its own: no timing)."""
    monkeypatch.setattr(workers, "SPIN", True)
    monkeypatch.setattr(workers, "SPIN_SECONDS", 10.0)
    ctl = workers.shared_array((16,), np.int64)
    clock = FakeClock(jump, 100, ctl, workers.DONE, 1)
    monkeypatch.setattr(workers, "time", clock)
    monkeypatch.setattr(workers.os, "sched_yield", clock.sched_yield)
    workers.wait_for(ctl, workers.DONE, 1, clock, workers.MAIN_ASLEEP, lambda: True)
    assert ctl[workers.DONE] == 1
    assert clock.yields == (1 if slept else 100) and clock.polls == (1 if slept else 0)
    assert ctl[workers.MAIN_ASLEEP] == 0


@pytest.mark.parametrize(
    "cpus,load,warned",
    [
        ({0}, (0.0, 0.0, 0.0), "may run on 1 CPU"),
        ({0, 1}, (3.0, 3.0, 3.0), r"load average \(3.0\)"),
        ({0, 1}, (1.0, 1.0, 1.0), None),  # (the calling process busy, one core left for the worker)
    ],
)
def test_a_process_engine_on_shared_cores_warns(monkeypatch, cpus, load, warned):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: cpus)
    monkeypatch.setattr(os, "getloadavg", lambda: load)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        venv = V.make("pepper_v0", 8, seed=0, rng="per_game", num_processes=2)
    venv.close()
    mine = [w for w in caught if issubclass(w.category, RuntimeWarning) and "num_processes" in str(w.message)]
    if warned is None:
        assert mine == []
    else:
        assert len(mine) == 1 and mine[0].filename == __file__  # (pointing at the make call)
        assert re.search(warned, str(mine[0].message))
        assert "use fewer processes" in str(mine[0].message)


def test_the_contention_benchmark_runs_beside_hogs():
    import pathlib
    import subprocess
    import sys

    script = pathlib.Path(__file__).parent.parent / "benchmarks" / "thread_scaling.py"
    args = ["--contention", "--hogs", "0,1", "--games", "pepper_v0", "--batch", "64", "--seconds", "0.3"]
    out = subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        timeout=900,  # (a guard against a hang, not a speed check)
    )
    assert out.returncode == 0, out.stderr
    rows = [line.split() for line in out.stdout.splitlines() if line.startswith("pepper_v0")]
    assert [(r[1], " ".join(r[2:-4])) for r in rows] == [
        (h, kind) for h in ("0", "1") for kind in ("1 process", "2 processes", "2, polling (old)")
    ]
