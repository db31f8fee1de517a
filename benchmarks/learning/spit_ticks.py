"""Diagnosis 2 for Spit: what does an agent do with its ticks?

Plays Spit games (the default config: ``max_ticks`` 5000, a truncated game
is a draw) with the agent in seat 0 against another (by default the rule
agent) in seat 1, and reports how the games end (won, lost, truncated) and
their length in ticks, and per tick: how often each seat plays a card, how
often it waits although a play or a slap is legal (the rule agent never
does), and how often it moves a card into an empty space where the rule
agent in its place would (a move that turns a face-down card up).

    python benchmarks/learning/spit_ticks.py --agents rule,mlp:PATH --games 400 --out FILE
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import cardenvs.vector as V  # noqa: E402
from cardenvs.agents.specs import agent_factory, split_specs  # noqa: E402

GAME = "spit_v0"


def decide(agent, venv, obs: np.ndarray, mask: np.ndarray, seat: int) -> np.ndarray:
    """``agent``'s actions at ``seat`` of every game of ``venv``: from the
    engine state for an agent that reads it (the look-ahead of ``scratch``)."""
    if hasattr(agent, "act_states"):
        return agent.act_states(venv.rules, venv.state, np.arange(len(obs)), seat=seat)
    return agent.act_batch(obs[:, seat], mask[:, seat])


def play_ticks(agent, other, games: int, seed: int, batch: int = 64) -> dict:
    """``agent`` in seat 0, ``other`` in seat 1, until ``games`` games ended."""
    venv = V.make(GAME, batch, seed=seed)
    obs, info = venv.reset()
    kinds = np.array([venv.rules.action_to_str(a).split()[0] for a in range(venv.rules.num_actions)])
    ticks_with_play, waits, plays = np.zeros(2), np.zeros(2), np.zeros(2)
    rule_moves, moves_too = np.zeros(2), np.zeros(2)  # ticks where the rule agent would move; and the seat did
    rule = agent_factory(GAME, "rule")(2)
    ticks = np.zeros(batch, np.int64)  # of each game being played
    stepped = 0  # games x ticks stepped
    ends: list[np.ndarray] = []  # per finished game: seat 0's reward, seat 1's, truncated, ticks
    while sum(map(len, ends)) < games:
        mask = info["action_mask"]
        actions = np.stack([decide(a, venv, obs, mask, seat) for seat, a in enumerate((agent, other))], 1)
        for seat in range(2):
            kind = kinds[actions[:, seat]]
            can = (mask[:, seat] & np.isin(kinds, ["play", "slap"])).any(axis=1)
            ticks_with_play[seat] += can.sum()
            waits[seat] += (can & (kind == "wait")).sum()
            plays[seat] += (kind == "play").sum()
            would = kinds[rule.act_batch(obs[:, seat], mask[:, seat])] == "move"
            rule_moves[seat] += would.sum()
            moves_too[seat] += (would & (kind == "move")).sum()
        obs, rewards, term, trunc, info = venv.step(actions)
        ticks += 1
        stepped += batch
        over = np.flatnonzero(term | trunc)
        ends.append(np.column_stack([rewards[over], trunc[over], ticks[over]]).astype(float))
        ticks[over] = 0
    end = np.concatenate(ends)[:games]
    return {
        "games": games,
        "won": round(float((end[:, 0] > 0).mean()), 4),
        "lost": round(float((end[:, 1] > 0).mean()), 4),
        "truncated": round(float(end[:, 2].mean()), 4),
        "median_ticks": float(np.median(end[:, 3])),
        "waits_with_a_play": [round(float(w / t), 4) for w, t in zip(waits, ticks_with_play)],
        "plays_per_100_ticks": [round(100 * float(p) / stepped, 2) for p in plays],
        "moves_where_rule_would": [round(float(m / max(r, 1)), 4) for m, r in zip(moves_too, rule_moves)],
    }


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--agents", default="rule", help="the agents of seat 0: specs or NAME=SPEC, comma-separated")
    p.add_argument("--against", default="rule", help="the agent of seat 1")
    p.add_argument("--games", type=int, default=400)
    p.add_argument("--seed", type=int, default=7_400_000, help="deal seeds never used in training")
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    report = {}
    for item in split_specs(args.agents):
        name, _, spec = item.partition("=") if "=" in item.split(":")[0] else (item, "", item)
        agent, other = agent_factory(GAME, spec)(0), agent_factory(GAME, args.against)(1)
        report[name] = {"agent": spec, **play_ticks(agent, other, args.games, args.seed)}
        print(name, json.dumps(report[name]), flush=True)
    if args.out:
        pathlib.Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
    return report


if __name__ == "__main__":
    main()
