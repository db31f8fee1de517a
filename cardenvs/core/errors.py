"""Errors raised by every cardenvs game."""


def cut_short(what: str, exc: BaseException) -> str:
    """Why ``what`` (an engine or an env) refuses every call after a step was
    cut short by ``exc`` (a Ctrl-C's KeyboardInterrupt, a MemoryError, a
    fault in a kernel): the rules may have moved some games and not others,
    so no later step, observation or state of those games can be trusted."""
    detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return (
        f"{what} was closed because a step was cut short ({detail}): its games may be half-stepped; "
        "reset() starts new games"
    )


class IllegalActionError(ValueError):
    """An action that is not legal in the current state was stepped.

    The state is left exactly as it was before the call.
    """
