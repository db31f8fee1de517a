"""The strongest agent of a game (``make_agent(game, "best")``) against PIMC
with 32 worlds and rule roll-outs, in duplicate deals of the whole game on
deal seeds used for nothing else, with its own CPU time per searched decision (the time in its calls over
the decisions its search made).

    python benchmarks/learning/strongest.py --game pepper_v0 --deals 100 --seed 4200000 --json
    python benchmarks/learning/strongest.py --game push_v0 --agent scratch --against rule \\
        --policy runs/scratch_push_v0_s2 --label s2 --deals 200 --seed 8200000 --json

``--policy`` names a training seed's policy file, or its run folder (its
final snapshot).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(pathlib.Path(__file__).resolve().parent)]

import report  # noqa: E402
from curves import read_run  # noqa: E402
from rate import EVAL_CONFIG, edge_text, edges  # noqa: E402

from cardenvs.agents.specs import agent_factory, best_spec, scratch_agent  # noqa: E402
from cardenvs.registry import GAMES  # noqa: E402

PIMC32 = "pimc:worlds=32,rollout=rule"


def measure(game: str, spec: str, against: str, deals: int, seed: int, policy: str | None = None) -> dict:
    """``spec`` against ``against``; with ``policy``, ``spec`` is ``scratch``
    made of that policy file (a training seed's) instead of the committed one."""
    config = EVAL_CONFIG.get(game, {})
    mine = scratch_agent(game, seed, policy, **config) if policy else agent_factory(game, spec, config)(seed)
    other = agent_factory(game, against, config)(seed + 1)
    spent = timed(mine)
    rated = edges(game, mine, other, deals, seed, [spec, against], config)
    out = {"game": game, "agent": spec, "against": against, "deals": deals, "deal_seed": seed}
    out.update(win_edge=edge_text(rated["win"]), hand_edge=edge_text(rated["hand"]))
    out.update(ms_per_decision=1000 * spent[0] / max(1, spent[1]), cpu_seconds=spent[0], decisions=spent[1])
    return out


def policy_file(path: str) -> str:
    """``path``, a policy file; or, a run folder, its final snapshot's file
    (the last one when the run stopped before it marked one final)."""
    folder = pathlib.Path(path)
    if not folder.is_dir():
        return path
    snapshots = read_run(folder)["snapshots"]
    final = [s for s in snapshots if s.get("final")] or snapshots[-1:]
    if not final:
        raise SystemExit(f"--policy: {folder} holds no policy snapshot")
    return str(folder / final[-1]["file"])


def timed(agent) -> list[float]:
    """Count the CPU time of ``agent``'s decisions (its ``act_states``, else
    ``act_batch``) and their number into the returned ``[seconds, decisions]``."""
    spent = [0.0, 0]
    name = "act_states" if hasattr(agent, "act_states") else "act_batch"
    real = getattr(agent, name)

    def act(*args, **kwargs):
        start = time.process_time()
        try:
            return real(*args, **kwargs)
        finally:
            spent[0] += time.process_time() - start
            spent[1] += len(args[2] if name == "act_states" else args[0])

    setattr(agent, name, act)
    return spent


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", required=True)
    p.add_argument("--agent", default="best", help="best (the game's, by its GameSpec), scratch or any spec")
    p.add_argument("--against", default=PIMC32)
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--seed", type=int, default=4_200_000, help="deal seeds used for nothing else")
    p.add_argument(
        "--policy",
        default=None,
        help="with --agent scratch: a training seed's policy file or run folder, not the committed policy",
    )
    p.add_argument(
        "--label",
        default=None,
        help="with --policy: its name in the results (e.g. s2: strongest-<game>-scratch-s2.json)",
    )
    p.add_argument(
        "--json", action="store_true", help="write benchmarks/results/strongest-<game>-<agent>[-<label>].json"
    )
    args = p.parse_args(argv)
    if args.policy and args.agent != "scratch":
        p.error("--policy goes with --agent scratch")
    spec = best_spec(args.game) if args.agent == "best" else args.agent
    policy = policy_file(args.policy) if args.policy else None
    info = report.machine()
    result = measure(args.game, spec, args.against, args.deals, args.seed, policy)
    if args.agent in ("best", "scratch"):
        result["agent"] = f"{args.agent}: {spec}" if spec != args.agent else spec
    search = GAMES[args.game].scratch_search if args.agent == "scratch" else None
    if search:
        result["agent"] = f"scratch: {search} over its policy"
    if args.policy:
        whose = f"{args.label or pathlib.Path(policy).name}'s policy"
        result["agent"] = f"scratch: {search} over {whose}" if search else f"scratch: {whose}"
        result["policy"] = report.portable(str(pathlib.Path(policy).resolve()))
    print(json.dumps(result), flush=True)
    if args.json:
        name = args.agent if args.agent in ("best", "scratch") else "other"
        name += f"-{args.label}" if args.label else ""
        path = report.RESULTS / f"strongest-{args.game}-{name}.json"
        report.write(path, "strongest", [result], info, script="benchmarks/learning/strongest.py")
    return result


if __name__ == "__main__":
    main()
