"""Algorithm benchmarks: which training algorithm learns a game better, with
intervals (``cardenvs compare``; docs/benchmark.md).

An *algorithm* is a training function ``train(game, seed, cpu_minutes,
run_dir) -> Agent`` named by spec, as the arena names agents:
``package.module:function`` from your code, or one of the project's learners
by name -- ``ppo`` (``examples/selfplay_ppo.py``, its critic reading the
observation), ``ppo-state`` (the same, its critic reading the game's state),
``dmc`` (``examples/dmc.py``) and ``exit`` (``examples/expert_iteration.py``:
PIMC's choices distilled into the network; the games PIMC searches only),
run from the repository checkout (they are examples, not installed).  A
learner returns its final network, played alone.  An algorithm x game
that the algorithm does not train (``exit`` on Spit) is *not applicable*:
no run, listed as such, and left out of that algorithm's aggregates and of
its pairs' probabilities of improvement on that game.  It may save snapshots in ``run_dir`` as
``policy_*.json`` MLP policy files (:func:`cardenvs.agents.mlp.save_policy`)
whose ``training`` record holds ``cpu_seconds`` and ``steps``: they give the
sample-efficiency curves.

The protocol, for every algorithm x game x seed (the training seeds are
``0 .. seeds - 1``): train, then play the agent in duplicate deals
(:func:`~cardenvs.agents.duplicate.play_duplicate`) against each agent of a
fixed reference pool -- ``random``, ``rule`` and the committed PPO baseline
``ppo`` -- at the game's default options, on the deals of :data:`EVAL_SEED`
(the same deals for every run, kept apart from the training seeds); the
pool's own pairs play the same deals.  The agent's rating is fitted together
with the pool's by the league's fit (:func:`~cardenvs.agents.ratings.rate_records`:
Bradley-Terry, ``random`` = 0), and its **score** is that rating divided by
the rule agent's (random 0, rule 1).  The statistics across games and seeds
are :mod:`.compare_stats`'s (rliable).

A run's results go to ``DIR/compare.json`` as each run finishes, with the
settings; the same command on the same ``DIR`` resumes (finished runs are
not retrained) and is refused if any setting differs.  Bad input raises
:class:`CompareError` (a ValueError, one line) before anything is written.
"""

from __future__ import annotations

import importlib.util
import inspect
import itertools
import json
import math
import os
import pathlib
import re
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..core.messages import cut, is_int, kind, show
from ..registry import GAMES
from .duplicate import as_agent, play_duplicate
from .duplicate_play import check_agent
from .league import agent_seed
from .ratings import rate_records
from .run_dir import _replace, bounded, read_json
from .specs import AgentSpecError, agent_factory, imported

FORMAT, VERSION, RESULTS = "cardenvs-compare", 1, "compare.json"
POOL = ("random", "rule", "ppo")  # the reference pool, rated with every trained agent
CANDIDATE = "trained"  # the trained agent's name among the pool's
EVAL_SEED = 777_000  # the evaluation deals' seed; training seeds are 0 .. MAX_SEEDS - 1
MAX_SEEDS, MAX_CURVE_POINTS, MAX_RESULTS = 1000, 100, 1 << 26
EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"  # the project's learners, in a checkout
#: the project's learners: their script in examples/ and the options that make them
LEARNERS = {
    "ppo": ("selfplay_ppo", ["--critic", "obs", "--eval-games", "0"]),
    "ppo-state": ("selfplay_ppo", ["--critic", "state", "--eval-games", "0"]),
    "dmc": ("dmc", []),
    "exit": ("expert_iteration", ["--worlds", "8", "--decisions", "10000", "--cut-rounds"]),
}
#: where a learner's script lists the games it trains (the first it has)
GAMES_LISTS = ("EXIT_GAMES", "DMC_DEFAULTS", "GAME_DEFAULTS")
#: the settings a resumed comparison must repeat, and the option each comes from
IDENTITY = {"algorithms": "--algorithms", "games": "--games", "seeds": "--seeds", "cpu_minutes": "--cpu-minutes"}
IDENTITY |= {"deals": "--deals", "batch": "--batch", "reps": "--reps", "curve_points": "--curve-points"}
IDENTITY |= {"pool": "the pool", "eval_seed": "the deals"}

Algorithm = Callable[[str, int, float, str], Any]


class CompareError(ValueError):
    """Bad input to a comparison, or a results folder it cannot use (one line)."""


class TrainingError(RuntimeError):
    """An algorithm that raised, or returned no agent for the game (one line)."""


def load_example(name: str) -> Any:
    """The checkout's ``examples/NAME.py`` as a module (they are scripts, not
    installed: loaded by path, as the tests load them)."""
    path = EXAMPLES / f"{name}.py"
    if not path.is_file():
        raise CompareError(
            f"the learner {name} runs {path} from a checkout of the cardenvs repository, and there is none "
            f"next to this package ({EXAMPLES.parent}): clone the repository and run it from there (pip install -e .)"
        )
    if importlib.util.find_spec("torch") is None:
        raise CompareError(f"the learner {name} needs torch: pip install 'cardenvs[train]'")
    sys.path.insert(0, str(EXAMPLES))  # (dmc.py imports selfplay_ppo beside it)
    spec = importlib.util.spec_from_file_location(f"cardenvs_compare_{name}", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def learner(name: str) -> tuple[Algorithm, set[str]]:
    """A project learner as an algorithm, and the games it trains on."""
    script, options = LEARNERS[name]
    module = load_example(script)
    games = set(next(getattr(module, name) for name in GAMES_LISTS if hasattr(module, name)))

    def train(game: str, seed: int, cpu_minutes: float, run_dir: str) -> Any:
        every = max(1.0, cpu_minutes * 6)  # ten snapshots (selfplay_ppo takes them at least 1 s apart)
        argv = ["--game", game, "--seed", str(seed), "--cpu-minutes", repr(cpu_minutes), "--run-dir", run_dir]
        module.train(module.parse_args([*argv, "--snapshot-every", repr(every), "--quiet", *options]))
        from .mlp import MLPAgent

        return MLPAgent.load(final_snapshot(pathlib.Path(run_dir)), game=game)

    return train, games


def algorithm(spec: str) -> tuple[Algorithm, set[str] | None]:
    """The training function ``spec`` names and the games it is limited to
    (None: any; a function may list them in a ``games`` attribute);
    CompareError in one line if it names none."""
    if spec in LEARNERS:
        return learner(spec)
    if ":" not in spec or not all(spec.partition(":")[::2]):
        raise CompareError(f"unknown algorithm {spec!r}: use {', '.join(LEARNERS)} or package.module:function")
    try:
        fn = imported(spec, "algorithm")
    except AgentSpecError as e:
        raise CompareError(str(e)) from None
    try:
        inspect.signature(fn).bind("game", 0, 1.0, "run_dir")
    except (TypeError, ValueError):
        raise CompareError(
            f"algorithm {spec!r} is not a function train(game, seed, cpu_minutes, run_dir) -> Agent"
        ) from None
    only = getattr(fn, "games", None)  # optional: the games it trains (registry names), as the learners declare theirs
    if only is not None and (isinstance(only, str) or not all(isinstance(g, str) for g in only)):
        raise CompareError(f"algorithm {spec!r}: its 'games' attribute must be a collection of game names")
    return fn, (None if only is None else set(only))


def final_snapshot(run_dir: pathlib.Path) -> pathlib.Path:
    """The snapshot a learner saved last (``"final": true``, else the most CPU-seconds)."""
    found = snapshots(run_dir)
    if not found:
        raise TrainingError(f"{run_dir}: the learner saved no policy")
    final = [s for s in found if s[3]]
    return (final or found)[-1][0]


def snapshots(run_dir: pathlib.Path) -> list[tuple[pathlib.Path, float, int, bool]]:
    """The policy files in ``run_dir`` whose ``training`` record has
    ``cpu_seconds`` and ``steps``: (path, CPU-seconds, steps, final), by CPU-seconds."""
    found = []
    for path in sorted(run_dir.glob("policy_*.json")):
        try:
            training = json.loads(path.read_text()).get("training") or {}
            cpu, steps = float(training["cpu_seconds"]), int(training["steps"])
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            continue  # (not a policy with a training record: no point of the curve)
        if math.isfinite(cpu):
            found.append((path, cpu, steps, training.get("final") is True))
    return sorted(found, key=lambda s: (s[1], s[2]))


class Pool:
    """The reference pool of one game and the deals it is rated on: the
    pool's own pairs are played once, then each agent against each member."""

    def __init__(self, game: str, deals: int, batch: int, seed: int = EVAL_SEED):
        from .policy import one_torch_thread

        one_torch_thread()  # the baseline plays small batches: torch's threads only contend for shared cores
        self.game, self.deals, self.batch, self.seed = game, deals, batch, seed
        try:
            self.makers = {name: agent_factory(game, name) for name in POOL}
        except AgentSpecError as e:
            raise CompareError(f"{game} has no reference pool ({', '.join(POOL)}): {e}") from None
        self._records: list | None = None

    def _play(self, a: Any, b: Any, names: list[str]) -> Any:
        return play_duplicate(self.game, [a, b], self.deals, self.seed, batch=self.batch, names=names)

    def records(self) -> list:
        """The pool's own pairs (played once, on first use)."""
        if self._records is None:
            pairs = [(i, j) for i in range(len(POOL)) for j in range(i + 1, len(POOL))]
            self._records = [
                self._play(self.makers[POOL[i]](agent_seed(self.seed, (i, j), 0)),
                           self.makers[POOL[j]](agent_seed(self.seed, (i, j), 1)), [POOL[i], POOL[j]])
                for i, j in pairs
            ]  # fmt: skip
        return self._records

    def score(self, agent: Any) -> dict[str, float]:
        """``agent``'s rule-normalised score (its rating over the rule
        agent's, fitted with the pool's), its rating and the rule agent's."""
        records = list(self.records())
        for k, name in enumerate(POOL):
            records.append(
                self._play(agent, self.makers[name](agent_seed(self.seed, (k, len(POOL)), 1)), [CANDIDATE, name])
            )
        names = [*POOL, CANDIDATE]
        rating = {r.name: r.rating for r in rate_records(records, names, resamples=1, seed=self.seed)}
        if not rating["rule"] > 0:
            raise CompareError(
                f"{self.game}: the rule agent did not rate above random over {self.deals} deals "
                "(no scale to normalise by): give more --deals"
            )
        forfeits = int(sum(r.forfeited()[0] for r in records[-len(POOL) :]))
        return {"score": rating[CANDIDATE] / rating["rule"], "rating": rating[CANDIDATE], "rule_rating": rating["rule"],
                "forfeits": forfeits}  # fmt: skip

    def curve(self, run_dir: pathlib.Path, most: int) -> list[dict[str, float]]:
        """Scores of at most ``most`` of the run's snapshots, spread over it (the last always)."""
        from .mlp import MLPAgent

        found = snapshots(run_dir)
        if len(found) > most:
            step = (len(found) - 1) / (most - 1) if most > 1 else 0
            found = [found[len(found) - 1 - round(k * step)] for k in range(most)][::-1]
        points = []
        for path, cpu, steps, _ in found:
            try:
                agent = MLPAgent.load(path, game=self.game)
            except ValueError:
                continue  # (a policy of another game or shape: not this run's curve)
            points.append({"cpu_minutes": cpu / 60, "steps": steps, "score": self.score(agent)["score"]})
        return points


def _cpu_seconds() -> float:
    """CPU-seconds of this process and the children it waited for."""
    t = os.times()
    return time.process_time() + t.children_user + t.children_system


def train_run(
    fn: Algorithm, spec: str, game: str, seed: int, cpu_minutes: float, run_dir: pathlib.Path
) -> tuple[Any, float]:
    """Train once: the agent it returned, checked to play ``game``
    (TrainingError otherwise), and the CPU-minutes it took."""
    start = _cpu_seconds()
    try:
        made = fn(game, seed, cpu_minutes, str(run_dir))
        agent = as_agent(made, spec)
        check_agent(game, agent, spec)
    except (KeyboardInterrupt, TrainingError):
        raise
    except Exception as e:  # noqa: BLE001 (whatever the algorithm raises or returns)
        raise TrainingError(f"algorithm {spec} on {game}, seed {seed}: {type(e).__name__}: {cut(e)}") from None
    return agent, (_cpu_seconds() - start) / 60


def settings(
    algorithms: Sequence[str],
    games: Sequence[str],
    seeds: int,
    cpu_minutes: float,
    deals: int,
    batch: int,
    reps: int,
    curve_points: int,
) -> dict[str, Any]:
    """The comparison's settings, checked (CompareError naming the option)."""
    algorithms, games = list(algorithms), list(games)
    for what, items in (("--algorithms", algorithms), ("--games", games)):
        if not items or not all(isinstance(x, str) and x for x in items):
            raise CompareError(f"{what} must name at least one, got {show(items)}")
        if len(set(items)) != len(items):
            raise CompareError(f"{what} lists one twice: {show(items, 300)}")
    unknown = [g for g in games if g not in GAMES]
    if unknown:
        raise CompareError(f"unknown game {unknown[0]!r}: use one of {', '.join(GAMES)}")
    if not is_int(seeds) or not 1 <= seeds <= MAX_SEEDS:
        raise CompareError(f"--seeds must be at least 1 and at most {MAX_SEEDS}, got {kind(seeds)} {show(seeds)}")
    if isinstance(cpu_minutes, bool) or not isinstance(cpu_minutes, (int, float)) or not 0 < cpu_minutes < math.inf:
        raise CompareError(f"--cpu-minutes must be a positive number of minutes, got {show(cpu_minutes)}")
    try:
        numbers = {"deals": bounded(deals, "--deals", "deals"), "batch": bounded(batch, "--batch", "batch")}
        numbers["reps"] = bounded(reps, "--reps", "resamples")
    except ValueError as e:
        raise CompareError(str(e)) from None
    if not is_int(curve_points) or not 0 <= curve_points <= MAX_CURVE_POINTS:
        raise CompareError(
            f"--curve-points must be at least 0 and at most {MAX_CURVE_POINTS}, got {show(curve_points)}"
        )
    numbers["curve_points"] = curve_points
    return {"algorithms": algorithms, "games": games, "seeds": seeds, "cpu_minutes": float(cpu_minutes), **numbers,
            "pool": list(POOL), "eval_seed": EVAL_SEED}  # fmt: skip


def check_out(out: pathlib.Path) -> None:
    """CompareError unless ``out`` can hold a comparison: a folder (or a new
    one) where files can be made, empty or holding a comparison already."""
    above = out
    while not (above.exists() or above.is_symlink()) and above != above.parent:
        above = above.parent
    if not above.is_dir() or above.is_symlink() and above == out:
        raise CompareError(f"--out {out} cannot be a folder: {above} is not a folder")
    try:  # (root may write where the permissions say no: ask the file system itself)
        probe = pathlib.Path(__import__("tempfile").mkdtemp(prefix=".cardenvs-compare-", dir=above))
        probe.rmdir()
    except OSError as e:
        raise CompareError(f"--out {out}: cannot write in {above}: {e.strerror or e}") from None
    if above == out and any(out.iterdir()) and not (out / RESULTS).is_file():
        raise CompareError(f"--out {out} holds other files and no {RESULTS}: choose a new folder")


def finished_runs(out: pathlib.Path, wanted: dict[str, Any]) -> list[dict]:
    """The finished runs recorded in ``out``'s results (none if there are
    none yet); CompareError if they are another comparison's, naming the
    setting that differs, or not a file this library writes."""
    file = out / RESULTS
    if not (file.exists() or file.is_symlink()):
        return []
    if file.is_symlink():
        raise CompareError(f"{file} is a link: a comparison's folder holds its own files")
    try:
        doc = read_json(file, MAX_RESULTS)[1]
    except ValueError as e:
        raise CompareError(str(e)) from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("version") != VERSION:
        raise CompareError(f"{file} is not a comparison of this cardenvs ({FORMAT!r}, version {VERSION})")
    for key, option in IDENTITY.items():
        if doc.get("settings", {}).get(key) != wanted[key]:
            was = show(doc.get("settings", {}).get(key), 200)
            raise CompareError(
                f"--out {out} holds a comparison with {option} {was}, not {show(wanted[key], 200)}: "
                "resume it with the same settings, or choose another --out"
            )
    return _checked_runs(doc.get("runs"), wanted, file)


def _checked_runs(runs: Any, wanted: dict[str, Any], file: pathlib.Path) -> list[dict]:
    """The recorded runs, each one of this comparison's, once, with a finite score."""
    if not isinstance(runs, list):
        raise CompareError(f"{file}: 'runs' must be a list")
    seen = set()
    for run in runs:
        ok = (
            isinstance(run, dict)
            and run.get("algorithm") in wanted["algorithms"]
            and run.get("game") in wanted["games"]
        )
        ok = ok and is_int(run.get("seed")) and 0 <= run["seed"] < wanted["seeds"]
        ok = ok and isinstance(run.get("score"), (int, float)) and math.isfinite(run["score"])
        key = (run.get("algorithm"), run.get("game"), run.get("seed")) if isinstance(run, dict) else None
        if not ok or key in seen:
            raise CompareError(f"{file}: a run that is not one of this comparison's (or twice): {show(run, 200)}")
        seen.add(key)
    return runs


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


def _resolved(wanted: dict[str, Any]) -> tuple[dict[str, Algorithm], list[dict[str, str]]]:
    """Each algorithm's training function, and the algorithm x game cells
    that are not applicable (a learner on a game it does not train);
    CompareError if an algorithm cannot be had or trains none of the games."""
    if importlib.util.find_spec("rliable") is None:
        raise CompareError("the statistics need rliable: pip install rliable (the dev extra)")
    found, not_applicable = {}, []
    for spec in wanted["algorithms"]:
        fn, only = algorithm(spec)
        unfit = [g for g in wanted["games"] if only is not None and g not in only]
        if len(unfit) == len(wanted["games"]):
            raise CompareError(f"the learner {spec} does not train {unfit[0]}: it trains {', '.join(sorted(only))}")
        not_applicable += [{"algorithm": spec, "game": g, "reason": f"{spec} does not train {g}"} for g in unfit]
        found[spec] = fn
    return found, not_applicable


def compare(
    algorithms: Sequence[str],
    games: Sequence[str],
    seeds: int,
    cpu_minutes: float,
    out: str | pathlib.Path,
    deals: int = 100,
    batch: int = 64,
    reps: int = 2000,
    curve_points: int = 8,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Train every algorithm (specs) on every game (registry names) with
    seeds ``0 .. seeds - 1``, each for ``cpu_minutes``, rate each result
    against the pool in ``deals`` duplicate deals (and at most
    ``curve_points`` of its snapshots, for the curves), and write
    ``out/compare.json`` (resuming what ``out`` holds) and the plots; returns
    the document.  ``progress(line)`` hears what trains and what it scored."""
    say = progress or (lambda line: None)
    wanted = settings(algorithms, games, seeds, cpu_minutes, deals, batch, reps, curve_points)
    fns, not_applicable = _resolved(wanted)
    pools = {game: Pool(game, wanted["deals"], wanted["batch"]) for game in wanted["games"]}
    out = pathlib.Path(out)
    check_out(out)
    done = finished_runs(out, wanted)  # (everything is checked before anything is written)
    from .. import __version__

    doc = {"format": FORMAT, "version": VERSION, "cardenvs": __version__, "settings": wanted, "complete": False}
    doc |= {"runs": done, "not_applicable": not_applicable, "aggregates": {}, "improvement": [], "plots": []}
    write(out, doc)
    for cell in not_applicable:
        say(f"compare: {cell['algorithm']} on {cell['game']}: not applicable ({cell['reason']})")
    have = {(r["algorithm"], r["game"], r["seed"]) for r in done}
    skip = {(c["algorithm"], c["game"]) for c in not_applicable}
    todo = [(a, g, s) for a in wanted["algorithms"] for g in wanted["games"] for s in range(wanted["seeds"])]
    todo = [key for key in todo if key[:2] not in skip]
    if have:
        say(f"compare: resuming {out}: {len(have)} of {len(todo)} runs finished")
    todo = [key for key in todo if key not in have]
    for k, key in enumerate(todo):
        where = f"[{len(have) + k + 1}/{len(have) + len(todo)}]"
        doc["runs"].append(one_run(out, wanted, fns[key[0]], pools[key[1]], key, where, say))
        write(out, doc)
    order = {key: i for i, key in enumerate(itertools.product(wanted["algorithms"], wanted["games"], range(seeds)))}
    doc["runs"].sort(key=lambda r: order[(r["algorithm"], r["game"], r["seed"])])
    from .compare_stats import summarise

    summarise(doc, out)
    doc["complete"] = True
    write(out, doc)
    return doc


def run_folder(out: pathlib.Path, wanted: dict[str, Any], spec: str, game: str, seed: int) -> pathlib.Path:
    """Where a run trains: ``out/runs/<i>-<spec>/<game>/seed-<seed>`` (the
    algorithm's place in the list keeps two specs apart once made file names)."""
    name = re.sub(r"[^\w.-]", "_", spec)
    return out / "runs" / f"{wanted['algorithms'].index(spec)}-{name}" / game / f"seed-{seed}"


def one_run(
    out: pathlib.Path,
    wanted: dict[str, Any],
    fn: Algorithm,
    pool: Pool,
    key: tuple[str, str, int],
    where: str,
    say: Callable[[str], None],
) -> dict[str, Any]:
    """Train one algorithm on one game with one seed in a fresh folder; its
    run record: the final score (and ratings, forfeits), the CPU-minutes it
    took, and its snapshots' curve."""
    spec, game, seed = key
    run_dir = run_folder(out, wanted, spec, game, seed)
    where = f"{where} {spec} on {game}, seed {seed}"
    say(f"compare: {where}: training for {wanted['cpu_minutes']:g} CPU-minutes in {run_dir}")
    fresh_dir(out, run_dir)
    agent, used = train_run(fn, spec, game, seed, wanted["cpu_minutes"], run_dir)
    result = pool.score(agent)
    run = {"algorithm": spec, "game": game, "seed": seed, **result, "cpu_minutes_used": used}
    run["curve"] = pool.curve(run_dir, wanted["curve_points"]) if wanted["curve_points"] else []
    rating, rule = result["rating"], result["rule_rating"]
    say(f"compare: {where}: score {result['score']:+.3f} (rating {rating:+.0f}, the rule agent {rule:+.0f})")
    return run


def write(out: pathlib.Path, doc: dict) -> None:
    """Write ``out/compare.json`` whole (CompareError if it cannot be)."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        _replace(out / RESULTS, (json.dumps(doc, indent=1) + "\n").encode())
    except OSError as e:
        raise CompareError(f"--out {out}: cannot write there: {e.strerror or e}") from None
