"""numba's internals that the compiler and the compile cache use are checked
before use (:mod:`cardenvs.core.numba_internals`): this numba passes, and a
numba whose internals differ (an attribute gone, a method's parameters
changed: simulated in a new process before cardenvs is imported, with
caches of its own) gets one warning line and plain numba kernels, which play
the games with the same results as the kernels run as Python.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import cardenvs
from cardenvs.core import compile_cache, jit, numba_internals

pytestmark = pytest.mark.skipif(not jit.COMPILED, reason="numba compiles nothing here")

ROOT = pathlib.Path(cardenvs.__file__).resolve().parents[1]

#: What each simulated numba release changed, run before cardenvs is imported.
CHANGES = {
    "attribute gone": """
        import numba._dispatcher
        del numba._dispatcher.compute_fingerprint
    """,
    "parameters changed": """
        from numba.core.dispatcher import Dispatcher
        original = Dispatcher.compile
        def compile(self, sig, *, flags=None):
            return original(self, sig)
        Dispatcher.compile = compile
    """,
}

PLAY = """
    import hashlib, json
    import numpy as np
    import cardenvs, cardenvs.vector as V
    from cardenvs.core import jit

    h = hashlib.sha256()
    env = cardenvs.make("high_card_v0")
    env.reset(seed=1)
    for _, agent in zip(range(12), env.agent_iter()):
        obs, reward, term, trunc, _ = env.last()
        h.update(repr((agent, reward, term, trunc)).encode() + obs["observation"].tobytes())
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    venv, rng = V.make("high_card_v0", 5, seed=3), np.random.default_rng(4)
    obs, info = venv.reset()
    for _ in range(12):
        actions = (rng.random(info["action_mask"].shape) * info["action_mask"]).argmax(axis=-1)
        obs, rewards, term, trunc, info = venv.step(actions)
        h.update(obs.tobytes() + rewards.tobytes() + term.tobytes() + trunc.tobytes())
    venv.close()
    print(json.dumps([h.hexdigest(), jit._compiling is None]))
"""


def play(tmp_path: pathlib.Path, change: str = "", mode: str = "background") -> tuple[list, str]:
    """Run :data:`PLAY` after ``change`` in a new process in ``CARDENVS_COMPILE=mode``,
    with an empty numba cache and private folder; its JSON line and its stderr."""
    env = {k: v for k, v in os.environ.items() if k not in (numba_internals.WARNED, compile_cache.WARNED)}
    env.pop("NUMBA_DISABLE_JIT", None)
    env.update(CARDENVS_COMPILE=mode, NUMBA_CACHE_DIR=str(tmp_path / "numba"), XDG_CACHE_HOME=str(tmp_path / "xdg"))
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    code = textwrap.dedent(change) + textwrap.dedent(PLAY)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1]), out.stderr


def test_this_numba_has_what_the_compiler_uses():
    assert numba_internals.problem() is None
    assert jit._compiling is not None


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_changed_internals_fall_back_to_plain_numba(tmp_path, change):
    (expected, _), _ = play(tmp_path / "python", mode="python")
    (digest, plain), stderr = play(tmp_path / "changed", CHANGES[change])
    warned = [line for line in stderr.splitlines() if line.strip()]
    assert len(warned) == 1, stderr
    assert "NumbaInternalsWarning" in warned[0] and "numba's own cache" in warned[0]
    assert plain, "kernels are plain numba functions"
    assert digest == expected, "plain numba kernels play as the kernels run as Python"
    assert list((tmp_path / "changed" / "numba").rglob("*.nbi")), "numba's own cache holds the kernels"
