"""Seat reward accounting for self-play on the turn-based vector engine.

The engine's ``rewards`` are ``(num_envs, num_players)``: every seat is paid
on the step where it earns something, whoever acted.  In Pepper with
``reward="score_delta"`` most rewards land on seats that are not acting (a
hand is scored after the last card, and only one seat played it).  A
shared-policy self-play learner has to carry each of those rewards to the
decision that earned it: the seat's last decision.  :class:`SeatRewards`
does that bookkeeping, batched over the rows.

The rule
--------
A decision is credited with everything its seat earns after it, up to the
seat's next decision in the same game, or up to the end of the game:

- ``info["seat_reward"]`` ``(num_envs,)``: handed out with each observation,
  for the seat now to act (``info["current_player"]``): what that seat earned
  since its previous decision.  That is the reward of its previous decision.
  It is 0 at a seat's first decision of a game (there is nothing to credit),
  and 0 for rows not stepped (``rows=``), since their seat was already paid.
- ``info["final_seat_rewards"]`` ``(num_envs, num_players)``: for the rows
  whose game ended on this step, each seat's remainder: what it earned since
  its last decision, terminal rewards included.  That is the reward of every
  seat's last decision.  0 on other rows.
- ``info["final_unclaimed_rewards"]`` ``(num_envs, num_players)``: for the rows
  whose game ended on this step, what each seat earned **before its first
  decision** of that game.  No decision of that seat can have caused it, so it
  is credited to none; a learner ignores it.  It is there so that nothing
  vanishes: per seat and game, the seat rewards of its decisions, its
  remainder and its unclaimed rewards add up to the engine's rewards.  (It
  happens: in Push a player can go out before a partner or an opponent has
  had a turn, and the team penalty reaches that seat.)
- ``info["final_seat_acted"]`` ``(num_envs, num_players)`` bool: which seats
  of the finished games made at least one decision (``final_seat_rewards`` is
  0 for the others).

So the reward of a decision is the ``seat_reward`` its seat gets when it next
acts in that game, or its ``final_seat_rewards`` entry if the game ends
first; a learner keeps, per row and seat, the one decision still waiting,
and nothing else.

Worked example
--------------
Four-player Pepper with ``reward="score_delta"``, one row.  Seats 0, 1, 2, 3
play the last trick of a hand in that order, and the hand scores +5 for
seats 0 and 2 and -5 for seats 1 and 3 on seat 3's step.  Seat 0 acts first in the
next hand::

    step  acting  engine rewards   next to act  info["seat_reward"]
    t     0       ( 0,  0, 0,  0)  1            (seat 1's last) 0
    t+1   1       ( 0,  0, 0,  0)  2            (seat 2's last) 0
    t+2   2       ( 0,  0, 0,  0)  3            (seat 3's last) 0
    t+3   3       (+5, -5, +5, -5) 0            (seat 0's card at t) +5
    t+4   0       ( 0,  0, 0,  0)  1            (seat 1's card at t+1) -5
    ...

If instead the game ended on step t+3, the returned observation is the next
game's (its ``seat_reward`` is 0) and ``info["final_seat_rewards"][row]`` is
``(+5, -5, +5, -5)``: the rewards of the decisions made at t, t+1, t+2, t+3.

In code, a learner that stores decisions per (row, seat)::

    venv = SeatRewards(cardenvs.vector.make("pepper_v0", 64, seed=0, reward="score_delta"))
    obs, info = venv.reset()
    rows = np.arange(64)
    waiting = np.full((64, venv.num_players), -1)  # per seat, its decision awaiting its reward
    while training:
        seats = info["current_player"]
        prev = waiting[rows, seats]
        paid = prev >= 0
        reward_of[prev[paid]] = info["seat_reward"][paid]  # the previous decision is paid
        actions = policy(obs, info["action_mask"])
        waiting[rows, seats] = store(obs, info["action_mask"], actions)  # ids of the new decisions
        obs, rewards, terminated, truncated, info = venv.step(actions)
        ended = terminated | truncated
        last = waiting[ended]  # (n_ended, num_players)
        reward_of[last[last >= 0]] = info["final_seat_rewards"][ended][last >= 0]
        waiting[ended] = -1

``examples/selfplay_ppo.py`` is a complete PPO built on this.

Spit (``spit_v0``) needs none of this: both seats act on every tick, so
``rewards[:, s]`` of a step already is the reward of seat ``s``'s action on
that tick.  :class:`SeatRewards` refuses simultaneous engines.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["SeatRewards"]


class SeatRewards:
    """Wraps a turn-based vector engine (``cardenvs.vector.make``) so that each
    seat gets, with its next observation, everything it earned since it last
    acted, and every seat its remainder when a game ends (see the module
    docstring for the rule and a worked example).

    ``reset`` and ``step`` take and return what the engine's do; ``info``
    gains ``"seat_reward"`` (reset and step), and ``"final_seat_rewards"``,
    ``"final_unclaimed_rewards"``, ``"final_seat_acted"`` (step; zeros on rows
    whose game did not end).  ``step(actions, rows=...)`` steps only ``rows``,
    as the engine does.  Every other attribute (``num_envs``, ``num_players``,
    the spaces, ``observe``, ``state_dict``, ...) is the engine's.  Rewards
    are float32, as the engine's are."""

    def __init__(self, venv: Any):
        if tuple(getattr(venv, "batch_shape", ())) != (getattr(venv, "num_envs", None),):
            raise TypeError(
                "SeatRewards needs a turn-based vector engine (one observation per row); "
                f"{type(venv).__name__} is simultaneous: every seat acts on every step, so rewards[:, s] "
                "already is the reward of seat s's action on that step and needs no accounting"
            )
        self.venv = venv
        n, p = venv.num_envs, venv.num_players
        self._rows = np.arange(n)
        self._pending = np.zeros((n, p), np.float64)  # earned since the seat's last decision
        self._unclaimed = np.zeros((n, p), np.float64)  # earned before the seat's first decision
        self._acted = np.zeros((n, p), bool)  # the seat has decided in this game
        self._current: np.ndarray | None = None

    def __getattr__(self, name: str) -> Any:
        if name == "venv":  # not yet set (e.g. while unpickling)
            raise AttributeError(name)
        return getattr(self.venv, name)

    @property
    def unwrapped(self) -> Any:
        """The engine."""
        return self.venv

    @property
    def pending_rewards(self) -> np.ndarray:
        """``(num_envs, num_players)``: what each seat has earned since its last
        decision and not yet been handed (a copy; for learners that cut a
        rollout and bootstrap)."""
        return self._pending.astype(np.float32)

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """The engine's ``reset``; every row starts a new game, so nothing is
        pending and ``info["seat_reward"]`` is 0."""
        obs, info = self.venv.reset(seed=seed, options=options)
        self._pending[:] = 0.0
        self._unclaimed[:] = 0.0
        self._acted[:] = False
        self._current = np.asarray(info["current_player"]).copy()
        info["seat_reward"] = np.zeros(self.venv.num_envs, np.float32)
        return obs, info

    def step(
        self, actions: np.ndarray, rows: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """The engine's ``step`` (``rows``: only those rows, an index array or a
        bool mask), with the seat rewards added to ``info``."""
        if self._current is None:
            raise RuntimeError("call reset() before step()")
        if rows is None:
            obs, rewards, terminated, truncated, info = self.venv.step(actions)
            stepped = self._rows
        else:
            obs, rewards, terminated, truncated, info = self.venv.step(actions, rows=rows)
            mask = np.zeros(self.venv.num_envs, bool)
            mask[np.asarray(rows)] = True  # the engine has checked rows
            stepped = np.flatnonzero(mask)
        # The seats that just acted have decided in this game: what they earn
        # from now on (this step's rewards included) is credited to a decision.
        self._acted[stepped, self._current[stepped]] = True
        self._pending += np.where(self._acted, rewards, 0.0)
        self._unclaimed += np.where(self._acted, 0.0, rewards)
        ended = (np.asarray(terminated) | np.asarray(truncated))[:, None]
        info["final_seat_rewards"] = np.where(ended, self._pending, 0.0).astype(np.float32)
        info["final_unclaimed_rewards"] = np.where(ended, self._unclaimed, 0.0).astype(np.float32)
        info["final_seat_acted"] = self._acted & ended
        keep = ~ended
        self._pending *= keep
        self._unclaimed *= keep
        self._acted &= keep
        # Hand each row's seat now to act what it earned since its last
        # decision (0 at its first decision: its earlier rewards are unclaimed).
        current = np.asarray(info["current_player"]).copy()
        info["seat_reward"] = self._pending[self._rows, current].astype(np.float32)
        self._pending[self._rows, current] = 0.0
        self._current = current
        return obs, rewards, terminated, truncated, info

    def close(self) -> None:
        """The engine's ``close``; ``reset`` starts anew."""
        self._current = None
        self.venv.close()
