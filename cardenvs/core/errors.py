"""Errors raised by every cardenvs game."""


def cut_short(what: str, exc: BaseException | None, during: str = "a step") -> str:
    """Why ``what`` (an engine or an env) refuses every call after ``during``
    (a step, a reset) was cut short by ``exc`` (a Ctrl-C's KeyboardInterrupt,
    a MemoryError, a fault in a kernel; None: not known, as when a second
    Ctrl-C cut short the handler that would have said): the rules may have
    moved some games and not others, so no later step, observation or state
    of those games can be trusted."""
    if exc is None:
        detail = ""
    else:
        detail = f" ({type(exc).__name__}: {exc})" if str(exc) else f" ({type(exc).__name__})"
    return (
        f"{what} was closed because {during} was cut short{detail}: its games may be half-stepped; "
        "reset() starts new games"
    )


class IllegalActionError(ValueError):
    """An action that is not legal in the current state was stepped.

    The state is left exactly as it was before the call.
    """
