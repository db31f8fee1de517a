"""A new user's first use (issue #33): kernels not yet compiled run as
Python while a builder process compiles them (:mod:`cardenvs.core.compiling`),
with the same results compiled, as Python and switching mid-game; and a
cached kernel is used only if it was compiled from the code and for the
environment it would run with (stale or foreign caches are compiled again).

Each run that needs a mode of its own (``CARDENVS_COMPILE``) or an empty
cache (``NUMBA_CACHE_DIR``) is a subprocess.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from cardenvs.core import jit
from cardenvs.registry import GAMES as REGISTERED

pytestmark = pytest.mark.skipif(not jit.COMPILED, reason="numba compiles nothing here")

TESTS = pathlib.Path(__file__).parent
GAMES = tuple(REGISTERED)


def run(code: str, mode: str, cache: pathlib.Path | None = None, path: pathlib.Path | None = None) -> object:
    """Run ``code`` (which prints one JSON line last) in a new process in
    ``CARDENVS_COMPILE=mode``, with ``cache`` as numba's cache and ``path``
    importable; its JSON."""
    env = {**os.environ, "CARDENVS_COMPILE": mode}
    env.pop("NUMBA_DISABLE_JIT", None)
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    prelude = f"import sys; sys.path[:0] = [{str(TESTS)!r}, {str(path or TESTS)!r}]\n"
    out = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True, env=env, timeout=1800
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------- the same games, however the kernels run
GAMES_CODE = """
    import gc, hashlib, json
    import numpy as np
    import cardenvs, cardenvs.vector as V
    from cardenvs.core import builder, compiling, jit

    SWITCH = {switch}  # (the step after which kernels switch to compiled: -1 never)

    def switch(n):
        if n == SWITCH:  # from here on kernels are loaded from the cache, or built and then loaded
            compiling.MODE = "background"
            builder.BUILDER.generation += 1
        if n == SWITCH + 1:
            jit.wait_compiled()

    def aec(game):
        env, rng, h, n = cardenvs.make(game), np.random.default_rng(0), hashlib.sha256(), 0
        env.reset(seed=0)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            h.update(repr((agent, reward, term, trunc)).encode())
            h.update(obs["observation"].tobytes() + obs["action_mask"].tobytes())
            switch(n)
            n += 1
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        return h.hexdigest()

    def vector(game):
        venv, rng, h = V.make(game, 6, seed=3), np.random.default_rng(4), hashlib.sha256()
        obs, info = venv.reset()
        for n in range(120):
            switch(n)
            mask = info["action_mask"]
            obs, rewards, term, trunc, info = venv.step((rng.random(mask.shape) * mask).argmax(-1))
            for a in (obs, rewards, term, trunc, info["action_mask"]):
                h.update(np.ascontiguousarray(a).tobytes())
        return h.hexdigest()

    out = {{}}
    for game in {games!r}:
        out[game] = [aec(game), vector(game)]
        compiling.MODE = "{mode}"
    kernels = [k for k in gc.get_objects() if isinstance(k, compiling.Kernel)]
    out["compiled"] = sorted({{k.py_func.__qualname__ for k in kernels if k.signatures}})
    print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def plays() -> dict[str, dict]:
    """Every game's first AEC game and a vector run, with the kernels
    compiled (``now``), as Python (``python``: nothing compiled) and
    switching to compiled ones mid-game."""
    return {
        "now": run(GAMES_CODE.format(switch=-1, games=GAMES, mode="now"), "now"),
        "python": run(GAMES_CODE.format(switch=-1, games=GAMES, mode="python"), "python"),
        # (each game switches at its own step 40, its vector run at step 40)
        "switching": run(GAMES_CODE.format(switch=40, games=GAMES, mode="python"), "python"),
    }


@pytest.mark.parametrize("game", GAMES)
def test_python_kernels_play_the_compiled_games(plays, game):
    assert plays["python"][game] == plays["now"][game]


@pytest.mark.parametrize("game", GAMES)
def test_kernels_switching_mid_game_play_the_compiled_games(plays, game):
    assert plays["switching"][game] == plays["now"][game]


def test_the_python_runs_compiled_nothing_and_the_others_did(plays):
    assert plays["python"]["compiled"] == []
    assert "step_one" in plays["now"]["compiled"] and "step_one" in plays["switching"]["compiled"]


# ---------------------------------------------------------------- a kernel's Python version
@jit.kernel
def _touch_pack(p):
    """Write through every kind of view of a pack; return its scalars."""
    jit.view1(p, 0, np.int8)[1] = 7
    jit.view2(p, 1, np.int64)[1, 2] = -5
    jit.view3(p, 2, np.bool_)[0, 1, 1] = True
    jit.view4(p, 3, np.int16)[1, 0, 1, 2] = 300
    return jit.scalar(p, 4), jit.fscalar(p, 5)


@jit.kernel
def _calls_touch(p):
    """A kernel calling another (its Python version calls the other's)."""
    return _touch_pack(p)


def test_a_kernel_run_as_python_views_the_packed_arrays_themselves():
    from cardenvs.core import compiling

    arrays = (
        np.zeros(3, np.int8),
        np.zeros((2, 3), np.int64),
        np.zeros((1, 2, 2), bool),
        np.zeros((2, 1, 2, 3), np.int16),
    )
    kinds = ((np.int8, 1), (np.int64, 2), (np.bool_, 3), (np.int16, 4), (None, 0), (float, 0))
    packed = jit.pack((*arrays, 42, 0.25), kinds)
    assert compiling.run_python(_calls_touch)(packed) == (42, 0.25)
    assert arrays[0][1] == 7 and arrays[1][1, 2] == -5 and arrays[2][0, 1, 1] and arrays[3][1, 0, 1, 2] == 300
    assert arrays[0].sum() == 7 and arrays[1].sum() == -5 and arrays[2].sum() == 1 and arrays[3].sum() == 300
    assert _calls_touch.signatures == [] and _touch_pack.signatures == []  # (nothing compiled)
    python = compiling.python_of(_calls_touch)
    assert python.__globals__["_touch_pack"] is compiling.python_of(_touch_pack)
    assert compiling.python_of(_touch_pack).__globals__["jit"] is jit  # (jit.view1 & co.: their Python versions)


# ---------------------------------------------------------------- the builder
KERNELS = """
import numpy as np
from cardenvs.core.jit import kernel

@kernel
def count_positive(values):
    total = 0
    for i in range(values.shape[0]):
        total += values[i] > 0
    return total

@kernel
def not_compilable(values):
    return values, object()  # (numba cannot compile an object())

def closure():
    @kernel
    def inner(values):
        return values.shape[0]
    return inner
"""


def test_a_kernel_runs_as_python_until_the_builder_compiled_it(tmp_path):
    (tmp_path / "first_use_kernels.py").write_text(KERNELS)
    code = """
        import json, numpy as np
        from cardenvs.core import jit
        from first_use_kernels import count_positive
        values = np.array([3, -1, 0, 7, 2])
        first, before = int(count_positive(values)), len(count_positive.signatures)
        done = jit.wait_compiled(timeout=900)
        second, after = int(count_positive(values)), len(count_positive.signatures)
        print(json.dumps([first, before, done, second, after, count_positive.stats.cache_hits.total()]))
    """
    first, before, done, second, after, hits = run(code, "background", tmp_path / "cache", tmp_path)
    assert (first, before) == (3, 0)  # run as Python
    assert (done, second, after, hits) == (True, 3, 1, 1)  # then loaded from the cache the builder filled


def test_what_the_builder_cannot_build_is_compiled_where_it_is_run(tmp_path):
    (tmp_path / "first_use_kernels.py").write_text(KERNELS)
    code = """
        import json, numpy as np
        from cardenvs.core import jit
        from first_use_kernels import closure, not_compilable
        inner, values = closure(), np.arange(4)
        size, compiled_at_once = int(inner(values)), len(inner.signatures)  # (a new process cannot import it)
        first = type(not_compilable(values)[1]).__name__  # (as Python; the builder fails)
        jit.wait_compiled(timeout=900)
        try:
            not_compilable(values)
            error = None
        except Exception as caught:  # (numba's own error, as on a first use without the builder)
            error = type(caught).__name__
        print(json.dumps([size, compiled_at_once, first, error]))
    """
    assert run(code, "background", tmp_path / "cache", tmp_path) == [4, 1, "object", "TypingError"]


def test_a_call_for_many_games_runs_as_python_once_then_compiled(tmp_path):
    # (a call of WAIT_ROWS games: its first as Python, asking the builder; then it waits for it or compiles)
    (tmp_path / "first_use_kernels.py").write_text(KERNELS)
    code = """
        import json, numpy as np
        from cardenvs.core import compiling
        from first_use_kernels import count_positive
        large = np.ones(compiling.WAIT_ROWS, np.int64)
        first = [int(count_positive(large)), len(count_positive.signatures)]
        many, compiled_many = int(count_positive(large)), len(count_positive.signatures)
        fewer = int(count_positive(large[: compiling.WAIT_ROWS - 1].astype(np.int32)))
        print(json.dumps([first, many, compiled_many, fewer, len(count_positive.signatures)]))
    """
    first, many, compiled_many, fewer, compiled_fewer = run(code, "background", tmp_path / "cache", tmp_path)
    from cardenvs.core import compiling

    rows = compiling.WAIT_ROWS
    assert first == [rows, 0]  # as Python, while the builder compiles it
    assert (many, compiled_many) == (rows, 1)  # then compiled (waited for, or compiled here) before it ran
    assert (fewer, compiled_fewer) == (rows - 1, 1)  # another signature, below the line: as Python


# A module whose import waits, in a builder, until the test opens its gate (a file): the builder is busy
# with the first kernel asked for as long as the test needs, with no timing involved.
GATED = (
    KERNELS
    + """
import os, time
if os.environ.get("_CARDENVS_BUILDER_PARENT"):
    while not os.path.exists(os.environ["GATE"]):
        time.sleep(0.05)

@kernel
def count_negative(values):
    total = 0
    for i in range(values.shape[0]):
        total += values[i] < 0
    return total
"""
)


def test_at_scale_the_caller_compiles_what_the_builder_has_not_started(tmp_path):
    """Two kernels called at scale: the builder is handed the first, the
    second waits (pending) and, at its second call, is taken back and
    compiled in the calling process while the builder still compiles the
    first (they share no code: both cores at work); the first is then loaded."""
    (tmp_path / "first_use_kernels.py").write_text(GATED)
    gate = tmp_path / "gate"
    code = f"""
        import json, os, numpy as np
        os.environ["GATE"] = {str(gate)!r}
        from cardenvs.core import builder, compiling, jit
        from first_use_kernels import count_positive, count_negative
        large, B = np.ones(compiling.WAIT_ROWS, np.int64), builder.BUILDER
        python = [int(count_positive(large)), int(count_negative(large))]
        (first,), (second,) = [[k for k in B.status if k[0] is kernel] for kernel in (count_positive, count_negative)]
        asked = [B.status[first], B.status[second]]
        here = [int(count_negative(-large)), len(count_negative.signatures), count_negative.stats.cache_misses.total()]
        still = [B.status[first], B.status[second], len(count_positive.signatures)]
        open({str(gate)!r}, "w").close()
        done = jit.wait_compiled(timeout=900)
        loaded = [int(count_positive(large)), count_positive.stats.cache_hits.total()]
        print(json.dumps([python, asked, here, still, done, loaded]))
    """
    python, asked, here, still, done, loaded = run(code, "background", tmp_path / "cache", tmp_path)
    from cardenvs.core import compiling

    rows = compiling.WAIT_ROWS
    assert python == [rows, 0]  # (as Python)
    assert asked == ["building", "pending"]  # (the builder has one kernel at a time)
    assert here == [rows, 1, 1]  # compiled here (a cache miss), not loaded
    assert still == ["building", "built", 0]  # while the builder was still at the first
    assert (done, loaded) == (True, [rows, 1])  # the first, built by the builder, loaded


FIRST_STEP = """
    import gc, json
    import numpy as np
    import cardenvs.vector as V
    from cardenvs.core import builder, compiling

    def compiled_here():  # (compiles made in this process, by kernel: a load from the cache is none)
        kernels = [k for k in gc.get_objects() if isinstance(k, compiling.Kernel)]
        return sorted(k.py_func.__name__ for k in kernels if k.stats.cache_misses.total())

    v, rng = V.make("push_v0", compiling.WAIT_ROWS, seed=0), np.random.default_rng(0)
    _, info = v.reset()
    asked = sorted(k[0].py_func.__name__ for k in builder.BUILDER.status)
    mask = info["action_mask"]
    v.step((rng.random(mask.shape) * mask).argmax(-1))
    print(json.dumps([asked, compiled_here()]))
"""


def test_a_game_s_reset_and_first_step_at_scale_run_as_python(tmp_path):
    """A game's kernels called again before its first step at scale ends
    (Push's masks: after the reset, and after the step) run as Python as
    their first calls do, while the builder compiles them: nothing is
    compiled in the process before its first step has ended."""
    asked, compiled = run(FIRST_STEP, "background", tmp_path / "cache")
    assert "write_masks" in asked and "encode_rows" in asked  # (called at the reset, and again in the step)
    assert compiled == []


def test_a_helper_that_asks_no_builder_runs_as_python_until_another_kernel_starts_one(tmp_path):
    # (jit._address, packing's helper: a builder started for it alone would compete with a run at scale)
    (tmp_path / "first_use_kernels.py").write_text(KERNELS)
    code = """
        import json, numpy as np
        from cardenvs.core import builder, compiling, jit
        from first_use_kernels import count_positive
        count_positive.asks_builder = False
        few = int(count_positive(np.array([3, -1, 0, 7, 2])))
        started, compiled_few = builder.BUILDER._process is not None, len(count_positive.signatures)
        many = int(count_positive(np.ones(compiling.WAIT_ROWS, np.int64)))
        started_after, compiled = builder.BUILDER._process is not None, len(count_positive.signatures)
        from first_use_kernels import not_compilable
        not_compilable(np.arange(3))  # (a kernel that asks: a builder starts, and the helper uses it too)
        small = np.array([1, 2], np.int16)
        count_positive(small)
        jit.wait_compiled(timeout=900)
        count_positive(small)
        print(json.dumps([few, started, compiled_few, many, started_after, compiled,
                          len(count_positive.signatures), jit._address.asks_builder]))
    """
    from cardenvs.core import compiling

    few, started, compiled_few, many, started_after, compiled, later, address = run(
        code, "background", tmp_path / "cache", tmp_path
    )
    assert (few, started, compiled_few) == (3, False, 0)  # as Python, no builder asked
    assert (many, started_after, compiled) == (compiling.WAIT_ROWS, False, 0)  # as Python at any size
    assert later == 1  # asked of the builder another kernel started, then loaded
    assert address is False


def test_many_games_are_told_by_arrays_and_by_the_arrays_of_packs():
    from cardenvs.core.compiling import _PACK_WIDTH, rows_of

    assert _PACK_WIDTH == 1 + jit.PACK_DIMS
    state = (np.zeros((300, 4), np.int8), np.zeros(7, np.int64), 5)
    kinds = ((np.int8, 2), (np.int64, 1), (None, 0))
    assert rows_of((jit.pack(state, kinds),)) == 300
    assert rows_of((np.zeros(12), 3, np.zeros((40, 2)))) == 40  # (a tie: the larger)
    table, games = np.zeros(7776, np.int64), [np.zeros((1, 52), np.int64), np.zeros(1, np.int64)]
    kinds = ((np.int64, 2), (np.int64, 1), (np.int64, 1))
    assert rows_of((np.zeros(1), jit.pack([*games, table], kinds))) == 1  # (a game's table is not its batch)
    assert rows_of((1, 2.5, np.float64(3))) == 0


# ---------------------------------------------------------------- stale and foreign caches
TABLES = """
import numpy as np
from cardenvs.core.jit import kernel

TABLE = np.array([10, 20, 30])

@kernel
def double(x):
    return x * 2
"""

READER = """
from cardenvs.core.jit import kernel
from .tables import TABLE, double

@kernel
def read(x):
    return TABLE[x] + double(x)
"""

READ = """
    import json
    from cardenvs.core import compiling
    compiling._ENVIRONMENT += {extra!r}.encode()
    from stale_pkg.reader import read
    print(json.dumps([int(read(1)), read.stats.cache_hits.total(), read.stats.cache_misses.total()]))
"""


def test_a_kernel_is_compiled_again_when_what_it_reads_changed(tmp_path):
    """numba stamps a cached kernel with its own file only: ``read``'s file
    never changes here, but the table it reads and the kernel it calls do,
    in another file; each change is compiled again, never loaded stale."""
    package = tmp_path / "stale_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "reader.py").write_text(READER)
    (package / "tables.py").write_text(TABLES)
    cache = tmp_path / "cache"

    def read() -> list:
        return run(READ.format(extra=""), "now", cache, tmp_path)

    assert read() == [22, 0, 1]  # compiled
    assert read() == [22, 1, 0]  # loaded from the cache
    (package / "tables.py").write_text(TABLES.replace("[10, 20, 30]", "[10, 50, 30]"))
    assert read() == [52, 0, 1]  # another table: compiled again
    assert read() == [52, 1, 0]
    (package / "tables.py").write_text(TABLES.replace("[10, 20, 30]", "[10, 50, 30]").replace("x * 2", "x * 3"))
    assert read() == [53, 0, 1]  # another callee: compiled again


def test_a_cache_written_for_another_environment_is_not_used(tmp_path):
    """A cache written with other libraries (here: another numpy, as the
    stamp tells) misses, and is written again for this one."""
    package = tmp_path / "stale_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "reader.py").write_text(READER)
    (package / "tables.py").write_text(TABLES)
    cache = tmp_path / "cache"
    assert run(READ.format(extra=" numpy 0.0-elsewhere"), "now", cache, tmp_path) == [22, 0, 1]
    assert run(READ.format(extra=""), "now", cache, tmp_path) == [22, 0, 1]  # not the other environment's
    assert run(READ.format(extra=""), "now", cache, tmp_path) == [22, 1, 0]


# ---------------------------------------------------------------- the line said when a call waits for the compiler
NOTICE = """
    import json, sys
    import numpy as np
    import cardenvs.vector as V
    from cardenvs.core import first_use
    first_use.NOTICE_SECONDS = 0.0  # (every wait said: High Card's kernels compile in about a second)
    v, rng = V.make("high_card_v0", 300, seed=0), np.random.default_rng(0)
    _, info = v.reset()
    for _ in range(4):
        mask = info["action_mask"]
        _, _, _, _, info = v.step((rng.random(mask.shape) * mask).argmax(-1))
    print(json.dumps(first_use.QUIET))
"""


@pytest.mark.parametrize("quiet", [False, True])
def test_a_wait_for_the_compiler_is_said_in_one_line_unless_silenced(tmp_path, quiet):
    """A real game at scale with an empty cache: the call that waits for the
    compiler says so on stderr, in one line (the game, how many kernels,
    about how long, once per machine, how to hide it); the environment
    variable silences it (the tests set it: tests/conftest.py)."""
    env = {**os.environ, "CARDENVS_COMPILE": "background", "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("NUMBA_DISABLE_JIT", None)
    env.pop("CARDENVS_COMPILE_QUIET", None)
    if quiet:
        env["CARDENVS_COMPILE_QUIET"] = "1"
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(NOTICE)], capture_output=True, text=True, env=env, timeout=1800
    )
    assert out.returncode == 0, out.stderr
    variable = json.loads(out.stdout.strip().splitlines()[-1])
    said = [line for line in out.stderr.splitlines() if line.startswith("cardenvs: compiling")]
    if quiet:
        assert said == [] and out.stderr == ""
        return
    assert said and len(said) == len(out.stderr.splitlines())  # (nothing else said)
    for line in said:
        for part in (" kernel", ", about ", " s); once per machine: they are kept in ", f"(set {variable}=1 to hide"):
            assert part in line, line
    games = [line for line in said if line.startswith("cardenvs: compiling High Card's kernels")]
    assert games and str(tmp_path / "cache") in games[0]  # (where they are kept)


def test_the_tests_run_with_the_line_silenced():
    from cardenvs.core import first_use

    assert os.environ.get(first_use.QUIET) == "1"
