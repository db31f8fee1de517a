from cardenvs.games.high_card.env import __doc__, env, raw_env  # noqa: F401

__all__ = ["env", "raw_env"]
