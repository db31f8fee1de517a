"""The look-ahead over the next ticks of Spit (:mod:`cardenvs.agents.lookahead`):
its options and errors, that it reads the state without changing it, that
it plays Spit as a searcher should (it plays at once, it beats random
play), its specs, and that matches, expert iteration and the app give it
the engine state and the seat that asks."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from helpers import load_script

from cardenvs import registry
from cardenvs.agents.lookahead import MAX_HORIZON, LookaheadAgent
from cardenvs.agents.registry import make_agent
from cardenvs.agents.specs import AgentSpecError, agent_factory, is_built_in
from cardenvs.evaluation import match
from cardenvs.games.spit.agent import KINDS, PLAY, SpitRuleAgent

GAME = "spit_v0"


def positions(games: int, ticks: int, seed: int = 5):
    """A batch of Spit games after ``ticks`` ticks of random play (some over)."""
    rules = registry.rules_class(GAME)()
    state = rules.new_state(games, np.random.default_rng(seed))
    rules.reset(state, np.arange(games))
    rng = np.random.default_rng(seed + 1)
    for _ in range(ticks):
        noise = np.where(state.legal, rng.random(state.legal.shape), -1.0)
        live = np.flatnonzero(~state.done)
        part = state.select(live)
        rules.step(part, noise[live].argmax(axis=2))
        state.assign(live, part)
    return rules, state


@pytest.mark.parametrize(
    "options, message",
    [
        ({"worlds": 0}, "worlds is a whole number from 1 to 1024"),
        ({"horizon": MAX_HORIZON + 1}, f"horizon is a whole number from 1 to {MAX_HORIZON}"),
        ({"horizon": True}, "horizon is a whole number"),
        ({"rollout": "rule"}, r"rollout is None \(uniformly random\) or an Agent"),
        ({"discount": 0}, "discount is a number above 0 and at most 1"),
        ({"discount": 1.5}, "discount is a number above 0 and at most 1"),
        ({"discount": "0.9"}, "discount is a number above 0 and at most 1"),
    ],
)
def test_bad_options_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        LookaheadAgent(GAME, **options)


@pytest.mark.parametrize("game, config", [("spit_v0", {"variant": "speed"}), ("pepper_v0", {})])
def test_it_plays_spit_only(game, config):
    with pytest.raises(ValueError, match="the look-ahead plays Spit"):
        LookaheadAgent(game, **config)


def test_it_needs_the_state_and_the_seat():
    rules, state = positions(2, 3)
    agent = LookaheadAgent(GAME, worlds=2, horizon=2)
    with pytest.raises(NotImplementedError, match="needs the engine state"):
        agent.act_batch(np.zeros((1, 3)), np.ones((1, 3), bool))
    with pytest.raises(ValueError, match="say which seat decides"):
        agent.act_states(rules, state, np.arange(2))


def test_it_reads_the_state_without_changing_it_and_replays_from_its_seed():
    rules, state = positions(24, 40)
    live = np.flatnonzero(~state.done)
    before = state.copy()
    picks = []
    for _ in range(2):
        agent = LookaheadAgent(GAME, worlds=4, horizon=3, seed=11)
        picks.append([agent.act_states(rules, state, live, seat=s) for s in (0, 1)])
    assert state.same_arrays(before)
    for s in (0, 1):
        np.testing.assert_array_equal(picks[0][s], picks[1][s])
        assert state.legal[live, s, picks[0][s]].all()
    # a seat per row: the same as asking each seat apart
    seats = np.arange(len(live)) % 2
    mixed = LookaheadAgent(GAME, worlds=4, horizon=3, seed=11).act_states(rules, state, live, seat=seats)
    assert state.legal[live, seats, mixed].all()


def test_it_plays_at_once_where_a_card_fits():
    """One tick ahead, a card played is a card shed: where a play is legal
    it plays (random play picks one in about half of those ticks)."""
    rules, state = positions(200, 25, seed=9)
    live = np.flatnonzero(~state.done)
    kind = SpitRuleAgent().kind_code
    agent = LookaheadAgent(GAME, worlds=8, horizon=1, seed=3)
    can_play = (state.legal[live, 0] & (kind == PLAY)).any(axis=1)
    picked = agent.act_states(rules, state, live[can_play], seat=0)
    assert can_play.sum() > 50
    share = (kind[picked] == PLAY).mean()
    assert share > 0.9, f"{KINDS[PLAY]} chosen in {share:.0%} of the ticks a card fitted"


def test_a_discount_weighs_each_tick_and_prefers_shedding_sooner():
    """A discount of 1 counts every card shed alike (the totals are the
    undiscounted counts); below 1 a card shed at tick t counts
    ``discount**t``, so with the same futures (its worlds share their
    random numbers) a wait, which can only shed later, never gains on a
    play, and a discount of nearly 0 counts the first tick alone."""
    rules, state = positions(120, 25, seed=9)
    live = np.flatnonzero(~state.done)
    kind = SpitRuleAgent().kind_code
    rows = live[(state.legal[live, 0] & (kind == PLAY)).any(axis=1)]
    choices = state.legal[rows, 0]
    part, seats = state.select(rows), np.zeros(len(rows), np.int64)
    totals = {}
    for discount in (1.0, 0.5, 1e-9):
        agent = LookaheadAgent(GAME, worlds=6, horizon=4, seed=7, discount=discount)
        totals[discount] = agent._evaluate(rules, part, seats, choices)
    assert np.array_equal(totals[1.0], np.round(totals[1.0]))  # whole cards
    assert not np.allclose(totals[0.5], totals[1.0])
    first = totals[1e-9]  # the first tick's cards alone (whole numbers), the rest weighing nothing
    np.testing.assert_allclose(first, np.round(first), atol=1e-6)
    assert not np.array_equal(np.round(first), totals[1.0])
    # on the first tick a play sheds a card or (the other hand faster, the pile changed) none, and can only
    # take the other's play away: in the same worlds it never counts less than waiting
    plays = np.where(choices & (kind == PLAY), first, -np.inf).max(axis=1)
    assert (plays >= first[:, 0] - 1e-6).all() and (plays > first[:, 0] + 0.5).mean() > 0.9


def test_it_beats_random_play_in_a_match():
    result = match(GAME, LookaheadAgent(GAME, worlds=4, horizon=4, seed=1), make_agent(GAME, "random"), 12, seed=4)
    assert result.wins >= 10 and result.truncated == 0


def test_specs_make_it_and_check_its_options():
    assert is_built_in("lookahead") and is_built_in("lookahead:worlds=4")
    agent = agent_factory(GAME, "lookahead:worlds=4,horizon=2")(0)
    assert isinstance(agent, LookaheadAgent) and (agent.worlds, agent.horizon, agent.rollout) == (4, 2, None)
    assert agent.discount == 1.0 and agent_factory(GAME, "lookahead:discount=0.75")(0).discount == 0.75
    with_policy = agent_factory(GAME, "lookahead:rollout=scratch")(0)
    assert with_policy.rollout is not None and with_policy.worlds == 16
    for spec, message in (
        ("lookahead:horizon=0", "horizon must be a whole number of ticks from 1 to"),
        ("lookahead:depth=3", "options are worlds=..., horizon=..., discount=..., rollout=..."),
        ("lookahead:discount=0", "discount must be a number above 0 and at most 1"),
        ("lookahead:discount=nan", "discount must be a number above 0 and at most 1"),
        ("lookahead:rollout=rule", "rollout must be 'random' or 'scratch'"),
    ):
        with pytest.raises(AgentSpecError, match=message):
            agent_factory(GAME, spec)
    with pytest.raises(AgentSpecError, match="cannot be made for pepper_v0"):
        agent_factory("pepper_v0", "lookahead")


def test_scratch_plays_its_policy_through_a_lookahead_its_game_names(monkeypatch):
    installed = make_agent(GAME, "scratch")  # the GameSpec's: 16 worlds of 4 ticks, discount 0.5
    assert (installed.worlds, installed.horizon, installed.discount) == (16, 4, 0.5)
    spec = dataclasses.replace(registry.GAMES[GAME], scratch_search="lookahead:worlds=3,horizon=2")
    monkeypatch.setitem(registry.GAMES, GAME, spec)
    agent = make_agent(GAME, "scratch")
    assert isinstance(agent, LookaheadAgent) and agent.name == "scratch"
    assert (agent.worlds, agent.horizon, agent.discount) == (3, 2, 1.0) and agent.rollout is not None
    assert not isinstance(make_agent(GAME, "scratch-policy"), LookaheadAgent)


def test_the_app_gives_it_the_state_and_the_seat_that_asks():
    """Recorded games of the look-ahead against the rule agent, in either
    seat: the app's search player finds which seat asks (an action for the
    other seat would be refused as illegal, or shift the game)."""
    from cardenvs.app.agents import SearchPlayer, load_agent
    from cardenvs.app.replay import record_game, recording_parallel_env

    for seat in (0, 1):
        player = load_agent(GAME, "lookahead:worlds=2,horizon=2", seed=1, config={"max_ticks": 60})
        assert isinstance(player, SearchPlayer)
        agents = [player, "rule"] if seat == 0 else ["rule", player]
        replay = record_game(GAME, agents, seed=3, config={"max_ticks": 60})
        assert player.agent.searched > 0 and len(replay.actions) > 10
    env = recording_parallel_env(GAME)
    obs, _ = env.reset(seed=8)
    player.attach(env)
    for name in env.possible_agents:
        assert obs[name]["action_mask"][player.act(obs[name]["observation"], obs[name]["action_mask"])]
    with pytest.raises(RuntimeError, match="no seat's in the game it follows"):
        player.act(obs["player_0"]["observation"] + 1000, obs["player_0"]["action_mask"])


def test_expert_iteration_labels_both_seats_of_spit_with_the_lookahead(tmp_path, monkeypatch):
    exit_ = load_script("examples/expert_iteration.py")
    made = []
    real = exit_.LookaheadAgent

    def spy(*args, **kwargs):
        made.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(exit_, "LookaheadAgent", spy)
    monkeypatch.setattr(exit_, "PIMCAgent", None)  # (never made for Spit)
    argv = ["--game", "spit_v0", "--rounds", "2", "--decisions", "200", "--worlds", "2", "--horizon", "2"]
    record = exit_.train(exit_.parse_args([*argv, "--num-envs", "4", "--hidden", "16", "--run-dir", str(tmp_path)]))
    assert record["rounds"] == 2 and record["steps"] >= 400
    assert [(m["worlds"], m["horizon"]) for m in made] == [(2, 2), (2, 2)] and "rollout" not in made[0]
    # every round's labels are kept (the expert does not change): the second fit saw both rounds
    snapshot = (tmp_path / record["snapshots"][-1]["file"]).read_text()
    assert '"horizon": 2' in snapshot


def test_spit_ticks_counts_the_plays_of_an_agent_that_reads_the_state():
    import sys

    sys.path.insert(0, "benchmarks")
    ticks = load_script("benchmarks/learning/spit_ticks.py")
    out = ticks.play_ticks(LookaheadAgent(GAME, worlds=2, horizon=2, seed=1), make_agent(GAME, "rule"), 4, seed=2)
    assert out["games"] == 4 and out["truncated"] == 0 and out["won"] + out["lost"] == 1
    assert out["plays_per_100_ticks"][0] > 20  # (random play: about 31; waiting: 0)
