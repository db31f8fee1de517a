"""What ``make results`` runs: every benchmark behind ``docs/results.md``,
with its quick and its full command, and the results files it writes.

One list, read by ``tools/make_results.py`` (which runs it) and by
``tools/gen_results.py`` (which names the command of a table not measured
yet).  Each job is a command as a user types it from the repository's root.

- A *quick* job has a shorter command for ``make results`` (its ``budget``
  says what it measures less of) and its full one for ``make results
  FULL=1``; a job whose one command is short enough runs in both.
- A *long* job (training seeds, PIMC matches, the reference table) runs only
  with ``FULL=1``; without it, its table is re-rendered from the file its
  last run wrote, with that run's commit and date.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The games trained from scratch, with each one's strongest-agent matches:
#: (deals, deal seed) of ``best`` against PIMC-32 (None: the game names no best)
#: and of ``scratch`` against the rule agent, on deal seeds used for nothing else.
SCRATCH_GAMES: dict[str, tuple[tuple[int, int] | None, tuple[int, int]]] = {
    "pepper_v0": ((100, 4_200_000), (100, 6_100_000)),
    "cancellation_hearts_v0": ((80, 7_200_000), (100, 5_300_000)),
    "push_v0": ((60, 8_300_000), (200, 8_200_000)),
    "spit_v0": (None, (400, 7_500_000)),
}
SEEDS = (1, 2, 3)  # the training seeds of every from-scratch game


@dataclass(frozen=True)
class Job:
    """One command of the plan; ``outputs``: the files it writes under
    ``benchmarks/results/`` (none for a training run, whose folder is under ``runs/``)."""

    name: str
    full: tuple[str, ...]
    quick: tuple[str, ...] | None = None  # None: long, FULL=1 only
    budget: str | None = None  # quick: what it measures less of than the full command
    outputs: tuple[str, ...] = ()
    same: bool = False  # the one command runs in quick mode too (it is short)
    after: tuple[str, ...] = ()  # the jobs whose runs it reads (training runs under runs/)

    @property
    def long(self) -> bool:
        return self.quick is None and not self.same

    def command(self, full: bool) -> tuple[str, ...] | None:
        """The command for a quick (``full=False``) or a full ``make results``; None: not run."""
        if full or self.same:
            return self.full
        return self.quick

    def mode(self, full: bool) -> str:
        """How the run is recorded: quick only when it ran its quick command."""
        return "quick" if not full and not self.same and self.quick else "full"


def _quick(name: str, quick: str, full: str, budget: str, *outputs: str) -> Job:
    return Job(name, tuple(full.split()), tuple(quick.split()), budget, outputs or (f"{name}.json",))


def _short(name: str, command: str, *outputs: str) -> Job:
    return Job(name, tuple(command.split()), outputs=outputs or (f"{name}.json",), same=True)


def _long(name: str, command: str | list[str], *outputs: str, after: tuple[str, ...] = ()) -> Job:
    return Job(name, tuple(command.split() if isinstance(command, str) else command), outputs=outputs, after=after)


EVALUATION = "--seed 20261201 --games-for pepper_v0=1000,spit_v0=1000,push_v0=300,cancellation_hearts_v0=300"

QUICK: list[Job] = [
    _quick(
        "throughput",
        "benchmarks/throughput.py --quick --batches 1,64,1024,4096 --cpu --json",
        "benchmarks/throughput.py --cpu --json",
        "0.5 CPU-s a measurement (full: 3 CPU-s)",
    ),
    _quick(
        "single_game",
        "benchmarks/single_game.py --cpu --seconds 0.3 --json",
        "benchmarks/single_game.py --cpu --json",
        "3 rounds of 0.3 CPU-s a measurement (full: 1 CPU-s)",
    ),
    _quick(
        "thread_scaling-threads",
        "benchmarks/thread_scaling.py --threads 1,2 --rng shared,per_game --seconds 1 --json",
        "benchmarks/thread_scaling.py --threads 1,2 --rng shared,per_game --json",
        "1 s a measurement (full: 3 s)",
    ),
    _quick(
        "thread_scaling-processes",
        "benchmarks/thread_scaling.py --processes 1,2 --seconds 1 --json",
        "benchmarks/thread_scaling.py --processes 1,2 --json",
        "1 s a measurement (full: 3 s)",
    ),
    _quick(
        "thread_scaling-ceiling",
        "benchmarks/thread_scaling.py --ceiling --seconds 1 --warm 200 --json",
        "benchmarks/thread_scaling.py --ceiling --json",
        "1 s a measurement after 200 warm-up steps (full: 3 s after 2,000)",
    ),
    _short("first_game", "benchmarks/first_game.py --json"),
    _quick(
        "first_use_at_scale",
        "benchmarks/first_game.py --at-scale --games pepper_v0 --steps 2000000 --pairs 1 --json",
        "benchmarks/first_game.py --at-scale --games pepper_v0 --json",
        "2M steps, one run of each mode and load (full: 10M steps, 3 each)",
    ),
    _quick(
        "first_use_kernels",
        "benchmarks/first_game.py --kernels --runs 1 --json",
        "benchmarks/first_game.py --kernels --json",
        "one cold run a game (full: the median of 3)",
    ),
    _quick(
        "agents",
        "benchmarks/agents.py --rows 1024 --json",
        "benchmarks/agents.py --json",
        "1,024 decision states (full: 4,096)",
    ),
    _quick(
        "training",
        "benchmarks/training.py --advice all --rollouts 1 --json",
        "benchmarks/training.py --advice all --json",
        "one timed rollout after the warm-up (full: 3)",
    ),
    _quick(
        "sampling",
        "benchmarks/sampling.py --shapes 256x32 --repeats 2 --openspiel-samples 500 --json",
        "benchmarks/sampling.py --json",
        "256 games x 32 worlds, best of 2 (full: also 1,024 x 64, best of 5)",
    ),
    _quick(
        "duplicate_luck",
        "benchmarks/duplicate_luck.py --scale 0.5 --json",
        "benchmarks/duplicate_luck.py --json",
        "half the deals (full: 1,024 of Pepper, 384 of Hearts)",
    ),
    _short("evaluation", f"examples/evaluate.py --all --rows ppo {EVALUATION} --json"),
    _quick(
        "template_speed",
        "benchmarks/template_speed.py --rounds 2 --seconds 1 --json",
        "benchmarks/template_speed.py --json",
        "2 rounds of 1 CPU-s (full: 5 of 2)",
    ),
]


def _pimc(game: str, games: int, seed: int, worlds: int, rollout: str, opponent: str = "rule") -> Job:
    name = f"pimc_match-{game}-{rollout}-vs-{opponent}"
    against = [] if opponent == "rule" else ["--opponent", opponent]
    command = f"benchmarks/pimc_match.py --game {game} --games {games} --seed {seed} --worlds {worlds}"
    return _long(name, [*command.split(), "--rollout", rollout, *against, "--json"], f"{name}.json")


def _scratch_jobs() -> list[Job]:
    """Each from-scratch game: its seeds trained, their curves rated, then
    its best, its committed scratch and each seed's final policy rated on
    deals used for nothing else."""
    jobs = []
    for game, (best, (deals, seed)) in SCRATCH_GAMES.items():
        runs = [f"runs/scratch_{game}_s{s}" for s in SEEDS]
        trained = tuple(f"retrain-{game}-s{s}" for s in SEEDS)
        jobs += [_long(t, f"examples/retrain_scratch.py --game {game} --seed {s}") for t, s in zip(trained, SEEDS)]
        every = " --every 300" if game == "pepper_v0" else ""  # (expert iteration saves a policy every round)
        curves = f"benchmarks/learning/curves.py --game {game} --runs {','.join(runs)} --deals 100{every}"
        name = f"learning_curves-{game}"
        jobs.append(_long(name, f"{curves} --out runs/curves-{game}.json --json", f"{name}.json", after=trained))
        strongest = "benchmarks/learning/strongest.py --game"
        if best:
            name = f"strongest-{game}-best"
            best_command = f"{strongest} {game} --agent best --deals {best[0]} --seed {best[1]} --json"
            jobs.append(_long(name, best_command, f"{name}.json"))
        scratch = f"{strongest} {game} --agent scratch --against rule --deals {deals} --seed {seed}"
        jobs.append(_long(f"strongest-{game}-scratch", f"{scratch} --json", f"strongest-{game}-scratch.json"))
        for s, run, training in zip(SEEDS, runs, trained):
            name = f"strongest-{game}-scratch-s{s}"
            command = f"{scratch} --policy {run} --label s{s} --json"
            jobs.append(_long(name, command, f"{name}.json", after=(training,)))
    return jobs


#: each game's ``scratch`` alone among rule agents, seats rotated, on deal seeds never used (the protocol of
#: docs/benchmark.md: a learned agent is judged alone among strangers, the trivial policy beside it)
OUTSIDER = {"pepper_v0": 300, "cancellation_hearts_v0": 300, "push_v0": 300, "spit_v0": 1000}
#: the deal seeds that differ from outsider.py's default (9,100,000): Spit's installed seed was chosen
#: among three training seeds on that one, and its search's discount on 8,300,000 and 8,400,000 after
#: 9,600,000 had measured the search without it, so it is measured on deals used for nothing else
OUTSIDER_SEED = {"spit_v0": 9_700_000}

LONG: list[Job] = [
    *(
        _long(
            f"outsider-{g}",
            f"benchmarks/learning/outsider.py --game {g} --agents scratch --games {n}"
            + (f" --seed {OUTSIDER_SEED[g]}" if g in OUTSIDER_SEED else "")
            + " --json",
            f"outsider-{g}.json",
        )
        for g, n in OUTSIDER.items()
    ),
    _long("duplicate_variance", "benchmarks/duplicate_variance.py --json", "duplicate_variance.json"),
    _long(
        "duplicate_variance-sampled",
        "benchmarks/duplicate_variance.py --pairs selfplay~-critic~ --games pepper,pepper_1hand,hearts_1hand,spit "
        "--json benchmarks/results/duplicate_variance-sampled.json",
        "duplicate_variance-sampled.json",
    ),
    _pimc("pepper_v0", 3000, 20261300, 64, "rule"),
    _pimc("pepper_v0", 400, 20261208, 64, "rule", "ppo"),
    _pimc("pepper_v0", 200, 20261204, 16, "ppo"),
    _pimc("cancellation_hearts_v0", 300, 20261301, 16, "rule"),
    _pimc("push_v0", 300, 20261302, 8, "rule"),
    _pimc("push_v0", 100, 20261208, 8, "rule", "ppo"),
    *_scratch_jobs(),
    _long(
        "compare_reference",
        "benchmarks/compare_reference.py --json",
        *(f"compare_reference-{part}.json" for part in ("aggregates", "pairs", *(f"games-{g}" for g in SCRATCH_GAMES))),
        "raw/compare_reference-runs.json",  # (the runs themselves: --resume-from restores them)
    ),
]

PLAN: list[Job] = QUICK + LONG


def written_by(output: str) -> Job | None:
    """The job of the plan that writes ``benchmarks/results/<output>``."""
    return next((job for job in PLAN if output in job.outputs), None)


def job(name: str) -> Job:
    return next(j for j in PLAN if j.name == name)


def shell(command: tuple[str, ...]) -> str:
    """``command`` as typed (``python ...``), quoted where the shell needs it."""
    import shlex

    return " ".join(shlex.quote(a) for a in ("python", *command))
