"""Saved policies load without running code from the file (issue 35, R1 and
R17's checkpoints): the committed baselines are cardenvs policy files that
play exactly as the SB3 zips they were converted from (recorded actions in
``tests/baselines/``, written by ``tools/convert_checkpoint.py --check``);
no default path unpickles anything; a tampered policy file or SB3 zip runs
nothing; a malformed one is a ValueError naming the file and the fault."""

from __future__ import annotations

import base64
import json
import os
import pathlib
import pickle
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="training extras (sb3-contrib) not installed")

from cardenvs.agents.checkpoint import META, CheckpointError, read_checkpoint  # noqa: E402
from cardenvs.agents.policy import PolicyModel, load_model, load_policy, save_policy  # noqa: E402
from cardenvs.agents.registry import BASELINES, make_agent  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from convert_checkpoint import policy_input  # noqa: E402

GAMES = sorted(BASELINES)


# ------------------------------------------------------------ the baselines
@pytest.mark.parametrize("game", GAMES)
def test_baseline_is_a_policy_file_that_plays_as_the_zip_it_came_from(game):
    """Observations met in games, each with its teacher's advice, a random
    legal action as advice and none: the policy file's greedy actions are
    those the SB3 zip's (``MaskablePPO.load``) were when it was converted."""
    path = BASELINES[game]
    assert path.suffix == ".npz" and read_checkpoint(path).kind == "cardenvs"
    with zipfile.ZipFile(path) as archive:  # nothing in it but the description and .npy arrays
        assert all(n == META or n.endswith(".npy") for n in archive.namelist())
    case = dict(np.load(ROOT / "tests" / "baselines" / f"{path.stem}.npz", allow_pickle=False))
    model = load_policy(path)
    actions, _ = model.predict(
        policy_input(case, model.policy.advice_size), action_masks=case["mask"], deterministic=True
    )
    np.testing.assert_array_equal(actions, case["actions"])
    assert len(case["actions"]) >= 512 and len(set(case["actions"].tolist())) > 20
    agent = make_agent(game, "ppo")
    assert isinstance(agent.model, PolicyModel) and agent.advisor is not None


NO_UNPICKLING = textwrap.dedent(
    """
    import pickle, sys
    import cloudpickle, numpy as np, torch
    import cardenvs.agents.policy  # torch, stable-baselines3, sb3-contrib imported
    from cardenvs.evaluation.matches import match
    from cardenvs.agents.registry import make_agent

    games = sys.argv[1:]
    for game in games:  # the engines' and rule agents' compiled kernels (numba's cache is a pickle of its own)
        rule = make_agent(game, "rule")
        match(game, rule, rule, 2, seed=1)

    armed = True
    def refuse(*args, **kwargs):
        raise AssertionError(f"unpickling: {args[:1]!r:.80}")
    def hook(event, args):
        if armed and event == "pickle.find_class":
            raise AssertionError(f"a pickle names {args}")
    sys.addaudithook(hook)
    pickle.load = pickle.loads = cloudpickle.load = cloudpickle.loads = refuse
    torch.load = refuse
    numpy_load = np.load
    def np_load(*args, allow_pickle=False, **kwargs):
        if allow_pickle:
            refuse(*args)
        return numpy_load(*args, allow_pickle=False, **kwargs)
    np.load = np_load

    for game in games:
        ppo = make_agent(game, "ppo")
        result = match(game, ppo, make_agent(game, "rule"), 2, seed=1)
        assert result.games == 2, result
        print(game, "played by", ppo.name)
    armed = False
    print("no unpickling")
    """
)


def test_no_default_path_unpickles_anything(tmp_path):
    """``make_agent(game, "ppo")`` for every game, and games played with it,
    in a process where every pickle loader (pickle's, cloudpickle's, torch's,
    numpy's with ``allow_pickle``) raises and an audit hook stops any pickle
    that names a class or function."""
    script = tmp_path / "no_unpickling.py"
    script.write_text(NO_UNPICKLING)
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    # Kernels as plain Python: a kernel switching to its compiled version mid-run (with a cold compile
    # cache) would load numba's cache, itself a pickle, while every pickle loader is refused.
    env["CARDENVS_COMPILE"] = "python"
    out = subprocess.run(
        [sys.executable, str(script), *GAMES], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=900
    )
    assert out.returncode == 0 and "no unpickling" in out.stdout, out.stdout + out.stderr[-3000:]


# --------------------------------------------------- r01: tampered checkpoints
class Payload:
    """What r01 pickles into a checkpoint: a file written when it is unpickled."""

    def __init__(self, target: pathlib.Path):
        self.target = str(target)

    def __reduce__(self):
        return (exec, (f"open({self.target!r}, 'w').write('x')",))


def _pickled(obj) -> str:
    return base64.b64encode(pickle.dumps(obj)).decode()


def _rewrite(src: pathlib.Path, dst: pathlib.Path, changes: dict[str, bytes | None]) -> pathlib.Path:
    """``src`` with members replaced (None: removed), as ``dst``."""
    with zipfile.ZipFile(src) as z:
        members = {n: z.read(n) for n in z.namelist()}
    for name, data in changes.items():
        if data is None:
            members.pop(name, None)
        else:
            members[name] = data
    with zipfile.ZipFile(dst, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return dst


@pytest.fixture(scope="module")
def pepper_zip(tmp_path_factory) -> pathlib.Path:
    """The Pepper baseline as an SB3 zip (``MaskablePPO.save``)."""
    path = tmp_path_factory.mktemp("zip") / "pepper.zip"
    load_model(BASELINES["pepper_v0"]).save(path)
    return path


def test_r01_a_tampered_sb3_zip_runs_nothing(pepper_zip, tmp_path):
    """r01's evil zip (a pickle in ``lr_schedule``), with pickles in every
    field SB3 pickles too (each keeping SB3's readable description beside it,
    as a forger would): ``ppo:PATH`` plays it and runs none of them.  SB3's
    own ``MaskablePPO.load`` runs them: that is what the docs warn of."""
    pwned = tmp_path / "PWNED"
    data = json.loads(zipfile.ZipFile(pepper_zip).read("data"))
    data["lr_schedule"] = {":serialized:": _pickled(Payload(pwned))}  # exactly r01's
    for value in data.values():
        if isinstance(value, dict) and ":serialized:" in value:
            value[":serialized:"] = _pickled(Payload(pwned))
    data["extra_field"] = {":type:": "<class 'object'>", ":serialized:": _pickled(Payload(pwned))}
    evil = _rewrite(pepper_zip, tmp_path / "evil.zip", {"data": json.dumps(data).encode()})

    agent = make_agent("pepper_v0", f"ppo:{evil}")
    assert not pwned.exists()
    reference = load_policy(BASELINES["pepper_v0"]).policy.state_dict()
    assert all((agent.model.policy.state_dict()[k] == v).all() for k, v in reference.items())
    from cardenvs.evaluation.matches import match

    assert match("pepper_v0", agent, make_agent("pepper_v0", "rule"), 2, seed=3).games == 2
    assert not pwned.exists()
    load = "from sb3_contrib import MaskablePPO; import sys; MaskablePPO.load(sys.argv[1], device='cpu')"
    subprocess.run([sys.executable, "-c", load, str(evil)], capture_output=True, timeout=300)
    assert pwned.exists(), "SB3's own load runs the pickles (the reason cardenvs does not use it)"


def test_an_sb3_zip_naming_a_foreign_class_or_pickled_weights_is_refused(pepper_zip, tmp_path):
    pwned = tmp_path / "PWNED"
    data = json.loads(zipfile.ZipFile(pepper_zip).read("data"))
    data["policy_class"] = {
        ":type:": "<class 'type'>",
        ":serialized:": _pickled(Payload(pwned)),
        "__module__": "os",
        "run": "<function Popen.run at 0x7f00>",
    }
    foreign = _rewrite(pepper_zip, tmp_path / "foreign.zip", {"data": json.dumps(data).encode()})
    with pytest.raises(ValueError, match=r"foreign\.zip.*policy_class is the class 'os\.Popen'"):
        make_agent("pepper_v0", f"ppo:{foreign}")
    import torch

    payload = tmp_path / "payload.pth"
    torch.save({"x": Payload(pwned)}, payload)
    weights = _rewrite(pepper_zip, tmp_path / "weights.zip", {"policy.pth": payload.read_bytes()})
    with pytest.raises(ValueError, match=r"weights\.zip: its policy\.pth is not a plain state dict"):
        make_agent("pepper_v0", f"ppo:{weights}")
    assert not pwned.exists()


def _policy_file(tmp_path: pathlib.Path, name: str, meta=None, members: dict | None = None) -> pathlib.Path:
    """The Pepper baseline with its description changed by ``meta(dict)`` and
    members replaced (None: removed)."""
    src = BASELINES["pepper_v0"]
    description = json.loads(zipfile.ZipFile(src).read(META))
    if meta is not None:
        meta(description)
    return _rewrite(src, tmp_path / name, {META: json.dumps(description).encode(), **(members or {})})


def _npy(array: np.ndarray, allow_pickle: bool = False) -> bytes:
    import io

    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


def test_a_tampered_policy_file_runs_nothing(tmp_path):
    """A policy file naming a class outside the allowed ones (in any field),
    holding a pickled object array, or an SB3-style pickle in its JSON: a
    ValueError, and the payload never runs."""
    pwned = tmp_path / "PWNED"
    cases = {
        "exec.npz": (lambda m: m.update(policy_class="builtins.exec"), None, "the class 'builtins.exec'"),
        "system.npz": (
            lambda m: m["policy_kwargs"].update(activation_fn={"__class__": "os.system"}),
            None,
            "the class 'os.system'",
        ),
        "buffer.npz": (
            lambda m: m["hyperparameters"].update(rollout_buffer_class={"__class__": "subprocess.Popen"}),
            None,
            "the class 'subprocess.Popen'",
        ),
        "sb3_style.npz": (
            lambda m: m["hyperparameters"].update(learning_rate={":serialized:": _pickled(Payload(pwned))}),
            None,
            "learning_rate",
        ),
        "object_array.npz": (
            None,
            {"action_net.bias.npy": _npy(np.array([Payload(pwned)] * 39, dtype=object), allow_pickle=True)},
            "action_net.bias.npy is not a plain numeric array",
        ),
    }
    for name, (meta, members, words) in cases.items():
        path = _policy_file(tmp_path, name, meta, members)
        with pytest.raises(ValueError, match=f"{name}.*{words}".replace(".npz", r"\.npz").replace("(", r"\(")):
            make_agent("pepper_v0", f"ppo:{path}")
    assert not pwned.exists()


# ------------------------------------------------------- malformed checkpoints
def _malformed(tmp_path: pathlib.Path, pepper_zip: pathlib.Path) -> dict[str, tuple[pathlib.Path, str]]:
    """name -> (a bad checkpoint, words its error must say)."""
    good = BASELINES["pepper_v0"].read_bytes()
    (tmp_path / "truncated.npz").write_bytes(good[: len(good) // 2])
    (tmp_path / "empty.npz").write_bytes(b"")
    (tmp_path / "text.zip").write_text("not a checkpoint")
    (tmp_path / "a_folder").mkdir()
    with zipfile.ZipFile(tmp_path / "other.zip", "w") as z:
        z.writestr("readme.txt", "hello")
    shape = np.zeros((7, 7), np.float32)

    def wrong(m):
        m["weights"]["action_net.bias"] = [7, 7]

    def listed(m):
        m["weights"]["action_net.bias"] = [40]

    def arch(m):
        m["policy_kwargs"]["net_arch"] = [64, 64]

    sb3_data = json.loads(zipfile.ZipFile(pepper_zip).read("data"))
    sb3_data.pop("observation_space")
    pth = zipfile.ZipFile(pepper_zip).read("policy.pth")
    return {
        "missing": (tmp_path / "missing.npz", "no such file"),
        "folder": (tmp_path / "a_folder", "a directory"),
        "truncated": (tmp_path / "truncated.npz", "not a readable zip"),
        "empty": (tmp_path / "empty.npz", "not a readable zip"),
        "text": (tmp_path / "text.zip", "not a readable zip"),
        "members": (tmp_path / "other.zip", "neither a cardenvs policy file"),
        "not json": (_policy_file(tmp_path, "notjson.npz", members={META: b"{nope"}), "is not JSON"),
        "format": (_policy_file(tmp_path, "format.npz", lambda m: m.update(format="x")), "not a cardenvs-policy"),
        "version": (_policy_file(tmp_path, "version.npz", lambda m: m.update(version=9)), "format version 9"),
        "field": (_policy_file(tmp_path, "field.npz", lambda m: m.pop("policy_kwargs")), "policy_kwargs must be"),
        "type": (
            _policy_file(tmp_path, "type.npz", lambda m: m["hyperparameters"].update(n_steps="many")),
            "n_steps = 'many' is not of its kind",
        ),
        "space": (
            _policy_file(tmp_path, "space.npz", lambda m: m["action_space"].update(n=-3)),
            "action_space.n must be an integer",
        ),
        "shape": (
            _policy_file(tmp_path, "shape.npz", wrong, {"action_net.bias.npy": _npy(shape)}),
            r"the weight action_net.bias has shape \(7, 7\); its policy's is \(39,\)",
        ),
        "listing": (_policy_file(tmp_path, "listing.npz", listed), "not the ones it lists"),
        "architecture": (_policy_file(tmp_path, "arch.npz", arch), "has shape"),
        "dropped": (
            _policy_file(
                tmp_path, "dropped.npz", lambda m: m["weights"].pop("action_net.bias"), {"action_net.bias.npy": None}
            ),
            "missing",
        ),
        "stray member": (_policy_file(tmp_path, "stray.npz", members={"run.py": b"print(1)"}), "unexpected member"),
        "damaged member": (
            _rewrite(BASELINES["pepper_v0"], tmp_path / "damaged.npz", {"action_net.bias.npy": b"\x93NUMPY junk"}),
            "not a plain numeric array",
        ),
        "sb3 field": (
            _rewrite(pepper_zip, tmp_path / "nospace.zip", {"data": json.dumps(sb3_data).encode()}),
            "observation_space is missing",
        ),
        "sb3 weights": (
            _rewrite(pepper_zip, tmp_path / "cut.zip", {"policy.pth": pth[: len(pth) // 3]}),
            "policy.pth is not a plain state dict",
        ),
        "sb3 data": (_rewrite(pepper_zip, tmp_path / "data.zip", {"data": b"\xff\xfe"}), "is not JSON"),
    }


def test_malformed_checkpoints_are_value_errors_naming_the_file_and_the_fault(tmp_path, pepper_zip):
    for name, (path, words) in _malformed(tmp_path, pepper_zip).items():
        with pytest.raises(ValueError, match=words) as caught:
            make_agent("pepper_v0", f"ppo:{path}")
        assert str(path) in str(caught.value), name
        assert isinstance(caught.value, CheckpointError) or name in ("missing",), name


def test_the_command_line_reports_a_malformed_checkpoint_in_one_line(tmp_path):
    bad = tmp_path / "cut.npz"
    good = BASELINES["pepper_v0"].read_bytes()
    bad.write_bytes(good[: len(good) // 3])
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    commands = (
        ["play", "pepper", "--vs", str(bad), "--seed", "1"],
        ["replay", "record", "pepper", "--agents", f"ppo:{bad}", "-o", str(tmp_path / "r.json")],
    )
    for argv in commands:
        out = subprocess.run(
            [sys.executable, "-m", "cardenvs.app.cli", *argv],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=600,
            input="q\n",
        )
        assert out.returncode == 2, out.stdout + out.stderr
        assert "Traceback" not in out.stderr and str(bad) in out.stderr and "not a readable zip" in out.stderr


def test_a_policy_for_another_game_or_variant_is_refused():
    with pytest.raises(ValueError, match="is a policy for 33 actions"):
        make_agent("spit_v0", "ppo", variant="speed")
    with pytest.raises(ValueError, match="is a policy for 39 actions"):
        make_agent("push_v0", f"ppo:{BASELINES['pepper_v0']}")
    with pytest.raises(ValueError, match="needs the path"):
        make_agent("pepper_v0", "ppo:")


# ------------------------------------------------------------- round trips
def test_policy_file_round_trip_and_training_on_from_it(tmp_path, pepper_zip):
    """A policy file written from an SB3 zip (read without unpickling) or
    from a model holds the same weights and spaces; ``load_model`` makes a
    MaskablePPO of it that trains on, with its recorded hyper-parameters."""
    from cardenvs.agents.registry import rule_agent
    from cardenvs.training.seat_env import learner_vec_env

    from_zip = save_policy(load_policy(pepper_zip), tmp_path / "from_zip.npz")
    baseline = load_policy(BASELINES["pepper_v0"])
    again = load_policy(from_zip)
    for k, v in baseline.policy.state_dict().items():
        assert (again.policy.state_dict()[k] == v).all(), k
    assert again.observation_space.shape == baseline.observation_space.shape
    assert again.policy.advisor_options == baseline.policy.advisor_options
    rule = rule_agent("pepper_v0")
    env = learner_vec_env("pepper_v0", 4, opponents=rule, partner=rule, seed=0, advisor=rule, max_hands=1)
    model = load_model(BASELINES["pepper_v0"], env=env)
    assert (model.n_steps, model.gamma, model.batch_size) == (128, 1.0, 4096)
    model.n_steps, model.batch_size = 16, 64  # (a small update)
    model._setup_model()
    model.learn(64)
    written = save_policy(model, tmp_path / "trained_on.npz")
    bias = load_policy(written).policy.state_dict()["action_net.bias"]
    assert (bias == model.policy.state_dict()["action_net.bias"]).all()
    with pytest.raises(ValueError, match="observations and 39 actions; the env has"):
        load_model(BASELINES["pepper_v0"], env=learner_vec_env("spit_v0", 2, opponents=rule_agent("spit_v0"), seed=0))


def test_the_help_the_docstring_and_the_readme_say_an_sb3_zip_is_a_pickle():
    from cardenvs.app import cli

    def flat(text: str) -> str:
        return " ".join(text.split())

    commands = cli.parser()._subparsers._group_actions[0].choices
    record = commands["replay"]._subparsers._group_actions[0].choices["record"]
    for text in (commands["play"].format_help(), record.format_help(), make_agent.__doc__):
        assert "a pickle runs code" in flat(text)
        assert "load only files you trust" in flat(text)
    readme = flat((ROOT / "README.md").read_text())
    assert "An SB3 zip is a pickle, and a pickle runs code when it is unpickled" in readme.replace("**", "")
