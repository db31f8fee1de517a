"""Write docs/results.md from the benchmarks' JSON results.

Every figure the documentation gives comes from here: the benchmarks write
``benchmarks/results/<benchmark>[-<run>].json`` (``--json``, see
``benchmarks/report.py``; ``make results`` runs them all:
``tools/make_results.py``), the baselines' training runs their
``agents/checkpoints/<name>_summary.json``, and this renders them, each
table under how it was run (quick or full), the commit, the date and the
machine it was measured on.  A run of the plan (``tools/results_plan.py``)
whose file is missing is listed with its command, to be measured.

    python tools/gen_results.py           # rewrite docs/results.md
    python tools/gen_results.py --check   # exit 1 if the page is out of date (the tests run this)
"""

from __future__ import annotations

import json
import pathlib
import sys
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from results_plan import PLAN, shell  # noqa: E402
from results_plan import job as plan_job  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
CHECKPOINTS = ROOT / "agents" / "checkpoints"
PAGE = ROOT / "docs" / "results.md"

#: A column: (record key, header, format): "int" thousands, "x" a ratio, "pct" a share, "f1"/"f2" decimals,
#: "ci" the record's Wilson interval, "str" as it is.
Column = tuple[str, str, str]

#: The sections of the page, in order: (benchmark, title, what it measures, columns).
SECTIONS: list[tuple[str, str, str, list[Column]]] = [
    (
        "throughput",
        "Throughput: random legal play on one core",
        "Steps per second (player decisions; Spit: ticks) of random legal play: read the mask, pick an action, "
        "step, get the next observation. *whole loop* includes the benchmark's random policy, *engine* is the "
        "time inside `venv.step` alone. OpenSpiel and RLCard play one game at a time in the same run.",
        [
            ("engine", "engine", "str"),
            ("game", "game", "str"),
            ("batch", "batch", "int"),
            ("steps_per_s", "steps/s, whole loop", "int"),
            ("engine_steps_per_s", "steps/s, engine", "int"),
            ("steps_per_game", "steps a game", "int"),
        ],
    ),
    (
        "template_speed",
        "A new game's speed: the template next to Pepper",
        "Steps per CPU second of random legal play at 1,024 games, the template game (what `cardenvs new-game` "
        "copies) and Pepper measured in turn in the same run, their games staggered first (a game of one "
        "length would otherwise keep every row in the same phase); *x* is the median of the per-round ratios "
        'to Pepper, of the whole loop and of `venv.step` alone (docs/adding-a-game.md, "A fast game").',
        [
            ("game", "game", "str"),
            ("batch", "batch", "int"),
            ("rounds", "rounds", "int"),
            ("steps_per_cpu_s", "steps/CPU-s, whole loop", "int"),
            ("engine_steps_per_cpu_s", "steps/CPU-s, engine", "int"),
            ("x_reference", "x Pepper, whole loop", "x"),
            ("engine_x_reference", "x Pepper, engine", "x"),
        ],
    ),
    (
        "single_game",
        "One game at a time, next to OpenSpiel",
        "Random legal play with the observation every step, one game at a time, through each path a user takes "
        "(the wrapped AEC env of `cardenvs.make`, the raw env, Spit's parallel env, the vector engine at batch 1), "
        "next to the nearest OpenSpiel game in the same loop; the ratio is the median of the per-round ratios.",
        [
            ("game", "game", "str"),
            ("path", "path", "str"),
            ("steps_per_s", "steps/s", "int"),
            ("x_openspiel", "x OpenSpiel", "x"),
        ],
    ),
    (
        "thread_scaling",
        "Threads and processes",
        "Engine steps per second of `cardenvs.vector.make(..., num_threads=k)` or `num_processes=k` at 4,096 "
        "games, against one (*x one*); *x free* is the speed-up if every thread had a core of its own (from "
        "per-thread CPU times); *serial* the calling thread's share. The ceiling run bounds what any two "
        "shards could give on the machine: two halves stepped apart (*ceiling*), with the step's data flow "
        "(*flow*), and the engine with two processes (*engine*).",
        [
            ("game", "game", "str"),
            ("rng", "rng", "str"),
            ("threads", "threads", "int"),
            ("processes", "processes", "int"),
            ("engine_steps_per_s", "engine steps/s", "int"),
            ("x_first", "x one", "x"),
            ("x_free", "x free", "x"),
            ("serial_share", "serial", "pct"),
            ("ceiling_x", "ceiling", "x"),
            ("flow_x", "flow", "x"),
            ("engine_x", "engine", "x"),
        ],
    ),
    (
        "first_game",
        "First use: compiling the kernels",
        "Seconds from the start of `import cardenvs` to the end of each stage, in fresh processes, with an empty "
        "compile cache (*cold*: a new install, a CI run) and with that cache filled (*warm*). The vector stages "
        "are 4,096 games at once: `cardenvs.vector.make` and its reset, its first step, its tenth.",
        [
            ("game", "game", "str"),
            ("mode", "compile", "str"),
            ("cold.import", "import, cold", "f1"),
            ("cold.AEC game", "first AEC game, cold", "f1"),
            ("cold.vector reset", "vector reset, cold", "f1"),
            ("cold.vector step", "first vector step, cold", "f1"),
            ("cold.10 vector steps", "10 vector steps, cold", "f1"),
            ("cold.compiled", "all compiled, cold", "f1"),
            ("warm.import", "import, warm", "f1"),
            ("warm.AEC game", "first AEC game, warm", "f1"),
            ("warm.vector step", "first vector step, warm", "f1"),
        ],
    ),
    (
        "first_use_kernels",
        "First use at scale: where the compile time goes",
        "Seconds each kernel called from Python takes to compile, with the kernels it calls (compiled with it: "
        "*kernels*, numba's own helpers included), at 4,096 games with an empty compile cache and "
        "`CARDENVS_COMPILE=now` (one after another, in one process: the median of fresh processes), and when the "
        "game first needs it: its reset, its first step or a later one (`--kernels`). *(all)*: the game's whole "
        "compile.",
        [
            ("game", "game", "str"),
            ("kernel", "kernel", "str"),
            ("needed", "first needed", "str"),
            ("kernels", "kernels", "int"),
            ("seconds", "compile, s", "f1"),
        ],
    ),
    (
        "first_use_at_scale",
        "First use at scale: 10M steps at 4,096 games",
        "Seconds from the start of `import cardenvs` to the end of 10M game steps (random legal moves) at 4,096 "
        "games in one process, with an empty compile cache: the median of runs of each compile mode interleaved "
        "in pairs, on a quiet machine and beside a busy process per core (`--at-scale`). The ratio is the mode's "
        "time over `now`'s in the same pair (median, and its range over the pairs).",
        [
            ("game", "game", "str"),
            ("load", "machine", "str"),
            ("mode", "compile", "str"),
            ("pairs", "runs", "int"),
            ("wall", "10M steps, s", "f1"),
            ("cpu", "its CPU, s", "f1"),
            ("ratio", "over `now`", "x"),
            ("ratio_range", "range", "str"),
        ],
    ),
    (
        "agents",
        "Rule agents: batched against per row",
        "Milliseconds to decide a batch of reachable decision states, by the rule agents' per-row reference "
        "(`act_row`, Python per observation) and by their batched rules (one compiled pass); both decide alike.",
        [
            ("game", "game", "str"),
            ("config", "config", "str"),
            ("rows", "rows", "int"),
            ("per_row_ms", "per row, ms", "f1"),
            ("batched_ms", "batched, ms", "f2"),
            ("speedup", "speed-up", "x0"),
        ],
    ),
    (
        "training",
        "Training loop",
        "Learner steps per second of each game's training recipe (`examples/train_<game>.py`), whole "
        "MaskablePPO rollouts and updates, by the wall clock and per CPU-second of the process, and the three "
        "largest shares of its CPU time.",
        [
            ("game", "game", "str"),
            ("stage", "stage", "str"),
            ("advice", "advised", "str"),
            ("rate", "steps/s", "int"),
            ("cpu_rate", "steps/CPU-s", "int"),
            ("bound", "largest shares", "str"),
        ],
    ),
    (
        "sampling",
        "Information-set sampling",
        "Worlds per second (wall clock and per CPU-second) of `cardenvs.search.sample_worlds` for a batch of "
        "games x worlds each: *deals* the sampler core (hidden cards), *states* complete states the engine can "
        "step; OpenSpiel's `resample_from_infostate`, one state at a time, in the same run.",
        [
            ("game", "game", "str"),
            ("shape", "games x worlds", "str"),
            ("what", "what", "str"),
            ("worlds_per_s", "worlds/s", "int"),
            ("worlds_per_cpu_s", "worlds/CPU-s", "int"),
        ],
    ),
    (
        "pimc_match",
        "PIMC matches",
        "`cardenvs.agents.pimc.PIMCAgent` against another agent, seats rotated, on seeds used for nothing else; "
        "win rate with its Wilson 95% interval, against the chance of a seat.",
        [
            ("game", "game", "str"),
            ("agent", "agent", "str"),
            ("opponent", "opponent", "str"),
            ("seed", "seed", "str"),
            ("games", "games", "int"),
            ("win_rate", "win rate", "ci"),
            ("ties", "ties", "str"),
            ("chance", "chance", "pct"),
            ("searched_per_cpu_s", "decisions/CPU-s", "int"),
        ],
    ),
    (
        "duplicate_variance",
        "Duplicate against independent deals",
        "The same pair of agents on the same seatings and number of games, with each deal played once per "
        "seating (*duplicate*) or every game on a deal of its own (*independent*): the mean per-deal difference "
        "(win share, score, score per hand or finishing place) with its 95% half-width each way, and *games x* = "
        "(independent half-width / duplicate half-width) squared, how many times fewer games duplicate needs for "
        "the same width, with its bootstrap 95% interval. Duplicate plays with common random numbers (the "
        "default); *own x* is the same ratio for duplicate with each agent's own generator (shown only where an "
        "agent of the pair takes the streams: else the same games). *alike*: the share of deals whose copies all "
        "ended with the same scores seat by seat, as when the two agents never decided differently (in Spit, whose "
        "score is the game won, it also counts the deals the same seat won in every copy). The issue's goal was 3x "
        "fewer games in Pepper and Cancellation Hearts: compare *games x* and its *low* bound with 3.00x. The rows "
        "`pepper` and `pepper_1hand` are Pepper at four players (two teams), `pepper_2p`, `pepper_2p_1hand` and "
        "`pepper_3p_1hand` at two and three.",
        [
            ("protocol", "protocol", "str"),
            ("a", "a", "str"),
            ("b", "b", "str"),
            ("measure", "measure", "str"),
            ("games", "games", "int"),
            ("dup_mean", "duplicate mean", "f2"),
            ("dup_half_width", "duplicate +-", "f2"),
            ("indep_half_width", "independent +-", "f2"),
            ("games_ratio", "games x", "x"),
            ("games_ratio_low", "low", "x"),
            ("games_ratio_high", "high", "x"),
            ("own_shown", "own x", "x"),
            ("copies_alike", "alike", "pct"),
        ],
    ),
    (
        "duplicate_luck",
        "What a luck term could take out of a duplicate pair",
        "The PPO baseline against the rule agent (both deterministic), one hand of each game, the duplicate "
        "seatings plus an all-A and an all-B game per deal (diagnosis only). *alike*: the share of deals whose "
        "duplicate copies all ended alike, and whose all-A and all-B games did. *left*: the share of the per-deal "
        "variance a least-squares control variate on the features leaves, cross-fitted (fitted on one half of the "
        "deals, applied to the other): *reference*, the all-A and all-B games' scores; *passes* (Hearts), what each "
        "agent passes from each seat's hand, and *summed*, the same summed over the seats. Above 100%: the fit "
        "only adds noise.",
        [
            ("game", "game", "str"),
            ("deals", "deals", "int"),
            ("module_seatings", "seatings", "int"),
            ("alike_module", "alike", "pct"),
            ("alike_ab", "all-A = all-B", "pct"),
            ("win_reference_variance_left", "win: left, reference", "pct"),
            ("win_passes_variance_left", "passes", "pct"),
            ("win_passes_summed_variance_left", "summed", "pct"),
            ("score_reference_variance_left", "score: left, reference", "pct"),
            ("score_passes_variance_left", "passes", "pct"),
            ("score_passes_summed_variance_left", "summed", "pct"),
        ],
    ),
    (
        "learning_curves",
        "Learned from scratch: every seed's curve against the rule agent",
        "Each snapshot of each from-scratch training run (no rule advice, no imitation: "
        "`examples/retrain_scratch.py`), rated in duplicate deals of the whole game against the rule agent on deal "
        "seeds never used in training: the win-share edge (+1: every game won) and the points-per-hand edge, with "
        "95% intervals. The goal: above 0, interval apart, by 30 CPU-minutes, for every seed. Learner steps: "
        "games' steps for self-play PPO, decisions labelled by the search for expert iteration. Runs stopped "
        "early to free the machine end where they stopped. Expert iteration's points are its network alone "
        "(`scratch-policy`); the agent it trains, the network with its search (`scratch`), is rated for every "
        "seed in the next table.",
        [
            ("learner", "learner", "str"),
            ("seed", "seed", "int"),
            ("cpu_minutes", "CPU-minutes", "f1"),
            ("steps", "learner steps", "int"),
            ("deals", "deals", "int"),
            ("win_edge", "win edge vs rule", "str"),
            ("hand_edge", "hand edge vs rule", "str"),
        ],
    ),
    (
        "compare_reference",
        "The algorithm reference table",
        "The project's learners compared by `cardenvs compare` ([benchmarks](benchmark.md#the-reference-table)): "
        "self-play PPO (`ppo`), its state critic (`ppo-state`), PPO against a population of past snapshots, the "
        "rule agent and random play (`ppo-pop`), each on the four games, and expert iteration played through its "
        'search (`exit-search`: the agent `make_agent(game, "scratch")` is, on Pepper and Spit, the games whose '
        "from-scratch agent searches; not applicable in the others), with 5 training seeds (0 to 4) at the "
        "budget in steps stated under it (engine steps x games; Cancellation Hearts has its own). Deep "
        "Monte-Carlo (`dmc`), work in progress, is not in the table: at 200,000 steps it scored at or below a "
        "trivial policy in every game ([its section](training-from-scratch.md"
        "#deep-monte-carlo-examplesdmcpy-work-in-progress)). Each "
        "trained network, played alone (`exit-search`'s through its search, the search's own worlds not counted "
        "in its steps), is scored against the rule agent in duplicate deals on evaluation deals "
        "never used in training (alone among rule agents in Cancellation Hearts, seats rotated): its margin in "
        "points over the rule agent, scaled so that random play scores 0 and the rule agent 1; the trivial "
        "policies `lowest` and `highest` (always the lowest or highest legal action) are scored on the same deals "
        "as reference rows. "
        "Per algorithm, over its games and seeds: the interquartile mean (IQM) and the mean, with rliable's "
        "stratified bootstrap 95% intervals; per pair, the probability of improvement P(a > b) on the games "
        "both train; then a table per game: each algorithm's median over the seeds, each seed's score, how its runs' "
        "games ended, whether its median lies above every trivial row, how many of its seeds lie "
        "above that row beyond their score's 95% interval, and how many reach the rule agent (their score's 95% "
        "interval holds 1 or lies above it), beside the reference rows. A learner that a trivial "
        "policy matches has no result at that budget. The pictures: "
        "the performance profiles, and per game the score against steps averaged over the seeds with a 95% "
        "band.",
        [
            ("algorithm", "algorithm", "str"),
            ("iqm", "IQM [95%]", "str"),
            ("mean", "mean [95%]", "str"),
            ("cpu_minutes_run", "training CPU-minutes a run (median)", "f1"),
            ("cpu_hours", "training CPU-hours in all", "f2"),
            ("pair", "pair", "str"),
            ("probability", "probability [95%]", "str"),
            ("games", "on the games", "str"),
            ("game", "game", "str"),
            ("seeds", "seeds", "int"),
            ("median", "median score", "str"),
            ("scores", "each seed's score", "str"),
            ("won_lost", "games won-lost-drawn", "str"),
            ("above_trivial", "median above every trivial row", "str"),
            ("seeds_clear", "seeds above it beyond their 95% interval", "str"),
            ("seeds_rule", "seeds reaching the rule agent (95% interval at 1 or above)", "str"),
        ],
    ),
    (
        "outsider",
        "Alone among strangers",
        'The protocol of the benchmark page: each game\'s agent learned from scratch (`make_agent(game, "scratch")`) '
        "against the rule agent with `match`, seats rotated game by game -- in Cancellation Hearts one seat of six "
        "among five rule agents, never a copy of itself at the table; in Pepper (4 players) and Push its side, in "
        "Spit its seat -- on deal seeds never used for training or selection, with the trivial policy `lowest` "
        "(always the lowest legal action) beside it on the same deals. The win rate's Wilson 95% interval against "
        "chance, and how the games ended (won-lost-drawn, truncations flagged above 1%).",
        [
            ("game", "game", "str"),
            ("agent", "agent", "str"),
            ("games", "games", "int"),
            ("win_rate", "win rate [95%]", "ci"),
            ("chance", "chance", "pct"),
            ("above_chance", "above chance", "str"),
            ("ended", "won-lost-drawn", "str"),
            ("mean_score", "mean score", "f1"),
            ("mean_opponent_score", "rule agents' mean", "f1"),
        ],
    ),
    (
        "strongest",
        "The built-in best and scratch agents on deals used for nothing else",
        'Each game\'s strongest agent (`make_agent(game, "best")`) against `pimc:worlds=32,rollout=rule`, and its '
        'agent learned from scratch (`"scratch"`) against the rule agent, in duplicate deals of the whole game on '
        "deal seeds used for nothing else (not for training, not for choosing them): the win-share edge and the "
        "points-per-hand edge with 95% intervals, and the agent's own CPU time per decision. `scratch` is the "
        "committed policy (one training seed's final network: its file's training record names the seed), "
        "`sN's policy` the final network of training seed N (`examples/retrain_scratch.py --seed N`); Pepper's "
        "scratch plays its network through the search its game names.",
        [
            ("game", "game", "str"),
            ("agent", "agent", "str"),
            ("against", "against", "str"),
            ("deals", "deals", "int"),
            ("deal_seed", "deal seed", "int"),
            ("win_edge", "win edge", "str"),
            ("hand_edge", "hand edge", "str"),
            ("ms_per_decision", "CPU-ms per decision", "f2"),
        ],
    ),
    (
        "evaluation",
        "Baselines against random and rule-based play",
        'The committed PPO baselines (`make_agent(game, "ppo")`, played greedily) against each opponent, full '
        "games with default options, seats rotated, on seeds never used in training or model selection; in "
        "Cancellation Hearts the baseline holds one seat of six. A baseline *beats* an opponent when the whole "
        "interval lies above chance.",
        [
            ("game", "game", "str"),
            ("opponent", "opponent", "str"),
            ("games", "games", "int"),
            ("win_rate", "win rate", "ci"),
            ("chance", "chance", "pct"),
            ("mean_score", "mean score", "f1"),
            ("mean_opponent_score", "opponents' mean", "f1"),
        ],
    ),
]


def value(record: dict[str, Any], key: str) -> Any:
    """``record[key]``, a dotted key reading nested records."""
    for part in key.split("."):
        if not isinstance(record, dict) or part not in record:
            return None
        record = record[part]
    return record


def cell(record: dict[str, Any], key: str, kind: str) -> str:
    x = value(record, key)
    if x is None:
        return "-"
    if isinstance(x, float) and x != x:  # NaN: a ratio of two zero widths (one side won every game)
        return "n/a"
    if kind == "ci":
        return f"{x:.1%} [{record['ci95_low']:.1%}, {record['ci95_high']:.1%}]"
    if kind == "str":
        return ("yes" if x else "no") if isinstance(x, bool) else str(x).replace("|", "\\|")
    formats = {"int": "{:,.0f}", "x": "{:.2f}x", "x0": "{:.0f}x", "pct": "{:.1%}", "f1": "{:,.1f}", "f2": "{:,.2f}"}
    return formats[kind].format(x)


def table(records: list[dict[str, Any]], columns: list[Column]) -> list[str]:
    """A Markdown table of ``records``: the columns that some record has."""
    shown = [c for c in columns if any(value(r, c[0]) is not None for r in records)]
    lines = ["| " + " | ".join(h for _, h, _ in shown) + " |", "|" + " --- |" * len(shown)]
    lines += ["| " + " | ".join(cell(r, k, kind) for k, _, kind in shown) + " |" for r in records]
    return lines


def provenance(doc: dict[str, Any]) -> str:
    """How, when and where a file's figures were measured, and by what command."""
    commit = doc.get("commit")
    where = [f"commit `{commit[:10]}`" if commit else "an unrecorded commit", f"{doc['date'][:10]}"]
    if doc.get("uncommitted_changes"):
        where[0] += " (with uncommitted changes in cardenvs/)"
    machine = ", ".join(str(x) for x in (doc.get("cpu"), f"{doc['cpus']} CPUs" if doc.get("cpus") else None) if x)
    if machine:
        where.append(machine)
    load = doc.get("load_average")
    if load:
        where.append(f"load average {load[0]:.2f}")
    quick = doc.get("mode", "full") == "quick"
    text = f"{'A quick' if quick else 'A full'} run at {', '.join(where)}: `{doc['command']}`."
    if quick:
        text += f" Quick: {doc.get('budget', 'shortened')}; `make results FULL=1` runs the full one."
    if doc.get("clock") == "cpu":
        text += " Timed by the process's CPU time: steps per CPU-second."
    if doc.get("note"):
        text += f" {doc['note'][0].upper()}{doc['note'][1:]}."
    return text


def budget_text(s: dict[str, Any]) -> str:
    """A run's budget: steps (per game, when the games' differ) or CPU-minutes."""
    steps = s.get("steps")
    if isinstance(steps, dict):
        games: dict[int, list[str]] = {}
        for game, n in steps.items():
            games.setdefault(n, []).append(game.removesuffix("_v0"))
        return ", ".join(f"{n:,} steps ({', '.join(g)})" for n, g in games.items())
    return f"{steps:,} steps" if steps else f"{s['cpu_minutes']:g} CPU-minutes"


def settings(doc: dict[str, Any]) -> list[str]:
    """The budget of a run that records its settings (the reference table's)."""
    s = doc.get("settings")
    if not s:
        return []
    if {"cpu_minutes", "seeds", "deals"} <= set(s):
        each = budget_text(s)
        text = (
            f"Budget: {each} of training per run, {s['seeds']} training seeds per "
            f"algorithm and game, {s['deals']} duplicate deals per score"
        )
        if "curve_points" in s:
            text += f", {s['curve_points']} snapshots of each run rated for the curves"
        if "eval_seed" in s:
            text += f"; evaluation deals from seed {s['eval_seed']:,}"
        return [text + ".", ""]
    return ["Settings: " + ", ".join(f"{k} {v}" for k, v in s.items()) + ".", ""]


#: Each picture's alt text: what it shows (a picture a benchmark draws needs one here).
IMAGE_ALT = {
    "throughput-peers.png": "Bar chart, log scale: the table's steps of random legal play on one core, for each "
    "game played one game at a time (AEC env, vector engine at batch 1) and at its largest batch, next to "
    "OpenSpiel's and RLCard's games played one at a time",
    "compare_reference-profiles.png": "Performance profiles: for each algorithm, the share of its runs whose "
    "score on points (random 0, rule 1) exceeds each threshold, with 95% bands",
    "compare_reference-curves.png": "Each algorithm's score on points (random 0, rule 1) against environment "
    "steps, averaged over its seeds with a 95% bootstrap band, one panel per game, the trivial policies' "
    "scores dashed beside them",
}


def alt_text(image: str) -> str:
    """The alt text of ``images/<name>.png`` (KeyError naming a picture without one)."""
    name = image.rsplit("/", 1)[-1]
    if name.startswith("learning-curves-"):
        game = name.removeprefix("learning-curves-").removesuffix(".png")
        return (
            f"Learning curves of {game} from scratch: the win-share edge over the rule agent (95% bands) against "
            "CPU-minutes (left) and learner steps (right), one line per training seed"
        )
    if name not in IMAGE_ALT:
        raise KeyError(f"{image}: no alt text (add one to IMAGE_ALT in tools/gen_results.py)")
    return IMAGE_ALT[name]


def files(name: str) -> list[pathlib.Path]:
    """A benchmark's results files: ``<name>.json`` and ``<name>-<run>.json``."""
    return sorted([*RESULTS.glob(f"{name}.json"), *RESULTS.glob(f"{name}-*.json")])


def same_run(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return all(a.get(k) == b.get(k) for k in ("command", "commit", "date"))


def one_per_file(docs: list[dict[str, Any]], columns: list[Column]) -> list[str]:
    """A table per file, under its run's provenance (said once for the files of one run)."""
    out: list[str] = []
    images: list[str] = []
    for k, doc in enumerate(docs):
        if k == 0 or not same_run(docs[k - 1], doc):
            out += [provenance(doc), "", *settings(doc)]
        out += [*table(doc["results"], columns), ""]
        images += doc.get("images", [])
        if k == len(docs) - 1 or not same_run(doc, docs[k + 1]):  # the run's pictures after its tables
            out += [f"![{alt_text(image)}]({image})\n" for image in images]
            images = []
    return out


def row_order(path: pathlib.Path) -> tuple:
    """Merged rows by game, then the built-in agents before each training seed's."""
    game, _, rest = path.stem.partition("-")[2].partition("-")
    return (game, {"best": 0, "scratch": 1}.get(rest, 2), rest)


def merged(docs: list[tuple[pathlib.Path, dict[str, Any]]], columns: list[Column]) -> list[str]:
    """One table of every file's rows, each with its run's commit and date,
    and the runs' commands below it."""
    docs = sorted(docs, key=lambda pd: row_order(pd[0]))
    rows = []
    for _, doc in docs:
        when = f"`{(doc.get('commit') or '?')[:7]}`, {doc['date'][:10]}, {doc.get('mode', 'full')}"
        rows += [{**record, "measured": when} for record in doc["results"]]
    out = [*table(rows, [*columns, ("measured", "measured (commit, date, mode)", "str")]), ""]
    out += ["The runs, in the order of the rows:", ""]
    for _, doc in docs:
        out.append(f"- {provenance(doc)}")
    return [*out, ""]


def not_measured(name: str) -> list[str]:
    """The plan's runs of this section whose files are missing, each with its command."""
    out = []
    for job in PLAN:
        mine = [o for o in job.outputs if o == f"{name}.json" or o.startswith(f"{name}-")]
        if not mine or all((RESULTS / o).exists() for o in mine):
            continue
        text = f"- {', '.join(o.removesuffix('.json') for o in mine)}: `{shell(job.full)}`"
        if job.after:
            text += " after " + ", ".join(f"`{shell(plan_job(a).full)}`" for a in job.after)
        if not job.long and job.quick and not job.same:
            text += f" (quick, as `make results` runs it: `{shell(job.quick)}`)"
        out.append(text + (" (a long run: `make results FULL=1`)" if job.long else ""))
    if not out:
        return []
    return ["To be measured on the current engine (each command as run from the repository's root):", "", *out, ""]


#: Sections whose files are runs of one question (a game's agents, PIMC's matches): one table, a row a run.
MERGED = {"strongest", "pimc_match", "outsider"}


def section(name: str, title: str, what: str, columns: list[Column]) -> list[str]:
    out = [f"## {title}", "", what, ""]
    docs = [(path, json.loads(path.read_text())) for path in files(name)]
    missing = not_measured(name)
    if not docs and not missing:
        return [*out, "No results yet: run `make results`.", ""]
    if docs:
        out += merged(docs, columns) if name in MERGED else one_per_file([d for _, d in docs], columns)
    return out + missing


def training_runs() -> list[str]:
    """The committed baselines' training runs, from their summaries."""
    out = [
        "## The baselines' training runs",
        "",
        "From each committed checkpoint's `summary.json` (`agents/checkpoints/`): the learner steps of the kept "
        "policy and of the whole run, the run's CPU time (model selection included) and the run's own evaluation "
        "against the rule agent. Full training runs (`python examples/train_<game>.py`), each recorded by the run "
        "that made the checkpoint; its commit and date are the summary's in git "
        "(`git log agents/checkpoints/<game>_summary.json`).",
        "",
        "| game | learner steps, kept / run | CPU-minutes | against the rule agent (own evaluation) |",
        "| --- | --- | --- | --- |",
    ]
    for path in sorted(CHECKPOINTS.glob("*_summary.json")):
        s = json.loads(path.read_text())
        rule = next((r for r in s.get("results", []) if r.get("opponent") == "rule"), None)
        versus = "-" if rule is None else f"{rule['win_rate']:.1%} [{rule['ci95'][0]:.1%}, {rule['ci95'][1]:.1%}]"
        versus += "" if rule is None else f" of {rule['games']} games"
        steps = f"{s['timesteps'] / 1e6:.2f}M / {s.get('run_timesteps', s['timesteps']) / 1e6:.2f}M"
        out.append(f"| {s['config']['game']} | {steps} | {s['train_cpu_seconds'] / 60:.1f} | {versus} |")
    return [*out, ""]


HEADER = """# Results

<!-- Generated by tools/gen_results.py from benchmarks/results/*.json and
agents/checkpoints/*_summary.json: do not edit by hand (`make results`). -->

Every measured figure of the documentation. `make results` regenerates
every table and chart of this page from the benchmarks, on the current
commit and machine: by default the quick runs (about half an hour on two
cores; each quick table says so and what it measured less of), and with
`make results FULL=1` every run at its full size, the long ones too
(training seeds, PIMC matches, the reference table: hours). Without
`FULL=1` the long runs' tables are rendered from the files their last runs
wrote. Each table says how it was run (quick or full), at which commit, on
what date and machine, and the command that measured it, as run from the
repository's root (`tools/results_plan.py` lists them all;
`benchmarks/README.md` says what each benchmark measures). The machines are
small shared VMs: figures move by a quarter from run to run with the load
beside them, so compare within a table, not across tables.
"""


def render() -> str:
    lines = [HEADER]
    for name, title, what, columns in SECTIONS:
        lines += section(name, title, what, columns)
        if name == "evaluation":
            lines += training_runs()
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if PAGE.exists() and PAGE.read_text() == text:
        print("docs/results.md up to date")
        return 0
    if "--check" in argv:
        print("out of date (run `make results`, or `python tools/gen_results.py` to re-render): docs/results.md")
        return 1
    PAGE.write_text(text)
    print("rewrote: docs/results.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
