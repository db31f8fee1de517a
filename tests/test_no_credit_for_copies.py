"""No agent is credited for copies of itself (docs/arena.md, "Who meets
whom"): in a free-for-all game an agent is measured alone in a field of
other agents, never at a table holding copies of itself.

The fixture ``fixtures/hearts_colluding.*`` is the self-play Cancellation
Hearts policy that was ``make_agent(game, "scratch")`` until 2026-12: its
copies settled on a convention they use against an outsider.  Five copies
of it beat one rule agent; alone among five rule agents it is weak.
"""

from __future__ import annotations

import json
import pathlib

import pytest

from cardenvs.agents.mlp import MLPAgent
from cardenvs.agents.registry import make_agent
from cardenvs.app.cli import main
from cardenvs.evaluation.duplicate import duplicate_seatings, pair_seatings, play_duplicate, summarise_pair
from cardenvs.evaluation.leagues import league
from cardenvs.evaluation.matches import match
from cardenvs.vector import rules_class

HEARTS = "cancellation_hearts_v0"
CONFIG = {"num_players": 6, "max_hands": 1}  # (the fixture was trained on one-hand games of six)
FIXTURE = pathlib.Path(__file__).parent / "fixtures" / "hearts_colluding.json"


@pytest.fixture(scope="module")
def colluder():
    return MLPAgent.load(FIXTURE, game=HEARTS, seed=0, name="colluder")


def test_the_fixture_colludes_the_mirror_pair_credits_it_and_the_outsider_pair_does_not(colluder):
    """Both ways (the old default: each alone among the other) the pair
    credits the colluder for what its copies do to the lone rule agent; alone
    among rule agents, its only seating now, it loses points to them."""
    rule = make_agent(HEARTS, "rule")
    mirror = summarise_pair(play_duplicate(HEARTS, [colluder, rule], 30, 5, "mirror", **CONFIG), "score")
    alone = summarise_pair(play_duplicate(HEARTS, [colluder, rule], 30, 5, **CONFIG), "score")
    assert mirror.field == "mirror" and mirror.low > 0  # credited for its copies
    assert alone.field == "outsider" and alone.high < 0  # alone among strangers: below the rule agent
    assert alone.games == 30 * 6 and sum(alone.ends[0]) == alone.games


def test_a_match_seats_the_agent_alone_and_it_wins_less_than_chance(colluder):
    """Whole games (to the target score): alone among five rule agents."""
    result = match(HEARTS, colluder, make_agent(HEARTS, "rule"), num_games=90, seed=3, num_players=6)
    assert result.ci[1] < result.chance  # the Wilson interval lies below 1/6
    assert result.mean_score > result.mean_opponent_score  # (the lowest score wins Hearts)
    assert result.wins + result.losses + result.draws + result.truncated == 90 and result.truncated == 0


def test_the_arena_does_not_rate_the_colluder_above_the_rule_agent(tmp_path, capsys):
    out = tmp_path / "arena"
    args = ["arena", "hearts", "--agents", f"rule,random,mlp:{FIXTURE}", "--deals", "30", "--resamples", "200"]
    assert main([*args, "--config", json.dumps(CONFIG), "--out", str(out)]) == 0
    doc = json.loads((out / "league.json").read_text())
    rating = {a["name"]: a for a in doc["agents"]}
    colluder_rating = next(a for name, a in rating.items() if name.startswith("mlp:"))
    assert colluder_rating["high"] < rating["rule"]["rating"]
    fields = {(p["a"], p["b"]): p["field"] for p in doc["pairs"]}
    assert fields[("rule", f"mlp:{FIXTURE}")] == "b outsider"  # the colluder alone among rule agents
    assert "free-for-all" in doc["protocol"] and "free-for-all" in capsys.readouterr().out


def test_two_learners_never_share_a_free_for_all_table(colluder):
    """A free-for-all league of learners alone has no field without copies
    of one of them: refused, naming the fix; with a reference agent the
    learners' pair is left out and listed."""
    other = MLPAgent.load(FIXTURE, game=HEARTS, seed=1, name="other")
    with pytest.raises(ValueError, match="add 'rule' or 'random'"):
        league(HEARTS, {"colluder": colluder, "other": other}, deals=2, **CONFIG)
    result = league(HEARTS, {"colluder": colluder, "other": other, "rule": "rule"}, deals=2, resamples=20, **CONFIG)
    assert {(p["a"], p["b"]) for p in result.pairs} == {("colluder", "rule"), ("other", "rule")}
    assert [(p["a"], p["b"]) for p in result.not_played] == [("colluder", "other")]


def test_pair_seatings():
    hearts, pepper4 = rules_class(HEARTS)(num_players=6), rules_class("pepper_v0")()
    alone = duplicate_seatings(hearts)
    assert (pair_seatings(hearts, False, True) == alone).all()  # a learner alone among the reference
    assert (pair_seatings(hearts, True, False) == 1 - alone).all()
    assert len(pair_seatings(hearts, True, True)) == 12  # two reference agents: both ways
    assert pair_seatings(hearts, False, False) is None
    assert pair_seatings(pepper4, False, False).tolist() == [[0, 1, 0, 1], [1, 0, 1, 0]]  # two sides: always
