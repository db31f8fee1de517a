"""PettingZoo's ``state()`` / ``state_space`` (the whole game, for
centralised critics) on every env, and the vector engine's ``states()``:
the state lies in its space, round-trips through its documented layout to
``state_dict()``'s cards, holds what an observation hides (and the
observation does not hold it), and is the same in every view."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from pettingzoo.test.state_test import test_parallel_env as check_parallel_state
from pettingzoo.test.state_test import test_state as check_state
from pettingzoo.test.state_test import test_state_space as check_state_space

import cardenvs
import cardenvs.vector as V
from cardenvs import spit_v0
from cardenvs.core.state import decode_state, state_layout, state_module
from cardenvs.registry import GAMES
from cardenvs.testing.states import decoded_places, place_differences, reference_places

# Every player count and variant, in quick configs.
CONFIGS = [
    ("pepper_v0", {"num_players": 2, "max_hands": 3}),
    ("pepper_v0", {"num_players": 3, "max_hands": 3}),
    ("pepper_v0", {"num_players": 4, "max_hands": 3}),
    ("cancellation_hearts_v0", {"num_players": 6, "max_hands": 2}),
    ("cancellation_hearts_v0", {"num_players": 8, "max_hands": 1, "passing": "none"}),
    ("cancellation_hearts_v0", {"num_players": 11, "max_hands": 1}),
    ("push_v0", {"rounds": (1, 2), "max_turns": 60}),
    ("spit_v0", {"max_ticks": 300}),
    ("spit_v0", {"stockpiles": 4, "max_ticks": 300}),
    ("spit_v0", {"variant": "speed", "max_ticks": 300}),
    ("spit_v0", {"variant": "speed", "target_score": 30, "max_ticks": 100}),
]
# Every other game of the registry in its short configs.
LISTED = {game for game, _ in CONFIGS}
CONFIGS += [(name, dict(cfg)) for name, game in GAMES.items() if name not in LISTED for cfg in game.short_config]
IDS = [f"{game}-{'-'.join(f'{k}={v}' for k, v in cfg.items())}" for game, cfg in CONFIGS]


def test_every_game_is_covered():
    assert {game for game, _ in CONFIGS} == set(GAMES)
    assert all(spec.state_layouts for spec in GAMES.values())


def card_locations(rules, sd: dict) -> dict[str, list[str]]:
    """Where every card is, read off ``state_dict()`` and named as the
    game's ``decode`` names them (the conformance kit's reference: the
    game's ``places`` or the template's names)."""
    return reference_places(rules, sd)


def check_state_now(env) -> np.ndarray:
    """The state now: in the space, and its cards where ``state_dict()`` has them."""
    raw = env.unwrapped
    state = env.state()
    assert state.shape == env.state_space.shape and state.dtype == env.state_space.dtype
    assert env.state_space.contains(state)
    differences = place_differences(decoded_places(raw.rules, state), card_locations(raw.rules, raw.state_dict()))
    assert not differences, differences
    return state


def check_observation(env, agent: str, obs: dict) -> None:
    """The observation is the observation alone, as it always was."""
    assert set(obs) == {"observation", "action_mask"}
    assert obs["observation"].shape == env.observation_space(agent)["observation"].shape
    assert obs["observation"].shape == (env.unwrapped.rules.obs_size,)


def play_aec(env, seed: int, steps: int = 400) -> int:
    """Random legal play of an AEC env, the state checked at every step."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    played = 0
    for agent in env.agent_iter(max_iter=steps):
        check_state_now(env)
        obs, _, term, trunc, info = env.last()
        assert "state" not in info
        if term or trunc:
            env.step(None)
            continue
        check_observation(env, agent, obs)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        played += 1
    check_state_now(env)  # (the finished game's too)
    return played


@pytest.mark.parametrize(("game", "config"), CONFIGS, ids=IDS)
def test_state_round_trips_and_lies_in_its_space_in_random_play(game, config):
    env = cardenvs.make(game, **config)
    played = play_aec(env, 0) + play_aec(env, 1)
    for seed in range(2, 40):  # (a short game: more of them)
        if played > 100:
            break
        played += play_aec(env, seed)
    assert played > 100
    float_env = cardenvs.make(game, obs_dtype="float32", **config)
    float_env.reset(seed=0)
    env.reset(seed=0)
    state = check_state_now(float_env)
    assert state.dtype == np.float32
    np.testing.assert_array_equal(state, env.state().astype(np.float32))


@pytest.mark.parametrize(
    ("game", "config"),
    [c for c in CONFIGS if c[0] == "spit_v0"],
    ids=[i for c, i in zip(CONFIGS, IDS) if c[0] == "spit_v0"],
)
def test_parallel_state_round_trips_in_random_play(game, config):
    env = spit_v0.parallel_env(**config)
    rng = np.random.default_rng(3)
    obs, _ = env.reset(seed=3)
    ticks = 0
    while env.agents and ticks < 300:
        check_state_now(env)
        for agent, seen in obs.items():
            check_observation(env, agent, seen)
        obs, _, _, _, infos = env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})
        assert all("state" not in info for info in infos.values())
        ticks += 1
    check_state_now(env)
    assert ticks > 30


@pytest.mark.parametrize(("game", "config"), CONFIGS, ids=IDS)
def test_public_part_is_player_0s_observation_and_hands_each_seats(game, config):
    """As documented: ``public`` is player_0's observation without its own
    fields, and each seat's hand block is what that seat sees of its hand."""
    env = cardenvs.make(game, **config)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    module = state_module(env.unwrapped.rules)
    for _ in range(30):
        if not env.agents:
            break
        state = env.state()
        seen = [env.observe(agent)["observation"] for agent in env.possible_agents]
        np.testing.assert_array_equal(state[module.PUBLIC_AT :], seen[0][module.PUBLIC_INDEX])
        field = next((f for f in module.STATE_LAYOUT if f.name == "hands"), None)  # (Spit has no hands)
        if field is not None:
            own = module.LAYOUT["hand"]
            for s, obs in enumerate(seen):
                block = state[field.offset + s * field.size : field.offset + (s + 1) * field.size]
                np.testing.assert_array_equal(block, obs[own.offset : own.stop])
        if game == "cancellation_hearts_v0":
            own = module.LAYOUT["received"]
            for s, obs in enumerate(seen):
                block = state[module.RECEIVED + s * own.size : module.RECEIVED + (s + 1) * own.size]
                np.testing.assert_array_equal(block, obs[own.offset : own.stop])
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


# --- hidden cards: in the state, not in the observation -------------------------
def full_deck(rules) -> list[str]:
    deck = rules.deck
    return [text for text, copies in zip(deck.texts, deck.copies) for _ in range(copies)]


def hidden_pair(rules, game: str, sd: dict, acting: int) -> list[tuple[str, str]]:
    """Two cards the seat ``acting`` cannot see, each with its location, in
    two of its opponents' hidden places (two other seats' hands; at two
    players the other hand and the dead hand; Spit: a face-down stockpile
    card and a spit card of the opponent; Speed: the opponent's hand and stock)."""
    locs = card_locations(rules, sd)
    if game == "spit_v0" and sd["variant"] == "speed":
        return [("hand 1", locs["hand 1"][0]), ("stock 1", locs["stock 1"][-1])]
    if game == "spit_v0":
        pile = next(f"stockpile 1 {i}" for i in range(5) if len(locs.get(f"stockpile 1 {i}", [])) >= 2)
        return [(pile, locs[pile][0]), ("spit_cards 1", locs["spit_cards 1"][-1])]
    n = sd["num_players"]
    others = [f"hand {(acting + k) % n}" for k in (1, 3, 2, *range(4, n)) if k < n]
    first, second = (others + ["dead_hand" if "dead_hand" in locs else "stock"])[:2]
    a = next(c for c in locs[first] if c not in locs[second])
    b = next(c for c in locs[second] if c not in locs[first])
    return [(first, a), (second, b)]


def swapped(locs: dict, pair: list[tuple[str, str]]) -> dict:
    """``locs`` with the two cards of ``pair`` traded between their places (as multisets)."""
    out = {k: Counter(v) for k, v in locs.items()}
    (first, a), (second, b) = pair
    out[first] += Counter([b])
    out[first] -= Counter([a])
    out[second] += Counter([a])
    out[second] -= Counter([b])
    return out


def deal_with_swap(env, deck: list[str], pair: list[tuple[str, str]], want: dict) -> list[str]:
    """The deck with one copy of each card of ``pair`` traded, such that the
    deal is ``want`` (the positions tried in turn: with two decks the first
    copy found may be another seat's)."""
    (_, a), (_, b) = pair
    for i in (i for i, c in enumerate(deck) if c == a):
        for j in (j for j, c in enumerate(deck) if c == b):
            other = list(deck)
            other[i], other[j] = b, a
            env.reset(seed=0, options={"decks": [other], "dealer": 0})
            if {
                k: Counter(v) for k, v in card_locations(env.unwrapped.rules, env.unwrapped.state_dict()).items()
            } == want:
                return other
    raise AssertionError(f"no deal trades {pair}")


@pytest.mark.parametrize(("game", "config"), CONFIGS, ids=IDS)
def test_hidden_cards_change_the_state_not_the_observation(game, config):
    env = cardenvs.make(game, **config)
    raw = env.unwrapped
    deck = [full_deck(raw.rules)[i] for i in np.random.default_rng(5).permutation(raw.rules.deck.num_cards)]
    env.reset(seed=0, options={"decks": [deck], "dealer": 0})
    acting = env.agent_selection
    seat = int(acting.split("_")[1])
    sd, obs, state = raw.state_dict(), env.observe(acting), env.state()
    pair = hidden_pair(raw.rules, game, sd, seat)
    deal_with_swap(env, deck, pair, swapped(card_locations(raw.rules, sd), pair))
    assert env.agent_selection == acting
    other_obs, other_state = env.observe(acting), env.state()
    np.testing.assert_array_equal(other_obs["observation"], obs["observation"])
    np.testing.assert_array_equal(other_obs["action_mask"], obs["action_mask"])
    assert not np.array_equal(other_state, state)
    moved = {
        k
        for k, v in decode_state(raw.rules, other_state).items()
        if Counter(v) != Counter(decode_state(raw.rules, state)[k])
    }
    assert moved == {pair[0][0], pair[1][0]}


# --- the same state in every view ------------------------------------------------
@pytest.mark.parametrize(("game", "config"), CONFIGS, ids=IDS)
def test_vector_states_are_the_env_state(game, config):
    """A batch of one of the vector engine and the PettingZoo env, same seed
    and actions: the same state at every step (until the game ends: the
    engine's slot then holds the next game)."""
    simultaneous = game == "spit_v0"
    venv = V.make(game, num_envs=1, seed=7, **config)
    _, info = venv.reset()
    env = spit_v0.parallel_env(**config) if simultaneous else cardenvs.make(game, **config)
    env.reset(seed=7)
    assert venv.single_state_space == env.state_space and venv.state_space.shape == (1, *env.state_space.shape)
    rng = np.random.default_rng(8)
    for _ in range(150):
        states = venv.states()
        assert venv.state_space.contains(states)
        np.testing.assert_array_equal(states[0], env.state())
        mask = info["action_mask"][0]
        actions = (rng.random(mask.shape) * mask).argmax(-1)
        if simultaneous:
            env.step({f"player_{p}": int(a) for p, a in enumerate(actions)})
        else:
            env.step(int(actions))
        _, _, term, trunc, info = venv.step(actions[None])
        if term[0] or trunc[0]:
            break


@pytest.mark.parametrize("game", ["pepper_v0", "spit_v0"])
def test_states_of_processes_are_those_of_one_process(game):
    one = V.make(game, num_envs=5, seed=2, rng="per_game")
    two = V.make(game, num_envs=5, seed=2, rng="per_game", num_processes=2)
    try:
        _, info = one.reset()
        two.reset()
        rng = np.random.default_rng(0)
        for _ in range(20):
            np.testing.assert_array_equal(two.states(), one.states())
            mask = info["action_mask"]
            actions = (rng.random(mask.shape) * mask).argmax(-1)
            _, _, _, _, info = one.step(actions)
            two.step(actions)
        assert two.state_space == one.state_space
    finally:
        two.close()


def test_states_in_float32_and_layout_size():
    venv = V.make("pepper_v0", num_envs=3, seed=1, obs_dtype="float32")
    venv.reset()
    states = venv.states()
    assert states.dtype == np.float32 and states.shape == (3, state_layout(venv.rules).size)
    assert venv.state_space.contains(states)


@pytest.mark.parametrize(("game", "config"), CONFIGS, ids=IDS)
def test_pettingzoo_state_checks_pass(game, config):
    # (PettingZoo's check samples actions without the mask: an illegal one ends the game, or waits in Spit)
    illegal = "wait" if game == "spit_v0" else "terminate"
    env = cardenvs.make(game, illegal_action=illegal, **config)
    check_state_space(env)
    check_state(env, num_cycles=40)
    if game == "spit_v0":
        check_parallel_state(spit_v0.parallel_env(illegal_action=illegal, **config))
