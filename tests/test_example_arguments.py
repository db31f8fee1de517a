"""The examples' command lines refuse bad arguments in one argparse line,
exit status 2, before anything runs (B6 of the fifth attack round):
``examples/retrain_scratch.py`` and ``examples/dmc.py``, each argument
checked by its type (whole numbers and finite numbers in their ranges, a
JSON object of the game's options), a run folder's record read with care.
In-process through the scripts' own parsers, and once each as a program."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")

from helpers import ROOT, load_script  # noqa: E402

NAN, INF = "nan", "inf"


@pytest.fixture(scope="module")
def dmc():
    return load_script("examples/dmc.py")


@pytest.fixture(scope="module")
def retrain():
    return load_script("examples/retrain_scratch.py")


def refused(run, argv: list[str], capsys) -> str:
    """``run(argv)`` exits with 2 and one ``error:`` line (argparse's); that line."""
    with pytest.raises(SystemExit) as stop:
        run(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and err and "error:" in err[-1], err
    assert not any("Traceback" in line for line in err)
    return err[-1]


@pytest.mark.parametrize(
    "argv, said",
    [
        (["--config", "{bad"], "--config: must be a JSON object"),
        (["--config", "[]"], "--config: must be a JSON object"),
        (["--config", '{"a": 1, "a": 2}'], "given more than once"),
        (["--config", '{"bogus": 1}'], "--config: unknown option"),
        (["--config", '{"num_players": 99}'], "--config: num_players"),
        (["--num-envs", "0"], "--num-envs: must be a whole number from 1"),
        (["--num-envs", "many"], "--num-envs: must be a whole number"),
        (["--cpu-minutes", INF], "--cpu-minutes: must be a finite number above 0"),
        (["--cpu-minutes", NAN], "--cpu-minutes: must be a finite number"),
        (["--cpu-minutes", "0"], "--cpu-minutes: must be a finite number above 0"),
        (["--total-steps", "0"], "--total-steps"),
        (["--snapshot-every", INF, "--run-dir", "x"], "--snapshot-every"),
        (["--seed", "-1"], "--seed: must be a whole number from 0"),
        (["--seed", str(2**64)], "--seed"),
        (["--epsilon", NAN], "--epsilon"),
        (["--epsilon", "2"], "--epsilon: must be a finite number at least 0 and at most 1"),
        (["--lr", "0"], "--lr"),
        (["--lr", INF], "--lr"),
        (["--hidden", "0"], "--hidden"),
        (["--batch-size", "0"], "--batch-size: must be a whole number from 1"),
        (["--replay", "0"], "--replay"),
        (["--updates-per-step", NAN], "--updates-per-step"),
        (["--reward-scale", INF], "--reward-scale"),
        (["--torch-threads", "0"], "--torch-threads"),
    ],
)
def test_dmc_refuses_bad_arguments_in_one_line(dmc, capsys, argv, said):
    assert said in refused(dmc.parse_args, argv, capsys)


def test_dmc_refuses_a_run_folder_that_is_a_file(dmc, capsys, tmp_path):
    (tmp_path / "f").write_text("")
    assert "is a file" in refused(dmc.parse_args, ["--run-dir", str(tmp_path / "f")], capsys)


def test_dmc_still_takes_good_arguments(dmc):
    args = dmc.parse_args(["--config", '{"max_hands": 2}', "--cpu-minutes", "0.5", "--seed", "0", "--epsilon", "1"])
    assert args.config["max_hands"] == 2 and args.cpu_minutes == 0.5 and args.total_steps is None


@pytest.mark.parametrize(
    "argv, said",
    [
        (["--seed", "-1"], "--seed: must be a whole number from 0"),
        (["--cpu-minutes", INF], "--cpu-minutes: must be a finite number above 0"),
        (["--cpu-minutes", NAN], "--cpu-minutes"),
        (["--cpu-minutes", "-2"], "--cpu-minutes"),
    ],
)
def test_retrain_refuses_bad_arguments_in_one_line(retrain, capsys, argv, said):
    assert said in refused(retrain.main, ["--game", "spit_v0", *argv], capsys)


@pytest.mark.parametrize(
    "record, said",
    [
        ("[]", "not a finished run's record"),
        ("{not json", "not a readable run record"),
        (json.dumps({"snapshots": []}), "not a finished run's record"),
        (json.dumps({"snapshots": [{"file": "../elsewhere.json", "final": True}]}), "names no file beside it"),
        (json.dumps({"snapshots": [{"file": "policy_000001.json", "final": True}]}), "no such policy description"),
    ],
)
def test_retrain_refuses_a_malformed_run_to_install(retrain, capsys, tmp_path, record, said):
    (tmp_path / "run.json").write_text(record)
    line = refused(retrain.main, ["--game", "spit_v0", "--install-from", str(tmp_path)], capsys)
    assert "--install-from" in line and said in line


def test_retrain_refuses_a_run_folder_that_is_a_file(retrain, capsys, tmp_path):
    (tmp_path / "f").write_text("")
    assert "is a file" in refused(retrain.main, ["--game", "spit_v0", "--run-dir", str(tmp_path / "f")], capsys)


@pytest.mark.parametrize(
    "argv",
    [
        ["examples/retrain_scratch.py", "--game", "spit_v0", "--cpu-minutes", "inf"],
        ["examples/dmc.py", "--batch-size", "0"],
    ],
)
def test_as_programs_the_examples_exit_2_in_one_line(argv):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(pathlib_name(argv[0]) + ": error: argument")


def pathlib_name(path: str) -> str:
    return path.rsplit("/", 1)[-1]
