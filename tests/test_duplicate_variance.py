"""benchmarks/duplicate_variance.py: its arithmetic on given numbers, and a
run end to end at a tiny size (its figures are not judged here)."""

from __future__ import annotations

import json
import math
import pathlib
import sys

import numpy as np
import pytest

from cardenvs.evaluation.duplicate import DuplicateRecord

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "benchmarks"))

import duplicate_variance as dv  # noqa: E402


def test_games_ratio_is_the_squared_ratio_of_widths():
    assert dv.games_ratio(2.0, 1.0) == 4.0
    assert dv.games_ratio(0.3, 0.6) == pytest.approx(0.25)
    assert math.isinf(dv.games_ratio(1.0, 0.0))
    assert math.isnan(dv.games_ratio(0.0, 0.0))


def test_half_width_is_the_paired_t_interval():
    # mean 2.5, sd sqrt(5/3), t(0.975, 3) = 3.182446: 3.182446 * 1.290994 / 2
    assert dv.half_width(np.array([1.0, 2.0, 3.0, 4.0])) == pytest.approx(2.054260, abs=1e-5)


def test_compare_at_equal_games_is_the_ratio_of_variances():
    dup = np.array([0.0, 1.0, 0.0, -1.0, 0.0, 1.0])
    indep = np.array([2.0, -1.0, 1.0, -2.0, 0.0, 1.0])
    row = dv.compare(dup, indep, seatings=2, rng=np.random.default_rng(0), resamples=200)
    assert row["deals"] == 6 and row["games"] == 12
    assert row["dup_mean"] == pytest.approx(1 / 6) and row["indep_mean"] == pytest.approx(1 / 6)
    assert row["games_ratio"] == pytest.approx(indep.var(ddof=1) / dup.var(ddof=1))  # same t, same n
    assert row["games_ratio"] == pytest.approx((row["indep_half_width"] / row["dup_half_width"]) ** 2)
    # duplicate games for a half-width of |mean|: 12 games x (hw / mean)^2
    assert row["dup_games_to_separate"] == pytest.approx(12 * (row["dup_half_width"] * 6) ** 2)
    with pytest.raises(ValueError, match="same deals"):
        dv.compare(dup, indep[:-1], 2, np.random.default_rng(0), 10)


def test_ratio_interval_edge_cases_and_replay():
    rng = np.random.default_rng
    constant, varied = np.zeros(8), np.arange(8.0)
    assert dv.ratio_interval(constant, varied, rng(1), 50) == (math.inf, math.inf)
    assert all(math.isnan(x) for x in dv.ratio_interval(constant, constant, rng(1), 50))
    a, b = np.array([0.0, 1, 3, 2, 5, 1, 0, 2]), np.array([1.0, 4, 0, 6, 2, 9, 3, 1])
    low, high = dv.ratio_interval(a, b, rng(3), 500)
    assert (low, high) == dv.ratio_interval(a, b, rng(3), 500)  # from its generator alone
    assert low < b.var(ddof=1) / a.var(ddof=1) < high


def record(seatings, scores, winners) -> DuplicateRecord:
    seatings = np.asarray(seatings)
    p = seatings.shape[1]
    shape = (-1, len(seatings), p)
    return DuplicateRecord(
        "g",
        {},
        0,
        1,
        ["a", "b"],
        seatings,
        np.arange(p),
        False,
        np.asarray(scores, float).reshape(shape),
        np.asarray(winners, bool).reshape(shape),
        np.zeros(np.asarray(scores).shape, bool).reshape(shape),
    )


def test_place_values_on_given_games():
    # seating 0: A at seat 0; seat 2 won, seat 0 (10) ahead of seat 1 (5): A beat one of two B seats -> 0
    # seating 1: A at seats 1, 2; seat 2 won, seats 0 and 1 tied (5): comparisons 0.5 and 1 -> 2 x 0.75 - 1 = 0.5
    r = record([[0, 1, 1], [1, 0, 0]], [[10, 5, 20], [5, 5, 9]], [[0, 0, 1], [0, 0, 1]])
    assert dv.place_values(r) == pytest.approx([0.25])
    assert dv.measure_values(r, "place") == pytest.approx([0.25])
    # two sides: the place measure is the win share measure
    two = record([[0, 1], [1, 0]], [[3, 1], [2, 2], [0, 4], [1, 5]], [[1, 0], [1, 1], [0, 1], [0, 1]])
    assert dv.place_values(two) == pytest.approx(dv.measure_values(two, "win"))


def test_runs_end_to_end_at_a_tiny_size(tmp_path, capsys, monkeypatch):
    out, summary = tmp_path / "dv.json", tmp_path / "results.txt"
    summary.write_text("before\n")
    monkeypatch.setattr(dv, "SUMMARY", summary)
    argv = ["--games", "pepper_1hand", "--pairs", "rule-random", "--deals", "3", "--resamples", "20"]
    assert dv.main([*argv, "--json", str(out), "--append"]) == 0
    data = json.loads(out.read_text())
    for key in ("commit", "date", "python", "machine", "cpus", "load_average", "results", "seed", "deals"):
        assert key in data
    assert data["seed"] == dv.SEED and data["deals"] == {"pepper_1hand": 3}
    rows = data["results"]
    assert [(r["protocol"], r["a"], r["b"], r["measure"]) for r in rows] == [
        ("pepper_1hand", "rule", "random", "win"),
        ("pepper_1hand", "rule", "random", "score"),
    ]
    assert all(r["deals"] == 3 and r["games"] == 6 and r["seatings"] == 2 for r in rows)
    # random takes the match's streams: the arm with its own generator is played apart
    assert all(r["own_replayed"] and r["seconds_own"] > 0 and len(r["forfeits"]) == 3 for r in rows)
    assert all(0 <= r["copies_alike"] <= 1 and "own_games_ratio" in r for r in rows)
    text = summary.read_text()
    assert text.startswith("before\n") and "## duplicate_variance.py at" in text and "# pepper_1hand" in text
    assert "indep/dup games" in capsys.readouterr().out


def test_deterministic_pairs_play_the_duplicate_arm_once():
    # no agent takes streams: the arm with own generators is the same games (not replayed)
    protocol = next(p for p in dv.PROTOCOLS if p.name == "pepper_1hand")
    records, seconds = dv.play_arms(protocol, 1, ("rule", "rule"), 3, 5, 8)
    assert records["own"] is records["dup"] and seconds["own"] == 0.0
    assert dv.copies_alike(records["dup"]) == 1.0  # one deterministic agent everywhere: every copy the same game
    assert dv.copies_alike(records["indep"]) < 1.0


def test_luck_diagnostics_crossfit_honestly(tmp_path):
    import duplicate_luck as dl

    rng = np.random.default_rng(4)
    x = rng.normal(size=(400, 3))
    d = x @ [1.0, -2.0, 0.5] + 0.1 * rng.normal(size=400)
    assert dl.crossfit_left(d, x) < 0.01  # a luck term that explains d leaves little
    left = dl.crossfit_left(rng.normal(size=400), rng.normal(size=(400, 20)))
    assert left > 0.95  # features unrelated to d: fitted on the other half, they only add noise
    out = tmp_path / "luck.json"
    assert dl.main(["--games", "pepper_1hand", "--scale", "0.01", "--json", str(out)]) == 0
    row = json.loads(out.read_text())["results"][0]
    assert row["deals"] == 10 and row["module_seatings"] == 2 and 0 <= row["alike_ab"] <= 1
    assert row["win_reference_variance_left"] == pytest.approx(1 - row["win_reference_r2"])


def test_sampled_learners_are_pairs_that_take_the_streams():
    pytest.importorskip("torch")
    agent = dv.make("pepper_v0", "selfplay~", 1, {"num_players": 4})
    assert agent.name == "selfplay~" and not agent.greedy and dv.takes_streams([agent])
    assert not dv.takes_streams([dv.make("pepper_v0", "rule", 1, {}), dv.make("pepper_v0", "ppo", 1, {})])
    with pytest.raises(SystemExit, match="no selfplay learner for push_v0"):
        dv.make("push_v0", "selfplay~", 1, {})
