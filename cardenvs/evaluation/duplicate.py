"""Duplicate matches: every deal played once per seat arrangement, so that
the luck of the cards cancels out of a comparison between agents.

A *seating* gives each seat the index of the agent that plays it.  The
duplicate seatings of two agents A (0) and B (1) (:func:`duplicate_seatings`):

- two sides (Pepper 2p, Pepper 4p and Push in partnerships, Spit and
  Speed): A on one side and B on the other, then the sides swapped -- each
  agent holds each side's cards once per deal;
- three or more sides (Pepper 3p, Cancellation Hearts 6-11p): A alone at
  seat k with B at every other seat, k = 0 .. n-1 (n games a deal): A's
  strength in B's field, A holding every seat's cards once.  Never the
  other way round by default: B alone among copies of A measures A's
  copies as much as B (copies of a self-play policy share conventions and
  gang up on the outsider: alone among five rule agents the self-play
  Cancellation Hearts policy of 2026-12 won 2.5% of its games, chance
  16.7%, while five copies of it left the one rule agent 0.0%), so a pair
  that averaged both would credit A for its copies.  ``seatings="mirror"``
  plays both ways (2n games a deal), for two agents that cannot collude
  (:func:`is_reference`: random, the rule agents); the pair is then
  symmetric (its result for (A, B) is minus that for (B, A)).

*The same deal* means the same cards to the same seat positions in every
seating, and the same later deals: each copy of a deal is a game of its own
on the batched engine with ``rng="per_game"`` (:mod:`cardenvs.core.streams`),
every copy's row keyed alike, and in Pepper, Cancellation Hearts and Push
nothing but the deals draws from a row's stream (a fixed count of numbers
each), so the k-th deal of the game -- hand, round -- is the same deck order
dealt by the same dealer in every copy, whatever was played (tested).  In
Spit and Speed the redeals gather the cards each player has left, and coins
(slaps to the same pile, Spit's stalemates) and Speed's rebuilt side piles
draw as play requires: only the first deal is the same in every copy, the
later ones are drawn from the same stream of numbers but over different
cards and positions in it.

The deals of a run: deal ``d`` is row ``d % batch`` of chunk ``d // batch``,
whose streams are keyed by (``seed``, chunk) -- so a run's deals depend on
its seed and its ``batch`` (recorded with the results), and the pairs of a
league played with the same seed and batch meet the same deals.

Common random numbers (``streams=True``, the default): an agent that
decides with ``act_streams(obs, mask, rngs)`` (as ``RandomAgent``) gets one
generator per row, the stream of that deal and seat, seeded from the
deal's key (the run's seed and the chunk), the row and the seat; each copy
of a deal makes its own generators from the same seeds, so the agents at
a seat draw the same numbers in every copy, and where their policies agree
the copies play the same game (two copies of one stochastic agent play
alike).  It changes what is sampled, not how: each decision is still drawn
from the agent's own policy, so the estimate is unbiased as before; only
the copies' randomness is made to coincide.  Other agents draw from their
own generators (the arena seeds each agent from the run's seed), and
deterministic agents (the rule agents, the greedy PPO baseline) are not
touched: their copies part only where their decisions differ.  Either way
a run replays exactly from its seed.

The outcome of a game: its finishing order of sides -- the winners
(``rules.winners``: the best score, ties all winning; Spit and Speed: the
player who went out) first, the rest by their score (the lowest first where
the lowest score wins); no winner (Spit's draws and truncations): all tied.
An agent that raises or plays an illegal action forfeits that game (its
sides finish last, the others tied first; the game stops there), or with
``strict=True`` the match stops with :class:`AgentError`.  The pair's
measure (:func:`pair_values`) is per deal, averaged over the seatings: A's
win share less B's (a win share: 1 for a side that won alone, 1/k for each
of k sides tied first, 0 otherwise; each agent's mean over the seats it
held), or with ``measure="score"`` A's final score less B's (negated where
the lowest score wins; Spit's score is the games won, Speed's with
``target_score`` the match points), or with ``measure="hand"`` that score
per hand played (Push: per round).  The pair result
(:func:`summarise_pair`) is the mean over deals with a paired 95% t
interval from the per-deal values.

Why a luck term from the cards adds nothing here: each agent holds every
seat's cards equally often, so any sum of per-seat values of the dealt
hands drops out of A's result less B's exactly.  With deterministic agents
(the rule agents, the greedy PPO baseline) and no chance after the deal
(the later hands are dealt alike), the per-deal value is a fixed function
of the deal; what is left of its variance comes from where the two
policies decide differently (``benchmarks/duplicate_luck.py`` measures
what a control variate on deal and pass features could take out of it).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..agents.adaptor import Policy, as_agent
from ..agents.sides import sides_of
from ..vector import rules_class

# AgentError: what a strict match raises (defined beside the loop that raises it), re-exported here
from .duplicate_play import AgentError as AgentError
from .duplicate_play import play_chunk


def duplicate_seatings(rules: Any, mirror: bool = False) -> np.ndarray:
    """The seatings of a duplicate pair (see the module docstring): ``(S, P)``,
    agent 0 or 1 per seat.  Two sides: each agent on each side once.  Three
    or more: agent 0 alone at each seat among copies of agent 1 (its
    strength in agent 1's field); ``mirror``: also agent 1 alone among
    copies of agent 0 (both agents make a field: only for agents that
    cannot collude, see :func:`is_reference`)."""
    sides = sides_of(rules)
    if sides.max() == 1:  # two sides
        return np.stack([sides, 1 - sides])
    n = len(sides)
    alone = np.ones((n, n), np.int64) - np.eye(n, dtype=np.int64)  # agent 0 alone at seat k
    return np.concatenate([alone, 1 - alone]) if mirror else alone


def pair_seatings(rules: Any, reference_a: bool, reference_b: bool) -> np.ndarray | None:
    """The seatings a league plays agents a (0) and b (1) in: two sides,
    each agent on each; in a free-for-all game a learner alone in the
    field of a reference agent (:func:`is_reference`), two reference agents
    each alone among the other, and None for two learners (no field holds
    no copies of either: the pair is not played)."""
    if not free_for_all(rules):
        return duplicate_seatings(rules)
    if reference_a and reference_b:
        return duplicate_seatings(rules, mirror=True)
    if reference_a or reference_b:
        alone = duplicate_seatings(rules)  # agent 0 alone among agent 1
        return alone if reference_b else 1 - alone
    return None


def free_for_all(rules: Any) -> bool:
    """Whether a table has three sides or more (Cancellation Hearts, Pepper
    with 3 players): where copies of one agent could play together against
    the others, so an agent is measured alone in a field of others."""
    return int(sides_of(rules).max()) >= 2


def is_reference(agent: Any) -> bool:
    """Whether ``agent`` may make a field in a free-for-all game: a fixed,
    untrained policy (random, the rule agents, the trivial and noisy agents:
    ``reference_field = True``), whose copies share no learned convention
    to use against an outsider."""
    return bool(getattr(agent, "reference_field", False))


def chunk_key(seed: int, chunk: int, copy: int = 0) -> int:
    """The stream key of the deals of ``chunk`` (``copy`` > 0: independent deals, one per seating)."""
    words = np.random.SeedSequence([int(seed) & (2**63 - 1), 0xD0B1E, chunk, copy]).generate_state(2, np.uint32)
    return int(words[0]) << 31 | int(words[1]) >> 1


@dataclass
class DuplicateRecord:
    """What a duplicate match played: per deal, seating and seat, the final
    ``scores``, the ``winners`` and the ``forfeits`` (``(D, S, P)`` each);
    ``seatings`` ``(S, P)`` (agent index per seat), ``sides`` ``(P,)``;
    ``streams``: played with common random numbers; ``hands`` ``(D, S)``:
    the hands (Push: rounds) each game played (-1: a game without them;
    None: not recorded)."""

    game: str
    config: dict
    seed: int
    batch: int
    names: list[str]
    seatings: np.ndarray
    sides: np.ndarray
    low_score_wins: bool
    scores: np.ndarray
    winners: np.ndarray
    forfeits: np.ndarray
    independent: bool = False
    streams: bool = True
    hands: np.ndarray | None = None
    truncated: np.ndarray | None = None  # (D, S): the game was truncated (Spit's max_ticks); None: none was

    @property
    def deals(self) -> int:
        return len(self.scores)

    def truncations(self) -> np.ndarray:
        """``(D, S)``: which games were truncated (no game of a record without them)."""
        return np.zeros(self.scores.shape[:2], bool) if self.truncated is None else self.truncated

    def ranks(self) -> np.ndarray:
        """Each seat's finishing place ``(D, S, P)`` (0 first, ties share), see the module docstring;
        a truncated game has no winner (all tied)."""
        winners = self.winners & ~self.truncations()[..., None]
        return finishing_ranks(self.scores, winners, self.forfeits, self.sides, self.low_score_wins)

    def ends(self) -> np.ndarray:
        """How each agent's games ended ``(K, 4)``: won, lost, drawn,
        truncated (:data:`ENDS`), a game counted once per agent at its table:
        won when one of its sides placed ahead of every other agent's,
        drawn when level with the best of them, truncated whatever the
        scores (never a win)."""
        return game_ends(self.ranks(), self.seatings, self.truncations(), len(self.names))

    def win_shares(self) -> np.ndarray:
        """Each seat's win share ``(D, S, P)``: 1/k for each of the k sides placed first, else 0."""
        return win_shares(self.ranks(), self.sides)

    def games(self) -> np.ndarray:
        """Games each agent played ``(K,)`` (deals x the seatings it sat in)."""
        sat = np.array([[(row == k).any() for row in self.seatings] for k in range(len(self.names))])
        return sat.sum(axis=1) * self.deals

    def forfeited(self) -> np.ndarray:
        """Games each agent forfeited ``(K,)`` (a game counts once, however many of its seats the agent held)."""
        agent = np.broadcast_to(self.seatings, self.forfeits.shape)
        return np.array([(self.forfeits & (agent == k)).any(axis=2).sum() for k in range(len(self.names))])

    def to_json(self) -> dict:
        """A JSON-serialisable dict (:meth:`from_json` reads it back)."""
        return {
            "game": self.game,
            "config": self.config,
            "seed": self.seed,
            "batch": self.batch,
            "names": list(self.names),
            "seatings": self.seatings.tolist(),
            "sides": self.sides.tolist(),
            "low_score_wins": self.low_score_wins,
            "independent": self.independent,
            "streams": self.streams,
            **({} if self.hands is None else {"hands": self.hands.tolist()}),
            **({} if self.truncated is None else {"truncated": self.truncated.astype(int).tolist()}),
            "scores": self.scores.tolist(),
            "winners": self.winners.astype(int).tolist(),
            "forfeits": self.forfeits.astype(int).tolist(),
        }

    @classmethod
    def from_json(cls, data: dict) -> DuplicateRecord:
        s, p = np.shape(data["seatings"])
        shape = (-1, s, p)
        return cls(
            data["game"],
            dict(data["config"]),
            int(data["seed"]),
            int(data["batch"]),
            list(data["names"]),
            np.asarray(data["seatings"], np.int64),
            np.asarray(data["sides"], np.int64),
            bool(data["low_score_wins"]),
            np.asarray(data["scores"], np.float64).reshape(shape),
            np.asarray(data["winners"], bool).reshape(shape),
            np.asarray(data["forfeits"], bool).reshape(shape),
            bool(data.get("independent", False)),
            bool(data.get("streams", False)),  # (records written before common random numbers: without)
            None if "hands" not in data else np.asarray(data["hands"], np.int64).reshape(shape[:2]),
            None if "truncated" not in data else np.asarray(data["truncated"], bool).reshape(shape[:2]),
        )


#: the ways a game ends for an agent, in the order of :meth:`DuplicateRecord.ends`
ENDS = ("won", "lost", "drawn", "truncated")
#: a share of truncated games above this is flagged wherever results are shown
TRUNCATION_FLAG = 0.01


def game_ends(ranks: np.ndarray, seatings: np.ndarray, truncated: np.ndarray, num_agents: int) -> np.ndarray:
    """:meth:`DuplicateRecord.ends` from the places ``(D, S, P)``, the
    seatings ``(S, P)`` and the truncations ``(D, S)``."""
    out = np.zeros((num_agents, len(ENDS)), np.int64)
    for k in range(num_agents):
        mine = seatings == k  # (S, P)
        sat = mine.any(axis=1)
        if not sat.any():
            continue
        best = np.where(mine, ranks, np.iinfo(np.int64).max).min(axis=-1)  # (D, S)
        others = np.where(~mine, ranks, np.iinfo(np.int64).max).min(axis=-1)
        ended = ~truncated & sat
        out[k] = [(ended & (best < others)).sum(), (ended & (best > others)).sum(),
                  (ended & (best == others)).sum(), (truncated & sat).sum()]  # fmt: skip
    return out


def ends_text(ends: Sequence[int]) -> str:
    """``won-lost-drawn`` and the truncations, flagged above :data:`TRUNCATION_FLAG` of the games."""
    won, lost, drawn, cut = (int(x) for x in ends)
    games = won + lost + drawn + cut
    text = f"{won}-{lost}-{drawn}"
    if cut:
        share = cut / games
        text += f", {cut} truncated ({share:.1%}{' > 1%: FLAGGED' if share > TRUNCATION_FLAG else ''})"
    return text


def finishing_ranks(
    scores: np.ndarray, winners: np.ndarray, forfeits: np.ndarray, sides: np.ndarray, low_score_wins: bool
) -> np.ndarray:
    """Each seat's finishing place (``(..., P)`` arrays in; 0 first, tied
    sides sharing a place): the winners first, then the others by score;
    no winner: all first; a forfeit: the forfeiting sides last, the others first."""
    better = -scores if low_score_wins else scores
    side_won = _by_side(winners, sides, np.any)
    side_lost = _by_side(forfeits, sides, np.any)
    # place = the sides ahead: winners ahead of everyone else, then the better score
    ahead = side_won[..., None, :] & ~side_won[..., :, None]
    ahead |= ~side_won[..., None, :] & ~side_won[..., :, None] & (better[..., None, :] > better[..., :, None])
    ahead &= _one_per_side(sides)  # count each side once (partners share a score and a result)
    ranks = ahead.sum(axis=-1)
    ranks = np.where(side_won.any(axis=-1, keepdims=True), ranks, 0)
    forfeit_place = (~side_lost & _is_first_seat(sides)).sum(axis=-1, keepdims=True)
    some_lost = side_lost.any(axis=-1, keepdims=True)
    return np.where(some_lost, np.where(side_lost, forfeit_place, 0), ranks)


def _by_side(flags: np.ndarray, sides: np.ndarray, how) -> np.ndarray:
    """Each seat's flag made its side's (``how`` over the side's seats)."""
    out = np.zeros_like(flags)
    for side in np.unique(sides):
        seats = sides == side
        out[..., seats] = how(flags[..., seats], axis=-1, keepdims=True)
    return out


def _is_first_seat(sides: np.ndarray) -> np.ndarray:
    """True at the first seat of each side."""
    first = np.zeros(len(sides), bool)
    first[np.unique(sides, return_index=True)[1]] = True
    return first


def _one_per_side(sides: np.ndarray) -> np.ndarray:
    """``(P, P)``: seat q counts towards seat p's place only as its side's first seat."""
    return np.broadcast_to(_is_first_seat(sides), (len(sides), len(sides)))


def win_shares(ranks: np.ndarray, sides: np.ndarray) -> np.ndarray:
    """Each seat's win share from the places ``(..., P)``: 1/k for each of the k sides placed first."""
    first = ranks == 0
    sides_first = (first & _is_first_seat(sides)).sum(axis=-1, keepdims=True)
    return np.where(first, 1.0 / np.maximum(sides_first, 1), 0.0)


def pair_values(record: DuplicateRecord, measure: str = "win") -> np.ndarray:
    """Per deal ``(D,)``: agent 0's result less agent 1's, each its mean
    over the seats it held, averaged over the seatings (module docstring);
    ``measure`` ``"win"`` (win share), ``"score"`` or ``"hand"`` (the score
    per hand played, Push: per round: in a game of several hands, each
    copy's hands are dealt alike, but the copies may end after different
    numbers of them)."""
    if len(record.names) != 2:
        raise ValueError(f"pair values need a match of two agents, not {len(record.names)}")
    if measure == "win":
        value = record.win_shares()
    elif measure in ("score", "hand"):
        value = -record.scores if record.low_score_wins else record.scores
        if measure == "hand":
            if record.hands is None or (record.hands < 0).any():
                raise ValueError(f"measure 'hand' needs the hands each game played; {record.game} records none")
            value = value / np.maximum(record.hands, 1)[..., None]
    else:
        raise ValueError(f"measure must be 'win', 'score' or 'hand', got {measure!r}")
    a = record.seatings == 0  # (S, P)
    mean_a = (value * a).sum(axis=-1) / np.maximum(a.sum(axis=-1), 1)
    mean_b = (value * ~a).sum(axis=-1) / np.maximum((~a).sum(axis=-1), 1)
    return (mean_a - mean_b).mean(axis=-1)


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile for ``p`` in (0, 1): by bisection on the exact
    distribution function (Abramowitz & Stegun 26.7.3-4) up to 1000 degrees
    of freedom; beyond, the Cornish-Fisher expansion in 1/df (26.7.5,
    within 1e-9 there)."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {df}")
    if not 0 < p < 1:
        raise ValueError(f"p must lie in (0, 1), got {p}")
    if df > 1000:
        z = _normal_quantile(p)
        g1 = (z**3 + z) / 4
        g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
        g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
        return z + g1 / df + g2 / df**2 + g3 / df**3
    lo, hi = -1e8, 1e8
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _t_cdf(mid, df) < p else (lo, mid)
    return (lo + hi) / 2


def _t_cdf(t: float, df: int) -> float:
    """Student's t distribution function, exact for integer ``df`` (finite series in cos(atan(t / sqrt(df))))."""
    theta = math.atan(abs(t) / math.sqrt(df))
    c2, term, total = math.cos(theta) ** 2, 1.0, 1.0
    if df % 2:  # odd: (2/pi) (theta + sin cos (1 + 2/3 c2 + 2.4/(3.5) c2^2 + ...)), df - 3 powers of cos
        for k in range(1, (df - 1) // 2):
            term *= c2 * (2 * k) / (2 * k + 1)
            total += term
        inside = 2 / math.pi * (theta + (math.sin(theta) * math.cos(theta) * total if df > 1 else 0.0))
    else:  # even: sin (1 + 1/2 c2 + 1.3/(2.4) c2^2 + ...), df - 2 powers of cos
        for k in range(1, df // 2):
            term *= c2 * (2 * k - 1) / (2 * k)
            total += term
        inside = math.sin(theta) * total
    return 0.5 + math.copysign(inside / 2, t)


def _normal_quantile(p: float) -> float:
    """The standard normal quantile (bisection on erf: exact to 1e-12)."""
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if 0.5 * (1 + math.erf(mid / math.sqrt(2))) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def paired_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high): the mean of the per-deal ``values`` with its t
    interval (``mean ± t · sd / sqrt(n)``, sd with n - 1); one value: an
    unbounded interval.  ValueError for no values."""
    v = np.asarray(values, np.float64)
    if v.ndim != 1 or not len(v):
        raise ValueError("need at least one per-deal value")
    mean = float(v.mean())
    if len(v) == 1:
        return mean, -math.inf, math.inf
    half = t_quantile(0.5 + confidence / 2, len(v) - 1) * float(v.std(ddof=1)) / math.sqrt(len(v))
    return mean, mean - half, mean + half


@dataclass
class PairResult:
    """A duplicate pair: ``mean`` of agent ``a``'s per-deal edge over ``b``
    (:func:`pair_values`), its 95% interval, the deals, the games and the
    games each forfeited."""

    a: str
    b: str
    mean: float
    low: float
    high: float
    deals: int
    games: int
    forfeits: tuple[int, int] = (0, 0)
    measure: str = "win"
    #: how each agent's games ended: won, lost, drawn, truncated (:data:`ENDS`)
    ends: tuple[tuple[int, ...], tuple[int, ...]] = ((0, 0, 0, 0), (0, 0, 0, 0))
    #: "sides" (each agent holds each side), "outsider" (a alone among copies of b), "b outsider" or "mirror"
    field: str = "sides"

    @property
    def truncated_share(self) -> float:
        """The share of the games that were truncated (above 1%: flagged)."""
        return self.ends[0][3] / self.games if self.games else 0.0

    def __str__(self) -> str:
        what = {"win": "win share", "score": "score", "hand": "score per hand"}.get(self.measure, self.measure)
        how = {"outsider": f", {self.a} alone among {self.b}", "b outsider": f", {self.b} alone among {self.a}"}
        how["mirror"] = ", each alone among the other"
        return (
            f"{self.a} vs {self.b}: {what} difference {self.mean:+.3f} [95% CI {self.low:+.3f}, {self.high:+.3f}] "
            f"over {self.deals} duplicate deals ({self.games} games{how.get(self.field, '')}); "
            f"{self.a} won-lost-drawn {ends_text(self.ends[0])}"
        )


def summarise_pair(record: DuplicateRecord, measure: str = "win") -> PairResult:
    """The :class:`PairResult` of a two-agent record."""
    mean, low, high = paired_interval(pair_values(record, measure))
    forfeits = record.forfeited()
    ends = record.ends()
    return PairResult(
        record.names[0],
        record.names[1],
        mean,
        low,
        high,
        record.deals,
        record.deals * len(record.seatings),
        (int(forfeits[0]), int(forfeits[1])),
        measure,
        (tuple(int(x) for x in ends[0]), tuple(int(x) for x in ends[1])),
        field_of(record.seatings),
    )


def field_of(seatings: np.ndarray) -> str:
    """What a pair's seatings measure: ``"sides"`` (two sides, each agent on
    each), ``"outsider"`` (a alone among copies of b), ``"b outsider"`` (b
    alone among a) or ``"mirror"`` (both)."""
    seatings = np.asarray(seatings)
    a_alone, b_alone = (((seatings == k).sum(axis=1) == 1).any() and seatings.shape[1] > 2 for k in (0, 1))
    if a_alone and b_alone:
        return "mirror"
    return "outsider" if a_alone else "b outsider" if b_alone else "sides"


def play_duplicate(
    game: str,
    agents: Sequence[Policy],
    deals: int,
    seed: int = 0,
    seatings: Any = None,
    batch: int = 64,
    strict: bool = False,
    independent: bool = False,
    progress: Callable[[int, int], None] | None = None,
    names: Sequence[str] | None = None,
    streams: bool = True,
    **config: Any,
) -> DuplicateRecord:
    """Play ``deals`` deals of ``game`` once per seating (``(S, P)`` agent
    indices into ``agents``; default :func:`duplicate_seatings` of two
    agents) on the batched engine, ``batch`` deals at a time.  ``agents``:
    :class:`Agent` instances or plain functions ``(obs, mask) -> actions``
    (an agent with ``act_states(rules, state, rows, **known)``, as PIMC,
    reads the engine state instead; in Spit it is also given ``seat=``).  ``seatings`` may also be
    ``"outsider"`` (the default's) or ``"mirror"`` (:func:`duplicate_seatings`).
    ``independent``: every seating gets
    deals of its own (the control a duplicate match is measured against).
    ``progress(games_done, games)`` is called as games finish.
    ``streams``: common random numbers for the agents that take them
    (``act_streams``; ``False``: every agent's own generator).  See the
    module docstring for the deals, the streams, the outcomes and the forfeits."""
    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) or deals < 1:
        raise ValueError(f"deals must be a positive integer, got {deals!r}")
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 1:
        raise ValueError(f"batch must be a positive integer, got {batch!r}")
    players = [as_agent(a) for a in agents]
    rules = rules_class(game)(**{k: v for k, v in config.items() if k not in ("illegal_action", "obs_dtype")})
    if seatings is None or isinstance(seatings, str):
        if seatings not in (None, "outsider", "mirror"):
            raise ValueError(f"seatings must be 'outsider', 'mirror' or an (S, P) array, got {seatings!r}")
        table = duplicate_seatings(rules, mirror=seatings == "mirror")
    else:
        table = np.asarray(seatings, np.int64)
    if table.ndim != 2 or table.shape[1] != rules.num_players or table.min() < 0 or table.max() >= len(players):
        raise ValueError(f"seatings must be (S, {rules.num_players}) indices of the {len(players)} agents")
    names = list(names) if names is not None else [getattr(a, "name", f"agent{i}") for i, a in enumerate(players)]
    parts = []
    total, done = deals * len(table), 0
    for chunk, start in enumerate(range(0, deals, batch)):
        count = min(batch, deals - start)
        keys = [chunk_key(seed, chunk, s + 1 if independent else 0) for s in range(len(table))]

        def tick(finished: int, chunk_done: int = done) -> None:
            if progress is not None:
                progress(chunk_done + finished, total)

        part = play_chunk(game, config, players, names, table, count, keys, start, strict, tick, streams)
        parts.append(part)
        done += count * len(table)
    scores, winners, forfeits, hands, truncated = (np.concatenate([p[i] for p in parts]) for i in range(5))
    return DuplicateRecord(
        game,
        dict(config),
        int(seed),
        int(batch),
        names,
        table,
        sides_of(rules),
        bool(getattr(rules, "low_score_wins", False)),
        scores,
        winners,
        forfeits,
        independent,
        streams,
        hands,
        truncated,
    )


def duplicate_match(
    game: str, a: Policy, b: Policy, deals: int = 100, seed: int = 0, measure: str = "win", **kwargs: Any
) -> PairResult:
    """``a`` against ``b`` in duplicate (:func:`play_duplicate`, then :func:`summarise_pair`)."""
    return summarise_pair(play_duplicate(game, [a, b], deals, seed, **kwargs), measure)
