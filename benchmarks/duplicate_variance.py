"""The variance reduction of duplicate deals, measured (issue #31 item 4).

For each game and pair of agents (the committed PPO baseline against the
rule agent, the rule agent against random) the same number of deals is
played in three arms with :func:`cardenvs.evaluation.duplicate.play_duplicate`:

- **duplicate** (``dup``): every deal once per seating (the module's
  seatings: two for two sides, A alone at each seat and B alone at each
  seat in Cancellation Hearts), so each deal is S games on the same cards,
  with the match's common random numbers (``streams=True``, the default:
  the agents at a seat draw from the stream of that deal and seat in every
  copy);
- **duplicate, own generators** (``own``): the same, ``streams=False``,
  each agent drawing from its own generator (duplicate as it was before
  the streams).  Where no agent of the pair takes streams (the rule agent
  and the PPO baseline, which plays its most likely action, are
  deterministic) the two arms are the same games: it is played once and
  the table says "(same games)";
- **independent** (``indep``): ``independent=True``, the same seatings,
  but every game on a deal of its own (the control), own generators.

All arms have the same seatings, the same number of groups D ("deals")
and so the same games, D x S.  Each arm is summarised by the same
estimator: per group, :func:`~cardenvs.evaluation.duplicate.pair_values` (A's
result less B's, each its mean over the seats it held, averaged over the
S seatings), then a t interval over the D groups
(:func:`~cardenvs.evaluation.duplicate.paired_interval`).  The groups are
independent and alike in every arm (in the independent arm a group is S
games on S unrelated deals, numbered together by play_duplicate), so the
intervals are honest, and at the same D and S they use the same t
quantile: the ratio of games needed for the same width is
``(hw_indep / hw_dup) ** 2``, the ratio of the per-group variances.  Its
95% interval is a percentile bootstrap (the groups of each arm resampled
apart, ``--resamples`` times, seeded).  *alike* is the share of deals
whose copies all ended with the same scores seat by seat -- as on the deals
where the two agents' decisions never told the copies apart (in Spit, whose
score is the game won, it also counts the deals the same seat won in every
copy).

Pairs of stochastic agents (``--pairs selfplay~-critic~``): the two
learners of the committed league (``benchmarks/league/<game>/policies/``,
self-play PPO and the state critic) playing sampled (``greedy=False``),
drawing their Gumbel noise from the streams (:data:`SAMPLED`; Pepper,
Hearts and Spit have them).

Why the copies of a deal part (what this run shows with the others): the
rule agents and the greedy PPO baseline are deterministic, so a deal's
copies differ only where the two policies decide differently, and from
there on the game runs its own way.  With no chance after the deal
(Pepper's and Hearts' later hands are dealt alike in every copy) the
pair's per-deal value is a fixed function of the deal; no luck term
computed from the cards alone can cancel more of it than the seatings
already do (each agent holds every seat's cards, so any sum of per-seat
hand values drops out of A less B exactly).  Common random numbers only
act between stochastic agents (random, a sampling policy) at the same
seat, so they change nothing for these pairs; they make two copies of
alike stochastic agents play alike.

The measures (per deal, A less B):

- ``win``: the win share (1 alone first, 1/k for k sides tied first);
- ``score``: the final score.  Pepper: the team's game score (a one-hand
  game: the points of that hand); Cancellation Hearts and Push: minus the
  penalty points (Hearts' one-hand game: that hand's); Spit's score is
  the game won, the same as ``win``, so it is not listed apart;
- ``hand`` (Pepper to 30 points): the score per hand played (the copies
  of a deal meet the same hands, but may end after different numbers of them);
- ``place`` (games of more than two sides, Hearts): the share of the
  comparisons between A's seats and B's seats that A's seat finished
  ahead in (a tie half), as 2 x share - 1: what the ratings fit.

The games: Pepper 4p as the league plays it (to 30 points, at most 50
hands) and as a game of one hand (``max_hands=1``: each deal's outcome is
that deal's alone, as in duplicate bridge; the PPO baseline was trained on
one-hand games); Cancellation Hearts 6p as a game of one hand (a game to
150 points costs ~100x more: out of this budget); Push (its five rounds)
and Spit as they are.  Two diagnostic rows, the PPO pair only:
``hearts_halves``, the one-hand Hearts game seated in halves (A at seats
0, 2, 4 and B at 1, 3, 5, then swapped: not the module's seatings, and six
times the deals for the same games), and ``hearts_nopass``, the one-hand
game without the pass (``passing="none"``, another game: the pass is where
the copies of a deal part).  Last, Pepper at its other table sizes: two
players (``pepper_2p`` to 30 points, ``pepper_2p_1hand``), where each side
is one seat and the deal's luck is the larger share of the outcome, and
three (``pepper_3p_1hand``, A alone at each seat and B alone at each).
``--games`` picks among these rows.

    python benchmarks/duplicate_variance.py --json         # the committed run (~15-20 min on 2 loaded cores)
    python benchmarks/duplicate_variance.py --pairs selfplay~-critic~ --games pepper,pepper_1hand,hearts_1hand,spit \
        --json benchmarks/results/duplicate_variance-sampled.json   # stochastic agents: what the streams do
    python benchmarks/duplicate_variance.py --games pepper_1hand --scale 0.25
    python benchmarks/duplicate_variance.py --append       # also append the table to benchmarks/results.txt
"""

from __future__ import annotations

import argparse
import math
import os
import pathlib
import platform
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import report  # noqa: E402  (benchmarks/report.py: the commit and the machine of every results file)

from cardenvs.agents.registry import make_agent  # noqa: E402
from cardenvs.evaluation.duplicate import DuplicateRecord, pair_values, paired_interval, play_duplicate  # noqa: E402

#: the benchmark's own seed (used nowhere else in the repository)
SEED = 310431
RESULTS = ROOT / "benchmarks" / "results" / "duplicate_variance.json"
SUMMARY = ROOT / "benchmarks" / "results.txt"


@dataclass(frozen=True)
class Protocol:
    """A game as the benchmark plays it: ``deals`` per arm and pair at scale 1."""

    name: str
    game: str
    config: dict = field(default_factory=dict)
    deals: int = 256
    measures: tuple[str, ...] = ("win", "score")
    note: str = ""
    pairs: tuple[tuple[str, str], ...] | None = None  # None: every pair asked for
    seatings: tuple[tuple[int, ...], ...] | None = None  # None: the module's duplicate seatings


HEARTS_1HAND = {"num_players": 6, "max_hands": 1}
PROTOCOLS = (
    Protocol(
        "pepper",
        "pepper_v0",
        {"num_players": 4},
        192,
        ("win", "score", "hand"),
        "4p, to 30 points (at most 50 hands)",
    ),
    Protocol("pepper_1hand", "pepper_v0", {"num_players": 4, "max_hands": 1}, 1024, note="4p, a game of one hand"),
    Protocol(
        "hearts_1hand",
        "cancellation_hearts_v0",
        HEARTS_1HAND,
        256,
        ("win", "score", "place"),
        "6p, a game of one hand (passing left/right); the module's seatings: A alone at each seat, B alone at each",
    ),
    # diagnostics, the PPO pair only: the same games in halves (A at 0, 2, 4 and B at 1, 3, 5, then swapped:
    # 2 games a deal, so 6x the deals for the same games), and without the pass (another game: the pass is where
    # the copies part)
    Protocol(
        "hearts_halves",
        "cancellation_hearts_v0",
        HEARTS_1HAND,
        1536,
        ("win", "score", "place"),
        "as hearts_1hand, seatings in halves (not the module's): 2 games a deal",
        (("ppo", "rule"),),
        ((0, 1, 0, 1, 0, 1), (1, 0, 1, 0, 1, 0)),
    ),
    Protocol(
        "hearts_nopass",
        "cancellation_hearts_v0",
        {**HEARTS_1HAND, "passing": "none"},
        256,
        ("win", "score", "place"),
        "as hearts_1hand without the pass (passing='none': another game)",
        (("ppo", "rule"),),
    ),
    Protocol("push", "push_v0", {}, 40, note="rounds 1-5"),
    Protocol("spit", "spit_v0", {}, 192, ("win",), "score = the game won: the same as win"),
    # Pepper's other table sizes (last, so the rows above keep their seeds): two sides of one seat each, and three
    # seats rotated
    Protocol("pepper_2p", "pepper_v0", {"num_players": 2}, 192, ("win", "score", "hand"), "2p, to 30 points"),
    Protocol("pepper_2p_1hand", "pepper_v0", {"num_players": 2, "max_hands": 1}, 12288, note="2p, a game of one hand"),
    Protocol(
        "pepper_3p_1hand",
        "pepper_v0",
        {"num_players": 3, "max_hands": 1},
        1024,
        note="3p, a game of one hand; the module's seatings: A alone at each seat, B alone at each",
    ),
)
PAIRS = (("ppo", "rule"), ("rule", "random"))
#: learners of the committed league played sampling (``greedy=False``), for pairs of stochastic agents
#: (``--pairs selfplay~-critic~``): the snapshot in ``benchmarks/league/<game>/policies/<folder>/``
SAMPLED = {"selfplay~": "selfplay", "critic~": "state-critic"}


def make(game: str, spec: str, seed: int, config: dict):
    """An agent of the benchmark: a registry spec, or a sampled learner of :data:`SAMPLED`."""
    if spec not in SAMPLED:
        return make_agent(game, spec, seed=seed, **config)
    from cardenvs.agents.mlp import MLPAgent

    snapshots = sorted((ROOT / "benchmarks" / "league" / game / "policies" / SAMPLED[spec]).glob("policy_*.pt"))
    if not snapshots:
        raise SystemExit(f"no {SAMPLED[spec]} learner for {game} in benchmarks/league")
    return MLPAgent.load(snapshots[-1], game, greedy=False, seed=seed, name=spec, **config)


def half_width(values: np.ndarray) -> float:
    """The half-width of the 95% paired t interval of ``values``."""
    _, low, high = paired_interval(values)
    return (high - low) / 2


def games_ratio(hw_indep: float, hw_dup: float) -> float:
    """Games independent deals need for duplicate's width, over duplicate's
    games: ``(hw_indep / hw_dup) ** 2`` (both at the same games); nan when
    neither varies, inf when only the independent arm does."""
    if hw_dup == 0:
        return math.nan if hw_indep == 0 else math.inf
    return (hw_indep / hw_dup) ** 2


def ratio_interval(
    dup: np.ndarray, indep: np.ndarray, rng: np.random.Generator, resamples: int = 2000
) -> tuple[float, float]:
    """95% percentile bootstrap interval of var(indep) / var(dup): each
    arm's groups resampled with replacement, apart (the arms are independent)."""
    dup, indep = np.asarray(dup, np.float64), np.asarray(indep, np.float64)
    vd = dup[rng.integers(0, len(dup), (resamples, len(dup)))].var(axis=1, ddof=1)
    vi = indep[rng.integers(0, len(indep), (resamples, len(indep)))].var(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.where(vd > 0, vi / np.where(vd > 0, vd, 1), np.where(vi > 0, np.inf, np.nan))
    ratios = np.sort(ratios[~np.isnan(ratios)])
    if not len(ratios):
        return math.nan, math.nan
    # order statistics, not interpolation (a resample may give inf)
    low, high = (ratios[int(q * (len(ratios) - 1) + 0.5)] for q in (0.025, 0.975))
    return float(low), float(high)


def place_values(record: DuplicateRecord) -> np.ndarray:
    """Per deal ``(D,)``: the share of comparisons between a side of agent
    0 and a side of agent 1 that agent 0's side finished ahead in (a tie
    half), as 2 x share - 1, averaged over the seatings (each side once)."""
    ranks = record.ranks()  # (D, S, P)
    first = np.zeros(len(record.sides), bool)
    first[np.unique(record.sides, return_index=True)[1]] = True  # one seat per side
    per_seating = []
    for s, seating in enumerate(record.seatings):
        a, b = np.flatnonzero(first & (seating == 0)), np.flatnonzero(first & (seating == 1))
        ra, rb = ranks[:, s, a][:, :, None], ranks[:, s, b][:, None, :]
        share = ((ra < rb) + 0.5 * (ra == rb)).mean(axis=(1, 2))
        per_seating.append(2 * share - 1)
    return np.mean(per_seating, axis=0)


def measure_values(record: DuplicateRecord, measure: str) -> np.ndarray:
    """Per-deal values of ``measure``: ``win``, ``score`` or ``place``."""
    return place_values(record) if measure == "place" else pair_values(record, measure)


def compare(dup: np.ndarray, indep: np.ndarray, seatings: int, rng: np.random.Generator, resamples: int) -> dict:
    """One measure's figures from the per-deal values of both arms (equal lengths)."""
    if len(dup) != len(indep):
        raise ValueError(f"the arms must have the same deals, got {len(dup)} and {len(indep)}")
    hw_dup, hw_indep = half_width(dup), half_width(indep)
    low, high = ratio_interval(dup, indep, rng, resamples)
    mean = float(np.mean(dup))
    return {
        "deals": len(dup),
        "games": len(dup) * seatings,
        "dup_mean": mean,
        "dup_half_width": hw_dup,
        "indep_mean": float(np.mean(indep)),
        "indep_half_width": hw_indep,
        "games_ratio": games_ratio(hw_indep, hw_dup),
        "games_ratio_low": low,
        "games_ratio_high": high,
        # games for a duplicate interval of half-width |mean| (just excluding 0): compares the measures
        "dup_games_to_separate": len(dup) * seatings * (hw_dup / mean) ** 2 if mean else math.inf,
    }


def agent_seed(seed: int, *where: int) -> int:
    """An agent's own seed, from the run's seed and where it plays."""
    return int(np.random.SeedSequence([seed, *where]).generate_state(1)[0])


def copies_alike(record: DuplicateRecord) -> float:
    """The share of deals whose copies all ended with the same scores seat
    by seat (every copy the same game, as where the agents' decisions agree)."""
    return float((record.scores == record.scores[:, :1]).all(axis=(1, 2)).mean())


def takes_streams(agents: list) -> bool:
    """Whether any of ``agents`` decides from the match's common random numbers (``act_streams``)."""
    return any(hasattr(a, "act_streams") and not hasattr(a, "act_states") for a in agents)


def play_arms(protocol: Protocol, p: int, pair: tuple[str, str], deals: int, seed: int, batch: int) -> tuple:
    """The three arms of a pair: duplicate with common random numbers (the
    module's default), duplicate with each agent's own generator (as before
    them), independent deals.  The arms' agents are made alike, seeded apart.
    Where no agent takes streams the first two are the same games: played once."""
    records, seconds = {}, {}
    for arm, (independent, streams) in enumerate(((False, True), (False, False), (True, False))):
        agents = [
            make(protocol.game, spec, agent_seed(seed, p, k, arm), protocol.config) for k, spec in enumerate(pair)
        ]
        name = "indep" if independent else "dup" if streams else "own"
        if name == "own" and not takes_streams(agents):
            records[name], seconds[name] = records["dup"], 0.0
            continue
        start = time.perf_counter()
        records[name] = play_duplicate(
            protocol.game,
            agents,
            deals,
            seed,
            protocol.seatings,
            batch,
            independent=independent,
            names=pair,
            streams=streams,
            **protocol.config,
        )
        seconds[name] = time.perf_counter() - start
    return records, seconds


def run_pair(
    protocol: Protocol, p: int, pair: tuple[str, str], deals: int, seed: int, batch: int, resamples: int
) -> list[dict]:
    """The arms of one pair in one game (:func:`play_arms`): a row per measure."""
    records, seconds = play_arms(protocol, p, pair, deals, seed, batch)
    rng = np.random.default_rng([seed, p, 1])
    rows = []
    for measure in protocol.measures:
        dup, own, indep = (measure_values(records[arm], measure) for arm in ("dup", "own", "indep"))
        row = {"protocol": protocol.name, "game": protocol.game, "config": protocol.config, "a": pair[0]}
        row.update(b=pair[1], measure=measure, note=protocol.note, seatings=len(records["dup"].seatings))
        row.update(compare(dup, indep, row["seatings"], rng, resamples))
        low, high = ratio_interval(own, indep, rng, resamples)
        row.update(
            own_mean=float(np.mean(own)),
            own_half_width=half_width(own),
            own_games_ratio=games_ratio(row["indep_half_width"], half_width(own)),
            own_games_ratio_low=low,
            own_games_ratio_high=high,
            own_replayed=records["own"] is not records["dup"],
            own_shown=None,  # (the own arm's ratio where it was played apart: the results page's column)
            copies_alike=copies_alike(records["dup"]),
        )
        if row["own_replayed"]:
            row["own_shown"] = row["own_games_ratio"]
        forfeits = [int(records[arm].forfeited().sum()) for arm in ("dup", "own", "indep")]
        row.update(seconds_dup=seconds["dup"], seconds_own=seconds["own"], seconds_indep=seconds["indep"])
        row.update(forfeits=forfeits)
        rows.append(row)
    return rows


def _num(x: float) -> str:
    return "nan" if math.isnan(x) else "inf" if math.isinf(x) else f"{x:.2f}" if abs(x) < 100 else f"{x:.3g}"


def _fmt_ratio(row: dict, prefix: str = "") -> str:
    r, lo, hi = (row[f"{prefix}games_ratio{x}"] for x in ("", "_low", "_high"))
    if math.isnan(r):
        return "n/a (no variance)"
    return f"{_num(r):>5} [{_num(lo)}, {_num(hi)}]"


def table(rows: list[dict]) -> list[str]:
    """The results as aligned text lines (*own*: duplicate with each agent's
    own generator, as before common random numbers; *alike*: the share of
    deals whose copies all ended alike)."""
    head = (
        f"{'game':<13} {'pair':<12} {'measure':<7} {'deals':>5} {'games':>6}  {'dup mean ± hw':>18}  "
        f"{'indep mean ± hw':>18}  {'indep/dup games [95%]':<22} {'indep/own games [95%]':<22} {'alike':>5} "
        f"{'dup games to separate':>21}"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        sep = r["dup_games_to_separate"]
        own = _fmt_ratio(r, "own_") if r["own_replayed"] else "(same games)"
        lines.append(
            f"{r['protocol']:<13} {r['a'] + '-' + r['b']:<12} {r['measure']:<7} {r['deals']:>5} {r['games']:>6}  "
            f"{r['dup_mean']:>+9.3f} ± {r['dup_half_width']:<6.3f}  "
            f"{r['indep_mean']:>+9.3f} ± {r['indep_half_width']:<6.3f}  "
            f"{_fmt_ratio(r):<22} {own:<22} {r['copies_alike']:>5.2f} {'inf' if math.isinf(sep) else round(sep):>21}"
        )
    return lines


def write_json(
    path: str | os.PathLike, info: dict, rows: list[dict], argv: list[str] | None = None, **extra: Any
) -> None:
    report.write(path, "duplicate_variance", rows, info, argv=argv, **extra)


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    names = [pr.name for pr in PROTOCOLS]
    p.add_argument("--games", default=",".join(names), help=f"comma-separated rows of {names}")
    p.add_argument("--pairs", default=",".join(f"{a}-{b}" for a, b in PAIRS), help="comma-separated pairs A-B")
    p.add_argument("--scale", type=float, default=1.0, help="deals = the row's deals x this (at least 2)")
    p.add_argument("--deals", type=int, default=None, help="the same deals for every row (overrides --scale)")
    p.add_argument("--seed", type=int, default=SEED, help=f"the run's seed (default {SEED}, used nowhere else)")
    p.add_argument("--batch", type=int, default=128, help="deals on the engine at once")
    p.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples of each games ratio")
    p.add_argument("--json", nargs="?", const=str(RESULTS), default=None, metavar="PATH", help=f"(alone: {RESULTS})")
    p.add_argument("--append", action="store_true", help=f"append the table to {SUMMARY.name}")
    args = p.parse_args(argv)
    wanted = args.games.split(",")
    if unknown := [g for g in wanted if g not in names]:
        p.error(f"unknown game row(s) {unknown}; have {names}")
    args.protocols = [pr for pr in PROTOCOLS if pr.name in wanted]
    args.pair_list = [tuple(x.split("-", 1)) for x in args.pairs.split(",")]
    if any(len(x) != 2 for x in args.pair_list):
        p.error("pairs are A-B, e.g. ppo-rule")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    info = report.machine()
    budget = {
        pr.name: args.deals if args.deals is not None else max(2, round(pr.deals * args.scale)) for pr in args.protocols
    }
    dirty = " (+ uncommitted changes in cardenvs/)" * info["uncommitted_changes"]
    print(
        f"# duplicate_variance at commit {str(info['commit'])[:10]}{dirty}, "
        f"{info['date']}, {platform.processor() or info['machine']} x {info['cpus']} CPUs, load {info['load_average']}"
    )
    print(f"# seed {args.seed}, batch {args.batch}; deals per arm and pair: {budget}\n", flush=True)
    start, rows = time.perf_counter(), []
    for p, protocol in enumerate(PROTOCOLS):
        if protocol not in args.protocols:
            continue
        for pair in args.pair_list:
            if protocol.pairs is not None and pair not in protocol.pairs:
                continue
            got = run_pair(protocol, p, pair, budget[protocol.name], args.seed, args.batch, args.resamples)
            rows.extend(got)
            took = got[0]["seconds_dup"] + got[0]["seconds_own"] + got[0]["seconds_indep"]
            print("\n".join(table(got)[2:]) + f"   [{took:.0f} s]", flush=True)
    seconds = time.perf_counter() - start
    lines = table(rows)
    print("\n" + "\n".join(lines) + f"\n\n# {seconds:.0f} s in all (load average now {os.getloadavg()[0]:.2f})")
    extra = {"seed": args.seed, "batch": args.batch, "deals": budget, "seconds": seconds}
    if args.json:
        write_json(args.json, info, rows, argv, **extra)
    if args.append:
        append_summary(SUMMARY, info, lines, extra)
    return 0


def append_summary(path: pathlib.Path, info: dict, lines: list[str], extra: dict) -> None:
    """Append the table to benchmarks/results.txt with the date, the commit and the budget."""
    head = (
        f"\n## duplicate_variance.py at {str(info['commit'])[:7]}, {info['date']} (issue #31 item 4): seed "
        f"{extra['seed']}, batch {extra['batch']}, {extra['seconds']:.0f} s on {info['cpus']} shared CPUs (load "
        f"{info['load_average'][0]:.1f}); deals per arm {extra['deals']}\n"
    )
    with open(path, "a") as f:
        f.write(head + "\n".join("# " + line for line in lines) + "\n")
    print(f"appended to {path}")


if __name__ == "__main__":
    sys.exit(main())
