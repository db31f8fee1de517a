"""One way to name an agent: every evaluation path takes the arena's specs
(make_agent, match, duplicate, league, arena, play and serve)."""

import pathlib

import numpy as np
import pytest

pytest.importorskip("torch")

from cardenvs.agents.mlp import MLPAgent  # noqa: E402
from cardenvs.agents.pimc import PIMCAgent  # noqa: E402
from cardenvs.agents.registry import make_agent  # noqa: E402
from cardenvs.app.agents import load_agent  # noqa: E402
from cardenvs.evaluation.matches import match  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
POLICY = ROOT / "benchmarks/league/pepper_v0/policies/selfplay/policy_001200.json"
SHORT = {"num_players": 2, "max_hands": 1}


def test_make_agent_takes_every_spec_the_arena_takes():
    assert isinstance(make_agent("pepper_v0", "pimc:worlds=2,rollout=rule", **SHORT), PIMCAgent)
    assert isinstance(make_agent("pepper_v0", f"mlp:{POLICY}"), MLPAgent)
    mine = make_agent("pepper_v0", "tests.arena_agents:first_legal")
    mask = np.zeros((3, 39), bool)
    mask[:, [4, 7]] = True
    assert mine.act_batch(np.zeros((3, 299)), mask).tolist() == [4, 4, 4]
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        make_agent("pepper_v0", "nobody")


def test_match_plays_an_agent_that_reads_the_state():
    pimc = make_agent("pepper_v0", "pimc:worlds=2,rollout=rule", **SHORT)
    result = match("pepper_v0", pimc, make_agent("pepper_v0", "random"), num_games=5, seed=3, **SHORT)
    assert result.games == 5 and 0 <= result.wins <= 5
    assert pimc.searched > 0  # it decided by search, from the state, not by a fallback for every move


def test_match_of_a_state_reader_counts_the_games_it_won():
    """The same games replayed by the duplicate engine (fresh agents, same seeds): the match's wins are its winners."""
    from cardenvs.evaluation.duplicate import play_duplicate

    def fresh():
        return make_agent("pepper_v0", "pimc:worlds=2,rollout=rule", **SHORT), make_agent("pepper_v0", "random")

    result = match("pepper_v0", *fresh(), num_games=4, seed=5, **SHORT)
    record = play_duplicate("pepper_v0", list(fresh()), 2, 5, seatings=[[0, 1], [1, 0]], independent=True, **SHORT)
    won = record.winners.reshape(
        4, 2
    )  # game g: deal g // 2 in seating g % 2, where the match's agent sits at seat g % 2
    assert result.games == 4
    assert result.wins == sum(bool(won[g, g % 2]) for g in range(4))


def test_play_takes_saved_policies_and_searches_by_spec():
    from cardenvs.app.agents import SearchPlayer

    agent = load_agent("pepper_v0", f"mlp:{POLICY}")
    assert isinstance(agent, MLPAgent)
    assert isinstance(load_agent("pepper_v0", str(POLICY)), MLPAgent)  # a policy's path alone
    assert isinstance(load_agent("pepper_v0", "pimc:worlds=2"), SearchPlayer)  # (tests/test_play_search.py)
