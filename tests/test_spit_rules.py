"""Rule tests for Spit and Speed, written from shared/rules/spit.md and
shared/API.md.

Every test starts from a fixed deck (``reset(options={"decks": [...]})``)
and asserts exact outcomes: legal-action sets, piles, spit cards, phases,
winners and rewards.  Where the seeded order of a tick matters, the test
runs several seeds and checks that each outcome follows the rule and that
both orders occur.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardenvs import IllegalActionError, spit_v0

FULL = [r + s for s in "CDHS" for r in "23456789TJQKA"]


# --------------------------------------------------------------------------- helpers
def spit_deck(seat0: dict, seat1: dict, stockpiles: int = 5) -> list[str]:
    """decks[0] for Spit.  A seat is ``{"tops": [S cards], "down": {pile:
    [face-down cards, bottom first]}, "spit": [first spit cards, top first]}``.
    Face-down cards and spit cards not given are filled with unused cards in
    deck order (they stay hidden in the tests that do not give them)."""
    used = set()
    for seat in (seat0, seat1):
        used |= set(seat["tops"]) | set(seat.get("spit", []))
        used |= {c for cards in seat.get("down", {}).values() for c in cards}
    filler = [c for c in FULL if c not in used]
    deck = []
    for seat in (seat0, seat1):
        cards = []
        for i in range(stockpiles):
            down = list(seat.get("down", {}).get(i, []))
            while len(down) < i:
                down.insert(0, filler.pop(0))
            cards += down + [seat["tops"][i]]
        spit = list(seat.get("spit", []))
        while len(cards) + len(spit) < 26:
            spit.append(filler.pop(0))
        deck += cards + spit
    assert sorted(deck) == sorted(FULL), "bad test deck"
    return deck


def speed_deck(stock0, stock1, side0, side1, middle, side_size=10) -> list[str]:
    """decks[0] for Speed: stocks and side piles given top first (filled up
    with unused cards in deck order), then the two middle cards."""
    used = set(stock0) | set(stock1) | set(side0) | set(side1) | set(middle)
    filler = [c for c in FULL if c not in used]
    stock_size = (50 - 2 * side_size) // 2
    parts = []
    for given, size in ((stock0, stock_size), (stock1, stock_size), (side0, side_size), (side1, side_size)):
        part = list(given)
        while len(part) < size:
            part.append(filler.pop(0))
        parts += part
    deck = parts + list(middle)
    assert sorted(deck) == sorted(FULL), "bad test deck"
    return deck


def make(deck, more=(), seed=0, **config):
    env = spit_v0.parallel_env(**config)
    obs, _ = env.reset(seed=seed, options={"decks": [deck, *more]})
    return env


def sd(env):
    return env.unwrapped.state_dict()


def legal(env, seat):
    mask = env.observations()[f"player_{seat}"]["action_mask"]
    return {env.unwrapped.action_to_str(int(a)) for a in np.flatnonzero(mask)}


def tick(env, a0="wait", a1="wait"):
    """One tick with the two players' action texts; returns the rewards."""
    raw = env.unwrapped
    _, rew, term, trunc, _ = env.step({"player_0": raw.str_to_action(a0), "player_1": raw.str_to_action(a1)})
    return rew


def tops(state, seat):
    return [p[-1] if p else None for p in state["stockpiles"][seat]]


# --------------------------------------------------------------------------- Spit: deal
def test_deal_follows_the_deck_order():
    env = make(FULL)
    s = sd(env)
    # seat 0: the first 26 cards; stockpiles of 1..5, the last card laid is the top
    assert s["stockpiles"][0] == [
        ["2C"],
        ["3C", "4C"],
        ["5C", "6C", "7C"],
        ["8C", "9C", "TC", "JC"],
        ["QC", "KC", "AC", "2D", "3D"],
    ]
    assert s["stockpiles"][1] == [
        ["2H"],
        ["3H", "4H"],
        ["5H", "6H", "7H"],
        ["8H", "9H", "TH", "JH"],
        ["QH", "KH", "AH", "2S", "3S"],
    ]
    assert s["face_up"] == [[1] * 5, [1] * 5]
    # each spat its first spit card (4D, 4S) onto its own pile
    assert s["spit_piles"] == [["4D"], ["4S"]]
    assert s["spit_cards"] == [FULL[16:26], FULL[42:52]]
    assert s["phase"] == "playing" and s["hand_number"] == 0 and s["scores"] == [0, 0]
    assert legal(env, 0) == {"wait", "play 4 0", "play 4 1"}  # 3D fits 4D and 4S
    assert legal(env, 1) == {"wait", "play 4 0", "play 4 1"}  # 3S


# --------------------------------------------------------------------------- Spit: play
CORNER = spit_deck(
    {"tops": ["KH", "2S", "QD", "8S", "5C"], "down": {1: ["3H"]}, "spit": ["AC"]},
    {"tops": ["6C", "9H", "4D", "TS", "JD"], "spit": ["7D"]},
)


def test_plays_up_down_and_around_the_corner():
    env = make(CORNER)
    assert sd(env)["spit_piles"] == [["AC"], ["7D"]]
    # KH and 2S both fit the ace (around the corner and up); 8S is one above 7D
    assert legal(env, 0) == {"wait", "play 0 0", "play 1 0", "play 3 1"}
    assert legal(env, 1) == {"wait", "play 0 1"}  # 6C is one below 7D
    tick(env, "play 1 0", "play 0 1")
    s = sd(env)
    assert s["spit_piles"] == [["AC", "2S"], ["7D", "6C"]]
    # the face-down 3H under 2S was turned face up at once
    assert s["stockpiles"][0][1] == ["3H"] and s["face_up"][0][1] == 1
    assert s["stockpiles"][1][0] == [] and s["face_up"][1][0] == 0
    # KH no longer fits (2S on top); 3H does (one above 2S); 5C is one below 6C
    assert legal(env, 0) == {"wait", "play 1 0", "play 4 1"}
    # seat 1 has an empty space: any other stockpile's top may move there
    assert legal(env, 1) == {"wait", "move 1 0", "move 2 0", "move 3 0", "move 4 0"}


def test_move_into_an_empty_space_turns_the_card_below():
    env = make(CORNER)
    tick(env, "wait", "play 0 1")
    before = sd(env)["stockpiles"][1]
    tick(env, "wait", "move 4 0")
    s = sd(env)
    assert s["stockpiles"][1][0] == [before[4][-1]]
    assert s["stockpiles"][1][4] == before[4][:-1]
    assert s["face_up"][1] == [1, 1, 1, 1, 1]
    assert s["spit_piles"] == [["AC"], ["7D", "6C"]]


def test_conflict_on_one_pile_is_resolved_by_the_seeded_order():
    """Both play onto spit pile 1 (7D): 8S and 6C.  Whichever hand is first
    lands; the other card no longer fits and stays on its stockpile."""
    outcomes = {}
    for seed in range(16):
        env = make(CORNER, seed=seed)
        tick(env, "play 3 1", "play 0 1")
        s = sd(env)
        pile = s["spit_piles"][1]
        assert pile in (["7D", "8S"], ["7D", "6C"])
        if pile[-1] == "8S":
            assert tops(s, 1)[0] == "6C" and s["stockpiles"][0][3][-1] != "8S"
        else:
            assert tops(s, 0)[3] == "8S" and s["stockpiles"][1][0] == []
        outcomes[seed] = pile[-1]
        again = make(CORNER, seed=seed)
        tick(again, "play 3 1", "play 0 1")
        assert sd(again)["spit_piles"][1][-1] == pile[-1], "same seed, same order"
    assert set(outcomes.values()) == {"8S", "6C"}


# --------------------------------------------------------------------------- Spit: stalemate
def test_stalemate_spits_again_until_someone_can_play():
    """No top fits 2C or 2D (nor 2H, 2S): both spit twice more, automatically."""
    deck = spit_deck(
        {"tops": ["6H", "7H", "8H", "9H", "TH"], "spit": ["2C", "2H", "5C"]},
        {"tops": ["6S", "7S", "8S", "9S", "TS"], "spit": ["2D", "2S", "KD"]},
    )
    env = make(deck)
    s = sd(env)
    assert s["spit_piles"] == [["2C", "2H", "5C"], ["2D", "2S", "KD"]]
    assert [len(c) for c in s["spit_cards"]] == [8, 8]
    assert legal(env, 0) == {"wait", "play 0 0"}  # 6H on 5C
    assert legal(env, 1) == {"wait", "play 0 0"}  # 6S on 5C


def test_no_stalemate_while_a_move_can_expose_a_card():
    """After seat 1 plays its single-card pile, nobody can play, but seat 1
    could move a top into the empty space: no spit."""
    deck = spit_deck(
        {"tops": ["6H", "7H", "8H", "9H", "7C"], "spit": ["3C", "QC"]},
        {"tops": ["4S", "7S", "8S", "9S", "6S"], "spit": ["JD", "2S"]},
    )
    env = make(deck)
    assert sd(env)["spit_piles"] == [["3C"], ["JD"]]
    tick(env, "wait", "play 0 0")
    s = sd(env)
    assert s["spit_piles"] == [["3C", "4S"], ["JD"]]
    assert legal(env, 0) == {"wait"}
    assert legal(env, 1) == {"wait", "move 1 0", "move 2 0", "move 3 0", "move 4 0"}
    # a move of a single card exposes nothing; moving pile 1's top does
    tick(env, "wait", "move 1 0")
    s = sd(env)
    assert s["stockpiles"][1][0] == ["7S"] and len(s["stockpiles"][1][1]) == 1


# --------------------------------------------------------------------------- Spit: a whole deal, slap, new layouts
# Seat 0 can play its whole layout onto spit pile 0 in 15 ticks:
# 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D 3D 4D on 2H.
RUN_LAYOUT = {
    "tops": ["3C", "4C", "6C", "9C", "KC"],
    "down": {1: ["5C"], 2: ["8C", "7C"], 3: ["QC", "JC", "TC"], 4: ["4D", "3D", "2D", "AC"]},
    "spit": ["2H", "TH", "JH", "QH", "KH", "AH", "2S", "3S", "4S", "5S", "6S"],
}
RUN_ORDER = ["play 0 0", "play 1 0", "play 1 0"] + ["play 2 0"] * 3 + ["play 3 0"] * 4 + ["play 4 0"] * 5
RUN_DECK = spit_deck(RUN_LAYOUT, {"tops": ["7H", "8H", "9H", "5H", "6H"], "spit": ["9S"]})


def play_out_seat0(env):
    for action in RUN_ORDER:
        assert action in legal(env, 0)
        tick(env, action, "wait")


def test_emptying_the_layout_ends_the_deal_and_both_slap():
    env = make(RUN_DECK)
    play_out_seat0(env)
    s = sd(env)
    assert s["stockpiles"][0] == [[]] * 5
    assert len(s["spit_piles"][0]) == 16 and s["spit_piles"][1] == ["9S"]
    assert s["phase"] == "slapping" and not s["done"]
    assert legal(env, 0) == legal(env, 1) == {"slap 0", "slap 1"}


def _deck1(seat0_cards, seat1_cards):
    """decks[1]: the order in which each player lays out their gathered cards."""
    order = list(seat0_cards) + [c for c in seat1_cards if c not in seat0_cards]
    order += [c for c in FULL if c not in order]
    return order


# After the slap below seat 0 holds 9S + TH..AH 2S..6S (11 cards, < 15).
SHORT = ["9S", "TH", "JH", "QH", "KH", "AH", "2S", "3S", "4S", "5S", "6S"]


def test_short_layout_below_15_cards_and_one_spit_pile():
    # seat 0 lays out 9S | TH JH | QH KH AH | 2S 3S 4S 5S | 6S  (bottom first)
    # seat 1 lays out its 41 cards from 8D onwards (deck order) and spits 8D
    seat1_order = [c for c in FULL if c not in SHORT]
    env = make(RUN_DECK, more=[_deck1(SHORT, seat1_order)])
    play_out_seat0(env)
    tick(env, "slap 1", "slap 0")  # different piles: each takes the one it slapped
    s = sd(env)
    assert s["hand_number"] == 1 and s["phase"] == "playing"
    assert s["stockpiles"][0] == [["9S"], ["TH", "JH"], ["QH", "KH", "AH"], ["2S", "3S", "4S", "5S"], ["6S"]]
    assert s["spit_cards"][0] == []
    assert sum(len(p) for p in s["stockpiles"][1]) == 15
    assert len(s["spit_cards"][1]) == 41 - 15 - len(s["spit_piles"][1])
    # one spit pile: seat 1's, started by its spit card; pile 0 does not exist
    assert s["spit_piles"][0] == []
    assert len(s["spit_piles"][1]) >= 1
    assert not any(t.endswith(" 0") and t.startswith("play") for t in legal(env, 0) | legal(env, 1))


def test_one_pile_deal_player_without_spit_cards_wins_by_playing_out():
    """Seat 0 (11 cards, no spit cards) plays its short layout onto the
    single pile (8D: 9S TH JH QH KH AH 2S 3S 4S 5S 6S) and wins."""
    # laid out as 9S | JH TH | AH KH QH | 5S 4S 3S 2S | 6S (bottom first)
    playable = ["9S", "JH", "TH", "AH", "KH", "QH", "5S", "4S", "3S", "2S", "6S"]
    seat1_order = [c for c in FULL if c not in SHORT and c != "8D"]
    seat1_order = seat1_order[:15] + ["8D"] + seat1_order[15:]  # 8D is seat 1's first spit card
    env = make(RUN_DECK, more=[_deck1(playable, seat1_order)])
    play_out_seat0(env)
    tick(env, "slap 1", "slap 0")
    assert sd(env)["spit_piles"] == [[], ["8D"]]
    order = [
        "play 0 1",
        "play 1 1",
        "play 1 1",
        "play 2 1",
        "play 2 1",
        "play 2 1",
        "play 3 1",
        "play 3 1",
        "play 3 1",
        "play 3 1",
        "play 4 1",
    ]
    for k, action in enumerate(order):
        assert action in legal(env, 0), (k, action, legal(env, 0))
        rew = tick(env, action, "wait")
    s = sd(env)
    assert s["done"] and s["phase"] == "done" and s["winner"] == 0 and s["scores"] == [1, 0]
    assert rew == {"player_0": 1.0, "player_1": -1.0}
    assert env.agents == []


def test_one_pile_deal_spitter_goes_out_first_and_takes_nothing():
    """Seat 1 (the spitter) plays its layout out first: it keeps only its
    spit cards; seat 0 collects the spit pile and its own stockpile cards."""
    seat1_layout = ["3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD", "AD", "2C", "3H", "4H"]
    # laid bottom first per pile: the play order 3D 4D ... is top-down
    layout_order = [
        seat1_layout[0],
        seat1_layout[2],
        seat1_layout[1],
        seat1_layout[5],
        seat1_layout[4],
        seat1_layout[3],
        seat1_layout[9],
        seat1_layout[8],
        seat1_layout[7],
        seat1_layout[6],
        seat1_layout[14],
        seat1_layout[13],
        seat1_layout[12],
        seat1_layout[11],
        seat1_layout[10],
    ]
    gathered1 = set(FULL) - set(SHORT)
    rest = [c for c in FULL if c in gathered1 and c not in seat1_layout and c != "2H"]
    seat1_order = layout_order + ["2H"] + rest  # 2H starts the single pile
    env = make(RUN_DECK, more=[_deck1(SHORT, seat1_order)])
    play_out_seat0(env)
    tick(env, "slap 1", "slap 0")
    s = sd(env)
    assert s["spit_piles"] == [[], ["2H"]]
    spit_left = len(s["spit_cards"][1])
    order = (
        ["play 0 1", "play 1 1", "play 1 1", "play 2 1", "play 2 1", "play 2 1"] + ["play 3 1"] * 4 + ["play 4 1"] * 5
    )
    for k, action in enumerate(order):
        assert action in legal(env, 1), (k, action, legal(env, 1))
        tick(env, "wait", action)
    s = sd(env)
    assert not s["done"] and s["hand_number"] == 2
    # seat 1 lays out only its spit cards; seat 0 got 11 + the 16-card pile
    assert sum(map(len, s["stockpiles"][1])) + len(s["spit_cards"][1]) + len(s["spit_piles"][1]) == spit_left
    assert sum(map(len, s["stockpiles"][0])) + len(s["spit_cards"][0]) + len(s["spit_piles"][0]) == 11 + 16


def test_slap_on_the_same_pile_is_decided_by_a_seeded_coin():
    takers = set()
    for seed in range(12):
        env = make(RUN_DECK, seed=seed)
        play_out_seat0(env)
        tick(env, "slap 1", "slap 1")  # both want the 1-card pile
        s = sd(env)
        held0 = sum(map(len, s["stockpiles"][0])) + len(s["spit_cards"][0]) + len(s["spit_piles"][0])
        # the faster one takes 9S (10 spit cards + 1 = 11), the other the 16-card pile
        assert held0 in (11, 26)
        takers.add(0 if held0 == 11 else 1)
        assert s["phase"] == "playing" and s["hand_number"] == 1
        twin = make(RUN_DECK, seed=seed)
        play_out_seat0(twin)
        tick(twin, "slap 1", "slap 1")
        assert sd(twin) == s, "same seed, same coin"
    assert takers == {0, 1}


def test_slapping_needs_both_players():
    env = make(RUN_DECK)
    play_out_seat0(env)
    with pytest.raises(IllegalActionError):
        tick(env, "slap 0", "wait")
    assert sd(env)["phase"] == "slapping"


def test_one_sided_spit_in_a_one_pile_deal():
    """After the slap seat 0 has a short layout (tops 9S JH AH 5S 6S) and no
    spit cards; seat 1's tops are 3C 3H 5C 5D 6C.  Nothing fits seat 1's
    spit cards 3D, 9D, JD, so seat 1 alone spits on until 8D (9S fits)."""
    spits = ["3D", "9D", "JD", "8D"]
    layout1 = ["3C", "2D", "3H", "4D", "6D", "5C", "7D", "TD", "QD", "5D", "KD", "AD", "2C", "4C", "6C"]
    rest = [c for c in FULL if c not in SHORT and c not in spits and c not in layout1]
    env = make(RUN_DECK, more=[_deck1(SHORT, layout1 + spits + rest)])
    play_out_seat0(env)
    tick(env, "slap 1", "slap 0")
    s = sd(env)
    assert tops(s, 0) == ["9S", "JH", "AH", "5S", "6S"] and s["spit_cards"][0] == []
    assert tops(s, 1) == ["3C", "3H", "5C", "5D", "6C"]
    assert s["spit_piles"] == [[], spits]
    assert s["spit_cards"][1][:2] == rest[:2] and len(s["spit_cards"][1]) == 41 - 15 - 4
    assert legal(env, 0) == {"wait", "play 0 1"}
    assert legal(env, 1) == {"wait"}


def test_stalemate_without_spit_cards_ends_the_deal():
    """No top (7s, 8s, TC, TD) ever fits a spit card (2-5, Q-A): eleven
    automatic spits use up every spit card, then the deal ends and both
    players must slap."""
    spit0 = ["2C", "3C", "4C", "5C", "QC", "KC", "AC", "2D", "3D", "4D", "5D"]
    spit1 = ["QD", "KD", "AD", "2H", "3H", "4H", "5H", "QH", "KH", "AH", "2S"]
    deck = spit_deck(
        {"tops": ["7C", "7D", "7H", "7S", "TC"], "spit": spit0}, {"tops": ["8C", "8D", "8H", "8S", "TD"], "spit": spit1}
    )
    env = make(deck)
    s = sd(env)
    assert s["spit_piles"] == [spit0, spit1]
    assert s["spit_cards"] == [[], []]
    assert s["phase"] == "slapping"
    assert legal(env, 0) == legal(env, 1) == {"slap 0", "slap 1"}
    tick(env, "slap 0", "slap 1")
    s = sd(env)
    assert s["phase"] == "playing" and s["hand_number"] == 1
    for seat in (0, 1):  # 15 layout cards + the 11-card pile taken = 26 each
        assert sum(map(len, s["stockpiles"][seat])) == 15
        assert len(s["spit_cards"][seat]) + len(s["spit_piles"][seat]) == 11


# --------------------------------------------------------------------------- Spit: variants
def test_alternate_colors():
    deck = spit_deck(
        {"tops": ["8H", "6S", "8C", "6D", "KC"], "spit": ["7D"]},
        {"tops": ["2C", "3C", "4C", "9C", "TC"], "spit": ["JS"]},
    )
    plain = make(deck)
    assert legal(plain, 0) == {"wait", "play 0 0", "play 1 0", "play 2 0", "play 3 0"}
    env = make(deck, alternate_colors=True)
    # 7D is red: only the black 6S and 8C may go on it
    assert legal(env, 0) == {"wait", "play 1 0", "play 2 0"}
    assert legal(env, 1) == {"wait"}  # TC on JS: same colour


def test_four_stockpiles():
    env = make(FULL, stockpiles=4)
    s = sd(env)
    assert env.action_space("player_0").n == 23
    assert s["stockpiles"][0] == [["2C"], ["3C", "4C"], ["5C", "6C", "7C"], ["8C", "9C", "TC", "JC"]]
    assert len(s["spit_cards"][0]) == 26 - 10 - 1 and s["spit_piles"][0] == ["QC"]
    raw = env.unwrapped
    texts = [raw.action_to_str(a) for a in range(23)]
    assert texts[:3] == ["wait", "play 0 0", "play 0 1"] and texts[-1] == "slap 1"
    assert "move 3 0" in texts and not any("4" in t for t in texts)


def test_action_texts_round_trip_and_space_sizes():
    for cfg, n in (({}, 33), ({"stockpiles": 4}, 23), ({"variant": "speed"}, 105)):
        env = spit_v0.parallel_env(**cfg)
        raw = env.unwrapped
        assert env.action_space("player_1").n == n
        assert [raw.str_to_action(raw.action_to_str(a)) for a in range(n)] == list(range(n))
    raw = spit_v0.parallel_env().unwrapped
    assert raw.action_to_str(0) == "wait"
    assert raw.str_to_action("play 2 1") == 1 + 2 * 2 + 1
    assert raw.str_to_action("move 0 1") == 11 and raw.str_to_action("move 4 3") == 30
    assert raw.str_to_action("slap 0") == 31
    speed = spit_v0.parallel_env(variant="speed").unwrapped
    assert speed.action_to_str(speed.str_to_action("play QS 1")) == "play QS 1"
    with pytest.raises(ValueError):
        raw.str_to_action("move 1 1")


# --------------------------------------------------------------------------- Spit: bookkeeping
def test_truncation_is_a_draw():
    env = make(FULL, max_ticks=3)
    for _ in range(2):
        tick(env)
    _, rew, term, trunc, _ = env.step({"player_0": 0, "player_1": 0})
    assert trunc == {"player_0": True, "player_1": True}
    assert term == {"player_0": False, "player_1": False}
    assert rew == {"player_0": 0.0, "player_1": 0.0}
    s = sd(env)
    assert s["done"] and s["truncated"] and s["winner"] is None and s["tick"] == 3


def test_cards_shed_reward():
    env = make(CORNER, reward="cards_shed")
    rew = tick(env, "play 1 0", "wait")
    assert rew == {"player_0": pytest.approx(1 / 52), "player_1": 0.0}
    rew = tick(env, "wait", "wait")
    assert rew == {"player_0": 0.0, "player_1": 0.0}


def test_illegal_action_raises_and_changes_nothing():
    env = make(CORNER)
    before = json.dumps(sd(env), sort_keys=True)
    with pytest.raises(IllegalActionError):
        tick(env, "play 4 0", "wait")  # 5C does not fit AC
    with pytest.raises(IllegalActionError):
        env.step({"player_0": 0})
    with pytest.raises(IllegalActionError):
        env.step({"player_0": 99, "player_1": 0})
    assert json.dumps(sd(env), sort_keys=True) == before


def test_illegal_action_wait_option_plays_it_as_waiting():
    env = make(CORNER, illegal_action="wait")
    before = sd(env)
    tick(env, "play 4 0", "slap 1")  # both illegal: both wait
    after = sd(env)
    assert after["tick"] == before["tick"] + 1
    assert after["stall"] == before["stall"] + 1  # a tick with no card played
    after["tick"], after["stall"] = before["tick"], before["stall"]
    assert after == before


def test_bad_config_values_raise():
    for bad in (
        {"stockpiles": 7},
        {"variant": "snap"},
        {"alternate_colors": 1},
        {"speed_side_piles": 7},
        {"reward": "x"},
        {"max_ticks": 0},
        {"illegal_action": "ignore"},
        {"target_score": 10},
        {"variant": "speed", "stockpiles": 4},
    ):
        with pytest.raises(ValueError):
            spit_v0.parallel_env(**bad)


def test_observation_hides_face_down_and_spit_cards():
    """Two deals differing only in face-down and later spit cards look the
    same to both players."""
    a = spit_deck(
        {"tops": ["KH", "2S", "QD", "8S", "5C"], "spit": ["AC"]},
        {"tops": ["6C", "9H", "4D", "TS", "JD"], "spit": ["7D"]},
    )
    seat0_hidden = [i for i in range(15) if i not in (0, 2, 5, 9, 14)] + list(range(16, 26))
    seat1_hidden = [26 + i for i in seat0_hidden]
    hidden = seat0_hidden + seat1_hidden
    perm = np.random.default_rng(3).permutation(len(hidden))
    b = list(a)
    for k, pos in enumerate(hidden):
        b[pos] = a[hidden[perm[k]]]
    assert b != a and sorted(b) == sorted(a)
    ea, eb = make(a), make(b)
    assert sd(ea)["stockpiles"] != sd(eb)["stockpiles"]
    oa, ob = ea.observations(), eb.observations()
    for agent in ("player_0", "player_1"):
        np.testing.assert_array_equal(oa[agent]["observation"], ob[agent]["observation"])
        np.testing.assert_array_equal(oa[agent]["action_mask"], ob[agent]["action_mask"])


def test_observation_encodes_the_visible_table():
    from cardenvs.games.spit.observation import LAYOUT

    env = make(CORNER)
    obs = env.observations()
    o0, o1 = obs["player_0"]["observation"], obs["player_1"]["observation"]
    assert o0.shape == (235,) and o0.dtype == np.int16

    def card_at(o, slot):
        code = o[slot * 18 : slot * 18 + 17]
        if not code.any():
            return None
        return "23456789TJQKA"[int(code[:13].argmax())] + "CDHS"[int(code[13:].argmax())]

    assert [card_at(o0, i) for i in range(5)] == ["KH", "2S", "QD", "8S", "5C"]
    assert [card_at(o0, 5 + i) for i in range(5)] == ["6C", "9H", "4D", "TS", "JD"]
    assert [card_at(o1, i) for i in range(5)] == ["6C", "9H", "4D", "TS", "JD"]
    assert [card_at(o0, 10), card_at(o0, 11)] == ["AC", "7D"]
    assert list(o0[17:90:18]) == [0, 1, 2, 3, 4]  # face-down counts
    assert list(o0[LAYOUT["spit_piles"].offset + 17 :: 18][:2]) == [1, 1]  # spit pile sizes
    misc = LAYOUT["own_spit_cards"].offset
    assert list(o0[misc : misc + 6]) == [10, 10, 1, 0, 1, 0]
    assert list(o1[misc : misc + 6]) == [10, 10, 1, 0, 0, 1]


# --------------------------------------------------------------------------- Speed
def test_speed_deal_follows_the_deck_order():
    deck = list(FULL)
    env = make(deck, variant="speed")
    s = sd(env)
    assert s["hands"] == [FULL[0:5], FULL[15:20]]
    assert s["stocks"] == [FULL[5:15], FULL[20:30]]
    assert s["side_piles"] == [FULL[30:40], FULL[40:50]]
    assert s["spit_piles"] == [[FULL[50]], [FULL[51]]]  # KS, AS


# Hands 2C 2D 2H 2S 3C / 3D 3H 3S QC QD; nothing fits 9C 9D, nor the flips
# 6C/6D 7C/7D 8C/8D TC/TD, until KH (pile 0) takes a queen.  Side piles of 5.
FLIP_DECK = speed_deck(
    ["2C", "2D", "2H", "2S", "3C"],
    ["3D", "3H", "3S", "QC", "QD", "5C"],
    ["6C", "7C", "8C", "TC", "KH"],
    ["6D", "7D", "8D", "TD", "5D"],
    ["9C", "9D"],
    side_size=5,
)


def test_speed_side_piles_flip_in_a_stalemate():
    env = make(FLIP_DECK, variant="speed", speed_side_piles=5)
    s = sd(env)
    assert s["spit_piles"] == [["9C", "6C", "7C", "8C", "TC", "KH"], ["9D", "6D", "7D", "8D", "TD", "5D"]]
    assert s["side_piles"] == [[], []]
    assert legal(env, 0) == {"wait"}
    assert legal(env, 1) == {"wait", "play QC 0", "play QD 0"}


def test_speed_refill_and_side_piles_rebuilt_from_the_centre():
    env = make(FLIP_DECK, variant="speed", speed_side_piles=5)
    stock1 = sd(env)["stocks"][1]
    tick(env, "wait", "play QC 0")
    s = sd(env)
    # the hand was refilled from the own stock at once
    assert s["hands"][1] == sorted(["3D", "3H", "3S", "QD", "5C"], key=FULL.index)
    assert s["stocks"][1] == stock1[1:] and stock1[0] == "5C"
    # QC / 5D: nobody could play and the side piles were empty, so the 11
    # cards under the tops were shuffled into side piles of 6 and 5, which
    # flipped until a card fits
    centre = s["spit_piles"]
    assert centre[0][0] == "QC" and centre[1][0] == "5D"
    assert len(centre[0]) == len(centre[1]) >= 2
    assert len(s["side_piles"][0]) + len(s["side_piles"][1]) + len(centre[0]) + len(centre[1]) == 13
    assert 6 - len(s["side_piles"][0]) == len(centre[0]) - 1
    under = {"9C", "6C", "7C", "8C", "TC", "KH", "9D", "6D", "7D", "8D", "TD"}
    assert set(centre[0][1:] + centre[1][1:] + s["side_piles"][0] + s["side_piles"][1]) == under
    assert any(t.startswith("play") for t in legal(env, 0) | legal(env, 1))


# Seat 0's stock plays in sequence onto pile 0 (2C): 3D 4D ... AD 2D 3H 4H.
RUN15 = ["3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD", "AD", "2D", "3H", "4H"]
WIN_DECK = speed_deck(RUN15, [], [], [], ["2C", "9S"])


def play_speed_run(env):
    for k, card in enumerate(RUN15):
        assert f"play {card} 0" in legal(env, 0), (k, card)
        rew = tick(env, f"play {card} 0", "wait")
    return rew


def test_speed_win_and_score():
    env = make(WIN_DECK, variant="speed")
    rew = play_speed_run(env)
    s = sd(env)
    assert s["done"] and s["winner"] == 0
    assert s["hands"][0] == [] and s["stocks"][0] == []
    assert s["scores"] == [10, 0]  # seat 1's 10 in stock (its 5 in hand do not count)
    assert rew == {"player_0": 1.0, "player_1": -1.0}
    raw = env.unwrapped
    assert raw.rules.winners(raw._state) == [0]
    assert raw.rules.render(raw._state).endswith("\ngame over: player_0 wins")


def test_speed_target_score_plays_several_games():
    env = make(WIN_DECK, more=[WIN_DECK], variant="speed", target_score=20)
    rew = play_speed_run(env)
    s = sd(env)
    assert not s["done"] and s["scores"] == [10, 0] and s["hand_number"] == 1
    assert rew == {"player_0": 0.0, "player_1": 0.0}
    assert s["hands"][0] == RUN15[:5] or sorted(s["hands"][0], key=FULL.index) == sorted(RUN15[:5], key=FULL.index)
    rew = play_speed_run(env)
    s = sd(env)
    assert s["done"] and s["scores"] == [20, 0] and s["winner"] == 0
    assert rew == {"player_0": 1.0, "player_1": -1.0}


def play_run_against(env, loser_run):
    """Seat 0 plays RUN15 but its last card onto pile 0 while seat 1 plays
    ``loser_run`` (from its hand, in order) onto pile 1, then waits."""
    for k, card in enumerate(RUN15[:-1]):
        mine = f"play {loser_run[k]} 1" if k < len(loser_run) else "wait"
        assert mine in legal(env, 1), (k, mine)
        tick(env, f"play {card} 0", mine)


# Seat 1's cards that follow pile 1's 9S, none of them in RUN15 or the middle.
LOSER_RUN = ["TC", "JC", "QC", "KC", "AC", "2H", "3S", "4S", "5S", "6S"]


def test_speed_score_counts_the_losers_stock_not_its_hand():
    # seat 1 plays 3 cards (refilled from its stock): 5 in hand, 7 in stock
    env = make(speed_deck(RUN15, LOSER_RUN, [], [], ["2C", "9S"]), variant="speed", target_score=50)
    play_run_against(env, LOSER_RUN[:3])
    s = sd(env)
    assert len(s["hands"][1]) == 5 and len(s["stocks"][1]) == 7
    tick(env, f"play {RUN15[-1]} 0", "wait")
    assert sd(env)["scores"] == [7, 0] and sd(env)["hand_number"] == 1


def test_speed_score_is_zero_when_the_losers_stock_is_empty():
    # seat 1 plays 10 cards: its stock is empty, 5 cards still in hand
    env = make(speed_deck(RUN15, LOSER_RUN, [], [], ["2C", "9S"]), variant="speed", target_score=50)
    play_run_against(env, LOSER_RUN)
    s = sd(env)
    assert len(s["hands"][1]) == 5 and s["stocks"][1] == []
    tick(env, f"play {RUN15[-1]} 0", "wait")
    assert sd(env)["scores"] == [0, 0] and sd(env)["hand_number"] == 1


def test_speed_observation_hides_the_opponents_hand():
    a = speed_deck(["2C", "3C", "4C", "5C", "6C"], ["7H", "8H", "9H", "TH", "JH"], [], [], ["KS", "QS"])
    b = speed_deck(["2C", "3C", "4C", "5C", "6C"], ["7D", "8D", "9D", "TD", "JD"], [], [], ["KS", "QS"])
    ea, eb = make(a, variant="speed"), make(b, variant="speed")
    assert sd(ea)["hands"][1] != sd(eb)["hands"][1]
    np.testing.assert_array_equal(
        ea.observations()["player_0"]["observation"], eb.observations()["player_0"]["observation"]
    )
    assert not np.array_equal(
        ea.observations()["player_1"]["observation"], eb.observations()["player_1"]["observation"]
    )
