"""Where kernels' compiled code is cached on disk, and who may have written it.

numba's cache files (a kernel's index ``.nbi`` and data ``.nbc``) are
pickles: loading one runs whatever its writer put in it, in this process
(and in its builder).  So the cache is treated as code:

- a cache folder someone else could write to (not owned by this user,
  writable by a group of other users or by everyone, or inside a folder
  that lets others swap it) is refused, and the kernel is cached in this
  user's private folder instead (:func:`private_folder`:
  ``$XDG_CACHE_HOME/cardenvs``, else ``~/.cache/cardenvs``, made 0o700), with
  one :class:`UnsafeCacheWarning` per process and its children;
- every file is signed when written (an HMAC of its name and bytes, keyed
  by a secret of this user kept 0o600 in the private folder) and read only
  when it is owned by this user and its signature holds; a file planted in
  a folder of this user's (a restored CI cache, a copied folder) is never
  unpickled, and is compiled again.

A cache written by plain numba, or by another user, is therefore not
shared: each user compiles their own.  On systems without POSIX
permissions (Windows) the folder is not judged; the signatures still are.

A cache that cannot be written (a full disk, a quota, a read-only folder)
never stops a game: the first write that fails is said once
(:class:`CacheWriteWarning`), and the process writes no more (:func:`writes_failed`);
kernels are compiled in it on first use, as numba does without a cache.
"""

from __future__ import annotations

import hashlib
import hmac
import inspect
import io
import os
import pickle
import stat
import uuid
from typing import Any

from numba.core import caching

from .builder import PARENT
from .numba_internals import say_once

#: What starts a signed file: the format, then its 32-byte signature, then numba's bytes.
MAGIC = b"cardenvs-signed-1\n"
#: Set in the environment once the refusal was said, so that the builder and workers do not say it again.
WARNED = "_CARDENVS_CACHE_WARNED"
#: Set in the environment once a failed write was said (the same, for :class:`CacheWriteWarning`).
WRITE_WARNED = "_CARDENVS_CACHE_WRITE_WARNED"

_VERDICTS: dict[str, str | None] = {}  # folder -> why it is refused, or None
_PRIVATE: list = []  # [the private folder or None, why not]
_KEY: list = []  # [this user's key or None, why not]
_WRITE_FAILED: list[str] = []  # [why the first write of this process failed]: it writes no more


class UnsafeCacheWarning(UserWarning):
    """A compile cache folder was refused: someone else could write it (see :mod:`cardenvs.core.compile_cache`)."""


class CacheWriteWarning(UserWarning):
    """The compile cache could not be written (a full disk, a quota): kernels are compiled in each process."""


def writes_failed() -> str | None:
    """Why a write to the compile cache failed in this process (it writes no more), or None."""
    return _WRITE_FAILED[0] if _WRITE_FAILED else None


# ---------------------------------------------------------------- who can write a folder
def refusal(folder: str) -> str | None:
    """Why ``folder`` may not hold cached code, or None: it must be this
    user's and writable by no one else, and every folder above it (and each
    symbolic link on the way) this user's or root's and writable by no one
    else unless sticky (``/tmp``: others cannot rename what is not theirs).
    Mode bits and owners are read (``os.access`` says yes to root)."""
    if os.name != "posix":
        return None
    if folder not in _VERDICTS:
        try:
            found = os.stat(folder)
            if not stat.S_ISDIR(found.st_mode):
                why = "is not a folder"
            elif found.st_uid != os.geteuid():
                why = f"is owned by another user (uid {found.st_uid})"
            elif _others_write(found):
                why = f"is writable by others (mode {stat.S_IMODE(found.st_mode):o})"
            else:
                why = _path_refusal(os.path.abspath(folder), 0)
        except OSError as error:
            why = f"cannot be examined ({error.strerror})"
        _VERDICTS[folder] = why
    return _VERDICTS[folder]


def _path_refusal(path: str, depth: int) -> str | None:
    """Why someone else could swap a folder on the way to absolute ``path`` (following its links), or None."""
    if depth > 40:
        return "has too many symbolic links on its way"
    parts = path.split(os.sep)
    for end in range(1, len(parts) + 1):
        prefix = os.sep.join(parts[:end]) or os.sep
        found = os.lstat(prefix)
        if found.st_uid not in (0, os.geteuid()):
            return f"is inside {prefix}, owned by another user (uid {found.st_uid})"
        if stat.S_ISLNK(found.st_mode):
            target = os.path.join(os.path.realpath(os.path.dirname(prefix)), os.readlink(prefix))
            why = _path_refusal(target, depth + 1)
            if why is not None:
                return why
        elif _others_write(found) and not found.st_mode & stat.S_ISVTX:
            return f"is inside {prefix}, writable by others (mode {stat.S_IMODE(found.st_mode):o})"
    return None


def _others_write(found: os.stat_result) -> bool:
    """Whether users other than this one may write what ``found`` describes
    (group write counts unless the group is this user's private group)."""
    return bool(found.st_mode & stat.S_IWOTH) or (bool(found.st_mode & stat.S_IWGRP) and not _own_group(found.st_gid))


def _own_group(gid: int) -> bool:
    """Whether group ``gid`` is this user's private group (named as the user,
    its primary group, no other members): the usual group of files made
    with umask 002."""
    try:
        import grp
        import pwd

        me, group = pwd.getpwuid(os.geteuid()), grp.getgrgid(gid)
    except (ImportError, KeyError):
        return False
    return me.pw_gid == gid and group.gr_name == me.pw_name and set(group.gr_mem) <= {me.pw_name}


# ---------------------------------------------------------------- this user's private folder and key
def private_folder() -> str | None:
    """This user's private cardenvs folder (``$XDG_CACHE_HOME/cardenvs``,
    else ``~/.cache/cardenvs``), made 0o700 and judged by :func:`refusal`;
    None if it cannot be made or is not private (``_PRIVATE[1]`` says why)."""
    if not _PRIVATE:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folder = os.path.join(os.path.abspath(base), "cardenvs")
        try:
            os.makedirs(base, exist_ok=True)
            os.makedirs(folder, mode=0o700, exist_ok=True)
            why = refusal(folder)
        except OSError as error:
            why = f"cannot be made ({error.strerror})"
        _PRIVATE[:] = [folder if why is None else None, f"{folder} {why}"]
    return _PRIVATE[0]


def key() -> bytes | None:
    """This user's secret that signs cache files (32 random bytes in the
    private folder, 0o600, made once: the first writer's is kept), or None
    if there is no private folder or the file is not this user's alone
    (``_KEY[1]`` says why)."""
    if not _KEY:
        folder = private_folder()
        path = os.path.join(folder or "", "cache-key")
        secret = None if folder is None else _read_key(path)
        _KEY[:] = [secret, _PRIVATE[1] if folder is None else f"{path} is not 32 bytes of this user's alone"]
    return _KEY[0]


def _read_key(path: str) -> bytes | None:
    try:
        if not os.path.exists(path):
            made = f"{path}.{uuid.uuid4().hex}"
            with os.fdopen(os.open(made, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as file:
                file.write(os.urandom(32))
            try:
                os.link(made, path)  # (atomic, never replaces: processes starting together agree)
            except FileExistsError:
                pass
            finally:
                os.unlink(made)
        with open(path, "rb") as file:
            found = os.fstat(file.fileno())
            secret = file.read()
    except OSError:
        return None
    private = found.st_uid == os.geteuid() and not found.st_mode & 0o077
    return secret if private and len(secret) == 32 else None


def warn_once(message: str) -> None:
    """Say ``message`` once for this process and the processes it starts (the builder, workers)."""
    say_once(message, UnsafeCacheWarning, WARNED)


# ---------------------------------------------------------------- numba's cache, so judged and signed
class PrivateLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """numba's cache of a kernel in this user's private folder (a sub-folder
    per source folder, named as ``NUMBA_CACHE_DIR``'s are), made 0o700."""

    def __init__(self, py_func: Any, py_file: str):
        self._py_file, self._lineno = py_file, py_func.__code__.co_firstlineno
        self._cache_path = os.path.join(private_folder() or "", "numba", self.get_suitable_cache_subpath(py_file))

    def get_cache_path(self) -> str:
        return self._cache_path

    def ensure_cache_path(self) -> None:
        if private_folder() is None:
            raise OSError("no private folder")
        os.makedirs(self._cache_path, mode=0o700, exist_ok=True)
        super().ensure_cache_path()


class CheckedImpl(caching.CompileResultCacheImpl):
    """numba's choice of a kernel's cache folder (``NUMBA_CACHE_DIR``, the
    ``__pycache__`` beside its source, numba's user-wide folder), kept if
    :func:`refusal` finds it private, else :class:`PrivateLocator`'s;
    :attr:`usable` is False when neither will do (the kernel is compiled in
    each process)."""

    def __init__(self, py_func: Any):
        super().__init__(py_func)
        folder = self._locator.get_cache_path()
        why = refusal(folder)
        self.usable = why is None
        if why is not None:
            private = PrivateLocator.from_function(py_func, inspect.getfile(py_func))
            self.usable = private is not None and refusal(private.get_cache_path()) is None
            where = (
                f"kernels are cached in {private_folder()}/numba instead" if self.usable else "kernels are not cached"
            )
            warn_once(f"refused the compile cache {folder}: it {why} (whoever can write it runs code); {where}")
            self._locator = private or self._locator


class SignedCacheFile(caching.IndexDataCacheFile):
    """numba's index and data files of a kernel, written signed with
    :func:`key` and read only when owned by this user and so signed: no
    byte of a file is unpickled before its signature is checked."""

    def __init__(self, cache_path: str, filename_base: str, source_stamp: Any, secret: bytes):
        super().__init__(cache_path, filename_base, source_stamp)
        self._secret = secret

    def _load_index(self) -> dict:
        data = self._read_signed(self._index_path)
        if data is None:
            return {}
        stream = io.BytesIO(data)
        if pickle.load(stream) != self._version:
            return {}
        stamp, overloads = pickle.loads(stream.read())
        return overloads if stamp == self._source_stamp else {}

    def _save_index(self, overloads: dict) -> None:
        data = pickle.dumps(self._version, protocol=-1) + self._dump((self._source_stamp, overloads))
        self._write_signed(self._index_path, data)

    def _load_data(self, name: str) -> Any:
        data = self._read_signed(self._data_path(name))
        return None if data is None else pickle.loads(data)

    def _save_data(self, name: str, data: Any) -> None:
        self._write_signed(self._data_path(name), self._dump(data))

    def _signature(self, path: str, data: bytes) -> bytes:
        return hmac.new(self._secret, os.path.basename(path).encode() + b"\0" + data, hashlib.sha256).digest()

    def _read_signed(self, path: str) -> bytes | None:
        """The bytes of file ``path`` after its signature, if it is this user's and so signed; else None."""
        try:
            with open(path, "rb") as file:
                found = os.fstat(file.fileno())
                if os.name == "posix" and (found.st_uid != os.geteuid() or _others_write(found)):
                    return None
                blob = file.read()
        except OSError:  # (gone, or not readable: compiled again and written anew)
            return None
        start = len(MAGIC) + 32
        if not blob.startswith(MAGIC) or not hmac.compare_digest(
            blob[len(MAGIC) : start], self._signature(path, blob[start:])
        ):
            return None
        return blob[start:]

    def _write_signed(self, path: str, data: bytes) -> None:
        """Write ``path`` signed, whole or not at all (a new 0o600 file moved over the old one)."""
        made = f"{path}.tmp.{uuid.uuid4().hex[:16]}"
        try:
            with os.fdopen(os.open(made, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as file:
                file.write(MAGIC + self._signature(path, data) + data)
            os.replace(made, path)
        except BaseException:
            if os.path.exists(made):
                os.unlink(made)
            raise


class SafeCache(caching.FunctionCache):
    """numba's cache of a kernel in a folder only this user can write
    (:class:`CheckedImpl`), in signed files (:class:`SignedCacheFile`);
    disabled (compiled in each process) when there is no such folder or no key."""

    _impl_class = CheckedImpl

    def __init__(self, py_func: Any):
        super().__init__(py_func)
        secret = key()
        if secret is None and self._impl.usable:
            warn_once(f"no key to sign the compile cache with ({_KEY[1]}); kernels are not cached")
        #: Whether compiled versions are kept on disk (False: compiled in each process).
        self.kept = secret is not None and self._impl.usable
        if not self.kept:
            self.disable()
            return
        self._cache_file = SignedCacheFile(
            self._cache_path, self._impl.filename_base, self._cache_file._source_stamp, secret
        )

    def save_overload(self, sig: Any, data: Any) -> None:
        """numba's save, unless a write failed before; a write that fails
        (``OSError``: no space, a quota, a read-only folder) is said once
        (:class:`CacheWriteWarning`; in the builder, not at all: the process
        that asked compiles the kernel again and says it) and ends writing."""
        if _WRITE_FAILED:
            return
        try:
            super().save_overload(sig, data)
        except OSError as error:
            _WRITE_FAILED.append(f"{self._cache_path}: {error.strerror or error}")
            if not os.environ.get(PARENT):
                say_once(
                    f"cannot write the compile cache ({_WRITE_FAILED[0]}); kernels are compiled in each process, "
                    "on first use, and not kept",
                    CacheWriteWarning,
                    WRITE_WARNED,
                )
