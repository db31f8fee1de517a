"""Pepper's information-set sampler: worlds consistent with what the seat
saw, exactly uniform over the consistent deals (chi-squared against an
enumeration), blind to what the seat has not seen, steppable."""

from __future__ import annotations

import numpy as np
import pytest
from search_helpers import chi2_pvalue, enumerate_deals, random_play, states_equal

from cardenvs.games.pepper.tables import DECK, EFFECTIVE_SUIT, PLAYING
from cardenvs.registry import rules_class
from cardenvs.search import sample_worlds


def late_position(num_players, trick_no, seed, batch=64):
    """A Pepper state (batch rows) played at random until trick ``trick_no``."""
    rules = rules_class("pepper_v0")(num_players=num_players)
    rng = np.random.default_rng(seed)
    state = rules.new_state(batch, rng)
    rules.reset(state, np.arange(batch))
    random_play(rules, state, rng, 60, stop=lambda s: (s.phase == PLAYING) & (s.trick_no >= trick_no))
    rows = np.flatnonzero((state.phase == PLAYING) & (state.trick_no == trick_no) & ~state.done)
    assert rows.size, "no row reached the position"
    return rules, state.select(rows[:1])


def legal_history(state, deal, viewer, num_players):
    """Whether the play so far was legal had the hidden hands been ``deal``
    (one tuple per place: the seats, then the dead hand): every seat that
    did not follow suit held no card of the suit led then, i.e. holds none
    now nor played one later (later plays are seen, so: holds none now)."""
    trump = int(state.trump[0])
    hands = [list(np.flatnonzero(state.hands[0, s])) if s == viewer else list(deal[s]) for s in range(num_players)]
    tricks = [(state.history[0, k], state.trick_leaders[0, k]) for k in range(int(state.trick_no[0]))]
    if state.trick[0, state.leader[0]] >= 0:
        tricks.append((state.trick[0], state.leader[0]))
    for cards, leader in tricks:
        led = EFFECTIVE_SUIT[trump, cards[leader]]
        for seat in range(num_players):
            followed = cards[seat] < 0 or EFFECTIVE_SUIT[trump, cards[seat]] == led
            if not followed and any(EFFECTIVE_SUIT[trump, c] == led for c in hands[seat]):
                return False
    return True


@pytest.mark.parametrize("num_players,trick_no,seed", [(4, 4, 0), (4, 4, 3), (3, 6, 1), (2, 7, 2)])
def test_uniform_over_consistent_deals(num_players, trick_no, seed):
    rules, state = late_position(num_players, trick_no, seed)
    viewer = int(state.current[0])
    others = [s for s in range(num_players) if s != viewer]
    places = [*range(num_players), num_players]  # the seats, then the dead hand
    caps = [0 if p == viewer else int((state.hands[0, p] if p < num_players else state.dead[0]).sum()) for p in places]
    unseen = [int(t) for p in others for t in np.flatnonzero(state.hands[0, p])]
    unseen += [int(t) for t in np.flatnonzero(state.dead[0])]
    deals = enumerate_deals(sorted(unseen), caps, lambda d: legal_history(state, d, viewer, num_players))
    assert len(deals) >= 2
    worlds = 200 * len(deals)
    out = sample_worlds(rules, state, [viewer], worlds, np.random.default_rng(seed + 100))
    seen = {}
    for w in range(out.batch):
        key = tuple(
            tuple(int(t) for t in np.flatnonzero(out.hands[w, p] if p < num_players else out.dead[w]))
            if p != viewer
            else ()
            for p in places
        )
        seen[key] = seen.get(key, 0) + 1
    assert set(seen) <= set(deals), "a sampled deal is not consistent"
    keys = sorted(deals)
    observed = [seen.get(k, 0) for k in keys]
    expected = [worlds * deals[k] / sum(deals.values()) for k in keys]
    assert chi2_pvalue(observed, expected) > 1e-3


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_worlds_keep_what_the_seat_saw_and_step(num_players):
    rules, _ = late_position(num_players, 1, 5)
    rng = np.random.default_rng(7)
    state = rules.new_state(128, rng)
    rules.reset(state, np.arange(128))
    random_play(rules, state, rng, 12)
    seats = state.current.copy()
    seats[state.done] = 0
    k = 8
    out = sample_worlds(rules, state, seats, k, np.random.default_rng(1))
    src = np.repeat(np.arange(state.batch), k)
    rows = np.arange(out.batch)
    assert np.array_equal(out.hands[rows, seats[src]], state.hands[src, seats[src]])
    assert np.array_equal(out.hands.sum(-1), state.hands.sum(-1)[src])
    assert np.array_equal(out.hands.sum(1) + out.dead, (state.hands.sum(1) + state.dead)[src])
    for name in ("history", "trick", "public", "scores", "trump", "phase", "current", "legal"):
        assert np.array_equal(getattr(out, name), getattr(state, name)[src]), name
    assert np.array_equal(rules.observe(out, seats[src]), rules.observe(state, seats)[src])
    random_play(rules, out, rng, 40)  # every world is a state the rules can step


def test_no_leak_of_unseen_cards():
    """Two states differing only in the hidden cards give the same worlds."""
    rules, state = late_position(4, 2, 11)
    viewer = int(state.current[0])
    other = sample_worlds(rules, state, [viewer], 1, np.random.default_rng(3))  # another consistent deal
    assert not np.array_equal(other.hands, state.hands)
    a = sample_worlds(rules, state, [viewer], 50, np.random.default_rng(9))
    b = sample_worlds(rules, other, [viewer], 50, np.random.default_rng(9))
    assert states_equal(a, b)


def start_deck(world, w, num_players):
    """The deck (card texts) dealing world row ``w``'s hands at the start of
    the hand -- its hands now and the cards each seat played -- and its dead
    hand: one card at a time from the dealer's left, the dead hand (2
    players) as a third seat after the two."""
    start = world.hands[w].astype(np.int64)
    played = np.concatenate([world.history[w, : world.trick_no[w]].ravel(), world.trick[w]])
    seats = np.concatenate([np.tile(np.arange(num_players), world.trick_no[w]), np.arange(num_players)])
    for seat, card in zip(seats, played):
        if card >= 0:
            start[seat, card] += 1
    slots = [list(np.flatnonzero(start[(world.dealer[w] + 1 + j) % num_players])) for j in range(num_players)]
    if num_players == 2:
        slots.append(list(np.flatnonzero(world.dead[w])))
    order = [slots[j][k] for k in range(len(slots[0])) for j in range(len(slots))]
    return [DECK.texts[c] for c in order]


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_every_world_makes_the_observed_play_legal(num_players):
    """Random positions of the play (the auction, the trump, some tricks:
    voids by effective suit, bowers included): 16 worlds per row for the
    seat to act, each replayed by the rules from the deal on its own cards
    (every action of its row, each checked against the legal mask)."""
    rules = rules_class("pepper_v0")(num_players=num_players, max_hands=1)
    rng = np.random.default_rng(num_players)
    state = rules.new_state(24, rng)
    rules.reset(state, np.arange(24))
    log = []
    for _ in range(4 * num_players + 6):  # (no hand ends this soon)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in state.legal])
        log.append(actions)
        rules.step(state, actions)
    assert not state.done.any() and (state.trick_no >= 1).sum() >= 8
    k = 16
    worlds = sample_worlds(rules, state, state.current, k, np.random.default_rng(5))
    replay = rules.new_state(worlds.batch, rng)
    decks = [[start_deck(worlds, w, num_players)] for w in range(worlds.batch)]
    rules.set_fixed_decks(replay, decks, per_row=True)
    rules.reset(replay, np.arange(worlds.batch), dealer=worlds.dealer)
    assert np.array_equal(replay.hands.sum(-1), np.full((worlds.batch, num_players), 24 // max(num_players, 3)))
    ok = np.ones(worlds.batch, bool)
    for actions in log:
        actions = np.repeat(actions, k)
        ok &= replay.legal[np.arange(worlds.batch), actions]
        rules.step(replay, np.where(ok, actions, replay.legal.argmax(1)))
    assert ok.all()
    assert np.array_equal(replay.hands, worlds.hands) and np.array_equal(replay.history, worlds.history)
