"""A run folder of ``cardenvs arena`` is input from anyone: ``--resume``
imports nothing it names (N6), and its manifest and pair files are checked
-- types, bounds, the run's identity, each pair's consistency and digest --
before anything is played or written; every fault is one line and exit
code 2 (N7).  The real command on real files, through its ``main()`` (and
a subprocess where the current folder is on the import path)."""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
from collections.abc import Callable

import pytest

from cardenvs.app.cli import main
from cardenvs.evaluation.leagues import league

ARGS = ["pepper", "--deals", "4", "--batch", "4", "--resamples", "20"]


def files(folder: pathlib.Path) -> dict[str, bytes]:
    """Every file under ``folder``, by path: what "nothing written" compares."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[int, pathlib.Path]:
    """Two finished runs of random and rule, seeds 0 and 1."""
    base = tmp_path_factory.mktemp("runs")
    for seed in (0, 1):
        assert (
            main(["arena", *ARGS, "--agents", "random,rule", "--seed", str(seed), "--out", str(base / f"s{seed}")]) == 0
        )
    return {0: base / "s0", 1: base / "s1"}


def edit_json(file: pathlib.Path, change: Callable[[dict], object]) -> None:
    data = json.loads(file.read_text())
    change(data)
    file.write_text(json.dumps(data))


def record_digest(run: pathlib.Path) -> None:
    """Make the manifest record the pair file's digest as it is now (a forged manifest)."""
    digest = hashlib.sha256((run / "pairs" / "0-1.json").read_bytes()).hexdigest()
    edit_json(run / "arena.json", lambda m: m["pairs"].update({"0-1": digest}))


def another_seed(run: pathlib.Path, other: pathlib.Path) -> None:
    shutil.copy(other / "pairs" / "0-1.json", run / "pairs" / "0-1.json")
    record_digest(run)


def contradicting(run: pathlib.Path, other: pathlib.Path) -> None:
    """Deal 0, seating 0: the winner's flag moved to the loser."""
    edit_json(run / "pairs" / "0-1.json", lambda p: p["winners"][0].__setitem__(0, [1 - w for w in p["winners"][0][0]]))
    record_digest(run)


def planted_link(run: pathlib.Path, other: pathlib.Path) -> None:
    """league.json, which resuming writes, a link to a file of someone else's."""
    (run.parent / "victim").write_text("mine")
    (run / "league.json").symlink_to(run.parent / "victim")


def manifest(change: Callable[[dict], object]) -> Callable[[pathlib.Path, pathlib.Path], None]:
    return lambda run, other: edit_json(run / "arena.json", change)


PAIR = pathlib.Path("pairs/0-1.json")
CASES = {
    "not JSON": (lambda run, other: (run / "arena.json").write_text("{not json"), "cannot be read as JSON"),
    "a list": (lambda run, other: (run / "arena.json").write_text("[1, 2]"), "a JSON object, this is a list"),
    "seed 1.5": (manifest(lambda m: m.update(seed=1.5)), "'seed' must be at least 0"),
    "unknown config key": (manifest(lambda m: m.update(config={"strict": True})), "unexpected keyword"),
    "deals 10**18": (manifest(lambda m: m.update(deals=10**18)), "'deals' must be at least 1 and at most 10000000"),
    "missing key": (manifest(lambda m: m.pop("batch")), "a manifest has"),
    "agents of the wrong type": (manifest(lambda m: m.update(agents="random,rule")), "'agents' must be a list"),
    "an older manifest": (manifest(lambda m: m.pop("format")), "not a manifest of this cardenvs"),
    "a pair file truncated": (
        lambda run, other: (run / PAIR).write_bytes((run / PAIR).read_bytes()[:100]),
        "0-1.json: cannot be read as JSON",
    ),
    "a pair file of another seed": (another_seed, "0-1.json: a pair of another run: its seed is 1, this run's 0"),
    "deals that disagree": (
        manifest(lambda m: m.update(deals=3)),
        "0-1.json: 'scores' must be numbers shaped [3, 2, 4]",
    ),
    "winners that contradict scores": (contradicting, "0-1.json: deal 0, seating 0: the winners"),
    "a wrong digest": (
        lambda run, other: (run / PAIR).write_text(json.dumps(json.loads((run / PAIR).read_text()), indent=1)),
        "0-1.json: its sha256 is not the one arena.json recorded",
    ),
    "an unrecorded pair": (manifest(lambda m: m.update(pairs={})), "0-1.json: not recorded in arena.json"),
    "a link where the run writes": (planted_link, "league.json is a link"),
}


@pytest.mark.parametrize("case", CASES)
def test_a_bad_run_file_gets_one_line_exit_2_and_nothing_written(runs, tmp_path, capsys, case):
    change, says = CASES[case]
    run = tmp_path / "run"
    shutil.copytree(runs[0], run)
    (run / "league.json").unlink()  # (an interrupted run: resuming would write it)
    change(run, runs[1])
    before = files(run)
    capsys.readouterr()
    assert main(["arena", "--resume", str(run), "--resamples", "20"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0], err
    assert files(run) == before
    assert not (run.parent / "victim").exists() or (run.parent / "victim").read_text() == "mine"


@pytest.mark.parametrize(
    "args, says",
    [
        (["--config", '{"strict": true}'], "--config: config {'strict': True}: PepperRules"),
        (["--config", '{"bogus": 1}'], "unexpected keyword argument 'bogus'"),
        (["--deals", str(10**18)], "--deals must be at least 1 and at most 10000000"),
        (["--seed", "-1"], "--seed must be at least 0"),
        (["--batch", str(10**6)], "--batch must be at least 1 and at most 100000"),
        (["--resamples", "0"], "--resamples must be at least 1"),
    ],
)
def test_bad_numbers_and_options_get_one_line_exit_2(tmp_path, capsys, args, says):
    assert main(["arena", *ARGS, "--agents", "random,rule", *args, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0], err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("under", ["", "sub"])
def test_an_out_that_cannot_be_a_folder_gets_one_line_exit_2(tmp_path, capsys, under):
    (tmp_path / "file").write_text("mine")
    out = tmp_path / "file" / under if under else tmp_path / "file"
    assert main(["arena", *ARGS, "--agents", "random,rule", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is not a folder" in err[0], err
    assert files(tmp_path) == {"file": b"mine"}


def test_resume_never_imports_what_the_run_folder_names(runs, tmp_path):
    """N6: the run's folder ships a module its manifest names; resumed with
    the current folder on the import path (python -m), nothing of it runs."""
    run = tmp_path / "shared_run"
    shutil.copytree(runs[0], run)
    shutil.rmtree(run / "pairs")
    edit_json(run / "arena.json", lambda m: m.update(agents=["random", "shared_run.helper:Agent"], pairs={}))
    edit_json(run / "arena.json", lambda m: m.update(specs=["random", "shared_run.helper:Agent"]))
    marker = tmp_path / "PAYLOAD_RAN"
    (run / "helper.py").write_text(f"open({str(marker)!r}, 'w').write('x')\ndef Agent(obs, mask):\n    return 0\n")
    command = [sys.executable, "-m", "cardenvs.app.cli", "arena", "--resume", "shared_run", "--resamples", "20"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for extra in ([], ["--agents", "random,rule"]):  # (left out, or not the recorded agents)
        done = subprocess.run([*command, *extra], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert not marker.exists()
    assert "shared_run.helper:Agent" in done.stderr and "Traceback" not in done.stderr


def test_a_run_from_python_resumes_with_its_specs_not_its_names(tmp_path, capsys):
    """N7: names that are other agents' specs are labels: the resumed run is the run."""
    out = tmp_path / "run"
    whole = league("pepper_v0", {"random": "rule", "rule": "random"}, deals=4, batch=4, out=out, resamples=20)
    assert json.loads((out / "arena.json").read_text())["specs"] == ["rule", "random"]
    first = (out / "league.json").read_text()
    (out / "pairs" / "0-1.json").unlink()
    (out / "league.json").unlink()
    assert main(["arena", "--resume", str(out), "--resamples", "20"]) == 0
    assert (out / "league.json").read_text() == first
    assert whole.pairs[0]["mean"] > 0  # ("random", the rule agent, beats "rule", the random one)


def test_a_run_with_an_agent_given_as_an_object_is_not_resumed_from_the_command_line(tmp_path, capsys):
    out = tmp_path / "run"
    league("pepper_v0", {"mine": lambda obs, mask: mask.argmax(-1), "rule": "rule"}, deals=2, batch=2, out=out)
    before = files(out)
    assert main(["arena", "--resume", str(out), "--agents", "random,rule"]) == 2
    assert "given to league() as an object" in capsys.readouterr().err
    assert files(out) == before
