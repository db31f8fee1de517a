"""A conformance kit for any registered game: the generic checks every game
of the registry must pass, run by name.

    >>> from cardenvs.testing import check_game
    >>> report = check_game("pepper_v0", checks=["cards_conserved"], seeds=1, steps=50)
    >>> report.raise_if_failed()

or from a shell: ``python -m cardenvs.testing pepper_v0 [--config JSON] [--check NAME ...] [--quick]``
(the game's ``short_config`` unless ``--config`` says otherwise; here, its
defaults unless ``config`` does).
The checks go through :mod:`cardenvs.registry` alone (the game's rules,
layouts, docs page); each reports the game and, when it plays, the seed and
step where it failed.  It needs only the package's dependencies (PettingZoo's
test functions come from ``pettingzoo.test``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from cardenvs.registry import spec

from . import engines, hidden, infosets, play, repo, rewards, states
from .report import FAILED, PASSED, SKIPPED, Case, CheckFailed, ConformanceError, Report, Result, Skip, run_check

__all__ = [
    "CHECKS",
    "FAILED",
    "PASSED",
    "SKIPPED",
    "Case",
    "CheckFailed",
    "ConformanceError",
    "Report",
    "Result",
    "Skip",
    "check_game",
]

#: Every check, by name, in the order :func:`check_game` runs them; each takes
#: a :class:`Case` and raises :class:`CheckFailed` (or :class:`Skip`).
CHECKS: dict[str, Callable[[Case], None]] = {
    "pettingzoo_api": engines.pettingzoo_api,
    "cards_conserved": play.cards_conserved,
    "legal_masks": play.legal_masks,
    "observation_spaces": play.observation_spaces,
    "illegal_actions": play.illegal_actions,
    "rewards_outcome": rewards.rewards_outcome,
    "reward_seats": rewards.reward_seats,
    "aec_vector": engines.aec_vector,
    "seeds": engines.seeds,
    "threads": engines.threads,
    "processes": engines.processes,
    "pickling": engines.pickling,
    "hidden_cards": hidden.hidden_cards,
    "information_sets": infosets.information_sets,
    "public_counts": infosets.public_counts,
    "state_decode": states.state_decode,
    "docs_tables": repo.docs_tables,
    "playthroughs": repo.playthroughs,
}


def check_game(
    name: str,
    *,
    seeds: int | Iterable[int] = 3,
    steps: int = 200,
    config: dict[str, Any] | None = None,
    checks: Iterable[str] | None = None,
) -> Report:
    """Run the conformance checks on game ``name`` (a registry name, e.g.
    ``"pepper_v0"``) and return their :class:`Report` (it raises nothing
    itself: call :meth:`Report.raise_if_failed`).

    ``seeds``: how many seeds (0, 1, ...) or which; ``steps``: the most
    actions played per seed; ``config``: the game's config for every check
    (a short game makes the checks quick and reach the game's end; default
    the game's defaults); ``checks``: the names of the checks to run
    (default all of :data:`CHECKS`; ValueError naming them for an unknown one)."""
    game = spec(name)
    chosen = list(CHECKS) if checks is None else list(checks)
    unknown = [c for c in chosen if c not in CHECKS]
    if unknown:
        raise ValueError(f"unknown checks {unknown}; available: {list(CHECKS)}")
    seed_list = tuple(range(seeds)) if isinstance(seeds, int) else tuple(int(s) for s in seeds)
    if not seed_list or steps < 1:
        raise ValueError("check_game needs at least one seed and one step")
    report = Report()
    for check in chosen:
        case = Case(game, dict(config or {}), seed_list, int(steps))
        report.append(run_check(check, CHECKS[check], case))
    return report
