"""Properties of Pepper over many random games: cards conserved, the mask
exact (against an independent reference and by stepping), illegal actions
rejected without a trace, episodes ending, determinism, and the AEC view
agreeing with the vector engine."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import check_vector_engine_rejects_illegal_actions, play_aec_and_vector_together, play_random
from hypothesis import given, settings
from hypothesis import strategies as st
from pepper_reference import legal_texts

import cardenvs
import cardenvs.vector as V
from cardenvs import pepper_v0
from cardenvs.games.pepper.apply import rows_by_phase
from cardenvs.games.pepper.tables import BIDDING, CHOOSING_TRUMP, DECK, PLAYING

FULL_DECK = sorted(DECK.texts)


def all_cards(sd: dict) -> list[str]:
    cards = [c for h in sd["hands"] for c in h] + sd["dead_hand"]
    cards += [c["card"] for c in sd["trick"]]
    cards += [c["card"] for t in sd["tricks"] for c in t["cards"]]
    return sorted(cards)


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    num_players=st.sampled_from([2, 3, 4]),
    all_pass=st.sampled_from(["stick_dealer", "redeal"]),
)
def test_random_games_conserve_cards_and_masks_are_exact(seed, num_players, all_pass):
    env = pepper_v0.env(num_players=num_players, all_pass=all_pass, max_hands=3)
    raw = env.unwrapped
    rng = np.random.default_rng(seed)

    def check(env, agent, obs, a):
        sd = raw.state_dict()
        assert all_cards(sd) == FULL_DECK
        assert agent == f"player_{sd['current_player']}"
        mask = obs["action_mask"]
        assert mask.dtype == np.int8
        engine = {raw.action_to_str(i) for i in np.flatnonzero(mask)}
        assert engine == legal_texts(sd, all_pass), sd
        # other seats see an all-zero mask
        for other in env.agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        # a random illegal action raises and changes nothing
        illegal = np.flatnonzero(mask == 0)
        bad = int(rng.choice(illegal))
        before = json.dumps(sd, sort_keys=True)
        with pytest.raises(cardenvs.IllegalActionError):
            env.step(bad)
        assert json.dumps(raw.state_dict(), sort_keys=True) == before
        # every legal action steps cleanly (on a copy of the state)
        for legal in np.flatnonzero(mask):
            state = raw._state.copy()
            raw.rules.step(state, np.array([legal]))
            assert all_cards(raw.rules.state_dict(state)) == FULL_DECK

    play_random(env, rng, seed, check)
    assert all(env.terminations.values()) or not env.agents, "game did not end within max_hands"


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_default_games_end(num_players):
    """Every default episode ends: at the target or after max_hands=50."""
    venv = V.make("pepper_v0", num_envs=32, seed=num_players, num_players=num_players)
    obs, info = venv.reset()
    rng = np.random.default_rng(0)
    ended = np.zeros(32, bool)
    for _ in range(50 * 40):
        mask = info["action_mask"]
        obs, rew, term, trunc, info = venv.step((rng.random(mask.shape) * mask).argmax(1))
        ended |= term
        if ended.all():
            break
    assert ended.all()


def test_sensible_bidding_reaches_the_target():
    """With passive bidding (pass unless stuck, then bid 1) a 4-player game
    is decided by the target score, not the hand limit."""
    env = pepper_v0.env(max_hands=None)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    raw = env.unwrapped
    for _agent in env.agent_iter(max_iter=20000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = [raw.action_to_str(a) for a in np.flatnonzero(obs["action_mask"])]
        text = "pass" if "pass" in legal else ("bid 1" if "bid 1" in legal else rng.choice(legal))
        env.step(raw.str_to_action(text))
    sd = raw.state_dict()
    assert sd["done"] and max(sd["scores"]) >= 30


def test_same_seed_same_game_and_different_seeds_differ():
    def trace(seed):
        env = pepper_v0.env(max_hands=2)
        out = []
        play_random(
            env, np.random.default_rng(0), seed, lambda e, ag, o, a: out.append((ag, a, o["observation"].tobytes()))
        )
        return out, json.dumps(env.unwrapped.state_dict(), sort_keys=True)

    assert trace(3) == trace(3)
    assert trace(3) != trace(4)


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("reward", ["win_loss", "score_delta"])
def test_aec_view_and_vector_engine_agree(num_players, reward):
    """A batch of one in the vector engine and the AEC env, same seed and
    actions: identical observations, masks, seats to act and rewards."""
    totals, _, _ = play_aec_and_vector_together("pepper_v0", num_players=num_players, reward=reward, max_hands=4)
    assert np.abs(totals).sum() > 0


def test_vector_engine_final_obs_and_rewards_per_seat():
    venv = V.make("pepper_v0", num_envs=16, seed=0, max_hands=1)
    obs, info = venv.reset()
    rng = np.random.default_rng(0)
    seen_final = 0
    for _ in range(200):
        mask = info["action_mask"]
        obs, rew, term, trunc, info = venv.step((rng.random(mask.shape) * mask).argmax(1))
        assert rew.shape == (16, 4)
        # rewards arrive only when a game ends; partners share, sides oppose
        assert np.all(rew[~term] == 0)
        for i in np.flatnonzero(term):
            seen_final += 1
            r = rew[i]
            assert r[0] == r[2] and r[1] == r[3] and set(r) <= {-1.0, 1.0}
            assert info["final_obs"][i].shape == (4, obs.shape[1])
            # each seat's final view shows its own (now empty) hand and the score
            assert info["_final_obs"][i]
        assert obs.shape == (16, 299)
    assert seen_final > 0


def test_vector_engine_rejects_illegal_actions_without_change():
    check_vector_engine_rejects_illegal_actions("pepper_v0")


def test_observation_hides_other_hands():
    """Two deals that differ only in the other players' hands (and the dead
    hand) look the same to seat 0 until those cards are played."""
    for num_players in (2, 4):
        env_a = pepper_v0.env(num_players=num_players)
        env_b = pepper_v0.env(num_players=num_players)
        deck = list(DECK.texts)
        env_a.reset(seed=0, options={"decks": [deck], "dealer": num_players - 1})
        hand0 = env_a.unwrapped.state_dict()["hands"][0]
        rest = [c for c in deck if c not in hand0]
        slots = 3 if num_players == 2 else num_players
        # put seat 0's cards at the same positions, shuffle everyone else's
        shuffled = list(np.random.default_rng(1).permutation(rest))
        deck_b = [c if i % slots == 0 and i < 24 - (24 % slots) else None for i, c in enumerate(deck)]
        deck_b = [c if c is not None else shuffled.pop() for c in deck_b]
        env_b.reset(seed=0, options={"decks": [deck_b], "dealer": num_players - 1})
        assert env_b.unwrapped.state_dict()["hands"][0] == hand0
        assert env_b.unwrapped.state_dict()["hands"][1] != env_a.unwrapped.state_dict()["hands"][1]
        np.testing.assert_array_equal(
            env_a.observe("player_0")["observation"], env_b.observe("player_0")["observation"]
        )


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.booleans()), min_size=1, max_size=40))
def test_rows_by_phase_groups_unfinished_games_in_row_order(games):
    phase = np.array([p for p, _ in games], np.int64)
    done = np.array([d for _, d in games], bool)
    rows = np.full((3, len(games) + 1), -7, np.int64)
    counts = rows_by_phase(done, phase, rows)
    for group, ph in enumerate((PLAYING, BIDDING, CHOOSING_TRUMP)):
        assert list(rows[group, : counts[group]]) == list(np.flatnonzero((phase == ph) & ~done))
