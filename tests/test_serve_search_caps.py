"""A served search is capped (B2 and B5 of the fifth attack round): a
decision ends by its deadline (PIMC evaluates its worlds in chunks and
begins none that would end after it; reached late, the fallback moves), a
request's searches share one deadline, a server runs a bounded number of
searching requests at once (503 for another, nothing changed), and a bad
search spec is refused when the server starts, or when ``play`` reads it.

No verdict depends on time: the deadline tests drive PIMC with a clock
that advances one second per reading, and the request cap is tested at 0
seconds (every move of the request is the fallback's)."""

from __future__ import annotations

import itertools
import json
import os
import pathlib
import subprocess
import sys
import threading
import urllib.error
import urllib.request

import numpy as np
import pytest

from cardenvs.agents.builtin import builtin_agent
from cardenvs.agents.pimc import FIRST_CHUNK, PIMCAgent
from cardenvs.app.agents import MAX_SEARCHES, REQUEST_SEARCH_SECONDS, load_agent
from cardenvs.app.serve import make_server
from cardenvs.registry import rules_class

ROOT = pathlib.Path(__file__).resolve().parents[1]
SEARCH = "pimc:worlds=64,search=all,rollout=rule"
HEARTS = {"num_players": 6, "max_hands": 1}


def pepper_decisions(rows: int = 3):
    """Pepper's rules and ``rows`` fresh games (their first decisions: bids)."""
    rules = rules_class("pepper_v0")(num_players=2)
    state = rules.new_state(rows, np.random.default_rng(7))
    rules.reset(state, np.arange(rows))
    return rules, state, np.arange(rows)


class Ticks:
    """A clock that reads one second later each time it is read."""

    def __init__(self) -> None:
        self.count = itertools.count(1)

    def __call__(self) -> float:
        return float(next(self.count))


def test_a_deadline_cuts_a_batch_of_worlds_to_the_chunks_that_fit():
    rules, state, rows = pepper_decisions()
    agent = PIMCAgent("pepper_v0", worlds=64, search="all", seed=1)
    agent.act_states(rules, state, rows)
    assert agent.worlds_played == 64 * len(rows)  # (no deadline: the whole batch)

    agent = PIMCAgent("pepper_v0", worlds=64, search="all", seed=1)
    agent.clock = Ticks()
    # read at 1 (not late), the first chunk from 2 to 3, "now" 4: the next chunk (twice the first) would end at 6
    actions = agent.act_states(rules, state, rows, deadline=5.5)
    assert agent.worlds_played == FIRST_CHUNK * len(rows)
    assert state.legal[rows, actions].all() and agent.late == 0


def test_a_budget_ends_at_the_deadline_too():
    rules, state, rows = pepper_decisions()
    agent = PIMCAgent("pepper_v0", worlds=4, search="all", budget=3600, seed=1)
    agent.clock = Ticks()
    agent.act_states(rules, state, rows, deadline=20.5)  # (without the deadline: batches for an hour)
    assert 0 < agent.worlds_played < 64 * len(rows)


def test_a_decision_reached_after_its_deadline_is_the_fallbacks():
    rules, state, rows = pepper_decisions()
    agent = PIMCAgent("pepper_v0", worlds=64, search="all", seed=1)
    actions = agent.act_states(rules, state, rows, deadline=agent.clock())
    rule = builtin_agent("pepper_v0", "rule", seed=1, num_players=2)
    expected = rule.act_batch(rules.observe(state, state.current[rows], rows), state.legal[rows])
    np.testing.assert_array_equal(actions, expected)
    assert agent.late == len(rows) and agent.worlds_played == 0


class Server:
    """A real play server in a thread, and JSON calls to it (status, body)."""

    def __init__(self, **options):
        self.srv = make_server("127.0.0.1", 0, tick=0, **options)
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def call(self, path: str, body: dict | None = None) -> tuple[int, dict]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.srv.url.rstrip("/") + path, data, {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=300) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def close(self) -> None:
        self.srv.shutdown()
        self.srv.server_close()


@pytest.fixture
def server():
    made: list[Server] = []

    def start(**options) -> Server:
        made.append(Server(**options))
        return made[-1]

    yield start
    for s in made:
        s.close()


def whole_game(srv: Server, vs: str) -> list[str]:
    """A Hearts game against ``vs`` (the human at seat 3 always playing its first legal move): its log."""
    status, s = srv.call("/api/new", {"game": "cancellation_hearts_v0", "seat": 3, "seed": 11, "vs": vs,
                                      "config": HEARTS})  # fmt: skip
    assert status == 200, s
    log = list(s["log"])
    while not s["done"]:
        status, s = srv.call("/api/move", {"session": s["session"], "action": s["legal"][0]["id"]})
        assert status == 200, s
        log += s["log"]
    return log


def test_a_request_whose_search_time_is_spent_plays_the_fallback(server):
    """``search_seconds=0``: every search move of every request is the
    fallback's, so the game is the one the rule agent plays."""
    capped = server(agents={"deep": SEARCH}, search_seconds=0)
    assert whole_game(capped, "deep") == whole_game(capped, "rule")


def test_searching_requests_beyond_the_limit_get_503_and_change_nothing(server):
    srv = server(agents={"deep": SEARCH}, max_searches=1)
    holder = load_agent("pepper_v0", "pimc:worlds=2", 0, {"num_players": 2})  # a search of another session
    start = {"game": "cancellation_hearts_v0", "seat": 0, "seed": 5, "vs": "deep", "config": HEARTS}
    status, s = srv.call("/api/new", start)
    assert status == 200 and s["your_turn"]
    before = srv.call(f"/api/state?session={s['session']}")[1]
    with srv.srv.searches.request([holder]):  # the one slot is taken
        status, busy = srv.call("/api/new", {**start, "seat": 3})
        assert status == 503 and "searches at once" in busy["error"]
        assert len(srv.srv.sessions) == 1  # the refused game is not kept
        status, busy = srv.call("/api/move", {"session": s["session"], "action": s["legal"][0]["id"]})
        assert status == 503
        assert srv.call(f"/api/state?session={s['session']}")[1] == before  # the move was not played
        assert srv.call("/api/new", {**start, "vs": "rule"})[0] == 200  # no search: not limited
    status, after = srv.call("/api/move", {"session": s["session"], "action": s["legal"][0]["id"]})
    assert status == 200 and after["steps"] > before["steps"]
    assert srv.call("/api/new", {**start, "seat": 3})[0] == 200


def test_info_tells_the_caps(server):
    info = server().call("/api/info")[1]
    assert info["max_searches"] == MAX_SEARCHES and info["search_seconds_per_request"] == REQUEST_SEARCH_SECONDS


@pytest.mark.parametrize(
    "spec, said",
    [
        ("pimc:rollout=ppo", "rollout must be 'random', 'rule' or 'scratch'"),
        ("pimc:score=bogus", "score must be"),
        ("pimc:worlds=100000000", "worlds must be"),
        ("pimc:budget=inf", "budget must be"),
    ],
)
def test_a_bad_search_spec_is_refused_when_the_server_starts(spec, said):
    with pytest.raises(ValueError, match=said):
        make_server("127.0.0.1", 0, agents={"x": spec})


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "cardenvs.app.cli", *args], input=stdin, capture_output=True,
                          text=True, timeout=300, env=env, cwd=ROOT)  # fmt: skip


@pytest.mark.parametrize(
    "args, said",
    [
        (["serve", "--port", "0", "--agent", "x=pimc:rollout=ppo"], "rollout must be"),
        (["play", "pepper", "--vs", "pimc:worlds=100000000", "--seed", "0"], "worlds must be a whole number"),
        (["play", "pepper", "--vs", "pimc:budget=nan", "--seed", "0"], "budget must be"),
    ],
)
def test_the_cli_refuses_a_bad_search_spec_in_one_line(args, said):
    done = cli(*args, stdin="q\n")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and said in lines[0], done.stderr
