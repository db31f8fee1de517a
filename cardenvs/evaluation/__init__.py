"""Evaluation: agents played against each other on the batched engine.

It stands on :mod:`cardenvs.agents` (the agents, made from their specs) and
never imports :mod:`cardenvs.training`.  ``import cardenvs.evaluation``
imports no torch (the ``train`` extra): a trained policy brings it when one
is loaded.

- :func:`match` (:mod:`cardenvs.evaluation.matches`): one agent against
  another, a win rate with its confidence interval (:class:`MatchResult`);
  :func:`tournament`, every pair of a few agents.
- :func:`duplicate_match` (:mod:`cardenvs.evaluation.duplicate`): every
  deal played once per seat arrangement, so that the luck of the cards
  cancels out of the comparison (:class:`PairResult`); the engine loop is
  :mod:`cardenvs.evaluation.duplicate_play`.
- :func:`league` (:mod:`cardenvs.evaluation.leagues`): every pair of a pool
  of agents in duplicate, rated (:mod:`cardenvs.evaluation.ratings`:
  Bradley-Terry / Plackett-Luce, :class:`Rating`) into a
  :class:`LeagueResult`, with its run folder (:mod:`cardenvs.evaluation.run_dir`).
- :func:`compare` (:mod:`cardenvs.evaluation.comparison`): algorithm
  benchmarks, which training algorithm learns a game better, scored and
  summarised by :mod:`cardenvs.evaluation.compare_files`,
  :mod:`cardenvs.evaluation.compare_score` and
  :mod:`cardenvs.evaluation.compare_stats`.
"""

from .comparison import compare
from .duplicate import PairResult, duplicate_match
from .leagues import LeagueResult, league
from .matches import MatchResult, match, tournament
from .ratings import Rating

__all__ = [
    "match",
    "MatchResult",
    "tournament",
    "duplicate_match",
    "PairResult",
    "league",
    "LeagueResult",
    "Rating",
    "compare",
]
