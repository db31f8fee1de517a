"""Properties of Spit and Speed over many random games: cards conserved,
masks exact (against an independent reference), no stalemate left
unresolved, illegal actions rejected without a trace, episodes ending by a
win or truncation, determinism, the parallel env / AEC view / vector engine
agreeing.  PettingZoo's own conformance tests are in ``test_spit_env.py``.
Speed's tests live with Spit's (the same env, ``variant="speed"``)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from spit_reference import legal_texts, stuck

import cardenvs
import cardenvs.vector as V
from cardenvs import spit_v0

FULL = sorted(r + s for s in "CDHS" for r in "23456789TJQKA")
CONFIGS = [
    {},
    {"variant": "speed"},
    {"stockpiles": 4, "alternate_colors": True},
    {"variant": "speed", "speed_side_piles": 5, "target_score": 30, "reward": "cards_shed"},
]
IDS = ["spit", "speed", "spit-4-alternate", "speed-5-target"]


def all_cards(sd: dict) -> list[str]:
    if sd["variant"] == "speed":
        groups = sd["hands"] + sd["stocks"] + sd["side_piles"] + sd["spit_piles"]
    else:
        groups = [p for seat in sd["stockpiles"] for p in seat] + sd["spit_cards"] + sd["spit_piles"]
    return sorted(c for g in groups for c in g)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), cfg=st.sampled_from(CONFIGS))
def test_random_games_conserve_cards_and_masks_are_exact(seed, cfg):
    env = spit_v0.parallel_env(max_ticks=300, **cfg)
    raw = env.unwrapped
    alt = cfg.get("alternate_colors", False)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    ticks = 0
    while env.agents:
        sd = raw.state_dict()
        assert all_cards(sd) == FULL
        if sd["variant"] == "spit" and sd["phase"] == "playing":
            assert not stuck(sd, alt), "a stalemate was left unresolved"
        acts = {}
        for seat, agent in enumerate(env.agents):
            mask = obs[agent]["action_mask"]
            assert mask.dtype == np.int8
            assert {raw.action_to_str(a) for a in np.flatnonzero(mask)} == legal_texts(sd, seat, alt), sd
            acts[agent] = int(rng.choice(np.flatnonzero(mask)))
        # a random illegal action raises and changes nothing
        illegal = np.flatnonzero(obs["player_0"]["action_mask"] == 0)
        if illegal.size and ticks % 5 == 0:
            before = json.dumps(sd, sort_keys=True)
            with pytest.raises(cardenvs.IllegalActionError):
                env.step({**acts, "player_0": int(rng.choice(illegal))})
            assert json.dumps(raw.state_dict(), sort_keys=True) == before
        # every legal action of each seat (with the other waiting or slapping) steps cleanly
        if ticks % 7 == 0:
            for seat, agent in enumerate(env.agents):
                for a in np.flatnonzero(obs[agent]["action_mask"]):
                    joint = np.array([[acts["player_0"], acts["player_1"]]])
                    joint[0, seat] = a
                    state = raw._state.copy()
                    raw.rules.step(state, joint)
                    assert all_cards(raw.rules.state_dict(state)) == FULL
        obs, rew, term, trunc, _ = env.step(acts)
        ticks += 1
    sd = raw.state_dict()
    assert sd["done"] and ticks <= 300
    if sd["truncated"]:
        assert ticks == 300 and sd["winner"] is None
    else:  # won (a Speed game may also be drawn: nobody can ever play)
        assert sd["winner"] is not None or sd["variant"] == "speed"


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_random_episodes_end_by_a_win_or_truncation(cfg):
    n, limit = 64, 2000
    venv = V.make("spit_v0", num_envs=n, seed=1, max_ticks=limit, **cfg)
    _, info = venv.reset()
    rng = np.random.default_rng(0)
    first_end = np.zeros(n, np.int64)
    wins = 0
    for t in range(1, limit + 1):
        mask = info["action_mask"]
        _, rew, term, trunc, info = venv.step((rng.random(mask.shape) * mask).argmax(-1))
        new = (term | trunc) & (first_end == 0)
        first_end[new] = t
        if cfg.get("reward") != "cards_shed":
            # a win pays +1 / -1, everything else nothing
            assert np.all(rew[~term] == 0)
            won = term & (rew[:, 0] != 0)
            assert np.all(rew[won].sum(axis=1) == 0) and np.all(np.abs(rew[won]) == 1)
            wins += int(won[new].sum())
        assert not np.any(trunc & term)
        if (first_end > 0).all():
            break
    assert (first_end > 0).all() and first_end.max() <= limit
    if cfg.get("reward") != "cards_shed":
        assert wins > n // 2, "most random games should be won, not truncated"


def test_same_seed_same_game_and_different_seeds_differ():
    def trace(seed):
        env = spit_v0.parallel_env(max_ticks=200)
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(0)
        out = []
        while env.agents:
            acts = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
            obs, *_ = env.step(acts)
            out.append(obs["player_0"]["observation"].tobytes())
        return out, json.dumps(env.unwrapped.state_dict(), sort_keys=True)

    assert trace(3) == trace(3)
    assert trace(3) != trace(4)


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_aec_view_parallel_env_and_vector_engine_agree(cfg):
    """Same seed and actions: the AEC view, the parallel env and the vector
    engine (a batch of one) give the same observations, masks and rewards."""
    cfg = dict(cfg, max_ticks=400)
    venv = V.make("spit_v0", num_envs=1, seed=42, **cfg)
    vobs, info = venv.reset()
    par = spit_v0.parallel_env(**cfg)
    pobs, _ = par.reset(seed=42)
    aec = spit_v0.env(**cfg)
    aec.reset(seed=42)
    rng = np.random.default_rng(1)
    totals = np.zeros(2)
    while True:
        acts = {}
        for seat in range(2):
            agent = aec.agent_selection
            assert agent == f"player_{seat}"
            obs, _, term, trunc, _ = aec.last()
            np.testing.assert_array_equal(obs["observation"], vobs[0, seat])
            np.testing.assert_array_equal(obs["observation"], pobs[agent]["observation"])
            np.testing.assert_array_equal(obs["action_mask"].astype(bool), info["action_mask"][0, seat])
            acts[agent] = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            aec.step(acts[agent])
        pobs, prew, pterm, ptrunc, _ = par.step(acts)
        vobs, vrew, vterm, vtrunc, info = venv.step(np.array([[acts["player_0"], acts["player_1"]]]))
        np.testing.assert_allclose(vrew[0], [prew["player_0"], prew["player_1"]])
        np.testing.assert_allclose(vrew[0], [aec.rewards["player_0"], aec.rewards["player_1"]])
        totals += vrew[0]
        if vterm[0] or vtrunc[0]:
            assert pterm["player_0"] == bool(vterm[0]) and ptrunc["player_0"] == bool(vtrunc[0])
            assert aec.terminations["player_0"] == bool(vterm[0])
            assert aec.truncations["player_1"] == bool(vtrunc[0])
            np.testing.assert_array_equal(info["final_obs"][0][0], pobs["player_0"]["observation"])
            break
    assert not par.agents


def test_vector_engine_shapes_final_obs_and_illegal_actions():
    n = 16
    venv = V.make("spit_v0", num_envs=n, seed=0, max_ticks=60)
    obs, info = venv.reset()
    assert obs.shape == (n, 2, 235) and obs.dtype == np.int16
    assert info["action_mask"].shape == (n, 2, 33)
    mask = info["action_mask"]
    acts = mask.argmax(-1)
    bad = acts.copy()
    bad[3, 1] = np.flatnonzero(~mask[3, 1])[0]
    before = [json.dumps(venv.state_dict(i)) for i in range(n)]
    for wrong in (bad, acts[:, 0], np.full((n, 2), 99)):
        with pytest.raises(cardenvs.IllegalActionError):
            venv.step(wrong)
    with pytest.raises(TypeError):  # not integers at all
        venv.step(acts.astype(float))
    assert [json.dumps(venv.state_dict(i)) for i in range(n)] == before
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(61):
        mask = info["action_mask"]
        obs, rew, term, trunc, info = venv.step((rng.random(mask.shape) * mask).argmax(-1))
        assert rew.shape == (n, 2) and term.shape == (n,) and trunc.shape == (n,)
        for i in np.flatnonzero(term | trunc):
            finished += 1
            assert info["_final_obs"][i] and info["final_obs"][i].shape == (2, 235)
            # the slot was reset: a fresh deal at tick 0
            assert venv.state_dict(i)["tick"] == 0 and not venv.state_dict(i)["done"]
    assert finished >= n  # every game ends by tick 60 at the latest


def test_speed_vector_engine_shapes():
    venv = V.make("spit_v0", num_envs=8, seed=0, variant="speed")
    obs, info = venv.reset()
    assert obs.shape == (8, 2, 100) and info["action_mask"].shape == (8, 2, 105)
    assert obs.dtype == np.int16  # the default max_ticks (5000 ticks left) passes int8


@pytest.mark.parametrize(
    "target_score, max_ticks, dtype",
    [(None, 100, np.int8), (75, None, np.int8), (76, 100, np.int16), (None, 128, np.int16), (40000, 100, np.int32)],
)
def test_speed_observation_dtype_holds_every_score(target_score, max_ticks, dtype):
    env = spit_v0.parallel_env(variant="speed", target_score=target_score, max_ticks=max_ticks)
    obs, _ = env.reset(seed=0)
    box = env.observation_space("player_0")["observation"]
    assert box.dtype == dtype and obs["player_0"]["observation"].dtype == dtype
    assert box.high[-3] == (target_score or 1) + 52  # the score bound fits: nothing clipped
    assert obs["player_0"]["observation"][-1] == (max_ticks or 0)  # so do the ticks left
