"""Leagues: every pair of a pool of agents played in duplicate
(:mod:`.duplicate`), rated together (:mod:`.ratings`), written as
``league.json``, ``league.md`` and ``league.png`` (docs/arena.md has the
schema).

Rate your own agent in three lines::

    from cardenvs.evaluation.leagues import league
    result = league("pepper_v0", {"mine": MyAgent(), "rule": "rule", "random": "random"}, deals=200)
    print(result)

Every pair plays the same deals (the run's seed and batch key them), each
agent made afresh for each pair from a seed of that pair (a spec's agents;
an agent given as an instance is used as it is), so a pair's games replay
exactly whatever ran before them; an agent that takes the match's common
random numbers (``act_streams``, as ``random``) draws from the streams of
the deal and seat instead (:mod:`.duplicate`), the same in every pair.  With ``out=DIR`` the run is recorded as
it goes: ``DIR/arena.json`` (what is being run) when it starts,
``DIR/pairs/<i>-<j>.json`` (the pair's games) as each pair finishes, the
league files at the end -- and when it is interrupted (KeyboardInterrupt),
from the pairs that finished (``"complete": false``);
``resume=True`` loads the finished pairs of ``DIR`` and plays the rest.
The manifest records each agent's name and spec (null for an object), the
run's numbers and the sha256 of each finished pair file; resuming checks
every file against the run and the agents given against the recorded ones
before anything is played or written (:mod:`.run_dir`), and never makes an
agent from the folder.
"""

from __future__ import annotations

import itertools
import json
import pathlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..agents.adaptor import Policy, as_agent
from ..agents.specs import agent_factory
from ..core.agent import Agent
from ..registry import spec as game_spec
from .duplicate import (
    ENDS,
    AgentError,
    DuplicateRecord,
    ends_text,
    free_for_all,
    is_reference,
    pair_seatings,
    play_duplicate,
    summarise_pair,
)
from .duplicate_play import check_agent
from .ratings import HELD_NOTE, Rating, anchor_index, held_mark, rate_records
from .run_dir import FORMAT, VERSION, RunDir, bounded, check_agents, game_rules
from .run_dir import MANIFEST as MANIFEST
from .run_dir import PAIRS as PAIRS
from .run_dir import RunDirError as RunDirError

#: what a pair's mean measures (:func:`~.duplicate.pair_values`)
MEASURE = "win share of a less b's, per deal, averaged over the seatings"


@dataclass
class LeagueResult:
    """A league: its ratings (Elo-like, anchored, 95% bootstrap intervals)
    and its pairs' duplicate results; :meth:`to_json` is league.json."""

    game: str
    config: dict
    seed: int
    deals: int
    batch: int
    names: list[str]
    specs: list[str | None]
    ratings: list[Rating]
    pairs: list[dict]
    forfeits: list[int]
    complete: bool = True
    anchor: str = ""
    pairs_total: int = 0
    records: list[DuplicateRecord] = field(default_factory=list, repr=False)
    written: list[str] = field(default_factory=list)  # what :meth:`save` wrote (or skipped, and why)
    #: what the ratings rest on (:func:`field_text`): two sides, or each learner alone in a reference field
    protocol: str = ""
    #: the pairs a free-for-all league does not play (two learners), with why
    not_played: list[dict] = field(default_factory=list)
    #: how each agent's games ended (won, lost, drawn, truncated), over every pair it played
    ends: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        """The league.json document (see docs/arena.md)."""
        from .. import __version__

        agents = []
        ends = self.ends or [dict.fromkeys(ENDS, 0) for _ in self.ratings]
        for r, spec, lost, ended in zip(self.ratings, self.specs, self.forfeits, ends):
            played = r.games > 0
            agents.append(
                {
                    "name": r.name,
                    "spec": spec,
                    "rating": r.rating if played else None,
                    "low": r.low if played else None,
                    "high": r.high if played else None,
                    "held": r.held if played else "",
                    "games": r.games,
                    "forfeits": lost,
                    "ends": ended,
                }
            )
        return {
            "game": self.game,
            "config": self.config,
            "seed": self.seed,
            "deals": self.deals,
            "batch": self.batch,
            "anchor": self.anchor,
            "measure": MEASURE,
            "protocol": self.protocol,
            "complete": self.complete,
            "pairs_done": len(self.pairs),
            "pairs_total": self.pairs_total,
            "cardenvs": __version__,
            "agents": agents,
            "pairs": self.pairs,
            "not_played": self.not_played,
        }

    def table(self) -> str:
        """The league table and the pairs, as markdown."""
        order = sorted(
            range(len(self.ratings)), key=lambda i: -self.ratings[i].rating if self.ratings[i].games else 1e18
        )
        lines = ["| agent | rating | 95% interval | games | won-lost-drawn | forfeits |"]
        lines.append("| --- | ---: | --- | ---: | --- | ---: |")
        ends = self.ends or [dict.fromkeys(ENDS, 0) for _ in self.ratings]
        for i in order:
            r = self.ratings[i]
            if not r.games:
                lines.append(f"| {r.name} | - | - | 0 | - | 0 |")
                continue
            lines.append(
                f"| {r.name} | {r.rating:+.0f}{held_mark(r.held)} | [{r.low:+.0f}, {r.high:+.0f}] | {r.games} | "
                f"{ends_text([ends[i][k] for k in ENDS])} | {self.forfeits[i]} |"
            )
        if any(r.held and r.games for r in self.ratings):
            lines += ["", HELD_NOTE]
        lines += [
            "",
            "| a | b | a's edge | 95% interval | deals | forfeits (a, b) |",
            "| --- | --- | ---: | --- | ---: | --- |",
        ]
        for p in self.pairs:
            low, high = p["low"], p["high"]
            lines.append(
                f"| {p['a']} | {p['b']} | {p['mean']:+.3f} | [{low:+.3f}, {high:+.3f}] | {p['deals']} | "
                f"{p['forfeits'][0]}, {p['forfeits'][1]} |"
            )
        lines += ["", f"Who met whom: {self.protocol}" if self.protocol else ""]
        lines += [f"Not played: {p['a']} and {p['b']} ({p['why']})" for p in self.not_played]
        return "\n".join(lines).rstrip()

    def __str__(self) -> str:
        return self.table()

    def markdown(self) -> str:
        """league.md: a title, what the numbers are, the tables."""
        state = "" if self.complete else f" (interrupted: {len(self.pairs)} of {self.pairs_total} pairs)"
        return (
            f"# League: {self.game}{state}\n\n"
            f"Config {json.dumps(self.config)}, seed {self.seed}, {self.deals} duplicate deals per pair "
            f"(batch {self.batch}).\n\n"
            f"Ratings: Bradley-Terry / Plackett-Luce on finishing orders, 400 points = 10:1 odds, "
            f"{self.anchor} = 0, 95% bootstrap intervals over deals. A pair's edge: {MEASURE}, "
            "with its 95% paired t interval (0: even; 1: a always wins).\n\n" + self.table() + "\n"
        )

    def save(self, out: str | pathlib.Path) -> list[str]:
        """Write league.json, league.md and league.png into ``out``; returns what was written (or skipped, why)."""
        out = pathlib.Path(out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "league.json").write_text(json.dumps(self.to_json(), indent=1) + "\n")
        (out / "league.md").write_text(self.markdown())
        notes = [str(out / "league.json"), str(out / "league.md")]
        notes.append(plot_ratings(self, out / "league.png"))
        self.written = notes
        return notes


def plot_ratings(result: LeagueResult, path: pathlib.Path) -> str:
    """Draw the ratings with their interval bars into ``path`` (matplotlib,
    the train extra); returns the path, or why it was skipped."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        return f"{path} skipped: matplotlib is not installed (pip install 'cardenvs[train]')"
    rated = sorted((r for r in result.ratings if r.games), key=lambda r: r.rating)
    fig = Figure(figsize=(6, 1 + 0.5 * max(len(rated), 1)))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    y = np.arange(len(rated))
    x = np.array([r.rating for r in rated])
    err = np.array([[r.rating - r.low for r in rated], [r.high - r.rating for r in rated]]).reshape(2, -1)
    ax.errorbar(x, y, xerr=err, fmt="none", capsize=4)
    held = np.array([bool(r.held) for r in rated], bool)
    ax.plot(x[~held], y[~held], "o", color="C0")
    if held.any():
        ax.plot(x[held], y[held], "o", mfc="white", color="C0", label="held by the prior (a bound)")
        ax.legend(fontsize=8)
    ax.set_yticks(y, [r.name for r in rated])
    ax.axvline(0, color="grey", linewidth=0.5)
    ax.set_xlabel(f"rating ({result.anchor} = 0; 95% bootstrap interval)")
    ax.set_title(f"{result.game}: {result.deals} duplicate deals per pair")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return str(path)


def _factories(game: str, agents: Mapping[str, Any] | Sequence[Any], config: dict):
    """Names, specs (None for objects) and ``make(seed)`` of each agent."""
    items = list(agents.items()) if isinstance(agents, Mapping) else [(None, a) for a in agents]
    names, specs, makers = [], [], []
    for i, (name, agent) in enumerate(items):
        if isinstance(agent, str):
            make: Callable[[int], Agent] = agent_factory(game, agent, config)
            specs.append(agent)
        else:
            made = as_agent(agent, name)
            make = lambda seed, made=made: made  # noqa: E731 (an instance: used as it is)
            specs.append(None)
        names.append(str(name if name is not None else agent if isinstance(agent, str) else getattr(made, "name", i)))
        makers.append(make)
    if len(set(names)) != len(names):
        raise ValueError(f"agent names must differ, got {names}")
    if len(names) < 2:
        raise ValueError(f"a league needs at least two agents, got {names}")
    check_agents(names, specs)  # (what a manifest may hold: a run can be resumed)
    reference = []
    for name, make in zip(names, makers):  # an agent for another game's actions: refused before anything is played
        made = make(0)
        check_agent(game, made, name, **config)
        reference.append(is_reference(made))
    return names, specs, makers, reference


def pair_plan(rules: Any, names: Sequence[str], reference: Sequence[bool]) -> dict[tuple[int, int], np.ndarray]:
    """The pairs a league plays and their seatings (:func:`~.duplicate.pair_seatings`):
    every pair in a game of two sides; in a free-for-all game only the pairs
    with a reference agent, so that no rating rests on a table holding
    copies of a rated learner.  ValueError when an agent would meet none."""
    plan = {}
    for i, j in itertools.combinations(range(len(names)), 2):
        table = pair_seatings(rules, reference[i], reference[j])
        if table is not None:
            plan[(i, j)] = table
    alone = [names[k] for k in range(len(names)) if not any(k in pair for pair in plan)]
    if alone:
        raise ValueError(
            f"{rules.name} is free-for-all: an agent is rated alone among copies of a reference agent (random, rule, "
            f"lowest, highest, rule:noise=P), never at a table with copies of a learner; {', '.join(alone)} would "
            "meet none: add 'rule' or 'random' to the league"
        )
    return plan


def field_text(rules: Any, names: Sequence[str], reference: Sequence[bool]) -> str:
    """What the league's ratings rest on, for its tables."""
    if not free_for_all(rules):
        return "two sides: each agent holds each side's cards against the other agent"
    field = ", ".join(n for n, r in zip(names, reference) if r)
    return (
        f"free-for-all: each learner alone among copies of a reference agent ({field}), seats rotated; "
        "reference agents also each alone among the other; two learners never meet (a table with copies of a "
        "rated agent would credit it for its copies)"
    )


def agent_seed(seed: int, pair: tuple[int, int], agent: int) -> int:
    """The seed an agent is made with for a pair (its randomness: its own, replayable)."""
    words = np.random.SeedSequence([int(seed) & (2**63 - 1), 0xA6E27, *pair, agent]).generate_state(2, np.uint32)
    return int(words[0]) << 31 | int(words[1]) >> 1


def league(
    game: str,
    agents: Mapping[str, Policy | str] | Sequence[Policy | str],
    deals: int = 100,
    seed: int = 0,
    out: str | pathlib.Path | None = None,
    resume: bool = False,
    batch: int = 64,
    strict: bool = False,
    resamples: int = 1000,
    progress: Callable[[int, int], None] | None = None,
    **config: Any,
) -> LeagueResult:
    """Play every pair of ``agents`` (a name -> agent mapping, or a list of
    specs; an agent is a spec string, see :mod:`cardenvs.agents.specs`, an :class:`Agent`
    or a policy function) in ``deals`` duplicate deals of ``game`` and rate
    them together (module docstring).  ``progress(games_done, games)``."""
    game_spec(game)  # (ValueError naming the games)
    deals, seed = bounded(deals, "deals", "deals"), bounded(seed, "seed", "seed")
    batch, resamples = bounded(batch, "batch", "batch"), bounded(resamples, "resamples", "resamples")
    rules = game_rules(game, config)  # (a bad config: ValueError)
    names, specs, makers, reference = _factories(game, agents, config)
    plan = pair_plan(rules, names, reference)
    pairs = list(plan)
    manifest = {"format": FORMAT, "version": VERSION, "game": game, "config": config, "seed": seed, "deals": deals}
    manifest |= {"batch": batch, "agents": names, "specs": specs}  # (specs: how to make them; names: labels)
    manifest |= {"reference": reference}  # (which agents make a field: the seatings of each pair)
    run = RunDir(out, manifest, rules) if out is not None else None
    finished = run.check(resume) if run is not None else {}  # (every file checked before anything is written)
    if run is not None:
        run.start()
    records: dict[tuple[int, int], DuplicateRecord] = {}
    numbers = (seed, deals, batch)
    total = sum(len(table) for table in plan.values()) * deals
    try:
        for i, j in pairs:
            record = finished.get((i, j))
            if record is None:
                a, b = makers[i](agent_seed(seed, (i, j), 0)), makers[j](agent_seed(seed, (i, j), 1))
                before = sum(len(plan[pair]) for pair in records) * deals

                def tick(done: int, _: int, before: int = before) -> None:
                    if progress is not None:
                        progress(before + done, total)

                record = play_duplicate(
                    game, [a, b], deals, seed, plan[(i, j)], batch, strict, False, tick, [names[i], names[j]], **config
                )
                if run is not None:
                    run.save(i, j, record)
            elif progress is not None:  # (a pair played reported its own games as they finished)
                progress(sum(len(plan[pair]) for pair in [*records, (i, j)]) * deals, total)
            records[(i, j)] = record
    except (KeyboardInterrupt, AgentError):  # (keep what finished, then stop)
        if run is not None:
            _result(game, config, numbers, names, specs, records, plan, resamples, reference).save(run.path)
        raise
    result = _result(game, config, numbers, names, specs, records, plan, resamples, reference)
    if run is not None:
        result.save(run.path)
    return result


def _result(game, config, numbers, names, specs, records, plan, resamples, reference) -> LeagueResult:
    """The :class:`LeagueResult` of the finished pairs ``records`` of the
    ``plan`` (``numbers``: the run's seed, deals and batch)."""
    seed, deals, batch = numbers
    done = list(records.values())
    forfeits = np.zeros(len(names), np.int64)
    ends = np.zeros((len(names), len(ENDS)), np.int64)
    for (i, j), record in records.items():
        forfeits[[i, j]] += record.forfeited()
        ends[[i, j]] += record.ends()
    if done:
        ratings = rate_records(done, names, resamples=resamples, seed=seed)
    else:
        ratings = [Rating(n, 0.0, 0.0, 0.0, 0) for n in names]
    pair_rows = []
    for record in done:
        p = summarise_pair(record)
        row = asdict(p)
        row["forfeits"], row["ends"] = list(p.forfeits), [dict(zip(ENDS, e)) for e in p.ends]
        del row["measure"]
        pair_rows.append(row)
    rules = game_rules(game, config)
    skipped = [
        {"a": names[i], "b": names[j], "why": "two learners in a free-for-all game: no field without copies of one"}
        for i, j in itertools.combinations(range(len(names)), 2)
        if (i, j) not in plan
    ]
    anchor = names[anchor_index(names)]
    result = LeagueResult(
        game, config, seed, deals, batch, names, specs, ratings, pair_rows, [int(f) for f in forfeits],
        len(done) == len(plan), anchor, len(plan), done,
    )  # fmt: skip
    result.protocol, result.not_played = field_text(rules, names, reference), skipped
    result.ends = [dict(zip(ENDS, (int(x) for x in e))) for e in ends]
    return result
