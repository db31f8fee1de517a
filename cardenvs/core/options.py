"""Options every view of a game takes (besides the game's own), and the
checks that turn bad config and bad actions into the documented errors.

- ``illegal_action``: ``"raise"``, ``"terminate"`` or, simultaneous games
  only, ``"wait"``: the policy and its choices live in :mod:`.illegal`
  (:func:`.view.view_options` takes the two options out of a config).
- ``obs_dtype``: ``None`` (the game's compact integer dtype) or
  ``"float32"`` (float observations with finite bounds).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from .errors import IllegalActionError
from .jit import kernel

OBS_DTYPES = (None, "float32")


def rules_defaults(factory: Callable[..., Any]) -> dict[str, Any]:
    """The config options a rules class (or a factory with ``variants``)
    takes, with their defaults: its named parameters, and where it passes
    ``**kwargs`` on, those of the base classes' ``__init__`` too."""
    defaults: dict[str, Any] = {}
    for item in [factory, *getattr(factory, "variants", ())]:
        callables = [k.__init__ for k in item.__mro__ if "__init__" in vars(k)] if isinstance(item, type) else [item]
        for fn in callables:
            params = inspect.signature(fn).parameters.values()
            for p in params:
                if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "self":
                    defaults.setdefault(p.name, p.default)
            if not any(p.kind == p.VAR_KEYWORD for p in params):
                break
    return defaults


def rules_options(factory: Callable[..., Any]) -> list[str]:
    """The names of :func:`rules_defaults`."""
    return list(rules_defaults(factory))


def build_rules(factory: Callable[..., Any], config: dict[str, Any], extra: tuple[str, ...] = ()) -> Any:
    """``factory(**config)``, after refusing unknown options with a
    ``ValueError`` that lists the known ones (``extra``: options the caller
    handles itself, e.g. ``render_mode``)."""
    known = rules_options(factory)
    unknown = sorted(set(config) - set(known))
    if unknown:
        allowed = sorted(set(known) | set(extra) | {"illegal_action", "obs_dtype"})
        raise ValueError(f"unknown option(s) {unknown}; this game takes {allowed}")
    return factory(**config)


def action_id(action: Any, num_actions: int) -> int:
    """``action`` as an int: ``TypeError`` unless it is an integer (Python or
    numpy, a 0-d integer array included; not a bool), and
    :class:`IllegalActionError` if it is outside ``0..num_actions - 1``,
    however large."""
    if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
        action = action.item()
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise TypeError(f"an action is an int action id, got {action!r} ({type(action).__name__})")
    if not 0 <= int(action) < num_actions:
        raise IllegalActionError(f"action {int(action)} out of range 0..{num_actions - 1}")
    return int(action)


def legal_actions(actions: Any, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A batch of actions, one per mask of ``legal`` (``(*shape, A)`` bool),
    checked in one compiled pass: the actions as int64 (out of range: 0)
    and which are legal.  ``TypeError`` for a non-integer array,
    :class:`IllegalActionError` (a ``ValueError``) for a wrong shape;
    values of any integer dtype and size are compared exactly."""
    if type(actions) is np.ndarray and actions.dtype == np.int64 and actions.shape == legal.shape[:-1]:
        arr = actions  # (what a policy usually hands over: no conversion to look into)
    else:
        arr = integer_array(actions, legal.shape[:-1])
    # (a uint64 of 2**63 or more turns negative here: out of range all the same)
    flat = arr.reshape(-1).astype(np.int64, copy=False)
    acts, ok = np.empty(flat.shape, np.int64), np.empty(flat.shape, bool)
    _check_actions(flat, legal.reshape(len(flat), -1), acts, ok)
    return acts.reshape(arr.shape), ok.reshape(arr.shape)


@kernel
def _check_actions(actions, legal, acts, ok):
    """``acts[i]``: ``actions[i]`` if in range, else 0; ``ok[i]``: it is
    legal in mask ``legal[i]`` (``ok`` empty: not written).  Returns how
    many are illegal."""
    illegal = 0
    each = ok.shape[0] > 0
    for i in range(actions.shape[0]):
        a = actions[i]
        inside = 0 <= a < legal.shape[1]
        acts[i] = a if inside else 0
        fine = inside and legal[i, a]
        if each:
            ok[i] = fine
        if not fine:
            illegal += 1
    return illegal


_NO_OK = np.zeros(0, bool)  # (legal_into wants the count only)


def legal_into(actions: np.ndarray, legal: np.ndarray, out: np.ndarray) -> bool:
    """Whether every action of ``actions`` (int64, one per mask of
    ``legal``) is legal, written into ``out`` (int64, their shape; out of
    range: 0) on the way: :func:`legal_actions`' compiled pass, counting."""
    flat = actions.reshape(-1)
    return _check_actions(flat, legal.reshape(len(flat), -1), out.reshape(-1), _NO_OK) == 0


def integer_array(actions: Any, shape: tuple[int, ...]) -> np.ndarray:
    """``actions`` as an integer array of ``shape``: TypeError for another dtype,
    :class:`IllegalActionError` for another shape."""
    arr = np.asarray(actions)
    if not np.issubdtype(arr.dtype, np.integer) or arr.dtype == np.bool_:
        raise TypeError(f"actions must be an integer array, got dtype {arr.dtype}")
    if arr.shape != shape:
        raise IllegalActionError(f"actions must have shape {shape}, got {arr.shape}")
    return arr


def action_array(actions: Any, shape: tuple[int, ...], num_actions: int) -> tuple[np.ndarray, np.ndarray]:
    """A batch of actions as int64 with the mask of those in range: ``TypeError``
    for a non-integer array, :class:`IllegalActionError` (a ``ValueError``)
    for a wrong shape; values of any
    integer dtype and size are compared exactly (out of range is not an error
    here: the caller decides)."""
    arr = integer_array(actions, shape)
    if arr.dtype.kind == "u":
        in_range = arr < num_actions
    else:
        in_range = (arr >= 0) & (arr < num_actions)
    return np.where(in_range, arr, 0).astype(np.int64), in_range


def seat_array(seats: Any, num_envs: int, num_players: int) -> np.ndarray:
    """``seats`` of a vector engine's ``observe`` -- one seat per row, an
    integer array of shape ``(num_envs,)`` with every value in
    ``0..num_players - 1`` -- as int64, checked before any kernel reads it:
    ``TypeError`` for another dtype (floats, strings, bools, objects),
    ``ValueError`` for another shape or a seat out of range (of any integer
    type and size: a uint64 of 2**63 is out of range, not -2**63)."""
    arr = np.asarray(seats)
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        if arr.dtype == object and arr.size and all(type(x) is int for x in arr.flat):
            # (ints no integer dtype holds, e.g. 2**64: out of range, however large -- as actions are)
            raise ValueError(f"seats must be in 0..{num_players - 1}, got {seats!r}"[:200])
        raise TypeError(f"seats must be an integer array (one seat per row), got dtype {arr.dtype}")
    if arr.shape != (num_envs,):
        raise ValueError(f"seats must have shape ({num_envs},): one seat per row, got {arr.shape}")
    # (an unsigned array compared as it is: converting first would turn 2**63 into a negative seat)
    if arr.max() >= num_players or (arr.dtype.kind == "i" and arr.min() < 0):
        rows = np.flatnonzero((arr >= num_players) | (arr < 0))[:5]
        named = ", ".join(f"{int(r)}: {int(arr[r])}" for r in rows)
        raise ValueError(f"seats must be in 0..{num_players - 1}; out of range in rows {named}")
    return arr.astype(np.int64, copy=False)


#: Seeds a per-game stream tells apart (:class:`~.streams.RowStreams` keys on the seed's 64 bits).
PER_GAME_SEEDS = 2**64


def check_seed(seed: Any, per_game: bool = False) -> int | None:
    """``seed`` of ``make`` or ``reset``: None, or a non-negative int (Python
    or numpy; not a bool or a float) -- below 2**64 with ``per_game``
    (``rng="per_game"``, whose streams would take a larger seed for another
    one).  ValueError otherwise, before anything changes."""
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an int or None, got {seed!r}")
    if seed < 0 or (per_game and seed >= PER_GAME_SEEDS):
        top = " below 2**64 with rng='per_game'" if per_game else ""
        raise ValueError(f"seed must be a non-negative int{top} or None, got {seed!r}")
    return int(seed)
