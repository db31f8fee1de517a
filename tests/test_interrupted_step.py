"""A step cut short (N2): a Ctrl-C (a real SIGINT, raised as KeyboardInterrupt
by Python's handler) or an exception while the rules move the games closes
the one-process engine or the env: every later call says why, instead of
playing on with games half-stepped; reset() starts afresh."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import cardenvs
import cardenvs.vector as V
from cardenvs.core.errors import IllegalActionError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


from helpers import ctrl_c, legal_random, python_sigint_handler  # noqa: E402, F401 (a fixture, used by every test here)

pytestmark = pytest.mark.usefixtures("python_sigint_handler")


def interrupt_next_step(monkeypatch, module, name: str) -> None:
    """``module.name`` sends a Ctrl-C once, after doing its work (the games have moved)."""
    real = getattr(module, name)

    def cut(*args, **kwargs):
        monkeypatch.setattr(module, name, real)
        out = real(*args, **kwargs)
        ctrl_c()
        return out

    monkeypatch.setattr(module, name, cut)


@pytest.mark.parametrize("game", ["pepper_v0", "push_v0", "spit_v0"])
def test_a_ctrl_c_inside_a_step_closes_the_engine(monkeypatch, game):
    venv = V.make(game, 32, seed=3)
    obs, info = venv.reset()
    rng = np.random.default_rng(1)
    obs, *_, info = venv.step(legal_random(info["action_mask"], rng))
    interrupt_next_step(monkeypatch, venv.rules, "step" if game != "pepper_v0" else "step_then")
    with pytest.raises(KeyboardInterrupt):
        venv.step(legal_random(info["action_mask"], rng))
    for call in (lambda: venv.step(legal_random(info["action_mask"], rng)), lambda: venv.state_dict(0)):
        with pytest.raises(RuntimeError, match="cut short .*KeyboardInterrupt.*half-stepped"):
            call()
    obs, info = venv.reset(seed=4)  # new games: play goes on
    venv.step(legal_random(info["action_mask"], rng))
    assert not venv.closed and isinstance(venv.state_dict(0), dict)


def test_a_ctrl_c_in_push_round_scoring_closes_the_engine(monkeypatch):
    """Where timer interrupts landed in the attack (the repro): Push's round scoring."""
    import cardenvs.games.push.rules as push_rules

    venv = V.make("push_v0", 64, seed=3)
    obs, info = venv.reset()
    rng = np.random.default_rng(1)
    real = push_rules.score_rounds

    def interrupted(*args):
        monkeypatch.setattr(push_rules, "score_rounds", real)
        ctrl_c()

    monkeypatch.setattr(push_rules, "score_rounds", interrupted)
    with pytest.raises(KeyboardInterrupt):
        while push_rules.score_rounds is interrupted:
            obs, *_, info = venv.step(legal_random(info["action_mask"], rng))
    with pytest.raises(RuntimeError, match="cut short"):
        venv.step(legal_random(venv.rules.action_masks(venv.state), rng) if venv.state is not None else 0)


def test_an_exception_inside_a_step_closes_the_engine_too(monkeypatch):
    venv = V.make("pepper_v0", 16, seed=0)
    obs, info = venv.reset()

    def broken(*args, **kwargs):
        raise MemoryError("no room")

    monkeypatch.setattr(venv.rules, "step_then", broken)
    monkeypatch.setattr(venv.rules, "step", broken)
    with pytest.raises(MemoryError):
        venv.step(info["action_mask"].argmax(1))
    with pytest.raises(RuntimeError, match="MemoryError: no room"):
        venv.observe(np.zeros(16, np.int64))


def test_a_refused_action_does_not_close_the_engine():
    venv = V.make("pepper_v0", 8, seed=0)
    obs, info = venv.reset()
    bad = (~info["action_mask"]).argmax(1)
    with pytest.raises(IllegalActionError):
        venv.step(bad)
    venv.step(info["action_mask"].argmax(1))  # nothing moved: the engine plays on
    assert not venv.closed


@pytest.mark.parametrize("game", ["pepper_v0", "cancellation_hearts_v0"])
def test_a_ctrl_c_inside_an_aec_step_ends_the_game(monkeypatch, game):
    env = getattr(cardenvs, game).env()
    env.reset(seed=1)
    rules = env.unwrapped.rules
    interrupt_next_step(monkeypatch, rules, "step_one" if env.unwrapped._one is not None else "step")
    obs, *_ = env.last()
    with pytest.raises(KeyboardInterrupt):
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    with pytest.raises(RuntimeError, match="cut short"):
        env.last()
    with pytest.raises(RuntimeError, match="cut short"):
        env.unwrapped.state_dict()
    env.reset(seed=2)
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))


def test_a_ctrl_c_inside_a_spit_tick_ends_the_game(monkeypatch):
    par = cardenvs.spit_v0.parallel_env()
    obs, _ = par.reset(seed=1)
    inner = par.unwrapped
    interrupt_next_step(monkeypatch, inner.rules, "step_one" if inner._one is not None else "step")
    joint = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items()}
    with pytest.raises(KeyboardInterrupt):
        par.step(joint)
    with pytest.raises(RuntimeError, match="cut short"):
        par.step(joint)
    par.reset(seed=2)


TIMER = textwrap.dedent(
    """
    import signal, sys, numpy as np, cardenvs.vector as V
    def boom(*_):
        raise KeyboardInterrupt
    signal.signal(signal.SIGALRM, boom)
    rng = np.random.default_rng(1)
    pick = lambda m: ((rng.random(m.shape) + .01) * m).argmax(-1)
    v = V.make("pepper_v0", 32, seed=3); obs, info = v.reset()
    landed = refused = 0
    for i in range(12):
        try:
            try:
                signal.setitimer(signal.ITIMER_REAL, float(rng.uniform(0.0005, 0.01)))
                obs, r, te, tr, info = v.step(pick(info["action_mask"]))
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except KeyboardInterrupt:
            landed += 1
            if not v.closed:  # cut short before the games moved: they are as they were
                continue
            try:
                v.step(pick(info["action_mask"]))
            except RuntimeError as e:
                assert "cut short" in str(e), e
                refused += 1
            obs, info = v.reset(seed=10 + i)
        for row in range(32):  # every game the engine still holds is whole
            v.state_dict(row)
    print("landed", landed, "refused", refused)
    """
)


def test_real_timer_interrupts_never_leave_a_half_stepped_game_playing():
    """Kernels as plain Python (the first-use phase, where the window is widest)."""
    env = {**os.environ, "CARDENVS_COMPILE": "python", "PYTHONPATH": ROOT}
    out = subprocess.run([sys.executable, "-c", TIMER], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("landed"), out.stdout
