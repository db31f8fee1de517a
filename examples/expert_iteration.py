"""Expert iteration from scratch: search distilled into a policy, in one file.

Each round, a search agent plays every seat of a batch of games and a
network learns to pick what the search picked; the next round's search
plays out its worlds with that network, so it searches better, and so on.

- The search: PIMC over every decision (bids, trump, passes, cards:
  ``PIMCAgent(search="all", score="margin")``): for each legal action, in
  ``--worlds`` deals consistent with what the seat saw, the action is
  played and the hand (Push: the round) is played out; the action with the
  best mean margin (the seat's side's score change less the other sides')
  is picked.
- The roll-outs: round 0 plays them uniformly at random; every later
  round, with the network of the round before (greedy).  **No rule agent
  anywhere**: not as teacher, opponent, roll-out or fallback.
- Spit, whose players act at once on every tick: the search is the
  look-ahead (:class:`~cardenvs.agents.lookahead.LookaheadAgent`,
  ``--worlds`` worlds, ``--horizon`` ticks, cards shed less the
  opponent's), deciding for both seats of every tick; its roll-outs stay
  uniformly random in every round (roll-outs by the greedy network made
  the labels worse: the training-from-scratch page), so the expert does
  not change and the network learns from every round's labels, not the
  last two.
- The network: the learners' MLP (:mod:`cardenvs.agents.mlp`: symlog, two
  tanh layers), fitted by masked cross-entropy to the search's choices of
  this round and the round before, warm-started from the last round's;
  saved after each round as a policy file (``mlp:PATH`` rates it).

    python examples/expert_iteration.py --game pepper_v0 --cpu-minutes 30 --seed 1 --run-dir runs/exit_pepper

The budget is CPU time (``--cpu-minutes``, counted as ``selfplay_ppo.py``
counts it), printed with the seed at the start; a round that would start
after the budget does not.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import sys
import time
from typing import Any

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]
if (ROOT / "cardenvs").is_dir():  # the checkout this example is in, rather than another installed copy
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from selfplay_ppo import GAME_DEFAULTS, CpuClock  # noqa: E402

import cardenvs.vector as V  # noqa: E402
from cardenvs.agents.lookahead import LookaheadAgent  # noqa: E402
from cardenvs.agents.mlp import MLPAgent, build_mlp, imitate, save_policy  # noqa: E402
from cardenvs.agents.pimc import PIMCAgent, searched  # noqa: E402
from cardenvs.registry import GAMES  # noqa: E402

#: the games whose search is the look-ahead over the next ticks (players act at once), as their
#: GameSpec's search of the agent "scratch" says
LOOKAHEAD_GAMES = tuple(g for g in GAME_DEFAULTS if (GAMES[g].scratch_search or "").startswith("lookahead"))
#: the games it plays: those PIMC searches (it needs their samplers), and Spit with the look-ahead
EXIT_GAMES = sorted(g for g in GAME_DEFAULTS if searched(g) is not None or g in LOOKAHEAD_GAMES)
#: what a budget in steps counts (``--count``), and its words
COUNTS = ("decisions", "engine-steps")
STEP_WORDS = {"decisions": "labelled decisions", "engine-steps": "engine steps x games"}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="pepper_v0", choices=EXIT_GAMES)
    p.add_argument("--config", default="{}", help="game options as JSON, merged over the game's defaults")
    p.add_argument("--cpu-minutes", type=float, default=None, help="stop when training has used this much CPU")
    p.add_argument("--rounds", type=int, default=None, help="stop after this many rounds")
    p.add_argument(
        "--total-steps",
        type=int,
        default=None,
        help="stop once this many steps are counted (--count: the decisions the search labelled, or the "
        "engine steps of the games it plays); the last round takes what is left",
    )
    p.add_argument(
        "--count",
        choices=COUNTS,
        default="decisions",
        help="what --total-steps and the snapshots' steps count: the decisions the search labels (the default, "
        "as the committed policies trained) or engine-steps, engine steps x games as the other learners count "
        "them (a step with no choice, or Spit's two seats in one tick, is one step)",
    )
    p.add_argument("--run-dir", default=None, help="where each round's policy and run.json go")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--worlds", type=int, default=16, help="worlds the search samples per decision")
    p.add_argument("--horizon", type=int, default=4, help="Spit: ticks the look-ahead plays out")
    p.add_argument("--num-envs", type=int, default=64, help="games the search plays at once")
    p.add_argument("--decisions", type=int, default=40_000, help="decisions labelled by the search per round")
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--epochs", type=int, default=6, help="passes over the labels per round")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--torch-threads", type=int, default=1)
    p.add_argument("--quiet", action="store_true")
    p.add_argument(
        "--cut-rounds",
        action="store_true",
        help="stop labelling when the CPU budget runs out and fit what was labelled (an algorithm benchmark's "
        "budget); without it a round always finishes, as the committed policies trained",
    )
    p.add_argument(
        "--snapshot-every",
        type=float,
        default=None,
        help="(accepted for the retrain command: a policy is saved every round)",
    )
    args = p.parse_args(argv)
    # (Spit: the game's own options, not the PPO learner's 600-tick games: the network
    # reads the ticks left, and is played in full games)
    defaults = {} if args.game in LOOKAHEAD_GAMES else GAME_DEFAULTS[args.game]
    args.config = {**defaults, **json.loads(args.config)}
    if args.cpu_minutes is None and args.rounds is None and args.total_steps is None:
        args.rounds = 3
    positive = ("cpu_minutes", "rounds", "total_steps", "worlds", "horizon", "num_envs", "decisions", "hidden")
    for name in (*positive, "epochs"):
        value = getattr(args, name)
        if value is not None and value <= 0:
            p.error(f"--{name.replace('_', '-')} must be positive, got {value}")
    return args


def label(
    args: argparse.Namespace,
    teacher: Any,
    rng: np.random.Generator,
    spent: Any = lambda: False,
    most_steps: float = math.inf,
) -> tuple[tuple[np.ndarray, ...], int]:
    """The search's (observation, mask, action) at ``args.decisions``
    decisions of games it plays in every seat (new deals as games end), or
    fewer when ``spent()`` says the budget ran out (``--cut-rounds``) or
    the games have taken ``most_steps`` engine steps; and the engine steps
    they took (engine steps x games)."""
    engine = V.make(args.game, args.num_envs, seed=int(rng.integers(2**31)), rng="per_game", **args.config)
    engine.reset(seed=int(rng.integers(2**31)))
    rules, state = engine.rules, engine.state
    xs, ms, ys, total, stepped = [], [], [], 0, 0
    while total < args.decisions and not (total and spent()) and stepped < most_steps:
        rows = np.flatnonzero(~state.done)
        if not len(rows):
            engine.reset(seed=int(rng.integers(2**31)))
            state = engine.state
            continue
        actions = np.zeros((len(rows), *state.legal.shape[1:-1]), np.int64)  # (rows,) or (rows, seats)
        for obs, mask, decided, at in decisions(teacher, rules, state, rows):
            choice = mask.sum(axis=1) > 1  # (a forced move teaches nothing)
            xs.append(np.asarray(obs[choice], np.float32)), ms.append(mask[choice].copy()), ys.append(decided[choice])
            total += int(choice.sum())
            actions[at] = decided
        full = np.zeros((args.num_envs, *actions.shape[1:]), np.int64)
        full[rows] = actions
        if len(rows) == args.num_envs:
            rules.step(state, full)
        else:
            part = state.select(rows)
            rules.step(part, actions)
            state.assign(rows, part)
        stepped += len(rows)
    engine.close()
    return (np.concatenate(xs), np.concatenate(ms), np.concatenate(ys)), stepped


def decisions(teacher: Any, rules: Any, state: Any, rows: np.ndarray) -> list[tuple[Any, ...]]:
    """The search's decisions in ``rows``: (observations, masks, actions,
    where they go in the step's actions) for the seat to act, or in Spit
    for each seat (both act at every tick)."""
    if state.legal.ndim == 2:
        actions = teacher.act_states(rules, state, rows)
        return [(rules.observe(state, state.current[rows], rows), state.legal[rows], actions, slice(None))]
    seen = rules.observe(state, rows)
    return [
        (seen[:, s], state.legal[rows, s], teacher.act_states(rules, state, rows, seat=s), (slice(None), s))
        for s in range(state.legal.shape[1])
    ]


def fit(net: torch.nn.Module, data: list[tuple[np.ndarray, ...]], args: argparse.Namespace, seed: int) -> float:
    """The search's choices of the kept rounds, imitated; returns the last epoch's mean loss."""
    x, m, y = (np.concatenate([d[k] for d in data]) for k in range(3))
    return imitate(net, x, m, y, epochs=args.epochs, lr=args.lr, batch=512, seed=seed)[-1]


def train(args: argparse.Namespace) -> dict[str, Any]:
    """Run the rounds; returns the run's record (also ``run.json`` in ``--run-dir``)."""
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    rng = np.random.default_rng(args.seed)
    probe = V.make(args.game, 1, seed=0, **args.config)
    obs_size, num_actions = probe.single_observation_space.shape[-1], probe.single_action_space.n
    probe.close()
    net = build_mlp(obs_size, [args.hidden, args.hidden], num_actions)
    meta = {"game": args.game, "config": args.config, "obs_size": obs_size, "num_actions": num_actions}
    print(
        f"expert iteration on {args.game} {json.dumps(args.config)}: seed {args.seed}, budget "
        + ", ".join(
            text
            for value, text in (
                (args.cpu_minutes, f"{args.cpu_minutes or 0:g} CPU-minutes"),
                (args.total_steps, f"{args.total_steps or 0:,} " + STEP_WORDS[args.count]),
                (args.rounds, f"{args.rounds} rounds"),
            )
            if value
        )
        + (
            f", the look-ahead over {args.horizon} ticks with {args.worlds} worlds"
            if args.game in LOOKAHEAD_GAMES
            else f", PIMC over every decision with {args.worlds} worlds"
        )
        + f", {args.decisions:,} decisions a round",
        flush=True,
    )
    run_dir = pathlib.Path(args.run_dir) if args.run_dir else None
    if run_dir:
        run_dir.mkdir(parents=True, exist_ok=True)
    clock, budget = CpuClock(), (args.cpu_minutes * 60 if args.cpu_minutes else math.inf)
    data: list[tuple[np.ndarray, ...]] = []
    snaps, rounds, steps, start = [], 0, 0, time.perf_counter()
    left = (lambda: math.inf) if args.total_steps is None else (lambda: args.total_steps - steps)
    by_steps = args.count == "engine-steps"
    while (args.rounds is None or rounds < args.rounds) and clock.seconds() < budget and left() > 0:
        teacher = expert(args, net, meta, rounds, int(rng.integers(2**31)))
        # (counting engine steps, a round labels its decisions unless the budget's steps run out first;
        # counting decisions, it labels at most what is left of the budget)
        decisions = args.decisions if by_steps else int(min(args.decisions, left()))
        this_round = argparse.Namespace(**{**vars(args), "decisions": decisions})
        kept = data if args.game in LOOKAHEAD_GAMES else data[-1:]  # (the look-ahead's labels stay true)
        spent = lambda: args.cut_rounds and clock.seconds() >= budget  # noqa: E731
        labels, stepped = label(this_round, teacher, rng, spent, left() if by_steps else math.inf)
        data = kept + [labels]
        steps += stepped if by_steps else len(labels[0])
        loss = fit(net, data, args, args.seed + rounds)
        rounds += 1
        cpu = clock.seconds()
        if not args.quiet:
            print(f"round {rounds}: {len(data[-1][0]):,} labels, loss {loss:.3f}, cpu {cpu:,.0f}s", flush=True)
        if run_dir:
            snaps.append(save(args, net, meta, run_dir, cpu, steps, rounds, final=False))
    cpu = clock.seconds()
    reason = "cpu_budget" if cpu >= budget else "rounds" if left() > 0 else "total_steps"
    record = {"game": args.game, "config": args.config, "algorithm": "expert_iteration", "seed": args.seed}
    record.update(rounds=rounds, steps=steps, cpu_seconds=round(cpu, 3), stop_reason=reason, args=vars(args))
    if run_dir:
        if snaps:
            snaps[-1]["final"] = True
            last = json.loads((run_dir / snaps[-1]["file"]).read_text())
            last["training"]["final"] = True
            (run_dir / snaps[-1]["file"]).write_text(json.dumps(last, indent=1) + "\n")
        record["snapshots"] = snaps
        (run_dir / "run.json").write_text(json.dumps(record, indent=1) + "\n")
    print(
        f"done: {rounds} rounds, {steps:,} {STEP_WORDS[args.count]}, {cpu:.0f} CPU-s ({reason}) "
        f"in {time.perf_counter() - start:.0f}s",
        flush=True,
    )
    record["net"] = net
    return record


def expert(args: argparse.Namespace, net: torch.nn.Module, meta: dict, rounds: int, seed: int) -> Any:
    """The search of round ``rounds`` (from 0): PIMC over every decision,
    its roll-outs random in round 0 and by the last round's network after;
    in Spit the look-ahead with random roll-outs in every round."""
    if args.game in LOOKAHEAD_GAMES:
        return LookaheadAgent(args.game, worlds=args.worlds, horizon=args.horizon, seed=seed, **args.config)
    rollout: Any = "random" if rounds == 0 else MLPAgent(net, meta, name=f"exit{rounds}")
    return PIMCAgent(
        args.game, worlds=args.worlds, rollout=rollout, search="all", score="margin", seed=seed, **args.config
    )


def save(args, net, meta, run_dir: pathlib.Path, cpu: float, steps: int, rounds: int, final: bool) -> dict:
    """One round's policy as ``policy_<cpu seconds>_r<round>`` (the learners'
    file format; the round keeps two short rounds in one CPU-second apart)."""
    # (on a steps budget named by their steps: the run replays its files)
    name = f"policy_{int(cpu):06d}" if args.total_steps is None else f"policy_{steps:012d}"
    stem = run_dir / f"{name}_r{rounds:03d}"
    training = {"algorithm": "expert_iteration", "seed": args.seed, "steps": steps, "rounds": rounds}
    training.update(cpu_seconds=round(cpu, 3), final=final, worlds=args.worlds)
    if args.game in LOOKAHEAD_GAMES:
        training["horizon"] = args.horizon
    if args.count != "decisions":  # (what its steps are; the default's files are as they were)
        training["count"] = args.count
    save_policy(stem, net, hidden=[args.hidden, args.hidden], training=training, **meta)
    return {"file": stem.name + ".json", "cpu_seconds": round(cpu, 3), "steps": steps, "final": final}


if __name__ == "__main__":
    train(parse_args())
