"""Bridges from cardenvs to training frameworks, each under its own extra.

- :mod:`cardenvs.integrations.rllib`: Ray RLlib multi-agent envs, an env
  runner that steps a batch of games through the vector engine, and a
  shared-policy PPO config with action masking (``pip install
  'cardenvs[rllib]'``).
- :mod:`cardenvs.integrations.torchrl`: every game as one batched TorchRL
  ``EnvBase`` over the vector engine, in TorchRL's multi-agent layout with
  masked actions (``pip install 'cardenvs[torchrl]'``).

Nothing here is imported by ``import cardenvs``: importing a submodule is
what needs its framework.
"""
