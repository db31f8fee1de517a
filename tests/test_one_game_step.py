"""The one-call step of the one-game views (issue #16, round two).

Kernels take the state's and the rules' arrays as packs
(:func:`cardenvs.core.jit.pack`: addresses in one int64 array), and a game
with ``rules.step_one`` (Pepper, Spit) steps and observes a batch of one in
one compiled call, into the view's :class:`~cardenvs.core.onegame.OneGame`.
These tests check the packs alias the right memory, refuse what they cannot
hold, are remade (never copied) with a copy or a pickle, and that the
one-call step plays exactly the games of the two-call step.
"""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
import pytest

import cardenvs
from cardenvs import IllegalActionError, spit_v0
from cardenvs.core import jit
from cardenvs.core.onegame import OneGame, step_call
from cardenvs.games.pepper import apply as pepper_apply
from cardenvs.games.pepper.rules import PepperRules
from cardenvs.games.pepper.tables import TablePack
from cardenvs.games.push.rules import PushRules
from cardenvs.games.spit.rules import spit_rules
from cardenvs.games.spit.tables import StatePack

_ROW_0 = np.zeros(1, np.int64)
KINDS = ((np.int8, 1), (np.int64, 2), (np.bool_, 3), (np.int16, 4), (None, 0), (float, 0))


@jit.kernel
def _touch_pack(p):
    """Write through every kind of view of a :data:`KINDS` pack; return its scalars."""
    jit.view1(p, 0, np.int8)[1] = 7
    jit.view2(p, 1, np.int64)[1, 2] = -5
    jit.view3(p, 2, np.bool_)[0, 1, 1] = True
    jit.view4(p, 3, np.int16)[1, 0, 1, 2] = 300
    return jit.scalar(p, 4), jit.fscalar(p, 5)


def _kind_arrays() -> tuple[np.ndarray, ...]:
    return (
        np.zeros(3, np.int8),
        np.zeros((2, 3), np.int64),
        np.zeros((1, 2, 2), bool),
        np.zeros((2, 1, 2, 3), np.int16),
    )


def test_a_pack_views_the_arrays_themselves():
    arrays = _kind_arrays()
    packed = jit.pack((*arrays, 42, 0.25), KINDS)
    assert _touch_pack(packed) == (42, 0.25)
    assert arrays[0][1] == 7 and arrays[1][1, 2] == -5 and arrays[2][0, 1, 1] and arrays[3][1, 0, 1, 2] == 300
    assert arrays[0].sum() == 7 and arrays[1].sum() == -5 and arrays[2].sum() == 1 and arrays[3].sum() == 300


@pytest.mark.parametrize(
    "values",
    [
        (np.zeros(3, np.int16),),  # another dtype
        (np.zeros((3, 1), np.int8),),  # another number of dimensions
        (np.zeros(6, np.int8)[::2],),  # not contiguous
        ([0, 0, 0],),  # not an array
        (),  # too few values
    ],
)
def test_a_pack_refuses_an_array_of_another_kind(values):
    with pytest.raises(TypeError, match="pack"):
        jit.pack(values, ((np.int8, 1),))


def test_a_pack_refuses_a_scalar_of_another_kind():
    with pytest.raises(TypeError, match="int or bool"):
        jit.pack((0.5,), ((None, 0),))
    with pytest.raises(TypeError, match="float"):
        jit.pack(("x",), ((float, 0),))
    with pytest.raises(TypeError, match="pack_kind"):
        jit.pack_kind(("a", "b"), ((None, 0),))


def _addresses(packed) -> list[int]:
    return [int(a) for a in packed[:, 0]] if jit.COMPILED else [id(v) for v in packed]


@pytest.mark.parametrize("copier", [copy.copy, copy.deepcopy, lambda x: pickle.loads(pickle.dumps(x))])
def test_packs_are_made_anew_for_a_copy_never_copied(copier):
    """A pack holds addresses: a copied state, rules or OneGame must not keep
    the original's (a kernel would write the original's arrays)."""
    rules = PepperRules()
    state = rules.new_state(1, np.random.default_rng(0))
    rules.reset(state, np.array([0]))
    packed = state.bundle(TablePack)
    other = copier(state)
    assert not other.__getstate__().get("_bundles")  # (no bundle, pack or row view is copied)
    assert other.bundle(TablePack) is not packed
    if jit.COMPILED:  # the copy's pack: the copy's arrays
        assert _addresses(other.bundle(TablePack)) == [getattr(other, f).ctypes.data for f in TablePack._fields]
    spit = spit_rules()
    for original in (rules, spit):
        twin = copier(original)
        for name in original.pack_names:
            if copier is copy.copy:  # a shallow copy shares the tables: their addresses are the same
                continue
            assert _addresses(getattr(twin, name)) != _addresses(getattr(original, name))
    one = OneGame(spit, every_seat=True, scratch=(np.zeros(1, np.int64),))
    twin = copier(one)
    assert twin.seen.shape == (1, 2, spit.obs_size) and twin.scratch[0].shape == (1,)
    if jit.COMPILED:
        assert twin.pack is not one.pack and int(twin.pack[1, 0]) == twin.seen.ctypes.data
        assert (copier is copy.copy) == (twin.seen.ctypes.data == one.seen.ctypes.data)  # deep copies: own arrays


@pytest.mark.parametrize("make", [PepperRules, spit_rules])
def test_a_row_view_packs_its_own_arrays(make):
    """A row view (BatchState.view, one thread's shard) is a state of its own
    whose arrays are slices of the batch's: its pack holds the slices'
    addresses (rows lo.., the shard's), never the batch's (row 0 on), so a
    kernel given it writes the shard's rows."""
    rules = make()
    state = rules.new_state(4, np.random.default_rng(5))
    rules.reset(state, np.arange(4))
    kind = TablePack if make is PepperRules else StatePack
    view = state.view(2, 4)
    assert view.bundle(kind) is not state.bundle(kind)
    if jit.COMPILED:
        assert _addresses(view.bundle(kind)) == [getattr(view, f).ctypes.data for f in kind._fields]
        assert _addresses(view.bundle(kind)) != _addresses(state.bundle(kind))
        assert int(view.bundle(kind)[1, 1]) == 2  # (the shape: the view's two rows)


def test_a_copied_state_steps_on_its_own_arrays():
    """The copy's kernels write the copy: the original does not move."""
    rules = PepperRules()
    state = rules.new_state(1, np.random.default_rng(3))
    rules.reset(state, np.array([0]))
    state.bundle(TablePack)  # made before the copy
    before = state.copy()
    twin = pickle.loads(pickle.dumps(state))
    action = int(np.flatnonzero(state.legal[0])[-1])
    rules.step(twin, np.array([action]))
    for name in ("current", "high_bid", "public", "legal"):
        np.testing.assert_array_equal(getattr(state, name), getattr(before, name))
    assert twin.high_bid[0] == action


def _play_aec(env, seed: int, steps: int) -> list:
    """Seeded random play through an AEC env: every step's observation,
    mask, reward and flags, across new games."""
    rnd = random.Random(seed)
    env.reset(seed=seed)
    trace = []
    while len(trace) < steps:
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            trace.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term, trunc))
            if term or trunc:
                action = None
            else:
                action = int(rnd.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
            if len(trace) >= steps:
                return trace
        env.reset()
    return trace


@pytest.mark.parametrize(
    "game, config",
    [
        ("pepper_v0", {"max_hands": 2}),
        ("pepper_v0", {"num_players": 2, "all_pass": "redeal", "obs_dtype": np.float32, "max_hands": 3}),
        ("spit_v0", {"max_ticks": 60}),
        ("spit_v0", {"stockpiles": 4, "alternate_colors": True, "obs_dtype": np.float32}),
        ("push_v0", {"rounds": [1, 2], "max_turns": 30}),
        ("push_v0", {"rounds": [5], "reward": "score_delta", "obs_dtype": np.float32}),
    ],
)
def test_the_one_call_step_plays_the_games_of_the_two_call_step(game, config):
    """The same seeded games through the view with its OneGame and with
    none (rules.step, then observe): every observation, mask and reward
    equal -- across new deals, stalemates, truncations and new games."""
    fused = cardenvs.make(game, **config)
    plain = cardenvs.make(game, **config)
    inner = plain.unwrapped if game != "spit_v0" else plain.unwrapped.parallel
    assert inner._one is not None
    inner._one = None
    assert _play_aec(fused, 11, 3000) == _play_aec(plain, 11, 3000)


def test_spit_parallel_env_ticks_as_with_two_calls():
    fused, plain = spit_v0.parallel_env(max_ticks=80), spit_v0.parallel_env(max_ticks=80)
    plain._one = None
    traces = []
    for env in (fused, plain):
        rnd, trace = random.Random(4), []
        obs, _ = env.reset(seed=4)
        for _ in range(1500):
            actions = {a: int(rnd.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
            obs, rewards, terms, truncs, _ = env.step(actions)
            trace.append(([o["observation"].tobytes() + o["action_mask"].tobytes() for o in obs.values()], rewards))
            trace[-1][0].append((terms, truncs))
            if not env.agents:
                obs, _ = env.reset()
        traces.append(trace)
    assert traces[0] == traces[1]


def test_the_observation_a_step_wrote_is_handed_out_as_fresh_arrays():
    env = cardenvs.make("pepper_v0")
    env.reset(seed=2)
    agent = env.agent_selection
    env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
    now = env.agent_selection
    assert env.unwrapped._ready == now
    first, second = env.observe(now), env.observe(now)  # the step's, then one made as usual
    for key in ("observation", "action_mask"):
        np.testing.assert_array_equal(first[key], second[key])
        assert first[key] is not second[key] and not np.shares_memory(first[key], second[key])
    first["observation"][:] = 0  # the caller's to keep: the env's next hand-outs do not change
    assert env.observe(now)["observation"].any()
    other = env.observe(agent)
    assert not other["action_mask"].any()  # not this seat's turn


def test_an_illegal_action_ending_the_game_hides_the_mask_the_step_wrote():
    env = cardenvs.make("pepper_v0", illegal_action="terminate")
    env.reset(seed=1)
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    env.step(int(legal[0]))
    now = env.agent_selection
    illegal = next(a for a in range(env.action_space(now).n) if not env.unwrapped._state.legal[0, a])
    env.step(illegal)
    assert env.terminations[now]
    assert not env.observe(now)["action_mask"].any()


def test_an_illegal_spit_action_in_a_tick_is_checked_as_before():
    env = spit_v0.env()
    env.reset(seed=0)
    first = env.agent_selection
    mask = env.observe(first)["action_mask"]
    env.step(int(np.flatnonzero(mask)[0]))
    second = env.agent_selection
    bad = int(np.flatnonzero(env.observe(second)["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        env.step(bad)
    assert env.agent_selection == second  # nothing buffered: the tick waits for a legal action
    env.step(np.int64(np.flatnonzero(env.observe(second)["action_mask"])[0]))  # a numpy int: the checked path
    assert env.agent_selection == first and env.unwrapped._pending == {}


def test_state_packs_cover_the_arrays_named():
    """The packs' field lists name arrays of the states the rules make."""
    for rules, kind in ((PepperRules(), TablePack), (spit_rules(), StatePack)):
        state = rules.new_state(2, np.random.default_rng(0))
        packed = state.bundle(kind)
        assert len(packed) == len(kind._fields)
        if jit.COMPILED:
            assert [int(a) for a in packed[:, 0]] == [getattr(state, f).ctypes.data for f in kind._fields]


def test_a_copied_one_game_hands_out_views_of_its_own_arrays():
    one = OneGame(PepperRules())
    for twin in (copy.deepcopy(one), pickle.loads(pickle.dumps(one))):
        assert np.shares_memory(twin.seen_row, twin.seen) and np.shares_memory(twin.mask_row, twin.mask)
        assert not np.shares_memory(twin.seen_row, one.seen)


def test_push_one_call_step_rewrites_the_observation_for_another_state():
    """Push's one-call step writes only the meld slots whose stamps changed
    since its buffer was last written; stamps are one state's counter, so a
    OneGame stepped with another state (a copy: the same counter, other
    melds) rewrites everything rather than keep the first state's blocks."""
    rules = PushRules()
    state = rules.new_state(1, np.random.default_rng(2))
    rules.reset(state, _ROW_0)
    rng = np.random.default_rng(3)
    while True:  # random play up to a choice of two melds (ids from 55 on: declare, add, fill, lay off, swap)
        melds = np.flatnonzero(state.legal[0, 55:]) + 55
        if state.current[0] >= 0 and len(melds) >= 2:
            break
        rules.step(state, np.array([rng.choice(np.flatnonzero(state.legal[0]))]))
    twin = state.copy()
    one = rules.one_game()
    assert rules.step_one(state, int(melds[0]), one) and rules.step_one(twin, int(melds[-1]), one)
    seat = twin.current[:1]
    np.testing.assert_array_equal(one.seen, rules.observe(twin, seat))
    np.testing.assert_array_equal(one.mask[0], twin.legal[0])
    assert not np.array_equal(one.seen, rules.observe(state, state.current[:1]))


def test_step_calls_are_kept_with_the_state_and_remade_with_its_arrays():
    """What a one-call step calls (core.onegame.step_call: the kernel's
    entry point and one pack) is made once per state and OneGame, and anew
    once an array of the state is bound anew (its pack would hold the old
    array's address)."""
    rules = PepperRules()
    state = rules.new_state(1, np.random.default_rng(0))
    rules.reset(state, _ROW_0)
    one = rules.one_game()

    def call(one):
        return step_call(state, one, rules.config_pack, TablePack, pepper_apply.step_one, "int")

    made = call(one)
    assert call(one) is made
    assert call(rules.one_game()) is not made  # another OneGame
    state.hands = state.hands.copy()
    step, packs = call(one)
    assert packs is not made[1]
    if jit.COMPILED:
        assert int(packs[1, 0]) == state.bundle(TablePack).ctypes.data and int(packs[2, 0]) == one.pack.ctypes.data
        if pepper_apply.step_one.signatures:  # (with a cold cache it runs as Python until built: core.compiling)
            assert step is pepper_apply.step_one.overloads[pepper_apply.step_one.signatures[0]].entry_point
    assert not pickle.loads(pickle.dumps(state)).__getstate__().get("_bundles")  # (not pickled)


def test_push_has_no_one_call_step_for_an_int32_observation():
    """Push's step kernel writes int16 observations; with max_turns past
    int16 the view steps and observes as before."""
    env = cardenvs.make("push_v0", max_turns=40000)
    assert env.unwrapped.rules.obs_dtype == np.int32 and env.unwrapped._one is None
    trace = _play_aec(env, 3, 200)
    assert all(len(obs) == 4961 * 4 for _, obs, *_ in trace)


def test_a_wrapped_env_copied_after_reset_plays_its_own_game():
    """Once reset, the wrapper hands ``last`` and ``observe`` to the env
    (bound methods): a copy's are bound to the copy's env."""
    for copier in (copy.deepcopy, lambda x: pickle.loads(pickle.dumps(x))):
        env = cardenvs.make("pepper_v0")
        env.reset(seed=4)
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))  # (the state holds a step_call now)
        twin = copier(env)
        assert twin.last.__self__ is twin.unwrapped and twin.observe.__self__ is twin.unwrapped
        before = env.last()[0]["observation"].copy()
        agent = twin.agent_selection
        twin.step(int(np.flatnonzero(twin.observe(agent)["action_mask"])[0]))
        assert twin.agent_selection != agent and env.agent_selection == agent
        np.testing.assert_array_equal(env.last()[0]["observation"], before)


def test_the_wrapper_refuses_last_and_observe_before_reset():
    env = cardenvs.make("pepper_v0")
    with pytest.raises(AttributeError, match="before reset"):
        env.last()
    with pytest.raises(RuntimeError, match="reset"):
        env.observe("player_0")


def test_a_spit_one_game_names_its_seats_and_keeps_them_in_a_copy():
    env = spit_v0.parallel_env()
    one = env._one
    assert [label for label, *_ in one.seat_rows] == env.possible_agents
    for twin in (copy.deepcopy(one), pickle.loads(pickle.dumps(one))):
        assert [label for label, *_ in twin.seat_rows] == env.possible_agents
        for _, seen, mask in twin.seat_rows:
            assert np.shares_memory(seen, twin.seen) and np.shares_memory(mask, twin.mask)
            assert not np.shares_memory(seen, one.seen)
