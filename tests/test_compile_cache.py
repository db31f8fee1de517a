"""The compile cache (:mod:`cardenvs.core.compiling`, :mod:`cardenvs.core.compile_cache`):
a kernel is compiled again whenever anything it reads changed, in whatever
file (never loaded stale), and the cache is treated as code: a folder that
someone else could write is refused for a private one, and no file is
unpickled unless this user's key signed it.

Each run is a new process with a package written to a temporary folder,
``CARDENVS_COMPILE=now`` (or ``background``: the builder), its own
``NUMBA_CACHE_DIR`` and its own private folder (``XDG_CACHE_HOME``).
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import pickle
import subprocess
import sys
import textwrap

import pytest

import cardenvs
from cardenvs.core import jit

pytestmark = pytest.mark.skipif(not jit.COMPILED, reason="numba compiles nothing here")
caching = pytest.importorskip("numba.core.caching")
compile_cache = pytest.importorskip("cardenvs.core.compile_cache")

ROOT = pathlib.Path(cardenvs.__file__).resolve().parents[1]
REFUSED = "refused the compile cache"

READ = """
    import json
    from pkg.reader import read
    print(json.dumps([int(read(1)), read.stats.cache_hits.total()]))
"""


def write_package(where: pathlib.Path, files: dict[str, str]) -> None:
    """Write ``files`` (path under ``where`` -> text), folders made as needed."""
    for name, text in files.items():
        path = where / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def run(tmp_path: pathlib.Path, cache: pathlib.Path | None, code: str = READ, mode: str = "now") -> tuple[list, str]:
    """Run ``code`` (printing one JSON line last) in a new process with
    ``tmp_path`` importable, ``cache`` as ``NUMBA_CACHE_DIR`` (None: numba's
    default, the ``__pycache__`` beside the source) and a private folder of
    its own; its JSON and its stderr (its builder's included)."""
    env = {key: value for key, value in os.environ.items() if key not in ("NUMBA_DISABLE_JIT", "NUMBA_CACHE_DIR")}
    env.pop(compile_cache.WARNED, None)
    env.update(CARDENVS_COMPILE=mode, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(ROOT), env.get("PYTHONPATH", "")])
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1]), out.stderr


# ---------------------------------------------------------------- what a kernel reads from another file
KERNEL = "from cardenvs.core.jit import kernel\n"
CASES = {  # name: (the other file before, after, the reader's body, the value read before, after)
    "callee default argument": (
        KERNEL + "@kernel\ndef scale(x, k=2):\n    return x * k\n",
        KERNEL + "@kernel\ndef scale(x, k=3):\n    return x * k\n",
        "from .other import scale\n@kernel\ndef read(x):\n    return scale(x)\n",
        2,
        3,
    ),
    "IntEnum member": (
        "import enum\nclass Suit(enum.IntEnum):\n    CLUBS = 1\n    SPADES = 2\n",
        "import enum\nclass Suit(enum.IntEnum):\n    CLUBS = 4\n    SPADES = 2\n",
        "from .other import Suit\n@kernel\ndef read(x):\n    return x * Suit.CLUBS\n",
        1,
        4,
    ),
    "module.attr of a package outside cardenvs": (
        "import numpy as np\nTABLE = np.array([10, 20, 30])\n",
        "import numpy as np\nTABLE = np.array([10, 50, 30])\n",
        "import elsewhere.other\n@kernel\ndef read(x):\n    return elsewhere.other.TABLE[x]\n",
        20,
        50,
    ),
    "callee body": (
        KERNEL + "@kernel\ndef double(x):\n    return x * 2\n",
        KERNEL + "@kernel\ndef double(x):\n    return x * 3\n",
        "from .other import double\n@kernel\ndef read(x):\n    return double(x)\n",
        2,
        3,
    ),
    "global constant": (
        "SIZE = 5\n",
        "SIZE = 7\n",
        "from .other import SIZE\n@kernel\ndef read(x):\n    return x + SIZE\n",
        6,
        8,
    ),
    "module-level array": (
        "import numpy as np\nTABLE = np.array([10, 20, 30], np.int64)\n",
        "import numpy as np\nTABLE = np.array([10, 20, 30], np.int32) * 4\n",
        "from .other import TABLE\n@kernel\ndef read(x):\n    return TABLE[x]\n",
        20,
        80,
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_kernel_is_compiled_again_when_what_it_reads_changes_in_another_file(tmp_path, case):
    """The reader's file never changes; what it reads does, in another file
    (numba stamps a cached kernel with its own file only): the next process
    sees the new value, compiled again, never the stale compiled one."""
    before, after, body, seen_before, seen_after = CASES[case]
    other = "elsewhere/other.py" if "outside" in case else "pkg/other.py"
    write_package(tmp_path, {"pkg/__init__.py": "", "elsewhere/__init__.py": "", other: before})
    write_package(tmp_path, {"pkg/reader.py": KERNEL + body})
    cache = tmp_path / "cache"
    assert run(tmp_path, cache) == ([seen_before, 0], "")
    assert run(tmp_path, cache)[0] == [seen_before, 1]  # (the cache is used when nothing changed)
    (tmp_path / other).write_text(after)
    assert run(tmp_path, cache)[0] == [seen_after, 0]


# ---------------------------------------------------------------- who may write the cache
READER = {"pkg/__init__.py": "", "pkg/reader.py": KERNEL + "@kernel\ndef read(x):\n    return x + 41\n"}
MARK = "PLANTED_RAN"


class Payload:
    """What a planted cache file runs when unpickled: it leaves a mark."""

    def __init__(self, mark: pathlib.Path):
        self.mark = str(mark)

    def __reduce__(self) -> tuple:
        return exec, (f"open({self.mark!r}, 'a').write('ran\\n')",)


@pytest.fixture(scope="module")
def cache_names(tmp_path_factory) -> list[str]:
    """The names of the cache files numba writes for ``pkg.reader.read``, learnt by a run."""
    where = tmp_path_factory.mktemp("probe")
    write_package(where, READER)
    run(where, where / "cache")
    return sorted({p.name for p in (where / "cache").rglob("reader.read-*.nb[ic]")})


def plant(folder: pathlib.Path, names: list[str], mark: pathlib.Path, source: pathlib.Path | None = None) -> None:
    """Plant a pickle that leaves ``mark`` under each of ``names`` in
    ``folder`` (in the sub-folder numba names for ``source``, a
    ``NUMBA_CACHE_DIR``'s), as another user could before this one's first run."""
    if source is not None:
        folder = folder / caching._CacheLocator.get_suitable_cache_subpath(str(source))
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_bytes(pickle.dumps(Payload(mark)))


def private_cache(tmp_path: pathlib.Path) -> list[pathlib.Path]:
    return sorted((tmp_path / "xdg" / "cardenvs" / "numba").rglob("*.nbi"))


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o1777])
def test_a_cache_folder_others_can_write_is_refused(tmp_path, cache_names, mode):
    """A kernel's folder in ``NUMBA_CACHE_DIR`` writable by everyone (sticky
    or not: others may add the files it does not have yet), or by a group of
    other users (``nogroup``), is refused with one warning: what was planted
    there never runs, and the kernel is cached in the private folder."""
    if mode == 0o770 and os.geteuid() != 0:
        pytest.skip("giving a folder to a group of other users needs root")
    write_package(tmp_path, READER)
    shared, mark = tmp_path / "shared", tmp_path / MARK
    plant(shared, cache_names, mark, tmp_path / "pkg" / "reader.py")
    for folder in [shared, *shared.rglob("*")]:
        os.chmod(folder, mode if folder.is_dir() else 0o666)
        if os.geteuid() == 0:
            os.chown(folder, 0, 65534)  # (a group of others: root's own group is its private one)
    value, stderr = run(tmp_path, shared)
    assert value == [42, 0] and not mark.exists()
    assert stderr.count(REFUSED) == 1 and f"writable by others (mode {mode:o})" in stderr
    assert private_cache(tmp_path) and run(tmp_path, shared)[0] == [42, 1]


@pytest.mark.skipif(os.geteuid() != 0, reason="making a folder of another user needs root")
def test_a_cache_folder_of_another_user_is_refused(tmp_path, cache_names):
    """A ``NUMBA_CACHE_DIR`` owned by another user (``nobody``), however
    private its mode, is refused: its owner can write it."""
    write_package(tmp_path, READER)
    shared, mark = tmp_path / "shared", tmp_path / MARK
    plant(shared, cache_names, mark, tmp_path / "pkg" / "reader.py")
    for folder in [shared, *shared.rglob("*")]:
        os.chown(folder, 65534, 65534)
    value, stderr = run(tmp_path, shared)
    assert value == [42, 0] and not mark.exists()
    assert stderr.count(REFUSED) == 1 and "owned by another user (uid 65534)" in stderr
    assert private_cache(tmp_path)


def test_a_private_folder_inside_one_others_can_write_is_refused(tmp_path):
    """A 0o700 folder of this user's inside a folder everyone can write (not
    sticky) is refused: anyone may rename it away and put their own in its place."""
    write_package(tmp_path, READER)
    (tmp_path / "open" / "mine").mkdir(parents=True, mode=0o700)
    os.chmod(tmp_path / "open", 0o777)
    value, stderr = run(tmp_path, tmp_path / "open" / "mine")
    assert value == [42, 0] and stderr.count(REFUSED) == 1 and f"inside {tmp_path / 'open'}" in stderr


def test_a_pycache_others_can_write_is_refused(tmp_path, cache_names):
    """numba's default, the ``__pycache__`` beside the kernel's source, is judged the same way."""
    write_package(tmp_path, READER)
    pycache, mark = tmp_path / "pkg" / "__pycache__", tmp_path / MARK
    plant(pycache, cache_names, mark)
    os.chmod(pycache, 0o777)
    value, stderr = run(tmp_path, None)
    assert value == [42, 0] and not mark.exists() and stderr.count(REFUSED) == 1 and str(pycache) in stderr
    assert private_cache(tmp_path)


def test_a_private_cache_folder_is_used_as_is(tmp_path):
    """A 0o700 folder of this user's is used: written signed (files 0o600), loaded by the next process, no warning."""
    write_package(tmp_path, READER)
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    assert run(tmp_path, cache) == ([42, 0], "")
    assert run(tmp_path, cache) == ([42, 1], "")
    written = [p for p in cache.rglob("*.nb[ic]") if "pkg_" in str(p)]
    assert written and not private_cache(tmp_path)
    for path in written:
        assert path.stat().st_mode & 0o777 == 0o600 and path.read_bytes().startswith(compile_cache.MAGIC)


def test_a_file_planted_in_ones_own_folder_is_never_unpickled(tmp_path, cache_names):
    """Files in a folder of this user's that this user's key did not sign
    (a restored CI cache, a copied folder, or written by plain numba) are
    not read: compiled again and written signed over them."""
    write_package(tmp_path, READER)
    cache, mark = tmp_path / "cache", tmp_path / MARK
    plant(cache, cache_names, mark, tmp_path / "pkg" / "reader.py")
    assert run(tmp_path, cache) == ([42, 0], "")
    assert not mark.exists()
    assert run(tmp_path, cache) == ([42, 1], "")


def test_the_builder_uses_the_same_folder_without_warning_again(tmp_path, cache_names):
    """With a refused ``NUMBA_CACHE_DIR`` the builder process compiles into
    the same private folder the process that asked loads from (that process
    loads what it built), and the warning is said once, not again by the builder."""
    write_package(tmp_path, READER)
    shared, mark = tmp_path / "shared", tmp_path / MARK
    plant(shared, cache_names, mark, tmp_path / "pkg" / "reader.py")
    os.chmod(shared, 0o777)
    code = """
        import json
        from cardenvs.core import jit
        from pkg.reader import read
        first = int(read(1))  # (run as Python while the builder compiles it)
        done = jit.wait_compiled(300)
        print(json.dumps([first, done, int(read(1)), read.stats.cache_hits.total()]))
    """
    value, stderr = run(tmp_path, shared, code, mode="background")
    assert value == [42, True, 42, 1] and not mark.exists()
    assert stderr.count(REFUSED) == 1 and private_cache(tmp_path)


# ---------------------------------------------------------------- the verdict on a folder, in this process
def test_the_verdict_on_folders(tmp_path):
    """Mode bits and owners decide (``os.access`` says yes to root): a
    private folder is fine, also inside a sticky folder everyone can write
    (as ``/tmp``) or behind a link of this user's; a group of other users,
    everyone, or another owner is not, nor a link inside a folder others can write."""
    made = {}
    for name, mode in [("private", 0o700), ("sticky", 0o1777), ("everyone", 0o777), ("group", 0o770)]:
        made[name] = tmp_path / name
        made[name].mkdir()
        os.chmod(made[name], mode)
    (made["sticky"] / "inner").mkdir(mode=0o700)
    (made["everyone"] / "inner").mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(made["private"])
    (made["everyone"] / "link").symlink_to(made["private"])
    (made["sticky"] / "relative").symlink_to(os.path.join("..", "private"))
    if os.geteuid() == 0:
        os.chown(made["group"], 0, 65534)
    verdict = {path: compile_cache.refusal(str(tmp_path / path)) for path in os.listdir(tmp_path)}
    verdict.update(
        {f"{name}/inner": compile_cache.refusal(str(made[name] / "inner")) for name in ("sticky", "everyone")}
    )
    verdict["everyone/link"] = compile_cache.refusal(str(made["everyone"] / "link"))
    assert compile_cache.refusal(str(made["sticky"] / "relative")) is None
    assert verdict["private"] is None and verdict["sticky/inner"] is None and verdict["link"] is None
    assert verdict["everyone"] == "is writable by others (mode 777)"
    assert (
        verdict["everyone/inner"]
        == verdict["everyone/link"]
        == f"is inside {made['everyone']}, writable by others (mode 777)"
    )
    if os.geteuid() == 0:
        assert verdict["group"] == "is writable by others (mode 770)"


# ---------------------------------------------------------------- a cache that cannot be written (B8)
# A game on a cache whose writes fail (a full disk): in every process (the builder too) by a sitecustomize
# that makes the signed writer fail with ENOSPC, or for real on a full tmpfs (root only).
FULL = """
import errno, os
from cardenvs.core import compile_cache

def full(self, path, data):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)

compile_cache.SignedCacheFile._write_signed = full
"""

PLAY = """
    import json, sys
    import numpy as np
    import cardenvs.vector as V
    from cardenvs.core import jit
    v = V.make("high_card_v0", int(sys.argv[1]), seed=0)
    _, info = v.reset(seed=0)
    for n in range(10):
        _, _, _, _, info = v.step(np.asarray(info["action_mask"], bool).argmax(-1))
        if n == 4:
            jit.wait_compiled(600)  # (the builder's writes failed too: each kernel is compiled here)
    print(json.dumps(n + 1))
"""


def play_on(tmp_path: pathlib.Path, cache: pathlib.Path, games: int, mode: str, site: str | None) -> str:
    """High Card at ``games`` games in a new process with ``cache`` as
    ``NUMBA_CACHE_DIR`` (``site``: a sitecustomize for every process); its stderr."""
    env = {key: value for key, value in os.environ.items() if key not in ("NUMBA_DISABLE_JIT",)}
    for flag in (compile_cache.WARNED, compile_cache.WRITE_WARNED):
        env.pop(flag, None)
    path = [str(ROOT), env.get("PYTHONPATH", "")]
    if site is not None:
        (tmp_path / "site").mkdir(exist_ok=True)
        (tmp_path / "site" / "sitecustomize.py").write_text(site)
        path.insert(0, str(tmp_path / "site"))
    env.update(CARDENVS_COMPILE=mode, XDG_CACHE_HOME=str(tmp_path / "xdg"), NUMBA_CACHE_DIR=str(cache))
    env["PYTHONPATH"] = os.pathsep.join(path)
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(PLAY), str(games)],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == 10  # (every step played)
    return out.stderr


def said_once(stderr: str) -> None:
    """One CacheWriteWarning line, saying the disk is full, and nothing else."""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "CacheWriteWarning: cannot write the compile cache" in lines[0] and "No space left on device" in lines[0]


@pytest.mark.parametrize(("games", "mode"), [(100, "background"), (300, "background"), (100, "now")])
def test_a_cache_that_cannot_be_written_warns_once_and_the_game_runs(tmp_path, games, mode):
    """Every write fails (no space left): one warning, the game plays on,
    its kernels compiled in the process (small and large calls alike)."""
    cache = tmp_path / "cache"
    said_once(play_on(tmp_path, cache, games, mode, FULL))
    assert not [path for path in cache.rglob("*") if path.suffix in (".nbi", ".nbc")]


@pytest.mark.skipif(not sys.platform.startswith("linux") or os.geteuid() != 0, reason="mounting a tmpfs needs root")
def test_a_cache_on_a_full_file_system_warns_once_and_the_game_runs(tmp_path):
    cache = tmp_path / "full"
    cache.mkdir(mode=0o700)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=200k,mode=0700", "tmpfs", str(cache)], check=False)
    if mounted.returncode:
        pytest.skip("tmpfs cannot be mounted here")
    try:
        with contextlib.suppress(OSError), open(cache / "filler", "wb") as filler:
            filler.write(b"\0" * 400_000)  # (full now)
        for games in (100, 300):
            said_once(play_on(tmp_path, cache, games, "background", None))
    finally:
        subprocess.run(["umount", str(cache)], check=False)
