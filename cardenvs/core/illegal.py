"""The illegal-action policy, in one place: the ``illegal_action`` option
every view of a game takes, and what becomes of an illegal action under it.

- ``"raise"`` (the default): :class:`IllegalActionError`, and nothing changes;
- ``"terminate"``: that game ends, the acting seat gets -1 and every other
  seat 0 (as PettingZoo's classic envs do; the rules' state is left as it
  was, or, in a batch, the other games are played);
- ``"wait"`` (simultaneous games only): the illegal action is played as the
  rules' ``wait_action``, and the output says so (the vector engine's
  ``info["illegal_waited"]``, the parallel env's ``infos[agent]["illegal_waited"]``).

An action id out of range (``< 0`` or ``>= num_actions``, however large) is
no action of the game, not an illegal move: it is refused with
:class:`IllegalActionError` under every policy, nothing changed
(:func:`refuse_out_of_range`).

The rules never see an illegal action, nor the option: every view calls
these functions and plays only what they let through -- the AEC view
(:func:`check_one`, :func:`forfeit_rewards`), the parallel and vector views
of a simultaneous game (:func:`settle_joint`, :func:`forfeit_joint`), the
vector engine and its process-sharded form (:func:`settle_turns`,
:func:`forfeit_turns`, :func:`rows_error`, :func:`raises`), and the learner
envs (through the env or engine they wrap).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import IllegalActionError
from .options import action_array, action_id, legal_actions

RAISE, TERMINATE, WAIT = "raise", "terminate", "wait"
#: The choices of a turn-based game, and of a simultaneous one.
TURN_CHOICES = (RAISE, TERMINATE)
SIMULTANEOUS_CHOICES = (RAISE, TERMINATE, WAIT)


def parse(value: Any, simultaneous: bool = False) -> str:
    """``value`` of the ``illegal_action`` option, checked: ``ValueError``
    naming the choices (``"wait"`` only for a simultaneous game)."""
    allowed = SIMULTANEOUS_CHOICES if simultaneous else TURN_CHOICES
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"illegal_action must be one of {list(allowed)}, got {value!r}")
    return value


def refuse_out_of_range(actions: Any, shape: tuple[int, ...], num_actions: int, rows: Any = None) -> None:
    """:class:`IllegalActionError` naming the first few of ``actions`` (an
    integer array of ``shape``; only the games ``rows``, indices, if given)
    outside ``0..num_actions - 1``: refused whatever ``illegal_action`` says,
    before anything changes."""
    _, inside = action_array(actions, shape, num_actions)
    if rows is not None:
        played = np.zeros(shape[0], bool)
        played[rows] = True
        inside = inside | ~played.reshape((-1,) + (1,) * (len(shape) - 1))
    if inside.all():
        return
    arr, parts = np.asarray(actions), []
    for index in np.argwhere(~inside)[:5]:
        where = f"row {index[0]}" + (f" player_{index[1]}" if len(index) > 1 else "")
        parts.append(f"{where}: {arr[tuple(index)]}")
    said = ", ".join(parts)
    raise IllegalActionError(f"actions out of range 0..{num_actions - 1} (refused whatever illegal_action is): {said}")


def raises(policy: str) -> bool:
    """Whether an illegal action raises under ``policy`` (else it is played
    otherwise: forfeited or waited)."""
    return policy == RAISE


# ---------------------------------------------------------------- one game, turn-based
def check_one(rules: Any, legal: np.ndarray, action: Any) -> int:
    """``action`` as an int if it is legal in mask ``legal`` now, else
    raise: ``TypeError`` for a non-integer, :class:`IllegalActionError`
    naming it for an integer that is out of range or not legal (the state
    is not touched)."""
    # an int in range (what agents step) skips action_id's checks of the other kinds
    a = action if type(action) is int and 0 <= action < rules.num_actions else action_id(action, rules.num_actions)
    if not legal[a]:
        allowed = ", ".join(repr(rules.action_to_str(x)) for x in np.flatnonzero(legal))
        raise IllegalActionError(f"illegal action {a} ({rules.action_to_str(a)!r}); legal now: {allowed}")
    return a


def forfeit_rewards(agents: list[str], agent: str) -> dict[str, float]:
    """A game ended by ``agent``'s illegal action (``"terminate"``): -1 for
    it, 0 for everyone else."""
    return {a: (-1.0 if a == agent else 0.0) for a in agents}


# ---------------------------------------------------------------- a batch, turn-based
def rows_error(actions: Any, bad: np.ndarray) -> IllegalActionError:
    """The error naming the illegal actions of rows ``bad`` (the first five)."""
    return IllegalActionError("illegal actions in rows " + ", ".join(f"{i}: {actions[i]}" for i in bad[:5]))


def settle_turns(
    policy: str, actions: Any, chosen: np.ndarray, ok: np.ndarray, num_envs: int, num_actions: int
) -> np.ndarray:
    """A batch's actions of rows ``chosen`` (``ok``: which are legal), not
    all legal: raise (:func:`rows_error`) or, with ``"terminate"``, return
    the games forfeited (bool ``(num_envs,)``) -- the others are played;
    an action out of range raises under either (:func:`refuse_out_of_range`)."""
    if policy != TERMINATE:
        raise rows_error(actions, chosen[~ok])
    refuse_out_of_range(actions, (num_envs,), num_actions, chosen[~ok])
    forfeit = np.zeros(num_envs, bool)
    forfeit[chosen[~ok]] = True
    return forfeit


def forfeit_turns(rewards: np.ndarray, forfeit: np.ndarray, current: np.ndarray) -> None:
    """The rewards of the games ``forfeit``: -1 for the acting seat
    (``current``), 0 for the others, written in ``rewards`` ``(N, P)``."""
    rewards[forfeit] = 0.0
    rewards[forfeit, current[forfeit]] = -1.0


# ---------------------------------------------------------------- simultaneous games
def joint_error(rules: Any, legal: np.ndarray, actions: Any, ok: np.ndarray) -> IllegalActionError:
    """The error naming the first few illegal actions (``ok`` False) of a
    simultaneous game's batch ``(k, P)``."""
    arr = np.asarray(actions)
    parts = []
    for r, p in np.argwhere(~ok)[:5]:
        a = arr[r, p]
        if not 0 <= a < rules.num_actions:
            parts.append(f"row {r} player_{p}: {int(a)} out of range 0..{rules.num_actions - 1}")
            continue
        legal_now = ", ".join(repr(rules.action_to_str(x)) for x in np.flatnonzero(legal[r, p]))
        parts.append(f"row {r} player_{p}: {int(a)} ({rules.action_to_str(int(a))!r}), legal now: {legal_now}")
    return IllegalActionError("illegal actions: " + "; ".join(parts))


def settle_joint(
    rules: Any,
    legal: np.ndarray,
    actions: Any,
    policy: str = RAISE,
    rows: np.ndarray | None = None,
    checked: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate ``actions`` ``(k, P)`` against ``legal`` ``(k, P, A)``: returns
    (the actions to play as int64, which players forfeit, which players'
    actions were played as waiting instead).  An illegal action raises
    :class:`IllegalActionError` with ``"raise"``, is played as
    ``rules.wait_action`` (and reported in the third array) with ``"wait"``,
    and is reported in the second array (and played as waiting) with
    ``"terminate"``; one out of range raises under every policy.  ``rows``
    (indices): only those games are played, only their actions checked.
    ``checked``: :func:`~.options.legal_actions`' result, when it was taken before."""
    # (TypeError, or IllegalActionError for a wrong shape)
    arr, ok = legal_actions(actions, legal) if checked is None else (checked[0], checked[1].copy())
    if rows is not None:
        played = np.zeros(len(ok), bool)
        played[rows] = True
        ok |= ~played[:, None]
    if ok.all():
        return arr, ~ok, ~ok
    if policy == RAISE:
        raise joint_error(rules, legal, actions, ok)
    refuse_out_of_range(actions, legal.shape[:-1], legal.shape[-1], rows)
    none = np.zeros_like(ok)
    return np.where(ok, arr, rules.wait_action), *((~ok, none) if policy == TERMINATE else (none, ~ok))


def forfeit_row(forfeit: np.ndarray) -> list[float]:
    """The rewards of one simultaneous game ended by an illegal action
    (``forfeit`` ``(P,)``: who acted illegally): -1 for them, 0 for the others."""
    return np.where(forfeit, -1.0, 0.0).tolist()


def forfeit_joint(rewards: np.ndarray, forfeit: np.ndarray) -> np.ndarray:
    """The games ended by an illegal action (``forfeit`` ``(N, P)``, from
    :func:`settle_joint` with ``"terminate"``): their offenders -1 and
    everyone else 0, written in ``rewards``; returns the games ``(N,)``."""
    # (a reduction along an axis of 2 is dear at thousands of games: only when someone forfeited)
    if not forfeit.any():
        return np.zeros(len(forfeit), bool)
    ended = forfeit.any(axis=1)
    rewards[ended] = np.where(forfeit[ended], -1.0, 0.0)
    return ended
