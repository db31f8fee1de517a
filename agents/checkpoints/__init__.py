"""The committed baseline policies (``<game>_ppo.npz``, cardenvs policy
files: weights as numpy arrays and the policy's description in JSON, loaded
without unpickling anything; see ``cardenvs/agents/checkpoint.py``) with
their summaries and learning curves, written here by
``examples/train_<game>.py`` or ``tools/install_baseline.py``.  Installed as
the package data of ``cardenvs.baselines``."""
