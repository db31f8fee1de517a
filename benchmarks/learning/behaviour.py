"""Diagnosis 2: what does each Pepper agent do in each phase?

Plays one-hand games (``max_hands=1``, ``reward="score_delta"``) with one
agent in every seat, or with the agent in seats 0 and 2 against another in
seats 1 and 3, and reports per hand: the winning bid, whether the dealer
was stuck, how often the contract is made or set, the bidding side's score,
the trump named, and the tricks taken.

    python benchmarks/learning/behaviour.py --agents rule,random,mlp:PATH --hands 2048
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from collections import Counter

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import cardenvs.vector as V  # noqa: E402
from cardenvs.agents.specs import agent_factory, split_specs  # noqa: E402

GAME = "pepper_v0"
BID_NAMES = ["pass", "1", "2", "3", "4", "5", "6", "7", "little", "big"]
TRUMP_NAMES = ["C", "D", "H", "S", "none"]
HIGH_BID = 264  # observation columns (docs/pepper.md): high bid one-hot (0 none, 1..9)


def play_hands(agents: list, hands: int, seed: int) -> dict:
    """``agents[seat]``: the agent of each seat; one hand per game."""
    venv = V.make(GAME, hands, seed=seed, num_players=4, max_hands=1, reward="score_delta")
    obs, info = venv.reset()
    bid = np.full(hands, -1)
    bidder = np.full(hands, -1)
    trump = np.full(hands, -1)
    stuck = np.zeros(hands, bool)
    result = np.zeros((hands, 4))
    live = np.ones(hands, bool)
    while live.any():
        mask, seat = info["action_mask"], info["current_player"]
        act = np.zeros(hands, np.int64)
        for s in range(4):
            rows = np.flatnonzero(seat == s)  # (finished rows restart: they act too, unrecorded)
            if len(rows):
                act[rows] = agents[s].act_batch(obs[rows], mask[rows])
        first = mask.argmax(1)
        choosing = live & (first >= 10) & (first < 15)  # the trump choice: the bidder acts, the high bid is known
        bid[choosing] = obs[choosing, HIGH_BID : HIGH_BID + 10].argmax(1)
        bidder[choosing], trump[choosing] = seat[choosing], act[choosing] - 10
        stuck |= live & (first == 1) & ~mask[:, 0].astype(bool)  # a bid forced: no pass offered
        obs, rewards, term, trunc, info = venv.step(act)
        result[live] += rewards[live]
        live &= ~(term | trunc)
    side_score = result[np.arange(hands), bidder]
    made = side_score > 0
    out = {
        "hands": hands,
        "bids": {BID_NAMES[k]: round(v / hands, 4) for k, v in sorted(Counter(bid.tolist()).items())},
        "stuck_dealer": round(float(stuck.mean()), 4),
        "made": round(float(made.mean()), 4),
        "set": round(float((~made).mean()), 4),
        "bidding_side_score": round(float(side_score.mean()), 3),
        "trump": {TRUMP_NAMES[k]: round(v / hands, 4) for k, v in sorted(Counter(trump.tolist()).items())},
        "seat0_side_score": round(float(result[:, 0].mean()), 3),
        "seat1_side_score": round(float(result[:, 1].mean()), 3),
        "bidder_is_seat0_side": round(float((bidder % 2 == 0).mean()), 4),
    }
    return out


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--agents", default="random,rule")
    p.add_argument("--against", default=None, help="also play each agent in seats 0, 2 against this one in 1, 3")
    p.add_argument("--hands", type=int, default=2048)
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    report = {}
    for spec in split_specs(args.agents):
        make = agent_factory(GAME, spec, {"num_players": 4})
        agent = make(0)
        report[spec] = {"self_play": play_hands([agent] * 4, args.hands, args.seed)}
        if args.against:
            other = agent_factory(GAME, args.against, {"num_players": 4})(1)
            report[spec]["vs_" + args.against] = play_hands([agent, other, agent, other], args.hands, args.seed)
        print(spec, json.dumps(report[spec]), flush=True)
    if args.out:
        pathlib.Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
    return report


if __name__ == "__main__":
    main()
