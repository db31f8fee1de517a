"""Errors raised by every cardenvs game."""


class IllegalActionError(ValueError):
    """An action that is not legal in the current state was stepped.

    The state is left exactly as it was before the call.
    """
