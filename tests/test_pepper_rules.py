"""Rule tests for Pepper, written from shared/rules/pepper.md and shared/API.md.

Every test uses a fixed deal (``reset(options={"decks": [...], "dealer": d})``)
and asserts exact outcomes: legal-action sets, trick winners, scores,
rewards, phases, the dealer and the hand number.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from helpers import act, legal, sd, seat

from cardenvs import IllegalActionError, pepper_v0

RANKS = "9TJQKA"
SUITS = "CDHS"
DECK = [r + s for s in SUITS for r in RANKS]  # 9C TC JC QC KC AC 9D .. AS

BIDS_4P = ["bid 1", "bid 2", "bid 3", "bid 4", "bid 5", "bid little", "bid big"]
BIDS_23P = ["bid 1", "bid 2", "bid 3", "bid 4", "bid 5", "bid 6", "bid 7", "bid little", "bid big"]
TRUMP_CHOICES = {"trump C", "trump D", "trump H", "trump S", "trump none"}


# --------------------------------------------------------------------------- helpers
def build_deck(hands, dealer, dead=None):
    """Deck order (top first) that deals ``hands`` (indexed by seat) when
    ``dealer`` deals: one card at a time from seat dealer+1 clockwise; at 2
    players the dead hand sits after the two players."""
    n = len(hands)
    per = 6 if n == 4 else 8
    piles = [list(hands[(dealer + 1 + i) % n]) for i in range(n)]
    if n == 2:
        piles.append(list(dead))
    assert all(len(p) == per for p in piles), "bad test deal: wrong hand size"
    deck = [p[k] for k in range(per) for p in piles]
    assert sorted(deck) == sorted(DECK), "bad test deal: not the 24-card deck"
    return deck


def make_env(hands=None, dealer=0, dead=None, deck=None, more_decks=(), **config):
    if deck is None:
        deck = build_deck(hands, dealer, dead)
    config.setdefault("num_players", len(hands) if hands is not None else 4)
    env = pepper_v0.env(**config)
    env.reset(seed=0, options={"decks": [deck, *more_decks], "dealer": dealer})
    return env


def plays(*cards):
    return {"play " + c for c in cards}


def permute(cards, perm):
    return [c[0] + perm[c[1]] for c in cards]


def autoplay_hand(env):
    """Play the current hand to its end, each seat playing its first legal
    card (only used on deals whose outcome does not depend on the choices)."""
    h = sd(env)["hand_number"]
    while sd(env)["phase"] == "playing" and sd(env)["hand_number"] == h:
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask)[0]))


def final_rewards(env):
    """Each agent's reward reported by ``env.last()`` after the game ended."""
    out = {}
    while env.agents:
        _, rew, term, trunc, _ = env.last()
        assert term and not trunc
        out[env.agent_selection] = rew
        env.step(None)
    return out


def run_script(env, script):
    """Play ``script``: a list of tricks, each ``(winner, [(seat, card, mask)...])``;
    check the acting seat and the exact legal set before every card."""
    for _winner, steps in script:
        for s, card, mask in steps:
            assert seat(env) == s
            assert legal(env) == plays(*mask), (s, card)
            act(env, "play " + card)


# --------------------------------------------------------------------------- deals
# Deal A: 4 players, dealer 3 (seat 0 bids first), trump H when seat 0 names it.
HANDS_A = [
    ["AH", "9H", "AC", "KC", "AS", "TS"],
    ["JD", "9D", "TD", "QC", "9S", "KS"],
    ["JH", "QH", "9C", "TC", "JC", "QS"],
    ["KH", "TH", "AD", "KD", "QD", "JS"],
]
_A_FIRST4 = [
    # trick 1: AH led; seat 1's only trump is the left bower JD (it must play
    # it although it holds diamonds); right bower JH wins.
    (
        2,
        [
            (0, "AH", ["AH", "9H", "AC", "KC", "AS", "TS"]),
            (1, "JD", ["JD"]),
            (2, "JH", ["JH", "QH"]),
            (3, "TH", ["KH", "TH"]),
        ],
    ),
    # trick 2: the winner leads; seat 1 has no trump left (JD was its trump).
    (
        3,
        [
            (2, "QH", ["QH", "9C", "TC", "JC", "QS"]),
            (3, "KH", ["KH"]),
            (0, "9H", ["9H"]),
            (1, "9D", ["9D", "TD", "QC", "9S", "KS"]),
        ],
    ),
    (0, [(3, "JS", ["AD", "KD", "QD", "JS"]), (0, "AS", ["AS", "TS"]), (1, "9S", ["9S", "KS"]), (2, "QS", ["QS"])]),
    (
        0,
        [
            (0, "AC", ["AC", "KC", "TS"]),
            (1, "QC", ["QC"]),
            (2, "TC", ["9C", "TC", "JC"]),
            (3, "QD", ["AD", "KD", "QD"]),
        ],
    ),
]
# Script A: tricks won [3, 1, 1, 1] -> team 0 wins 4, team 1 wins 2.
SCRIPT_A = _A_FIRST4 + [
    (0, [(0, "KC", ["KC", "TS"]), (1, "TD", ["TD", "KS"]), (2, "JC", ["9C", "JC"]), (3, "KD", ["AD", "KD"])]),
    (1, [(0, "TS", ["TS"]), (1, "KS", ["KS"]), (2, "9C", ["9C"]), (3, "AD", ["AD"])]),
]
# Script A2: tricks won [2, 1, 1, 2] -> 3 tricks each side.
SCRIPT_A2 = _A_FIRST4 + [
    (1, [(0, "TS", ["KC", "TS"]), (1, "KS", ["KS"]), (2, "9C", ["9C", "JC"]), (3, "KD", ["AD", "KD"])]),
    (3, [(1, "TD", ["TD"]), (2, "JC", ["JC"]), (3, "AD", ["AD"]), (0, "KC", ["KC"])]),
]


def permute_script(script, perm):
    return [(w, [(s, permute([c], perm)[0], permute(m, perm)) for s, c, m in steps]) for w, steps in script]


def env_a(bid="bid 1", trump="H", perm=None, script=None, **config):
    """Deal A, seat 0 wins the auction with ``bid`` and names ``trump``."""
    perm = perm or {s: s for s in SUITS}
    hands = [permute(h, perm) for h in HANDS_A]
    config.setdefault("max_hands", 1)
    env = make_env(hands, dealer=3, **config)
    act(env, bid)
    if bid != "bid big":  # Big Pepper ends the auction at once
        act(env, "pass", "pass", "pass")
    act(env, "trump " + perm[trump])
    return env


# Colour-preserving suit permutations (the left bower's suit follows the trump's).
PERMS = {
    "trump H": {"C": "C", "D": "D", "H": "H", "S": "S"},
    "trump D": {"C": "C", "D": "H", "H": "D", "S": "S"},
    "trump S": {"C": "D", "D": "C", "H": "S", "S": "H"},
    "trump C": {"C": "H", "D": "S", "H": "C", "S": "D"},
}

# Deal B: 4 players, dealer 2, seat 3 bids first and leads AD.
HANDS_B = [
    ["QD", "TD", "9H", "QS", "QC", "TC"],
    ["JD", "AH", "KH", "9S", "TS", "9C"],
    ["9D", "JH", "QH", "TH", "JS", "JC"],
    ["AD", "KD", "AS", "KS", "AC", "KC"],
]

# Deal C: 4 players, dealer 3, for no-trump.
HANDS_C = [
    ["TD", "AD", "KD", "QD", "9H", "AS"],
    ["JD", "QH", "9C", "TC", "9S", "TS"],
    ["9D", "JH", "JC", "QC", "JS", "QS"],
    ["TH", "AH", "KH", "KC", "AC", "KS"],
]


def hands_top_trumps(holder):
    """4 players: ``holder`` has the six best hearts (all but 9H), so with
    hearts trump that seat wins every trick however anyone plays."""
    rest = [
        ["9H", "9C", "TC", "JC", "QC", "KC"],
        ["AC", "9D", "TD", "QD", "KD", "AD"],
        ["9S", "TS", "JS", "QS", "KS", "AS"],
    ]
    hands = []
    for s in range(4):
        hands.append(["JH", "JD", "AH", "KH", "QH", "TH"] if s == holder else rest.pop(0))
    return hands


# 2-3 players: a seat with all 7 hearts-trumps and AS wins all 8 tricks.
ALL_TRUMPS_H = ["JH", "JD", "AH", "KH", "QH", "TH", "9H", "AS"]
CLUBS_PLUS = ["9C", "TC", "JC", "QC", "KC", "AC", "9D", "TD"]
DIAMONDS_SPADES = ["QD", "KD", "AD", "9S", "TS", "JS", "QS", "KS"]
# No-trump: the 9s and tens lose every trick to JQKA of clubs and diamonds.
LOW = ["9C", "TC", "9D", "TD", "9H", "TH", "9S", "TS"]
HIGH_CD = ["JC", "QC", "KC", "AC", "JD", "QD", "KD", "AD"]
HIGH_HS = ["JH", "QH", "KH", "AH", "JS", "QS", "KS", "AS"]


# =========================================================================== deck and deal
def test_deck_is_24_cards_9_to_ace():
    env = make_env(deck=list(DECK), dealer=0)
    d = sd(env)
    cards = [c for h in d["hands"] for c in h]
    assert sorted(cards) == sorted(DECK)
    assert all(len(h) == 6 for h in d["hands"])


def test_deal_4_players_one_at_a_time_from_dealers_left():
    env = make_env(deck=list(DECK), dealer=1, num_players=4)
    d = sd(env)
    assert sorted(d["hands"][2]) == sorted(DECK[0::4])
    assert sorted(d["hands"][3]) == sorted(DECK[1::4])
    assert sorted(d["hands"][0]) == sorted(DECK[2::4])
    assert sorted(d["hands"][1]) == sorted(DECK[3::4])
    assert d.get("dead_hand", []) == []
    assert d["dealer"] == 1 and d["hand_number"] == 0 and d["phase"] == "bidding"
    assert d["scores"] == [0, 0, 0, 0] and d["done"] is False


def test_deal_3_players_eight_each():
    env = make_env(deck=list(DECK), dealer=0, num_players=3)
    d = sd(env)
    assert sorted(d["hands"][1]) == sorted(DECK[0::3])
    assert sorted(d["hands"][2]) == sorted(DECK[1::3])
    assert sorted(d["hands"][0]) == sorted(DECK[2::3])
    assert d.get("dead_hand", []) == []


@pytest.mark.parametrize("dealer", [0, 1])
def test_deal_2_players_dead_hand_is_third_seat(dealer):
    env = make_env(deck=list(DECK), dealer=dealer, num_players=2)
    d = sd(env)
    first, second = (dealer + 1) % 2, dealer
    assert sorted(d["hands"][first]) == sorted(DECK[0::3])
    assert sorted(d["hands"][second]) == sorted(DECK[1::3])
    assert sorted(d["dead_hand"]) == sorted(DECK[2::3])
    assert d["dealer"] == dealer


def test_build_deck_helper_matches_deal():
    env = make_env(HANDS_A, dealer=3)
    assert [sorted(h) for h in sd(env)["hands"]] == [sorted(h) for h in HANDS_A]


# =========================================================================== bidding
@pytest.mark.parametrize("n, dealer", [(n, d) for n in (2, 3, 4) for d in range(n)])
def test_bidding_starts_left_of_dealer(n, dealer):
    env = make_env(deck=list(DECK), dealer=dealer, num_players=n)
    assert sd(env)["phase"] == "bidding"
    assert seat(env) == (dealer + 1) % n


def test_bid_ladder_4_players():
    env = make_env(HANDS_A, dealer=3)
    assert legal(env) == {"pass", *BIDS_4P}


@pytest.mark.parametrize("n", [2, 3])
def test_bid_ladder_2_and_3_players(n):
    env = make_env(deck=list(DECK), dealer=0, num_players=n)
    assert legal(env) == {"pass", *BIDS_23P}


@pytest.mark.parametrize("i", range(len(BIDS_4P) - 1))
def test_must_bid_higher_4_players(i):
    env = make_env(HANDS_A, dealer=3)
    act(env, BIDS_4P[i])
    assert seat(env) == 1
    assert legal(env) == {"pass", *BIDS_4P[i + 1 :]}


@pytest.mark.parametrize("i", range(len(BIDS_23P) - 1))
def test_must_bid_higher_3_players(i):
    env = make_env(deck=list(DECK), dealer=0, num_players=3)
    act(env, BIDS_23P[i])
    assert seat(env) == 2
    assert legal(env) == {"pass", *BIDS_23P[i + 1 :]}


def test_must_bid_higher_2_players_and_raise_back():
    env = make_env(deck=list(DECK), dealer=0, num_players=2)
    act(env, "bid 3")
    assert seat(env) == 0 and legal(env) == {"pass", *BIDS_23P[3:]}
    act(env, "bid 4")
    assert seat(env) == 1 and legal(env) == {"pass", *BIDS_23P[4:]}
    act(env, "pass")
    d = sd(env)
    assert d["phase"] == "choosing_trump" and d["bid"] == {"seat": 0, "value": "4"}
    assert seat(env) == 0


def test_passed_player_is_out_of_the_auction():
    env = make_env(HANDS_A, dealer=3)
    act(env, "bid 1", "pass", "bid 2", "bid 3")
    assert seat(env) == 0  # seat 1 passed: skipped
    assert legal(env) == {"pass", "bid 4", "bid 5", "bid little", "bid big"}
    act(env, "bid 4")
    assert seat(env) == 2  # seat 1 skipped again
    act(env, "pass")
    assert seat(env) == 3
    act(env, "pass")
    d = sd(env)
    assert d["phase"] == "choosing_trump"
    assert d["bid"] == {"seat": 0, "value": "4"}
    assert seat(env) == 0


def test_partner_may_overcall_partner():
    env = make_env(HANDS_A, dealer=3)
    act(env, "bid 2", "pass")
    assert seat(env) == 2
    assert legal(env) == {"pass", "bid 3", "bid 4", "bid 5", "bid little", "bid big"}
    act(env, "bid 3", "pass")
    assert seat(env) == 0
    act(env, "pass")
    d = sd(env)
    assert d["phase"] == "choosing_trump" and d["bid"] == {"seat": 2, "value": "3"}
    assert seat(env) == 2


def test_auction_ends_when_all_others_passed_after_a_bid():
    env = make_env(HANDS_A, dealer=3)
    act(env, "bid 1", "pass", "pass")
    assert sd(env)["phase"] == "bidding" and seat(env) == 3
    act(env, "pass")
    d = sd(env)
    assert d["phase"] == "choosing_trump" and d["bid"] == {"seat": 0, "value": "1"}
    assert seat(env) == 0


def test_auction_ends_mid_round_when_rest_passed():
    env = make_env(HANDS_A, dealer=3)
    act(env, "pass", "pass", "bid 2", "pass")  # seat 3 passes: only seat 2 remains
    d = sd(env)
    assert d["phase"] == "choosing_trump" and d["bid"] == {"seat": 2, "value": "2"}
    assert seat(env) == 2


def test_big_pepper_ends_auction_at_once():
    env = make_env(HANDS_A, dealer=3)
    act(env, "bid 1", "bid big")
    d = sd(env)
    assert d["phase"] == "choosing_trump"
    assert d["bid"] == {"seat": 1, "value": "big"}
    assert seat(env) == 1


def test_big_pepper_first_bid_ends_auction_3_players():
    env = make_env(deck=list(DECK), dealer=0, num_players=3)
    act(env, "bid big")
    d = sd(env)
    assert d["phase"] == "choosing_trump" and d["bid"] == {"seat": 1, "value": "big"}
    assert seat(env) == 1


def test_stick_dealer_must_bid_when_all_others_passed():
    env = make_env(HANDS_A, dealer=3, all_pass="stick_dealer")
    act(env, "pass", "pass", "pass")
    assert seat(env) == 3
    assert legal(env) == set(BIDS_4P)  # no "pass"
    act(env, "bid 1")  # everyone else passed: the auction is over
    d = sd(env)
    assert d["phase"] == "choosing_trump" and d["bid"] == {"seat": 3, "value": "1"}
    assert seat(env) == 3


def test_stick_dealer_is_default():
    env = make_env(HANDS_A, dealer=3)
    act(env, "pass", "pass", "pass")
    assert legal(env) == set(BIDS_4P)


@pytest.mark.parametrize("n", [2, 3])
def test_stick_dealer_2_and_3_players(n):
    env = make_env(deck=list(DECK), dealer=0, num_players=n)
    act(env, *["pass"] * (n - 1))
    assert seat(env) == 0
    assert legal(env) == set(BIDS_23P)
    act(env, "bid 1")
    d = sd(env)
    assert d["phase"] == "choosing_trump" and d["bid"] == {"seat": 0, "value": "1"}
    assert seat(env) == 0


def test_dealer_may_pass_when_someone_bid():
    env = make_env(HANDS_A, dealer=3)
    act(env, "bid 1", "pass", "pass")
    assert seat(env) == 3
    assert legal(env) == {"pass", *BIDS_4P[1:]}


def test_redeal_everyone_passes_hand_thrown_in():
    deck2 = list(DECK)
    env = make_env(HANDS_A, dealer=3, all_pass="redeal", more_decks=[deck2])
    act(env, "pass", "pass", "pass")
    assert seat(env) == 3
    assert legal(env) == {"pass", *BIDS_4P}  # under "redeal" the dealer may pass
    act(env, "pass")
    d = sd(env)
    assert d["phase"] == "bidding"
    assert d["hand_number"] == 1
    assert d["dealer"] == 0
    assert d["scores"] == [0, 0, 0, 0]
    assert d["done"] is False
    assert seat(env) == 1
    assert env.rewards == {f"player_{i}": 0 for i in range(4)}
    # the next deal uses decks[1], dealt by the new dealer (seat 1 first)
    assert sorted(d["hands"][1]) == sorted(DECK[0::4])
    assert sorted(d["hands"][0]) == sorted(DECK[3::4])


@pytest.mark.parametrize("n", [2, 3])
def test_redeal_2_and_3_players_score_delta(n):
    env = make_env(deck=list(DECK), dealer=0, num_players=n, all_pass="redeal", reward="score_delta")
    act(env, *["pass"] * n)
    d = sd(env)
    assert d["phase"] == "bidding" and d["hand_number"] == 1 and d["dealer"] == 1
    assert d["scores"] == [0] * n and d["done"] is False
    assert seat(env) == 2 % n
    assert env.rewards == {f"player_{i}": 0 for i in range(n)}


# =========================================================================== trump choice, lead
def test_trump_choice_offered_to_winning_bidder():
    env = make_env(HANDS_A, dealer=3)
    act(env, "pass", "bid 2", "pass", "pass")
    assert sd(env)["phase"] == "choosing_trump"
    assert seat(env) == 1
    assert legal(env) == TRUMP_CHOICES


@pytest.mark.parametrize("choice", ["C", "D", "H", "S", "none"])
def test_trump_recorded_and_bidder_leads(choice):
    env = make_env(HANDS_A, dealer=3)
    act(env, "pass", "bid 2", "pass", "pass", "trump " + choice)
    d = sd(env)
    assert d["trump"] == choice
    assert d["phase"] == "playing"
    assert seat(env) == 1  # the bidder (not the player left of the dealer) leads
    assert legal(env) == plays(*HANDS_A[1])  # any card may be led
    assert d["trick"] == [] and d["tricks"] == []


# =========================================================================== play
@pytest.mark.parametrize("perm", list(PERMS.values()), ids=list(PERMS))
def test_script_a_masks_and_trick_winners(perm):
    """Follow suit, left bower forced on a trump lead, right > left > A,
    void may play anything, trick winner leads next (all four trump suits)."""
    script = permute_script(SCRIPT_A, perm)
    env = env_a(perm=perm)
    run_script(env, script)
    d = sd(env)
    assert d["phase"] == "done"
    assert [t["winner"] for t in d["tricks"]] == [w for w, _ in script]
    leaders = [0] + [w for w, _ in script][:-1]
    assert [t["leader"] for t in d["tricks"]] == leaders
    for t, (_, steps) in zip(d["tricks"], script):
        assert t["cards"] == [{"seat": s, "card": c} for s, c, _ in steps]
    assert d["tricks_won"] == [3, 1, 1, 1]


def test_trick_record_during_play_and_next_leader():
    env = env_a()
    act(env, "play AH", "play JD", "play JH")
    d = sd(env)
    assert d["tricks"] == []
    assert d["trick"] == [{"seat": 0, "card": "AH"}, {"seat": 1, "card": "JD"}, {"seat": 2, "card": "JH"}]
    act(env, "play TH")
    d = sd(env)
    assert d["tricks"] == [
        {
            "leader": 0,
            "winner": 2,
            "cards": [
                {"seat": 0, "card": "AH"},
                {"seat": 1, "card": "JD"},
                {"seat": 2, "card": "JH"},
                {"seat": 3, "card": "TH"},
            ],
        }
    ]
    assert d["tricks_won"] == [0, 0, 1, 0]
    assert seat(env) == 2
    assert sorted(d["hands"][2]) == sorted(["QH", "9C", "TC", "JC", "QS"])


@pytest.mark.parametrize("perm", list(PERMS.values()), ids=list(PERMS))
def test_left_bower_beats_ace_of_trumps(perm):
    def p(c):
        return permute([c], perm)[0]

    env = env_a(perm=perm)
    act(env, "play " + p("AH"), "play " + p("JD"))
    assert legal(env) == plays(p("JH"), p("QH"))
    act(env, "play " + p("QH"), "play " + p("KH"))
    t = sd(env)["tricks"][0]
    assert t["winner"] == 1
    assert seat(env) == 1


@pytest.mark.parametrize(
    "trump, masks, cards, winner",
    [
        # hearts trump: JD is a trump, so seat 1 (no other diamond) is void in diamonds
        ("H", [["QD", "TD"], ["JD", "AH", "KH", "9S", "TS", "9C"], ["9D"]], ["TD", "AH", "9D"], 1),
        # diamonds trump: AD led is a trump lead; seat 2 must play a trump (9D or
        # the left bower JH), not a heart; right bower > left bower > ace
        ("D", [["QD", "TD"], ["JD"], ["9D", "JH"]], ["TD", "JD", "JH"], 1),
        ("D", [["QD", "TD"], ["JD"], ["9D", "JH"]], ["TD", "JD", "9D"], 1),
        # no-trump: JD is an ordinary diamond
        ("none", [["QD", "TD"], ["JD"], ["9D"]], ["TD", "JD", "9D"], 3),
        # spades trump: left bower is JC, JD is a plain diamond
        ("S", [["QD", "TD"], ["JD"], ["9D"]], ["QD", "JD", "9D"], 3),
    ],
)
def test_left_bower_is_not_its_printed_suit(trump, masks, cards, winner):
    env = make_env(HANDS_B, dealer=2)
    assert seat(env) == 3
    act(env, "bid 1", "pass", "pass", "pass", "trump " + trump)
    assert seat(env) == 3 and legal(env) == plays(*HANDS_B[3])
    act(env, "play AD")
    for s, mask, card in zip([0, 1, 2], masks, cards):
        assert seat(env) == s
        assert legal(env) == plays(*mask)
        act(env, "play " + card)
    t = sd(env)["tricks"][0]
    assert t["leader"] == 3 and t["winner"] == winner
    assert seat(env) == winner


@pytest.mark.parametrize("perm", list(PERMS.values()), ids=list(PERMS))
def test_left_bower_led_is_a_trump_lead(perm):
    """Seat 3 leads the left bower: seat 0 must follow with a trump (not with
    the bower's printed suit), seat 1 has no trump and may play anything."""

    def p(c):
        return permute([c], perm)[0]

    hands = [
        ["9H", "AD", "KD", "9C", "TC", "JC"],
        ["QD", "TD", "9D", "QC", "KC", "AC"],
        ["JH", "AH", "KH", "QH", "TH", "9S"],
        ["JD", "TS", "JS", "QS", "KS", "AS"],
    ]
    hands = [permute(h, perm) for h in hands]
    env = make_env(hands, dealer=2)  # seat 3 bids first
    act(env, "bid 1", "pass", "pass", "pass", "trump " + perm["H"])
    act(env, "play " + p("JD"))
    assert seat(env) == 0 and legal(env) == plays(p("9H"))
    act(env, "play " + p("9H"))
    assert legal(env) == plays(*hands[1])  # holds diamonds but no trump
    act(env, "play " + p("AC"))
    assert legal(env) == plays(p("JH"), p("AH"), p("KH"), p("QH"), p("TH"))
    act(env, "play " + p("AH"))
    t = sd(env)["tricks"][0]
    assert t["winner"] == 3  # left bower beats the ace of trumps
    assert seat(env) == 3


def test_no_trump_ranking_jack_between_queen_and_ten():
    env = make_env(HANDS_C, dealer=3)
    act(env, "bid 1", "pass", "pass", "pass", "trump none")
    assert sd(env)["trump"] == "none"
    assert legal(env) == plays(*HANDS_C[0])
    act(env, "play TD")
    assert legal(env) == plays("JD")
    act(env, "play JD")
    assert legal(env) == plays("9D")
    act(env, "play 9D")
    assert legal(env) == plays(*HANDS_C[3])  # void in diamonds
    act(env, "play KC")
    assert sd(env)["tricks"][0]["winner"] == 1  # J beats T
    assert seat(env) == 1
    assert legal(env) == plays("QH", "9C", "TC", "9S", "TS")
    act(env, "play QH")
    assert legal(env) == plays("JH")
    act(env, "play JH")  # no bowers in no-trump: JH is just a heart
    assert legal(env) == plays("TH", "AH", "KH")
    act(env, "play TH")
    assert legal(env) == plays("9H")
    act(env, "play 9H")
    t = sd(env)["tricks"][1]
    assert t["leader"] == 1 and t["winner"] == 1  # Q > J > T > 9
    assert sd(env)["tricks_won"] == [0, 2, 0, 0]


def test_no_trump_ace_is_high():
    env = make_env(HANDS_C, dealer=3)
    act(env, "bid 1", "pass", "pass", "pass", "trump none")
    act(env, "play AD", "play JD", "play 9D", "play AH")
    assert sd(env)["tricks"][0]["winner"] == 0


def test_trump_beats_led_suit_even_low_trump():
    """Clubs trump: the 9 of trumps (lowest trump) beats the ace led."""
    hands = [
        ["AD", "KD", "QD", "JD", "TD", "9D"],
        ["9H", "AC", "KC", "QC", "JC", "TC"],
        ["9C", "AS", "KS", "QS", "JS", "TS"],
        ["AH", "KH", "QH", "JH", "TH", "9S"],
    ]
    env = make_env(hands, dealer=3)
    act(env, "bid 1", "pass", "pass", "pass", "trump C")
    act(env, "play AD")
    assert legal(env) == plays(*hands[1])  # void in diamonds
    act(env, "play 9H")
    act(env, "play 9C")  # lowest club = lowest trump
    act(env, "play AH")
    assert sd(env)["tricks"][0]["winner"] == 2
    assert seat(env) == 2


def test_off_suit_card_cannot_win():
    hands = [
        ["9D", "KD", "QD", "JD", "AD", "9C"],
        ["AH", "AC", "KC", "QC", "JC", "TC"],
        ["TD", "AS", "KS", "QS", "JS", "TS"],
        ["9H", "KH", "QH", "JH", "TH", "9S"],
    ]
    env = make_env(hands, dealer=3)
    act(env, "bid 1", "pass", "pass", "pass", "trump S")
    act(env, "play 9D", "play AH")  # seat 1 void in diamonds: an ace of another suit
    assert legal(env) == plays("TD")
    act(env, "play TD", "play 9H")  # an ace of another (non-trump) suit cannot win
    assert sd(env)["tricks"][0]["winner"] == 2


# =========================================================================== scoring
@pytest.mark.parametrize(
    "bid, team0",
    [
        ("bid 1", 4),
        ("bid 3", 4),
        ("bid 4", 4),  # made: 1 point per trick
        ("bid 5", -6),
        ("bid little", -6),  # failed: -6
        ("bid big", -12),  # Big Pepper failed: -12
    ],
)
def test_scoring_4p_bidder_side(bid, team0):
    env = env_a(bid=bid, max_hands=1)
    run_script(env, SCRIPT_A)
    d = sd(env)
    assert d["tricks_won"] == [3, 1, 1, 1]
    assert d["scores"] == [team0, 2, team0, 2]  # non-bidders: 1 per trick


@pytest.mark.parametrize("bid, team0", [("bid 1", 6), ("bid 5", 6), ("bid little", 6), ("bid big", 12)])
def test_scoring_4p_all_tricks(bid, team0):
    env = make_env(hands_top_trumps(0), dealer=3, max_hands=1)
    act(env, bid)
    if bid != "bid big":
        act(env, "pass", "pass", "pass")
    act(env, "trump H")
    autoplay_hand(env)
    d = sd(env)
    assert d["tricks_won"][0] == 6 and sum(d["tricks_won"]) == 6
    assert d["scores"] == [team0, 0, team0, 0]


@pytest.mark.parametrize("bid, team1", [("bid 1", -6), ("bid little", -6), ("bid big", -12)])
def test_scoring_4p_bidder_wins_nothing(bid, team1):
    env = make_env(hands_top_trumps(0), dealer=3, max_hands=1)
    act(env, "pass", bid)
    if bid != "bid big":
        act(env, "pass", "pass")
    act(env, "trump H")
    assert seat(env) == 1
    autoplay_hand(env)
    d = sd(env)
    assert d["tricks_won"] == [6, 0, 0, 0]
    assert d["scores"] == [6, team1, 6, team1]


def test_scoring_4p_partner_bid_team_tricks_count():
    # seat 2 bids 4; seat 0 (partner) takes all 6 tricks: team made, +6.
    env = make_env(hands_top_trumps(0), dealer=3, max_hands=1)
    act(env, "pass", "pass", "bid 4", "pass", "trump H")
    assert seat(env) == 2
    autoplay_hand(env)
    assert sd(env)["scores"] == [6, 0, 6, 0]


@pytest.mark.parametrize("bid, s0", [("bid 1", 8), ("bid 7", 8), ("bid little", 8), ("bid big", 16)])
def test_scoring_3p_made(bid, s0):
    hands = [ALL_TRUMPS_H, CLUBS_PLUS, DIAMONDS_SPADES]
    env = make_env(hands, dealer=2, max_hands=1)
    act(env, bid)
    if bid != "bid big":
        act(env, "pass", "pass")
    act(env, "trump H")
    autoplay_hand(env)
    d = sd(env)
    assert d["tricks_won"] == [8, 0, 0]
    assert d["scores"] == [s0, 0, 0]


@pytest.mark.parametrize("bid, s0", [("bid 1", -8), ("bid little", -8), ("bid big", -16)])
def test_scoring_3p_failed(bid, s0):
    hands = [LOW, HIGH_CD, HIGH_HS]
    env = make_env(hands, dealer=2, max_hands=1)
    act(env, bid)
    if bid != "bid big":
        act(env, "pass", "pass")
    act(env, "trump none", "play 9C")
    autoplay_hand(env)
    d = sd(env)
    assert d["tricks_won"] == [0, 8, 0]
    assert d["scores"] == [s0, 8, 0]


@pytest.mark.parametrize("bid, s1", [("bid 2", 8), ("bid big", 16)])
def test_scoring_2p_made_dead_hand_unused(bid, s1):
    env = make_env([CLUBS_PLUS, ALL_TRUMPS_H], dealer=0, dead=DIAMONDS_SPADES, max_hands=1)
    act(env, bid)
    if bid != "bid big":
        act(env, "pass")
    act(env, "trump H")
    autoplay_hand(env)
    d = sd(env)
    assert d["tricks_won"] == [0, 8]
    assert d["scores"] == [0, s1]
    assert len(d["tricks"]) == 8
    played = {c["card"] for t in d["tricks"] for c in t["cards"]}
    assert played.isdisjoint(DIAMONDS_SPADES)
    assert sorted(d["dead_hand"]) == sorted(DIAMONDS_SPADES)


@pytest.mark.parametrize("bid, s1", [("bid 2", -8), ("bid 7", -8), ("bid big", -16)])
def test_scoring_2p_failed(bid, s1):
    env = make_env([HIGH_CD, LOW], dealer=0, dead=HIGH_HS, max_hands=1)
    act(env, bid)
    if bid != "bid big":
        act(env, "pass")
    act(env, "trump none", "play 9C")
    autoplay_hand(env)
    d = sd(env)
    assert d["tricks_won"] == [8, 0]
    assert d["scores"] == [8, s1]


def test_scores_accumulate_and_deal_passes_on():
    deck2 = list(DECK)
    env = make_env(hands_top_trumps(0), dealer=3, more_decks=[deck2], target_score=30, max_hands=10)
    act(env, "bid 2", "pass", "pass", "pass", "trump H")
    autoplay_hand(env)
    d = sd(env)
    assert d["phase"] == "bidding" and d["done"] is False
    assert d["hand_number"] == 1
    assert d["dealer"] == 0
    assert d["scores"] == [6, 0, 6, 0]
    assert d["tricks_won"] == [0, 0, 0, 0]
    assert seat(env) == 1
    assert sorted(d["hands"][1]) == sorted(DECK[0::4])
    assert env.rewards == {f"player_{i}": 0 for i in range(4)}  # win_loss: nothing yet


# =========================================================================== end of game
def test_game_ends_at_target_partners_share():
    env = make_env(hands_top_trumps(0), dealer=3, target_score=6, max_hands=10)
    act(env, "bid 1", "pass", "pass", "pass", "trump H")
    autoplay_hand(env)
    d = sd(env)
    assert d["phase"] == "done" and d["done"] is True
    assert d["scores"] == [6, 0, 6, 0]
    assert env.rewards == {"player_0": 1, "player_1": -1, "player_2": 1, "player_3": -1}
    assert all(env.terminations.values())
    assert final_rewards(env) == {"player_0": 1, "player_1": -1, "player_2": 1, "player_3": -1}


def test_game_ends_after_second_hand_reaching_target():
    deck2 = build_deck(hands_top_trumps(0), dealer=0)
    env = make_env(hands_top_trumps(0), dealer=3, more_decks=[deck2], target_score=10, max_hands=10)
    act(env, "bid 1", "pass", "pass", "pass", "trump H")
    autoplay_hand(env)
    assert sd(env)["done"] is False and sd(env)["scores"] == [6, 0, 6, 0]
    act(env, "pass", "pass", "pass")
    assert seat(env) == 0 and legal(env) == set(BIDS_4P)  # stuck dealer
    act(env, "bid 1", "trump H")
    autoplay_hand(env)
    d = sd(env)
    assert d["done"] is True and d["phase"] == "done" and d["hand_number"] == 2
    assert d["scores"] == [12, 0, 12, 0]
    assert env.rewards == {"player_0": 1, "player_1": -1, "player_2": 1, "player_3": -1}


def test_both_reach_target_more_points_wins():
    env = env_a(bid="bid 3", target_score=2, max_hands=10)
    run_script(env, SCRIPT_A)
    d = sd(env)
    assert d["done"] is True and d["scores"] == [4, 2, 4, 2]
    assert env.rewards == {"player_0": 1, "player_1": -1, "player_2": 1, "player_3": -1}


def test_both_reach_target_tied_all_win():
    env = env_a(bid="bid 3", target_score=3, max_hands=10)
    run_script(env, SCRIPT_A2)
    d = sd(env)
    assert d["tricks_won"] == [2, 1, 1, 2]
    assert d["done"] is True and d["scores"] == [3, 3, 3, 3]
    assert env.rewards == {f"player_{i}": 1 for i in range(4)}
    assert final_rewards(env) == {f"player_{i}": 1 for i in range(4)}


def test_target_not_reached_game_continues():
    env = env_a(bid="bid 3", target_score=5, max_hands=10)
    run_script(env, SCRIPT_A)
    d = sd(env)
    assert d["done"] is False and d["phase"] == "bidding"
    assert d["scores"] == [4, 2, 4, 2]


def test_max_hands_cut_highest_score_wins():
    env = env_a(bid="bid 3", target_score=30, max_hands=1)
    run_script(env, SCRIPT_A)
    d = sd(env)
    assert d["done"] is True and d["phase"] == "done" and d["hand_number"] == 1
    assert env.rewards == {"player_0": 1, "player_1": -1, "player_2": 1, "player_3": -1}
    assert final_rewards(env) == {"player_0": 1, "player_1": -1, "player_2": 1, "player_3": -1}


def test_max_hands_cut_negative_scores():
    env = env_a(bid="bid 5", target_score=30, max_hands=1)
    run_script(env, SCRIPT_A)
    assert sd(env)["scores"] == [-6, 2, -6, 2]
    assert env.rewards == {"player_0": -1, "player_1": 1, "player_2": -1, "player_3": 1}


def test_max_hands_cut_tie_all_win():
    env = env_a(bid="bid 2", target_score=30, max_hands=1)
    run_script(env, SCRIPT_A2)
    assert sd(env)["scores"] == [3, 3, 3, 3]
    assert env.rewards == {f"player_{i}": 1 for i in range(4)}


def test_max_hands_tie_at_top_3_players():
    hands1 = [ALL_TRUMPS_H, CLUBS_PLUS, DIAMONDS_SPADES]  # dealer 2: seat 0 bids first
    hands2 = [DIAMONDS_SPADES, ALL_TRUMPS_H, CLUBS_PLUS]  # dealer 0: seat 1 bids first
    env = make_env(hands1, dealer=2, more_decks=[build_deck(hands2, 0)], max_hands=2, target_score=30)
    act(env, "bid 1", "pass", "pass", "trump H")
    autoplay_hand(env)
    d = sd(env)
    assert d["scores"] == [8, 0, 0] and d["dealer"] == 0 and d["done"] is False
    assert seat(env) == 1
    act(env, "bid 1", "pass", "pass", "trump H")
    autoplay_hand(env)
    d = sd(env)
    assert d["done"] is True and d["scores"] == [8, 8, 0]
    assert env.rewards == {"player_0": 1, "player_1": 1, "player_2": -1}


def test_target_3_players_single_winner():
    env = make_env([ALL_TRUMPS_H, CLUBS_PLUS, DIAMONDS_SPADES], dealer=2, target_score=8, max_hands=10)
    act(env, "bid 1", "pass", "pass", "trump H")
    autoplay_hand(env)
    assert sd(env)["done"] is True
    assert env.rewards == {"player_0": 1, "player_1": -1, "player_2": -1}


def test_target_2_players():
    env = make_env([HIGH_CD, LOW], dealer=0, dead=HIGH_HS, target_score=8, max_hands=10)
    act(env, "bid 1", "pass", "trump none", "play 9C")
    autoplay_hand(env)
    d = sd(env)
    assert d["done"] is True and d["scores"] == [8, -8]
    assert env.rewards == {"player_0": 1, "player_1": -1}


# =========================================================================== score_delta reward
def test_score_delta_reward_after_hand():
    env = env_a(bid="bid 3", reward="score_delta", max_hands=2)
    run_script(env, SCRIPT_A[:1])
    assert env.rewards == {f"player_{i}": 0 for i in range(4)}
    run_script(env, SCRIPT_A[1:])
    assert sd(env)["done"] is False
    assert env.rewards == {"player_0": 4, "player_1": 2, "player_2": 4, "player_3": 2}


def test_score_delta_reward_failed_bid_final_hand():
    env = env_a(bid="bid 5", reward="score_delta", max_hands=1)
    run_script(env, SCRIPT_A)
    assert sd(env)["done"] is True
    assert env.rewards == {"player_0": -6, "player_1": 2, "player_2": -6, "player_3": 2}
    assert final_rewards(env) == {"player_0": -6, "player_1": 2, "player_2": -6, "player_3": 2}


def test_score_delta_second_hand_is_the_change_not_the_total():
    deck2 = build_deck(hands_top_trumps(0), dealer=0)
    env = make_env(
        hands_top_trumps(0), dealer=3, more_decks=[deck2], reward="score_delta", max_hands=10, target_score=30
    )
    act(env, "bid 1", "pass", "pass", "pass", "trump H")
    autoplay_hand(env)
    assert env.rewards == {"player_0": 6, "player_1": 0, "player_2": 6, "player_3": 0}
    assert seat(env) == 1
    act(env, "bid big", "trump H")  # seat 1 bids Big Pepper and takes nothing
    autoplay_hand(env)
    assert sd(env)["scores"] == [12, -12, 12, -12]
    assert env.rewards == {"player_0": 6, "player_1": -12, "player_2": 6, "player_3": -12}


def test_score_delta_3_players():
    env = make_env([LOW, HIGH_CD, HIGH_HS], dealer=2, reward="score_delta", max_hands=1)
    act(env, "bid big", "trump none", "play 9C")
    autoplay_hand(env)
    assert env.rewards == {"player_0": -16, "player_1": 8, "player_2": 0}


# =========================================================================== illegal actions
def assert_illegal(env, text):
    before = copy.deepcopy(sd(env))
    agent = env.agent_selection
    with pytest.raises(IllegalActionError):
        env.step(env.unwrapped.str_to_action(text))
    assert sd(env) == before
    assert env.agent_selection == agent


def test_illegal_action_error_is_value_error():
    assert issubclass(IllegalActionError, ValueError)


@pytest.mark.parametrize("text", ["bid 2", "bid 3", "trump H", "play AH", "play 9D"])
def test_illegal_in_bidding(text):
    env = make_env(HANDS_A, dealer=3)
    act(env, "bid 3")
    assert_illegal(env, text)
    assert legal(env) == {"pass", "bid 4", "bid 5", "bid little", "bid big"}


@pytest.mark.parametrize("text", ["bid 6", "bid 7"])
def test_bid_6_and_7_illegal_at_4_players(text):
    env = make_env(HANDS_A, dealer=3)
    assert_illegal(env, text)


def test_stuck_dealer_pass_illegal():
    env = make_env(HANDS_A, dealer=3)
    act(env, "pass", "pass", "pass")
    assert_illegal(env, "pass")


@pytest.mark.parametrize("text", ["pass", "bid 1", "play AH"])
def test_illegal_when_choosing_trump(text):
    env = make_env(HANDS_A, dealer=3)
    act(env, "bid 1", "pass", "pass", "pass")
    assert_illegal(env, text)


@pytest.mark.parametrize("text", ["play 9D", "play QC", "play AH", "trump H", "bid 5", "pass"])
def test_illegal_in_play(text):
    env = env_a()
    act(env, "play AH")  # seat 1 must play JD
    assert_illegal(env, text)
    act(env, "play JD")
    assert sd(env)["trick"][-1] == {"seat": 1, "card": "JD"}


@pytest.mark.parametrize("action", [39, -1, 100])
def test_out_of_range_action_id_is_illegal(action):
    env = make_env(HANDS_A, dealer=3)
    before = copy.deepcopy(sd(env))
    with pytest.raises(IllegalActionError):
        env.step(action)
    assert sd(env) == before and seat(env) == 0


def test_illegal_card_not_in_hand_for_leader():
    env = env_a()
    assert_illegal(env, "play JH")  # seat 2's card


# =========================================================================== observation privacy
def _swap(hands, a, ca, b, cb):
    hands = [list(h) for h in hands]
    hands[a][hands[a].index(ca)] = cb
    hands[b][hands[b].index(cb)] = ca
    return hands


def _own_hand_vector(cards):
    v = np.zeros(24, np.float32)
    for c in cards:
        v[SUITS.index(c[1]) * 6 + RANKS.index(c[0])] = 1
    return v


def test_observation_hides_other_hands_4p():
    other = _swap(HANDS_A, 1, "9D", 2, "9C")
    other = _swap(other, 3, "QD", 2, "QS")
    env1 = make_env(HANDS_A, dealer=3)
    env2 = make_env(other, dealer=3)
    steps = ["bid 1", "pass", "pass", "pass", "trump H", "play AH"]
    for i in range(len(steps) + 1):
        o1 = env1.observe("player_0")["observation"]
        o2 = env2.observe("player_0")["observation"]
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(o1[:24], _own_hand_vector(sd(env1)["hands"][0]))
        # sanity: the seats whose hands differ do see the difference
        assert not np.array_equal(
            env1.observe("player_1")["observation"][:24], env2.observe("player_1")["observation"][:24]
        )
        if i < len(steps):
            act(env1, steps[i])
            act(env2, steps[i])


def test_observation_hides_dead_hand_2p():
    hands = [CLUBS_PLUS, ALL_TRUMPS_H]
    env1 = make_env(hands, dealer=0, dead=DIAMONDS_SPADES)
    hands2 = [list(CLUBS_PLUS), list(ALL_TRUMPS_H)]
    dead2 = list(DIAMONDS_SPADES)
    hands2[1][hands2[1].index("AS")], dead2[dead2.index("KS")] = "KS", "AS"
    hands2[1][hands2[1].index("9H")], dead2[dead2.index("QD")] = "QD", "9H"
    env2 = make_env(hands2, dealer=0, dead=dead2)
    for step in [None, "bid 1", "pass", "trump D"]:
        if step:
            act(env1, step)
            act(env2, step)
        o1 = env1.observe("player_0")["observation"]
        o2 = env2.observe("player_0")["observation"]
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(o1[:24], _own_hand_vector(CLUBS_PLUS))
    # the other seat's hand changed, so its own view changed
    assert not np.array_equal(
        env1.observe("player_1")["observation"][:24], env2.observe("player_1")["observation"][:24]
    )
