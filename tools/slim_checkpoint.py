"""Make an SB3 zip (``MaskablePPO.save``) small: the optimizer's state
(Adam's two moments per weight, twice the policy's size) is replaced by a
fresh optimizer's, the model is saved again (so a policy class pickled under
an old module path, e.g. ``agents.advice``, is saved under today's) and the
zip is deflated.  The policy is unchanged; only training on from it
restarts Adam's moments.  The zip is read without unpickling it (see
``cardenvs/agents/checkpoint.py``).

The committed baselines are not SB3 zips but cardenvs policy files (no
optimizer state, nothing pickled): ``tools/convert_checkpoint.py`` and
``tools/install_baseline.py`` write those.

    python tools/slim_checkpoint.py runs/pepper/final_model.zip
"""

from __future__ import annotations

import io
import pathlib
import sys
import zipfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))


def slim(path: pathlib.Path) -> tuple[int, int]:
    from cardenvs.agents.policy import load_model

    before = path.stat().st_size
    model = load_model(path)
    optimizer = model.policy.optimizer
    model.policy.optimizer = type(optimizer)(model.policy.parameters(), **optimizer.defaults)
    buffer = io.BytesIO()
    model.save(buffer)
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as saved:
        members = {name: saved.read(name) for name in saved.namelist()}
    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as new:
        for name, data in members.items():
            new.writestr(name, data)
    tmp.replace(path)
    return before, path.stat().st_size


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        b, a = slim(pathlib.Path(arg))
        print(f"{arg}: {b / 1e6:.1f} MB -> {a / 1e6:.1f} MB")
