"""``cardenvs compare`` through the real command (subprocesses, real files,
a real Ctrl-C): the JSON's shape, resuming without retraining, refusing a
changed setting, each bad input (exit 2, one line, nothing written), an
algorithm that fails, the docs' own algorithm, and the aggregates against
rliable's functions called directly.  Toy algorithms, Spit, one deal a
match: no test asserts strength or speed."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("rliable")

ROOT = pathlib.Path(__file__).resolve().parents[1]
GAME = "spit"  # the quickest game to play out
SMALL = ["--games", GAME, "--steps", "1000", "--deals", "1", "--reps", "200", "--curve-points", "2"]
TOYS = textwrap.dedent(
    '''
    """Toy algorithms: a fixed policy per seed, two snapshots with their training records, a log of each call."""
    import os, pathlib, signal
    import numpy as np
    from cardenvs.agents.mlp import build_mlp, save_policy
    import cardenvs.vector as V

    def _log(what, game, seed):
        with open(os.environ["TOY_LOG"], "a") as f:
            f.write(f"{what} {game} {seed}\\n")

    def _snapshots(game, run_dir):
        venv = V.make(game, num_envs=1, seed=0)
        obs, info = venv.reset()
        size, n = obs.shape[-1], info["action_mask"].shape[-1]
        for k, cpu in enumerate((0.3, 1.2)):
            training = {"cpu_seconds": cpu, "steps": 100 * (k + 1), "final": k == 1}
            save_policy(pathlib.Path(run_dir) / f"policy_{k:06d}", build_mlp(size, [4], n), game=game, config={},
                        obs_size=size, num_actions=n, hidden=[4], training=training)

    def first_legal(game, seed, budget, run_dir):
        _log("start", game, seed)
        if os.environ.get("TOY_INTERRUPT") and seed == 1:
            os.kill(os.getpid(), signal.SIGINT)  # a real Ctrl-C, in the middle of a run
        _snapshots(game, run_dir)
        _log("done", game, seed)
        pick = (lambda m: m.argmax(axis=1)) if seed == 0 else (lambda m: m.shape[1] - 1 - m[:, ::-1].argmax(axis=1))
        return lambda obs, mask: pick(np.asarray(mask))

    def last_legal(game, seed, budget, run_dir):
        _log("start", game, seed)
        _log("done", game, seed)
        return lambda obs, mask: np.asarray(mask).shape[1] - 1 - np.asarray(mask)[:, ::-1].argmax(axis=1)

    def spit_only(game, seed, budget, run_dir):
        _log("start", game, seed)
        return lambda obs, mask: np.asarray(mask).argmax(axis=1)

    spit_only.games = {"spit_v0"}  # the games it trains: the others are not applicable

    def games_misdeclared(game, seed, budget, run_dir):
        return None

    games_misdeclared.games = "spit_v0"  # a string, not a collection of names

    def boom(game, seed, budget, run_dir):
        raise RuntimeError("the toy failed on purpose")

    def not_a_trainer(game):
        return None
    '''
)


@pytest.fixture(scope="module")
def toys(tmp_path_factory) -> pathlib.Path:
    folder = tmp_path_factory.mktemp("toys")
    (folder / "toy_algos.py").write_text(TOYS)
    return folder


def cardenvs(args: list[str], cwd: pathlib.Path, toys: pathlib.Path, **env: str) -> subprocess.CompletedProcess:
    """``python -m cardenvs.app.cli ARGS`` with the toys importable."""
    path = os.pathsep.join([str(ROOT), str(toys), os.environ.get("PYTHONPATH", "")])
    environment = {**os.environ, "PYTHONPATH": path, "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg", **env}
    command = [sys.executable, "-m", "cardenvs.app.cli", "compare", *args]
    # (SIGINT as a terminal gives it, even when the suite runs in the background, where it is ignored and a
    # child would inherit that: the interrupt test sends a real one)
    restore = lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)  # noqa: E731
    return subprocess.run(
        command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=900, preexec_fn=restore
    )


def tree(folder: pathlib.Path) -> dict[str, bytes]:
    """Every file under ``folder`` and its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def finished(tmp_path_factory, toys):
    """A comparison interrupted by a real SIGINT during its second run, then
    resumed by the same command: (folder, its compare.json, the training log)."""
    work = tmp_path_factory.mktemp("compare")
    log = work / "train.log"
    args = ["--algorithms", "toy_algos:first_legal,toy_algos:last_legal", "--seeds", "2", *SMALL, "--out", "out"]
    stopped = cardenvs(args, work, toys, TOY_LOG=str(log), TOY_INTERRUPT="1")
    assert stopped.returncode == 130, stopped.stderr[-3000:]
    assert "interrupted" in stopped.stderr.splitlines()[-1]
    partial = json.loads((work / "out" / "compare.json").read_text())
    assert partial["complete"] is False and [r["seed"] for r in partial["runs"]] == [0]
    done = cardenvs(args, work, toys, TOY_LOG=str(log))
    assert done.returncode == 0, done.stderr[-3000:]
    return work / "out", json.loads((work / "out" / "compare.json").read_text()), log.read_text().split("\n"), done


def test_the_json_has_every_run_aggregate_and_pair(finished):
    out, doc, _, done = finished
    algorithms = ["toy_algos:first_legal", "toy_algos:last_legal"]
    assert doc["complete"] is True
    assert doc["settings"]["algorithms"] == algorithms and doc["settings"]["games"] == ["spit_v0"]
    assert doc["settings"]["seeds"] == 2 and doc["settings"]["steps"] == 1000 and doc["settings"]["cpu_minutes"] is None
    assert doc["settings"]["opponent"] == "rule" and doc["settings"]["anchor"] == "random"
    assert doc["settings"]["reference_rows"] == ["lowest", "highest"] and doc["settings"]["eval_seed"] == 777000
    keys = [(r["algorithm"], r["game"], r["seed"]) for r in doc["runs"]]
    assert keys == [(a, "spit_v0", s) for a in algorithms for s in (0, 1)]
    for run in doc["runs"]:
        assert {"algorithm", "game", "seed", "score"} <= set(run) and np.isfinite(run["score"])
        # the score: the margin over the rule agent on the scale of random (0) and rule (1)
        assert run["random_margin"] < 0 and run["score"] == pytest.approx(1 - run["margin"][0] / run["random_margin"])
        assert sum(run["ends"].values()) == 2  # one deal, both sides: how its games ended
    assert {(t["algorithm"], t["seed"]) for t in doc["timing"]} == {(a, s) for a in algorithms for s in (0, 1)}
    assert set(doc["reference"]["spit_v0"]) == {"random", "rule", "lowest", "highest"}
    assert doc["games"]["spit_v0"]["algorithms"][algorithms[0]]["iqm_is_mean"]  # 2 runs: the IQM is their mean
    assert set(doc["aggregates"]) == set(algorithms)
    for agg in doc["aggregates"].values():
        for key in ("iqm", "mean"):
            point, low, high = agg[key]
            assert low <= point <= high
    assert [(p["a"], p["b"]) for p in doc["improvement"]] == [tuple(algorithms)]
    point, low, high = doc["improvement"][0]["probability"]
    assert 0 <= low <= point <= high <= 1
    for name in ("profiles.png", "curves.png"):
        assert name in doc["plots"] and (out / name).read_bytes()[:4] == b"\x89PNG"
    assert "IQM" in done.stdout and "P(toy_algos:first_legal > toy_algos:last_legal)" in done.stdout
    assert "IQM over fewer than 4 runs is their mean" in done.stdout and "lowest (reference)" in done.stdout
    assert re.search(r"\[\d/4\] toy_algos:last_legal on spit_v0, seed 1: training for 1,000 steps", done.stderr)


def test_the_curves_come_from_the_snapshots(finished):
    _, doc, _, _ = finished
    first = [r for r in doc["runs"] if r["algorithm"] == "toy_algos:first_legal"]
    for run in first:
        assert [p["steps"] for p in run["curve"]] == [100, 200]
        assert all(np.isfinite(p["score"]) for p in run["curve"])
    assert all(r["curve"] == [] for r in doc["runs"] if r["algorithm"] == "toy_algos:last_legal")


def test_the_curves_show_the_trivial_policies_beside_the_learners(finished):
    from cardenvs.evaluation.compare_stats import curve_figure

    _, doc, _, _ = finished
    s = doc["settings"]
    fig = curve_figure(doc["runs"], s["algorithms"], s["games"], doc["reference"])
    lines = {line.get_label(): line for line in fig.axes[0].get_lines()}
    assert "toy_algos:first_legal (2 seeds)" in lines  # (last_legal saved no snapshot: no curve)
    for name in ("lowest", "highest"):
        assert lines[f"{name} (trivial)"].get_ydata()[0] == doc["reference"]["spit_v0"][name]["score"]
    bare = curve_figure(doc["runs"], s["algorithms"], s["games"])  # (no reference rows given: none drawn)
    assert not [line for line in bare.axes[0].get_lines() if "trivial" in line.get_label()]


def test_resuming_does_not_retrain_finished_runs(finished):
    _, _, log, _ = finished
    assert log.count("start spit_v0 0") == 2  # one per algorithm: the first run was finished before the Ctrl-C
    assert log.count("start spit_v0 1") == 3  # the interrupted run trained again, the other once
    assert log.count("done spit_v0 0") == 2 and log.count("done spit_v0 1") == 2


def test_the_aggregates_are_rliables(finished):
    """The JSON's numbers are rliable's functions on the runs' scores, called here directly."""
    from rliable import library, metrics

    _, doc, _, _ = finished
    algorithms = doc["settings"]["algorithms"]
    scores = {a: np.array([[r["score"]] for r in doc["runs"] if r["algorithm"] == a]) for a in algorithms}
    np.random.seed(0)  # (rliable 1.2.0 draws from numpy's global generator, whatever random_state says)
    points, intervals = library.get_interval_estimates(
        scores,
        lambda x: np.array([metrics.aggregate_iqm(x), metrics.aggregate_mean(x)]),
        reps=200,
        random_state=np.random.RandomState(0),
    )
    for a in algorithms:
        assert doc["aggregates"][a]["iqm"] == pytest.approx([points[a][0], *intervals[a][:, 0]])
        assert doc["aggregates"][a]["mean"] == pytest.approx([points[a][1], *intervals[a][:, 1]])
    pair = f"{algorithms[0]},{algorithms[1]}"
    np.random.seed(0)
    points, intervals = library.get_interval_estimates(
        {pair: [scores[algorithms[0]], scores[algorithms[1]]]},
        metrics.probability_of_improvement,
        reps=200,
        random_state=np.random.RandomState(0),
    )
    assert doc["improvement"][0]["probability"] == pytest.approx([points[pair], *intervals[pair][:, 0]])


@pytest.mark.parametrize(
    "change, named",
    [
        (["--seeds", "3"], "--seeds"),
        (["--steps", "2000"], "--steps"),
        (["--deals", "2"], "--deals"),
        (["--algorithms", "toy_algos:last_legal,toy_algos:first_legal"], "--algorithms"),
    ],
)
def test_a_changed_setting_is_refused(finished, toys, change, named):
    out = finished[0]
    before = tree(out)
    args = ["--algorithms", "toy_algos:first_legal,toy_algos:last_legal", "--seeds", "2", *SMALL, "--out", str(out)]
    for i in range(0, len(change), 2):
        args[args.index(change[i]) + 1] = change[i + 1]
    got = cardenvs(args, out.parent, toys, TOY_LOG=str(out.parent / "refused.log"))
    assert got.returncode == 2, got.stderr[-2000:]
    assert len(got.stderr.strip().splitlines()) == 1 and named in got.stderr
    assert tree(out) == before and not (out.parent / "refused.log").exists()


BAD = {
    "unknown algorithm": (["--algorithms", "nope"], "unknown algorithm 'nope'"),
    "module that does not import": (["--algorithms", "no_such_module_here:train"], "cannot import"),
    "not a trainer": (["--algorithms", "toy_algos:not_a_trainer"], "train(game, seed, budget, run_dir)"),
    "unknown game": (["--games", "chess"], "chess"),
    "a learner on a game it does not train": (["--algorithms", "ppo", "--games", "high_card"], "does not train"),
    "a games attribute that is not a list": (["--algorithms", "toy_algos:games_misdeclared"], "'games' attribute"),
    "no seeds": (["--seeds", "0"], "--seeds"),
    "a zero budget": (["--steps", "0"], "--steps"),
    "a negative budget": (["--steps", "-1"], "--steps"),
    "a zero CPU budget": (["--cpu-minutes", "0"], "--cpu-minutes"),
    "no CPU budget at all": (["--cpu-minutes", "nan"], "--cpu-minutes"),
    "an endless CPU budget": (["--cpu-minutes", "inf"], "--cpu-minutes"),
    "no deals": (["--deals", "0"], "--deals"),
    "an --out under a file": (["--out", "a_file/out"], "not a folder"),
    "an --out that cannot be written": (["--out", "/proc/cardenvs-compare/out"], "cannot"),
    "an --out holding other files": (["--out", "other"], "holds other files"),
    "a compare.json that is not one": (["--out", "garbled"], "compare.json"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_exits_2_in_one_line_and_writes_nothing(tmp_path, toys, name):
    change, message = BAD[name]
    (tmp_path / "a_file").write_text("a file\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine\n")
    (tmp_path / "garbled").mkdir()
    (tmp_path / "garbled" / "compare.json").write_text('{"format": "something else"}')
    args = ["--algorithms", "toy_algos:first_legal", "--seeds", "1", *SMALL, "--out", "out"]
    for i in range(0, len(change), 2):
        if change[i] == "--cpu-minutes":  # (the other budget, in the place of --steps)
            args[args.index("--steps")] = "--cpu-minutes"
        args[args.index(change[i]) + 1] = change[i + 1]
    before = tree(tmp_path)
    got = cardenvs(args, tmp_path, toys, TOY_LOG=str(tmp_path / "train.log"))
    assert got.returncode == 2, got.stderr[-2000:]
    lines = got.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cardenvs compare: ") and message in lines[0], lines
    assert tree(tmp_path) == before and not (tmp_path / "out").exists()
    assert not pathlib.Path("/proc/cardenvs-compare").exists()


def test_a_game_an_algorithm_does_not_train_is_not_applicable(tmp_path, toys):
    """An algorithm limited to some games (``fn.games``; the project's exit
    learner has no Spit): its other cells are listed, not run, and left out
    of its aggregates and of its pairs, whose P(a > b) is rliable's on the
    games both train."""
    from rliable import library, metrics

    algorithms = ["toy_algos:first_legal", "toy_algos:spit_only"]
    args = ["--algorithms", ",".join(algorithms), "--seeds", "2", *SMALL, "--out", "out"]
    args[args.index("--games") + 1] = "spit,pepper"
    log = tmp_path / "train.log"
    got = cardenvs(args, tmp_path, toys, TOY_LOG=str(log))
    assert got.returncode == 0, got.stderr[-3000:]
    assert "toy_algos:spit_only on pepper_v0: not applicable" in got.stderr
    doc = json.loads((tmp_path / "out" / "compare.json").read_text())
    assert doc["not_applicable"] == [
        {
            "algorithm": "toy_algos:spit_only",
            "game": "pepper_v0",
            "reason": "toy_algos:spit_only does not train pepper_v0",
        }
    ]
    assert {(r["algorithm"], r["game"]) for r in doc["runs"]} == {
        (algorithms[0], "spit_v0"), (algorithms[0], "pepper_v0"), (algorithms[1], "spit_v0")
    }  # fmt: skip
    assert log.read_text().count("start pepper_v0") == 2  # first_legal's two seeds only
    scores = {
        a: np.array([[r["score"] for r in doc["runs"] if r["algorithm"] == a and r["seed"] == s] for s in (0, 1)])
        for a in algorithms
    }
    assert scores[algorithms[0]].shape == (2, 2) and scores[algorithms[1]].shape == (2, 1)
    np.random.seed(0)  # (rliable's global draw)
    points, intervals = library.get_interval_estimates(
        scores, lambda x: np.array([metrics.aggregate_iqm(x), metrics.aggregate_mean(x)]), reps=200,
        random_state=np.random.RandomState(0),
    )  # fmt: skip
    for a in algorithms:
        assert doc["aggregates"][a]["iqm"] == pytest.approx([points[a][0], *intervals[a][:, 0]])
    on_spit = [scores[algorithms[0]][:, :1], scores[algorithms[1]]]  # (the runs list spit first: --games order)
    np.random.seed(0)
    points, intervals = library.get_interval_estimates(
        {"pair": on_spit}, metrics.probability_of_improvement, reps=200, random_state=np.random.RandomState(0)
    )
    (pair,) = doc["improvement"]
    assert pair["games"] == ["spit_v0"]
    assert pair["probability"] == pytest.approx([points["pair"], *intervals["pair"][:, 0]])


def test_the_exit_learner_trains_the_games_pimc_or_the_lookahead_searches():
    from cardenvs.evaluation.comparison import algorithm

    _, games, code = algorithm("exit")
    assert code.startswith("sha256:")  # the learner's file: a changed learner is never resumed into old runs
    assert games == {"pepper_v0", "cancellation_hearts_v0", "push_v0", "spit_v0"}


def test_the_population_learner_is_ppo_against_past_snapshots_the_rule_agent_and_random_play():
    from cardenvs.evaluation.comparison import LEARNERS, algorithm, load_example

    _, games, code = algorithm("ppo-pop")
    assert games == {"pepper_v0", "cancellation_hearts_v0", "push_v0", "spit_v0"}
    assert code == algorithm("ppo")[2]  # (the same script: only its options differ)
    script, options = LEARNERS["ppo-pop"]
    args = load_example(script).parse_args(["--game", "cancellation_hearts_v0", *options])
    assert args.opponent_mix == {"pool": 0.3, "rule": 0.4, "random": 0.1} and args.critic == "obs"
    assert load_example(script).parse_args(["--game", "cancellation_hearts_v0", *LEARNERS["ppo"][1]]).opponent_mix == {}


def test_an_algorithm_that_fails_stops_with_one_line(tmp_path, toys):
    got = cardenvs(["--algorithms", "toy_algos:boom", "--seeds", "1", *SMALL, "--out", "out"], tmp_path, toys)
    assert got.returncode == 1, got.stderr[-2000:]
    assert "the toy failed on purpose" in got.stderr.strip().splitlines()[-1]
    doc = json.loads((tmp_path / "out" / "compare.json").read_text())
    assert doc["complete"] is False and doc["runs"] == []


def test_the_learners_need_the_checkout(tmp_path, toys):
    """The package without the repository's examples/ beside it: the learners are refused, saying why."""
    shutil.copytree(ROOT / "cardenvs", tmp_path / "site" / "cardenvs", ignore=shutil.ignore_patterns("__pycache__"))
    environment = {**os.environ, "PYTHONPATH": str(tmp_path / "site"), "OMP_NUM_THREADS": "1"}
    command = [sys.executable, "-m", "cardenvs.app.cli", "compare", "--algorithms", "ppo", "--seeds", "1", *SMALL]
    got = subprocess.run([*command, "--out", "out"], cwd=tmp_path, env=environment, capture_output=True, text=True)
    assert got.returncode == 2, got.stderr[-2000:]
    lines = got.stderr.strip().splitlines()
    assert len(lines) == 1 and "examples/selfplay_ppo.py" in lines[0] and "checkout" in lines[0], lines
    assert not (tmp_path / "out").exists()


def doc_algorithm() -> str:
    """The algorithm of docs/benchmark.md, as it is on the page."""
    page = (ROOT / "docs" / "benchmark.md").read_text()
    section = page[page.index("## Your own algorithm") :]
    return re.search(r"^```python\n(.*?)^```$", section, re.M | re.S).group(1)


def test_the_docs_algorithm_runs_as_written(tmp_path):
    (tmp_path / "my_reinforce.py").write_text(doc_algorithm())
    args = ["--algorithms", "my_reinforce:train", "--seeds", "1", *SMALL, "--out", "out"]
    got = cardenvs(args, tmp_path, tmp_path)
    assert got.returncode == 0, got.stderr[-3000:]
    (run,) = json.loads((tmp_path / "out" / "compare.json").read_text())["runs"]
    assert run["algorithm"] == "my_reinforce:train" and np.isfinite(run["score"])
    assert len(run["curve"]) == 2 and run["curve"][-1]["steps"] > 0


def test_the_docs_and_the_help_name_every_learner():
    from cardenvs.app.compare import __doc__ as help_text
    from cardenvs.evaluation.comparison import LEARNERS

    page = (ROOT / "docs" / "benchmark.md").read_text()
    listed = page[page.index("Algorithms:") : page.index("## ", page.index("Algorithms:"))]
    for name in LEARNERS:
        assert f"`{name}`" in listed, name
        assert re.search(rf"\b{re.escape(name)}[,) ]", " ".join(help_text.split())), name


def test_the_searched_exit_learner_trains_the_games_with_a_from_scratch_search(tmp_path):
    """``exit-search``: expert iteration counted in engine steps, its final
    network and every snapshot played as ``make_agent(game, "scratch")``
    plays (the game's search over the network); Pepper and Spit name one."""
    from cardenvs.agents.lookahead import LookaheadAgent
    from cardenvs.agents.mlp import MLPAgent
    from cardenvs.evaluation.compare_files import Budget
    from cardenvs.evaluation.comparison import LEARNERS, algorithm, snapshots
    from cardenvs.registry import GAMES

    train, games, code = algorithm("exit-search")
    assert games == {g for g, spec in GAMES.items() if spec.scratch_search} == {"pepper_v0", "spit_v0"}
    assert code == algorithm("exit")[2] and "engine-steps" in LEARNERS["exit-search"][1]
    agent = train("spit_v0", 0, Budget(steps=300), str(tmp_path))
    assert isinstance(agent, LookaheadAgent) and agent.name == "scratch"
    found = snapshots(tmp_path)
    assert 300 <= found[-1][1] < 300 + 64 and found[-1][2]  # (engine steps x games: a step of 64 games counts 64)
    policy = json.loads(found[-1][0].read_text())["training"]
    assert policy["count"] == "engine-steps" and policy["algorithm"] == "expert_iteration"
    assert type(train.snapshot_agent(found[0][0], "spit_v0")) is LookaheadAgent
    assert type(algorithm("exit")[0].snapshot_agent(found[0][0], "spit_v0")) is MLPAgent  # (exit: the network alone)


def test_a_curve_plays_each_snapshot_as_the_algorithm_plays_it(tmp_path):
    from cardenvs.agents.specs import agent_factory
    from cardenvs.evaluation.compare_score import Scorer

    asked = []

    def load(path, game):
        asked.append((path.name, game))
        return agent_factory(game, "rule")(0)

    points = [(tmp_path / "policy_1.json", 10), (tmp_path / "policy_2.json", 20)]
    curve = Scorer("pepper_v0", 4, 4).curve(points, lambda line: None, load)
    assert asked == [("policy_1.json", "pepper_v0"), ("policy_2.json", "pepper_v0")]
    assert [p["steps"] for p in curve] == [10, 20] and all(p["score"] == pytest.approx(1.0) for p in curve)
