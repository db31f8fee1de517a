"""Rule tests for Cancellation Hearts, written from
shared/rules/cancellation_hearts.md and shared/API.md.

Every test uses a fixed deal (``reset(options={"decks": [...], "dealer": d})``)
and asserts exact outcomes: legal-action sets, trick winners, cards
collected, points, scores, rewards, phases, the dealer and the hand number.

Most full-hand tests use :func:`scripted_tricks`: a hand where seat 0 leads
(dealer n-1, passing "none") and wins every ordinary trick, built from a few
"special" tricks under test plus single-suit tricks for the remaining cards,
so that every card in the script is legal exactly when it is played.
"""

from __future__ import annotations

import copy
from collections import Counter

import numpy as np
import pytest
from cancellation_hearts_reference import hand_points
from helpers import act, legal, sd, seat

from cardenvs import IllegalActionError, cancellation_hearts_v0
from cardenvs.games.cancellation_hearts import observation as ob

RANKS = "23456789TJQKA"
SUITS = "CDHS"
FULL = [r + s for s in SUITS for r in RANKS] * 2
TYPES = [r + s for s in SUITS for r in RANKS]  # card type order of the card blocks
PRIV, PUB = ob.PRIVATE_AT, ob.PUBLIC_AT


# --------------------------------------------------------------------------- helpers
def rank(card):
    return RANKS.index(card[0])


def build_deck(hands, dealer, widow=()):
    """Deck order (top first) that deals ``hands`` (by seat) when ``dealer``
    deals one card at a time from the dealer's left; the widow last."""
    n = len(hands)
    per = 104 // n
    assert all(len(h) == per for h in hands), [len(h) for h in hands]
    piles = [list(hands[(dealer + 1 + i) % n]) for i in range(n)]
    deck = [piles[i][k] for k in range(per) for i in range(n)] + list(widow)
    assert sorted(deck) == sorted(FULL), "bad test deal: not the 104-card deck"
    return deck


def fill_hands(n, fixed, widow=()):
    """Seat s holds ``fixed[s]``; the other cards are dealt round-robin from a
    sorted deck to the seats that still need cards."""
    per = 104 // n
    rest = Counter(FULL)
    rest.subtract(Counter([c for h in fixed.values() for c in h] + list(widow)))
    assert min(rest.values()) >= 0
    remaining = sorted(rest.elements(), key=lambda c: (SUITS.index(c[1]), rank(c)))
    hands = [list(fixed.get(s, [])) for s in range(n)]
    s = 0
    for c in remaining:
        while len(hands[s % n]) >= per:
            s += 1
        hands[s % n].append(c)
        s += 1
    return hands


def scripted_tricks(n, widow=(), prefix=(), middle=(), final=None, after_suits="CD"):
    """The tricks of a hand, each a list of cards in play order from seat 0:
    ``prefix``, single-suit tricks of clubs and diamonds (``after_suits``),
    ``middle``, the other suits' single-suit tricks (spades before hearts),
    then ``final``.  In each single-suit trick seat 0 plays a card no other
    card of the trick equals or beats, so it wins and leads the next."""
    special = list(widow) + [c for t in (*prefix, *middle, *([final] if final else [])) for c in t]
    rest = Counter(FULL)
    rest.subtract(Counter(special))
    suit_tricks = {}
    for suit in SUITS:
        cards = sorted((c for c in rest.elements() if c[1] == suit), key=rank, reverse=True)
        m, r = divmod(len(cards), n)
        assert r == 0, f"bad script: {len(cards)} {suit} cards left for {n} players"
        leaders, others = cards[:m], cards[m:]
        twins = [c for c in others if c in leaders]  # into the first trick, whose leader is higher
        for c in twins:
            others.remove(c)
        pool = twins + others
        tricks = [[c] for c in leaders]
        for t in tricks:
            while len(t) < n:
                t.append(pool.pop(0))
        suit_tricks[suit] = tricks
    later = [s for s in "SH" + "CD" if s not in after_suits]
    order = (
        list(prefix)
        + [t for s in after_suits for t in suit_tricks[s]]
        + list(middle)
        + [t for s in later for t in suit_tricks[s]]
        + ([final] if final else [])
    )
    assert len(order) == 104 // n
    return order


def scripted_env(n, tricks, widow=(), more_decks=(), **config):
    hands = [[t[s] for t in tricks] for s in range(n)]
    config.setdefault("passing", "none")
    return make_env(
        build_deck(hands, dealer=n - 1, widow=widow), dealer=n - 1, num_players=n, more_decks=more_decks, **config
    )


def make_env(deck, dealer, num_players, more_decks=(), **config):
    env = cancellation_hearts_v0.env(num_players=num_players, **config)
    env.reset(seed=0, options={"decks": [deck, *more_decks], "dealer": dealer})
    return env


def plays(cards):
    return {"play " + c for c in cards}


def play_trick(env, cards, first_seat=0):
    """Play one trick, ``cards`` in play order from ``first_seat``."""
    n = len(env.possible_agents)
    for k, c in enumerate(cards):
        assert seat(env) == (first_seat + k) % n
        act(env, "play " + c)


def obs(env, s):
    return env.observe(f"player_{s}")["observation"]


def card_vector(cards):
    v = np.zeros(52, np.float32)
    for c in cards:
        v[TYPES.index(c)] += 1
    return v


def final_rewards(env):
    out = {}
    while env.agents:
        _, rew, term, trunc, _ = env.last()
        assert term and not trunc
        out[env.agent_selection] = rew
        env.step(None)
    return out


def autoplay_hand(env):
    """Finish the current hand, each seat taking its first legal action."""
    h = sd(env)["hand_number"]
    while not sd(env)["done"] and sd(env)["hand_number"] == h:
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))


# --------------------------------------------------------------------------- scripted deals
# 8 players, no widow: seat 0 wins 12 tricks; the final trick is four
# cancelled pairs, so nobody wins it (its two hearts score for nobody).
UNCLAIMED_LAST = ["TS", "TS", "9H", "9H", "4D", "4D", "2C", "2C"]
# 8 players: seat 0 also wins the final trick (9H led): all 26 hearts and
# both Black Marias.
MOON_FINAL = ["9H", "8H", "TS", "5S", "4D", "3D", "2C", "3C"]
# 8 players: seat 1 discards a Black Maria on a diamond lead, which breaks
# hearts (clubs and diamonds are played before, spades and hearts after).
QS_DISCARD = ["7D", "QS", "4C", "5C", "6C", "7C", "8C", "9C"]
QS_DISCARD_FINAL = ["4D", "9H", "8H", "TS", "2C", "2C", "3C", "3C"]  # no diamond but seat 0's
# 6 players: the seed's double pair (lead TS, 9H, 9H, TS) plus a cancelled
# pair of 5S: no uncancelled spade, nobody wins.
DOUBLE_PAIR = ["TS", "9H", "9H", "TS", "5S", "5S"]
DOUBLE_PAIR_FINAL = ["9S", "3C", "3D", "8S", "7S", "6S"]  # seats 1, 2: no spade left
DOUBLE_PAIR_WIDOW = ["2C", "2D"]
# 6 players with a 2-card widow holding one heart; seat 1 wins the final
# trick (6S over 5S) and the 9H in it.
WIDOW_2H = ["2H", "2C"]
WIDOW_FINAL = ["5S", "6S", "9H", "2C", "5D", "4D"]


# =========================================================================== deck and deal
@pytest.mark.parametrize("n, per, widow", [(6, 17, 2), (7, 14, 6), (8, 13, 0), (9, 11, 5), (10, 10, 4), (11, 9, 5)])
def test_deal_as_far_as_cards_go_evenly(n, per, widow):
    deck = list(np.random.default_rng(n).permutation(FULL))
    dealer = 2
    env = make_env(deck, dealer, n)
    d = sd(env)
    for i in range(n):
        s = (dealer + 1 + i) % n
        assert sorted(d["hands"][s]) == sorted(deck[i : n * per : n])
    assert sorted(d["widow"]) == sorted(deck[n * per :]) and len(d["widow"]) == widow
    assert d["widow_status"] == ("face down" if widow else "none") and d["widow_taken_by"] is None
    assert d["phase"] == "passing" and d["pass_direction"] == "left"
    assert d["dealer"] == dealer and d["hand_number"] == 0 and d["done"] is False
    assert d["scores"] == [0] * n and d["points_taken"] == [0] * n and d["hearts_broken"] is False
    assert seat(env) == dealer + 1


def test_104_card_double_deck():
    env = make_env(sorted(FULL), 0, 8)
    cards = [c for h in sd(env)["hands"] for c in h]
    assert sorted(cards) == sorted(FULL) and Counter(cards)["QS"] == 2 and len(set(cards)) == 52


# =========================================================================== passing
def test_passing_single_cards_in_seat_order_then_exchange_left():
    widow = ["2C", "2D"]
    deck = build_deck(fill_hands(6, {1: ["AH", "AH"], 3: ["QS", "QS"]}, widow), 0, widow)
    env = make_env(deck, 0, 6)
    start = [list(h) for h in sd(env)["hands"]]
    chosen = {}
    for i in range(6):
        s = (1 + i) % 6
        hand = sorted(start[s])
        pair = [c for c in hand if hand.count(c) == 2][:1] * 2  # both copies of one card, where held
        pick = (pair or hand[:2]) + [hand[-1]]
        chosen[s] = pick
        for k, c in enumerate(pick):
            assert seat(env) == s and sd(env)["phase"] == "passing"
            held = Counter(start[s]) - Counter(pick[:k])
            assert legal(env) == {"pass " + x for x in held}
            act(env, "pass " + c)
            d = sd(env)
            if not (i == 5 and k == 2):
                assert sorted(d["passing"][s]) == sorted(pick[: k + 1])
                assert sorted(d["hands"][s]) == sorted((Counter(start[s]) - Counter(pick[: k + 1])).elements())
    d = sd(env)
    assert d["phase"] == "playing" and d["passing"] == [[]] * 6
    for s in range(6):  # hand 1 passes to the left: seat s receives from seat s-1
        want = Counter(start[s]) - Counter(chosen[s]) + Counter(chosen[(s - 1) % 6])
        assert sorted(d["hands"][s]) == sorted(want.elements())
        o = obs(env, s)
        np.testing.assert_array_equal(o[PRIV + ob.PASSED : PRIV + ob.PASSED + 52], card_vector(chosen[s]))
        np.testing.assert_array_equal(o[PRIV + ob.RECEIVED : PRIV + ob.RECEIVED + 52], card_vector(chosen[(s - 1) % 6]))
        assert o[PUB + ob.PASS_DIR + 1] == 1
    assert seat(env) == 1  # the dealer's left leads


def test_pass_choices_hidden_until_the_exchange():
    deck = sorted(FULL)
    a, b = make_env(deck, 0, 6), make_env(deck, 0, 6)
    ha = sd(a)["hands"][1]
    act(a, *["pass " + c for c in ha[:3]])
    act(b, *["pass " + c for c in ha[-3:]])
    for s in range(6):  # everyone but seat 1 sees the same as before
        if s != 1:
            np.testing.assert_array_equal(obs(a, s), obs(b, s))
    o = obs(a, 1)
    np.testing.assert_array_equal(o[PRIV + ob.PASSED : PRIV + ob.PASSED + 52], card_vector(ha[:3]))
    assert not o[PRIV + ob.RECEIVED : PRIV + ob.RECEIVED + 52].any()
    np.testing.assert_array_equal(o[:52], card_vector(sorted(ha[3:])))
    # seat 2 chooses next; its own choices show, and it has received nothing yet
    assert seat(a) == 2
    act(a, "pass " + sd(a)["hands"][2][0])
    assert obs(a, 2)[PRIV + ob.PASSED : PRIV + ob.PASSED + 52].sum() == 1
    assert not obs(a, 2)[PRIV + ob.RECEIVED : PRIV + ob.RECEIVED + 52].any()


def test_second_hand_passes_right():
    deck = sorted(FULL)
    env = make_env(deck, 0, 6, more_decks=[deck], max_hands=3)
    autoplay_hand(env)
    d = sd(env)
    assert d["hand_number"] == 1 and d["dealer"] == 1 and d["phase"] == "passing"
    assert d["pass_direction"] == "right" and seat(env) == 2
    start = [list(h) for h in d["hands"]]
    for i in range(6):
        s = (2 + i) % 6
        act(env, *["pass " + c for c in start[s][:3]])
    d = sd(env)
    for s in range(6):  # seat s receives from seat s+1
        want = Counter(start[s][3:]) + Counter(start[(s + 1) % 6][:3])
        assert sorted(d["hands"][s]) == sorted(want.elements())
    assert obs(env, 0)[PUB + ob.PASS_DIR + 2] == 1
    autoplay_hand(env)
    assert sd(env)["pass_direction"] == "left"  # hand 3


def test_passing_none_starts_play():
    env = make_env(sorted(FULL), 3, 6, passing="none")
    d = sd(env)
    assert d["phase"] == "playing" and d["pass_direction"] == "none" and seat(env) == 4
    assert all(a.startswith("play ") for a in legal(env))
    assert obs(env, 4)[PUB + ob.PASS_DIR] == 1


# =========================================================================== leads
def test_opening_lead_no_heart_no_black_maria():
    hand0 = ["2C", "3C", "4D", "QS", "QS", "AH", "KH", "5S", "6S", "7H", "8D", "9C", "TD"]
    env = make_env(build_deck(fill_hands(8, {0: hand0}), 7), 7, 8, passing="none")
    assert seat(env) == 0
    assert legal(env) == plays(["2C", "3C", "4D", "5S", "6S", "8D", "9C", "TD"])


@pytest.mark.parametrize(
    "hand0",
    [
        ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH", "AH"],
        ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH", "QS"],
        ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "QS", "QS"],
    ],
)
def test_opening_lead_anything_when_only_hearts_and_black_marias(hand0):
    env = make_env(build_deck(fill_hands(8, {0: hand0}), 7), 7, 8, passing="none")
    assert legal(env) == plays(hand0)


def test_hearts_not_led_until_broken_but_black_maria_any_time():
    final = ["QS", "TS", "9H", "9H", "4D", "4D", "2C", "2C"]
    tricks = scripted_tricks(8, final=final)
    env = scripted_env(8, tricks)
    hand0 = [t[0] for t in tricks]
    assert legal(env) == plays([c for c in hand0 if c[1] != "H" and c != "QS"])  # opening lead
    play_trick(env, tricks[0])
    assert sd(env)["taken"][0] and seat(env) == 0 and sd(env)["hearts_broken"] is False
    left = hand0[1:]
    assert "play QS" in legal(env)  # Black Maria may be led after the opening lead
    assert legal(env) == plays([c for c in left if c[1] != "H"])


def test_hearts_broken_by_black_maria_discard_and_void_may_play_anything():
    tricks = scripted_tricks(8, middle=[QS_DISCARD], final=QS_DISCARD_FINAL, after_suits="CD")
    env = scripted_env(8, tricks)
    hands = [[t[s] for t in tricks] for s in range(8)]
    m = tricks.index(QS_DISCARD)
    for t in tricks[:m]:
        play_trick(env, t)
    d = sd(env)
    assert d["hearts_broken"] is False
    assert legal(env) == plays([c for c in d["hands"][0] if c[1] != "H"])
    act(env, "play 7D")
    # seat 1 has no diamond left: it may play any card
    assert legal(env) == plays(hands[1][m:])
    act(env, "play QS")
    d = sd(env)
    assert d["hearts_broken"] is True and obs(env, 2)[PUB + ob.HEARTS_BROKEN] == 1
    for c in QS_DISCARD[2:]:
        act(env, "play " + c)
    assert sd(env)["points_taken"][0] == 13 and seat(env) == 0
    assert legal(env) == plays(sd(env)["hands"][0])  # hearts may be led now
    assert any(c[1] == "H" for c in sd(env)["hands"][0])


def test_hearts_broken_by_a_heart_discard():
    # seat 1 discards 9H on the diamond lead
    middle = ["7D", "9H", "4C", "5C", "6C", "7C", "8C", "9C"]
    final = ["TS", "QS", "8H", "4D", "2C", "2C", "3C", "3C"]
    tricks = scripted_tricks(8, middle=[middle], final=final)
    env = scripted_env(8, tricks)
    m = tricks.index(middle)
    for t in tricks[:m]:
        play_trick(env, t)
    assert sd(env)["hearts_broken"] is False
    act(env, "play 7D", "play 9H")
    assert sd(env)["hearts_broken"] is True


def test_follow_suit():
    tricks = scripted_tricks(8, final=UNCLAIMED_LAST)
    env = scripted_env(8, tricks)
    act(env, "play " + tricks[0][0])
    for s in range(1, 8):
        hand = sd(env)["hands"][s]
        assert legal(env) == plays([c for c in hand if c[1] == "C"])
        act(env, "play " + tricks[0][s])


# =========================================================================== cancellation
def test_cancelled_pair_next_highest_wins():
    trick = ["5C", "KC", "KC", "QC", "2C", "3C", "4C", "6C"]
    env = make_env(build_deck(fill_hands(8, {s: [c] for s, c in enumerate(trick)}), 7), 7, 8, passing="none")
    play_trick(env, trick[:3])
    d = sd(env)
    assert [t["cancelled"] for t in d["trick"]] == [False, True, True]
    o = obs(env, 5)
    np.testing.assert_array_equal(o[PUB + ob.CANCELLED : PUB + ob.CANCELLED + 11], [0, 1, 1] + [0] * 8)
    # position 1 holds KC: clubs one-hot and the king's rank
    block = o[PUB + ob.TRICK + 17 : PUB + ob.TRICK + 34]
    assert block[0] == 1 and block[4 + RANKS.index("K")] == 1 and block.sum() == 2
    play_trick(env, trick[3:], first_seat=3)
    d = sd(env)
    assert sorted(d["taken"][3]) == sorted(trick) and d["tricks_played"] == 1
    assert seat(env) == 3 and d["leader"] == 3 and d["trick"] == []
    assert obs(env, 0)[PUB + ob.CANCELLED : PUB + ob.CANCELLED + 11].sum() == 0


def test_double_pair_nobody_wins_next_winner_collects():
    tricks = scripted_tricks(
        6, widow=DOUBLE_PAIR_WIDOW, middle=[DOUBLE_PAIR], final=DOUBLE_PAIR_FINAL, after_suits="CDS"
    )
    env = scripted_env(6, tricks, widow=DOUBLE_PAIR_WIDOW)
    m = tricks.index(DOUBLE_PAIR)
    for t in tricks[:m]:
        play_trick(env, t)
    before = sd(env)["points_taken"]
    play_trick(env, DOUBLE_PAIR)
    d = sd(env)
    assert sorted(d["carried"]) == sorted(DOUBLE_PAIR)
    assert d["points_taken"] == before and d["tricks_played"] == m + 1
    assert seat(env) == 0 and d["leader"] == 0  # the unclaimed trick's leader leads again
    o = obs(env, 3)
    assert o[PUB + ob.CARRIED_POINTS] == 2 and o[PUB + ob.CARRIED_CARDS] == 6
    nxt = tricks[m + 1]
    play_trick(env, nxt)
    d = sd(env)
    assert d["carried"] == []
    assert d["points_taken"][0] == before[0] + 2 + hand_points(nxt)
    assert Counter(DOUBLE_PAIR + nxt) <= Counter(d["taken"][0])
    assert obs(env, 3)[PUB + ob.CARRIED_POINTS] == 0


def test_unclaimed_last_trick_goes_to_nobody():
    tricks = scripted_tricks(8, final=UNCLAIMED_LAST)
    env = scripted_env(8, tricks, max_hands=1)
    for t in tricks:
        play_trick(env, t)
    d = sd(env)
    assert sorted(d["uncollected"]) == sorted(UNCLAIMED_LAST)
    assert d["points_taken"] == [50] + [0] * 7 and d["scores"] == [50] + [0] * 7
    assert d["done"] is True and d["winners"] == list(range(1, 8))
    assert final_rewards(env) == {"player_0": -1, **{f"player_{s}": 1 for s in range(1, 8)}}


def test_unclaimed_pile_carried_into_unclaimed_last_trick_goes_to_nobody():
    # 7 players: the last two tricks both have a cancelled spade pair and
    # only other suits besides; the widow (one heart) goes to seat 0
    widow = ["7S", "2H", "2D", "4C", "5C", "6C"]
    penultimate = ["JS", "JS", "8H", "8H", "5D", "5D", "3C"]
    final = ["TS", "TS", "9H", "9H", "4D", "4D", "2C"]
    tricks = scripted_tricks(7, widow=widow, middle=[penultimate], final=final, after_suits="CDSH")
    assert tricks[-2] == penultimate
    env = scripted_env(7, tricks, widow=widow, max_hands=1)
    for t in tricks[:-1]:
        play_trick(env, t)
    d = sd(env)
    assert sorted(d["carried"]) == sorted(penultimate) and seat(env) == 0
    play_trick(env, final)
    d = sd(env)
    assert sorted(d["uncollected"]) == sorted(penultimate + final) and d["carried"] == []
    assert d["widow_taken_by"] == 0
    assert d["scores"] == [48] + [0] * 6  # 22 hearts (one from the widow) and 2 Black Marias


# =========================================================================== widow
def test_widow_to_first_trick_winner_and_scored():
    tricks = scripted_tricks(6, widow=WIDOW_2H, final=WIDOW_FINAL)
    env = scripted_env(6, tricks, widow=WIDOW_2H, max_hands=1)
    assert sd(env)["widow_status"] == "face down" and obs(env, 0)[PUB + ob.WIDOW_WAITING] == 1
    play_trick(env, tricks[0])
    d = sd(env)
    assert d["widow_status"] == "taken" and d["widow_taken_by"] == 0 and sorted(d["widow"]) == sorted(WIDOW_2H)
    assert d["points_taken"] == [1, 0, 0, 0, 0, 0]  # the widow's 2H
    for s in range(6):  # taken face down: its point is not shown, its taker is
        o = obs(env, s)
        assert o[PRIV + ob.POINTS : PRIV + ob.POINTS + 11].sum() == 0
        assert o[PRIV + ob.WIDOW_HOLDER + (0 - s) % 6] == 1 and o[PUB + ob.WIDOW_WAITING] == 0
    for t in tricks[1:]:
        play_trick(env, t, first_seat=0)
    d = sd(env)
    # seat 0: 24 hearts in tricks + 2 Black Marias + the widow's heart; seat 1 the final 9H
    assert d["scores"] == [51, 1, 0, 0, 0, 0]


def test_widow_stays_with_unclaimed_first_trick():
    first = ["5C", "5C", "4C", "4C", "3C", "3C"]
    final = ["5S", "6S", "9H", "2C", "5D", "4D"]
    tricks = scripted_tricks(6, widow=WIDOW_2H, prefix=[first], final=final)
    env = scripted_env(6, tricks, widow=WIDOW_2H)
    play_trick(env, first)
    d = sd(env)
    assert d["widow_status"] == "face down" and sorted(d["carried"]) == sorted(first)
    assert seat(env) == 0 and d["points_taken"] == [0] * 6
    play_trick(env, tricks[1])
    d = sd(env)
    assert d["widow_taken_by"] == 0 and d["points_taken"][0] == 1
    assert Counter(first + tricks[1]) == Counter(d["taken"][0])


def test_observation_never_shows_the_widow():
    deck = sorted(FULL)
    other = list(deck)
    # swap a widow card (deck[102]) with a card dealt to seat 3 (position 1 with dealer 0 ... seat 2)
    i = next(k for k in range(102) if k % 6 == 2 and deck[k] != deck[102])
    other[i], other[102] = other[102], other[i]
    a, b = make_env(deck, 0, 6), make_env(other, 0, 6)
    assert sd(a)["widow"] != sd(b)["widow"]
    for s in (0, 1, 2, 4, 5):
        np.testing.assert_array_equal(obs(a, s), obs(b, s))
    assert not np.array_equal(obs(a, 3), obs(b, 3))


# =========================================================================== moon
@pytest.mark.parametrize("choice, scores", [("moon self", [-26] + [0] * 7), ("moon others", [0] + [26] * 7)])
def test_shoot_the_moon_choice(choice, scores):
    tricks = scripted_tricks(8, final=MOON_FINAL)
    env = scripted_env(8, tricks, max_hands=1)
    for t in tricks:
        play_trick(env, t)
    d = sd(env)
    assert d["phase"] == "moon_choice" and d["moon_shooter"] == 0 and d["points_taken"][0] == 52
    assert seat(env) == 0 and legal(env) == {"moon self", "moon others"}
    assert obs(env, 0)[PUB + ob.PHASE + 2] == 1
    assert d["scores"] == [0] * 8 and d["done"] is False
    act(env, choice)
    d = sd(env)
    assert d["scores"] == scores and d["done"] is True and d["winners"] == [0]
    assert final_rewards(env) == {"player_0": 1, **{f"player_{s}": -1 for s in range(1, 8)}}


@pytest.mark.parametrize("choice, rewards", [("moon self", [26] + [0] * 7), ("moon others", [0] + [-26] * 7)])
def test_shoot_the_moon_score_delta_and_next_hand(choice, rewards):
    tricks = scripted_tricks(8, final=MOON_FINAL)
    env = scripted_env(8, tricks, reward="score_delta", more_decks=[sorted(FULL)])
    for t in tricks:
        play_trick(env, t)
    assert env.rewards == {f"player_{s}": 0 for s in range(8)}
    act(env, choice)
    assert env.rewards == {f"player_{s}": rewards[s] for s in range(8)}
    d = sd(env)
    assert d["hand_number"] == 1 and d["dealer"] == 0 and d["phase"] == "playing" and seat(env) == 1


def test_moon_phase_rejects_plays():
    tricks = scripted_tricks(8, final=MOON_FINAL)
    env = scripted_env(8, tricks)
    for t in tricks:
        play_trick(env, t)
    assert_illegal(env, "play 2C")
    assert_illegal(env, "pass 2C")


def test_no_moon_without_every_heart():
    tricks = scripted_tricks(8, final=UNCLAIMED_LAST)  # seat 0 takes 24 hearts and both Black Marias
    env = scripted_env(8, tricks)
    for t in tricks:
        play_trick(env, t)
    d = sd(env)
    assert d["phase"] == "playing" and d["hand_number"] == 1 and d["scores"] == [50] + [0] * 7


# =========================================================================== scoring and game end
def test_scores_accumulate_deal_rotates_and_target_ends_game():
    tricks = scripted_tricks(8, final=UNCLAIMED_LAST)
    hands = [[t[s] for t in tricks] for s in range(8)]
    # hand 2 (dealer 0, seat 1 leads): the same cards shifted one seat clockwise
    deck2 = build_deck([hands[(s - 1) % 8] for s in range(8)], dealer=0)
    env = scripted_env(8, tricks, more_decks=[deck2], target_score=60)
    for t in tricks:
        play_trick(env, t)
    d = sd(env)
    assert d["scores"] == [50] + [0] * 7 and d["done"] is False and d["hand_number"] == 1
    assert d["dealer"] == 0 and seat(env) == 1 and d["points_taken"] == [0] * 8
    assert env.rewards == {f"player_{s}": 0 for s in range(8)}
    for t in tricks:
        play_trick(env, t, first_seat=1)
    d = sd(env)
    assert d["scores"] == [50, 50, 0, 0, 0, 0, 0, 0] and d["done"] is False  # 60 not reached
    assert d["dealer"] == 1 and d["hand_number"] == 2


def test_target_reached_lowest_total_wins_ties_all_win():
    tricks = scripted_tricks(8, final=UNCLAIMED_LAST)
    env = scripted_env(8, tricks, target_score=50)
    for t in tricks:
        play_trick(env, t)
    d = sd(env)
    assert d["done"] is True and d["phase"] == "done" and d["winners"] == list(range(1, 8))
    assert env.rewards == {"player_0": -1, **{f"player_{s}": 1 for s in range(1, 8)}}


def test_score_delta_reward_is_minus_the_hand_points():
    tricks = scripted_tricks(6, widow=WIDOW_2H, final=WIDOW_FINAL)
    env = scripted_env(6, tricks, widow=WIDOW_2H, reward="score_delta", max_hands=1)
    for t in tricks:
        play_trick(env, t)
    assert env.rewards == {"player_0": -51, "player_1": -1, **{f"player_{s}": 0 for s in range(2, 6)}}
    assert sd(env)["done"] is True


# =========================================================================== errors and texts
def assert_illegal(env, text):
    before = copy.deepcopy(sd(env))
    agent = env.agent_selection
    with pytest.raises(IllegalActionError):
        env.step(env.unwrapped.str_to_action(text))
    assert sd(env) == before and env.agent_selection == agent


def test_illegal_actions_change_nothing():
    tricks = scripted_tricks(8, final=UNCLAIMED_LAST)
    env = scripted_env(8, tricks)
    assert_illegal(env, "pass " + tricks[0][0])  # no passing at passing="none"
    assert_illegal(env, "play 2C")  # only seats 6 and 7 hold 2C
    assert_illegal(env, "moon self")
    act(env, "play " + tricks[0][0])
    assert_illegal(env, "play " + [t[1] for t in tricks if t[1][1] != "C"][0])  # must follow clubs
    env2 = make_env(sorted(FULL), 0, 6)
    assert_illegal(env2, "play " + sd(env2)["hands"][1][0])  # passing phase
    for bad in (106, -1):
        before = copy.deepcopy(sd(env2))
        with pytest.raises(IllegalActionError):
            env2.step(bad)
        assert sd(env2) == before


def test_action_texts():
    raw = cancellation_hearts_v0.raw_env()
    assert raw.action_space("player_0").n == 106
    assert [raw.action_to_str(a) for a in (0, 51, 52, 103, 104, 105)] == [
        "pass 2C",
        "pass AS",
        "play 2C",
        "play AS",
        "moon self",
        "moon others",
    ]
    assert raw.str_to_action("play 7H") == 52 + 13 * 2 + 5
    assert all(raw.str_to_action(raw.action_to_str(a)) == a for a in range(106))
    with pytest.raises(ValueError):
        raw.str_to_action("play 1H")


@pytest.mark.parametrize(
    "bad",
    [
        {"num_players": 5},
        {"num_players": 12},
        {"target_score": 0},
        {"max_hands": 0},
        {"reward": "points"},
        {"passing": "across"},
        {"num_players": True},
    ],
)
def test_bad_config_raises_naming_the_option(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        cancellation_hearts_v0.env(**bad)


def test_malformed_decks_raise():
    env = cancellation_hearts_v0.env()
    deck = sorted(FULL)
    for bad in (deck[:-1], deck[:-1] + ["AS"], deck[:-1] + ["XX"], deck[:52]):
        with pytest.raises(ValueError):
            env.reset(seed=0, options={"decks": [bad]})


def test_render_shows_cancelled_cards():
    trick = ["5C", "KC", "KC", "QC", "2C", "3C", "4C", "6C"]
    deck = build_deck(fill_hands(8, {s: [c] for s, c in enumerate(trick)}), 7)
    env = cancellation_hearts_v0.env(num_players=8, passing="none", render_mode="ansi")
    env.reset(seed=0, options={"decks": [deck], "dealer": 7})
    play_trick(env, trick[:3])
    text = env.render()
    assert "player_1 KC (cancelled)" in text and "player_0 5C," in text and "phase playing" in text
