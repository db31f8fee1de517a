"""The score of an algorithm benchmark (:mod:`.comparison`): what one trained
agent is worth, measured as an outsider measures it.

The agent plays the game's rule agent in duplicate deals
(:func:`~cardenvs.evaluation.duplicate.play_duplicate`) on the evaluation deals
(:data:`EVAL_SEED`, never a training seed): in a two-sided game it holds
each side against the rule agent's; in a free-for-all game it sits alone
among rule agents, seats rotated, never beside copies of itself.  Its
**margin** is its final score less the rule agent's, per deal
(``measure="score"``: Hearts' points negated, the lowest score winning;
Spit's score is the games won), and its **score** puts that margin on the
scale of two anchors measured on the same deals:

    score = (margin - margin of random) / (margin of rule - margin of random)

The rule agent's margin against itself is 0 (the same deals seated both
ways, or each seat once alone among its own copies), so random play scores
0 and the rule agent 1.  Points resolve what whole games do not: two agents
that never beat the rule agent but lose 20 and 76 points a game to it get
0.81 and 0.29 in Pepper (measured 2026-12-06, 50 deals), where a score on
games won gave both 0.487.  The trivial policies (``lowest``, ``highest``:
always the lowest or highest legal action id; in Spit ``lowest`` waits:
the staller) are scored on the same deals as reference rows.  Every score
keeps how the agent's games ended (won, lost, drawn, truncated).
"""

from __future__ import annotations

import math
import pathlib
from collections.abc import Callable
from typing import Any

from ..agents.specs import AgentSpecError, agent_factory
from .duplicate import play_duplicate, summarise_pair
from .leagues import agent_seed

EVAL_SEED = 777_000  # the evaluation deals' seed; training seeds are 0 .. MAX_SEEDS - 1
OPPONENT, ANCHOR = "rule", "random"  # who every agent plays, and the anchor of 0
TRIVIAL = ("lowest", "highest")  # the reference rows of every comparison
MEASURE = "score"  # the margin: final score less the rule agent's, per deal


class ScoreError(ValueError):
    """A game the score cannot be measured in (no rule agent, no scale): one line."""


def network_snapshot(path: pathlib.Path, game: str) -> Any:
    """A learner's policy file, played alone (a curve's snapshots, by default)."""
    from ..agents.mlp import MLPAgent

    return MLPAgent.load(path, game=game)


class Scorer:
    """The score of agents in one game, on ``deals`` evaluation deals
    (``batch`` at a time: the deals depend on both).  The anchor (random
    against the rule agent) is played once, on first use."""

    def __init__(self, game: str, deals: int, batch: int, seed: int = EVAL_SEED):
        from ..agents.policy import one_torch_thread

        one_torch_thread()  # small batches: torch's threads only contend for shared cores
        self.game, self.deals, self.batch, self.seed = game, deals, batch, seed
        try:
            self.makers = {name: agent_factory(game, name) for name in (OPPONENT, ANCHOR, *TRIVIAL)}
        except AgentSpecError as e:
            raise ScoreError(f"{game} has no {OPPONENT} agent to be measured against: {e}") from None
        self._anchor: float | None = None

    def margin(self, agent: Any, name: str, key: int) -> dict[str, Any]:
        """``agent``'s margin over the rule agent: mean and 95% interval per
        deal, how its games ended and its forfeits."""
        rule = self.makers[OPPONENT](agent_seed(self.seed, (key, 0), 1))
        record = play_duplicate(
            self.game, [agent, rule], self.deals, self.seed, batch=self.batch, names=[name, OPPONENT]
        )
        pair = summarise_pair(record, MEASURE)
        ends = dict(zip(("won", "lost", "drawn", "truncated"), pair.ends[0]))
        interval = [x if math.isfinite(x) else None for x in (pair.low, pair.high)]  # (one deal: unbounded, null)
        return {"margin": [pair.mean, *interval], "ends": ends, "forfeits": pair.forfeits[0]}

    def anchor(self) -> float:
        """Random play's mean margin over the rule agent (below 0, or ScoreError: no scale)."""
        if self._anchor is None:
            random = self.makers[ANCHOR](agent_seed(self.seed, (1, 0), 0))
            self._anchor = self.margin(random, ANCHOR, 1)["margin"][0]
            if not self._anchor < 0:
                raise ScoreError(
                    f"{self.game}: random play did not lose to the rule agent over {self.deals} deals "
                    "(no scale to normalise by): give more --deals"
                )
        return self._anchor

    def scale(self, margin: float) -> float:
        """A margin on the score's scale (random 0, rule 1)."""
        return 1.0 - margin / self.anchor()

    def score(self, agent: Any, name: str = "trained") -> dict[str, Any]:
        """``agent``'s score with its interval (the margin's, scaled), its
        margin, the anchor's, how its games ended and its forfeits."""
        measured = self.margin(agent, name, 2)
        mean, low, high = measured["margin"]
        interval = [None if x is None else self.scale(x) for x in (low, high)]
        return {"score": self.scale(mean), "score_interval": interval, **measured, "random_margin": self.anchor()}

    def reference_rows(self) -> dict[str, dict[str, Any]]:
        """The trivial policies' scores on the same deals (and the anchors'
        by definition: random 0, rule 1)."""
        rows = {name: self.score(self.makers[name](0), name) for name in TRIVIAL}
        return {ANCHOR: {"score": 0.0}, OPPONENT: {"score": 1.0}, **rows}

    def curve(
        self,
        points: list[tuple[pathlib.Path, int]],
        say: Callable[[str], None],
        load: Callable[[pathlib.Path, str], Any] = network_snapshot,
    ) -> list[dict[str, Any]]:
        """The scores of the snapshots ``points`` ((policy file, steps) each),
        each played as ``load(path, game)`` makes it (default: the network
        alone); a snapshot that cannot be loaded is skipped, said, and not a point."""
        out = []
        for path, steps in points:
            try:
                agent = load(path, self.game)
            except ValueError as e:
                say(f"compare: snapshot {path.name} skipped, it cannot be loaded: {e}")
                continue
            out.append({"steps": steps, "score": self.score(agent, path.stem)["score"]})
        return out


def finite(value: Any) -> bool:
    """A finite int or float (a score a file may hold)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
