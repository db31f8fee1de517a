"""Bridges from cardenvs to training frameworks, each under its own extra.

- :mod:`cardenvs.integrations.rllib`: Ray RLlib multi-agent envs, an env
  runner that steps a batch of games through the vector engine, and a
  shared-policy PPO config with action masking (``pip install
  'cardenvs[rllib]'``).

Nothing here is imported by ``import cardenvs``: importing a submodule is
what needs its framework.
"""
