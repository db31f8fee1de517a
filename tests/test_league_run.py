"""benchmarks/league/run.py: its tables and docs page from a given
league.json (no training, no games), the committed page being what it
writes, and its refusal of bad arguments."""

from __future__ import annotations

import importlib.util
import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "league" / "run.py"


@pytest.fixture(scope="module")
def run_mod():
    spec = importlib.util.spec_from_file_location("league_run", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def league_doc(game: str = "pepper_v0") -> dict:
    agents = [
        {"name": "random", "spec": "random", "rating": 0.0, "low": 0.0, "high": 0.0, "games": 192, "forfeits": 0},
        {"name": "rule", "spec": "rule", "rating": 412.4, "low": 350.2, "high": 470.9, "games": 192, "forfeits": 0},
        {
            "name": "selfplay",
            "spec": "mlp:x.json",
            "rating": 97.6,
            "low": 20.1,
            "high": 160.0,
            "games": 192,
            "forfeits": 0,
        },  # fmt: skip
        {"name": "pimc", "spec": "pimc", "rating": None, "low": None, "high": None, "games": 0, "forfeits": 0},
    ]
    return {"game": game, "config": {"num_players": 4}, "seed": 20261310, "deals": 48, "batch": 64,
            "anchor": "random", "complete": False, "pairs_done": 3, "pairs_total": 6, "agents": agents,
            "pairs": []}  # fmt: skip


def write_league(out: pathlib.Path, game: str = "pepper_v0") -> None:
    (out / game).mkdir(parents=True)
    (out / game / "league.json").write_text(json.dumps(league_doc(game)))
    run = {
        "commit": "0123456789abcdef",
        "date": "2026-01-01",
        "machine": "x86_64, 2 cores",
        "wall_seconds": 600.0,
        "settings": {
            "cpu_minutes": 4.0,
            "snapshots": 4,
            "deals": 48,
            "curve_deals": 32,
            "seed": 20261310,
            "pimc": "worlds=8,rollout=rule",
        },  # fmt: skip
        "games": {game: {"wall_seconds": {"total": 600.0}}},
    }
    (out / "run.json").write_text(json.dumps(run))


def test_league_table_sorts_and_formats(run_mod):
    table = run_mod.league_table(league_doc()).splitlines()
    assert table[0] == "| agent | rating | 95% interval | games |"
    names = [row.split("|")[1].strip() for row in table[2:]]
    assert names == ["rule", "selfplay", "random", "pimc"]  # best first, the unrated last
    assert table[2] == "| rule | +412 | [+350, +471] | 192 |"
    assert table[-1] == "| pimc | - | - | 0 |"


def test_tables_and_league_page_rewritten(run_mod, tmp_path):
    out = tmp_path / "league"
    write_league(out)
    page = tmp_path / "league.md"
    run_mod.write_tables(out, page)
    text = page.read_text()
    assert text.startswith("# League\n") and "do not edit by hand" in text
    assert "## Pepper (4 players) (partial: 3/6 pairs)" in text
    assert "| rule | +412 | [+350, +471] | 192 |" in text
    assert "4 CPU-minutes on this 2-core machine" in text and "`0123456789`" in text
    assert "seed 20261310" in text
    assert "Cancellation Hearts" not in text  # no league.json: no table
    # rewritten whole: a second run replaces the tables
    doc = league_doc()
    doc["agents"][1]["rating"] = 500.0
    (out / "pepper_v0" / "league.json").write_text(json.dumps(doc))
    run_mod.write_tables(out, page)
    again = page.read_text()
    assert again.count("## Pepper") == 1
    assert "| rule | +500 |" in again and "| rule | +412 |" not in again
    bench = (out / "README.md").read_text()
    assert "## Pepper (4 players)" in bench and "| rule | +500 |" in bench
    assert "--cpu-minutes 4 --snapshots 4 --deals 48 --curve-deals 32 --seed 20261310" in bench


def test_the_league_page_is_the_league_files(run_mod):
    """docs/league.md and benchmarks/league/README.md are what run.py writes from the committed league files."""
    run = run_mod.load_run(run_mod.OUT)
    fix = "run `python benchmarks/league/run.py --tables-only`"
    assert run_mod.league_page(run_mod.OUT, run) == run_mod.PAGE.read_text(), fix
    assert run_mod.benchmark_readme(run_mod.OUT, run) == (run_mod.OUT / "README.md").read_text(), fix
    assert run_mod.PAGE == ROOT / "docs" / "league.md" and "## Pepper (4 players)" in run_mod.PAGE.read_text()


def test_games_run_again_one_by_one_give_each_its_budget_and_commit(run_mod, tmp_path):
    out = tmp_path / "league"
    write_league(out, "pepper_v0")
    write_league(out, "spit_v0")
    run = json.loads((out / "run.json").read_text())
    old = {"cpu_minutes": 2.0, "snapshots": 3, "curve_deals": 16, "seed": 20261310, "pimc": "worlds=4"}
    run["games"] = {
        "pepper_v0": {"commit": "a" * 40, "settings": {**old, "cpu_minutes": 20.0, "snapshots": 5}},
        "spit_v0": {"settings": old},  # (an older run: no commit of its own)
    }
    (out / "run.json").write_text(json.dumps(run))
    page = tmp_path / "league.md"
    run_mod.write_tables(out, page)
    section = page.read_text()
    assert "for the CPU-minutes its game's line gives" in section
    assert "learners 20 CPU-minutes each (5 snapshots), at commit `aaaaaaaaaa`." in section
    assert "learners 2 CPU-minutes each (3 snapshots)." in section
    assert "4 CPU-minutes on this 2-core machine" not in section  # (no one budget claimed for every game)


def test_tables_only_cli_writes_from_league_json(tmp_path):
    out = tmp_path / "league"
    write_league(out, "spit_v0")
    page = tmp_path / "league.md"
    cmd = [sys.executable, str(SCRIPT), "--tables-only", "--out", str(out), "--page", str(page)]
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    text = page.read_text()
    assert "## Spit" in text and text.rstrip().endswith("| pimc | - | - | 0 |")


def test_curves_only_without_snapshots_or_league_is_refused_in_one_line(tmp_path):
    out = tmp_path / "league"
    write_league(out, "spit_v0")
    cmd = [sys.executable, str(SCRIPT), "--curves-only", "--games", "spit_v0", "--out", str(out)]
    proc = subprocess.run([*cmd, "--runs-dir", str(tmp_path / "runs")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "no snapshots of spit_v0" in proc.stderr and not (out / "spit_v0_curve.json").exists()


def test_pepper_curves_are_played_on_one_hand_and_their_readme_says_so(run_mod, tmp_path):
    config, deals = run_mod.curve_game("pepper_v0", run_mod.parse_args([]))
    assert config == {"num_players": 4, "max_hands": 1} and deals > 16
    assert run_mod.curve_game("spit_v0", run_mod.parse_args(["--curve-deals", "7"])) == ({}, 7)
    assert run_mod.curve_game("cancellation_hearts_v0", run_mod.parse_args([]))[1] == 8  # (its league's deals)
    out = tmp_path / "league"
    write_league(out)
    run_mod.write_tables(out, tmp_path / "league.md")
    note = f"(`CURVE_GAMES`): Pepper (4 players), one-hand games, {deals} deals per pair."
    assert note in (out / "README.md").read_text()


@pytest.mark.parametrize(
    "argv",
    [
        ["--deals", "0"],
        ["--cpu-minutes", "0"],
        ["--cpu-minutes", "-1"],
        ["--snapshots", "0"],
        ["--curve-deals", "0"],
        ["--games", "uno_v0"],
        ["--games", "spit_v0", "spit_v0"],
        ["--deals", "many"],
    ],
)
def test_bad_arguments_refused(argv, tmp_path):
    out = tmp_path / "league"
    cmd = [sys.executable, str(SCRIPT), *argv, "--out", str(out), "--runs-dir", str(tmp_path / "runs")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "error:" in proc.stderr
    assert not out.exists() and not (tmp_path / "runs").exists()  # nothing written


def curve_records(seed: int = 0) -> tuple[list, dict]:
    """Synthetic duplicate records (8 deals, 2 seatings): the pool's pairs (random swept by rule and ppo) and two
    snapshots of one learner against the pool."""
    import numpy as np

    from cardenvs.evaluation.duplicate import DuplicateRecord

    rng = np.random.default_rng(seed)

    def record(a: str, b: str, p_a: float) -> DuplicateRecord:
        won = rng.random((8, 2)) < p_a  # a's win in each deal and seating; a sits at seat s in seating s
        a_seat = np.arange(2)[None, :, None] == np.arange(2)[None, None, :]
        scores = np.where(a_seat == won[..., None], 1.0, -1.0)
        return DuplicateRecord("spit_v0", {}, 0, 8, [a, b], np.array([[0, 1], [1, 0]]), np.array([0, 1]), False,
                               scores, scores > 0, np.zeros_like(scores, bool))  # fmt: skip

    pool = [record("random", "rule", 0.0), record("random", "ppo", 0.0), record("rule", "ppo", 0.5)]

    def snap(minutes: int, final: bool, p_random: float) -> tuple[dict, list]:
        meta = {"cpu_seconds": 60.0 * minutes, "steps": minutes, "file": str(ROOT / f"s{minutes}.json"), "final": final}
        label = f"selfplay@{minutes:.2f}"
        return meta, [record(label, o, p) for o, p in (("random", p_random), ("rule", 0.3), ("ppo", 0.4))]

    return pool, {"selfplay": [snap(1, False, 0.5), snap(2, True, 1.0)]}


def test_a_curve_is_one_fit_and_a_mixed_one_is_refused(run_mod, tmp_path):
    """The pool's lines and the snapshots' points come from one fit (its id on each); a chart whose pool is from
    another fit is refused, and a rating the prior holds is flagged."""
    pool, snaps = curve_records()
    args = run_mod.parse_args(["--resamples", "200"])
    doc = run_mod.fit_curve("spit_v0", pool, snaps, args)
    fid = doc["fit"]["id"]
    assert doc["fit"]["agents"] == ["random", "rule", "ppo", "selfplay@1.00", "selfplay@2.00"]
    assert {e["fit"] for e in [*doc["pool"], *doc["learners"]["selfplay"]]} == {fid}
    # the same numbers as the one joint fit of all the games
    from cardenvs.evaluation.ratings import rate_records

    joint = rate_records(pool + [r for _, recs in snaps["selfplay"] for r in recs], doc["fit"]["agents"],
                         resamples=200, seed=args.seed)  # fmt: skip
    assert [p["rating"] for p in doc["pool"]] == [r.rating for r in joint[:3]]
    assert [p["rating"] for p in doc["learners"]["selfplay"]] == [r.rating for r in joint[3:]]
    # the first snapshot lost to random: every rating relative to random is estimated; the pool-only fit (rule and
    # ppo sweep random) is held at the prior's floor
    assert all(not e["held"] for e in doc["pool"])
    alone = run_mod.fit_curve("spit_v0", pool, {}, args)
    assert [p["held"] for p in alone["pool"]] == ["", "at least", "at least"] and alone["fit"]["id"] != fid
    run_mod.plot_curve(doc, tmp_path / "one.png")
    assert (tmp_path / "one.png").stat().st_size > 0
    mixed = {**doc, "pool": alone["pool"]}  # the pool's lines from another fit than the points
    with pytest.raises(ValueError, match="not from one fit"):
        run_mod.plot_curve(mixed, tmp_path / "mixed.png")
    assert not (tmp_path / "mixed.png").exists()


def test_the_committed_curves_are_one_fit_each(run_mod):
    """Each committed chart's JSON: pool and points carry the one fit's id."""
    for game in run_mod.GAMES:
        doc = json.loads((run_mod.OUT / f"{game}_curve.json").read_text())
        run_mod.check_one_fit(doc)
        assert len(doc["fit"]["agents"]) == len(run_mod.POOL) + sum(map(len, doc["learners"].values()))


def test_a_rating_held_by_the_prior_is_marked_in_the_table(run_mod):
    doc = league_doc()
    doc["agents"][1]["held"] = "at least"
    table = run_mod.league_table(doc)
    assert "| rule | +412 † at least | [+350, +471] | 192 |" in table
    assert table.rstrip().endswith("read it as the bound it says (at least / at most).")
    assert "†" not in run_mod.league_table(league_doc())  # nothing held: no mark, no note
