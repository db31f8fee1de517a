"""cardenvs.vector.SeatRewards (the self-play reward bookkeeping) and the
self-play PPO example built on it.

A plain-Python ledger, row by row, plays the learner's side: it credits each
``seat_reward`` to the seat's previous decision and each
``final_seat_rewards`` entry to the seat's last decision, and it recomputes
from the engine's raw rewards what each of those must be."""

from __future__ import annotations

import importlib.util
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import cardenvs.vector as V
from cardenvs.vector import SeatRewards

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "selfplay_ppo.py"

# What a seat's "score_delta" rewards over a game add up to, as a multiple of
# its final score (info["final_scores"]): Pepper pays the side's change in
# total; Hearts and Push pay minus the points (or penalties) taken.
SCORE_DELTA_SIGN = {"pepper_v0": 1, "cancellation_hearts_v0": -1, "push_v0": -1}


class Ledger:
    """The learner's bookkeeping, row by row, and what the wrapper must hand
    out, recomputed from the engine's raw rewards."""

    def __init__(self, num_envs: int, num_players: int):
        self.n, self.p = num_envs, num_players
        self.games: list[dict[str, np.ndarray]] = []
        self.current = np.zeros(num_envs, np.int64)
        self.decisions = np.zeros((num_envs, num_players), np.int64)
        self.credited = np.zeros((num_envs, num_players))
        self.raw = np.zeros((num_envs, num_players))
        self.since_last = np.zeros((num_envs, num_players))  # after the seat's last decision
        self.before_first = np.zeros((num_envs, num_players))  # before the seat's first decision

    def _new_game(self, r: int) -> None:
        for a in (self.decisions, self.credited, self.raw, self.since_last, self.before_first):
            a[r] = 0

    def handout(self, r: int, info: dict) -> None:
        """Row ``r`` shows its next observation: pay its seat's previous decision."""
        s = int(info["current_player"][r])
        self.current[r] = s
        got = float(info["seat_reward"][r])
        if self.decisions[r, s] == 0:
            assert got == 0.0, f"row {r}: seat {s} has not decided in this game yet but gets {got}"
        else:
            assert got == self.since_last[r, s], (r, s, got, self.since_last[r, s])
            self.credited[r, s] += got
            self.since_last[r, s] = 0.0

    def reset(self, info: dict) -> None:
        for r in range(self.n):
            self._new_game(r)
            self.handout(r, info)

    def step(self, stepped: np.ndarray, rewards, terminated, truncated, info) -> None:
        for r in range(self.n):
            if not stepped[r]:
                assert not rewards[r].any() and not terminated[r]
                assert info["seat_reward"][r] == 0.0 and not info["final_seat_rewards"][r].any()
                assert info["current_player"][r] == self.current[r]
                continue
            self.decisions[r, self.current[r]] += 1
            for q in range(self.p):
                self.raw[r, q] += rewards[r, q]
                if self.decisions[r, q]:
                    self.since_last[r, q] += rewards[r, q]
                else:
                    self.before_first[r, q] += rewards[r, q]
            if terminated[r] or truncated[r]:
                np.testing.assert_array_equal(info["final_seat_rewards"][r], self.since_last[r])
                np.testing.assert_array_equal(info["final_unclaimed_rewards"][r], self.before_first[r])
                np.testing.assert_array_equal(info["final_seat_acted"][r], self.decisions[r] > 0)
                self.credited[r] += info["final_seat_rewards"][r]
                self.games.append(
                    {
                        "credited": self.credited[r].copy(),
                        "raw": self.raw[r].copy(),
                        "unclaimed": info["final_unclaimed_rewards"][r].astype(np.float64),
                        "decisions": self.decisions[r].copy(),
                        "final_scores": info["final_scores"][r].astype(np.float64),
                    }
                )
                self._new_game(r)
            else:
                assert not info["final_seat_rewards"][r].any() and not info["final_seat_acted"][r].any()
            self.handout(r, info)


def random_actions(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    return (rng.random(mask.shape) * mask).argmax(axis=1)


def play(name: str, config: dict, steps: int, num_envs: int = 16, seed: int = 0) -> list[dict]:
    venv = SeatRewards(V.make(name, num_envs, seed=seed, **config))
    ledger = Ledger(num_envs, venv.num_players)
    rng = np.random.default_rng(seed)
    obs, info = venv.reset()
    ledger.reset(info)
    every = np.ones(num_envs, bool)
    for _ in range(steps):
        obs, rewards, terminated, truncated, info = venv.step(random_actions(rng, info["action_mask"]))
        ledger.step(every, rewards, terminated, truncated, info)
    venv.close()
    return ledger.games


CASES = [
    ("pepper_v0", {"num_players": 4, "reward": "score_delta"}, 1600),  # to 30 points or 50 hands
    ("pepper_v0", {"num_players": 4, "reward": "score_delta", "max_hands": 3}, 500),
    ("pepper_v0", {"num_players": 4, "reward": "win_loss", "max_hands": 3}, 500),
    ("pepper_v0", {"num_players": 3, "reward": "score_delta", "max_hands": 3}, 500),
    ("pepper_v0", {"num_players": 3, "reward": "win_loss", "max_hands": 3}, 500),
    ("cancellation_hearts_v0", {"reward": "score_delta", "max_hands": 2}, 700),
    ("cancellation_hearts_v0", {"reward": "win_loss", "max_hands": 2}, 700),
    ("push_v0", {"rounds": [1], "reward": "score_delta"}, 700),
    ("push_v0", {"rounds": [1], "reward": "win_loss"}, 700),
    ("push_v0", {"rounds": [1, 2], "reward": "score_delta"}, 1000),  # rewards before a seat's first turn, mid-game
]


@pytest.mark.parametrize(("name", "config", "steps"), CASES, ids=lambda c: json.dumps(c) if isinstance(c, dict) else c)
def test_every_raw_reward_is_credited_to_the_seats_decisions(name, config, steps):
    games = play(name, config, steps)
    assert len(games) >= 10
    for g in games:
        # What the seat's decisions were credited, plus what it earned before its first decision,
        # is everything the engine paid it.
        np.testing.assert_array_equal(g["credited"] + g["unclaimed"], g["raw"])
        # A seat that never acted is credited nothing.
        assert not g["credited"][g["decisions"] == 0].any()
        if name != "push_v0":  # every seat decides before any reward in Pepper and Hearts
            assert not g["unclaimed"].any()
            assert (g["decisions"] > 0).all()
        if config["reward"] == "score_delta":
            np.testing.assert_array_equal(g["raw"], SCORE_DELTA_SIGN[name] * g["final_scores"])
            if name != "push_v0":
                np.testing.assert_array_equal(g["credited"], SCORE_DELTA_SIGN[name] * g["final_scores"])


def test_push_seats_that_never_acted_keep_their_penalty_unclaimed():
    """In Push a player can go out before some seats had a turn: their team
    penalty is reported in final_unclaimed_rewards and credited to nothing."""
    games = play("push_v0", {"rounds": [1], "reward": "score_delta"}, 1500)
    idle = [g for g in games if (g["decisions"] == 0).any()]
    if not idle:
        pytest.skip("no Push game ended before every seat had acted")
    for g in idle:
        never = g["decisions"] == 0
        np.testing.assert_array_equal(g["unclaimed"][never], g["raw"][never])
        assert not g["credited"][never].any()


def first_games(venv: SeatRewards, decks: list, step_rows) -> list[list]:
    """Play each row's first game (fixed deals, per-row random legal play, each
    row's choices depending on its own game only), stepping the rows that
    ``step_rows()`` picks; per row, what its seats were handed, in order."""
    n = venv.num_envs
    rngs = [np.random.default_rng(100 + r) for r in range(n)]
    obs, info = venv.reset(seed=5, options={"decks": decks, "dealer": 0})
    ledger = Ledger(n, venv.num_players)
    ledger.reset(info)
    log: list[list] = [[] for _ in range(n)]
    finished = np.zeros(n, bool)
    while not finished.all():
        rows = step_rows()
        stepped = np.zeros(n, bool)
        stepped[slice(None) if rows is None else rows] = True
        actions = np.zeros(n, np.int64)
        for r in np.flatnonzero(stepped):
            legal = np.flatnonzero(info["action_mask"][r])
            actions[r] = legal[rngs[r].integers(len(legal))]
        obs, rewards, terminated, truncated, info = venv.step(actions, rows=rows)
        ledger.step(stepped, rewards, terminated, truncated, info)
        for r in np.flatnonzero(stepped & ~finished):
            if terminated[r]:
                log[r].append(("final", info["final_seat_rewards"][r].tolist()))
                finished[r] = True
            else:
                log[r].append((int(info["current_player"][r]), float(info["seat_reward"][r])))
    return log


def test_rows_stepped_at_different_times_stay_independent():
    make = lambda: SeatRewards(V.make("pepper_v0", 8, seed=5, reward="score_delta", max_hands=2))  # noqa: E731
    venv = make()
    texts = [venv.rules.deck.texts[t] for t in venv.rules.deck.multiset]
    rng = np.random.default_rng(0)
    decks = [list(rng.permutation(texts)) for _ in range(2)]  # both hands of every row's first game
    together = first_games(venv, decks, lambda: None)
    pick = np.random.default_rng(1)

    def some_rows():
        chosen = pick.random(8) < 0.4
        if not chosen.any():
            chosen[pick.integers(8)] = True
        return chosen if pick.random() < 0.5 else np.flatnonzero(chosen)  # a bool mask or indices

    apart = first_games(make(), decks, some_rows)
    assert apart == together
    assert any(reward for row in together for seat, reward in row if seat != "final")  # mid-game seat rewards


def test_illegal_action_terminate_credits_the_offender():
    venv = SeatRewards(V.make("pepper_v0", 4, seed=0, reward="score_delta", illegal_action="terminate"))
    obs, info = venv.reset()
    actions = info["action_mask"].argmax(axis=1)
    actions[2] = np.flatnonzero(~info["action_mask"][2])[0]
    offender = info["current_player"][2]
    obs, rewards, terminated, truncated, info = venv.step(actions)
    assert terminated.tolist() == [False, False, True, False]
    expected = np.zeros(venv.num_players, np.float32)
    expected[offender] = -1.0
    np.testing.assert_array_equal(info["final_seat_rewards"][2], expected)
    np.testing.assert_array_equal(info["final_seat_acted"][2], expected != 0)
    assert not info["final_unclaimed_rewards"].any() and not info["seat_reward"].any()


def test_reset_close_and_refusals():
    venv = SeatRewards(V.make("pepper_v0", 4, seed=0, reward="score_delta", max_hands=3))
    with pytest.raises(RuntimeError):
        venv.step(np.zeros(4, np.int64))
    obs, info = venv.reset(seed=1)
    assert info["seat_reward"].shape == (4,) and not info["seat_reward"].any()
    assert venv.num_envs == 4 and venv.observation_space.shape == obs.shape and venv.unwrapped.num_players == 4
    rng = np.random.default_rng(0)
    for _ in range(200):  # until a hand is scored and some seat waits for its reward
        obs, rewards, terminated, truncated, info = venv.step(random_actions(rng, info["action_mask"]))
        if venv.pending_rewards.any():
            break
    assert venv.pending_rewards.any()
    obs, info = venv.reset()
    assert not venv.pending_rewards.any() and not info["seat_reward"].any()
    with pytest.raises(ValueError):  # the engine's checks come first; nothing changes
        venv.step(np.zeros(4, np.int64), rows=[7])
    venv.close()
    with pytest.raises(RuntimeError):
        venv.step(np.zeros(4, np.int64))
    with pytest.raises(TypeError, match="simultaneous"):
        SeatRewards(V.make("spit_v0", 4))


def load_example():
    spec = importlib.util.spec_from_file_location("selfplay_ppo", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("processes", [1, 2])
def test_selfplay_ppo_returns_equal_final_scores(processes):
    """The returns the example's rollouts assign per game and seat (the sum of
    the rewards stored on that seat's decisions) are the games' final scores,
    games spanning several rollouts included (a few hundred steps of 8 games,
    with PPO updates in between), with the games in one process or two."""
    ppo = load_example()
    args = ppo.parse_args(
        ["--num-envs", "8", "--num-steps", "32", "--total-steps", str(8 * 32 * 10), "--eval-games", "0", "--quiet"]
        + ["--config", json.dumps({"reward": "score_delta", "max_hands": 2}), "--num-processes", str(processes)]
    )
    games = ppo.train(args)["games"]
    assert len(games) >= 20
    assert max(g["rollouts"] for g in games) > 1
    for g in games:
        np.testing.assert_array_equal(g["returns"], g["final_scores"])


def test_selfplay_ppo_example_runs():
    out = subprocess.run(
        [sys.executable, str(EXAMPLE), "--total-steps", "2048", "--num-envs", "16"],
        capture_output=True,
        text=True,
        timeout=900,  # (a guard against a hang, not a speed check: a busy machine may take long)
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    assert "done: 2,048 steps" in out.stdout and "mean seat return per game" in out.stdout
