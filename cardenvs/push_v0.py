from cardenvs.push.env import __doc__, env, raw_env  # noqa: F401

__all__ = ["env", "raw_env"]
