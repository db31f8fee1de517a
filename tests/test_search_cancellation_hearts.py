"""Cancellation Hearts' information-set sampler: worlds consistent with
what the seat saw (voids, the lead rules' facts, passes, hand sizes, the
widow unseen), exactly uniform over the physical deals (chi-squared
against an enumeration), blind to what the seat has not seen, steppable.
(The lead rules' own tests: test_search_hearts_leads.py.)"""

from __future__ import annotations

import numpy as np
import pytest
from search_helpers import (
    BLACK_MARIA,
    chi2_pvalue,
    enumerate_deals,
    facts_hold,
    hearts_facts,
    hearts_only_deal,
    opening_deal,
    states_equal,
)

from cardenvs.games.cancellation_hearts.sampler import Tracker
from cardenvs.games.cancellation_hearts.tables import LEFT, NO_PASS, PLAY0, PLAYING
from cardenvs.registry import rules_class
from cardenvs.search import sample_worlds

N = 6


def played_out(trick_no, seed, batch=8, decks=None, dealer=0, passing="left_right", spades_led=True):
    """States played at random to trick ``trick_no`` (all rows in step), with
    a tracker and an independent log of (row, seat, card) plays; ``decks``
    (one deck order for every row, card texts) fixes the deal; not
    ``spades_led``: a spade is led only by a hand holding nothing else."""
    rules = rules_class("cancellation_hearts_v0")(num_players=N, max_hands=1, passing=passing)
    rng = np.random.default_rng(seed)
    state = rules.new_state(batch, rng)
    if decks is not None:
        rules.set_fixed_decks(state, decks)
    rules.reset(state, np.arange(batch), dealer=dealer)
    tracker, log = Tracker(rules, batch), []
    while not (state.phase == PLAYING).all() or state.trick_no.min() < trick_no:
        masks = state.legal.copy()
        if not spades_led:
            spades = masks[:, PLAY0 + 39 : PLAY0 + 52]
            others = (state.in_trick == 0) & masks[:, PLAY0 : PLAY0 + 39].any(1)
            spades[others] = False
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        for row in np.flatnonzero(state.phase == PLAYING):
            log.append((row, int(state.current[row]), int(actions[row] - PLAY0)))
        tracker.step(rules, state, actions)
    return rules, state, tracker, log


def consistent(state, log, row, viewer):
    """The test's own reading of what ``viewer`` saw in ``row``: a check of
    a deal against the facts the plays told (:func:`search_helpers.hearts_facts`:
    voids, the lead rules), the receiver of its pass, and the passed cards
    the receiver has not played since (those very cards are in its hand: a
    twin of one, if unseen, is dealt like any other card)."""
    plays = [(seat, card) for r, seat, card in log if r == row]
    facts = hearts_facts(plays, N)

    def check(deal, voids_only=False):
        return facts_hold([f for f in facts if f[3] == "void" or not voids_only], plays, deal)

    if state.pass_dir[row] == NO_PASS:
        return check, 0, []
    step = 1 if state.pass_dir[row] == LEFT else -1
    receiver = (viewer + step) % N
    passed = state.private[row, viewer, :52].astype(int).copy()  # (ob.PASSED is 0 in the viewer's block)
    for seat, card in plays:
        if seat == receiver:
            passed[card] -= 1
    held = [int(t) for t in np.repeat(np.arange(52), np.maximum(passed, 0))]
    return check, receiver, held


def late_position(kind, seed, row):
    """A position at the last trick (row ``row`` of a batch played at
    random): ``"random"`` a random deal; ``"hearts only"`` the F1 deal
    (seat 1 leads a heart before hearts are broken at trick 1); ``"opening"``
    seat 0 opening with a heart or Black Maria (spades led only by hands
    holding nothing else, so that it may keep a Black Maria to the end)."""
    if kind == "random":
        return played_out(16, seed)
    decks = [hearts_only_deal()] if kind == "hearts only" else [opening_deal(np.random.default_rng(seed))]
    return played_out(16, seed, 16, decks, N - 1, "none", spades_led=kind != "opening")


# (the lead-fact rows: where the fact rules out a card the voids alone allow, and seat 0 kept a Black Maria)
@pytest.mark.parametrize(
    "kind, seed, row", [("random", 0, 0), ("random", 1, 0), ("hearts only", 2, 1), ("opening", 6, 0)]
)
def test_uniform_over_consistent_deals(kind, seed, row):
    rules, state, tracker, log = late_position(kind, seed, row)
    viewer = int(state.current[row]) if kind == "random" else 3
    if kind == "opening":
        assert state.hands[row, 0, BLACK_MARIA] > 0  # the fifth suit: seat 0 may hold Black Maria, no other spade
    places = list(range(N + 1))  # the hands, then the widow
    holdings = [state.hands[row, p] if p < N else state.widow[row] for p in places]
    caps = [0 if p == viewer else int(h.sum()) for p, h in zip(places, holdings)]
    unseen = sorted(int(t) for p, h in zip(places, holdings) if p != viewer for t in np.repeat(np.arange(52), h))
    check, receiver, held = consistent(state, log, row, viewer)
    for card in held:  # the passed cards still held: fixed in the receiver's hand
        unseen.remove(card)
    caps[receiver] -= len(held)

    def with_held(deal):
        return tuple(tuple(sorted(deal[p] + tuple(held))) if p == receiver else deal[p] for p in places)

    deals = {}
    for deal, ways in enumerate_deals(unseen, caps, lambda deal: check(with_held(deal))).items():
        deals[with_held(deal)] = ways
    assert len(deals) >= 2
    if kind != "random":  # the lead fact rules out deals the voids alone would allow
        assert len(enumerate_deals(unseen, caps, lambda deal: check(with_held(deal), voids_only=True))) > len(deals)
    worlds = max(4000, 100 * len(deals))
    one = state.select(np.array([row]))
    out = sample_worlds(rules, one, [viewer], worlds, np.random.default_rng(seed), tracker=tracker.select([row]))
    seen = {}
    for w in range(out.batch):
        key = tuple(
            ()
            if p == viewer
            else tuple(int(t) for t in np.repeat(np.arange(52), out.hands[w, p] if p < N else out.widow[w]))
            for p in places
        )
        seen[key] = seen.get(key, 0) + 1
    assert set(seen) <= set(deals), "a sampled deal is not consistent"
    keys = sorted(deals)
    total = sum(deals.values())
    assert chi2_pvalue([seen.get(k, 0) for k in keys], [worlds * deals[k] / total for k in keys]) > 1e-3


def test_worlds_keep_what_the_seat_saw_and_step():
    rules, state, tracker, _ = played_out(6, 4, batch=32)
    seats = state.current.copy()
    k = 8
    out = sample_worlds(rules, state, seats, k, np.random.default_rng(2), tracker=tracker)
    src = np.repeat(np.arange(state.batch), k)
    rows = np.arange(out.batch)
    assert np.array_equal(out.hands[rows, seats[src]], state.hands[src, seats[src]])
    assert np.array_equal(out.hands.sum(-1), state.hands.sum(-1)[src])
    assert np.array_equal(out.hands.sum(1) + out.widow, (state.hands.sum(1) + state.widow)[src])
    suits = np.stack([out.hands[..., 13 * s : 13 * s + 13].sum(-1) > 0 for s in range(4)], -1)
    assert not (suits & tracker.voids[src]).any()
    for name in ("public", "taken", "seen_points", "scores", "phase", "current", "legal", "trick"):
        assert np.array_equal(getattr(out, name), getattr(state, name)[src]), name
    rng = np.random.default_rng(0)
    for _ in range(40):  # every world is a state the rules can step
        live = ~out.done
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in out.legal])
        part = out.select(np.flatnonzero(live))
        rules.step(part, actions[live])
        out.assign(np.flatnonzero(live), part)


def test_passing_phase_and_no_leak():
    """Mid-passing and mid-play, two states differing only in what the seat
    has not seen (another world of the first) give the same worlds."""
    rules = rules_class("cancellation_hearts_v0")(num_players=N)
    rng = np.random.default_rng(5)
    state = rules.new_state(4, rng)
    rules.reset(state, np.arange(4), dealer=0)
    for _ in range(7):  # two seats and a card into the passes
        rules.step(state, np.array([rng.choice(np.flatnonzero(m)) for m in state.legal]))
    seats = (state.current + 1) % N
    _, played, tracker, _ = played_out(9, 6, batch=4)
    for position, known in ((state, None), (played, tracker)):
        other = sample_worlds(rules, position, seats, 1, np.random.default_rng(1), tracker=known)
        assert not np.array_equal(other.hands, position.hands)
        a = sample_worlds(rules, position, seats, 20, np.random.default_rng(9), tracker=known)
        b = sample_worlds(rules, other, seats, 20, np.random.default_rng(9), tracker=known)
        assert states_equal(a, b)


def test_without_a_tracker_late_in_the_hand():
    """No tracker: the receiver of the seat's pass may have played what it
    got (nobody recorded who played what), so those cards are not forced on
    it; every world still holds the real cards, each hand its size."""
    rules, state, _, _ = played_out(14, 7, batch=32)
    seats = state.current.copy()
    out = sample_worlds(rules, state, seats, 16, np.random.default_rng(3))
    src = np.repeat(np.arange(state.batch), 16)
    assert (out.hands >= 0).all()
    assert np.array_equal(out.hands.sum(-1), state.hands.sum(-1)[src])
    assert np.array_equal(out.hands.sum(1) + out.widow, (state.hands.sum(1) + state.widow)[src])
    assert np.array_equal(rules.observe(out, seats[src]), rules.observe(state, seats)[src])
