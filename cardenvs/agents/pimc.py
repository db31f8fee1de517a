"""Perfect-information Monte Carlo (PIMC) on the batched engine.

For each decision: sample ``worlds`` complete states consistent with what
the acting seat saw (:func:`cardenvs.search.sample_worlds`), play every
legal action in every world, then play the hand out with a rollout policy
(``"random"`` legal moves, ``"rule"``: the game's rule agent in every seat,
``"scratch"``: its policy learned from scratch, or any
:class:`~cardenvs.core.agent.Agent`, e.g. a trained
:class:`~cardenvs.agents.policy.PolicyAgent`), and pick the action with the best mean outcome: the change
of the acting seat's (side's) score over the rest of the hand (Push: the
round; less the other side's: its sampler's ``MARGIN``, :func:`margin`), negated where the lowest
score wins.  All worlds x actions of all games deciding
at once are one batch for the engine.

The agent needs the engine state, not only an observation (a world is a
whole state), so its entry point is :meth:`PIMCAgent.act_states`;
``act_batch(obs, mask)`` raises.  Which decisions are searched is a
per-game fact, which each game's sampler module declares (its ``SEARCHED``,
:func:`searched`): Pepper's and Cancellation Hearts' card
play; Push's draw (take or push the discard) and its discard.  The rest
(bids, trump, passes, moon; Push's melds, lay-offs and swaps) go to
``fallback`` (the game's rule agent, or its policy learned from scratch).  A Push rollout plays to the end of
the round (the rules end a round after ``max_turns`` turns anyway); any
rollout still going after :data:`MAX_ROLLOUT` actions counts 0.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..core.agent import Agent
from ..registry import GAMES, rules_class
from ..search import sample_worlds, sampler
from .builtin import builtin_agent
from .sides import margin_matrix


def searched(game: str) -> dict[int, np.ndarray | None] | None:
    """What PIMC searches in game ``game``: phase -> the actions searched in
    it (None: every legal action, every time; an id array: the search picks
    among those legal ids only when the fallback would play one of them),
    as the game's sampler module declares it (its ``SEARCHED``); None for a
    game PIMC does not play (no sampler, or no ``SEARCHED`` in it)."""
    if game not in GAMES or GAMES[game].sampler is None:
        return None
    return getattr(sampler(game), "SEARCHED", None)


def margin(game: str) -> bool:
    """Whether PIMC counts game ``game``'s outcome as the side's score less
    the other side's (its sampler module's ``MARGIN``: Push)."""
    return searched(game) is not None and bool(getattr(sampler(game), "MARGIN", False))


def __getattr__(name: str) -> Any:
    # the tables that were written here, per game: now declared by each game's sampler module
    if name == "SEARCHED":
        return {g: searched(g) for g in GAMES if searched(g) is not None}
    if name == "MARGIN":
        return {g for g in GAMES if margin(g)}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def tracked(game: str) -> Any:
    """The sampler module of a searched game whose sampler needs a
    ``Tracker`` of what each seat saw (Cancellation Hearts, Push), else None."""
    if searched(game) is None:
        return None
    module = sampler(game)
    return module if hasattr(module, "Tracker") else None


FIRST_CHUNK = 4  # worlds a search under a deadline evaluates first (then chunks of twice the last)
MAX_ROLLOUT = 2000  # actions per rollout (a Push round with rule play: ~110 on average, ~300 at most)


class PIMCAgent(Agent):
    """``PIMCAgent(game, worlds=K, rollout="random", fallback="rule",
    search="default", score="default", budget=None, seed=0)``:
    ``rollout`` ``"random"``, ``"rule"``, ``"scratch"`` (the game's policy
    learned from scratch) or an agent (its ``act_batch`` plays every seat of
    the rollouts); ``fallback``, who takes the decisions PIMC does not
    search, ``"rule"``, ``"scratch"`` or an agent; ``search``: which
    decisions are searched, ``"default"`` (the game's :func:`searched`) or
    ``"all"`` (every decision, every legal action: bids and trump too);
    ``score``: what a rollout is worth, ``"default"`` (the game's
    :func:`margin`), ``"side"`` (the acting side's score change) or
    ``"margin"`` (less the other sides' mean change); ``budget`` seconds per
    call of :meth:`act_states` (None: one batch of ``worlds``); with a
    budget, batches of ``worlds`` are added while time is left (a floor:
    the batch under way is finished).  :meth:`act_states` also takes a
    ``deadline``, a cap: see there."""

    def __init__(
        self,
        game: str,
        worlds: int = 32,
        rollout: str | Agent = "random",
        fallback: str | Agent = "rule",
        search: str = "default",
        score: str = "default",
        budget: float | None = None,
        seed=0,
        **config,
    ):
        super().__init__()
        if not (rollout in ("random", "rule", "scratch") or isinstance(rollout, Agent)):
            raise ValueError(f"rollout must be 'random', 'rule', 'scratch' or an Agent, got {rollout!r}")
        if not (fallback in ("rule", "scratch") or isinstance(fallback, Agent)):
            raise ValueError(f"fallback must be 'rule', 'scratch' or an Agent, got {fallback!r}")
        if search not in ("default", "all"):
            raise ValueError(f"search must be 'default' or 'all', got {search!r}")
        if score not in ("default", "side", "margin"):
            raise ValueError(f"score must be 'default', 'side' or 'margin', got {score!r}")
        if not (isinstance(worlds, int) and worlds >= 1):
            raise ValueError(f"worlds must be a whole number of at least 1, got {worlds!r}")
        self.searched_phases = searched(game)
        if self.searched_phases is None:
            raise ValueError(f"PIMC plays {sorted(g for g in GAMES if searched(g) is not None)}, not {game!r}")
        self.search_all = search == "all"
        self.margin = margin(game) if score == "default" else score == "margin"
        self.game, self.worlds, self.budget = game, worlds, budget
        self.rules = rules_class(game)(**config)
        self.rng = np.random.default_rng(seed)
        made: dict[str, Agent] = {}  # one agent per built-in name, shared by fallback and rollout

        def agent(name: str | Agent) -> Agent:
            if isinstance(name, Agent):
                return name
            if name not in made:  # ("scratch": the policy; the agent "scratch" may be a search over it)
                made[name] = builtin_agent(game, "scratch-policy" if name == "scratch" else name, seed=seed, **config)
            return made[name]

        self.fallback = agent(fallback)
        self.rollout = None if rollout == "random" else agent(rollout)
        label = "" if rollout == "random" else f"-{getattr(self.rollout, 'name', 'agent')}"
        if fallback != "rule":
            label += f"-fallback-{getattr(self.fallback, 'name', 'agent')}"
        label += "-all" * self.search_all + f"-{score}" * (score != "default")
        self.name = f"pimc{worlds}{label}"
        self.searched = 0  # decisions made by search (the rest went to the fallback)
        self.late = 0  # decisions given to the fallback because their deadline had passed
        self.worlds_played = 0  # worlds evaluated (summed over the rows searched)
        self.clock = time.monotonic  # what a deadline is read against

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        raise NotImplementedError("PIMC needs the engine state: use act_states(rules, state, seats)")

    def act_states(self, rules, state, rows: np.ndarray, deadline: float | None = None, **known: Any) -> np.ndarray:
        """Actions for the seats to act in ``rows`` of ``state``.

        ``deadline`` (a :data:`clock` time, ``time.monotonic()``'s): the most
        the call may take.  The worlds are then evaluated in chunks (the
        first of :data:`FIRST_CHUNK` worlds, then each twice the last) and
        no chunk is begun that the last chunk's pace says would end after
        it: the search ends by the deadline, give or take the first chunk
        (and its budget, if any, ends there too).  Reached after it, the
        call plays the fallback's moves (:attr:`late` counts them).  Worlds
        are drawn otherwise than without a deadline, so the same seed may
        play otherwise."""
        rows = np.asarray(rows, np.int64)
        if deadline is not None and self.clock() >= deadline:
            self.late += len(rows)
            return self._play(self.fallback, rules, state, rows)
        seats = state.current[rows]
        choices, full = self._choices(state, rows)
        actions = np.zeros(len(rows), np.int64)
        if self.search_all:  # every decision with a choice is searched; a forced move is played
            forced = choices.sum(axis=1) == 1
            actions[forced], play = choices[forced].argmax(axis=1), ~forced
        else:
            if (~full).any():  # the fallback decides these, or decides whether to search them
                actions[~full] = self._play(self.fallback, rules, state, rows[~full])
            play = full | choices[np.arange(len(rows)), actions]
        if play.any():
            self.searched += int(play.sum())
            part = state.select(rows[play])
            kept = {k: v.select(rows[play]) for k, v in known.items()}
            actions[play] = self._search(rules, part, seats[play], kept, choices[play], deadline)
        return actions

    def _choices(self, state, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The actions the search may pick in each row (``SEARCHED``), and
        which rows are searched whatever the fallback would play."""
        phase, legal = state.phase[rows], state.legal[rows]
        if self.search_all:
            return legal.copy(), np.ones(len(rows), bool)
        choices = np.zeros(legal.shape, bool)
        full = np.zeros(len(rows), bool)
        for at_phase, ids in self.searched_phases.items():
            at = phase == at_phase
            if ids is None:
                choices[at], full[at] = legal[at], True
            else:
                allowed = np.zeros(legal.shape[1], bool)
                allowed[ids] = True
                choices[at] = legal[at] & allowed
        return choices, full

    def _search(self, rules, part, seats, known, choices, deadline: float | None = None) -> np.ndarray:
        if deadline is not None:
            totals = self._search_by(rules, part, seats, known, choices, deadline)
        else:
            totals = np.zeros(choices.shape)
            start = time.perf_counter()
            while True:
                totals += self._evaluate(rules, part, seats, known, choices, self.worlds)
                if self.budget is None or time.perf_counter() - start > self.budget:
                    break
        return np.where(choices, totals, -np.inf).argmax(axis=1)

    def _search_by(self, rules, part, seats, known, choices, deadline: float) -> np.ndarray:
        """:meth:`_search`'s totals under a deadline: the batches of worlds
        (one, or more while the budget lasts) in chunks, the first of
        :data:`FIRST_CHUNK` worlds and each next twice the last (at most
        what is left of its batch), none begun that the last chunk's pace
        says would end after the deadline."""
        totals = np.zeros(choices.shape)
        start = time.perf_counter()
        left, size, pace = self.worlds, min(FIRST_CHUNK, self.worlds), None  # (pace: seconds a world)
        while pace is None or self.clock() + pace * size <= deadline:
            began = self.clock()
            totals += self._evaluate(rules, part, seats, known, choices, size)
            pace, left = (self.clock() - began) / size, left - size
            if not left:
                if self.budget is None or time.perf_counter() - start > self.budget:
                    break
                left = self.worlds  # (the budget lasts: another batch)
            size = min(2 * size, left)
        return totals

    def _evaluate(self, rules, part, seats, known, choices, k: int) -> np.ndarray:
        """Sum over a batch of ``k`` worlds of each choice's outcome."""
        self.worlds_played += k * len(seats)
        worlds = sample_worlds(rules, part, seats, k, self.rng, **known)
        world_of, action = np.nonzero(np.repeat(choices, k, axis=0))  # world w = row * k + j
        runs = worlds.select(world_of)
        seat = seats[world_of // k]
        before = self._scores(rules, runs)[np.arange(runs.batch), seat]
        hand = runs.hand_number.copy()
        rules.step(runs, action)
        value = np.full(runs.batch, np.nan)
        run = np.arange(runs.batch)  # which rollout each row of ``runs`` is
        for _ in range(MAX_ROLLOUT):
            over = (runs.hand_number != hand[run]) | runs.done
            fresh = over & np.isnan(value[run])
            value[run[fresh]] = self._scores(rules, runs)[fresh, seat[run[fresh]]] - before[run[fresh]]
            if over.all():
                break
            if 2 * over.sum() > len(run):  # most are over: step only the rest (rounds end at any time in Push)
                runs, run = runs.select(np.flatnonzero(~over)), run[~over]
            rules.step(runs, self._rollout_actions(rules, runs))
        totals = np.zeros(choices.shape)
        np.add.at(totals, (world_of // k, action), np.nan_to_num(value))
        return totals

    def _scores(self, rules, runs) -> np.ndarray:
        """Each seat's score as the search counts it (B, n): its side's,
        less the other sides' mean with ``margin``, negated where low wins."""
        scores = rules.seat_scores(runs).astype(float)
        if self.margin:
            scores = scores @ margin_matrix(rules).T
        return -scores if rules.low_score_wins else scores

    def _rollout_actions(self, rules, runs) -> np.ndarray:
        """The rollout policy's move in every game of ``runs`` that has one."""
        if self.rollout is None:
            noise = self.rng.random(runs.legal.shape)
            return np.where(runs.legal, noise, -1.0).argmax(axis=1)
        actions = np.zeros(runs.batch, np.int64)
        live = np.flatnonzero(runs.legal.any(axis=1))
        if live.size:
            actions[live] = self._play(self.rollout, rules, runs, live)
        return actions

    @staticmethod
    def _play(agent: Agent, rules, state, rows: np.ndarray) -> np.ndarray:
        """``agent``'s actions in ``rows``: from the state if it reads one
        (``act_states``, e.g. Push's rule agent: cheaper than observing),
        else from the observations."""
        if hasattr(agent, "act_states"):
            return agent.act_states(rules, state, rows)
        return agent.act_batch(rules.observe(state, state.current[rows], rows), state.legal[rows])


def play_match(game: str, agent: PIMCAgent, opponent: Agent, num_games: int, seed: int, **config) -> tuple[int, int]:
    """``agent`` against ``opponent``: (games agent won, games), a game tied
    at the top with an opponent counting as won, as the rules rank tied
    seats together (:func:`match_outcomes` tells ties apart)."""
    outcomes = match_outcomes(game, agent, opponent, num_games, seed, **config)
    return int((outcomes > 0).sum()), num_games


def match_outcomes(game: str, agent: PIMCAgent, opponent: Agent, num_games: int, seed: int, **config) -> np.ndarray:
    """``agent`` against ``opponent`` (partnerships: agent's team = seats
    ``g % 2`` and ``g % 2 + 2`` in game g; else agent at seat ``g % n``),
    all games at once (Cancellation Hearts and Push: with the game's
    ``Tracker`` of what each seat saw, :mod:`cardenvs.games.cancellation_hearts.sampler`
    or :mod:`cardenvs.games.push.sampler`, which its sampler needs).  Returns each
    game's outcome for ``agent``: 1 won, 0.5 tied at the top with an
    opponent's seat, 0 lost."""
    rules = rules_class(game)(**config)
    state = rules.new_state(num_games, np.random.default_rng(seed))
    rules.reset(state, np.arange(num_games))
    known = {}
    tracking = tracked(game)
    if tracking is not None:
        known["tracker"] = tracking.Tracker(rules, num_games)
    n = rules.num_players
    g = np.arange(num_games)
    mine = np.zeros((num_games, n), bool)
    for s in range(n):
        mine[:, s] = (s % 2 == g % 2) if rules.partnerships else (s == g % n)
    outcome = np.zeros((num_games, n))
    while not state.done.all():
        live = np.flatnonzero(~state.done)
        ours = live[mine[live, state.current[live]]]
        theirs = live[~mine[live, state.current[live]]]
        actions = np.zeros(num_games, np.int64)
        if ours.size:
            actions[ours] = agent.act_states(rules, state, ours, **known)
        if theirs.size:
            actions[theirs] = opponent.act_batch(
                rules.observe(state, state.current[theirs], theirs), state.legal[theirs]
            )
        if known:  # the tracker watches every game (finished games are not stepped)
            outcome += known["tracker"].step(rules, state, actions)
            continue
        part = state.select(live)
        outcome[live] += rules.step(part, actions[live])
        state.assign(live, part)
    won = (outcome * mine).sum(1) > 0
    tied = won & (np.where(mine, 0, outcome) > 0).any(1)
    return np.where(tied, 0.5, won.astype(float))
