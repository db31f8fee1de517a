"""The one-game-at-a-time fast paths (issue #16) behave as the checked paths do.

Each fast path is taken only for the usual input (legal int actions) and
hands every other input to the old checks; these tests drive both kinds of
input through the same games and compare.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import cardenvs
import cardenvs.vector as V
from cardenvs import IllegalActionError, spit_v0
from cardenvs.core.jit import kernel, raw_draw
from cardenvs.games.spit.apply import HALF_RAW
from cardenvs.registry import GAMES

GAME_NAMES = list(GAMES)


def test_every_row_is_made_once_per_state_and_not_shared_with_a_subset():
    venv = V.make("pepper_v0", num_envs=4, seed=0)
    venv.reset()
    state = venv.state
    rows = state.every_row()
    assert rows is state.every_row()
    np.testing.assert_array_equal(rows, np.arange(4))
    part = state.select(np.array([1, 3]))
    np.testing.assert_array_equal(part.every_row(), np.arange(2))
    np.testing.assert_array_equal(state.every_row(), np.arange(4))


def _random_actions(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    return (rng.random(mask.shape) * mask).argmax(-1)


@pytest.mark.parametrize("game", GAME_NAMES)
@pytest.mark.parametrize("batch", [1, 3])
def test_vector_step_is_the_same_with_int64_and_int32_actions(game, batch):
    """int64 legal actions take the compiled check; int32 ones the numpy checks.
    The games, rewards and observations must not tell them apart."""
    fast, checked = (V.make(game, num_envs=batch, seed=5) for _ in range(2))
    obs_f, info_f = fast.reset()
    obs_c, info_c = checked.reset()
    rng = np.random.default_rng(1)
    for _ in range(300):
        actions = _random_actions(rng, info_f["action_mask"]).astype(np.int64)
        out_f = fast.step(actions)
        out_c = checked.step(actions.astype(np.int32))
        for a, b in zip(out_f[:4], out_c[:4]):
            np.testing.assert_array_equal(a, b)
        info_f, info_c = out_f[4], out_c[4]
        np.testing.assert_array_equal(info_f["action_mask"], info_c["action_mask"])


@pytest.mark.parametrize("game", GAME_NAMES)
def test_vector_step_with_an_illegal_int64_action_raises_and_changes_nothing(game):
    venv = V.make(game, num_envs=2, seed=3)
    _, info = venv.reset()
    mask = info["action_mask"]
    before = venv.state_dict(0)
    actions = _random_actions(np.random.default_rng(0), mask).astype(np.int64)
    actions[0] = np.flatnonzero(~mask[0].reshape(-1, mask.shape[-1])[0])[0]  # an illegal action in row 0
    with pytest.raises(IllegalActionError):
        venv.step(actions)
    assert venv.state_dict(0) == before


def test_vector_step_of_no_rows_changes_nothing():
    venv = V.make("cancellation_hearts_v0", num_envs=2, seed=0)
    _, info = venv.reset()
    before = [venv.state_dict(i) for i in range(2)]
    _, rewards, terminated, _, _ = venv.step(_random_actions(np.random.default_rng(0), info["action_mask"]), rows=[])
    assert not rewards.any() and not terminated.any()
    assert [venv.state_dict(i) for i in range(2)] == before


def test_wrapper_calls_before_reset_raise_as_pettingzoo_does():
    env = cardenvs.make("pepper_v0")
    with pytest.raises(AttributeError, match="agent_selection cannot be accessed before reset"):
        env.last()
    with pytest.raises(RuntimeError):
        env.step(0)
    with pytest.raises(RuntimeError):
        env.observe("player_0")


def test_wrapper_iterator_enforces_a_step_per_agent():
    env = cardenvs.make("pepper_v0")
    env.reset(seed=0)
    it = iter(env.agent_iter())
    assert next(it) == env.unwrapped.agent_selection
    with pytest.raises(AssertionError, match="need to call step"):
        next(it)
    with pytest.raises(AssertionError, match="need to call step"):  # (another iterator of the wrapper: as PettingZoo's)
        next(iter(env.agent_iter()))
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert next(iter(env.agent_iter())) == env.agent_selection


@pytest.mark.parametrize("copy_of", ["deepcopy", "pickle"])
def test_spit_aec_env_copied_between_two_submissions_plays_on_as_the_original(copy_of):
    """The AEC view checks actions against a memoryview of the state's mask
    (one of the state's bundles) and writes them through one of its
    OneGame's actions: neither is copied or pickled (a copy makes its own,
    of its own arrays), so a copy taken in the middle of a tick plays on as
    the original does."""
    import copy
    import pickle

    env = cardenvs.make("spit_v0")
    env.reset(seed=4)
    rnd = random.Random(0)

    def act(e: object, r: random.Random) -> int:
        legal = np.flatnonzero(e.last()[0]["action_mask"])
        return int(legal[r.randrange(len(legal))])

    for _ in range(31):
        env.step(act(env, rnd))
    twin = copy.deepcopy(env) if copy_of == "deepcopy" else pickle.loads(pickle.dumps(env))
    r1, r2 = random.Random(5), random.Random(5)
    for _ in range(600):
        if not env.agents:
            break
        a = act(env, r1)
        assert act(twin, r2) == a
        env.step(a)
        twin.step(a)
        (o1, *rest1), (o2, *rest2) = env.last(), twin.last()
        np.testing.assert_array_equal(o1["observation"], o2["observation"])
        np.testing.assert_array_equal(o1["action_mask"], o2["action_mask"])
        assert rest1 == rest2 and env.rewards == twin.rewards


@pytest.mark.parametrize("game", GAME_NAMES)
def test_aec_play_with_numpy_and_python_int_actions_is_the_same(game):
    """Python ints take the AEC envs' fast check, numpy integers the old one."""
    logs = []
    for kind in (int, np.int64):
        env = cardenvs.make(game)
        env.reset(seed=7)
        rnd = random.Random(0)
        log = []
        for _ in env.agent_iter(max_iter=600):
            obs, reward, term, trunc, _ = env.last()
            log.append((obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term, trunc))
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(kind(legal[rnd.randrange(len(legal))]))
        logs.append(log)
    assert logs[0] == logs[1]


def test_spit_aec_view_refuses_an_illegal_int_and_buffers_nothing():
    env = cardenvs.make("spit_v0")
    env.reset(seed=0)
    mask = env.observe("player_0")["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    assert env.agent_selection == "player_0"
    with pytest.raises(IllegalActionError):
        env.step(10**6)
    assert env.unwrapped._pending == {}


def test_spit_parallel_env_checks_int_and_numpy_actions_alike():
    fast, checked = spit_v0.parallel_env(), spit_v0.parallel_env()
    obs, _ = fast.reset(seed=2)
    checked.reset(seed=2)
    rnd = random.Random(0)
    for _ in range(400):
        actions = {a: int(rnd.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        out_f = fast.step(actions)
        out_c = checked.step({a: np.int64(x) for a, x in actions.items()})
        assert out_f[1:] == out_c[1:]
        for a in out_f[0]:
            np.testing.assert_array_equal(out_f[0][a]["observation"], out_c[0][a]["observation"])
        obs = out_f[0]
        if not fast.agents:
            obs, _ = fast.reset()
            checked.reset()
    bad = {a: int(np.flatnonzero(o["action_mask"] == 0)[0]) for a, o in obs.items()}
    with pytest.raises(IllegalActionError):
        fast.step(bad)


def _play_to_the_end(env, seed: int) -> None:
    env.reset(seed=seed)
    rnd = random.Random(seed)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rnd.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("game", GAME_NAMES)
@pytest.mark.parametrize("wrapped", [True, False])
def test_step_once_every_agent_is_gone_warns_and_changes_nothing(game, wrapped):
    """The wrapper hands ``step`` straight to the env once reset: the env
    warns as PettingZoo's wrapper does (a raw env used to fail on a missing
    key), and nothing changes."""
    from pettingzoo.utils.env_logger import EnvLogger

    made = cardenvs.make(game, **GAMES[game].short_config[0])
    env = made if wrapped else made.unwrapped
    _play_to_the_end(env, seed=1)
    assert not env.agents
    if wrapped:
        assert env.step == env.unwrapped.step  # (once reset: the env's own)
    before = env.unwrapped.state_dict()
    EnvLogger.mqueue.clear()
    env.step(0)
    assert any("step() called after all agents are terminated" in m for m in EnvLogger.mqueue)
    assert env.unwrapped.state_dict() == before and not env.agents


def test_the_iterator_hands_out_an_agent_after_each_step_through_the_env_or_the_wrapper():
    env = cardenvs.make("spit_v0")
    env.reset(seed=0)
    it = iter(env.agent_iter())
    for _ in range(6):
        agent = next(it)
        assert agent == env.agent_selection
        mask = env.observe(agent)["action_mask"]
        env.step(int(np.flatnonzero(mask)[0]))
    next(it)
    with pytest.raises(AssertionError, match="need to call step"):
        next(it)
    env.reset()
    next(it)  # (a reset counts as a step, as in PettingZoo)


@pytest.mark.parametrize("config", [{"reward": "cards_shed"}, {"reward": "cards_held", "max_ticks": 300}, {}])
def test_spit_aec_view_keeps_the_parallel_envs_results(config):
    """The AEC view's tick (the parallel env's without its dicts, its own
    kept in place) gives, tick by tick and through the end of games, what
    the parallel env hands out: observations, rewards, cumulative rewards,
    terminations, truncations and infos."""
    par, aec = spit_v0.parallel_env(**config), spit_v0.env(**config)
    for seed in range(3):
        obs, _ = par.reset(seed=seed)
        aec.reset(seed=seed)
        rnd = random.Random(seed)
        while par.agents:
            actions = {a: int(rnd.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
            for agent in par.possible_agents:
                seen = aec.observe(agent)
                np.testing.assert_array_equal(seen["observation"], obs[agent]["observation"])
                np.testing.assert_array_equal(seen["action_mask"], obs[agent]["action_mask"])
                aec.step(actions[agent])
            obs, rewards, terms, truncs, infos = par.step(actions)
            assert aec.rewards == rewards and aec._cumulative_rewards == rewards
            assert (aec.terminations, aec.truncations, aec.infos) == (terms, truncs, infos)


def test_spit_aec_view_calls_the_compiled_tick_only_with_the_bundles_it_was_made_for():
    """The AEC view calls the compiled tick Spit's ``step_one`` leaves in
    the OneGame (no Python frame) while the state's bundles are the ones it
    was made with; once an array of the state is bound anew (its pack
    would point at the old array) or a new game starts, ``step_one`` runs
    again and leaves a new one; the games stay the parallel env's."""
    par, aec = spit_v0.parallel_env(), spit_v0.raw_env()
    one = aec.parallel._one
    for seed in range(2):
        obs, _ = par.reset(seed=seed)
        aec.reset(seed=seed)
        rnd = random.Random(seed)
        assert one.tick_for is not aec.parallel._state._bundles  # (a new game: made by its first tick)
        for tick in range(400):
            if not par.agents:
                break
            state = aec.parallel._state
            if tick == 40:
                state.centre_top = state.centre_top.copy()  # (bound anew: new bundles, new pack)
                assert one.tick_for is not state._bundles
            actions = {a: int(rnd.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
            for agent in par.possible_agents:
                aec.step(actions[agent])
            obs, rewards, *_ = par.step(actions)
            assert aec.rewards == rewards
            if aec.agents:
                assert one.tick_for is aec.parallel._state._bundles
                for agent in par.possible_agents:
                    np.testing.assert_array_equal(aec.observe(agent)["observation"], obs[agent]["observation"])
    held = spit_v0.raw_env(reward="cards_held")
    held.reset(seed=0)
    held.step(0)
    held.step(0)
    assert held.parallel._one.tick is None  # (Python adds the held cards' change after every tick)


def test_spit_coin_from_the_raw_draw_is_the_generators_coin():
    """A batch of one's coin is ``Generator.random() < 0.5`` read off the
    raw 64-bit draw of the default generator (PCG64), drawn in the tick's
    kernel by numpy's own C function: the same coins, the generator left
    where it would be (compiled, and run as Python through ctypes); any
    other generator draws as before."""
    from cardenvs.core.game import BatchState
    from cardenvs.core.jit import _RAW_DRAW
    from cardenvs.games.spit.apply import HALF_RAW
    from cardenvs.games.spit.rules import coin_source

    fast, plain = BatchState(1, np.random.default_rng(3)), np.random.default_rng(3)
    source = coin_source(fast)
    assert [_coin(*source) for _ in range(3000)] == [plain.random() < 0.5 for _ in range(3000)]
    python_draw = _RAW_DRAW(source[0])  # (what raw_draw calls run as Python)
    assert [python_draw(source[1]) < HALF_RAW for _ in range(2000)] == [plain.random() < 0.5 for _ in range(2000)]
    assert fast.rng.random() == plain.random()
    assert coin_source(BatchState(1, np.random.Generator(np.random.MT19937(0)))) is None


@kernel
def _coin(function, state):
    """A coin as Spit's tick kernel draws it (see ``spit.apply.tick_one``)."""
    return raw_draw(function, state) < HALF_RAW


def test_pepper_new_hand_from_keys_is_numpys_deal_and_tied_keys_deal_nothing():
    """A batch of one's new hand is made from the shuffle keys in the deal's
    compiled call: the deck numpy's argsort makes of them; two equal keys
    (whose order the sort's kind would decide) deal nothing, for the rules
    to deal by numpy's order."""
    from cardenvs.core.cards import orders_from_keys
    from cardenvs.core.jit import entry
    from cardenvs.core.onegame import step_call
    from cardenvs.games.pepper import apply
    from cardenvs.games.pepper.tables import TablePack

    envs = [cardenvs.make("pepper_v0").unwrapped for _ in range(2)]
    packs = []
    for env in envs:
        env.reset(seed=4)
        packs.append(step_call(env._state, env._one, env.rules.config_pack, TablePack, apply.step_one, "int")[1])
    keys = np.random.default_rng(0).random((1, envs[0].rules.deck.num_cards))
    envs[0]._one.scratch[2][:] = keys
    seat = entry(apply.deal_keyed, "pack")(packs[0])
    assert seat == apply.deal_one(orders_from_keys(envs[1].rules.deck, keys), packs[1])
    assert envs[0].state_dict() == envs[1].state_dict()
    np.testing.assert_array_equal(envs[0]._one.seen, envs[1]._one.seen)
    tied = keys.copy()
    tied[0, 7] = tied[0, 2]
    envs[0]._one.scratch[2][:] = tied
    before = envs[0].state_dict()
    assert entry(apply.deal_keyed, "pack")(packs[0]) == apply.TIED_KEYS
    assert envs[0].state_dict() == before
