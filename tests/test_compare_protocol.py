"""The benchmark measures play (docs/benchmark.md): a score that resolves
play between random and the rule agent, a staller that scores no more than
random, runs that replay, a bootstrap of its own, CPU counted for every
process, code identities, and the compare findings of the fifth attack
round (B3, B4, the installed script, imports before checks, snapshots that
cannot be loaded).  No test asserts a timing."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("rliable")

from cardenvs.agents.specs import agent_factory  # noqa: E402
from cardenvs.evaluation.compare_score import Scorer  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
QUICK = ["--games", "spit", "--seeds", "1", "--deals", "2", "--reps", "100", "--curve-points", "0"]


def cli(args: list[str], cwd: pathlib.Path, path: list[pathlib.Path] = (), script: bool = False):
    """``cardenvs compare ARGS`` (``script``: the installed console script, not ``python -m``)."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *map(str, path), env.get("PYTHONPATH", "")])
    head = (
        [str(pathlib.Path(sys.executable).parent / "cardenvs")]
        if script
        else [sys.executable, "-m", "cardenvs.app.cli"]
    )
    return subprocess.run([*head, "compare", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def scores(game: str, specs: list[str], deals: int) -> dict[str, float]:
    scorer = Scorer(game, deals, 64)
    return {spec: scorer.score(agent_factory(game, spec)(1), spec)["score"] for spec in specs}


NOISY = ["rule:noise=0.25", "rule:noise=0.5", "rule:noise=0.75"]


def test_the_score_resolves_play_between_random_and_the_rule_agent():
    """Pepper: neither the lowest-legal agent nor the rule agent with half its
    moves random wins a game against the rule agent, yet they lose 20 and 76
    points a game to it: their scores differ clearly, in that order; the
    noisy rule agents score in the order of their noise."""
    got = scores("pepper_v0", ["lowest", *NOISY], 30)
    assert got["lowest"] >= got["rule:noise=0.5"] + 0.05
    assert got["rule:noise=0.25"] > got["rule:noise=0.5"] > got["rule:noise=0.75"]
    assert all(0 < got[s] < 1 for s in NOISY)


def test_the_noisy_rule_agents_are_in_order_in_push():
    got = scores("push_v0", NOISY, 40)
    assert got["rule:noise=0.25"] > got["rule:noise=0.5"] > got["rule:noise=0.75"]


def test_stalling_scores_no_more_than_random_in_spit():
    """``lowest`` in Spit waits whenever it may: under the stall rule it loses
    every game, none truncated, and scores at most 0.1 (random: 0)."""
    scorer = Scorer("spit_v0", 40, 64)
    staller = scorer.score(agent_factory("spit_v0", "lowest")(0), "staller")
    assert staller["score"] <= 0.1
    assert staller["ends"]["won"] == 0 and staller["ends"]["truncated"] == 0 and staller["ends"]["lost"] == 80


def test_the_same_command_twice_gives_the_same_runs_and_aggregates(tmp_path):
    """The issue's own command, run twice: identical runs and aggregates
    (the budget in steps; the CPU it took is kept apart, in timing)."""
    args = ["--algorithms", "ppo", "--games", "pepper", "--seeds", "1", "--steps", "20000", "--deals", "20"]
    docs = []
    for out in ("first", "second"):
        got = cli([*args, "--out", out], tmp_path)
        assert got.returncode == 0, got.stderr[-3000:]
        docs.append(json.loads((tmp_path / out / "compare.json").read_text()))
    assert docs[0]["runs"] == docs[1]["runs"] and docs[0]["aggregates"] == docs[1]["aggregates"]
    assert docs[0]["games"] == docs[1]["games"] and docs[0]["reference"] == docs[1]["reference"]
    (run,) = docs[0]["runs"]
    assert run["steps_used"] <= 20000 and len(run["curve"]) >= 2 and "cpu_minutes" not in run
    assert docs[0]["timing"][0]["cpu_minutes"] > 0


def test_the_bootstrap_replays_whatever_the_global_generator_holds():
    """rliable draws from numpy's global generator: the intervals are the
    same after any global draws, and the caller's global state is untouched."""
    from cardenvs.evaluation.compare_stats import aggregates, improvement

    rng = np.random.default_rng(5)
    matrices = {"a": rng.normal(size=(5, 3)), "b": rng.normal(size=(5, 3))}
    np.random.seed(123)
    first = aggregates(matrices, 300), improvement(matrices, 300)
    after = np.random.random()
    np.random.seed(123)
    np.random.random(7)  # (someone drew meanwhile)
    assert (aggregates(matrices, 300), improvement(matrices, 300)) == first
    np.random.seed(123)
    aggregates(matrices, 300)
    assert np.random.random() == after  # the global generator is as it was


BUSY_CHILD = textwrap.dedent(
    """
    import subprocess, sys
    from cardenvs.core.agent import LowestLegalAgent
    CHILD = "import sys, time\\nwhile time.process_time() < 1.0: pass\\nprint(flush=True)\\nsys.stdin.read()"

    def train(game, seed, budget, run_dir):
        # a helper process of the run that burns a CPU-second and stays alive (as the compile builder does)
        # until the run's process ends (its stdin closes then); it holds none of the run's output open
        pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": subprocess.DEVNULL}
        child = subprocess.Popen([sys.executable, "-c", CHILD], **pipes)
        child.stdout.readline()  # its CPU-second is spent
        train.children.append(child)
        return LowestLegalAgent()

    train.children = []
    """
)


def test_cpu_counts_every_process_of_a_run_and_flags_a_run_past_its_budget(tmp_path):
    (tmp_path / "busy.py").write_text(BUSY_CHILD)
    args = ["--algorithms", "busy:train", *QUICK, "--cpu-minutes", "0.001", "--out", "out"]
    got = cli(args, tmp_path, [tmp_path])
    assert got.returncode == 0, got.stderr[-3000:]
    (timing,) = json.loads((tmp_path / "out" / "compare.json").read_text())["timing"]
    assert timing["cpu_minutes"] * 60 >= 1.0  # the live child's CPU-second is the run's
    assert timing["over_budget"] is True and "past its CPU budget" in got.stdout


def test_a_changed_algorithm_is_not_resumed_into_its_old_runs(tmp_path):
    algo = tmp_path / "mine.py"
    algo.write_text(
        "from cardenvs.core.agent import LowestLegalAgent\ndef train(g, s, b, d):\n    return LowestLegalAgent()\n"
    )
    args = ["--algorithms", "mine:train", *QUICK, "--steps", "10", "--out", "out"]
    assert cli(args, tmp_path, [tmp_path]).returncode == 0
    doc = json.loads((tmp_path / "out" / "compare.json").read_text())
    assert doc["code"]["mine:train"].startswith("sha256:")
    algo.write_text(algo.read_text() + "# changed\n")
    got = cli(args, tmp_path, [tmp_path])
    assert got.returncode == 2 and "the code of mine:train changed" in got.stderr
    assert json.loads((tmp_path / "out" / "compare.json").read_text()) == doc


def test_a_users_module_is_not_shadowed_by_the_learners_examples(tmp_path, monkeypatch):
    """B3: after ``ppo`` is loaded, the user's own dmc.py is the one imported."""
    from cardenvs.evaluation.comparison import algorithm

    (tmp_path / "dmc.py").write_text("def train(game, seed, budget, run_dir):\n    return None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = list(sys.path)
    algorithm("ppo")
    assert sys.path == before
    fn, _, _ = algorithm("dmc:train")
    assert pathlib.Path(sys.modules["dmc"].__file__).parent == tmp_path
    sys.modules.pop("dmc", None)


FORGED = [
    ("a curve that is a string", {"curve": "xx"}, "a curve that is not a list"),
    ("a score of 1e308", {"score": 1e308}, "not a finite number within"),
    ("a curve point without steps", {"curve": [{"score": 0.5}]}, "a curve point"),
    ("ends that are not counted", {"ends": "many"}, "how its games ended"),
]


@pytest.mark.parametrize("what, change, says", FORGED, ids=[f[0] for f in FORGED])
def test_a_forged_results_file_is_refused_in_one_line(tmp_path, what, change, says):
    """B4: every field of a resumed compare.json is checked."""
    (tmp_path / "mine.py").write_text(
        "from cardenvs.core.agent import LowestLegalAgent\ndef train(g, s, b, d):\n    return LowestLegalAgent()\n"
    )
    args = ["--algorithms", "mine:train", *QUICK, "--steps", "10", "--out", "out"]
    assert cli(args, tmp_path, [tmp_path]).returncode == 0
    file = tmp_path / "out" / "compare.json"
    doc = json.loads(file.read_text())
    doc["runs"][0].update(change)
    file.write_text(json.dumps(doc))
    got = cli(args, tmp_path, [tmp_path])
    lines = got.stderr.strip().splitlines()
    assert got.returncode == 2 and len(lines) == 1 and says in lines[0] and "Traceback" not in got.stderr
    assert json.loads(file.read_text()) == doc  # nothing written


def test_the_installed_script_runs_an_algorithm_from_its_folder(tmp_path):
    """The docs: "run cardenvs compare --algorithms my_reinforce:train from its folder"."""
    if not (pathlib.Path(sys.executable).parent / "cardenvs").exists():
        pytest.skip("no installed cardenvs script beside this Python")
    (tmp_path / "my_algo.py").write_text(
        "from cardenvs.core.agent import LowestLegalAgent\ndef train(g, s, b, d):\n    return LowestLegalAgent()\n"
    )
    got = cli(["--algorithms", "my_algo:train", *QUICK, "--steps", "10", "--out", "out"], tmp_path, script=True)
    assert got.returncode == 0, got.stderr[-2000:]


MARKER = "import pathlib\npathlib.Path('imported.marker').write_text('ran')\ndef train(g, s, b, d):\n    return None\n"


def test_nothing_is_imported_before_the_checks(tmp_path):
    """An algorithm's module runs no code before --out and a resume's settings are checked."""
    (tmp_path / "loud.py").write_text(MARKER)
    (tmp_path / "a_file").write_text("")
    got = cli(["--algorithms", "loud:train", *QUICK, "--out", "a_file/out"], tmp_path, [tmp_path])
    assert got.returncode == 2 and not (tmp_path / "imported.marker").exists()
    (tmp_path / "old").mkdir()
    doc = {"format": "cardenvs-compare", "version": 2, "settings": {"algorithms": ["other:train"]}, "runs": []}
    (tmp_path / "old" / "compare.json").write_text(json.dumps(doc))
    got = cli(["--algorithms", "loud:train", *QUICK, "--out", "old"], tmp_path, [tmp_path])
    assert got.returncode == 2 and "--algorithms" in got.stderr and not (tmp_path / "imported.marker").exists()


BROKEN_SNAPSHOT = textwrap.dedent(
    """
    import json, pathlib
    from cardenvs.core.agent import LowestLegalAgent

    def train(game, seed, budget, run_dir):
        record = {"format": "cardenvs-mlp-policy", "version": 1, "training": {"steps": 5}}
        (pathlib.Path(run_dir) / "policy_000005.json").write_text(json.dumps(record))  # no weights, no sizes
        return LowestLegalAgent()
    """
)


def test_a_snapshot_that_cannot_be_loaded_is_said_not_silently_dropped(tmp_path):
    (tmp_path / "broken.py").write_text(BROKEN_SNAPSHOT)
    args = ["--algorithms", "broken:train", *QUICK, "--curve-points", "2", "--steps", "10", "--out", "out"]
    got = cli(args, tmp_path, [tmp_path])
    assert got.returncode == 0, got.stderr[-2000:]
    assert "snapshot policy_000005.json skipped, it cannot be loaded" in got.stderr
    (run,) = json.loads((tmp_path / "out" / "compare.json").read_text())["runs"]
    assert run["curve"] == []
