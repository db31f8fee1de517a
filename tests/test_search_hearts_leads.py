"""Cancellation Hearts' sampler and the lead rules (issue #35, F1): a heart
led before hearts are broken tells that its leader held only hearts, an
opening heart or Black Maria lead that its leader held nothing else; every
sampled world must fit them (the F1 reproduction: 0 of 1000 worlds give
the heart leader another suit), and every world must be one in which the
whole observed play was legal (each row's plays replayed on each world's
cards by the rules themselves).  The chi-squared tests of positions after
such leads are in test_search_cancellation_hearts.py."""

from __future__ import annotations

import numpy as np
from search_helpers import BLACK_MARIA, HEARTS, deal_order, hearts_facts, hearts_only_deal, opening_deal

from cardenvs.games.cancellation_hearts.sampler import Tracker
from cardenvs.games.cancellation_hearts.tables import BREAKS_HEARTS, DECK, LEFT, NO_PASS, PLAY0, PLAYING
from cardenvs.registry import rules_class
from cardenvs.search import sample_worlds

SUIT = np.arange(52) // 13


def new_game(num_players, batch, passing, decks=None, dealer=None, seed=0):
    rules = rules_class("cancellation_hearts_v0")(num_players=num_players, passing=passing, max_hands=1)
    state = rules.new_state(batch, np.random.default_rng(seed))
    if decks is not None:
        rules.set_fixed_decks(state, [None if d is None else [d] for d in decks], per_row=True)
    rules.reset(state, np.arange(batch), dealer=dealer)
    return rules, state


def step_logged(rules, state, tracker, actions, plays):
    """``tracker.step`` with each row's plays logged (``plays[row]``: (seat, card))."""
    for row in np.flatnonzero((state.phase == PLAYING) & ~state.done):
        plays[row].append((int(state.current[row]), int(actions[row]) - PLAY0))
    tracker.step(rules, state, actions)


def first_legal_to(rules, state, tracker, plays, trick_no, in_trick):
    """Every seat plays its first legal card (as the F1 reproduction does) up to the position given."""
    while not (state.trick_no[0] == trick_no and state.in_trick[0] == in_trick):
        step_logged(rules, state, tracker, state.legal.argmax(1), plays)


def test_f1_heart_led_before_hearts_are_broken():
    """The F1 reproduction: seat 1 (sixteen hearts and an ace of clubs) wins
    an all-club trick 0 and leads a heart; seat 2's worlds give seat 1 hearts
    only -- with the tracker, without it (the lead is in the trick in play),
    and after the trick is over (the tracker's record)."""
    rules, state = new_game(6, 1, "none", [hearts_only_deal()], dealer=5)
    tracker, plays = Tracker(rules, 1), [[]]
    first_legal_to(rules, state, tracker, plays, 1, 1)
    assert plays[0][-1] == (1, 13 * HEARTS) and hearts_facts(plays[0], 6)[-1][::3] == (1, "hearts only")
    non_hearts = SUIT != HEARTS
    for known in (tracker, None):
        worlds = sample_worlds(rules, state, seats=2, worlds=1000, rng=np.random.default_rng(1), tracker=known)
        assert int((worlds.hands[:, 1, non_hearts] > 0).any(1).sum()) == 0
        assert (worlds.hands[:, 2] == state.hands[0, 2]).all()
    first_legal_to(rules, state, tracker, plays, 2, 0)
    worlds = sample_worlds(rules, state, seats=2, worlds=1000, rng=np.random.default_rng(2), tracker=tracker)
    assert int((worlds.hands[:, 1, non_hearts] > 0).any(1).sum()) == 0
    assert (worlds.hands[:, 1].sum(1) == state.hands[0, 1].sum()).all()


def test_opening_heart_or_black_maria_lead():
    """Seat 0 (hearts and both Black Marias) opens: its worlds hold no club,
    diamond or spade but Black Maria -- who is still dealt to it in some
    (she counts apart from the other spades)."""
    rules, state = new_game(6, 1, "none", [opening_deal(np.random.default_rng(0))], dealer=5)
    tracker, plays = Tracker(rules, 1), [[]]
    first_legal_to(rules, state, tracker, plays, 0, 1)
    assert hearts_facts(plays[0], 6)[0][3] == "opening"
    others = ~BREAKS_HEARTS
    for known in (tracker, None):
        worlds = sample_worlds(rules, state, seats=1, worlds=1000, rng=np.random.default_rng(3), tracker=known)
        assert int((worlds.hands[:, 0, others] > 0).any(1).sum()) == 0
        maria = worlds.hands[:, 0, BLACK_MARIA]
        assert 0 < np.count_nonzero(maria) < 1000  # (she is in 2 of 28 hearts and Black Marias left unseen)
    assert tracker.maria_only[0, 0] and tracker.voids[0, 0].tolist() == [True, True, False, False]


def hearts_heavy_deal(rng, num_players):
    """A deal (card texts) in which a random seat holds all but three of its
    cards in hearts, the other cards shuffled."""
    size = 104 // num_players
    cards = [DECK.texts[t] for t in range(52)] * 2
    hearts = [c for c in cards if c[1] == "H"]
    rng.shuffle(hearts)
    rest = hearts[size - 3 :] + [c for c in cards if c[1] != "H"]
    rng.shuffle(rest)
    hands = [rest[size * i : size * (i + 1)] for i in range(num_players - 1)]
    hands.insert(int(rng.integers(num_players)), hearts[: size - 3] + rest[-3:])
    return deal_order(hands, rest[size * (num_players - 1) : -3])


def random_actions(state, rng, heart_averse=False):
    """Random legal actions; ``heart_averse``: hearts and Black Maria only
    when nothing else may be played (hearts stay unbroken long, so leaders
    left with only hearts lead one before they are broken)."""
    masks = state.legal.copy()
    if heart_averse:
        plays = masks[:, PLAY0 : PLAY0 + 52]
        safe = plays & ~BREAKS_HEARTS
        keep = safe.any(1)
        plays[keep] = safe[keep]
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])


def replay_is_legal(rules, state, plays, viewers, worlds, k):
    """Per world (k per row): replayed on its cards, was every play of its
    row legal?  A fresh game (no passing, the row's dealer) is dealt the
    world's hands at the start of play -- its hands now and every card each
    seat played since -- and its widow, and the row's plays are stepped in
    it, each checked against the rules' legal mask.  The receiver of the
    viewer's pass must have held the cards passed to it."""
    n, batch = rules.num_players, worlds.batch
    src = np.repeat(np.arange(state.batch), k)
    start = worlds.hands.astype(np.int64)
    for w in range(batch):
        for seat, card in plays[src[w]]:
            start[w, seat, card] += 1
    ok = np.ones(batch, bool)
    exchanged = state.pass_dir[src] != NO_PASS
    receiver = (viewers[src] + np.where(state.pass_dir[src] == LEFT, 1, -1)) % n
    passed = state.private[src, viewers[src], :52]  # (ob.PASSED is 0 in the viewer's block)
    ok &= ~exchanged | (start[np.arange(batch), receiver] >= passed).all(1)
    decks = []
    for w in range(batch):
        hands = [DECK.texts_of(np.repeat(np.arange(52), start[w, s])) for s in range(n)]
        decks.append(deal_order(hands, DECK.texts_of(np.repeat(np.arange(52), worlds.widow[w])), state.dealer[src[w]]))
    replay_rules, replay = new_game(n, batch, "none", decks, dealer=state.dealer[src])
    rows = np.arange(batch)
    for t in range(len(plays[0])):
        seats = np.array([plays[i][t][0] for i in src])
        actions = PLAY0 + np.array([plays[i][t][1] for i in src])
        assert np.array_equal(replay.current[ok], seats[ok])  # (the same cards won the same tricks)
        ok &= replay.legal[rows, actions]
        replay_rules.step(replay, np.where(ok, actions, replay.legal.argmax(1)))
    return ok


def test_every_world_makes_the_observed_play_legal():
    """Random positions after the lead rules told something: heart-averse
    play on random deals (with passing, 6 players; without, 7), random play
    on deals whose leader opens with a heart or Black Maria and on the F1
    deal shuffled; at several points of the hand, 24 worlds per row for a random
    viewer, each replayed.  (The lead facts must occur, or the test would
    test nothing.)"""
    rng = np.random.default_rng(11)
    seen = {"hearts only": 0, "opening": 0}
    opening = [opening_deal(rng) if i % 2 else hearts_only_deal(rng) for i in range(16)]
    heavy = [[hearts_heavy_deal(rng, n) if i % 2 else None for i in range(16)] for n in (6, 7)]
    configs = ((6, "left_right", heavy[0], True), (7, "none", heavy[1], True), (6, "none", opening, False))
    for n, passing, decks, averse in configs:
        batch, hand = 16, 104 // n
        rules, state = new_game(n, batch, passing, decks, dealer=n - 1, seed=n)
        tracker, plays = Tracker(rules, batch), [[] for _ in range(batch)]
        for stop in (1, n + 1, 2 * n + 2, hand // 2 * n, (hand - 3) * n + 1, (hand - 2) * n + n // 2, (hand - 1) * n):
            while len(plays[0]) < stop:  # (mid-trick stops: the trick in play's facts too)
                actions = random_actions(state, rng, averse)
                step_logged(rules, state, tracker, actions, plays)
            viewers = rng.integers(0, n, batch)
            worlds = sample_worlds(rules, state, viewers, 24, np.random.default_rng(stop), tracker=tracker)
            assert replay_is_legal(rules, state, plays, viewers, worlds, 24).all()
        for row_plays in plays:
            for _, _, _, kind in hearts_facts(row_plays, n):
                seen[kind] = seen.get(kind, 0) + 1
    assert seen["hearts only"] >= 8 and seen["opening"] >= 8, seen
