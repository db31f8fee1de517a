"""Evaluation: play agents against each other on the batched engine, with
seats rotated, and report win rates with 95% confidence intervals.

A *match* between agent A and agent B: in partnership games A plays one
team and B the other, the teams swapping sides every other game; otherwise A
sits at one seat (rotated over the table, game by game) and B plays every
other seat: A is measured alone among strangers, never with copies of
itself at the table (in Cancellation Hearts and 3-player Pepper copies of a
self-play policy can gang up on an outsider).  A's win rate counts the
games A's seat won (ties at the top count as wins for everyone tied, as in
the rules), against the share a seat would win by chance.  Every result
counts how its games ended -- won, lost, drawn, truncated -- and a
truncated game is never a win (Spit's ``max_ticks``); a share of
truncations above 1% is flagged.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import cardenvs.vector as V

from ..core.agent import Agent
from .duplicate import ends_text


def wilson_interval(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class MatchResult:
    agent: str
    opponent: str
    games: int
    wins: int
    draws: int  # games that ended with every seat alike (all tied), truncations apart
    mean_score: float  # A's seat's final score, mean over games
    mean_opponent_score: float
    chance: float = 0.5  # the share of games a seat wins by chance (1/2 for teams or two players, else 1/n)
    truncated: int = 0  # games cut short (Spit's max_ticks): never a win, nor a draw

    @property
    def losses(self) -> int:
        return self.games - self.wins - self.draws - self.truncated

    @property
    def truncated_share(self) -> float:
        return self.truncated / self.games if self.games else 0.0

    def ends_text(self) -> str:
        """won-lost-drawn and the truncations (flagged above 1%)."""
        return ends_text((self.wins, self.losses, self.draws, self.truncated))

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def ci(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)

    def verdict(self) -> str:
        """Whether the agent beats its opponent, honestly: only when the
        Wilson 95% interval lies wholly above chance."""
        lo, hi = self.ci
        span = f"{self.win_rate:.1%} [{lo:.1%}, {hi:.1%}] over {self.games} games, chance {self.chance:.1%}"
        span += f"; won-lost-drawn {self.ends_text()}"
        if lo > self.chance:
            return f"{self.agent} beats {self.opponent}: {span} (the 95% interval lies above chance)"
        if hi < self.chance:
            return f"{self.agent} loses to {self.opponent}: {span} (the 95% interval lies below chance)"
        return f"{self.agent} does not beat {self.opponent} yet: {span} (the 95% interval includes chance)"

    def __str__(self) -> str:
        lo, hi = self.ci
        return (
            f"{self.agent} vs {self.opponent}: won {self.wins}/{self.games} = {self.win_rate:.1%} "
            f"[95% CI {lo:.1%}, {hi:.1%}], mean score {self.mean_score:.1f} vs {self.mean_opponent_score:.1f}; "
            f"won-lost-drawn {self.ends_text()}"
        )


def seat_chance(rules: Any) -> float:
    """The share of games one agent wins by chance in a match (see the module
    docstring): 1/2 for two teams or two players, else 1/n."""
    return 0.5 if getattr(rules, "partnerships", False) else 1.0 / rules.num_players


def play_games(
    game: str, seat_agents: Sequence[Agent] | Any, num_games: int, seed: int = 0, num_envs: int = 128, **config: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play ``num_games`` games; ``seat_agents(game_index)`` (or a fixed list)
    gives the agent of each seat.  Returns per game: the seat-assignment index,
    terminal rewards ``(num_games, P)``, final scores ``(num_games, P)`` and
    whether it was truncated ``(num_games,)``."""
    num_envs = min(num_envs, num_games)
    engine = V.make(game, num_envs=num_envs, seed=seed, **config)
    n = engine.num_players
    assign = seat_agents if callable(seat_agents) else (lambda k: seat_agents)
    obs, info = engine.reset()
    simultaneous = obs.ndim == 3  # (N, P, obs): every player acts at every tick
    slot_game = np.arange(num_envs)  # which game index each slot is playing
    next_game = num_envs
    totals = np.zeros((num_games, n))
    rewards_out = np.zeros((num_games, n))
    scores_out = np.zeros((num_games, n))
    truncated_out = np.zeros(num_games, bool)
    finished = 0
    active = np.ones(num_envs, bool)
    while finished < num_games:
        mask = info["action_mask"]
        rows = np.flatnonzero(active)
        if simultaneous:
            actions = np.zeros((num_envs, n), np.int64)
            for seat in range(n):
                for agent, idx in _group(rows, lambda i: assign(slot_game[i])[seat]):
                    actions[idx, seat] = agent.act_batch(obs[idx, seat], mask[idx, seat])
            # finished slots (inactive) keep playing their next game unobserved
            step_rows = None
        else:
            cur = info["current_player"]
            actions = np.zeros(num_envs, np.int64)
            for agent, idx in _group(rows, lambda i: assign(slot_game[i])[cur[i]]):
                actions[idx] = agent.act_batch(obs[idx], mask[idx])
            step_rows = rows
        if simultaneous:
            idle = np.flatnonzero(~active)
            for seat in range(n):  # idle slots: any legal action
                actions[idle, seat] = mask[idle, seat].argmax(axis=-1)
            obs, rew, term, trunc, info = engine.step(actions)
        else:
            obs, rew, term, trunc, info = engine.step(actions, rows=step_rows)
        totals[slot_game[rows]] += rew[rows]
        for i in np.flatnonzero((term | trunc) & active):
            g = slot_game[i]
            rewards_out[g] = totals[g]
            scores_out[g] = info["final_scores"][i]
            truncated_out[g] = trunc[i]
            finished += 1
            if next_game < num_games:
                slot_game[i] = next_game
                next_game += 1
            else:
                active[i] = False
    return np.arange(num_games), rewards_out, scores_out, truncated_out


def _group(rows: np.ndarray, agent_of) -> list[tuple[Agent, np.ndarray]]:
    """Rows grouped by the agent that must act in them."""
    owners: dict[int, tuple[Agent, list[int]]] = {}
    for i in rows:
        agent = agent_of(i)
        owners.setdefault(id(agent), (agent, []))[1].append(i)
    return [(agent, np.array(idx)) for agent, idx in owners.values()]


def match(game: str, agent: Agent, opponent: Agent, num_games: int = 200, seed: int = 0, **config: Any) -> MatchResult:
    """Agent vs opponent with seats rotated (see the module docstring)."""
    rules = V.rules_class(game)(**config)
    n = rules.num_players
    partnerships = getattr(rules, "partnerships", False)

    def seat_of_agent(g: int) -> int:
        return g % (2 if partnerships else n)

    def seats(g: int) -> list[Agent]:
        a = seat_of_agent(g)
        if partnerships:
            return [agent if s % 2 == a else opponent for s in range(n)]
        return [agent if s == a else opponent for s in range(n)]

    idx = np.arange(num_games)
    a_seat = np.array([seat_of_agent(g) for g in idx])
    opp_seat = (a_seat + 1) % n
    # the rules' winners of each game (a positive reward is not a win: with margin rewards every seat below
    # the table's mean points gains, and Speed's winner may score 0), a truncated game never a win
    won, scores, truncated = _match_games(game, agent, opponent, seats, num_games, seed, config)
    tied = np.all(won == won[:, :1], axis=1)
    a_won = won[idx, a_seat] & ~tied & ~truncated
    return MatchResult(
        agent.name,
        opponent.name,
        num_games,
        int(np.sum(a_won)),
        int(np.sum(tied & ~truncated)),
        float(scores[idx, a_seat].mean()),
        float(scores[idx, opp_seat].mean()),
        chance=seat_chance(rules),
        truncated=int(np.sum(truncated)),
    )


def _match_games(
    game: str, agent: Agent, opponent: Agent, seats: Any, num_games: int, seed: int, config: dict
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The games of a match, played by the duplicate engine (which gives
    agents that read the engine state, as PIMC, the state and what the
    seats saw, and keeps each game's winners as the rules name them), each
    game on deals of its own (``independent``), in the match's seat
    rotation.  Returns per game whether each seat won and the final scores,
    ``(num_games, P)`` each, and whether it was truncated."""
    from .duplicate import play_duplicate

    rotation = [seats(g) for g in range(min(num_games, 2 * len(seats(0))))]
    table = np.array([[0 if a is agent else 1 for a in row] for row in rotation])
    period = len(table)
    for start in range(1, period + 1):  # the shortest period of the rotation
        if period % start == 0 and all((table[i] == table[i % start]).all() for i in range(period)):
            table = table[:start]
            break
    deals = -(-num_games // len(table))
    record = play_duplicate(game, [agent, opponent], deals, seed, seatings=table, independent=True, **config)
    won = record.winners.reshape(-1, record.winners.shape[-1])[:num_games]
    scores = record.scores.reshape(-1, record.scores.shape[-1])[:num_games]
    return won.astype(bool), scores, record.truncations().reshape(-1)[:num_games]


def tournament(
    game: str,
    agents: Sequence[Agent],
    num_games: int = 200,
    seed: int = 0,
    rows: Sequence[str] | None = None,
    **config: Any,
) -> list[list[MatchResult | None]]:
    """Every agent against every other (rows: agent, columns: opponent);
    ``rows``: only the matches of the agents with these names as the row
    agent (the others' cells stay None), e.g. ``["ppo"]`` for a baseline
    against the rest."""
    table: list[list[MatchResult | None]] = []
    for a in agents:
        row: list[MatchResult | None] = []
        for b in agents:
            skip = a is b or (rows is not None and a.name not in rows)
            row.append(None if skip else match(game, a, b, num_games, seed, **config))
        table.append(row)
    return table


def format_table(agents: Sequence[Agent], table: list[list[MatchResult | None]]) -> str:
    """A markdown table of win rates (row agent vs column opponent), each
    with its interval and how the games ended (won-lost-drawn, truncations
    flagged above 1%)."""
    head = "| win rate of row vs column (won-lost-drawn) | " + " | ".join(a.name for a in agents) + " |"
    sep = "| --- |" + " --- |" * len(agents)
    lines = [head, sep]
    for a, row in zip(agents, table):
        if all(r is None for r in row) and len(agents) > 1:
            continue  # an agent whose matches were not played (``tournament(rows=...)``)
        cells = []
        for r in row:
            if r is None:
                cells.append("-")
            else:
                lo, hi = r.ci
                cells.append(f"{r.win_rate:.0%} [{lo:.0%}, {hi:.0%}] ({r.ends_text()})")
        lines.append(f"| {a.name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
