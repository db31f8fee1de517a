"""Policy files are checked before anything they declare is allocated (B1
of the fifth attack round): an MLP policy's JSON of a few hundred bytes
declaring huge layers, a key given twice, a ``config`` that is not its
game's; a cardenvs PPO policy file whose ``net_arch`` is larger than its
weights; and :func:`save_policy` never writes a file its loader refuses.

The memory tests load in a fresh process and read its peak resident size
(``ru_maxrss``) before and after: the refusal must come before the
declared layers are built (they would take hundreds of MB)."""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import zipfile

import pytest

torch = pytest.importorskip("torch")

from cardenvs.agents.mlp import MLPAgent, build_mlp, read_policy, save_policy  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCRATCH = ROOT / "agents" / "checkpoints" / "pepper_scratch"  # a committed MLP policy (about 1 MB of weights)
PPO = ROOT / "agents" / "checkpoints" / "pepper_ppo.npz"  # a committed cardenvs PPO policy file

PEAK = """
import json, resource, sys
def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
{imports}
before = peak()
try:
    {call}
    said = "loaded"
except ValueError as e:
    said = str(e)
print(json.dumps({{"said": said, "grew_mb": peak() - before}}))
"""


def load_in_a_process(imports: str, call: str) -> dict:
    """Run ``call`` in a fresh interpreter: what it raised and how much its peak memory grew (MB)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    code = PEAK.format(imports=imports, call=call)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def forged_mlp(tmp_path: pathlib.Path, **changes) -> pathlib.Path:
    """The committed Pepper policy's JSON with ``changes``, beside a copy of its weights (digest kept)."""
    meta = json.loads(SCRATCH.with_suffix(".json").read_text())
    shutil.copy(SCRATCH.with_suffix(".pt"), tmp_path / "p.pt")
    meta.update(weights="p.pt", **changes)
    path = tmp_path / "p.json"
    path.write_text(json.dumps(meta))
    return path


def test_huge_declared_layers_are_refused_before_they_are_built(tmp_path):
    """[60000, 2000] hidden units: 138 M weights (550 MB), declared in a JSON
    beside a 1 MB weights file: refused by the file's size, nothing built."""
    path = forged_mlp(tmp_path, hidden=[60000, 2000])
    out = load_in_a_process("from cardenvs.agents.mlp import read_policy", f"read_policy({str(path)!r})")
    assert "fewer than" in out["said"] and "p.pt" in out["said"], out
    assert out["grew_mb"] < 150, out


def test_more_weights_than_a_file_may_hold_are_refused(tmp_path):
    path = forged_mlp(tmp_path, hidden=[250000, 2000])
    with pytest.raises(ValueError, match="weights; a policy file holds at most"):
        read_policy(path)


def test_a_key_given_twice_is_refused(tmp_path):
    """JSON keeps the later of two values: a reader of the file and the loader could see different sizes."""
    path = forged_mlp(tmp_path)
    text = path.read_text()
    path.write_text(text[:-1] + ', "hidden": [256, 256]}')
    with pytest.raises(ValueError, match="'hidden' is given more than once"):
        read_policy(path)


@pytest.mark.parametrize(
    "changes, said",
    [
        ({"config": {"max_hands": 2, "bogus": 1}}, "not pepper_v0's options"),
        ({"config": {"max_hands": "two"}}, "not pepper_v0's options"),
        ({"config": {"variant": "speed"}}, "not pepper_v0's options"),
        ({"obs_size": 300}, "not the shapes of pepper_v0 with its config"),
        ({"num_actions": 40}, "not the shapes of pepper_v0 with its config"),
    ],
)
def test_a_config_that_is_not_the_games_is_refused(tmp_path, changes, said):
    path = forged_mlp(tmp_path, **changes)
    with pytest.raises(ValueError, match=said):
        read_policy(path)


def test_the_committed_policy_still_loads_and_plays(tmp_path):
    path = forged_mlp(tmp_path)
    agent = MLPAgent.load(path, game="pepper_v0")
    reference = MLPAgent.load(SCRATCH, game="pepper_v0")
    for (name, a), (other, b) in zip(agent.actor.state_dict().items(), reference.actor.state_dict().items()):
        assert name == other and torch.equal(a, b)
    assert all(p.device.type == "cpu" for p in agent.actor.parameters())


@pytest.mark.parametrize("hidden", [[], [0], [16] * 9])
def test_save_policy_refuses_what_the_loader_would(tmp_path, hidden):
    """``save_policy(hidden=[])`` used to write a file ``MLPAgent.load`` refuses."""
    actor = build_mlp(299, hidden if hidden and min(hidden) > 0 else [], 39)
    with pytest.raises(ValueError, match="hidden"):
        save_policy(tmp_path / "p", actor, game="pepper_v0", config={}, obs_size=299, num_actions=39, hidden=hidden)
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_save_policy_refuses_weights_of_other_sizes(tmp_path):
    actor = build_mlp(299, [16], 39)
    with pytest.raises(ValueError, match="the network needs"):
        save_policy(tmp_path / "p", actor, game="pepper_v0", config={}, obs_size=299, num_actions=39, hidden=[32])
    assert list(tmp_path.iterdir()) == []


def test_save_policy_refuses_a_config_of_another_game(tmp_path):
    actor = build_mlp(299, [16], 39)
    with pytest.raises(ValueError, match="not pepper_v0's options"):
        save_policy(tmp_path / "p", actor, game="pepper_v0", config={"variant": "speed"}, obs_size=299,
                    num_actions=39, hidden=[16])  # fmt: skip
    assert list(tmp_path.iterdir()) == []


def forged_ppo(tmp_path: pathlib.Path, net_arch: list[int]) -> pathlib.Path:
    """The committed Pepper PPO policy file with its description's ``net_arch`` replaced."""
    path = tmp_path / "big.npz"
    with zipfile.ZipFile(PPO) as src, zipfile.ZipFile(path, "w") as out:
        for member in src.namelist():
            data = src.read(member)
            if member == "cardenvs_policy.json":
                meta = json.loads(data)
                meta["policy_kwargs"]["net_arch"] = net_arch
                data = json.dumps(meta).encode()
            out.writestr(member, data)
    return path


def test_a_ppo_policy_file_declaring_large_layers_is_refused_before_they_are_built(tmp_path):
    """``net_arch`` [20000, 2000] (two branches of 46 M weights, 370 MB) over
    the baseline's [128, 128] weights: refused by shape, nothing built."""
    pytest.importorskip("sb3_contrib")
    path = forged_ppo(tmp_path, [20000, 2000])
    out = load_in_a_process("from cardenvs.agents.policy import load_policy", f"load_policy({str(path)!r})")
    assert "has shape" in out["said"] and str(path) in out["said"], out
    assert out["grew_mb"] < 150, out


def test_a_sound_ppo_policy_file_still_loads(tmp_path):
    pytest.importorskip("sb3_contrib")
    from cardenvs.agents.policy import load_model, load_policy

    path = forged_ppo(tmp_path, [128, 128])
    assert load_policy(path).policy is not None
    model = load_model(path)
    assert model.policy.optimizer is not None
    assert hashlib.sha256(path.read_bytes()).hexdigest()  # (the file itself untouched by loading)
