"""Checks of the rewards against the game's own outcome, by random legal
play of the AEC env: the winners the rules record are paid the most, a game
that declares itself zero-sum pays a zero sum at every step, and each
reward reaches the seat whose score changed.

The kit knows two reward modes by their names, the ones every game of the
library offers under its ``reward`` option:

- ``"win_loss"``: nothing is paid before the game ends;
- ``"score_delta"``: at every step each seat is paid the change of its
  score (``rules.seat_scores``, the scores ``state_dict()["winners"]`` is
  read from; minus the change where the lowest score wins,
  ``low_score_wins``), so over a game its rewards add up to its score.

Each check plays the case's config and, where the game takes them, the same
config with ``reward="win_loss"`` and ``reward="score_delta"``.  A game's
rules declare a zero sum with ``zero_sum = True`` (an attribute, or a
property of the config: High Card's ``"win_loss"``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from .common import make_env, random_legal
from .report import Case, Skip

MODES = ("win_loss", "score_delta")
TOLERANCE = 1e-5  # (rewards are float32)


def _envs(case: Case) -> list[Any]:
    """The envs to play: the case's config, then the case's with each mode
    of :data:`MODES` the game takes (unless the case's config is that mode)."""
    env = make_env(case)
    found = [env]
    for mode in MODES:
        if mode == _mode(env):
            continue
        try:
            found.append(make_env(case, reward=mode))
        except (TypeError, ValueError):
            continue  # (the game has no such reward)
    return found


def _scores(env: Any) -> np.ndarray:
    """Every seat's score as the rules count it (``seat_scores``, as floats)."""
    view = env.unwrapped
    state = view.game_state() if hasattr(view, "game_state") else view.parallel.game_state()
    return np.asarray(view.rules.seat_scores(state)[0], np.float64)


def _rewarded(case: Case, env: Any, seed: int) -> Iterator[tuple[np.ndarray, np.ndarray, bool]]:
    """Random legal play from ``reset(seed=seed)``, game after game (the
    next one reset from the env's own generator), ``case.steps`` actions in
    all: after each, every seat's reward, the change of every seat's score
    and whether that ended the game (``case.step`` counts the actions)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    case.at(seed, 0)
    agents = env.possible_agents
    before = _scores(env)
    while case.step < case.steps:
        obs = env.observe(env.agent_selection)
        env.step(random_legal(rng, obs["action_mask"]))
        case.step += 1
        after = _scores(env)
        ended = all(env.terminations.values()) or all(env.truncations.values())
        yield np.array([env.rewards.get(a, 0.0) for a in agents], np.float64), after - before, ended
        if ended:
            env.reset()
            after = _scores(env)
        before = after


def _sign(env: Any) -> float:
    """-1 where the lowest score wins (a seat is paid minus its score's change), else 1."""
    return -1.0 if env.unwrapped.rules.low_score_wins else 1.0


def _mode(env: Any) -> str | None:
    return getattr(env.unwrapped.rules, "reward", None)


def _name(env: Any) -> str:
    """How the failure names the config played: ``reward='score_delta'``."""
    mode = _mode(env)
    return f"reward={mode!r}" if mode is not None else "the case's config"


def _seats(values: np.ndarray) -> str:
    return ", ".join(f"player_{s} {v:g}" for s, v in enumerate(values))


def rewards_outcome(case: Case) -> None:
    """At the end of every game of random play the seats the rules record as
    winners (``state_dict()["winners"]``) were paid the most in total:
    each at least every other seat, more than every seat that did not win;
    a game whose rules say ``zero_sum`` pays rewards that add up to 0 at
    every step; with ``reward="score_delta"`` each seat's rewards add up to
    its score's change over the game (module doc).  Skipped if none of these
    could be checked (no game won within the steps, in a game with neither)."""
    checked = False
    for env in _envs(case):
        mode, zero_sum, sign = _mode(env), bool(getattr(env.unwrapped.rules, "zero_sum", False)), _sign(env)
        checked |= zero_sum or mode == "score_delta"
        for seed in case.seeds:
            paid, moved = np.zeros(len(env.possible_agents)), np.zeros(len(env.possible_agents))
            for rewards, change, ended in _rewarded(case, env, seed):
                paid, moved = paid + rewards, moved + change
                case.expect(
                    not zero_sum or abs(rewards.sum()) < TOLERANCE,
                    f"the rules say zero_sum, but this step pays {_seats(rewards)} ({_name(env)})",
                )
                if ended or case.step == case.steps:
                    _adds_up(case, mode, paid, sign * moved)
                if ended:
                    checked |= _winners_paid_most(case, env, paid)
                    paid, moved = np.zeros_like(paid), np.zeros_like(moved)
    case.at()
    if not checked:
        raise Skip(f"no game was won within {case.steps} steps: the winners' rewards not checked (a shorter config)")


def _adds_up(case: Case, mode: str | None, paid: np.ndarray, want: np.ndarray) -> None:
    """``reward="score_delta"``: a game's rewards so far, ``paid``, add up
    to each seat's score's change, ``want`` (signed)."""
    if mode == "score_delta":
        case.expect(
            np.allclose(paid, want, rtol=0, atol=TOLERANCE),
            f"reward='score_delta': the rewards add up to {_seats(paid)}, but the scores changed by {_seats(want)}",
        )


def _winners_paid_most(case: Case, env: Any, paid: np.ndarray) -> bool:
    """The winners of the game just ended were paid ``paid``, the most (see
    :func:`rewards_outcome`); False if nobody won (a draw or a truncation
    the rules do not decide)."""
    winners = env.unwrapped.state_dict().get("winners") or []
    if not winners:
        return False
    others = [s for s in range(len(paid)) if s not in winners]
    least = min(paid[w] for w in winners)
    most_other = max((paid[s] for s in others), default=-np.inf)
    equal = max(paid[w] for w in winners) - least <= TOLERANCE
    case.expect(
        least > most_other + TOLERANCE and (others or equal),
        f"the winners {['player_' + str(w) for w in winners]} were not paid the most: the rewards add up to "
        f"{_seats(paid)} ({_name(env)})",
    )
    return True


def reward_seats(case: Case) -> None:
    """At every step of random play each reward reaches the seat whose score
    changed: with ``reward="score_delta"`` every seat is paid exactly its
    score's change at that step; with ``reward="win_loss"`` nobody is paid
    before the game ends.  Skipped for a game with neither mode."""
    checked = False
    for env in _envs(case):
        mode = _mode(env)
        if mode not in MODES:
            continue
        checked = True
        sign = _sign(env)
        for seed in case.seeds:
            for rewards, change, ended in _rewarded(case, env, seed):
                if mode == "score_delta":
                    _paid_its_change(case, rewards, sign * change)
                else:
                    case.expect(
                        ended or not rewards.any(),
                        f"reward='win_loss': this step pays {_seats(rewards)} before the game ended",
                    )
    case.at()
    if not checked:
        raise Skip(f"the game takes neither reward mode the kit knows ({', '.join(MODES)})")


def _paid_its_change(case: Case, rewards: np.ndarray, want: np.ndarray) -> None:
    """``reward="score_delta"``: each seat is paid ``want``, its score's change (signed)."""
    wrong = np.flatnonzero(np.abs(rewards - want) > TOLERANCE)
    if len(wrong):
        s = int(wrong[0])
        case.expect(
            False,
            f"reward='score_delta': player_{s} is paid {rewards[s]:g} but its score changed by {want[s]:g} "
            f"(this step pays {_seats(rewards)}; the seats' score changes, as paid: {_seats(want)})",
        )
