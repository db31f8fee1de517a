"""Rule tests for Push, written from shared/rules/push.md and the action
texts of cardenvs.games.push.env.

Every test uses a fixed deal (``reset(options={"decks": [...], "dealer": 3})``
so seat 0 receives the first card and plays first) and asserts exact
outcomes: legal actions, hands, melds, scores and rewards.
"""

from __future__ import annotations

from collections import Counter

import pytest
from helpers import act, legal, sd

from cardenvs import IllegalActionError, push_v0

FULL = [r + s for s in "CDHS" for r in "23456789TJQKA"] * 2 + ["JK"] * 4
VALUES = {**{r: 5 for r in "3456789"}, **{r: 10 for r in "TJQK"}, "A": 15, "2": 20}


def value(cards):
    return sum(20 if c == "JK" else VALUES[c[0]] for c in cards)


# --------------------------------------------------------------------------- helpers
def build_deck(hands, upcard="9S", stock=(), dealer=3, before_upcard=()):
    """A 108-card deck (top first) dealing ``hands`` (by seat) one card at a
    time from the dealer's left, then ``before_upcard`` (wilds to be
    buried), the upcard, then ``stock`` on top of the rest of the stock."""
    per = len(hands[0])
    assert all(len(h) == per for h in hands)
    deck = [hands[(dealer + 1 + i) % 4][k] for k in range(per) for i in range(4)]
    deck += list(before_upcard) + [upcard] + list(stock)
    rest = Counter(FULL) - Counter(deck)
    assert not Counter(deck) - Counter(FULL), "bad test deal: too many copies"
    # naturals first, so the stock's top cards are predictable and not wild
    filler = sorted(rest.elements(), key=lambda c: (c == "JK" or c[0] == "2", c[1:], c))
    return deck + filler


def make(round_no, hands, upcard="9S", stock=(), before_upcard=(), **config):
    env = push_v0.env(rounds=[round_no], **config)
    env.reset(seed=0, options={"decks": [build_deck(hands, upcard, stock, 3, before_upcard)], "dealer": 3})
    return env


def declares(env):
    return {t for t in legal(env) if t.startswith(("set ", "run "))}


def rewards(env):
    return [env.unwrapped._cumulative_rewards[f"player_{i}"] for i in range(4)]


# Three disjoint pools of unrelated cards (no hearts, no wilds, no two of a
# rank, no three in sequence) for seats that only draw and discard.
QUIET = (
    ["3C", "4D", "6S", "9C", "TD", "QS", "5C", "7D", "8S", "JC"],
    ["3D", "5S", "7C", "9D", "JS", "KC", "4C", "6D", "8C", "TS"],
    ["3S", "4S", "6C", "8D", "TC", "QD", "5D", "7S", "9S", "JD"],
)


def quiet(n, k=0):
    """The first n cards of quiet pool k."""
    return QUIET[k][:n]


def lay_set(env, rank, suits, wilds=()):
    act(env, f"set {rank}", *[f"add {x}" for x in suits], *[f"add {w}" for w in wilds], "end set")


def ace_env(hand, round_no=3, upcard="9C", stock=()):
    n = 5 + round_no
    return make(round_no, [hand, quiet(n, 0), quiet(n, 1), quiet(n, 2)], upcard=upcard, stock=stock)


# --------------------------------------------------------------------------- deal
def test_deal_upcard_and_first_player():
    env = make(1, [["7C", "7D", "7H", "8C", "8D", "8H"], quiet(6, 0), quiet(6, 1), quiet(6, 2)], upcard="9S")
    s = sd(env)
    assert sorted(s["hands"][0]) == sorted(["7C", "7D", "7H", "8C", "8D", "8H"])
    assert sorted(s["hands"][1]) == sorted(quiet(6, 0))
    assert s["discard"] == ["9S"]
    assert s["stock_size"] == 108 - 24 - 1 == len(s["stock"])
    assert s["current_player"] == 0 and s["phase"] == "draw" and s["round"] == 1
    assert legal(env) == {"take", "push"}


def test_wild_upcard_is_buried():
    hands = [quiet(6, 0), quiet(6, 1), quiet(6, 2), ["7C", "7D", "7H", "8C", "8D", "8H"]]
    env = make(1, hands, upcard="9S", before_upcard=["JK", "2H"], stock=["KC"])
    s = sd(env)
    assert s["discard"] == ["9S"]
    assert s["stock"][0] == "KC"
    assert s["stock"][-2:] == ["JK", "2H"]  # buried at the bottom, in the order turned
    assert s["stock_size"] == 108 - 24 - 1


# --------------------------------------------------------------------------- draws
def test_push_gives_two_cards_to_the_left_hand_player():
    env = make(
        1,
        [quiet(6, 0), quiet(6, 1), quiet(6, 2), ["7C", "7D", "7H", "8C", "8D", "8H"]],
        upcard="9S",
        stock=["KC", "QH", "AS"],
    )
    before = sd(env)
    act(env, "push")
    s = sd(env)
    assert Counter(s["hands"][1]) - Counter(before["hands"][1]) == Counter(["KC", "9S"])
    assert len(s["hands"][1]) == 8
    assert Counter(s["hands"][0]) - Counter(before["hands"][0]) == Counter(["QH"])
    assert s["hands"][2] == before["hands"][2] and s["hands"][3] == before["hands"][3]
    assert s["discard"] == [] and s["stock"][0] == "AS" and s["stock_size"] == before["stock_size"] - 2
    assert s["current_player"] == 0 and s["phase"] == "meld"  # the pusher plays on; seat 1 did not act
    act(env, "discard QH")
    assert sd(env)["current_player"] == 1 and sd(env)["discard"] == ["QH"]


def test_take_the_discard():
    env = make(1, [quiet(6, 0), quiet(6, 1), quiet(6, 2), quiet(6, 0)], upcard="9S")
    act(env, "take")
    s = sd(env)
    assert "9S" in s["hands"][0] and len(s["hands"][0]) == 7 and s["discard"] == []
    assert s["stock_size"] == 83
    assert legal(env) == {f"discard {c}" for c in s["hands"][0]}  # no contract possible: discard only


# --------------------------------------------------------------------------- contracts
def test_round1_two_sets_accepted_and_going_out_by_discard():
    hands = [["7C", "7D", "7H", "8C", "8D", "8H"], ["KC", "KD", "3S", "4S", "5H", "JK"], quiet(6, 1), quiet(6, 2)]
    env = make(1, hands, upcard="9S")
    act(env, "take")
    assert declares(env) == {"set 7", "set 8"}
    act(env, "set 7", "add C", "add D", "add H")
    assert "end set" in legal(env)
    act(env, "end set")
    s = sd(env)
    assert s["in_contract"] and not s["contract_done"][0]
    # the contract is laid in one turn: no discard until it is complete
    assert not any(t.startswith("discard") for t in legal(env))
    with pytest.raises(IllegalActionError):
        act(env, "discard 9S")
    assert declares(env) == {"set 8"}
    lay_set(env, "8", "CDH")
    s = sd(env)
    assert s["contract_done"] == [True, False, False, False]
    assert [m["cards"] for m in s["melds"]] == [["7C", "7D", "7H"], ["8C", "8D", "8H"]]
    assert [m["owner"] for m in s["melds"]] == [0, 0]
    act(env, "discard 9S")  # last card: out by discard; the one-round game ends
    s = sd(env)
    assert s["done"] and s["went_out"] == 0
    other = value(hands[1]) + value(hands[3])
    assert s["scores"] == [0, other, 0, other]
    assert rewards(env) == [1, -1, 1, -1]


def test_round1_rejected_with_one_set_only():
    env = make(1, [["7C", "7D", "7H", "8C", "8D", "9H"], quiet(6, 0), quiet(6, 1), quiet(6, 2)], upcard="QS")
    act(env, "take")
    assert declares(env) == set()
    with pytest.raises(IllegalActionError):
        act(env, "set 7")


def test_round1_with_wilds_and_longer_sets_out_by_meld():
    hands = [["7C", "7D", "JK", "8C", "8D", "2H"], quiet(6, 0), quiet(6, 1), quiet(6, 2)]
    env = make(1, hands, upcard="7S", reward="score_delta")
    act(env, "take")
    assert declares(env) == {"set 7", "set 8"}
    act(env, "set 7")
    # the first card of a set is a natural
    assert {t for t in legal(env) if t.startswith("add")} == {"add C", "add D", "add S"}
    act(env, "add C", "add D", "add S", "add JK", "end set", "set 8", "add C", "add D", "add 2H", "end set")
    s = sd(env)
    assert s["done"] and s["went_out"] == 0 and s["hands"][0] == []  # out by melding, no discard
    assert s["melds"][0]["cards"] == ["7C", "7D", "7S", "JK"] and s["melds"][0]["ranks"] == list("7777")
    pen = value(quiet(6, 0)) + value(quiet(6, 2))
    assert s["scores"] == [0, pen, 0, pen]
    assert rewards(env) == [0, -pen, 0, -pen]


def test_round1_reserves_wilds_for_the_second_set():
    hands = [["7C", "7D", "8C", "8D", "8H", "JK"], quiet(6, 0), quiet(6, 1), quiet(6, 2)]
    env = make(1, hands, upcard="QS")
    act(env, "take")
    assert declares(env) == {"set 7", "set 8"}
    act(env, "set 8", "add C", "add D")
    # the joker here would leave 7C 7D alone: only the third 8 is offered
    assert {t for t in legal(env) if t.startswith(("add", "end"))} == {"add H"}


def test_round2_set_and_run_of_four():
    hands = [["5H", "6H", "7H", "8H", "QC", "QD", "QS"], quiet(7, 0), quiet(7, 1), quiet(7, 2)]
    env = make(2, hands, upcard="3C")
    act(env, "take")
    assert declares(env) == {"set Q"}  # the set comes first
    lay_set(env, "Q", "CDS")
    assert declares(env) == {"run H 5-8"}
    act(env, "run H 5-8", "fill nat", "fill nat", "fill nat", "fill nat")
    s = sd(env)
    assert s["contract_done"][0]
    assert s["melds"][1] == {
        "owner": 0,
        "kind": "run",
        "complete": True,
        "cards": ["5H", "6H", "7H", "8H"],
        "ranks": list("5678"),
        "suit": "H",
        "positions": [4, 5, 6, 7],
        "span": [4, 7],
    }
    assert legal(env) == {"discard 3C"}


def test_round2_run_too_short_is_rejected():
    hands = [["5H", "6H", "7H", "9C", "QC", "QD", "QS"], quiet(7, 0), quiet(7, 1), quiet(7, 2)]
    env = make(2, hands, upcard="3C")
    act(env, "take")
    assert declares(env) == set()  # a run of 3 does not make the contract


def test_round2_set_and_run_share_a_card_type():
    # Q set = QS QH JK (the only 3 cards of rank Q or wild) leaves T J _ K: no contract
    hands = [["QH", "QS", "JK", "TH", "JH", "KH", "3D"], quiet(7, 0), quiet(7, 1), quiet(7, 2)]
    env = make(2, hands, upcard="4C")
    act(env, "take")
    assert declares(env) == set()
    # one more wild: QS JK 2C + TH JH QH KH, or 4C JK 2C + the run
    hands[0] = ["QH", "QS", "JK", "TH", "JH", "KH", "2C"]
    env = make(2, hands, upcard="4C")
    act(env, "take")
    assert declares(env) == {"set Q", "set 4"}
    act(env, "set Q", "add S")
    assert {t for t in legal(env) if t.startswith("add")} == {"add H", "add JK", "add 2C"}
    act(env, "add H", "add JK")
    # QS QH JK: the 2C must stay for the run's Q
    assert {t for t in legal(env) if t.startswith(("add", "end"))} == {"end set"}


def test_round3_two_runs_and_wrong_kind_rejected():
    hands = [["3S", "4S", "5S", "6S", "9D", "TD", "JD", "QD"], quiet(8, 0), quiet(8, 1), quiet(8, 2)]
    env = make(3, hands, upcard="KC")
    act(env, "take")
    assert declares(env) == {"run S 3-6", "run D 9-Q"}
    act(env, "run D 9-Q", "fill nat", "fill nat", "fill nat", "fill nat")
    assert declares(env) == {"run S 3-6"}
    act(env, "run S 3-6", *["fill nat"] * 4)
    assert sd(env)["contract_done"][0]
    # two sets are not the round-3 contract
    env = make(
        3, [["3S", "3D", "3H", "9D", "9S", "9C", "QH", "KH"], quiet(8, 0), quiet(8, 1), quiet(8, 2)], upcard="KC"
    )
    act(env, "take")
    assert declares(env) == set()


def test_round3_runs_of_one_suit_share_cards():
    # 3H..7H + JK: two runs of 4 in hearts need 8 cards: only 6 here
    hands = [["3H", "4H", "5H", "6H", "7H", "JK", "2C", "KC"], quiet(8, 0), quiet(8, 1), quiet(8, 2)]
    env = make(3, hands, upcard="QD")
    act(env, "take")
    assert declares(env) == set()
    # with a second 4H 5H 6H: 3 4 4 5 5 6 6 7 + JK make two runs of 4 in hearts
    hands = [["3H", "4H", "5H", "6H", "4H", "5H", "6H", "JK"], quiet(8, 0), quiet(8, 1), quiet(8, 2)]
    env = make(3, hands, upcard="7H")
    act(env, "take")
    assert declares(env) == {"run H 2-5", "run H 3-6", "run H 4-7", "run H 5-8", "run H 2-6", "run H 3-7", "run H 4-8"}
    act(env, "run H 3-6", *["fill nat"] * 4)
    # left: 4H 5H 6H 7H JK
    assert declares(env) == {"run H 3-6", "run H 4-7", "run H 5-8", "run H 3-7", "run H 4-8"}


def test_round4_three_sets():
    hands = [["4C", "4D", "4H", "9C", "9D", "9H", "KC", "KD", "KS"], quiet(9, 0), quiet(9, 1), quiet(9, 2)]
    env = make(4, hands, upcard="6D")
    act(env, "take")
    assert declares(env) == {"set 4", "set 9", "set K"}
    lay_set(env, "4", "CDH")
    lay_set(env, "K", "CDS")
    assert declares(env) == {"set 9"}
    lay_set(env, "9", "CDH")
    assert sd(env)["contract_done"][0] and legal(env) == {"discard 6D"}
    # two sets are not enough in round 4
    env = make(
        4, [["4C", "4D", "4H", "9C", "9D", "9H", "KC", "QD", "JS"], quiet(9, 0), quiet(9, 1), quiet(9, 2)], upcard="6D"
    )
    act(env, "take")
    assert declares(env) == set()


def test_round5_two_runs_of_five():
    hands = [["3C", "4C", "5C", "6C", "7C", "TD", "JD", "QD", "KD", "AD"], quiet(10, 0), quiet(10, 1), quiet(10, 2)]
    env = make(5, hands, upcard="8S")
    act(env, "take")
    assert declares(env) == {"run C 3-7", "run D T-A"}
    act(env, "run D T-A", *["fill nat"] * 5, "run C 3-7", *["fill nat"] * 5)
    s = sd(env)
    assert s["contract_done"][0] and s["melds"][0]["ranks"] == list("TJQKA")
    # runs of 4 are too short in round 5
    hands[0] = ["3C", "4C", "5C", "6C", "9H", "TD", "JD", "QD", "KD", "4S"]
    env = make(5, hands, upcard="8S")
    act(env, "take")
    assert declares(env) == set()


# --------------------------------------------------------------------------- runs
@pytest.mark.parametrize("wild_first", [True, False])
def test_wild_placement_at_either_end_of_a_run(wild_first):
    hands = [["JK", "6H", "7H", "8H", "QC", "QD", "QS"], quiet(7, 0), quiet(7, 1), quiet(7, 2)]
    env = make(2, hands, upcard="3C")
    act(env, "take")
    lay_set(env, "Q", "CDS")
    assert declares(env) == {"run H 5-8", "run H 6-9"}
    if wild_first:
        act(env, "run H 5-8", "fill JK", "fill nat", "fill nat", "fill nat")
        assert sd(env)["melds"][1]["cards"] == ["JK", "6H", "7H", "8H"]
        assert sd(env)["melds"][1]["ranks"] == list("5678")
    else:
        act(env, "run H 6-9", "fill nat", "fill nat", "fill nat")
        assert legal(env) == {"fill JK"}
        act(env, "fill JK")
        assert sd(env)["melds"][1]["cards"] == ["6H", "7H", "8H", "JK"]
        assert sd(env)["melds"][1]["ranks"] == list("6789")


def test_ace_low_and_ace_high_runs_no_wrap():
    env = ace_env(["AH", "2H", "3H", "4H", "JS", "QS", "KS", "AS"])
    act(env, "take")
    assert declares(env) == {"run H A-4", "run S J-A"}
    act(env, "run H A-4", "fill nat", "fill nat", "fill nat", "fill nat")
    act(env, "run S J-A", *["fill nat"] * 4)
    s = sd(env)
    assert s["melds"][0]["ranks"] == ["A", "2", "3", "4"] and s["melds"][0]["positions"] == [0, 1, 2, 3]
    assert s["melds"][1]["ranks"] == ["J", "Q", "K", "A"] and s["melds"][1]["positions"] == [10, 11, 12, 13]
    # no wrap: a K-A-2 run has no text, and K A 2 3 4 makes only the ace-low run
    with pytest.raises(ValueError):
        env.unwrapped.str_to_action("run H K-2")
    env = ace_env(["KH", "AH", "2H", "3H", "9S", "TS", "JS", "QS"], upcard="4H")
    act(env, "take")
    assert declares(env) == {"run H A-4", "run S 9-Q"}


def test_no_layoff_beyond_an_ace():
    env = ace_env(["AH", "2H", "3H", "4H", "JS", "QS", "KS", "AS"], stock=["5D", "JK"])
    act(env, "push")  # 5D and 9C go to seat 1; seat 0 draws the joker
    act(env, "run H A-4", *["fill nat"] * 4, "run S J-A", *["fill nat"] * 4)
    # the A-4 run takes nothing below the ace, the J-A run nothing above it
    assert {t for t in legal(env) if t.startswith(("layoff", "swap"))} == {"layoff 0 high JK", "layoff 1 low JK"}
    act(env, "layoff 1 low JK")
    s = sd(env)
    assert s["melds"][1]["cards"] == ["JK", "JS", "QS", "KS", "AS"] and s["melds"][1]["ranks"] == list("TJQKA")
    assert s["done"] and s["went_out"] == 0  # out by laying off the last card


def test_natural_two_in_its_place_is_not_a_wild():
    # two 2H: one fills its own place in 2-5 (natural), the other stays in hand
    env = ace_env(["2H", "3H", "4H", "5H", "7D", "8D", "9D", "2H"], upcard="TD")
    act(env, "take", "run H 2-5")
    assert {t for t in legal(env) if t.startswith("fill")} == {"fill nat"}  # never "fill 2H"
    act(env, "fill nat", "fill nat", "fill nat", "fill nat", "run D 7-T", *["fill nat"] * 4)
    s = sd(env)
    assert s["melds"][0]["cards"] == ["2H", "3H", "4H", "5H"] and s["melds"][0]["ranks"] == list("2345")
    assert s["hands"][0] == ["2H"]
    # the natural 2 is not a wild: no swap; the spare 2H is a wild at either end
    assert {t for t in legal(env) if t.startswith(("layoff", "swap"))} == {
        "layoff 0 low 2H",
        "layoff 0 high 2H",
        "layoff 1 low 2H",
        "layoff 1 high 2H",
    }
    with pytest.raises(ValueError):
        env.unwrapped.str_to_action("set 2")  # no set of 2s exists (no natural)


def test_a_wild_standing_for_a_two_can_be_swapped_for_the_natural_two():
    env = ace_env(["JK", "3H", "4H", "5H", "7D", "8D", "9D", "2H"], upcard="TD")
    act(env, "take", "run H 2-5", "fill JK", "fill nat", "fill nat", "fill nat", "run D 7-T", *["fill nat"] * 4)
    assert sd(env)["melds"][0]["cards"] == ["JK", "3H", "4H", "5H"]
    assert {t for t in legal(env) if t.startswith("swap")} == {"swap 0 2"}
    act(env, "swap 0 2")
    s = sd(env)
    assert s["melds"][0]["cards"] == ["2H", "3H", "4H", "5H"] and s["hands"][0] == ["JK"]
    assert "discard JK" not in legal(env)


def test_natural_two_counts_as_the_meld_natural():
    # 2H + three wilds is a run of hearts: its only natural is the 2 in its own place
    env = ace_env(["2H", "JK", "2C", "2D", "3S", "4S", "5S", "6S"], upcard="9C")
    act(env, "take")
    assert {"run H A-4", "run H 2-5", "run D A-4", "run C 2-5", "run S 3-6"} <= declares(env)
    act(env, "run S 3-6", *["fill nat"] * 4, "run H 2-5")
    assert {t for t in legal(env) if t.startswith("fill")} == {"fill nat"}  # a wild here leaves no natural
    act(env, "fill nat", "fill JK", "fill 2C", "fill 2D")
    s = sd(env)
    assert s["contract_done"][0] and s["melds"][1]["cards"] == ["2H", "JK", "2C", "2D"]
    assert s["melds"][1]["ranks"] == list("2345")


# --------------------------------------------------------------------------- swaps and lay-offs
def test_swap_rule():
    hands = [["5H", "JK", "7H", "8H", "QC", "QD", "QS"], quiet(7, 0), quiet(7, 1), quiet(7, 2)]
    env = make(2, hands, upcard="6H")
    act(env, "take")  # 6H
    assert not {t for t in legal(env) if t.startswith(("swap", "layoff"))}  # nothing before the contract
    lay_set(env, "Q", "CDS")
    act(env, "run H 5-8", "fill nat", "fill JK", "fill nat", "fill nat")
    # the contract is done this turn: the 6H may be swapped in for the joker
    assert {t for t in legal(env) if t.startswith(("swap", "layoff"))} == {"swap 1 6"}
    act(env, "swap 1 6")
    s = sd(env)
    assert s["melds"][1]["cards"] == ["5H", "6H", "7H", "8H"] and s["owed_wild"] == "wild JK"
    assert s["hands"][0] == ["JK"]
    # the joker must be used now: no discard, no second swap
    assert legal(env) == {"layoff 0 JK", "layoff 1 low JK", "layoff 1 high JK"}
    with pytest.raises(IllegalActionError):
        act(env, "discard JK")
    act(env, "layoff 1 high JK")  # melds the last card: out
    s = sd(env)
    assert s["melds"][1]["cards"] == ["5H", "6H", "7H", "8H", "JK"] and s["melds"][1]["ranks"] == list("56789")
    assert s["done"] and s["went_out"] == 0 and s["scores"][0] == 0


def test_swap_from_a_set_and_use_in_a_new_meld_or_lay_off():
    hands = [["7C", "7D", "JK", "8C", "8D", "8H"], quiet(6, 0), quiet(6, 1), quiet(6, 2)]
    env = make(1, hands, upcard="7H")
    act(env, "take")
    lay_set(env, "7", "CD", ["JK"])
    act(env, "set 8", "add C", "add D", "add H", "end set")
    # 7H left: any natural 7 stands for the set's joker
    assert legal(env) == {"swap 0 H JK", "layoff 0 H", "discard 7H"}
    act(env, "swap 0 H JK")
    assert legal(env) == {"layoff 0 JK", "layoff 1 JK"}


def test_layoff_onto_an_opponents_meld_needs_own_contract():
    # seat 0 pushes to seat 1, who lays K K K / 5 5 5 and keeps cards; seat 2 (no
    # contract) holds a KC that fits; seat 3 pushes KS and 3S to seat 0, who lays its
    # contract and lays the KS off on seat 1's set; seat 2 still cannot lay off its 7C.
    hands = [["7C", "7D", "7H", "8C", "8D", "3S"], ["KC", "KD", "KH", "5C", "5D", "5H"], quiet(6, 1), quiet(6, 2)]
    env = make(1, hands, upcard="QS", stock=["4C", "8H", "KS", "9C"])
    act(env, "push")  # QS, 4C -> seat 1; seat 0 draws 8H
    assert Counter(sd(env)["hands"][1]) == Counter(hands[1] + ["QS", "4C"])
    act(env, "discard 3S")
    act(env, "take", "set K", "add C", "add D", "add H", "end set", "set 5", "add C", "add D", "add H", "end set")
    assert Counter(sd(env)["hands"][1]) == Counter(["QS", "4C", "3S"])
    act(env, "discard 3S")
    assert "KC" in sd(env)["hands"][2]
    act(env, "take")  # seat 2: no contract, so no lay-off of its KC onto the K set
    assert not {t for t in legal(env) if t.startswith(("layoff", "swap"))}
    act(env, "discard 3S")
    act(env, "push")  # seat 3: KS and 3S -> seat 0, draws 9C
    act(env, "discard 9C")
    act(env, "take")  # seat 0: 7 7 7 8 8 8 KS 3S 9C
    assert not {t for t in legal(env) if t.startswith("layoff")}  # not before its own contract
    act(env, "set 7", "add C", "add D", "add H", "end set", "set 8", "add C", "add D", "add H", "end set")
    assert {t for t in legal(env) if t.startswith(("layoff", "swap"))} == {"layoff 0 S"}
    act(env, "layoff 0 S")
    s = sd(env)
    assert s["melds"][0]["owner"] == 1 and s["melds"][0]["cards"] == ["KC", "KD", "KH", "KS"]
    act(env, "discard 9C")
    act(env, "take", "discard 9C")  # seat 1
    # seat 2: the partner's 7s and 8s are on the table; its 7C still may not go there
    assert "7C" in sd(env)["hands"][2]
    act(env, "take")
    assert sd(env)["contract_done"] == [True, True, False, False]
    assert not {t for t in legal(env) if t.startswith(("layoff", "swap"))}


# --------------------------------------------------------------------------- round end
def test_opponent_going_out_scores_the_other_team():
    hands = [["7C", "7D", "7H", "8C", "8D", "QH"], ["KC", "KD", "KH", "5C", "5D", "5H"], quiet(6, 1), quiet(6, 2)]
    env = make(1, hands, upcard="JS")
    act(env, "take", "discard QH")  # seat 0 keeps 7 7 7 8 8 JS
    act(env, "take", "set K", "add C", "add D", "add H", "end set", "set 5", "add C", "add D", "add H", "end set")
    act(env, "discard QH")  # seat 1 goes out by discarding its last card
    s = sd(env)
    assert s["done"] and s["went_out"] == 1
    team0 = value(["7C", "7D", "7H", "8C", "8D", "JS"]) + value(quiet(6, 1))
    assert s["scores"] == [team0, 0, team0, 0]
    assert rewards(env) == [-1, 1, -1, 1]


def test_stock_exhaustion_scores_both_teams():
    hands = [quiet(6, 0), quiet(6, 1), quiet(6, 2), ["3C", "4D", "6S", "9H", "TC", "QS"]]
    env = make(1, hands, upcard="KH")
    pushes = 0
    while sd(env)["stock_size"] >= 2:
        act(env, "push")
        pushes += 1
        s = sd(env)
        act(env, f"discard {s['hands'][s['current_player']][0]}")
    assert pushes == 41 and sd(env)["stock_size"] == 1 and not sd(env)["done"]
    s = sd(env)
    act(env, "push")  # fewer than 2 stock cards: the round ends at once
    s2 = sd(env)
    assert s2["done"] and s2["went_out"] == -1
    t0 = value(s["hands"][0]) + value(s["hands"][2])
    t1 = value(s["hands"][1]) + value(s["hands"][3])
    assert s2["scores"] == [t0, t1, t0, t1] and t0 > 0 and t1 > 0
    assert s2["hands"] == s["hands"]  # the failed push moved nothing
    assert rewards(env) == ([1, -1, 1, -1] if t0 < t1 else [-1, 1, -1, 1] if t1 < t0 else [0, 0, 0, 0])


def test_turn_limit_ends_the_round_like_exhaustion():
    env = make(
        1, [quiet(6, 0), quiet(6, 1), quiet(6, 2), ["3C", "4D", "6S", "9H", "TC", "QS"]], upcard="KH", max_turns=8
    )
    for _ in range(8):
        top = sd(env)["discard"][-1]
        act(env, "take", f"discard {top}")
    s = sd(env)
    assert s["done"] and s["went_out"] == -1 and s["turn"] == 8
    t0 = value(s["hands"][0]) + value(s["hands"][2])
    t1 = value(s["hands"][1]) + value(s["hands"][3])
    assert s["scores"] == [t0, t1, t0, t1]


def test_rounds_option_and_the_deal_passing_left():
    env = push_v0.env(rounds=[2, 5])
    env.reset(seed=1, options={"dealer": 3})
    s = sd(env)
    assert s["round"] == 2 and all(len(h) == 7 for h in s["hands"]) and s["dealer"] == 3
    env = push_v0.env(rounds=[1, 3], max_turns=1)
    env.reset(seed=0, options={"dealer": 3})
    act(env, "take", "discard " + sd(env)["hands"][0][0])
    s = sd(env)
    assert not s["done"] and s["round"] == 3 and s["dealer"] == 0 and s["current_player"] == 1
    assert all(len(h) == 8 for h in s["hands"]) and s["hand_number"] == 1
    assert s["contract_done"] == [False] * 4 and s["melds"] == [] and len(s["discard"]) == 1
    act(env, "take", "discard " + sd(env)["hands"][1][0])
    assert sd(env)["done"] and sd(env)["hand_number"] == 2


@pytest.mark.parametrize(
    "bad",
    [
        dict(rounds=[6]),
        dict(rounds=[]),
        dict(rounds=[1, 1]),
        dict(rounds="1"),
        dict(rounds=[True]),
        dict(reward="x"),
        dict(max_turns=0),
        dict(max_turns=2.5),
    ],
)
def test_bad_config_raises(bad):
    with pytest.raises(ValueError):
        push_v0.env(**bad)


def test_action_texts_round_trip():
    raw = push_v0.raw_env()
    n = raw.action_space("player_0").n
    assert n == 2371
    texts = [raw.action_to_str(a) for a in range(n)]
    assert len(set(texts)) == n
    assert all(raw.str_to_action(t) == a for a, t in enumerate(texts))
    assert texts[:3] == ["take", "push", "discard 2C"]
    assert raw.str_to_action("run H A-3") == 67 + 2 * 77
    assert raw.action_to_str(391) == "layoff 0 C" and raw.action_to_str(2370) == "swap 35 S JK"
    with pytest.raises(ValueError):
        raw.str_to_action("play 7H")


# --------------------------------------------------------------------------- the swapped wild in a new meld
# Seat 1 holds 31 cards in round 3: clubs A-K without the 5 (the 2C is the
# natural 2 in its place) and a joker for it, diamonds 2-A, and 5C 7H 9H 4S
# 9S.  It is built through play: seat 0 pushes every turn (the discard and
# a stock card go to seat 1; the stock card it draws it discards), seats 1-3
# take the discard and discard it again, so seat 1 gains 2 cards per round
# of turns; after 11 pushes seat 1 takes its 31st card and melds.
BIG_HAND = ["JK", "AC", "2C", "3C", "4C", "6C", "7C", "8C", "7H", "9C", "TC", "JC", "QC", "KC"]
BIG_HAND += ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD", "AD", "5C", "9H", "4S", "9S"]


def big_hand_env():
    """Seat 1 to meld holding BIG_HAND (after its take), round 3."""
    dealt, upcard, stock = BIG_HAND[:8], BIG_HAND[8], BIG_HAND[9:]
    env = make(3, [quiet(8, 0), dealt, quiet(8, 1), quiet(8, 2)], upcard=upcard, stock=stock)
    for c in range(11):
        kept = stock[2 * c + 1]  # the stock card seat 0 draws after its push
        act(env, "push", f"discard {kept}")
        if c == 10:
            act(env, "take")
            break
        for _ in range(3):
            act(env, "take", f"discard {kept}")
    assert sorted(sd(env)["hands"][1]) == sorted(BIG_HAND) and sd(env)["current_player"] == 1
    act(env, "run C A-K", *["fill nat"] * 4, "fill JK", *["fill nat"] * 8)
    return env


def test_swap_offered_when_only_a_new_meld_can_take_the_wild():
    env = big_hand_env()
    act(env, "run D 2-A", *["fill nat"] * 13)  # both table melds are full 13-card runs
    s = sd(env)
    assert s["contract_done"][1] and sorted(s["hands"][1]) == sorted(["5C", "7H", "9H", "4S", "9S"])
    assert {t for t in legal(env) if t.startswith(("swap", "layoff"))} == {"swap 0 5"}
    act(env, "swap 0 5")
    assert sd(env)["owed_wild"] == "wild JK"
    assert legal(env) == {"set 9", "run H 7-9"}  # the joker can only go into a new meld
    act(env, "set 9", "add H", "add S")
    assert legal(env) == {"add JK"}
    act(env, "add JK", "end set")
    s = sd(env)
    assert s["owed_wild"] is None and s["melds"][2]["cards"] == ["9H", "9S", "JK"]
    assert legal(env) == {"discard 7H", "discard 4S"}


def test_filling_the_last_run_allowed_when_a_new_meld_can_take_the_wild():
    env = big_hand_env()
    act(env, "run D 2-K", *["fill nat"] * 12, "swap 0 5")  # diamonds 2-K: the only meld with room
    s = sd(env)
    assert s["owed_wild"] == "wild JK" and sorted(s["hands"][1]) == sorted(["AD", "7H", "9H", "4S", "9S", "JK"])
    moves = legal(env)
    assert {"layoff 1 high nat", "layoff 1 low nat", "set 9"} <= moves
    act(env, "layoff 1 high nat")
    assert legal(env) == {"set 9", "run H 7-9"}
    act(env, "set 9", "add H", "add JK", "add S", "end set")
    assert sd(env)["owed_wild"] is None
