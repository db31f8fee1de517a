"""The agents ``"scratch"`` (a game's committed policy learned from scratch)
and ``"best"`` (its strongest agent, by its GameSpec), PIMC's options that
let search use them, and the one command that retrains a from-scratch
policy (no strength asserted: that is the results page's)."""

from __future__ import annotations

import dataclasses
import json
import pathlib
import sys

import numpy as np
import pytest
from helpers import load_script

pytest.importorskip("torch")

from cardenvs import registry  # noqa: E402
from cardenvs.agents import builtin  # noqa: E402
from cardenvs.agents.mlp import MLPAgent, read_policy  # noqa: E402
from cardenvs.agents.pimc import PIMCAgent  # noqa: E402
from cardenvs.agents.registry import make_agent  # noqa: E402
from cardenvs.agents.sides import margin_matrix  # noqa: E402
from cardenvs.agents.specs import AgentSpecError, agent_factory, is_built_in, scratch_agent  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
POLICY = ROOT / "benchmarks/league/pepper_v0/policies/selfplay/policy_001200.json"


def load_example(name: str):
    return load_script(f"examples/{name}.py")


@pytest.fixture
def pepper_scratch(monkeypatch):
    """Pepper's GameSpec naming a scratch file (the league's self-play policy) and a best spec."""
    spec = dataclasses.replace(registry.GAMES["pepper_v0"], best="pimc:worlds=2,fallback=scratch", scratch_search=None)
    monkeypatch.setitem(registry.GAMES, "pepper_v0", spec)
    monkeypatch.setitem(builtin.SCRATCH, "pepper_v0", POLICY)
    return spec


def test_scratch_loads_the_committed_policy_file_by_name(pepper_scratch):
    agent = make_agent("pepper_v0", "scratch")
    assert isinstance(agent, MLPAgent) and agent.name == "scratch"
    assert agent.meta["sha256"] == json.loads(POLICY.read_text())["sha256"]
    obs, mask = np.zeros((3, agent.obs_size), np.float32), np.zeros((3, agent.num_actions), np.int8)
    mask[:, [2, 5]] = 1
    assert set(agent.act_batch(obs, mask).tolist()) <= {2, 5}


def test_scratch_without_a_file_says_how_to_train_one(monkeypatch, tmp_path):
    monkeypatch.setitem(builtin.SCRATCH, "pepper_v0", tmp_path / "pepper_scratch.json")
    with pytest.raises(ValueError, match=r"retrain_scratch.py --game pepper_v0 --install"):
        make_agent("pepper_v0", "scratch")
    monkeypatch.delitem(builtin.SCRATCH, "pepper_v0")
    with pytest.raises(ValueError, match=r"no from-scratch policy for 'pepper_v0'"):
        make_agent("pepper_v0", "scratch")


def test_scratch_plays_its_policy_through_the_search_its_game_names(pepper_scratch, monkeypatch):
    spec = dataclasses.replace(pepper_scratch, scratch_search="pimc:worlds=3,search=all,score=side")
    monkeypatch.setitem(registry.GAMES, "pepper_v0", spec)
    agent = make_agent("pepper_v0", "scratch", num_players=2)
    assert isinstance(agent, PIMCAgent) and agent.name == "scratch"
    assert (agent.worlds, agent.search_all, agent.margin) == (3, True, False)
    policy = make_agent("pepper_v0", "scratch-policy")
    assert isinstance(policy, MLPAgent) and policy.name == "scratch-policy"
    for inner in (agent.rollout, agent.fallback):  # the policy, not the rule agent, everywhere in the search
        assert isinstance(inner, MLPAgent) and inner.meta["sha256"] == policy.meta["sha256"]
    # a PIMC spec naming scratch gets the policy, not the search over it
    assert make_agent("pepper_v0", "pimc:worlds=2,rollout=scratch", num_players=2).rollout.name == "scratch-policy"
    for search, error in (
        ("pimc:worlds=3,rollout=rule", "options are worlds=.*not 'rollout=rule'"),
        ("mlp:x", "not a pimc"),
    ):
        monkeypatch.setitem(registry.GAMES, "pepper_v0", dataclasses.replace(spec, scratch_search=search))
        with pytest.raises(AgentSpecError, match=error):
            make_agent("pepper_v0", "scratch")


def test_the_committed_pepper_scratch_is_a_search_over_its_policy_with_no_rule_agent():
    from cardenvs.app.agents import SearchPlayer, load_agent

    agent = make_agent("pepper_v0", "scratch", num_players=4)
    assert isinstance(agent, PIMCAgent) and registry.GAMES["pepper_v0"].scratch_search.startswith("pimc:")
    assert {type(agent.rollout), type(agent.fallback)} == {MLPAgent}
    played = load_agent("pepper_v0", "scratch")  # (play and serve: the search, following the env it is attached to)
    assert isinstance(played, SearchPlayer) and played.agent.name == "scratch"
    assert load_agent("pepper_v0", "scratch-policy").name == "scratch-policy"
    with pytest.raises(ValueError, match="plays its policy through a search: make it with make_agent"):
        builtin.builtin_agent("pepper_v0", "scratch")


def test_scratch_made_of_another_policy_file_plays_that_policy(pepper_scratch):
    agent = scratch_agent("pepper_v0", path=POLICY)
    assert isinstance(agent, MLPAgent) and agent.meta["sha256"] == json.loads(POLICY.read_text())["sha256"]


def test_best_is_the_spec_the_game_names(pepper_scratch):
    agent = make_agent("pepper_v0", "best", num_players=2)
    assert isinstance(agent, PIMCAgent) and agent.worlds == 2
    assert agent.fallback.name == "scratch"  # the fallback is the scratch policy, not the rule agent
    assert is_built_in("best") and is_built_in("scratch")


@pytest.mark.parametrize("game", ["pepper_v0", "cancellation_hearts_v0", "push_v0"])
def test_the_games_pimc_searches_name_pimc_over_every_decision_as_best(game):
    agent = make_agent(game, "best")
    assert isinstance(agent, PIMCAgent) and agent.worlds == 32
    assert agent.search_all and agent.margin


def test_spit_names_no_strongest_agent():
    with pytest.raises(AgentSpecError, match="spit_v0 names no strongest agent"):
        make_agent("spit_v0", "best")


@pytest.mark.parametrize("best", [None, "best", "mlp:/tmp/x.json", "mymodule:Agent"])
def test_best_must_name_a_built_in_agent(monkeypatch, best):
    monkeypatch.setitem(registry.GAMES, "pepper_v0", dataclasses.replace(registry.GAMES["pepper_v0"], best=best))
    with pytest.raises(AgentSpecError, match="agent 'best'"):
        make_agent("pepper_v0", "best")


@pytest.mark.parametrize(
    "spec, message",
    [
        ("pimc:search=cards", "search must be 'default' or 'all'"),
        ("pimc:score=total", "score must be 'default', 'side' or 'margin'"),
        ("pimc:fallback=random", "fallback must be 'rule' or 'scratch'"),
        ("pimc:rollout=ppo", "rollout must be"),
        ("pimc:worlds=0", "worlds must be a whole number"),
        ("pimc:worlds=100000000", "worlds must be a whole number from 1 to 1024"),
        ("pimc:budget=inf", "budget must be a number of seconds above 0"),
        ("pimc:budget=0", "budget must be a number of seconds above 0"),
    ],
)
def test_pimc_options_are_checked(spec, message):
    with pytest.raises(AgentSpecError, match=message):
        agent_factory("pepper_v0", spec, {"num_players": 2})


def test_pimc_searching_every_decision_bids_and_names_trump_by_search():
    """``search=all``: the bids and the trump go to the search, not to the fallback."""
    from cardenvs.evaluation.duplicate import play_duplicate

    agent = PIMCAgent("pepper_v0", worlds=2, search="all", score="margin", num_players=2, max_hands=1)
    calls = []
    real = agent.fallback.act_batch
    agent.fallback.act_batch = lambda obs, mask: calls.append(len(obs)) or real(obs, mask)
    play_duplicate("pepper_v0", [agent, make_agent("pepper_v0", "rule")], 2, 5, num_players=2, max_hands=1)
    assert agent.searched > 0 and calls == []
    # the margin: a seat's side's score less the other sides' mean
    # the margin: a seat's side's score less the other sides' mean (partners share a side)
    assert (np.array([[3.0, -6.0]]) @ margin_matrix(agent.rules).T).tolist() == [[9.0, -9.0]]
    four = PIMCAgent("pepper_v0", worlds=2, search="all", score="margin", num_players=4).rules
    assert (np.array([[2.0, -6.0, 2.0, -6.0]]) @ margin_matrix(four).T).tolist() == [[8.0, -8.0, 8.0, -8.0]]


def test_the_retrain_recipes_take_no_rule_advice():
    """The from-scratch row: the learner in every seat, or alone among
    opponents (random play in Spit; past snapshots, the rule agent and random
    play in Cancellation Hearts): the rule agent may be an opponent, whose
    decisions are never trained on, and never a teacher, advice, a roll-out
    or a fallback."""
    retrain = load_example("retrain_scratch")
    for game in retrain.RECIPES:
        module, argv = retrain.learner_argv(game, 7, 30, "runs/x")
        outside = [a for k, a in enumerate(argv) if k == 0 or argv[k - 1] != "--opponents"]
        assert not any("rule" in a or "advice" in a for a in outside)
        trainer = load_example(module)
        args = trainer.parse_args(argv)
        assert args.seed == 7 and args.cpu_minutes == 30
        assert set(getattr(args, "opponent_mix", {})) <= {"random", "pool", "rule"}
        assert not hasattr(args, "advice") or not args.advice
    assert set(retrain.BUDGETS) <= set(retrain.RECIPES) and all(0 < b <= 30 for b in retrain.BUDGETS.values())
    for game in retrain.RECIPES:  # a budget in steps: the learner's own (a run that replays)
        module, argv = retrain.learner_argv(game, 7, None, "runs/x", steps=5000)
        args = load_example(module).parse_args(argv)
        assert args.total_steps == 5000 and args.cpu_minutes is None
    assert set(retrain.STEPS) <= set(retrain.RECIPES) and all(s > 0 for s in retrain.STEPS.values())


def test_retrain_prints_budget_and_seed_and_installs_a_policy_that_loads(tmp_path, monkeypatch, capsys):
    retrain = load_example("retrain_scratch")
    game = "cancellation_hearts_v0"
    monkeypatch.setitem(
        retrain.RECIPES,
        game,
        (retrain.RECIPES[game][0], [*retrain.RECIPES[game][1], "--num-envs", "4", "--num-steps", "8", "--hidden", "8"]),
    )
    monkeypatch.setattr(retrain, "ROOT", tmp_path)
    (tmp_path / "agents" / "checkpoints").mkdir(parents=True)
    run = tmp_path / "run"
    argv = ["--game", game, "--seed", "3", "--cpu-minutes", "0.02", "--run-dir", str(run), "--install"]
    assert retrain.main(argv) == 0
    out = capsys.readouterr().out
    assert "budget 0.02 CPU-minutes, seed 3" in out.splitlines()[0]
    installed = tmp_path / "agents" / "checkpoints" / "hearts_scratch.json"
    actor, meta = read_policy(installed)
    assert meta["training"]["seed"] == 3 and "--seed" in meta["training"]["recipe"]
    # the shipped file does not name the folder it trained in (a folder of the machine)
    assert "--run-dir" not in meta["training"]["recipe"] and str(run) not in installed.read_text()
    assert MLPAgent.load(installed, game=game, num_players=6).num_actions == meta["num_actions"]


def test_retrain_refuses_a_bad_budget(capsys):
    retrain = load_example("retrain_scratch")
    with pytest.raises(SystemExit) as stop:
        retrain.main(["--game", "cancellation_hearts_v0", "--cpu-minutes", "0"])
    assert stop.value.code == 2 and "--cpu-minutes: must be a finite number above 0" in capsys.readouterr().err


def test_play_takes_a_best_that_searches(pepper_scratch):
    from cardenvs.agents.pimc import PIMCAgent
    from cardenvs.app.agents import SearchPlayer, load_agent

    played = load_agent("pepper_v0", "best", config={"num_players": 2})
    assert isinstance(played, SearchPlayer) and isinstance(played.agent, PIMCAgent) and played.agent.worlds == 2


def load_benchmark(name: str):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    return load_script(f"benchmarks/learning/{name}.py")


def test_expert_iteration_learns_from_search_alone_and_its_curve_is_rated(tmp_path, monkeypatch):
    """Two tiny rounds: the first search plays random roll-outs, the second
    the first round's network (never the rule agent); every round's policy
    is saved, and curves.py rates each against the rule agent for the page."""
    exit_ = load_example("expert_iteration")
    made = []
    real = exit_.PIMCAgent

    def spy(*args, **kwargs):
        made.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(exit_, "PIMCAgent", spy)
    argv = ["--game", "pepper_v0", "--rounds", "2", "--decisions", "150", "--worlds", "2", "--num-envs", "8"]
    record = exit_.train(exit_.parse_args([*argv, "--hidden", "16", "--run-dir", str(tmp_path / "run"), "--quiet"]))
    assert record["rounds"] == 2 and [s["final"] for s in record["snapshots"]] == [False, True]
    assert made[0]["rollout"] == "random" and isinstance(made[1]["rollout"], MLPAgent)
    assert all(m["search"] == "all" and m.get("fallback", "rule") == "rule" for m in made)  # (search=all: never asked)

    curves = load_benchmark("curves")
    monkeypatch.setattr(curves, "IMAGES", tmp_path)
    monkeypatch.setattr(curves.report, "RESULTS", tmp_path)
    out = tmp_path / "curves.json"
    argv = ["--game", "pepper_v0", "--runs", str(tmp_path / "run"), "--deals", "2", "--out", str(out), "--json"]
    summary = curves.main(argv)
    points = summary["runs"]["run"]["points"]
    assert [p["file"] for p in points] == [s["file"] for s in record["snapshots"]]
    assert all(len(p["win"]) == 3 and p["win"][1] <= p["win"][0] <= p["win"][2] for p in points)
    page = json.loads((tmp_path / "learning_curves-pepper_v0.json").read_text())
    assert len(page["results"]) == 2 and page["images"] == ["images/learning-curves-pepper_v0.png"]
    assert (tmp_path / "learning-curves-pepper_v0.png").stat().st_size > 0
    assert curves.main(argv) == summary  # rated snapshots are not rated again


@pytest.mark.parametrize("count", ["decisions", "engine-steps"])
def test_expert_iteration_counts_the_steps_its_budget_names(tmp_path, monkeypatch, count):
    """``--count decisions`` (the default): a budget in steps is the
    decisions the search labelled; ``engine-steps``: the engine steps x
    games of the games it played, counted here at the engine's own step."""
    exit_ = load_example("expert_iteration")
    stepped, labelled, real_make, real_label = [], [], exit_.V.make, exit_.label

    class Counting:  # (the labelling games' rules, counted where the labelling loop steps its games, not where
        def __init__(self, inner):  # the search it hands them to plays its worlds)
            self.inner = inner

        def __getattr__(self, name):
            return getattr(self.inner, name)

        def step(self, state, actions):
            if sys._getframe(1).f_code is real_label.__code__:
                stepped.append(len(actions))
            return self.inner.step(state, actions)

    class Engine:
        def __init__(self, inner):
            self.inner, self.rules = inner, Counting(inner.rules)

        def __getattr__(self, name):
            return getattr(self.inner, name)

    def label(*args, **kwargs):
        got = real_label(*args, **kwargs)
        labelled.append(len(got[0][0]))
        return got

    monkeypatch.setattr(exit_.V, "make", lambda *a, **k: Engine(real_make(*a, **k)))
    monkeypatch.setattr(exit_, "label", label)
    argv = ["--game", "pepper_v0", "--total-steps", "500", "--decisions", "200", "--worlds", "2", "--num-envs", "8"]
    argv += ["--count", count, "--hidden", "16", "--run-dir", str(tmp_path), "--quiet"]
    record = exit_.train(exit_.parse_args(argv))
    counted = sum(stepped) if count == "engine-steps" else sum(labelled)
    assert record["steps"] == counted and 500 <= counted < 500 + 8 and sum(stepped) != sum(labelled)
    assert record["snapshots"][-1]["steps"] == counted
    training = json.loads((tmp_path / record["snapshots"][-1]["file"]).read_text())["training"]
    assert training.get("count") == (None if count == "decisions" else count)  # (the default's files as before)


def test_install_from_a_finished_run_checks_it(tmp_path, monkeypatch, capsys):
    retrain = load_example("retrain_scratch")
    monkeypatch.setattr(retrain, "ROOT", tmp_path)
    (tmp_path / "agents" / "checkpoints").mkdir(parents=True)
    with pytest.raises(SystemExit) as stop:
        retrain.main(["--game", "pepper_v0", "--install-from", str(tmp_path)])
    assert stop.value.code == 2 and "holds no finished run" in capsys.readouterr().err
    exit_ = load_example("expert_iteration")
    argv = ["--game", "pepper_v0", "--rounds", "1", "--decisions", "50", "--worlds", "2", "--num-envs", "4"]
    exit_.train(exit_.parse_args([*argv, "--hidden", "8", "--run-dir", str(tmp_path / "run"), "--quiet"]))
    with pytest.raises(SystemExit) as stop:
        retrain.main(["--game", "cancellation_hearts_v0", "--install-from", str(tmp_path / "run")])
    assert stop.value.code == 2 and "a run of pepper_v0, not cancellation_hearts_v0" in capsys.readouterr().err
    assert retrain.main(["--game", "pepper_v0", "--install-from", str(tmp_path / "run")]) == 0
    installed = tmp_path / "agents" / "checkpoints" / "pepper_scratch.json"
    assert MLPAgent.load(installed, game="pepper_v0").meta["training"]["algorithm"] == "expert_iteration"
    recipe = json.loads(installed.read_text())["training"]["recipe"]
    assert recipe["decisions"] == 50 and "run_dir" not in recipe and str(tmp_path) not in installed.read_text()
