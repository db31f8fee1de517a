"""The kit's results: one :class:`Result` per check, gathered in a
:class:`Report`, and the :class:`Case` a check runs on (the game, its
config and where the check has got to, so that a failure names the seed
and step)."""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from typing import Any

from cardenvs.registry import GameSpec

PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"


class CheckFailed(AssertionError):  # noqa: N818 (a check's verdict)
    """Raised by a check: what went wrong (the seed and step are the case's)."""


class Skip(Exception):  # noqa: N818 (a reason, not an error)
    """Raised by a check that cannot run for this game: why."""


class ConformanceError(AssertionError):
    """:meth:`Report.raise_if_failed`: some checks failed (one line each)."""


@dataclass
class Result:
    """One check's outcome: ``status`` is ``"passed"``, ``"failed"`` or
    ``"skipped"``; a failure names the ``seed`` and ``step`` (actions taken
    since that seed's reset) where it was seen, when the check plays."""

    check: str
    status: str
    game: str
    seed: int | None = None
    step: int | None = None
    message: str = ""

    @property
    def passed(self) -> bool:
        return self.status == PASSED

    @property
    def failed(self) -> bool:
        return self.status == FAILED

    def line(self) -> str:
        """One line: ``FAILED legal_masks pepper_v0 seed=0 step=3: ...``."""
        where = "".join(f" {k}={v}" for k, v in (("seed", self.seed), ("step", self.step)) if v is not None)
        text = f"{self.status.upper():7} {self.check} {self.game}{where}"
        return f"{text}: {self.message}" if self.message else text


class Report(list):
    """The results of :func:`cardenvs.testing.check_game`, in check order."""

    @property
    def failures(self) -> list[Result]:
        return [r for r in self if r.failed]

    @property
    def ok(self) -> bool:
        return not self.failures

    def result(self, check: str) -> Result:
        """The result of ``check`` (KeyError if it did not run)."""
        for r in self:
            if r.check == check:
                return r
        raise KeyError(check)

    def __str__(self) -> str:
        return "\n".join(r.line() for r in self)

    def raise_if_failed(self) -> None:
        """Raise :class:`ConformanceError` listing every failed check."""
        if self.failures:
            raise ConformanceError("\n".join(r.line() for r in self.failures))


@dataclass
class Case:
    """What a check runs on: the game's registry entry and config, the seeds
    to play and the most actions per seed; ``seed`` and ``step`` say where
    the check is (set with :meth:`at`), for the report."""

    spec: GameSpec
    config: dict[str, Any]
    seeds: tuple[int, ...]
    steps: int
    seed: int | None = None
    step: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def game(self) -> str:
        return self.spec.name

    def at(self, seed: int | None = None, step: int | None = None) -> None:
        self.seed, self.step = seed, step

    def expect(self, condition: Any, message: str) -> None:
        """Fail the check with ``message`` unless ``condition``."""
        if not condition:
            raise CheckFailed(message)


def run_check(name: str, check: Any, case: Case) -> Result:
    """Run one check on ``case``: its result, never an exception (an
    unexpected one is a failure naming its type and where it was raised)."""
    case.at()
    try:
        check(case)
    except Skip as why:
        return Result(name, SKIPPED, case.game, message=str(why))
    except CheckFailed as failure:
        return Result(name, FAILED, case.game, case.seed, case.step, str(failure))
    except Exception as exc:  # noqa: BLE001 (any error of the game is a failed check)
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        where = f" (at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno})"
        return Result(name, FAILED, case.game, case.seed, case.step, f"{type(exc).__name__}: {exc}{where}")
    return Result(name, PASSED, case.game)
