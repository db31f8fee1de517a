"""Look-ahead over the next ticks of Spit: the search of Spit's agent learned
from scratch.

PIMC (:mod:`.pimc`) plays each choice out to the end of the hand; a deal
of Spit lasts a hundred ticks or more, and every tick is a decision of
both players at once, so :class:`LookaheadAgent` looks a few ticks ahead
instead.  For each legal action of its seat, in ``worlds`` deals
consistent with what the seat saw (:func:`cardenvs.search.sample_worlds`:
the face-down cards drawn again), the tick is played with that action and
the other seat's roll-out action, then ``horizon - 1`` ticks more with the
roll-out policy at both seats.  A roll-out is worth the cards the seat got
rid of in it less the cards the other did (the rules' ``held_cards``: its
layout and spit cards; a spit pile taken at a slap counts against it), and
:data:`WIN` (every card of the deck) more or less if the game ended with a
winner, what each tick brings weighing ``discount**t`` for the ``t``-th
tick after this one (default 1: every tick alike).  Below 1 a card shed
sooner is worth more, as in a race: a wait that sheds the same card a
tick later no longer ties with playing it now.  The action with the best
total is played (ties: the lowest id, which is the wait).

The roll-out policy: uniformly random among the legal actions
(``rollout=None``), or an agent: one with ``logits(obs, mask)`` (a policy
file's :class:`~.mlp.MLPAgent`) is *sampled* from its masked softmax,
any other plays its ``act_batch``.  Common random numbers: the choices of
one world share that world's random draws (the roll-outs' and the sampled
policy's), so two choices are compared on the same futures as far as
their play lets them be.  Nothing in it comes from the rule agent.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.agent import Agent
from ..core.simultaneous import SimultaneousRules
from ..registry import rules_class
from ..search import MAX_WORLDS, sample_worlds

WIN = 52.0  # what a game won is worth against one lost, in cards (a whole deck)
MAX_HORIZON = 64  # ticks a look-ahead may play out


class LookaheadAgent(Agent):
    """``LookaheadAgent(game, worlds=16, horizon=4, rollout=None, seed=0,
    discount=1.0, **config)``: the look-ahead of the module docstring, for
    Spit (``spit_v0`` with ``variant="spit"``); ``rollout`` None (uniformly
    random) or an :class:`Agent`; ``discount`` above 0 and at most 1.  It
    reads the engine state (:meth:`act_states`); ValueError for another
    game or a bad option."""

    def __init__(
        self,
        game: str,
        worlds: int = 16,
        horizon: int = 4,
        rollout: Agent | None = None,
        seed=0,
        discount: float = 1.0,
        **config: Any,
    ):
        super().__init__()
        real = isinstance(discount, (int, float, np.integer, np.floating)) and not isinstance(discount, bool)
        if not real or not 0 < discount <= 1:
            raise ValueError(f"LookaheadAgent's discount is a number above 0 and at most 1, got {discount!r}")
        for name, value, top in (("worlds", worlds, MAX_WORLDS), ("horizon", horizon, MAX_HORIZON)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= top:
                raise ValueError(f"LookaheadAgent's {name} is a whole number from 1 to {top}, got {value!r}")
        if rollout is not None and not isinstance(rollout, Agent):
            raise ValueError(f"LookaheadAgent's rollout is None (uniformly random) or an Agent, got {rollout!r}")
        rules = rules_class(game)(**config)
        if not isinstance(rules, SimultaneousRules) or getattr(rules, "variant", None) != "spit":
            raise ValueError(f"the look-ahead plays Spit (spit_v0, variant 'spit'), not {game} {config or ''}".strip())
        self.game, self.worlds, self.horizon, self.rollout = game, int(worlds), int(horizon), rollout
        self.discount = float(discount)
        self.rng = np.random.default_rng(seed)
        by = f"-{getattr(rollout, 'name', 'agent')}" if rollout is not None else ""
        gamma = f"-d{self.discount:g}" if self.discount != 1 else ""
        self.name = f"lookahead{self.worlds}x{self.horizon}{gamma}{by}"
        self.searched = 0  # decisions searched (the rest had one legal action)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        raise NotImplementedError("the look-ahead needs the engine state: use act_states(rules, state, rows, seat=...)")

    def act_states(self, rules, state, rows: np.ndarray, seat=None, **known: Any) -> np.ndarray:
        """Actions of ``seat`` (an int, or one per row) in ``rows`` of
        ``state`` (what else a search's callers pass, ``known``, it does not
        need: nothing is private in Spit but the face-down cards, and a
        decision costs milliseconds)."""
        if seat is None:
            raise ValueError("Spit's players act at once: say which seat decides (seat=0 or 1)")
        rows = np.asarray(rows, np.int64)
        seats = np.broadcast_to(np.asarray(seat, np.int64), rows.shape)
        choices = state.legal[rows, seats]
        actions = choices.argmax(axis=1)
        searched = np.flatnonzero(choices.sum(axis=1) > 1)
        if searched.size:
            self.searched += searched.size
            part = state.select(rows[searched])
            totals = self._evaluate(rules, part, seats[searched], choices[searched])
            actions[searched] = np.where(choices[searched], totals, -np.inf).argmax(axis=1)
        return actions

    def _evaluate(self, rules, part, seats: np.ndarray, choices: np.ndarray) -> np.ndarray:
        """Each choice's total over ``worlds`` roll-outs, ``choices``' shape."""
        k = self.worlds
        worlds = sample_worlds(rules, part, seats, k, self.rng)
        world_of, action = np.nonzero(np.repeat(choices, k, axis=0))  # world w of row w // k
        runs, me = worlds.select(world_of), seats[world_of // k]
        noise = self.rng.random((len(seats) * k, self.horizon, 2, choices.shape[1]))[world_of]
        mine, theirs = (np.arange(runs.batch), me), (np.arange(runs.batch), 1 - me)
        held = rules.held_cards(runs)
        value = np.zeros(runs.batch)
        both = np.zeros((runs.batch, 2), np.int64)
        for tick in range(self.horizon):
            if tick and runs.done.all():
                break
            for s in (0, 1):
                both[:, s] = self._rollout(rules, runs, s, noise[:, tick, s])
            if tick == 0:
                both[mine] = action
            live = ~runs.done
            rules.step(runs, both)
            after = rules.held_cards(runs)
            shed, held = held - after, after
            won = live & runs.done & (runs.winner >= 0)
            gain = shed[mine] - shed[theirs] + np.where(won, np.where(runs.winner == me, WIN, -WIN), 0.0)
            value += self.discount**tick * gain
        totals = np.zeros(choices.shape)
        np.add.at(totals, (world_of // k, action), value)
        return totals

    def _rollout(self, rules, runs, seat: int, uniform: np.ndarray) -> np.ndarray:
        """The roll-out policy's actions at ``seat`` of every game of
        ``runs``, drawn with the worlds' ``uniform`` numbers (N, actions)."""
        legal = runs.legal[:, seat]
        if self.rollout is None:
            return np.where(legal, uniform, -1.0).argmax(axis=1)
        out = np.zeros(runs.batch, np.int64)
        live = np.flatnonzero(legal.any(axis=1))
        if not live.size:
            return out
        obs = rules.observe(runs, live)[:, seat]
        if hasattr(self.rollout, "logits"):  # sampled: Gumbel-max on the world's numbers
            gumbel = -np.log(-np.log(np.clip(uniform[live], 1e-12, 1 - 1e-12)))
            out[live] = (self.rollout.logits(obs, legal[live]) + gumbel).argmax(axis=1)
        else:
            out[live] = self.rollout.act_batch(obs, legal[live])
        return out
