"""``make results``: the results page is regenerable. Every results file is
written by a command of the plan (``tools/results_plan.py``) and none is
transcribed; each table says how it was run; the page, the results and the
shipped policies name no folder of the machine that measured them."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tools"), str(ROOT / "benchmarks")]
import gen_results  # noqa: E402
import make_results  # noqa: E402
import report  # noqa: E402
import results_plan  # noqa: E402

#: The machine's own folders a command or a log would name: where checkouts, runs and temporary files live.
MACHINE = re.compile(r"(?<![\w.~-])/(?:work|tmp|root|home)/|" + re.escape(str(ROOT)))
TEXT = {".md", ".json", ".txt", ".csv", ".yml", ".py"}


def shipped_text_files() -> list[pathlib.Path]:
    roots = [ROOT / "docs", ROOT / "benchmarks", ROOT / "agents" / "checkpoints"]
    found = [p for r in roots for p in r.rglob("*") if p.is_file() and p.suffix in TEXT]
    return [*found, ROOT / "README.md", ROOT / "CHANGELOG.md"]


def test_no_doc_result_or_shipped_policy_names_a_folder_of_the_measuring_machine():
    named = {}
    for path in shipped_text_files():
        hits = sorted({m.group(0) for m in MACHINE.finditer(path.read_text(errors="replace"))})
        if hits:
            named[str(path.relative_to(ROOT))] = hits
    assert named == {}, "write commands as run from the repository's root (runs/..., not a machine's folder)"


def test_every_results_file_is_written_by_a_command_of_the_plan_and_none_is_transcribed():
    for path in sorted(gen_results.RESULTS.glob("*.json")):
        doc = json.loads(path.read_text())
        assert results_plan.written_by(path.name) is not None, f"{path.name}: no job of tools/results_plan.py writes it"
        assert "source" not in doc and "transcribed" not in path.read_text().lower(), path.name
        assert doc.get("mode", "full") in ("quick", "full"), path.name


def test_every_table_of_the_page_has_a_job_and_every_job_a_script():
    sections = {name for name, *_ in gen_results.SECTIONS}
    for name in sections:
        assert any(gen_results.files(name) or (o == f"{name}.json" or o.startswith(f"{name}-"))
                   for job in results_plan.PLAN for o in job.outputs), name  # fmt: skip
    names = [job.name for job in results_plan.PLAN]
    assert len(names) == len(set(names))
    for job in results_plan.PLAN:
        assert (ROOT / job.full[0]).is_file(), job.name
        assert job.quick is None or job.quick[0] == job.full[0], job.name
        assert all(a in names[: names.index(job.name)] for a in job.after), f"{job.name} runs before what it reads"
        assert not job.outputs or "--json" in job.full, job.name
        if job.quick and not job.same:
            assert job.budget, f"{job.name}: a quick run says what it measures less of"


def test_the_quick_mode_runs_no_long_job_and_refuses_to(capsys):
    quick = make_results.chosen(None, full=False)
    assert quick and all(not job.long for job in quick)
    assert {job.name for job in make_results.chosen(None, full=True)} == {job.name for job in results_plan.PLAN}
    with pytest.raises(SystemExit, match=r"run only with --full"):
        make_results.chosen("pimc_match-push_v0-rule-vs-rule", full=False)
    with pytest.raises(SystemExit, match=r"unknown job"):
        make_results.chosen("nonesuch", full=False)
    assert make_results.main(["--list"]) == 0
    listed = capsys.readouterr().out
    assert "python benchmarks/throughput.py --quick" in listed and "(long: --full only)" in listed


def test_a_job_records_its_mode_and_budget_and_its_command_from_the_root(tmp_path):
    """A real run of a job as make results runs it: its file says quick, the
    budget, and the command with the output path written from the root."""
    out = ROOT / "runs" / f"test-results-{os.getpid()}" / "evaluation.json"
    command = ("examples/evaluate.py", "--game", "high_card_v0", "--agents", "random", "rule", "--games", "4")
    job = results_plan.Job("evaluation", (*command, "--json", str(out)), (*command, "--json", str(out)), "4 games")
    try:
        [(_, _, status)] = make_results.run([job], full=False)
        assert status == 0
        doc = json.loads(out.read_text())
    finally:
        shutil.rmtree(out.parent, ignore_errors=True)
    assert doc["mode"] == "quick" and doc["budget"] == "4 games"
    assert doc["command"].endswith(f"--json runs/test-results-{os.getpid()}/evaluation.json")
    assert [(r["agent"], r["opponent"], r["games"]) for r in doc["results"]] == [
        ("random", "rule", 4),
        ("rule", "random", 4),
    ]


def test_a_command_names_paths_from_the_repository_root(monkeypatch, tmp_path):
    argv = ["--runs", f"{ROOT}/runs/a,{ROOT}/runs/b", "--agent", f"mlp:{ROOT}/runs/p.json", "--config", '{"x": 1}']
    monkeypatch.setattr(sys, "argv", ["x.py", *argv])
    monkeypatch.delenv(report.MODE_VARIABLE, raising=False)
    report.write(tmp_path / "r.json", "agents", [{"game": "g"}], script="benchmarks/x.py")
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["command"] == "python benchmarks/x.py --runs runs/a,runs/b --agent mlp:runs/p.json --config '{\"x\": 1}'"
    assert doc["mode"] == "full" and "budget" not in doc  # (a run by hand, at the benchmark's own settings)


def write(folder: pathlib.Path, name: str, results: list[dict], **fields) -> None:
    doc = {"benchmark": name.split("-")[0], "command": f"python benchmarks/{name}.py --json", "commit": "c" * 40}
    doc |= {"date": "2026-12-06T00:00:00Z", "cpus": 2, **fields, "results": results}
    (folder / f"{name}.json").write_text(json.dumps(doc))


def test_each_table_says_how_it_was_run_one_table_per_question_and_what_is_not_measured(monkeypatch, tmp_path):
    monkeypatch.setattr(gen_results, "RESULTS", tmp_path)
    write(tmp_path, "agents", [{"game": "g", "rows": 8}], mode="quick", budget="8 rows (full: 4,096)")
    edge = {"win_edge": "+0.1 [+0.0, +0.2]", "against": "rule"}
    write(tmp_path, "strongest-pepper_v0-scratch-s2", [{"game": "pepper_v0", "agent": "s2", **edge}])
    write(tmp_path, "strongest-pepper_v0-scratch", [{"game": "pepper_v0", "agent": "scratch", **edge}])
    page = gen_results.render()
    quick = "A quick run at commit `cccccccccc`, 2026-12-06, 2 CPUs: `python benchmarks/agents.py --json`. "
    assert quick + "Quick: 8 rows (full: 4,096); `make results FULL=1` runs the full one." in page
    strongest = page.split("## The built-in best")[1].split("\n## ")[0]
    assert strongest.count("| game | agent |") == 1  # the runs of one question: one table, a row a run
    rows = [line for line in strongest.splitlines() if line.startswith("| pepper_v0")]
    assert [r.split(" | ")[1] for r in rows] == ["scratch", "s2"]
    assert all(r.endswith("`ccccccc`, 2026-12-06, full |") for r in rows)
    missing = results_plan.job("strongest-pepper_v0-scratch-s1")
    assert f"`{results_plan.shell(missing.full)}` after `python examples/retrain_scratch.py" in strongest
    assert "`python benchmarks/learning/strongest.py --game pepper_v0 --agent best --deals 100" in strongest
    pimc = page.split("## PIMC matches")[1].split("\n## ")[0]
    assert "| game |" not in pimc and pimc.count("(a long run: `make results FULL=1`)") == 6


def test_every_picture_has_its_own_alt_text():
    page = (ROOT / "docs" / "results.md").read_text()
    pictures = re.findall(r"!\[([^\]]*)\]\(([^)]+)\)", page)
    assert pictures and all((ROOT / "docs" / path).is_file() for _, path in pictures)
    alts = [alt for alt, _ in pictures]
    assert len(set(alts)) == len(alts) and all(len(alt) > 40 for alt in alts)
    with pytest.raises(KeyError, match="no alt text"):
        gen_results.alt_text("images/a-new-chart.png")


def test_the_reference_table_states_its_budget():
    """Its budget (steps, or the CPU-minutes of an older run), or, until it is
    measured under the current protocol, its command as a run to be made."""
    page = (ROOT / "docs" / "results.md").read_text()
    section = page.split("## The algorithm reference table")[1].split("\n## ")[0]
    file = gen_results.RESULTS / "compare_reference-aggregates.json"
    if not file.exists():
        assert "python benchmarks/compare_reference.py --json" in section and "To be measured" in section
        return
    settings = json.loads(file.read_text())["settings"]
    (line,) = [line for line in section.splitlines() if line.startswith("Budget: ")]
    assert f"of training per run, {settings['seeds']} training" in line
    steps = settings.get("steps")
    if isinstance(steps, dict):  # (a budget per game: each game named beside its steps)
        for game, n in steps.items():
            assert f"{n:,} steps (" in line and game.removesuffix("_v0") in line.split(f"{n:,} steps (")[1]
    else:
        each = f"{steps:,} steps" if steps else f"{settings['cpu_minutes']:g} CPU-minutes"
        assert line.startswith(f"Budget: {each} of training per run")
    tables = sorted(gen_results.RESULTS.glob("compare_reference-games-*.json"))
    assert tables
    for table in tables:  # each game's table states its own budget
        game = table.stem.removeprefix("compare_reference-games-")
        own = json.loads(table.read_text())["settings"]
        assert own["steps"] == (steps[game] if isinstance(steps, dict) else steps)


def test_the_page_is_what_the_generator_makes_of_the_files():
    check = [sys.executable, "tools/gen_results.py", "--check"]
    done = subprocess.run(check, cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_benchmarks_random_player_never_picks_an_illegal_action():
    """Even when the draw of a row's one legal action is exactly 0 (float32
    draws are, about once in 16M: the throughput run of High Card hit it)."""
    import numpy as np

    before = dict(os.environ)
    try:
        import throughput  # (benchmarks/throughput.py; it sets the BLAS thread counts as it loads)
    finally:
        os.environ.clear()
        os.environ.update(before)

    class ZeroDraws:
        def random(self, shape, dtype):
            return np.zeros(shape, dtype)

    mask = np.zeros((4, 5), bool)
    mask[0, 3] = mask[1, [1, 2]] = mask[2, 4] = mask[3, 0] = True
    picked = throughput._random_legal(ZeroDraws(), mask)
    assert mask[np.arange(4), picked].all()
