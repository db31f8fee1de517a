"""Writing a cardenvs policy file: the format :mod:`.checkpoint` reads and
checks (one ``.npy`` member per weight and ``cardenvs_policy.json``), kept
apart from the reader so that the reader holds only what a file is checked
against."""

from __future__ import annotations

import contextlib
import io
import json
import pathlib
import zipfile
from typing import Any

import numpy as np

from .checkpoint import FORMAT, HYPER, META, VERSION, _allowed, class_name, encode, space_json


def _constant(value: Any) -> Any:
    """A hyper-parameter as a number: a schedule (a callable of the progress
    left) as its value at the start."""
    return float(value(1.0)) if callable(value) and not isinstance(value, type) else value


def write_policy_file(
    path: str | pathlib.Path,
    policy: Any,
    policy_kwargs: dict[str, Any],
    observation_space: Any,
    action_space: Any,
    hyperparameters: dict[str, Any],
    num_timesteps: int,
) -> pathlib.Path:
    """Write ``policy`` (its class and state dict), the options it was built
    with and the spaces as a policy file at ``path`` (replaced whole: written
    beside it first).  The bytes depend on the policy alone (no timestamps)."""
    import importlib.metadata as md

    state = {k: v.detach().cpu().numpy() for k, v in policy.state_dict().items()}
    versions = {}
    for dist in ("cardenvs", "torch", "stable-baselines3", "sb3-contrib"):
        with contextlib.suppress(md.PackageNotFoundError):
            versions[dist] = md.version(dist)
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "algorithm": "MaskablePPO",
        "policy_class": class_name(type(policy)),
        "policy_kwargs": encode(dict(policy_kwargs), "policy_kwargs"),
        "observation_space": space_json(observation_space),
        "action_space": space_json(action_space),
        "hyperparameters": {k: encode(_constant(v), k) for k, v in hyperparameters.items() if k in HYPER},
        "num_timesteps": int(num_timesteps),
        "weights": {k: list(a.shape) for k, a in state.items()},
        "written_by": versions,
    }
    _allowed(meta["policy_class"], "the policy's class")
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")

    def member(name: str) -> zipfile.ZipInfo:
        info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        return info

    with zipfile.ZipFile(tmp, "w") as archive:
        archive.writestr(member(META), json.dumps(meta, indent=1))
        for name, array in state.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.array(array, order="C"), allow_pickle=False)
            archive.writestr(member(f"{name}.npy"), buffer.getvalue())
    tmp.replace(path)
    return path
