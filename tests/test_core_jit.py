"""cardenvs.core.jit: kernels are compiled with numba, and are plain Python without it."""

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from cardenvs.core import jit


def _count_positive(values):
    """Count entries > 0 with an explicit loop, as kernels are written."""
    total = 0
    for i in range(values.shape[0]):
        if values[i] > 0:
            total += 1
    return total


def test_kernel_compiles_with_numba():
    pytest.importorskip("numba")
    compiled = jit.kernel(_count_positive)
    assert jit.COMPILED
    assert compiled is not _count_positive
    assert compiled.py_func is _count_positive  # a numba dispatcher over the same function
    values = np.array([3, -1, 0, 7, 2], dtype=np.int8)
    assert compiled(values) == 3 == _count_positive(values)


def test_kernel_is_plain_python_without_numba(monkeypatch):
    monkeypatch.setattr(jit, "_numba", None)
    assert jit.kernel(_count_positive) is _count_positive


# Per game: (batch, steps, seed, config) runs that reach the ends of hands,
# rounds and games, in several configs.
PLAIN_PYTHON_RUNS = {
    "pepper_v0": [
        (5, 300, 1, {"num_players": 4, "max_hands": 2}),
        (3, 200, 2, {"num_players": 3, "reward": "score_delta", "max_hands": 1}),
        (3, 200, 3, {"num_players": 2, "max_hands": 2}),
    ],
    "cancellation_hearts_v0": [
        (7, 300, 3, {"num_players": 7, "max_hands": 2}),
        (3, 300, 4, {"num_players": 11, "passing": "none", "max_hands": 1, "reward": "score_delta"}),
    ],
    "push_v0": [(3, 300, 5, {"rounds": [1, 5]}), (2, 200, 6, {"rounds": [3], "reward": "score_delta"})],
    "spit_v0": [
        (5, 300, 7, {}),
        (3, 300, 8, {"stockpiles": 4, "alternate_colors": True}),
        (3, 200, 9, {"variant": "speed"}),
    ],
}


@pytest.mark.parametrize("game", sorted(PLAIN_PYTHON_RUNS))
def test_compiled_kernels_play_exactly_as_plain_python(game):
    """Every game's kernels, compiled here, and the same functions run as
    plain Python (NUMBA_DISABLE_JIT=1, in a subprocess) give identical games:
    one implementation of the rules, whichever way it runs."""
    pytest.importorskip("numba")
    from helpers import vector_trajectory_digest

    runs = PLAIN_PYTHON_RUNS[game]
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); "
        "from helpers import vector_trajectory_digest as d; "
        f"print([d({game!r}, b, s, seed, **c) for b, s, seed, c in {runs!r}])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(pathlib.Path(__file__).parent)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "NUMBA_DISABLE_JIT": "1"},
    ).stdout
    assert out.strip() == repr([vector_trajectory_digest(game, b, s, seed, **c) for b, s, seed, c in runs])


def test_compiled_kernels_release_the_gil():
    """Compiled kernels release the GIL, so threads (each stepping its own
    engine) run them at once."""
    if not jit.COMPILED:
        pytest.skip("numba not installed")
    compiled = jit.kernel(_count_positive)
    assert compiled.targetoptions["nogil"] is True
    assert compiled(np.array([1, -1, 2])) == 2
