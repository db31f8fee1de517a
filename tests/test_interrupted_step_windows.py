"""A step cut short where the first fix of N2 (tests/test_interrupted_step.py)
left windows open: a second Ctrl-C in the handler that closes the engine, a
reset cut short, a Ctrl-C while the worker threads of the shards still write
(and a second one while the step waits for them), a Ctrl-C in a view's own
record of the step.  Every interrupt here is a real SIGINT (Python's handler
raises KeyboardInterrupt) or a real timer's signal; afterwards the engine or
the env refuses every call but reset() with a RuntimeError saying why."""

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import cardenvs
import cardenvs.core.engine as engine_module
import cardenvs.vector as V
from cardenvs.core.shards import Shards

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CUT_SHORT = "cut short.*half-stepped"


from helpers import ctrl_c, legal_random, python_sigint_handler  # noqa: E402, F401 (a fixture, used by every test here)

pytestmark = pytest.mark.usefixtures("python_sigint_handler")


def after_then_ctrl_c(monkeypatch, owner, name: str, when=lambda: True) -> list:
    """``owner.name`` does its work, then (once, when ``when()``) sends a Ctrl-C;
    returns a list that holds True once it has."""
    real, sent = getattr(owner, name), []

    def cut(*args, **kwargs):
        out = real(*args, **kwargs)
        if not sent and when():
            monkeypatch.setattr(owner, name, real)
            sent.append(True)
            ctrl_c()
        return out

    monkeypatch.setattr(owner, name, cut)
    return sent


def assert_refused_then_reset(venv, rng) -> None:
    """Every call but reset() refuses, saying why; reset() starts games that play on."""
    mask = np.ones((venv.num_envs, venv.num_actions), bool)
    for call in (
        lambda: venv.step(legal_random(mask, rng)),
        lambda: venv.state_dict(0),
        lambda: venv.observe(np.zeros(venv.num_envs, np.int64)),
    ):
        with pytest.raises(RuntimeError, match=CUT_SHORT):
            call()
    assert venv.closed
    obs, info = venv.reset(seed=5)
    venv.step(legal_random(info["action_mask"], rng))
    assert not venv.closed and isinstance(venv.state_dict(0), dict)


@pytest.mark.parametrize("game", ["pepper_v0", "push_v0"])
def test_a_second_ctrl_c_in_the_closing_handler_still_leaves_the_engine_closed(monkeypatch, game):
    """The first Ctrl-C once the games moved, the second while the engine says why it closes."""
    venv = V.make(game, 16, seed=3)
    obs, info = venv.reset()
    rng = np.random.default_rng(1)
    after_then_ctrl_c(monkeypatch, venv.rules, "step" if game == "push_v0" else "step_then")
    real_cut_short = engine_module.cut_short

    def second(*args):
        monkeypatch.setattr(engine_module, "cut_short", real_cut_short)
        ctrl_c()

    monkeypatch.setattr(engine_module, "cut_short", second)
    with pytest.raises(KeyboardInterrupt):
        venv.step(legal_random(info["action_mask"], rng))
    assert_refused_then_reset(venv, rng)


@pytest.mark.parametrize("game", ["pepper_v0", "push_v0"])
def test_a_ctrl_c_inside_a_reset_closes_the_engine(monkeypatch, game):
    """Half the games dealt anew: the engine refuses them, saying a reset was cut short."""
    venv = V.make(game, 16, seed=3)
    obs, info = venv.reset()
    rng = np.random.default_rng(1)
    venv.step(legal_random(info["action_mask"], rng))
    after_then_ctrl_c(monkeypatch, venv.rules, "reset")
    with pytest.raises(KeyboardInterrupt):
        venv.reset(seed=4)
    with pytest.raises(RuntimeError, match="a reset was cut short"):
        venv.step(legal_random(info["action_mask"], rng))
    assert_refused_then_reset(venv, rng)


def test_a_step_cut_short_in_threads_waits_for_them_through_a_second_ctrl_c(monkeypatch):
    """Two threads: the calling thread's shard is interrupted while the
    worker's still moves its games, and a second Ctrl-C comes while the step
    waits for it; the step raises only once the worker's shard is done (no
    thread writes into the games of a closed engine, nor into the next ones)."""
    venv = V.make("pepper_v0", 64, seed=3, num_threads=2)
    obs, info = venv.reset()
    rng = np.random.default_rng(1)
    real, main = venv.rules.advance, threading.main_thread()
    started, cut, finished = threading.Event(), threading.Event(), threading.Event()

    def advance(*args, **kwargs):
        if threading.current_thread() is main:
            out = real(*args, **kwargs)
            assert started.wait(30)  # (once the worker runs its shard: one not started would never run)
            cut.set()
            ctrl_c()
        started.set()
        assert cut.wait(30)  # (the worker's shard: moves on only once the calling thread is interrupted)
        time.sleep(0.2)  # (the calling thread waiting for this shard by now)
        signal.pthread_kill(main.ident, signal.SIGINT)  # a second Ctrl-C, to the waiting thread
        time.sleep(0.2)
        out = real(*args, **kwargs)
        finished.set()
        return out

    monkeypatch.setattr(venv.rules, "advance", advance)
    with pytest.raises(KeyboardInterrupt):
        venv.step(legal_random(info["action_mask"], rng))
    assert finished.is_set(), "the step raised while a worker thread still moved games"
    monkeypatch.undo()
    signal.signal(signal.SIGINT, signal.default_int_handler)
    assert_refused_then_reset(venv, rng)


def test_shards_map_never_raises_while_a_shard_runs():
    """Shards.map on its own: cut short in the calling thread's shard, twice."""
    shards, main = Shards(4, 2, min_rows=1), threading.main_thread()
    started, cut, done = threading.Event(), threading.Event(), []

    def fn(lo: int, hi: int) -> int:
        if lo == 0:
            assert started.wait(30)
            cut.set()
            ctrl_c()
        started.set()
        assert cut.wait(30)
        time.sleep(0.2)
        signal.pthread_kill(main.ident, signal.SIGINT)
        time.sleep(0.2)
        done.append(lo)
        return lo

    try:
        with pytest.raises(KeyboardInterrupt):
            shards.map(4, fn)
        assert done == [2]
        assert shards.map(4, lambda lo, hi: (lo, hi)) == [(0, 2), (2, 4)]  # (the pool goes on)
    finally:
        shards.close()


@pytest.mark.parametrize("game", ["pepper_v0", "cancellation_hearts_v0"])
def test_a_ctrl_c_in_the_aec_envs_record_of_a_step_ends_the_game(monkeypatch, game):
    """The rules moved the game; the env is cut short while it records the
    rewards (a hand scored): its own record would be the step before's."""
    env = getattr(cardenvs, game).env()
    env.reset(seed=1)
    sent = after_then_ctrl_c(monkeypatch, env.unwrapped, "_accumulate_rewards")
    with pytest.raises(KeyboardInterrupt):
        for _ in range(2000):
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                env.reset()
            else:
                env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert sent
    for call in (env.last, lambda: env.step(0), env.unwrapped.state_dict):
        with pytest.raises(RuntimeError, match=CUT_SHORT):
            call()
    env.reset(seed=2)
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))


def test_a_ctrl_c_in_the_spit_aec_envs_record_of_a_tick_ends_the_game(monkeypatch):
    """Spit's AEC view: the tick played, the view cut short before it
    records the next tick's first agent (its pending actions are the old
    tick's): every later call refuses."""
    env = cardenvs.spit_v0.env()
    env.reset(seed=1)
    view = env.unwrapped
    after_then_ctrl_c(monkeypatch, view, "_tick_checked")
    with pytest.raises(KeyboardInterrupt):
        for _ in env.possible_agents:  # (a numpy int: checked alone, so the tick is _tick_checked's)
            obs, *_ = env.last()
            env.step(np.int64(np.flatnonzero(obs["action_mask"])[0]))
    for call in (env.last, lambda: env.step(0)):
        with pytest.raises(RuntimeError, match=CUT_SHORT):
            call()
    env.reset(seed=2)
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))


TIMER = textwrap.dedent(
    """
    import signal, sys, time, numpy as np, cardenvs.vector as V
    game, threads = sys.argv[1], int(sys.argv[2])
    def boom(*_):
        raise KeyboardInterrupt
    signal.signal(signal.SIGALRM, boom)
    rng = np.random.default_rng(1)
    pick = lambda m: ((rng.random(m.shape) + .01) * m).argmax(-1)
    v = V.make(game, 32, seed=3, num_threads=threads); obs, info = v.reset()
    for _ in range(3):  # (every usual kernel met once)
        obs, r, te, tr, info = v.step(pick(info["action_mask"]))
    t = time.perf_counter(); obs, r, te, tr, info = v.step(pick(info["action_mask"])); dt = time.perf_counter() - t
    landed = closed = 0
    for i in range(12):
        try:
            try:
                signal.setitimer(signal.ITIMER_REAL, float(rng.uniform(0.02, 1.0)) * dt)  # (in a step, mostly)
                obs, r, te, tr, info = v.step(pick(info["action_mask"]))
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except KeyboardInterrupt:
            landed += 1
            if v.closed:
                closed += 1
                try:
                    v.step(pick(info["action_mask"]))
                    raise AssertionError("a closed engine stepped")
                except RuntimeError as e:
                    assert "cut short" in str(e), e
                obs, info = v.reset(seed=10 + i)
        for row in range(32):  # every game an open engine holds is whole
            v.state_dict(row)
    print("landed", landed, "closed", closed)
    """
)


@pytest.mark.parametrize("game, threads", [("push_v0", 1), ("pepper_v0", 2)])
def test_real_timer_interrupts_with_kernels_as_python(game, threads):
    """Real SIGALRMs at random moments of steps, kernels run as plain Python
    (the first-use phase, where the window is widest): an engine still open
    holds whole games, a closed one refuses."""
    env = {**os.environ, "CARDENVS_COMPILE": "python", "PYTHONPATH": ROOT}
    out = subprocess.run(
        [sys.executable, "-c", TIMER, game, str(threads)], capture_output=True, text=True, env=env, timeout=600
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("landed"), out.stdout


def test_a_state_forgets_its_packs_before_an_array_bound_anew_can_be_freed():
    """A pack (a bundle of a compiled kernel) holds only its arrays'
    addresses.  Binding an attribute anew forgets the packs first: an
    interrupt between the two (Python raises a Ctrl-C at any call) must not
    leave a pack of the freed array for a kernel to write into (the
    glibc "double free" of an interrupted compiled run)."""
    from collections import namedtuple

    from cardenvs.core.game import BatchState

    class Freed:
        """An old value that sees, as it is freed, which bundles its state still holds."""

        def __del__(self):
            seen.append(dict(state._bundles))

    seen: list[dict] = []
    state = BatchState(4, np.random.default_rng(0))
    state.old = Freed()
    state.bundle(namedtuple("Kind", ["batch", "fixed_count"]))  # (a bundle made of the state's values)
    state.old = np.zeros(4)
    assert seen == [{}]


def test_the_refusal_says_what_cut_the_step_short_every_time(monkeypatch):
    """A refused call is not a step cut short: the message stays the first one's."""
    venv = V.make("pepper_v0", 8, seed=0)
    obs, info = venv.reset()
    after_then_ctrl_c(monkeypatch, venv.rules, "step_then")
    with pytest.raises(KeyboardInterrupt):
        venv.step(info["action_mask"].argmax(1))
    for _ in range(3):
        with pytest.raises(RuntimeError) as refused:
            venv.step(info["action_mask"].argmax(1))
        assert "(KeyboardInterrupt)" in str(refused.value) and str(refused.value).count("cut short") == 1
