"""benchmarks/compare_reference.py at a toy scale: two toy algorithms (one
trains Spit only) on Spit and Pepper, one seed, one deal.  Its merged table
is what one ``compare`` of both algorithms gives (rliable's numbers, the
not-applicable cell), its records flatten that, and ``--json`` writes them
and the pictures where the results page reads them."""

from __future__ import annotations

import argparse
import importlib.util
import json
import pathlib
import sys
import textwrap

import pytest

pytest.importorskip("torch")
pytest.importorskip("rliable")

ROOT = pathlib.Path(__file__).resolve().parents[1]
TOYS = textwrap.dedent(
    """
    import numpy as np

    def first(game, seed, budget, run_dir):
        return lambda obs, mask: np.asarray(mask).argmax(axis=1)

    def last(game, seed, budget, run_dir):
        return lambda obs, mask: np.asarray(mask).shape[1] - 1 - np.asarray(mask)[:, ::-1].argmax(axis=1)

    last.games = {"spit_v0"}
    """
)
SMALL = ["--seeds", "1", "--deals", "1", "--curve-points", "0", "--steps", "10"]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The script as a module, its algorithms and games the toys'."""
    folder = tmp_path_factory.mktemp("toys")
    (folder / "reference_toys.py").write_text(TOYS)
    sys.path.insert(0, str(folder))
    spec = importlib.util.spec_from_file_location("compare_reference", ROOT / "benchmarks" / "compare_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.ALGORITHMS = ("reference_toys:first", "reference_toys:last")
    module.GAMES = ("spit_v0", "pepper_v0")
    yield module
    sys.path.remove(str(folder))


def test_the_merged_table_is_one_comparison_of_every_algorithm(reference, tmp_path, monkeypatch):
    from cardenvs.evaluation.comparison import compare

    monkeypatch.setattr(reference.report, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(reference, "IMAGES", tmp_path / "images")
    (tmp_path / "images").mkdir()
    assert reference.main([*SMALL, "--only", "reference_toys:last", "--out", str(tmp_path / "ref")]) is None
    assert (tmp_path / "ref" / "reference_toys_last" / "steps-10" / "compare.json").exists()
    assert not (tmp_path / "ref" / "compare.json").exists()  # (--only stops there)
    doc = reference.main([*SMALL, "--json", "--out", str(tmp_path / "ref")])
    whole = compare(list(reference.ALGORITHMS), reference.GAMES, 1, tmp_path / "whole", 10, None, 1, curve_points=0)
    for key in ("aggregates", "improvement", "not_applicable", "runs", "reference"):
        assert doc[key] == whole[key], key
    assert [(r["algorithm"], r["game"], r["score"]) for r in doc["runs"]] == [
        (r["algorithm"], r["game"], r["score"]) for r in whole["runs"]
    ]
    assert json.loads((tmp_path / "ref" / "compare.json").read_text())["aggregates"] == doc["aggregates"]

    games = [f"games-{g}" for g in reference.GAMES]
    parts = {p: json.loads((tmp_path / "results" / f"compare_reference-{p}.json").read_text()) for p in
             ("aggregates", "pairs", *games)}  # fmt: skip
    rows = parts["aggregates"]["results"]
    assert [r["algorithm"] for r in rows] == list(reference.ALGORITHMS)
    point, low, high = doc["aggregates"]["reference_toys:first"]["iqm"]
    assert rows[0]["iqm"] == f"{point:+.2f} [{low:+.2f}, {high:+.2f}]"
    minutes = [t["cpu_minutes"] for t in doc["timing"] if t["algorithm"] == "reference_toys:first"]
    assert rows[0]["cpu_hours"] == pytest.approx(sum(minutes) / 60) and len(minutes) == 2  # (spit and pepper)
    command = parts["aggregates"]["command"]  # (the runs' folder is the machine's, not the result's)
    assert "--json" in command and "--out" not in command and str(tmp_path) not in command
    (pair,) = parts["pairs"]["results"]
    assert pair["pair"] == "P(reference_toys:first > reference_toys:last)" and pair["games"] == "spit"
    cells = {(r["algorithm"], r["game"]): r for g in games for r in parts[g]["results"]}
    assert {r["game"] for r in parts["games-pepper_v0"]["results"]} == {"pepper_v0"}  # (a table per game)
    assert cells[("reference_toys:last", "pepper_v0")] == {
        "algorithm": "reference_toys:last", "game": "pepper_v0", "seeds": 0, "median": "not applicable"
    }  # fmt: skip
    (run,) = [r for r in doc["runs"] if r["algorithm"] == "reference_toys:first" and r["game"] == "spit_v0"]
    cell = cells[("reference_toys:first", "spit_v0")]
    assert cell["median"] == f"{run['score']:+.2f}" and cell["seeds"] == 1
    assert cell["won_lost"].startswith(f"{run['ends']['won']}-{run['ends']['lost']}")
    bar = max(doc["reference"]["spit_v0"][name]["score"] for name in ("lowest", "highest"))
    assert cell["above_trivial"] == ("yes" if run["score"] > bar else "no")
    low = run["score_interval"][0]
    assert cell["seeds_clear"] == f"{int(low is not None and low > bar)} of 1"
    high = run["score_interval"][1]
    assert cell["seeds_rule"] == f"{int(high is not None and high >= 1)} of 1"
    assert parts["games-spit_v0"]["settings"]["steps"] == 10 and parts["games-spit_v0"]["settings"]["deals"] == 1
    lowest = doc["reference"]["spit_v0"]["lowest"]
    assert cells[("lowest (reference)", "spit_v0")]["median"] == f"{lowest['score']:+.2f}"
    assert cells[("lowest (reference)", "spit_v0")]["won_lost"].startswith(f"{lowest['ends']['won']}-")
    assert cells[("rule (reference)", "spit_v0")] == {
        "algorithm": "rule (reference)", "game": "spit_v0", "seeds": 0, "median": "+1.00"
    }  # fmt: skip
    images = parts["aggregates"]["images"]
    assert images == [f"images/compare_reference-{n}.png" for n in ("profiles", "curves")]
    for image in images:
        assert (tmp_path / image).read_bytes()[:4] == b"\x89PNG"


def test_a_game_of_its_own_budget_is_merged_into_the_table(reference, tmp_path, monkeypatch, capsys):
    """``--game-steps pepper_v0=20``: Pepper's runs train 20 steps in their
    own folder, Spit's the table's 10; the merged table states each game's
    budget, and each game's table its own."""
    monkeypatch.setattr(reference.report, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(reference, "IMAGES", tmp_path / "images")
    (tmp_path / "images").mkdir()
    argv = [*SMALL, "--game-steps", "pepper_v0=20", "--json", "--out", str(tmp_path / "ref")]
    doc = reference.main(argv)
    folder = tmp_path / "ref" / "reference_toys_first"
    budgets = {d.name: json.loads((d / "compare.json").read_text())["settings"] for d in folder.iterdir()}
    assert {name: (s["steps"], s["games"]) for name, s in budgets.items()} == {
        "steps-10": (10, ["spit_v0"]), "steps-20": (20, ["pepper_v0"])
    }  # fmt: skip
    assert doc["settings"]["steps"] == {"spit_v0": 10, "pepper_v0": 20}
    assert doc["settings"]["games"] == list(reference.GAMES)
    assert [(r["algorithm"], r["game"]) for r in doc["runs"]] == [
        ("reference_toys:first", "spit_v0"), ("reference_toys:first", "pepper_v0"), ("reference_toys:last", "spit_v0")
    ]  # fmt: skip
    assert set(doc["reference"]) == {"spit_v0", "pepper_v0"}
    # (the toy that trains Spit only is not run on Pepper's budget: its cell is not applicable, as compare says)
    assert [(c["algorithm"], c["game"]) for c in doc["not_applicable"]] == [("reference_toys:last", "pepper_v0")]
    assert not (tmp_path / "ref" / "reference_toys_last" / "steps-20").exists()
    read = lambda part: json.loads((tmp_path / "results" / f"compare_reference-{part}.json").read_text())  # noqa: E731
    assert read("games-pepper_v0")["settings"]["steps"] == 20 and read("games-spit_v0")["settings"]["steps"] == 10
    assert read("aggregates")["settings"]["steps"] == {"spit_v0": 10, "pepper_v0": 20}
    wrong = (["--game-steps", "hearts=5"], ["--game-steps", "pepper_v0=0"], ["--game-steps", "pepper_v0"])
    cpu = ["--seeds", "1", "--deals", "1", "--cpu-minutes", "0.1", "--game-steps", "pepper_v0=20"]
    for bad in (*wrong, cpu):
        with pytest.raises(SystemExit) as e:
            reference.main([*SMALL, *bad, "--out", str(tmp_path / "bad")])
        assert e.value.code == 2
    assert not (tmp_path / "bad").exists()


def test_the_tables_runs_are_saved_and_restored_without_training_them_again(reference, tmp_path, monkeypatch, capsys):
    """``--json`` writes the runs beside the records (results/raw/); ``--resume-from``
    restores them into a new ``--out`` and the same table comes back with no run
    trained; a run the file lacks is trained; ``--save-runs`` writes what ``--out``
    holds and stops."""
    monkeypatch.setattr(reference.report, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(reference, "IMAGES", tmp_path / "images")
    (tmp_path / "images").mkdir()
    doc = reference.main([*SMALL, "--json", "--out", str(tmp_path / "ref")])
    saved = tmp_path / "results" / "raw" / "compare_reference-runs.json"
    bundle = json.loads(saved.read_text())
    assert sorted(bundle["folders"]) == ["reference_toys_first/steps-10", "reference_toys_last/steps-10"]
    assert sum(len(f["runs"]) for f in bundle["folders"].values()) == len(doc["runs"]) == 3
    assert str(tmp_path) not in saved.read_text()  # (nothing of the machine's folders)
    record = tmp_path / "results" / "compare_reference-aggregates.json"
    assert "note" not in json.loads(record.read_text())  # (every run trained here)
    capsys.readouterr()

    again = reference.main([*SMALL, "--resume-from", str(saved), "--out", str(tmp_path / "again")])
    err = capsys.readouterr().err
    assert "training for" not in err and err.count(" restored into ") == 2
    for key in ("runs", "aggregates", "improvement", "not_applicable", "reference"):
        assert again[key] == doc[key], key

    assert reference.main([*SMALL, "--out", str(tmp_path / "ref"), "--save-runs", str(tmp_path / "s.json")]) is None
    assert json.loads((tmp_path / "s.json").read_text()) == bundle
    del bundle["folders"]["reference_toys_last/steps-10"]  # (a run the file lacks is trained, the rest restored)
    (tmp_path / "part.json").write_text(json.dumps(bundle))
    capsys.readouterr()
    part = reference.main(
        [*SMALL, "--resume-from", str(tmp_path / "part.json"), "--json", "--out", str(tmp_path / "part")]
    )
    err = capsys.readouterr().err
    assert err.count("training for") == 1 and "reference_toys:last on spit_v0" in err
    assert part["runs"] == doc["runs"]
    assert json.loads(record.read_text())["note"].startswith("2 of its 3 runs were restored from that file")
    reference.main([*SMALL, "--resume-from", str(saved), "--out", str(tmp_path / "part")])  # (a folder keeps its own)
    assert "restored" not in capsys.readouterr().err


def test_runs_made_otherwise_are_refused_before_anything_is_written(reference, tmp_path, monkeypatch):
    """Each folder of a runs file is checked as ``compare`` checks a folder it
    resumes, before any is written: other settings, another version of an
    algorithm's code, a malformed run or not such a file at all is a one-line
    error, and ``--out`` is left as it was."""
    monkeypatch.setattr(reference.report, "RESULTS", tmp_path / "results")
    reference.main([*SMALL, "--out", str(tmp_path / "ref"), "--only", "reference_toys:first"])
    args = argparse.Namespace(out=str(tmp_path / "ref"), steps=10, cpu_minutes=None, game_steps={})
    good = reference.saved_runs(["reference_toys:first"], args)
    folder = good["folders"]["reference_toys_first/steps-10"]
    changed_code = {**folder, "code": {"reference_toys:first": "sha256:" + "0" * 64}}
    bad_run = {**folder, "runs": [{**folder["runs"][0], "score": "high"}]}
    cases = {  # (the file's text, what its error says)
        "not json": ("{", "cannot read it as JSON"),
        "not a table's runs": (json.dumps({"format": "cardenvs-compare", "folders": {}}), "not the runs of"),
        "code changed": (
            json.dumps({**good, "folders": {"reference_toys_first/steps-10": changed_code}}),
            "the code of reference_toys:first changed",
        ),
        "malformed run": (json.dumps({**good, "folders": {"reference_toys_first/steps-10": bad_run}}), "score"),
    }
    for name, (text, says) in cases.items():
        (tmp_path / "bad.json").write_text(text)
        with pytest.raises(SystemExit) as e:
            reference.main([*SMALL, "--resume-from", str(tmp_path / "bad.json"), "--out", str(tmp_path / "new")])
        assert isinstance(e.value.code, str) and e.value.code.startswith("--resume-from"), name
        assert says in e.value.code and "\n" not in e.value.code, (name, e.value.code)
        assert not (tmp_path / "new").exists(), name
    (tmp_path / "good.json").write_text(json.dumps(good))
    other = ["--seeds", "1", "--deals", "2", "--curve-points", "0", "--steps", "10"]
    with pytest.raises(SystemExit) as e:
        reference.main([*other, "--resume-from", str(tmp_path / "good.json"), "--out", str(tmp_path / "new")])
    assert "--deals" in e.value.code and not (tmp_path / "new").exists()
    with pytest.raises(SystemExit) as e:
        reference.main([*SMALL, "--json", "--save-runs", str(tmp_path / "x.json"), "--out", str(tmp_path / "ref")])
    assert e.value.code == 2 and not (tmp_path / "x.json").exists()


def test_a_seed_reaches_the_rule_agent_when_its_interval_holds_one_or_lies_above(reference):
    """The per-game tables count the seeds reaching the rule agent (score 1): an
    interval holding 1 or above it counts; one below it, or none (one deal), does not."""
    runs = {(0.9, 1.1): True, (1.02, 1.3): True, (0.95, 1.0): True, (0.5, 0.99): False, (None, None): False}
    for interval, reaches in runs.items():
        assert reference.reaches({"score": 1.0, "score_interval": list(interval)}, 1.0) is reaches, interval
