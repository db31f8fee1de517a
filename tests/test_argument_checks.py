"""Every entry point checks its arguments as ``step`` checks actions (issue
#35, item 3): a clear TypeError or ValueError before anything runs, and
nothing changes -- ``observe(seats)`` (R7), the other Spit variant's options
(R14), a copy of a per-game engine (R15), the AEC wrapper after a failed
first reset (R16), and the seeds and seat/index arguments beside them."""

from __future__ import annotations

import copy
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import cardenvs
import cardenvs.vector as V
from cardenvs import pepper_v0, spit_v0
from cardenvs.registry import GAMES
from cardenvs.training.seat_env import SeatEnv

TURN_BASED = [g for g, spec in GAMES.items() if not spec.simultaneous]
N = 4  # games per engine


def random_actions(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    return (rng.random(mask.shape) * mask).argmax(-1)


# --- R7: observe(seats) -------------------------------------------------------
# (name, seats of a batch of N games of P players, the error)
BAD_SEATS = [
    ("-1", lambda p: np.full(N, -1), ValueError),
    ("num_players", lambda p: np.full(N, p), ValueError),
    ("99", lambda p: np.full(N, 99), ValueError),
    ("10**6", lambda p: np.full(N, 10**6), ValueError),
    ("2**63 uint64", lambda p: np.full(N, 2**63, np.uint64), ValueError),
    ("2**64 in a list", lambda p: [0] * (N - 1) + [2**64], ValueError),
    ("10**30 alone", lambda p: 10**30, ValueError),
    ("one row out of range", lambda p: np.array([0] * (N - 1) + [p]), ValueError),
    ("1.0", lambda p: np.full(N, 1.0), TypeError),
    ("float list", lambda p: [0.0] * N, TypeError),
    ('"0"', lambda p: np.full(N, "0"), TypeError),
    ("a string", lambda p: "0", TypeError),
    ("bool", lambda p: np.zeros(N, bool), TypeError),
    ("short", lambda p: np.zeros(N - 1, np.int64), ValueError),
    ("2-D", lambda p: np.zeros((N, 1), np.int64), ValueError),
    ("scalar", lambda p: 0, ValueError),
    ("None", lambda p: None, TypeError),
]


def same_games(a, b, rng_seed: int = 1, steps: int = 40) -> None:
    """Engines ``a`` and ``b`` hold the same games: the same observations by
    every seat, and the same outputs and states for the same actions."""
    rng = np.random.default_rng(rng_seed)
    for p in range(a.num_players):
        np.testing.assert_array_equal(a.observe(np.full(a.num_envs, p)), b.observe(np.full(b.num_envs, p)))
    mask = a.state.legal.copy()
    for _ in range(steps):
        actions = random_actions(rng, mask)
        out_a, out_b = a.step(actions), b.step(actions)
        for x, y in zip(out_a[:4], out_b[:4]):
            np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(out_a[4]["action_mask"], out_b[4]["action_mask"])
        mask = out_a[4]["action_mask"]
    assert [a.state_dict(i) for i in range(a.num_envs)] == [b.state_dict(i) for i in range(b.num_envs)]


@pytest.mark.parametrize("bad", BAD_SEATS, ids=[b[0] for b in BAD_SEATS])
@pytest.mark.parametrize("game", TURN_BASED)
def test_observe_refuses_bad_seats_and_changes_nothing(game, bad):
    _, seats_of, error = bad
    venv, untouched = V.make(game, N, seed=3), V.make(game, N, seed=3)
    venv.reset()
    untouched.reset()
    with pytest.raises(error, match="seats"):
        venv.observe(seats_of(venv.num_players))
    same_games(venv, untouched)


@pytest.mark.parametrize("game", TURN_BASED)
def test_observe_takes_every_integer_kind_of_seat(game):
    venv = V.make(game, N, seed=0)
    venv.reset()
    seats = np.arange(N) % venv.num_players
    expected = venv.observe(seats)
    for kind in (np.int8, np.uint8, np.int32, np.uint64):
        np.testing.assert_array_equal(venv.observe(seats.astype(kind)), expected)
    np.testing.assert_array_equal(venv.observe(seats.tolist()), expected)


def test_spit_observe_takes_no_seats():
    venv = V.make("spit_v0", N, seed=0)
    obs, _ = venv.reset()
    with pytest.raises(TypeError):
        venv.observe(np.zeros(N, np.int64))
    np.testing.assert_array_equal(venv.observe(), obs)


def test_out_of_range_seats_are_an_error_not_a_crash():
    """The reproduction of R7 (seat 99 corrupted the heap, 10**6 crashed) in
    a process of its own: a crash there cannot take the test run down."""
    script = textwrap.dedent(
        """
        import numpy as np, cardenvs.vector as V
        v = V.make("pepper_v0", 64, seed=0); v.reset()
        for seat in (99, 10**6):
            try:
                v.observe(np.full(64, seat))
            except ValueError as e:
                print("ValueError", e)
        print("done", int(v.observe(np.zeros(64, np.int64)).sum()))
        """
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 3 and all(line.startswith("ValueError seats must be in 0..3") for line in lines[:2])
    assert lines[2].startswith("done ")


@pytest.mark.parametrize("game", TURN_BASED)
def test_state_dict_and_rows_refuse_bad_indices(game):
    venv, untouched = V.make(game, N, seed=5), V.make(game, N, seed=5)
    _, info = venv.reset()
    untouched.reset()
    for index in (-1, N, 2**63, np.uint64(2**64 - 1)):
        with pytest.raises(ValueError, match="out of range"):
            venv.state_dict(index)
    for index in (1.0, "0", True, None, np.zeros(1, np.int64)):
        with pytest.raises(TypeError, match="index"):
            venv.state_dict(index)
    actions = random_actions(np.random.default_rng(0), info["action_mask"])
    for rows, error in (
        ([N], ValueError),
        ([-1], ValueError),
        ([0, 0], ValueError),
        (np.array([2**63], np.uint64), ValueError),
        ([0.0], TypeError),
        (["0"], TypeError),
        (0, TypeError),
        (np.zeros(N - 1, bool), ValueError),
    ):
        with pytest.raises(error, match="rows"):
            venv.step(actions, rows=rows)
    same_games(venv, untouched)


# --- seeds -----------------------------------------------------------------------
@pytest.mark.parametrize("rng", ["shared", "per_game"])
def test_a_bad_seed_is_refused_and_the_games_go_on(rng):
    venv, untouched = V.make("pepper_v0", N, seed=2, rng=rng), V.make("pepper_v0", N, seed=2, rng=rng)
    venv.reset()
    untouched.reset()
    bad = [1.5, -1, "0", True, np.float64(3)] + ([2**64] if rng == "per_game" else [])
    for seed in bad:
        with pytest.raises(ValueError, match="seed"):
            venv.reset(seed=seed)
        with pytest.raises(ValueError, match="seed"):
            V.make("pepper_v0", N, seed=seed, rng=rng)
    same_games(venv, untouched)


def test_per_game_seeds_do_not_alias():
    """A per-game stream keys on a seed's 64 bits: a larger seed would play
    another seed's games, so it is refused rather than folded."""
    a = V.make("pepper_v0", N, seed=2**64 - 1, rng="per_game")
    a.reset()
    with pytest.raises(ValueError, match="2\\*\\*64"):
        a.reset(seed=2**64 + 5)


@pytest.mark.parametrize("game", list(GAMES))
def test_a_view_refuses_a_bad_seed_and_keeps_its_game(game):
    env = cardenvs.make(game)
    env.reset(seed=4)
    before = env.unwrapped.state_dict()
    for seed in (1.5, -1, "0", True):
        with pytest.raises(ValueError, match="seed"):
            env.reset(seed=seed)
    assert env.unwrapped.state_dict() == before


# --- R14: the other Spit variant's options ------------------------------------------
@pytest.mark.parametrize(
    "config, option",
    [
        ({"speed_side_piles": 10.0}, "speed_side_piles"),
        ({"speed_side_piles": np.float64(5)}, "speed_side_piles"),
        ({"target_score": 5.0}, "target_score"),
        ({"target_score": True}, "target_score"),
        ({"variant": "speed", "stockpiles": 5.0}, "stockpiles"),
        ({"variant": "speed", "stockpiles": True}, "stockpiles"),
        ({"stockpiles": 5.0}, "stockpiles"),
        ({"variant": "speed", "speed_side_piles": 10.0}, "speed_side_piles"),
        ({"max_ticks": 5000.0}, "max_ticks"),
        ({"variant": "speed", "max_ticks": 5000.0}, "max_ticks"),
    ],
)
def test_every_spit_option_is_checked_whichever_variant(config, option):
    for make in (spit_v0.env, spit_v0.parallel_env, lambda **c: V.make("spit_v0", 2, **c)):
        with pytest.raises(ValueError, match=option):
            make(**config)


def test_the_other_variants_options_at_their_defaults_are_allowed():
    spit_v0.env(speed_side_piles=10, target_score=None).reset(seed=0)
    spit_v0.env(variant="speed", stockpiles=5).reset(seed=0)
    with pytest.raises(ValueError, match="applies only to variant='speed'"):
        spit_v0.env(speed_side_piles=5)
    with pytest.raises(ValueError, match="applies only to variant='spit'"):
        spit_v0.env(variant="speed", stockpiles=4)


@pytest.mark.parametrize("game", list(GAMES))
def test_an_integer_option_given_as_a_float_names_the_option(game):
    """Every integer option of every game (whose default is an int)."""
    from cardenvs.core.options import rules_defaults

    options = {k: v for k, v in rules_defaults(V.rules_class(game)).items() if type(v) is int}
    assert options
    for option, default in options.items():
        with pytest.raises(ValueError, match=option):
            cardenvs.make(game, **{option: float(default)})


# --- R15: deepcopy of a per-game engine ------------------------------------------------
@pytest.mark.parametrize("num_threads", [1, 2])
@pytest.mark.parametrize("game", list(GAMES))
def test_deepcopy_of_a_per_game_engine_is_an_independent_exact_copy(game, num_threads):
    venv = V.make(game, N, seed=0, rng="per_game", num_threads=num_threads)
    _, info = venv.reset()
    rng = np.random.default_rng(7)
    for _ in range(10):
        _, _, _, _, info = venv.step(random_actions(rng, info["action_mask"]))
    twin = copy.deepcopy(venv)
    reference = copy.deepcopy(venv)
    assert twin.state.draws is not venv.state.draws
    # stepping the copy leaves the original where it was ...
    mask = info["action_mask"]
    for _ in range(30):
        _, _, _, _, out = twin.step(random_actions(rng, mask))
        mask = out["action_mask"]
    assert [venv.state_dict(i) for i in range(N)] == [reference.state_dict(i) for i in range(N)]
    np.testing.assert_array_equal(venv.state.draws, reference.state.draws)
    # ... and the same actions give the same games on both
    mask, seed_rng = info["action_mask"], np.random.default_rng(11)
    for _ in range(60):
        actions = random_actions(seed_rng, mask)
        first, second = venv.step(actions), reference.step(actions)
        for x, y in zip(first[:4], second[:4]):
            np.testing.assert_array_equal(x, y)
        mask = first[4]["action_mask"]
    assert [venv.state_dict(i) for i in range(N)] == [reference.state_dict(i) for i in range(N)]


# --- R16: after a failed first reset -----------------------------------------------
@pytest.mark.parametrize("game", list(GAMES))
def test_a_failed_first_reset_leaves_the_env_as_before_any_reset(game):
    def refusals(env) -> list[str]:
        seen = []
        for call in (
            env.last,
            lambda: env.step(0),
            lambda: env.observe("player_0"),
            lambda: next(iter(env.agent_iter())),
            lambda: env.agent_selection,
        ):
            with pytest.raises((AttributeError, RuntimeError, AssertionError)) as caught:
                call()
            seen.append(f"{type(caught.value).__name__}: {caught.value}")
        return seen

    fresh = refusals(cardenvs.make(game))
    env = cardenvs.make(game)
    with pytest.raises(ValueError, match="dealer"):
        env.reset(seed=0, options={"dealer": 9})
    assert refusals(env) == fresh
    assert "call reset() first" in fresh[0] and "has no attribute" not in " ".join(fresh)
    env.reset(seed=0)
    reference = cardenvs.make(game)
    reference.reset(seed=0)
    assert env.unwrapped.state_dict() == reference.unwrapped.state_dict()
    assert env.last()[1:] == reference.last()[1:]


def test_r16_reproduction():
    env = pepper_v0.env()
    with pytest.raises(ValueError):
        env.reset(seed=0, options={"dealer": 9})
    with pytest.raises(AttributeError, match="before reset: call reset\\(\\) first"):
        env.last()


# --- seats of the views ------------------------------------------------------------
@pytest.mark.parametrize("game", list(GAMES))
def test_render_refuses_a_bool_or_out_of_range_seat(game):
    env = cardenvs.make(game, render_mode="ansi")
    env.reset(seed=0)
    for seat in (True, -1, 99, 1.0, "0"):
        with pytest.raises(ValueError, match="seat"):
            env.unwrapped.render(seat)


def test_seat_env_refuses_a_bool_seat():
    for seat in (True, 4, -1, 1.0, "north"):
        with pytest.raises(ValueError, match="seat"):
            SeatEnv("pepper_v0", seat=seat)
    assert SeatEnv("pepper_v0", seat=np.int64(2)).seat_choice == 2
