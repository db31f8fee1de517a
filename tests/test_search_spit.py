"""Spit's and Speed's information-set samplers: the face-down cards drawn
uniformly among the arrangements consistent with what the seat has seen
(chi-squared against an enumeration, with cards known to be a player's
and, in Speed, with the opponent bound to hold a playable card), the
seat's observation of every world equal to its observation of the state,
cards conserved, blind to what the seat has not seen, steppable to the end."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from search_helpers import chi2_pvalue, states_equal

from cardenvs.games.spit.sampler import Tracker
from cardenvs.games.spit.tables import NONE, PLAYING
from cardenvs.registry import rules_class
from cardenvs.search import sample_worlds

SPIT = rules_class("spit_v0")()
SPEED = rules_class("spit_v0")(variant="speed")


def ticked(rules, batch, ticks, seed):
    """Games after ``ticks`` ticks of random legal actions (waits rarer)."""
    rng = np.random.default_rng(seed)
    state = rules.new_state(batch, rng)
    rules.reset(state, np.arange(batch))
    for _ in range(ticks):
        noise = rng.random(state.legal.shape)
        noise[..., 0] *= 0.2
        rules.step(state, np.where(state.legal, noise, -1).argmax(2))
    return state


def play_out(rules, state, seed):
    rng = np.random.default_rng(seed)
    for _ in range(20000):
        if state.done.all():
            return
        rules.step(state, np.where(state.legal, rng.random(state.legal.shape), -1).argmax(2))
    raise AssertionError("the games did not end")


def spit_hidden(state, w):
    """Each seat's face-down cards in slot order: stockpiles bottom up, then spit cards."""
    out = []
    for seat in range(2):
        cards = [
            int(state.stockpiles[w, seat, i, h])
            for i in range(SPIT.stockpiles)
            for h in range(state.stockpile_count[w, seat, i] - 1)
        ]
        out.append(tuple(cards + [int(c) for c in state.spit_cards[w, seat, : state.spit_count[w, seat]]]))
    return tuple(out)


def spit_cards_everywhere(state, w):
    cards = list(state.centre[w, 0, : state.centre_count[w, 0]]) + list(state.centre[w, 1, : state.centre_count[w, 1]])
    for seat in range(2):
        cards += list(state.spit_cards[w, seat, : state.spit_count[w, seat]])
        for i in range(SPIT.stockpiles):
            cards += list(state.stockpiles[w, seat, i, : state.stockpile_count[w, seat, i]])
    return sorted(int(c) for c in cards)


def test_spit_worlds_look_the_same_and_play_to_the_end():
    state = ticked(SPIT, 64, 300, 0)
    assert (state.hand_number > 0).any() and (state.gathered >= 0).any()
    out = sample_worlds(SPIT, state, 0, 8, np.random.default_rng(1))
    src = np.repeat(np.arange(state.batch), 8)
    assert np.array_equal(SPIT.observe(out), SPIT.observe(state)[src])  # both seats see the same
    for name in ("centre", "stockpile_top", "stockpile_count", "spit_count", "legal", "gathered"):
        assert np.array_equal(getattr(out, name), getattr(state, name)[src]), name
    moved = 0
    for w in range(out.batch):
        assert spit_cards_everywhere(out, w) == list(range(52))
        real, world = spit_hidden(state, src[w]), spit_hidden(out, w)
        for seat in range(2):  # the cards known to be a seat's stay its
            known = sorted(c for c in real[seat] if state.gathered[src[w], c] == seat)
            assert known == sorted(c for c in world[seat] if out.gathered[w, c] == seat)
        moved += real != world
    assert moved > out.batch // 2
    play_out(SPIT, out, 2)


def shrink_spit(state, row, keep_piles, keep_spit):
    """One row with at most ``keep_piles`` face-down cards per stockpile and
    ``keep_spit`` spit cards per seat: the rest under spit pile 0 (seen)."""
    small = state.select(np.array([row]))
    under = []
    for seat in range(2):
        for i in range(SPIT.stockpiles):
            count = int(small.stockpile_count[0, seat, i])
            if count - 1 > keep_piles:
                pile = small.stockpiles[0, seat, i, :count].copy()
                under += list(pile[: count - 1 - keep_piles])
                small.stockpiles[0, seat, i] = NONE
                small.stockpiles[0, seat, i, : keep_piles + 1] = pile[count - 1 - keep_piles :]
                small.stockpile_count[0, seat, i] = keep_piles + 1
        spit = small.spit_cards[0, seat, : small.spit_count[0, seat]].copy()
        cut = max(len(spit) - keep_spit, 0)
        under += list(spit[:cut])
        small.spit_cards[0, seat] = NONE
        small.spit_cards[0, seat, : len(spit) - cut] = spit[cut:]
        small.spit_count[0, seat] = len(spit) - cut
        small.layout_count[0, seat] = small.stockpile_count[0, seat].sum()
        small.layout_shape[0, seat] = (small.stockpile_count[0, seat].astype(np.int64) * 6 ** np.arange(5)).sum()
    pile = np.concatenate([under, small.centre[0, 0, : small.centre_count[0, 0]]]).astype(np.int8)
    small.centre[0, 0, : len(pile)] = pile
    small.centre_count[0, 0] = len(pile)
    return small


def spit_arrangements(small):
    """Every arrangement of the face-down cards consistent with what was
    seen: a card gathered face up by a seat stays among that seat's slots."""
    hidden = spit_hidden(small, 0)
    cards, sizes = hidden[0] + hidden[1], len(hidden[0])
    out = set()
    for order in itertools.permutations(cards):
        ok = all(small.gathered[0, c] in (-1, 0) for c in order[:sizes])
        ok = ok and all(small.gathered[0, c] in (-1, 1) for c in order[sizes:])
        if ok:
            out.add((order[:sizes], order[sizes:]))
    return out


def test_spit_uniform_with_cards_known_to_be_a_seats():
    state = ticked(SPIT, 64, 300, 3)
    rows = [
        r for r in range(64) if not state.done[r] and state.phase[r] == PLAYING and (state.gathered[r] >= 0).sum() > 5
    ]
    for row in rows:
        small = shrink_spit(state, row, 1, 1)
        hidden = spit_hidden(small, 0)
        known = [c for seat in range(2) for c in hidden[seat] if small.gathered[0, c] == seat]
        if 5 <= len(hidden[0]) + len(hidden[1]) <= 7 and known:
            break
    else:
        pytest.fail("no position with cards known to be a seat's")
    keys = spit_arrangements(small)
    assert len(keys) >= 20
    worlds = 40 * len(keys)
    out = sample_worlds(SPIT, small, 1, worlds, np.random.default_rng(4))
    seen = Counter(spit_hidden(out, w) for w in range(out.batch))
    assert set(seen) <= keys, "a sampled arrangement is not consistent"
    order = sorted(keys)
    assert chi2_pvalue([seen[k] for k in order], [worlds / len(keys)] * len(keys)) > 1e-3


def speed_hidden(state, w, viewer):
    """What ``viewer`` does not see: the opponent's hand, the stocks in order, the side piles in order."""
    o = 1 - viewer
    return (
        tuple(np.flatnonzero(state.hand[w, o]).tolist()),
        tuple(state.stock[w, viewer, : state.stock_count[w, viewer]].tolist()),
        tuple(state.stock[w, o, : state.stock_count[w, o]].tolist()),
        tuple(state.side_piles[w, 0, : state.side_count[w, 0]].tolist()),
        tuple(state.side_piles[w, 1, : state.side_count[w, 1]].tolist()),
    )


def test_speed_worlds_look_the_same_to_the_seat_and_play_to_the_end():
    state = ticked(SPEED, 64, 8, 0)
    assert (~state.done).sum() > 32
    seats = np.arange(64) % 2
    out = sample_worlds(SPEED, state, seats, 8, np.random.default_rng(1))
    src, viewer = np.repeat(np.arange(64), 8), np.repeat(seats, 8)
    obs, real = SPEED.observe(out), SPEED.observe(state)[src]
    assert np.array_equal(obs[np.arange(out.batch), viewer], real[np.arange(out.batch), viewer])
    assert np.array_equal(out.hand[np.arange(out.batch), viewer], state.hand[src, viewer])
    for w in range(out.batch):
        cards = list(np.flatnonzero(out.hand[w, 0])) + list(np.flatnonzero(out.hand[w, 1]))
        for pile in range(2):
            cards += list(out.stock[w, pile, : out.stock_count[w, pile]]) + list(
                out.centre[w, pile, : out.centre_count[w, pile]]
            )
            cards += list(out.side_piles[w, pile, : out.side_count[w, pile]])
        assert sorted(int(c) for c in cards) == list(range(52))
    live = ~out.done
    assert out.legal[live][:, :, 1:].any(axis=(1, 2)).all(), "somebody can play in every world"
    play_out(SPEED, out, 3)


def shrink_speed(state, row, viewer, hand, stock, side):
    """One row with the opponent's hand cut to ``hand`` cards (its stock
    emptied if that is under five), each stock to ``stock`` and each side
    pile to ``side`` cards: the rest under centre pile 0 (seen)."""
    small = state.select(np.array([row]))
    o = 1 - viewer
    held = np.flatnonzero(small.hand[0, o])
    playable = SPEED.fits[small.centre_top[0]][:, held].any(axis=0)
    under = list(held[np.argsort(~playable, kind="stable")][hand:])  # (a playable card stays: the game goes on)
    small.hand[0, o, under] = False
    small.hand_count[0, o] = hand
    for seat in range(2):
        keep = 0 if seat == o and hand < 5 else stock
        count = int(small.stock_count[0, seat])
        under += list(small.stock[0, seat, keep:count])
        small.stock[0, seat, keep:] = NONE
        small.stock_count[0, seat] = min(keep, count)
        count = int(small.side_count[0, seat])
        under += list(small.side_piles[0, seat, side:count])
        small.side_piles[0, seat, side:] = NONE
        small.side_count[0, seat] = min(side, count)
    pile = np.concatenate([under, small.centre[0, 0, : small.centre_count[0, 0]]]).astype(np.int8)
    small.centre[0, 0, : len(pile)] = pile
    small.centre_count[0, 0] = len(pile)
    return small


def speed_arrangements(small, viewer, consistent):
    """Every arrangement of the cards ``viewer`` does not see (the opponent's
    hand as a set), with ``consistent`` true, and its weight (orders of the
    hand: all alike)."""
    shape = speed_hidden(small, 0, viewer)
    cards = [c for part in shape for c in part]
    sizes = np.cumsum([0] + [len(p) for p in shape])
    out = set()
    for order in itertools.permutations(cards):
        parts = [tuple(order[sizes[k] : sizes[k + 1]]) for k in range(len(shape))]
        parts[0] = tuple(sorted(parts[0]))
        if consistent(parts[0]):
            out.add(tuple(parts))
    return out


@pytest.mark.parametrize("stuck_viewer", [False, True])
def test_speed_uniform(stuck_viewer):
    """Uniform over the arrangements; when the viewer cannot play, only
    those where the opponent can (the game did not stall)."""
    state = ticked(SPEED, 256, 3, 5)
    fits = SPEED.fits
    for row in range(state.batch):
        if state.done[row]:
            continue
        viewer = 0
        own = np.flatnonzero(state.hand[row, viewer])
        viewer_can = fits[state.centre_top[row]][:, own].any()
        if viewer_can != stuck_viewer:
            break
    else:
        pytest.fail("no position")
    small = shrink_speed(state, row, viewer, hand=2 if stuck_viewer else 5, stock=1, side=1)
    tops = small.centre_top[0]

    def opponent_can(hand):
        return not stuck_viewer or fits[tops][:, list(hand)].any()

    assert opponent_can(np.flatnonzero(small.hand[0, 1 - viewer])), "the position itself is consistent"

    keys = speed_arrangements(small, viewer, opponent_can)
    every = speed_arrangements(small, viewer, lambda hand: True)
    assert len(keys) >= 10 and (len(keys) < len(every)) == stuck_viewer
    worlds = 40 * len(keys)
    out = sample_worlds(SPEED, small, viewer, worlds, np.random.default_rng(6))
    seen = Counter(speed_hidden(out, w, viewer) for w in range(out.batch))
    assert set(seen) <= keys
    order = sorted(keys)
    assert chi2_pvalue([seen[k] for k in order], [worlds / len(keys)] * len(keys)) > 1e-3


def tracked_speed(batch, ticks, seed, until=None):
    """Speed games after ``ticks`` ticks (waits rarer) through a tracker, or
    fewer: until ``until(state, tracker)`` gives a row.  Every step checks
    the tracker's facts: no seat holds a card it is said not to hold, and
    after a stall of one flip (no rebuild) neither seat is said to hold a
    card fitting the tops the flip covered (the test's own reading: the
    cards now under the tops of the piles that flipped, the tops of the
    others)."""
    rng = np.random.default_rng(seed)
    state = SPEED.new_state(batch, rng)
    SPEED.reset(state, np.arange(batch))
    tracker, tracker.checked = Tracker(SPEED, batch), 0  # (checked: the one-flip stalls read by the test)
    for _ in range(ticks):
        noise = rng.random(state.legal.shape)
        noise[..., 0] *= 0.2
        sides, rebuilt, deals = state.side_count.copy(), state.side_rebuilt.copy(), state.deals.copy()
        tracker.step(SPEED, state, np.where(state.legal, noise, -1).argmax(2))
        assert not (tracker.unfit & state.hand).any(), "a stall fact the real hand breaks"
        flips = sides - state.side_count
        once = (flips.max(1) == 1) & (flips.min(1) >= 0) & (rebuilt == state.side_rebuilt) & (deals == state.deals)
        for row in np.flatnonzero(once & ~state.done):
            count = state.centre_count[row]
            covered = [state.centre[row, p, count[p] - 1 - flips[row, p]] for p in range(2)]
            assert (tracker.unfit[row] >= SPEED.fits[covered].any(0)).all()
            tracker.checked += 1
        found = until(state, tracker) if until is not None else None
        if found is not None:
            return state, tracker, found
    return state, tracker, None


def test_speed_stalls_are_used():
    """Worlds with the tracker never give the opponent a card a stall showed
    it did not hold (without it some do); its observation unchanged."""
    state, tracker, _ = tracked_speed(256, 12, 0)
    assert tracker.unfit.any(2).sum() >= 20 and tracker.checked >= 20
    seats = np.arange(256) % 2
    src, opp = np.repeat(np.arange(256), 16), 1 - np.repeat(seats, 16)
    for known, ok in ((tracker, True), (None, False)):
        out = sample_worlds(SPEED, state, seats, 16, np.random.default_rng(1), tracker=known)
        clash = (out.hand[np.arange(out.batch), opp] & tracker.unfit[src, opp]).any(1)
        assert (not clash.any()) == ok
    with pytest.raises(ValueError):
        Tracker(SPIT, 4)
    with pytest.raises(ValueError):
        sample_worlds(SPEED, state, seats, 2, np.random.default_rng(0), tracker=Tracker(SPEED, 3))


def test_speed_uniform_after_a_stall():
    """A shrunk position whose opponent a stall showed not to hold some of
    the hidden cards: uniform over the arrangements that keep them out of
    its hand (and, if the viewer cannot play, give it a playable card)."""
    viewer, o = 0, 1

    def hidden_unfit(state, tracker):
        for row in np.flatnonzero(~state.done & tracker.unfit[:, o].any(1)):
            small = shrink_speed(state, row, viewer, hand=4, stock=1, side=1)
            pool = [c for part in speed_hidden(small, 0, viewer)[1:] for c in part]
            if tracker.unfit[row, o, pool].any():
                return row, small
        return None

    state, tracker, found = tracked_speed(256, 40, 11, hidden_unfit)
    assert found is not None, "no position"
    row, small = found
    unfit, tops = tracker.unfit[row, o], small.centre_top[0]
    stuck = not SPEED.fits[tops][:, np.flatnonzero(small.hand[0, viewer])].any()

    def consistent(hand):
        return not unfit[list(hand)].any() and (not stuck or SPEED.fits[tops][:, list(hand)].any())

    assert consistent(np.flatnonzero(small.hand[0, o])), "the position itself is consistent"
    keys = speed_arrangements(small, viewer, consistent)
    assert len(keys) >= 10 and len(keys) < len(speed_arrangements(small, viewer, lambda hand: True))
    worlds = 40 * len(keys)
    out = sample_worlds(SPEED, small, viewer, worlds, np.random.default_rng(6), tracker=tracker.select([row]))
    seen = Counter(speed_hidden(out, w, viewer) for w in range(out.batch))
    assert set(seen) <= keys
    order = sorted(keys)
    assert chi2_pvalue([seen[k] for k in order], [worlds / len(keys)] * len(keys)) > 1e-3


def test_speed_rebuilt_side_piles_keep_their_cards():
    rng = np.random.default_rng(7)
    state = SPEED.new_state(512, rng)
    SPEED.reset(state, np.arange(512))
    for _ in range(300):  # until some game has rebuilt its side piles
        rows = np.flatnonzero(state.side_rebuilt & ~state.done & (state.side_count.sum(1) >= 2))
        if rows.size:
            break
        noise = rng.random(state.legal.shape)
        noise[..., 0] *= 0.2
        SPEED.step(state, np.where(state.legal, noise, -1).argmax(2))
    assert rows.size, "some games rebuilt their side piles"
    state = state.select(rows)
    out = sample_worlds(SPEED, state, 0, 20, np.random.default_rng(2))
    src = np.repeat(np.arange(state.batch), 20)
    sides = lambda s, w: sorted(s.side_piles[w, :, :].ravel()[s.side_piles[w].ravel() < NONE].tolist())  # noqa: E731
    assert all(sides(out, w) == sides(state, src[w]) for w in range(out.batch))
    orders = {tuple(out.side_piles[w].ravel().tolist()) for w in range(20)}
    assert len(orders) > 1
    other = sample_worlds(SPEED, state, 0, 1, np.random.default_rng(3))  # the side piles in another order
    assert states_equal(  # their order is not seen: it does not leak into the worlds
        sample_worlds(SPEED, state, 0, 10, np.random.default_rng(5)),
        sample_worlds(SPEED, other, 0, 10, np.random.default_rng(5)),
    )


@pytest.mark.parametrize("rules,ticks", [(SPIT, 200), (SPEED, 6)])
def test_no_leak_of_unseen_cards(rules, ticks):
    state = ticked(rules, 16, ticks, 8)
    other = sample_worlds(rules, state, 1, 1, np.random.default_rng(1))
    assert not states_equal(other, state)
    a = sample_worlds(rules, state, 1, 10, np.random.default_rng(5))
    b = sample_worlds(rules, other, 1, 10, np.random.default_rng(5))
    assert states_equal(a, b)


def test_bad_input():
    state = ticked(SPEED, 4, 2, 9)
    for seats in (2, -1, [0, 1], 0.5):
        with pytest.raises(ValueError):
            sample_worlds(SPEED, state, seats, 2, np.random.default_rng(0))
    with pytest.raises(ValueError):
        sample_worlds(SPIT, ticked(SPIT, 4, 2, 9), 0, 0, np.random.default_rng(0))
    with pytest.raises(TypeError):
        sample_worlds(SPIT, ticked(SPIT, 4, 2, 9), 0, 2, 7)


@pytest.mark.parametrize("variant", ["spit", "speed"])
def test_worlds_do_not_draw_the_real_games_future_numbers(variant):
    """Under the vector engine's per-game streams (counter-based: a row's
    next number is fixed by its slot and count) a world that kept its row's
    stream would know the real game's coming draws -- in Spit which hand is
    faster at every tick.  The worlds draw from their own generator: their
    coins are not the real game's, and drawing them moves nothing real."""
    import cardenvs.vector as V
    from cardenvs.games.spit.tick import faster_hands

    engine = V.make("spit_v0", 4, seed=3, rng="per_game", variant=variant)
    engine.reset(seed=3)
    state = engine.state
    before = state.copy()
    worlds = sample_worlds(engine.rules, state, np.zeros(4, np.int64), 2, np.random.default_rng(0))
    assert worlds.streams is None
    theirs = np.stack([faster_hands(worlds) for _ in range(64)])  # (tick, world)
    assert state.same_arrays(before)  # (the real draws did not move)
    real = np.stack([faster_hands(state) for _ in range(64)])  # (tick, game): what the real games draw next
    for w in range(worlds.batch):
        assert not np.array_equal(theirs[:, w], real[:, w // 2])
    engine.close()
