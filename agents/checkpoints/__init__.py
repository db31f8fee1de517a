"""The committed baseline checkpoints (``<game>_ppo.zip``) with their
summaries and learning curves, written here by ``examples/train_<game>.py``.
Installed as the package data of ``cardenvs.baselines``."""
