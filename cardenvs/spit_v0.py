from cardenvs.spit.env import __doc__, env, parallel_env, raw_env  # noqa: F401

__all__ = ["env", "parallel_env", "raw_env"]
