"""Properties of Push over many random games: cards conserved, the mask
exact (against the independent brute-force reference and by stepping every
legal action), no dead ends, bounded turns, illegal actions rejected without
a trace, every episode ending, determinism, hidden information, and the AEC
view agreeing with the vector engine."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from helpers import check_vector_engine_rejects_illegal_actions, play_aec_and_vector_together
from hypothesis import given, settings
from hypothesis import strategies as st
from push_reference import legal_texts

import cardenvs
import cardenvs.vector as V
from cardenvs import push_v0

FULL = [r + s for s in "CDHS" for r in "23456789TJQKA"] * 2 + ["JK"] * 4
FULL_SORTED = sorted(FULL)


def all_cards(sd: dict) -> list[str]:
    cards = [c for h in sd["hands"] for c in h] + sd["discard"] + sd["stock"]
    cards += [c for m in sd["melds"] for c in m["cards"]]
    return sorted(cards)


def biased_deck(rng, per):
    """A deck whose first cards (the hands, the upcard and the top of the
    stock) come from a small pool: every wild, one or two suits in a few
    ranks; such hands meld a lot and hit the corner cases (shared cards,
    natural 2s, runs of one suit, swaps)."""
    suits = list(rng.choice(list("CDHS"), size=int(rng.integers(1, 3)), replace=False))
    ranks = list(rng.choice(list("3456789TJQKA"), size=int(rng.integers(3, 8)), replace=False))
    pool = [c for c in FULL if c == "JK" or c[0] == "2" or (c[1] in suits and c[0] in ranks) or c[0] in ranks[:2]]
    rest = list(FULL)
    order = [pool[i] for i in rng.permutation(len(pool))][: 4 * per + 30]
    for c in order:
        rest.remove(c)
    return order + [rest[i] for i in rng.permutation(len(rest))]


def check_state(env, rng, agent, obs, step_all=True):
    raw = env.unwrapped
    sd = raw.state_dict()
    assert all_cards(sd) == FULL_SORTED
    assert agent == f"player_{sd['current_player']}"
    mask = obs["action_mask"]
    assert mask.dtype == np.int8
    legal = np.flatnonzero(mask)
    assert legal.size > 0, "dead end: no legal action"
    engine = {raw.action_to_str(int(a)) for a in legal}
    assert engine == legal_texts(sd), (sorted(engine ^ legal_texts(sd))[:8], sd)
    for other in env.agents:
        if other != agent:
            assert not env.observe(other)["action_mask"].any()
    bad = int(rng.choice(np.flatnonzero(mask == 0)))
    before = json.dumps(sd, sort_keys=True)
    with pytest.raises(cardenvs.IllegalActionError):
        env.step(bad)
    assert json.dumps(raw.state_dict(), sort_keys=True) == before
    if step_all:  # every legal action steps cleanly (on a copy) and keeps every card
        for a in legal:
            state = raw._state.copy()
            raw.rules.step(state, np.array([a]))
            assert all_cards(raw.rules.state_dict(state)) == FULL_SORTED
            assert state.done[0] or state.legal[0].any()


def play(env, rng, check=None, meldy=0.0, max_steps=20000):
    """Random legal play; with probability ``meldy`` a melding action is
    preferred (to reach deep melding states).  Returns, per turn, (actions
    taken, cards held after the draw)."""
    raw = env.unwrapped
    turns, length, held = [], 0, 0
    for agent in env.agent_iter(max_iter=max_steps):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if check:
            check(env, rng, agent, obs)
        legal = np.flatnonzero(obs["action_mask"])
        texts = [raw.action_to_str(int(a)) for a in legal]
        melding = [a for a, t in zip(legal, texts) if not t.startswith(("discard", "take", "push"))]
        a = int(rng.choice(melding)) if melding and rng.random() < meldy else int(rng.choice(legal))
        env.step(a)
        length += 1
        state = raw._state
        if length == 1:
            held = int(state.hands[0, int(agent.split("_")[1])].sum())
        if state.done[0] or state.phase[0] == 0:  # back to a draw: the turn is over
            turns.append((length, held))
            length = 0
    return turns


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), round_no=st.integers(1, 5))
def test_random_games_masks_exact_against_reference(seed, round_no):
    env = push_v0.env(rounds=[round_no], max_turns=16)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    play(env, rng, check=lambda e, r, ag, o: check_state(e, r, ag, o, step_all=False), meldy=0.5)
    assert not env.agents or all(env.terminations.values())


@pytest.mark.parametrize("round_no", [1, 2, 3, 4, 5])
def test_melding_heavy_games_masks_exact_and_legal_actions_step(round_no):
    """Deals packed with wilds and few suits, melding preferred: the states
    where feasibility is delicate (shared cards, natural 2s, swaps)."""
    checked = 0
    for seed in range(3):
        rng = np.random.default_rng(1000 * round_no + seed)
        env = push_v0.env(rounds=[round_no], max_turns=12)
        env.reset(seed=seed, options={"decks": [biased_deck(rng, 5 + round_no)]})
        play(env, rng, check=check_state, meldy=0.85)
        checked += 1
    assert checked == 3


# Owed wilds where no table meld can take them.  Seat 1 of a round-3 deal is
# fed cards by pushes (see test_push_rules.big_hand_env) until it holds clubs
# A-K without the 5 plus a joker for it, diamonds 2-A, the 5C and 4 random
# extra cards; it lays clubs A-K (the joker as the 5) and diamonds 2-A or
# 2-K, so the table has no meld (or one run with one free end) that can take
# a wild, then plays the rest of its turn at random, swaps preferred.
OWED_BASE = ["JK", "AC", "2C", "3C", "4C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC", "5C"]
OWED_BASE += [r + "D" for r in "23456789TJQKA"]
EXTRA_POOL = [r + "H" for r in "3456789TJQKA"] * 2 + ["2H", "2H", "2S", "JK", "JK", "AS", "KS", "9S"]


def fed_env(extras):
    """Seat 1 about to lay its contract, holding OWED_BASE + ``extras``."""
    from test_push_rules import make, quiet

    cards = OWED_BASE + list(extras)
    dealt, upcard, stock = cards[:8], cards[8], cards[9:]
    env = make(3, [quiet(8, 0), dealt, quiet(8, 1), quiet(8, 2)], upcard=upcard, stock=stock)
    raw = env.unwrapped
    for c in range(11):
        kept = stock[2 * c + 1]  # the stock card seat 0 draws after its push
        env.step(raw.str_to_action("push"))
        env.step(raw.str_to_action(f"discard {kept}"))
        for _ in range(0 if c == 10 else 3):
            env.step(raw.str_to_action("take"))
            env.step(raw.str_to_action(f"discard {kept}"))
    env.step(raw.str_to_action("take"))
    assert Counter(raw.state_dict()["hands"][1]) == Counter(cards)
    return env


@settings(max_examples=25, deadline=None)
@given(
    picks=st.lists(st.integers(0, len(EXTRA_POOL) - 1), min_size=4, max_size=4, unique=True), seed=st.integers(0, 99)
)
def test_owed_wild_masks_exact_and_never_dead_end(picks, seed):
    """While a wild is owed (table runs full or nearly), every action the
    rules allow is offered (engine == reference), every legal action steps,
    and the turn always ends with the wild placed."""
    rng = np.random.default_rng(seed)
    env = fed_env([EXTRA_POOL[i] for i in picks])
    raw = env.unwrapped
    second = "run D 2-A" if seed % 2 else "run D 2-K"
    for text in ["run C A-K", *["fill nat"] * 4, "fill JK", *["fill nat"] * 8, second]:
        env.step(raw.str_to_action(text))
    owed_seen = False
    for _ in range(200):
        sd = raw.state_dict()
        if sd["done"] or sd["phase"] == "draw":
            break
        mask = env.observe(env.agent_selection)["action_mask"]
        legal = np.flatnonzero(mask)
        assert legal.size > 0, "dead end: no legal action"
        texts = [raw.action_to_str(int(a)) for a in legal]
        assert set(texts) == legal_texts(sd), (sorted(set(texts) ^ legal_texts(sd)), sd)
        owed_seen |= sd["owed_wild"] is not None
        for a in legal:
            state = raw._state.copy()
            raw.rules.step(state, np.array([a]))
            assert state.done[0] or state.legal[0].any()
        swaps = [a for a, t in zip(legal, texts) if t.startswith("swap")]
        fills = [a for a, t in zip(legal, texts) if t.startswith("fill")]
        melding = [a for a, t in zip(legal, texts) if not t.startswith("discard")]
        choice = swaps or (fills if rng.random() < 0.9 else []) or (melding if rng.random() < 0.8 else []) or legal
        env.step(int(rng.choice(choice)))
    else:
        raise AssertionError("the turn did not end")
    assert raw.state_dict()["owed_wild"] is None
    assert owed_seen or not any(t.startswith("swap") for t in texts)


def test_turns_are_bounded():
    """No turn is longer than a draw + 3 actions per card held after it + a
    discard: a card placed costs one action, a swap one more (the wild it
    brings must be placed before the next swap), a declare and an "end set"
    at most two per meld of 3+ cards."""
    for seed in range(6):
        env = push_v0.env(rounds=[5], max_turns=60)
        rng = np.random.default_rng(seed)
        env.reset(seed=seed, options={"decks": [biased_deck(rng, 10)]})
        turns = play(env, rng, meldy=0.9)
        assert turns and all(length <= 2 + 3 * held for length, held in turns)
        assert max(length for length, _ in turns) > 5


def test_vector_engine_thousands_of_games_conserve_cards_and_never_dead_end():
    """2,000 one-round games (400 of every round type, rounds cut at 60
    turns) in the vector engine: every row keeps its 108 cards, every live row
    has a legal action, every game ends (and the hand sizes the state keeps
    are the hands' sizes)."""
    n = 400
    finished = 0
    for round_no in (1, 2, 3, 4, 5):
        venv = V.make("push_v0", num_envs=n, seed=round_no, rounds=[round_no], max_turns=60)
        obs, info = venv.reset()
        rng = np.random.default_rng(round_no)
        st_ = venv.state
        done_once = np.zeros(n, bool)
        for _ in range(5000):
            mask = info["action_mask"]
            assert mask.any(axis=1).all(), "a row has no legal action"
            obs, rew, term, trunc, info = venv.step((rng.random(mask.shape) * mask).argmax(1))
            total = (
                st_.hands.astype(int).sum((1, 2))
                + st_.pile_size
                + st_.stock_size
                + st_.meld_counts.astype(int).sum((1, 2))
            )
            assert (total == 108).all()
            assert (st_.pile_counts.astype(int).sum(1) == st_.pile_size).all()
            assert (st_.held == st_.hands.astype(int).sum(2)).all()  # the kept hand sizes
            done_once |= term
            if done_once.all():
                break
        assert done_once.all()
        finished += int(done_once.sum())
    assert finished == 5 * n


def test_default_games_end():
    """Whole 5-round games end (the stock or max_turns bounds every round)."""
    venv = V.make("push_v0", num_envs=32, seed=0)
    obs, info = venv.reset()
    rng = np.random.default_rng(0)
    ended = np.zeros(32, bool)
    for _ in range(5 * 200 * 40):
        mask = info["action_mask"]
        obs, rew, term, trunc, info = venv.step((rng.random(mask.shape) * mask).argmax(1))
        ended |= term
        if ended.all():
            break
    assert ended.all()


def test_same_seed_same_game_and_different_seeds_differ():
    def trace(seed):
        env = push_v0.env(rounds=[1, 2])
        env.reset(seed=seed)
        out = []
        rng = np.random.default_rng(0)
        for agent in env.agent_iter(5000):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            out.append((agent, a, obs["observation"].tobytes()))
            env.step(a)
        return out, json.dumps(env.unwrapped.state_dict(), sort_keys=True)

    assert trace(3) == trace(3)
    assert trace(3) != trace(4)


@pytest.mark.parametrize("reward", ["win_loss", "score_delta"])
def test_aec_view_and_vector_engine_agree(reward):
    totals, steps, _ = play_aec_and_vector_together("push_v0", reward=reward, rounds=[1, 3])
    assert steps > 50 and np.abs(totals).sum() > 0
    assert totals[0] == totals[2] and totals[1] == totals[3]


def test_vector_engine_rejects_illegal_actions_without_change():
    check_vector_engine_rejects_illegal_actions("push_v0")


def test_observation_hides_other_hands_and_the_stock():
    """Two deals that differ only in the other players' hands and the stock
    look the same to seat 0."""
    rng = np.random.default_rng(5)
    deck = [FULL[i] for i in rng.permutation(len(FULL))]
    per = 6
    mine = [deck[4 * k] for k in range(per)]  # dealer 3: seat 0 gets positions 0, 4, 8, ...
    upcard_at = 4 * per
    while deck[upcard_at] == "JK" or deck[upcard_at][0] == "2":
        upcard_at += 1
    fixed = set(range(0, 4 * per, 4)) | set(range(4 * per, upcard_at + 1))
    others = [deck[i] for i in range(len(deck)) if i not in fixed]
    shuffled = [others[i] for i in rng.permutation(len(others))]
    deck_b = [deck[i] if i in fixed else shuffled.pop() for i in range(len(deck))]
    env_a, env_b = push_v0.env(rounds=[1]), push_v0.env(rounds=[1])
    env_a.reset(seed=0, options={"decks": [deck], "dealer": 3})
    env_b.reset(seed=0, options={"decks": [deck_b], "dealer": 3})
    sa, sb = env_a.unwrapped.state_dict(), env_b.unwrapped.state_dict()
    assert sa["hands"][0] == sb["hands"][0] and sa["discard"] == sb["discard"]
    assert Counter(sa["hands"][0]) == Counter(mine)
    assert sa["hands"][1:] != sb["hands"][1:]
    np.testing.assert_array_equal(env_a.observe("player_0")["observation"], env_b.observe("player_0")["observation"])
    assert Counter(all_cards(sa)) == Counter(FULL)


def test_observation_shows_the_table():
    env = push_v0.env(rounds=[1])
    env.reset(seed=0)
    from cardenvs.games.push import observation as O

    obs = env.observe("player_0")["observation"]
    sd = env.unwrapped.state_dict()
    hand = Counter(sd["hands"][0])
    texts = env.unwrapped.rules.deck.texts
    assert {t: int(obs[O.HAND + i]) for i, t in enumerate(texts) if obs[O.HAND + i]} == dict(hand)
    top = texts.index(sd["discard"][-1])
    assert obs[O.TOP + top] == 1 and obs[O.TOP : O.TOP + 53].sum() == 1
    assert obs[O.STOCK] == sd["stock_size"]
    assert list(obs[O.SEATS : O.SEATS + 12 : 3]) == [6, 6, 6, 6]
    assert obs[O.ROUND] == 1 and obs[O.PHASE] == 1
    assert env.observation_space("player_0")["observation"].contains(obs)


def test_observation_encodes_every_meld_as_in_state_dict():
    """Meld slots of the observation against state_dict, in melding-heavy games."""
    from cardenvs.games.push import observation as O

    texts = push_v0.raw_env().rules.deck.texts
    seen = 0
    for seed in range(3):
        rng = np.random.default_rng(seed)
        env = push_v0.env(rounds=[3], max_turns=20)
        env.reset(seed=seed, options={"decks": [biased_deck(rng, 8)]})

        def check(env, rng, agent, obs):
            nonlocal seen
            seat = int(agent.split("_")[1])
            melds = env.unwrapped.state_dict()["melds"]
            table = obs["observation"][O.MELDS : O.LAYOUT["melds"].stop].reshape(O.NUM_MELDS, O.SLOT_SIZE)
            assert table[:, O.USED].sum() == len(melds)
            for m, meld in enumerate(melds):
                f = table[m]
                seen += 1
                assert f[O.USED] == 1 and f[O.PENDING] == (not meld["complete"])
                assert f[O.OWNER + (meld["owner"] - seat) % 4] == 1 and f[O.OWNER : O.OWNER + 4].sum() == 1
                if meld["kind"] == "set":
                    assert f[O.KIND] == 1 and f[O.SET_RANK + "23456789TJQKA".index(meld["rank"])] == 1
                    kinds = [meld["rank"] + x for x in "CDHS"] + ["2C", "2D", "2H", "2S", "JK"]
                    assert list(f[O.SET_CARDS : O.SET_CARDS + 9]) == [meld["cards"].count(c) for c in kinds]
                else:
                    assert f[O.KIND + 1] == 1 and f[O.RUN_SUIT + "CDHS".index(meld["suit"])] == 1
                    lo, hi = meld["span"]
                    assert list(np.flatnonzero(f[O.SPAN : O.SPAN + 14])) == list(range(lo, hi + 1))
                    grid = f[O.POS : O.POS + 84].reshape(14, 6)
                    assert list(np.flatnonzero(grid.sum(1))) == meld["positions"]
                    for c, p in zip(meld["cards"], meld["positions"]):
                        natural = c == ("A" if p in (0, 13) else "23456789TJQK"[p - 1]) + meld["suit"]
                        col = 0 if natural else 1 + ["2C", "2D", "2H", "2S", "JK"].index(c)
                        assert grid[p, col] == 1 and grid[p].sum() == 1
            assert texts  # (deck texts available)

        play(env, rng, check=check, meldy=0.85)
    assert seen > 50


def test_kept_meld_observation_blocks_match_a_fresh_encoding():
    """The rules keep each table meld's observation block in the state and
    re-encode it only when that meld changes: over random play (with
    auto-resets) the kept blocks equal every slot encoded from scratch, and
    observations are int16."""
    from cardenvs.games.push import observation

    venv = V.make("push_v0", num_envs=64, seed=3)
    obs, info = venv.reset()
    rng = np.random.default_rng(3)
    rows = np.repeat(np.arange(64), observation.NUM_MELDS)
    slots = np.tile(np.arange(observation.NUM_MELDS), 64)
    for t in range(600):
        if t % 25 == 0:
            fresh = venv.state.copy()
            observation.refresh_slots(fresh, rows, slots)
            np.testing.assert_array_equal(fresh.meld_obs, venv.state.meld_obs)
            assert obs.dtype == np.int16 and venv.single_observation_space.dtype == np.int16
        mask = info["action_mask"]
        obs, _, _, _, info = venv.step((rng.random(mask.shape) * mask).argmax(-1))


def test_observation_batches_held_by_the_caller_are_never_rewritten():
    """Large observation arrays are recycled once nothing refers to them any
    more (``cardenvs.games.push.outputs.Outputs.recycled_rows``): an array still held, or only a view
    of it, keeps its values through later steps, and no new observation
    shares memory with it."""
    venv = V.make("push_v0", num_envs=512, seed=5)  # 5 MB observations: recycled
    obs, info = venv.reset()
    rng = np.random.default_rng(5)
    view = obs[3:7]  # only a view of the first batch is kept
    first = obs.copy()
    obs, _, _, _, info = venv.step((rng.random(info["action_mask"].shape) * info["action_mask"]).argmax(-1))
    held, second = obs, obs.copy()
    for _ in range(12):
        mask = info["action_mask"]
        obs, _, _, _, info = venv.step((rng.random(mask.shape) * mask).argmax(-1))
        assert not np.shares_memory(obs, held) and not np.shares_memory(obs, view)
    np.testing.assert_array_equal(view, first[3:7])
    np.testing.assert_array_equal(held, second)


def test_observation_batches_are_recycled_once_dropped():
    """The other half of the recycling: a large observation batch the caller
    has dropped is written again by a later step (no fresh 40 MB per step)."""
    venv = V.make("push_v0", num_envs=512, seed=6)
    obs, info = venv.reset()
    rng = np.random.default_rng(6)
    seen = set()
    for _ in range(4):
        seen.add(obs.__array_interface__["data"][0])
        del obs  # the caller keeps nothing of this batch
        mask = info["action_mask"]
        obs, _, _, _, info = venv.step((rng.random(mask.shape) * mask).argmax(-1))
    assert obs.__array_interface__["data"][0] in seen


def test_meld_stamps_name_one_block_each():
    """Each kept meld block carries a stamp (``state.meld_stamp``) that the
    observation writer trusts: 0 exactly for an empty slot, and one stamp is
    only ever seen with one block and owner, in any game, over random play
    with new rounds and games (so a block never changes without a new
    stamp)."""
    venv = V.make("push_v0", num_envs=64, seed=4, max_turns=40)
    obs, info = venv.reset()
    rng = np.random.default_rng(4)
    seen: dict[int, bytes] = {}
    for _t in range(500):
        st = venv.state
        assert np.array_equal(st.meld_stamp == 0, st.meld_kind == 0)
        for b, m in zip(*np.nonzero(st.meld_stamp)):
            block = st.meld_obs[b, m].tobytes() + bytes([st.meld_owner[b, m]])
            assert seen.setdefault(int(st.meld_stamp[b, m]), block) == block
        mask = info["action_mask"]
        obs, _, _, _, info = venv.step((rng.random(mask.shape) * mask).argmax(-1))
    assert len(seen) > 2000


def test_recycled_observation_batches_equal_a_fresh_encoding():
    """A recycled observation batch is written only where it changed since the
    array was last written (its record in ``push.outputs.Outputs.recycled_rows``: the
    viewer and each meld slot's stamp).  Over many short rounds, whose deals
    empty the table, and whole new games, at a batch large enough to be
    recycled, every observation equals one encoded into a fresh array: for
    the seat to act; for other seats through ``observe``; with some steps
    moving only some games; and with a second engine stepped alongside (with
    recycled arrays of its own)."""
    n = 600  # 6 MB of observations: recycled
    engines = [V.make("push_v0", num_envs=n, seed=21 + k, max_turns=25) for k in range(2)]
    outs = [e.reset() for e in engines]
    rng = np.random.default_rng(21)
    chunks = np.array_split(np.arange(n), 4)  # 150 rows: too small to recycle, so a fresh array

    def fresh(venv, seats):
        return np.concatenate([venv.rules.observe(venv.state, seats[c], rows=c) for c in chunks])

    tables_cleared = 0
    for t in range(300):
        for k, venv in enumerate(engines):
            obs, info = outs[k]
            assert np.array_equal(obs, fresh(venv, venv.state.current))
            if t % 5 == k:
                seats = rng.integers(0, 4, n)
                assert np.array_equal(venv.observe(seats), fresh(venv, seats))
            melds_before = venv.state.n_melds.copy()
            mask = info["action_mask"]
            actions = (rng.random(mask.shape) * mask).argmax(-1)
            rows = np.flatnonzero(rng.random(n) < 0.7) if t % 3 == 2 else None
            obs, _, _, _, info = venv.step(actions, rows=rows)
            outs[k] = obs, info
            tables_cleared += int(((melds_before > 0) & (venv.state.n_melds == 0)).sum())
    assert tables_cleared > 400  # many rows had melds, then an empty table


def test_large_output_batches_are_read_only():
    """Recycled observation and mask batches are handed out read-only (the
    writer's record of them would be wrong if the caller wrote into them); a
    copy is the caller's to change."""
    venv = V.make("push_v0", num_envs=1800, seed=3)  # 4.3 MB of masks: recycled
    obs, info = venv.reset()
    with pytest.raises(ValueError, match="read-only"):
        obs[0, 0] = 1
    with pytest.raises(ValueError, match="read-only"):
        info["action_mask"][0, 0] = True
    mine = obs.copy()
    mine[0, 0] = 7
    assert mine[0, 0] == 7 and obs[0, 0] != 7


def test_handed_out_masks_equal_the_state_and_nothing_is_legal_past_the_laid_melds():
    """A large batch of masks is not copied: ``info["action_mask"]`` is the
    state's own array, read-only, and the state moves to another recycled
    array before it writes masks again.  Over many rounds with their deals and
    resets, and steps that move only some games: the handed-out masks equal
    the state's, no row has a legal action past its extent
    (``legal_extent``) or past what the state records of it
    (``legal_written``), and a mask batch the caller still holds is never
    rewritten (1800 x 2371 masks are recycled once dropped)."""
    from cardenvs.games.push.legal import legal_extent

    venv = V.make("push_v0", num_envs=1800, seed=11, max_turns=25)
    obs, info = venv.reset()
    rng = np.random.default_rng(11)
    held = held_copy = None
    action_ids = np.arange(venv.num_actions)
    deals = partial = 0
    for t in range(400):
        mask = info["action_mask"]
        assert not mask.flags.writeable
        assert np.array_equal(mask, venv.state.legal)  # (assert_array_equal is slow on 4 MB)
        extent = np.minimum(legal_extent(venv.state.n_melds), venv.state.legal_written)
        assert not (mask & (action_ids[None, :] >= extent[:, None])).any()
        if held is not None:
            assert np.array_equal(held, held_copy)
        if t % 48 == 3:  # (kept over a step of only some games, then full steps)
            held, held_copy = mask, mask.copy()
        rounds_before = venv.state.hand_number.copy()
        counts = np.count_nonzero(mask, axis=1)  # a random legal action per row, by its rank among the row's
        pick = np.cumsum(counts) - counts + (rng.random(len(counts)) * counts).astype(np.int64)
        actions = np.flatnonzero(mask)[pick] % venv.num_actions
        rows = np.flatnonzero(rng.random(len(actions)) < 0.5) if t % 4 == 3 else None
        partial += rows is not None
        obs, _, _, _, info = venv.step(actions, rows=rows)
        deals += int((venv.state.hand_number != rounds_before).sum())
    assert deals > 1000 and partial == 100  # many rows went through new deals (and whole new games)


def test_masks_handed_out_by_the_rules_core_survive_finished_games_and_resets():
    """The rules core stepped directly (no auto-reset): a step moves the masks
    to another array, where finished games have empty rows; a reset of some
    games while the caller holds the masks leaves them as they were."""
    from cardenvs.games.push.rules import PushRules

    rules = PushRules(rounds=[1], max_turns=6)
    n = 1800  # 4.3 MB of masks: handed out without a copy
    state = rules.new_state(n, np.random.default_rng(2))
    rules.reset(state, np.arange(n))
    rng = np.random.default_rng(2)
    finished = resets = 0
    for t in range(80):
        mask = rules.action_masks(state)
        kept = mask.copy()
        assert np.array_equal(mask, state.legal)
        assert not state.legal[state.done].any()
        finished = max(finished, int(state.done.sum()))
        pick = (rng.random(mask.shape) * mask).argmax(-1)  # (finished games: ignored)
        rules.step(state, pick)
        assert np.array_equal(mask, kept) and not np.shares_memory(mask, state.legal)
        if t % 10 == 9:
            mask = rules.action_masks(state)
            kept = mask.copy()
            done = np.flatnonzero(state.done)
            rules.reset(state, done)
            resets += len(done)
            assert np.array_equal(mask, kept) and state.legal[done].any(axis=1).all()
    assert finished > 100 and resets > 100
