"""``cardenvs arena`` and leagues (cardenvs.app.arena, cardenvs.evaluation.leagues,
cardenvs.agents.specs): a short league in every game, the files and their
schema, bad input, forfeits, interruption and resume."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import cardenvs.evaluation.leagues as league_module
from cardenvs.agents.specs import AgentSpecError, agent_factory, split_specs
from cardenvs.app.cli import main
from cardenvs.evaluation.leagues import league

TESTS = pathlib.Path(__file__).parent
AGENTS = "random,rule,arena_agents:Weakened"
# (game, config, deals): small tables and short games, enough deals for the order to show
LEAGUES = [
    ("pepper", {}, 10),
    ("hearts", {"num_players": 6, "target_score": 40}, 6),
    ("push", {}, 10),
    ("spit", {}, 40),
]
AGENT_KEYS = {"name", "spec", "rating", "low", "high", "held", "games", "forfeits", "ends"}
PAIR_KEYS = {"a", "b", "mean", "low", "high", "deals", "games", "forfeits", "ends", "field"}


def arena(out: pathlib.Path, *args: str) -> int:
    return main(["arena", *args, "--out", str(out), "--resamples", "200"])


@pytest.mark.parametrize("game, config, deals", LEAGUES)
def test_a_league_in_every_game(tmp_path, capsys, game, config, deals):
    out = tmp_path / "league"
    assert arena(out, game, "--agents", AGENTS, "--deals", str(deals), "--config", json.dumps(config)) == 0
    doc = json.loads((out / "league.json").read_text())
    assert {"game", "config", "seed", "deals", "agents", "pairs"} <= set(doc)
    assert doc["deals"] == deals and doc["seed"] == 0 and doc["config"] == config and doc["complete"]
    assert all(set(a) == AGENT_KEYS for a in doc["agents"])
    assert all(set(p) == PAIR_KEYS for p in doc["pairs"])
    rating = {a["name"]: a["rating"] for a in doc["agents"]}
    assert rating["random"] == 0  # the anchor
    assert rating["rule"] > rating["arena_agents:Weakened"] > rating["random"]
    for a in doc["agents"]:
        assert a["low"] <= a["rating"] <= a["high"] and a["games"] > 0 and a["forfeits"] == 0
    pairs = {(p["a"], p["b"]): p for p in doc["pairs"]}
    assert set(pairs) == {("random", "rule"), ("random", "arena_agents:Weakened"), ("rule", "arena_agents:Weakened")}
    assert all(p["deals"] == deals and p["low"] <= p["mean"] <= p["high"] for p in pairs.values())
    assert pairs[("random", "rule")]["mean"] < 0  # random's edge over rule
    assert "| rule |" in (out / "league.md").read_text()
    printed = capsys.readouterr()
    assert "| agent | rating | 95% interval | games | won-lost-drawn | forfeits |" in printed.out
    # every game ends counted: won + lost + drawn + truncated = the games an agent played
    assert all(sum(a["ends"].values()) == a["games"] for a in doc["agents"])
    # free-for-all (Hearts): the user's agent is measured alone among copies of a reference agent, never
    # the other way round; two sides: each agent holds each side
    fields = {(p["a"], p["b"]): p["field"] for p in doc["pairs"]}
    if game == "hearts":
        assert fields == {("random", "rule"): "mirror", ("random", "arena_agents:Weakened"): "b outsider",
                          ("rule", "arena_agents:Weakened"): "b outsider"}  # fmt: skip
    else:
        assert set(fields.values()) == {"sides"}
    assert "games played" in printed.err  # the progress line
    assert (out / "league.png").exists() or "league.png skipped" in printed.out


OTHER_GAME = ["pepper", "--agents", "random,arena_agents:OtherGame"]


@pytest.mark.parametrize(
    "args, says",
    [
        (["pepperoni", "--agents", "random,rule"], "unknown game"),
        (["pepper", "--agents", "random,nonsense"], "unknown agent"),
        (["pepper", "--agents", "random,no_such_module_xyz:Agent"], "cannot import no_such_module_xyz"),
        (["pepper", "--agents", "random,arena_agents:Missing"], "has no 'Missing'"),
        (OTHER_GAME, "does not play pepper_v0: it returned action"),
        (["pepper", "--agents", "random,rule", "--deals", "0"], "--deals must be at least 1"),
        (["pepper", "--agents", "random,rule", "--config", "{bad"], "--config must be a JSON object"),
        (["pepper", "--agents", "random,rule", "--config", '{"num_players": 9}'], "num_players"),
        (["pepper", "--agents", "random,random"], "listed twice"),
        (["spit", "--agents", "random,pimc"], "PIMC plays"),
        (["pepper", "--agents", "random,pimc:worlds=many"], "worlds must be a whole number"),
        (["pepper"], "give a GAME and --agents"),
    ],
)
def test_bad_input_gets_one_line_exit_2_and_nothing_written(tmp_path, capsys, args, says):
    out = tmp_path / "league"
    assert arena(out, *args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0], err
    assert not out.exists()


def test_an_agent_of_another_games_checkpoint_is_refused(tmp_path, capsys):
    pytest.importorskip("torch")
    from cardenvs.agents.registry import BASELINES

    assert arena(tmp_path / "x", "pepper", "--agents", f"random,ppo:{BASELINES['spit_v0']}") == 2
    assert "pepper_v0" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_faults_are_forfeited_and_counted_or_stop_a_strict_run(tmp_path, capsys):
    args = ["spit", "--agents", "random,arena_agents:Flaky", "--deals", "6"]
    assert arena(tmp_path / "a", *args) == 0
    doc = json.loads((tmp_path / "a" / "league.json").read_text())
    lost = {a["name"]: a["forfeits"] for a in doc["agents"]}
    assert lost["arena_agents:Flaky"] >= 1 and lost["random"] == 0
    assert doc["pairs"][0]["forfeits"][1] == lost["arena_agents:Flaky"]
    assert "| arena_agents:Flaky |" in capsys.readouterr().out
    assert arena(tmp_path / "b", *args, "--strict") == 1
    err = capsys.readouterr().err
    assert "agent arena_agents:Flaky raised RuntimeError: flaky agent trips in deal" in err


def test_a_run_replays_exactly_from_its_seed(tmp_path):
    args = ["spit", "--agents", AGENTS, "--deals", "5", "--seed", "7"]
    assert arena(tmp_path / "a", *args) == 0
    assert arena(tmp_path / "b", *args) == 0
    first, second = ((tmp_path / d / "league.json").read_text() for d in "ab")
    assert first == second
    assert arena(tmp_path / "c", *args[:-1], "8") == 0
    assert (tmp_path / "c" / "league.json").read_text() != first


def test_interrupted_runs_keep_their_finished_pairs_and_resume(tmp_path, monkeypatch, capsys):
    args = ["spit", "--agents", AGENTS, "--deals", "5"]
    assert arena(tmp_path / "whole", *args) == 0
    real, calls = league_module.play_duplicate, []

    def stopped_at_the_second_pair(*a, **k):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(league_module, "play_duplicate", stopped_at_the_second_pair)
    out = tmp_path / "cut"
    assert arena(out, *args) == 130
    assert "--resume" in capsys.readouterr().err
    doc = json.loads((out / "league.json").read_text())
    assert not doc["complete"] and doc["pairs_done"] == 1 and doc["pairs_total"] == 3
    assert sorted(p.name for p in (out / "pairs").iterdir()) == ["0-1.json"]
    assert arena(out, *args) == 2  # the directory holds a run: not written over
    monkeypatch.setattr(league_module, "play_duplicate", real)
    assert main(["arena", "--resume", str(out), "--resamples", "200"]) == 2  # its code agent: given again
    assert "give the run's agents again with --agents" in capsys.readouterr().err
    assert main(["arena", "--resume", str(out), "--agents", AGENTS, "--resamples", "200"]) == 0
    # the resumed run is the run that was not interrupted
    assert (out / "league.json").read_text() == (tmp_path / "whole" / "league.json").read_text()
    assert main(["arena", "push", "--resume", str(out)]) == 2


def test_agent_specs():
    assert split_specs("random, pimc:worlds=8,rollout=rule,rule") == ["random", "pimc:worlds=8,rollout=rule", "rule"]
    assert split_specs("a.b:C,ppo:x.zip") == ["a.b:C", "ppo:x.zip"]
    mask = np.array([[False, True, True]])
    policy = agent_factory("spit_v0", "arena_agents:first_legal")(0)
    assert policy.act_batch(np.zeros((1, 4)), mask).tolist() == [1]
    made = agent_factory("spit_v0", "arena_agents:make_weakened")(3)
    assert made.name == "weakened"
    assert agent_factory("pepper_v0", "pimc:worlds=3,rollout=rule")(1).worlds == 3
    with pytest.raises(AgentSpecError, match="options are"):
        agent_factory("pepper_v0", "pimc:depth=3")
    with pytest.raises(AgentSpecError, match="neither an agent"):
        agent_factory("pepper_v0", "arena_agents:BROKEN_IMPORT")


def test_rate_your_own_agent_in_three_lines(capsys):
    from arena_agents import Weakened

    result = league("spit_v0", {"mine": Weakened("spit_v0"), "rule": "rule", "random": "random"}, deals=4)
    print(result)
    out = capsys.readouterr().out
    assert "| mine |" in out and "| random | +0 |" in out
    assert [r.name for r in result.ratings] == ["mine", "rule", "random"]


def test_the_command_in_a_subprocess(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    out = tmp_path / "league"
    command = [sys.executable, "-m", "cardenvs.app.cli", "arena", "speed", "--agents", "random,arena_agents:Weakened"]
    done = subprocess.run([*command, "--deals", "3", "--out", str(out)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads((out / "league.json").read_text())["config"] == {"variant": "speed"}
