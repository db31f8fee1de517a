"""Diagnosis 3 for Spit: which of the rule agent's choices win its games?

The rule agent (``cardenvs/games/spit/agent.py``) makes four choices: it
slaps the smaller spit pile, plays whenever a card fits, plays from the
stockpile with the most face-down cards, and when it cannot play moves a
top card into an empty space if that turns a face-down card up.  Each row here takes one choice
away (ablations of the rule agent: measuring tools, not learners) or adds
one to a learned policy, and plays it against the rule agent with seats
rotated (``match``), on deal seeds used for nothing else:

- ``rule``: the rule agent itself (chance is 50%);
- ``any play``: the rule agent, but a play is drawn uniformly among the
  legal plays (seeded) instead of the one from the tallest stockpile;
- ``any play, any move``: also a move drawn uniformly among the legal ones
  whenever it cannot play (instead of only a move that turns a card up);
- ``no moves``: the rule agent, waiting where it would move;
- ``any slap``: the rule agent, slapping a pile drawn uniformly (instead of
  the smaller one);
- ``denial``: the rule agent with ``deny=True`` (among the plays, the one
  that leaves the opponent the fewest);
- each ``--policies`` spec; the same policy never waiting while it could
  play (its best-scored action other than waiting); and the policy choosing
  only which card to play (where the rule agent plays, the policy's best
  play; every other decision the rule agent's).

    python benchmarks/learning/spit_choices.py --games 400 --policies scratch-policy --out FILE
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cardenvs.agents.specs import agent_factory, split_specs  # noqa: E402
from cardenvs.core.agent import Agent  # noqa: E402
from cardenvs.evaluation.matches import match  # noqa: E402
from cardenvs.games.spit.agent import SpitRuleAgent  # noqa: E402
from cardenvs.games.spit.tables import WAIT  # noqa: E402  (the action id of waiting)

GAME = "spit_v0"
KINDS = np.array(SpitRuleAgent().kind)  # each action's kind: wait, play, move or slap


class Ablated(Agent):
    """The rule agent with its play, move or slap choice drawn uniformly
    among the legal ones, or its moves replaced by waiting."""

    def __init__(self, name: str, plays: str = "rule", moves: str = "rule", slaps: str = "rule", seed: int = 0):
        super().__init__()
        self.name, self.plays, self.moves, self.slaps = name, plays, moves, slaps
        self.rule, self.rng = SpitRuleAgent(), np.random.default_rng(seed)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = np.asarray(mask, bool)
        out = self.rule.act_batch(obs, mask)
        kind = KINDS[out]
        draw = np.where(mask, self.rng.random(mask.shape), -1.0)  # a uniform draw among each row's legal actions
        drawn = {k: np.where(k == KINDS, draw, -1.0) for k in ("slap", "play", "move")}  # ... of one kind
        if self.slaps == "any":
            out = np.where(kind == "slap", drawn["slap"].argmax(axis=1), out)
        if self.plays == "any":
            out = np.where(kind == "play", drawn["play"].argmax(axis=1), out)
        if self.moves == "any":  # a move wherever it cannot play and a move is legal
            could = (drawn["move"].max(axis=1) >= 0) & (drawn["play"].max(axis=1) < 0) & (kind != "slap")
            out = np.where(could, drawn["move"].argmax(axis=1), out)
        if self.moves == "none":
            out = np.where(kind == "move", WAIT, out)
        return out


class NeverWaits(Agent):
    """A policy made to play whenever it can: waiting is masked out where
    another action is legal, and the policy picks among the rest."""

    def __init__(self, policy):
        super().__init__()
        self.policy, self.name = policy, f"{policy.name}, never waiting"

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = np.array(mask, bool)
        mask[mask[:, 1:].any(axis=1), WAIT] = False
        return self.policy.act_batch(obs, mask)


class ChoosesThePlay(Agent):
    """The rule agent, except that where it plays, ``policy`` chooses which
    play (its best-scored legal play)."""

    def __init__(self, policy):
        super().__init__()
        self.policy, self.rule, self.name = policy, SpitRuleAgent(), f"{policy.name} choosing which play"

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        out = self.rule.act_batch(obs, mask)
        plays = np.array(mask, bool) & (KINDS == "play")
        rows = np.flatnonzero(KINDS[out] == "play")
        if len(rows):
            out[rows] = self.policy.act_batch(np.asarray(obs)[rows], plays[rows])
        return out


def row(name: str, agent, games: int, seed: int) -> dict:
    result = match(GAME, agent, SpitRuleAgent(), num_games=games, seed=seed)
    low, high = result.ci
    rate, ci95 = round(result.win_rate, 4), [round(low, 4), round(high, 4)]
    return {"agent": name, "games": games, "win_rate": rate, "ci95": ci95, "ended": result.ends_text()}


def main(argv: list[str] | None = None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--policies", default="scratch-policy", help="learned policies to add (agent specs that act on observations)"
    )
    p.add_argument("--games", type=int, default=400, help="games per row (seats rotated)")
    p.add_argument("--seed", type=int, default=9_400_000, help="deal seeds used for nothing else")
    p.add_argument("--out", default=None, help="write the rows as JSON here")
    args = p.parse_args(argv)
    agents = [
        ("rule", SpitRuleAgent()),
        ("any play", Ablated("any play", plays="any", seed=args.seed)),
        ("any play, any move", Ablated("any play, any move", plays="any", moves="any", seed=args.seed)),
        ("no moves", Ablated("no moves", moves="none")),
        ("any slap", Ablated("any slap", slaps="any", seed=args.seed)),
        ("denial", SpitRuleAgent(deny=True)),
    ]
    for spec in split_specs(args.policies):
        policy = agent_factory(GAME, spec)(0)
        agents += [(spec, policy), (f"{spec}, never waiting", NeverWaits(policy))]
        agents += [(f"{spec}, choosing only which play", ChoosesThePlay(policy))]
    rows = []
    for name, agent in agents:
        rows.append(row(name, agent, args.games, args.seed))
        print(json.dumps(rows[-1]), flush=True)
    if args.out:
        settings = {"games": args.games, "seed": args.seed, "against": "rule"}
        pathlib.Path(args.out).write_text(json.dumps({"settings": settings, "rows": rows}, indent=1) + "\n")
    return rows


if __name__ == "__main__":
    main()
