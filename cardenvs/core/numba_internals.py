"""What cardenvs takes from numba beyond its public API, checked before it is used.

The compiler (:mod:`cardenvs.core.compiling`: kernels run as Python while a
builder compiles them, stamped cache indexes) and the compile cache
(:mod:`cardenvs.core.compile_cache`: judged folders, signed files) subclass
and call numba's internals: its cache classes and their private methods, the
dispatcher's ``compile`` and overload table, ``compute_fingerprint``, the
type of a source file's stamp.  These change between numba releases without
notice, and a change once crashed every first ``cardenvs.make(...)``.

So before :mod:`cardenvs.core.compiling` is imported, :func:`problem` checks
what this numba has: every module, class and attribute used, the parameters
of each method overridden or called, and the kind of value of the few it
reads (without compiling, and without touching the disk).  When anything
differs, :func:`fall_back` says so in one :class:`NumbaInternalsWarning` line
and kernels are plain numba functions instead (:mod:`cardenvs.core.jit`) (``numba.njit(cache=True)``:
compiled on first use, in numba's own cache), with the same results.
"""

from __future__ import annotations

import importlib
import inspect
import os
import types
import warnings
from typing import Any

from .messages import cut

#: Set in the environment once the fallback was said, so that the processes started (workers) do not say it again.
WARNED = "_CARDENVS_NUMBA_WARNED"

#: What is used of each class, by its dotted path: attribute -> its parameters (``...``: more may follow),
#: or None where only its presence is used.
EXPECTED: dict[str, dict[str, str | None]] = {
    "numba.core.caching._CacheLocator": {
        "ensure_cache_path": "self",
        "get_cache_path": "self",
        "get_suitable_cache_subpath": "py_file",
    },
    "numba.core.caching._SourceFileBackedLocatorMixin": {
        "from_function": "py_func, py_file",
        "get_source_stamp": "self",
        "get_disambiguator": "self",
    },
    "numba.core.caching.CompileResultCacheImpl": {"__init__": "self, py_func", "filename_base": None, "locator": None},
    "numba.core.caching.IndexDataCacheFile": {
        "__init__": "self, cache_path, filename_base, source_stamp",
        "_load_index": "self",
        "_save_index": "self, overloads",
        "_load_data": "self, name",
        "_save_data": "self, name, data",
        "_data_path": "self, name",
        "_dump": "self, obj",
    },
    "numba.core.caching.FunctionCache": {
        "__init__": "self, py_func",
        "load_overload": "self, sig, target_context",
        "save_overload": "self, sig, data",
        "disable": "self",
        "_impl_class": None,
    },
    "numba.core.registry.CPUDispatcher": {
        "__init__": "self, py_func, locals, targetoptions, ...",
        "_compile_for_args": "self, *args, **kws",
        "compile": "self, sig",
        "add_overload": "self, cres",
        "enable_caching": "self",
    },
    "numba.core.compiler_lock.global_compiler_lock": {"__enter__": None, "__exit__": None},
    "numba.core.typing.typeof.Purpose": {"argument": None},
}

#: numba's abstract methods of a cache locator that cardenvs's own locator has (from the mixin, or its own).
LOCATOR_METHODS = {"ensure_cache_path", "get_cache_path", "get_source_stamp", "get_disambiguator", "from_function"}


class NumbaInternalsWarning(UserWarning):
    """numba's internals are not what cardenvs's compiler expects: kernels are plain numba functions instead."""


def say_once(message: str, category: type[Warning], flag: str) -> None:
    """Warn ``message`` once for this process and the processes it starts (``flag`` set in the environment)."""
    if not os.environ.get(flag):
        os.environ[flag] = "1"
        warnings.warn_explicit(message, category, category.__module__, 1)  # (one line: no source line shown)


def fall_back(why: str) -> None:
    """Say once (:class:`NumbaInternalsWarning`) that kernels are plain numba
    functions, because of ``why`` (what :func:`problem` found)."""
    import numba

    say_once(
        f"numba {numba.__version__} is not what cardenvs's compiler expects: {cut(why)}; "
        "kernels are compiled on first use, in numba's own cache",
        NumbaInternalsWarning,
        WARNED,
    )


def problem() -> str | None:
    """What this numba lacks of what cardenvs's compiler and cache use
    (:data:`EXPECTED`, and :func:`_values`), or None when it has it all."""
    try:
        for path, attributes in EXPECTED.items():
            module, _, name = path.rpartition(".")
            found = getattr(importlib.import_module(module), name, None)
            if found is None:
                return f"{path} is missing"
            for attribute, parameters in attributes.items():
                why = _attribute_problem(found, attribute, parameters)
                if why is not None:
                    return f"{path}.{attribute} {why}"
        return _values()
    except Exception as error:  # (a module that fails to import, a signature that cannot be read)
        return f"{type(error).__name__}: {error}"


def _attribute_problem(owner: Any, attribute: str, parameters: str | None) -> str | None:
    """Why ``owner.attribute`` is not there or does not take ``parameters`` (names, ``...``: more may follow)."""
    if not hasattr(owner, attribute):
        return "is missing"
    if parameters is None:
        return None
    found = _parameters(inspect.signature(getattr(owner, attribute)))
    expected = parameters.split(", ")
    open_ended = expected[-1] == "..."
    if open_ended:
        expected, found = expected[:-1], found[: len(expected) - 1]
    if found != expected:
        return f"takes ({', '.join(found)}), not ({parameters})"
    return None


def _parameters(signature: inspect.Signature) -> list[str]:
    """The parameters' names, ``*args`` and ``**kws`` marked so."""
    marks = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}
    return [marks.get(p.kind, "") + p.name for p in signature.parameters.values()]


def _values() -> str | None:
    """What the compiler reads off numba's objects, checked on objects made
    here (no compiling, no file touched): the attributes a cache file and a
    dispatcher set, a source stamp's kind, the abstract methods of a locator,
    and the fingerprints and argument types the dispatch is keyed on."""
    import numpy as np
    from numba._dispatcher import compute_fingerprint
    from numba.core import caching, registry
    from numba.core import types as numba_types
    from numba.core.typing.typeof import Purpose, typeof

    extra = caching._CacheLocator.__abstractmethods__ - LOCATOR_METHODS
    if extra:
        return f"a cache locator must also have {sorted(extra)}"
    made = caching.IndexDataCacheFile(cache_path=os.sep, filename_base="x", source_stamp=b"")
    for name in ("_index_path", "_version", "_source_stamp"):
        if not hasattr(made, name):
            return f"a numba cache file has no {name}"
    stamp = caching._SourceFileBackedLocatorMixin.get_source_stamp(types.SimpleNamespace(_py_file=__file__))
    if not isinstance(stamp, (bytes, tuple)):
        return f"a source file's stamp is a {type(stamp).__name__}, not bytes or a tuple"
    impl = object.__new__(caching.CompileResultCacheImpl)
    impl._locator = locator = object()
    if impl.locator is not locator:
        return "a cache's locator is not its _locator"
    dispatcher = registry.CPUDispatcher(_probe)
    for name in ("overloads", "_cache", "_cache_hits", "targetctx", "py_func"):
        if not hasattr(dispatcher, name):
            return f"a dispatcher has no {name}"
    if not callable(getattr(dispatcher.targetctx, "insert_user_function", None)):
        return "a dispatcher's target context has no insert_user_function"
    compute_fingerprint(np.zeros(1))
    if typeof(1, Purpose.argument) != numba_types.int64:
        return f"an int argument is typed {typeof(1, Purpose.argument)}, not int64"
    return None


def _probe(x):  # (a function for a dispatcher that is made and never compiled)
    return x
