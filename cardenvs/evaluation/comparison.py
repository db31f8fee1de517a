"""Algorithm benchmarks: which training algorithm learns a game better, with
intervals (``cardenvs compare``; docs/benchmark.md).

An *algorithm* is a training function ``train(game, seed, budget, run_dir)
-> Agent`` named by spec, as the arena names agents:
``package.module:function`` from your code, or one of the project's learners
by name -- ``ppo`` (``examples/selfplay_ppo.py``, its critic reading the
observation), ``ppo-state`` (the same, its critic reading the game's state),
``ppo-pop`` (the same as ``ppo`` against a population: past snapshots of
itself, the rule agent as an opponent, never a teacher, and random play),
``dmc`` (``examples/dmc.py``) and ``exit`` (``examples/expert_iteration.py``:
a search's choices distilled into the network -- PIMC's, in Spit the
look-ahead's; its steps are the decisions it labels) and ``exit-search``
(the same, its steps the engine steps of the games its search plays, and
its network played through the search the game's from-scratch agent plays
under, as ``make_agent(game, "scratch")`` plays: Pepper and Spit),
run from the repository checkout (they are examples, not installed).
``budget`` is a :class:`~.compare_files.Budget`: ``steps`` (engine steps
x games: the default, so that a run replays) or ``cpu_minutes``.  A learner
returns its final network, played alone (``exit-search``: through its
search).  An algorithm x game that the
algorithm does not train (a game its script does not list) is *not
applicable*: no run, listed as such, and left out of that algorithm's
aggregates and of its pairs' probabilities of improvement on that game.  It may save snapshots in
``run_dir`` as ``policy_*.json`` MLP policy files
(:func:`cardenvs.agents.mlp.save_policy`) whose ``training`` record holds
``steps``: they give the sample-efficiency curves, each played as the
function's ``snapshot_agent(path, game)`` makes it if it has one (the
project's learners do), else as the network alone.

The protocol, for every algorithm x game x seed (the training seeds are
``0 .. seeds - 1``): train, then score the agent against the rule agent on
the evaluation deals (:mod:`.compare_score`: points, random 0 and rule 1,
alone among rule agents in a free-for-all game), its games counted by how
they ended.  The trivial policies are scored on the same deals as the
comparison's reference rows.  The statistics across games and seeds are
:mod:`.compare_stats`'s (rliable, its bootstrap seeded).

A run's results go to ``DIR/compare.json`` as each run finishes, with the
settings and each algorithm's code identity; what varies with the machine
(the CPU a run took, and whether it passed a CPU budget) is kept apart in
``timing``, so the same command run twice on one machine writes the same
``runs`` and ``aggregates``.  The same command on the same ``DIR`` resumes
(finished runs are not retrained) and is refused if any setting, or an
algorithm's code, differs.  Bad input raises :class:`CompareError` (a
ValueError, one line) before anything is imported or written.
"""

from __future__ import annotations

import importlib.util
import inspect
import itertools
import json
import pathlib
import re
import shutil
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ..agents.adaptor import as_agent
from ..agents.specs import AgentSpecError, imported
from ..core.cpu import CpuClock
from ..core.messages import cut
from .compare_files import (
    FORMAT,
    VERSION,
    Budget,
    CompareError,
    budget_of,
    check_code,
    check_out,
    code_identity,
    recorded,
    settings,
    write,
)
from .compare_score import ScoreError, Scorer, network_snapshot
from .duplicate_play import check_agent

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"  # the project's learners, in a checkout
#: the project's learners: their script in examples/ and the options that make them
LEARNERS = {
    "ppo": ("selfplay_ppo", ["--critic", "obs", "--eval-games", "0"]),
    "ppo-state": ("selfplay_ppo", ["--critic", "state", "--eval-games", "0"]),
    # the population of Cancellation Hearts' from-scratch recipe: past snapshots, the rule agent (an opponent only)
    # and random play face the learner in 30%, 40% and 10% of the games, itself in the rest
    "ppo-pop": (
        "selfplay_ppo",
        ["--critic", "obs", "--opponents", "pool=0.3,rule=0.4,random=0.1", "--eval-games", "0"],
    ),
    "dmc": ("dmc", []),
    "exit": ("expert_iteration", ["--worlds", "8", "--decisions", "10000", "--cut-rounds"]),
    # the same, its steps the engine steps of the games its search plays, and played as "scratch" plays (SEARCHED)
    "exit-search": (
        "expert_iteration",
        ["--worlds", "8", "--decisions", "10000", "--cut-rounds", "--count", "engine-steps"],
    ),
}
#: the learners whose agent (and each snapshot) is their network played through the search that the game's
#: from-scratch agent plays under (its GameSpec's ``scratch_search``), as ``make_agent(game, "scratch")``
#: plays: they train only the games that name one
SEARCHED = {"exit-search"}
#: where a learner's script lists the games it trains (the first it has)
GAMES_LISTS = ("EXIT_GAMES", "DMC_DEFAULTS", "GAME_DEFAULTS")
#: a run past this share of its CPU budget is flagged (the learners stop at the end of an iteration)
OVER_BUDGET = 1.1

Algorithm = Callable[[str, int, Budget, str], Any]


class TrainingError(RuntimeError):
    """An algorithm that raised, or returned no agent for the game (one line)."""


def load_example(name: str) -> Any:
    """The checkout's ``examples/NAME.py`` as a module (they are scripts, not
    installed: loaded by path, as the tests load them).  ``examples/`` is on
    the import path only while it loads (dmc.py imports selfplay_ppo beside
    it), and what it imported from there is forgotten after: a user's own
    module of one of those names (``dmc:train``) is never shadowed."""
    path = EXAMPLES / f"{name}.py"
    if not path.is_file():
        raise CompareError(
            f"the learner {name} runs {path} from a checkout of the cardenvs repository, and there is none "
            f"next to this package ({EXAMPLES.parent}): clone the repository and run it from there (pip install -e .)"
        )
    if importlib.util.find_spec("torch") is None:
        raise CompareError(f"the learner {name} needs torch: pip install 'cardenvs[train]'")
    before, path_before = set(sys.modules), list(sys.path)
    sys.path.insert(0, str(EXAMPLES))
    try:
        spec = importlib.util.spec_from_file_location(f"cardenvs_compare_{name}", path)
        module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    finally:
        sys.path[:] = path_before
        for added in set(sys.modules) - before:
            file = getattr(sys.modules[added], "__file__", None) or ""
            if pathlib.Path(file).resolve().parent == EXAMPLES:
                del sys.modules[added]
    return module


def learner(name: str) -> tuple[Algorithm, set[str], str]:
    """A project learner as an algorithm, the games it trains on, and its code identity."""
    script, options = LEARNERS[name]
    module = load_example(script)
    games = set(next(getattr(module, name) for name in GAMES_LISTS if hasattr(module, name)))
    if name in SEARCHED:
        from ..registry import GAMES

        games = {g for g in games if GAMES[g].scratch_search is not None}

    def train(game: str, seed: int, budget: Budget, run_dir: str) -> Any:
        argv = ["--game", game, "--seed", str(seed), "--run-dir", run_dir, "--quiet", *options]
        if budget.steps is not None:  # ten snapshots, at fixed steps: the run replays
            argv += ["--total-steps", str(budget.steps)]
            if script != "expert_iteration":  # (it saves a policy every round)
                argv += ["--snapshot-every-steps", str(max(1, budget.steps // 10))]
        else:  # ten snapshots (selfplay_ppo takes them at least 1 s apart)
            argv += [
                "--cpu-minutes",
                repr(budget.cpu_minutes),
                "--snapshot-every",
                repr(max(1.0, budget.cpu_minutes * 6)),
            ]
        module.train(module.parse_args(argv))
        return played(final_snapshot(pathlib.Path(run_dir)), game)

    played = searched_snapshot if name in SEARCHED else network_snapshot
    train.snapshot_agent = played  # type: ignore[attr-defined]
    return train, games, code_identity(None, EXAMPLES / f"{script}.py")


def searched_snapshot(path: pathlib.Path, game: str) -> Any:
    """A learner's policy file played through the game's from-scratch search (``SEARCHED``)."""
    from ..agents.specs import scratch_agent

    return scratch_agent(game, path=str(path))


def algorithm(spec: str) -> tuple[Algorithm, set[str] | None, str]:
    """The training function ``spec`` names, the games it is limited to
    (None: any; a function may list them in a ``games`` attribute) and its
    code identity; CompareError in one line if it names none."""
    if spec in LEARNERS:
        return learner(spec)
    if ":" not in spec or not all(spec.partition(":")[::2]):
        raise CompareError(f"unknown algorithm {spec!r}: use {', '.join(LEARNERS)} or package.module:function")
    try:
        fn = imported(spec, "algorithm")
    except AgentSpecError as e:
        raise CompareError(str(e)) from None
    try:
        inspect.signature(fn).bind("game", 0, Budget(steps=1), "run_dir")
    except (TypeError, ValueError):
        raise CompareError(
            f"algorithm {spec!r} is not a function train(game, seed, budget, run_dir) -> Agent"
        ) from None
    only = getattr(fn, "games", None)  # optional: the games it trains (registry names), as the learners declare theirs
    if only is not None and (isinstance(only, str) or not all(isinstance(g, str) for g in only)):
        raise CompareError(f"algorithm {spec!r}: its 'games' attribute must be a collection of game names")
    return fn, (None if only is None else set(only)), code_identity(fn)


def final_snapshot(run_dir: pathlib.Path) -> pathlib.Path:
    """The snapshot a learner saved last (``"final": true``, else the most steps)."""
    found = snapshots(run_dir)
    if not found:
        raise TrainingError(f"{run_dir}: the learner saved no policy")
    final = [s for s in found if s[2]]
    return (final or found)[-1][0]


def snapshots(run_dir: pathlib.Path) -> list[tuple[pathlib.Path, int, bool]]:
    """The policy files in ``run_dir`` whose ``training`` record has
    ``steps``: (path, steps, final), by steps (then name)."""
    found = []
    for path in sorted(run_dir.glob("policy_*.json")):
        try:
            training = json.loads(path.read_text()).get("training") or {}
            steps = int(training["steps"])
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            continue  # (not a policy with a training record: no point of the curve)
        found.append((path, steps, training.get("final") is True))
    return sorted(found, key=lambda s: (s[1], s[0].name))


def spread(found: list, most: int) -> list:
    """At most ``most`` of ``found``, spread over it (the last always)."""
    if len(found) <= most:
        return found
    step = (len(found) - 1) / (most - 1) if most > 1 else 0
    return [found[len(found) - 1 - round(k * step)] for k in range(most)][::-1]


def train_run(
    fn: Algorithm, spec: str, game: str, seed: int, budget: Budget, run_dir: pathlib.Path
) -> tuple[Any, float]:
    """Train once: the agent it returned, checked to play ``game``
    (TrainingError otherwise), and the CPU-minutes it took, every process
    of it counted (the compile builder too: :mod:`cardenvs.core.cpu`)."""
    clock = CpuClock()
    try:
        made = fn(game, seed, budget, str(run_dir))
        agent = as_agent(made, spec)
        check_agent(game, agent, spec)
    except (KeyboardInterrupt, TrainingError):
        raise
    except Exception as e:  # noqa: BLE001 (whatever the algorithm raises or returns)
        raise TrainingError(f"algorithm {spec} on {game}, seed {seed}: {type(e).__name__}: {cut(e)}") from None
    return agent, clock.seconds() / 60


def not_applicable_cell(spec: str, game: str) -> dict[str, str]:
    """The record of a game an algorithm does not train (``not_applicable`` in ``compare.json``)."""
    return {"algorithm": spec, "game": game, "reason": f"{spec} does not train {game}"}


def resolved(wanted: dict[str, Any]) -> tuple[dict[str, Algorithm], list[dict[str, str]], dict[str, str]]:
    """Each algorithm's training function, the algorithm x game cells that
    are not applicable, and each algorithm's code identity; CompareError if
    an algorithm cannot be had or trains none of the games."""
    if importlib.util.find_spec("rliable") is None:
        raise CompareError("the statistics need rliable: pip install rliable (the dev extra)")
    found, not_applicable, code = {}, [], {}
    for spec in wanted["algorithms"]:
        fn, only, code[spec] = algorithm(spec)
        unfit = [g for g in wanted["games"] if only is not None and g not in only]
        if len(unfit) == len(wanted["games"]):
            raise CompareError(f"the learner {spec} does not train {unfit[0]}: it trains {', '.join(sorted(only))}")
        not_applicable += [not_applicable_cell(spec, g) for g in unfit]
        found[spec] = fn
    return found, not_applicable, code


def scorers(wanted: dict[str, Any]) -> dict[str, Scorer]:
    try:
        return {game: Scorer(game, wanted["deals"], wanted["batch"]) for game in wanted["games"]}
    except ScoreError as e:
        raise CompareError(str(e)) from None


def compare(
    algorithms: Sequence[str],
    games: Sequence[str],
    seeds: int,
    out: str | pathlib.Path,
    steps: int | None = None,
    cpu_minutes: float | None = None,
    deals: int = 100,
    batch: int = 64,
    reps: int = 2000,
    curve_points: int = 8,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Train every algorithm (specs) on every game (registry names) with
    seeds ``0 .. seeds - 1``, each for ``steps`` (default
    :data:`~.compare_files.DEFAULT_STEPS`) or ``cpu_minutes``, score each
    result in ``deals`` duplicate deals (and at most ``curve_points`` of its
    snapshots, for the curves), score the trivial policies on the same deals,
    and write ``out/compare.json`` (resuming what ``out`` holds) and the
    plots; returns the document.  ``progress(line)`` hears what trains and
    what it scored.  Everything is checked before an algorithm is imported."""
    say = progress or (lambda line: None)
    wanted = settings(algorithms, games, seeds, budget_of(steps, cpu_minutes), deals, batch, reps, curve_points)
    out = pathlib.Path(out)
    check_out(out)
    held = recorded(out, wanted)  # (the folder checked whole before anything is imported or written)
    fns, not_applicable, code = resolved(wanted)
    check_code(held["code"], code, out)
    score = scorers(wanted)
    from .. import __version__

    doc = {"format": FORMAT, "version": VERSION, "cardenvs": __version__, "settings": wanted}
    doc |= {"complete": False, "code": code, "runs": held["runs"], "timing": held["timing"]}
    doc["not_applicable"] = not_applicable
    doc |= {"reference": {}, "aggregates": {}, "games": {}, "improvement": [], "plots": []}
    write(out, doc)
    for cell in not_applicable:
        say(f"compare: {cell['algorithm']} on {cell['game']}: not applicable ({cell['reason']})")
    play_runs(out, wanted, fns, score, doc, say)
    for game in wanted["games"]:
        say(f"compare: the reference rows on {game} (lowest, highest: the trivial policies)")
        doc["reference"][game] = score[game].reference_rows()
    from .compare_stats import summarise

    summarise(doc, out)
    doc["complete"] = True
    write(out, doc)
    return doc


def play_runs(out: pathlib.Path, wanted: dict, fns: dict, score: dict, doc: dict, say: Callable[[str], None]) -> None:
    """Train and score every run not yet in ``doc``, writing it after each."""
    have = {(r["algorithm"], r["game"], r["seed"]) for r in doc["runs"]}
    skip = {(c["algorithm"], c["game"]) for c in doc["not_applicable"]}
    todo = [(a, g, s) for a in wanted["algorithms"] for g in wanted["games"] for s in range(wanted["seeds"])]
    todo = [key for key in todo if key[:2] not in skip]
    if have:
        say(f"compare: resuming {out}: {len(have)} of {len(todo)} runs finished")
    left = [key for key in todo if key not in have]
    for k, key in enumerate(left):
        where = f"[{len(have) + k + 1}/{len(todo)}]"
        run, timing = one_run(out, wanted, fns[key[0]], score[key[1]], key, where, say)
        doc["runs"].append(run)
        doc["timing"].append(timing)
        write(out, doc)
    order = {
        key: i for i, key in enumerate(itertools.product(wanted["algorithms"], wanted["games"], range(wanted["seeds"])))
    }
    doc["runs"].sort(key=lambda r: order[(r["algorithm"], r["game"], r["seed"])])


def run_folder(out: pathlib.Path, wanted: dict[str, Any], spec: str, game: str, seed: int) -> pathlib.Path:
    """Where a run trains: ``out/runs/<i>-<spec>/<game>/seed-<seed>`` (the
    algorithm's place in the list keeps two specs apart once made file names)."""
    name = re.sub(r"[^\w.-]", "_", spec)
    return out / "runs" / f"{wanted['algorithms'].index(spec)}-{name}" / game / f"seed-{seed}"


def fresh_dir(out: pathlib.Path, run_dir: pathlib.Path) -> None:
    """Make ``run_dir`` (inside ``out``) new and empty: an interrupted run's
    files are removed, never followed through a link."""
    path = out
    for name in run_dir.relative_to(out).parts:
        path = path / name
        if path.is_symlink():
            raise CompareError(f"{path} is a link: a comparison's folder holds its own files")
    if run_dir.exists():
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True)


def one_run(
    out: pathlib.Path,
    wanted: dict[str, Any],
    fn: Algorithm,
    scorer: Scorer,
    key: tuple[str, str, int],
    where: str,
    say: Callable[[str], None],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Train one algorithm on one game with one seed in a fresh folder; its
    run record (the score and its interval, the margins, how its games
    ended, the steps it trained, its snapshots' curve) and its timing (the
    CPU-minutes it took, and whether that passed a CPU budget)."""
    spec, game, seed = key
    budget = Budget(wanted["steps"], wanted["cpu_minutes"])
    run_dir = run_folder(out, wanted, spec, game, seed)
    where = f"{where} {spec} on {game}, seed {seed}"
    say(f"compare: {where}: training for {budget.text()} in {run_dir}")
    fresh_dir(out, run_dir)
    agent, used = train_run(fn, spec, game, seed, budget, run_dir)
    found = snapshots(run_dir)
    steps_used = found[-1][1] if found else None
    run = {"algorithm": spec, "game": game, "seed": seed, **scorer.score(agent), "steps_used": steps_used}
    points = (
        [(path, steps) for path, steps, _ in spread(found, wanted["curve_points"])] if wanted["curve_points"] else []
    )
    run["curve"] = scorer.curve(points, say, getattr(fn, "snapshot_agent", network_snapshot))
    over = budget.cpu_minutes is not None and used > OVER_BUDGET * budget.cpu_minutes
    if budget.steps is not None and steps_used is not None and steps_used > OVER_BUDGET * budget.steps:
        run["over_budget"] = True
    timing = {"algorithm": spec, "game": game, "seed": seed, "cpu_minutes": used, "over_budget": over}
    ends, (low, high) = run["ends"], run["score_interval"]
    flag = " -- PAST ITS BUDGET" if over or run.get("over_budget") else ""
    interval = "unbounded: one deal" if low is None else f"{low:+.3f}, {high:+.3f}"
    say(
        f"compare: {where}: score {run['score']:+.3f} [{interval}] (won-lost-drawn "
        f"{ends['won']}-{ends['lost']}-{ends['drawn']}, {ends['truncated']} truncated), {used:.2f} CPU-minutes{flag}"
    )
    return run, timing
