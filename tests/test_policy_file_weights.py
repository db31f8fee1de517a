"""Policy files whose weights are not sound are refused at load, naming the
file (N9): non-finite numbers, another byte order, a member stored twice, a
description key given twice; an SB3 zip whose optimizer state holds a NaN."""

import io
import warnings
import zipfile

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from cardenvs.agents.checkpoint import META, CheckpointError  # noqa: E402
from cardenvs.agents.policy import load_model  # noqa: E402
from cardenvs.agents.registry import BASELINES, make_agent  # noqa: E402


def npy(array: np.ndarray) -> bytes:
    out = io.BytesIO()
    np.lib.format.write_array(out, array)
    return out.getvalue()


def forged(tmp_path, name, change=lambda a: a, twice=False):
    """The Pepper baseline rewritten with every weight passed through ``change``
    (and its first weight stored a second time, with ``twice``)."""
    source = zipfile.ZipFile(BASELINES["pepper_v0"])
    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as out, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate name
        members = source.namelist()
        for member in members:
            data = source.read(member)
            if member.endswith(".npy"):
                data = npy(change(np.lib.format.read_array(io.BytesIO(data))))
            out.writestr(member, data)
        if twice:
            first = next(m for m in members if m.endswith(".npy"))
            out.writestr(first, npy(np.zeros_like(np.lib.format.read_array(io.BytesIO(source.read(first))))))
    return path


@pytest.mark.parametrize(
    "name, change, said",
    [
        ("nan.npz", lambda a: np.full_like(a, np.nan) if a.dtype.kind == "f" else a, "non-finite"),
        ("inf.npz", lambda a: np.full_like(a, np.inf) if a.dtype.kind == "f" else a, "non-finite"),
        ("big_endian.npz", lambda a: a.astype(a.dtype.newbyteorder(">")) if a.dtype.itemsize > 1 else a, "byte order"),
    ],
)
def test_unsound_weights_are_refused_at_load(tmp_path, name, change, said):
    path = forged(tmp_path, name, change)
    with pytest.raises(CheckpointError, match=said) as err:
        make_agent("pepper_v0", f"ppo:{path}")
    assert str(path) in str(err.value)


def test_a_weight_stored_twice_is_refused(tmp_path):
    path = forged(tmp_path, "twice.npz", twice=True)
    with pytest.raises(CheckpointError, match="more than once") as err:
        make_agent("pepper_v0", f"ppo:{path}")
    assert str(path) in str(err.value)


def test_the_sound_file_still_loads(tmp_path):
    path = forged(tmp_path, "same.npz")
    assert make_agent("pepper_v0", f"ppo:{path}") is not None


def rewritten(source, path, members: dict) -> None:
    """``source`` (a zip) copied to ``path`` with ``members`` replaced."""
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(path, "w") as out:
        for member in src.namelist():
            out.writestr(member, members.get(member, src.read(member)))


def test_a_description_key_given_twice_is_refused(tmp_path):
    """JSON keeps the later of two values for a key: whoever reads the file
    could see one class, the loader build the other."""
    meta = zipfile.ZipFile(BASELINES["pepper_v0"]).read(META).decode()
    twice = meta.replace('"policy_class":', '"policy_class": "os.system", "policy_class":', 1)
    assert twice != meta
    path = tmp_path / "key_twice.npz"
    rewritten(BASELINES["pepper_v0"], path, {META: twice.encode()})
    with pytest.raises(CheckpointError, match="'policy_class' is given more than once") as err:
        make_agent("pepper_v0", f"ppo:{path}")
    assert str(path) in str(err.value)


def test_an_sb3_optimizer_state_with_a_nan_is_refused(tmp_path):
    """Training on from it would turn every weight to NaN at its first update."""
    import torch

    sound = tmp_path / "sound.zip"
    load_model(BASELINES["pepper_v0"]).save(sound)
    state = torch.load(io.BytesIO(zipfile.ZipFile(sound).read("policy.optimizer.pth")), weights_only=True)
    state["param_groups"][0]["eps"] = float("nan")
    buffer = io.BytesIO()
    torch.save(state, buffer)
    path = tmp_path / "nan_optimizer.zip"
    rewritten(sound, path, {"policy.optimizer.pth": buffer.getvalue()})
    with pytest.raises(
        CheckpointError, match=r"policy\.optimizer\.pth: \['param_groups'\]\[0\]\['eps'\] holds non-finite"
    ):
        load_model(path)
    assert load_model(sound).policy.optimizer.param_groups[0]["eps"] > 0
