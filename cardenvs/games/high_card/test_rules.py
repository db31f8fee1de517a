"""High Card's own tests: its rules from fixed deals, its options and its
rule agent.  (Everything every game must do -- the PettingZoo API, cards
conserved, exact masks, the vector engine playing the same games, hidden
cards, the docs tables, the golden playthrough -- is the conformance kit's:
``python -m cardenvs.testing high_card_v0``.)  Collected by pytest from the
game's folder (pyproject's ``testpaths``)."""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs
import cardenvs.vector as V

from .agent import HighCardRuleAgent

GAME = "high_card_v0"
#: A deck dealt by seat 0: player_1 gets JC KC AH, player_0 QC JD AS; the stock is AC QD ... top first.
DECK = ["JC", "QC", "KC", "JD", "AH", "AS", "AC", "QD", "KD", "AD", "JH", "QH", "KH", "JS", "QS", "KS"]


def start(decks=(DECK,), **config):
    env = cardenvs.make(GAME, **config)
    env.reset(seed=0, options={"decks": list(decks), "dealer": 0})
    return env


def legal(env) -> set[str]:
    mask = env.observe(env.agent_selection)["action_mask"]
    return {env.unwrapped.action_to_str(int(a)) for a in np.flatnonzero(mask)}


def act(env, *texts: str) -> None:
    for text in texts:
        env.step(env.unwrapped.str_to_action(text))


def test_the_deal_and_a_swap():
    env = start()
    d = env.unwrapped.state_dict()
    assert d["hands"] == [["QC", "JD", "AS"], ["JC", "KC", "AH"]] and d["stock"][:2] == ["AC", "QD"]
    assert env.agent_selection == "player_1" and legal(env) == {"keep", "swap JC", "swap KC", "swap AH"}
    act(env, "swap JC")
    d = env.unwrapped.state_dict()
    assert d["hands"][1] == ["KC", "AC", "AH"] and d["discards"] == ["JC"] and d["stock"][0] == "QD"
    act(env, "keep")
    assert env.unwrapped.state_dict()["phase"] == "playing" and env.agent_selection == "player_1"


@pytest.mark.parametrize(("reward", "paid"), [("win_loss", -1.0), ("score_delta", 0.0)])
def test_follow_suit_and_the_higher_card_of_the_suit_led_wins(reward, paid):
    env = start(hands=1, reward=reward)
    act(env, "keep", "keep", "play KC")
    assert legal(env) == {"play QC"}  # player_0 holds one club: it must follow, a forced move
    act(env, "play QC")
    assert env.unwrapped.state_dict()["scores"] == [0, 1]
    assert all(env.terminations.values()) and env.rewards == {"player_0": paid, "player_1": 1.0}


#: Every decision of one hand from DECK (dealt by seat 0): who acts, its exact mask, what it does.  The
#: pattern that catches what no generic check can: a mask that lets a seat off following suit, one that
#: never offers a legal card (the card just drawn), a forced move left out (docs/adding-a-game.md, section 7).
WHOLE_HAND = [
    ("player_1", {"keep", "swap JC", "swap KC", "swap AH"}, "swap JC"),  # draws the stock's top, AC
    ("player_0", {"keep", "swap QC", "swap JD", "swap AS"}, "swap JD"),  # draws the next, QD
    ("player_1", {"play KC", "play AC", "play AH"}, "play AH"),  # leads: any card (AC just drawn included)
    ("player_0", {"play QC", "play QD", "play AS"}, "play QD"),  # no heart: any card
]


def test_every_decision_of_a_hand_has_its_exact_mask():
    env = start(hands=1)
    for agent, mask, action in WHOLE_HAND:
        assert (env.agent_selection, legal(env)) == (agent, mask), action
        act(env, action)
    assert env.unwrapped.state_dict()["winners"] == [1] and all(env.terminations.values())


def test_a_card_of_another_suit_never_wins():
    env = start(hands=1)
    act(env, "keep", "keep", "play AH")
    assert legal(env) == {"play QC", "play JD", "play AS"}  # no heart: any card
    act(env, "play AS")
    assert env.unwrapped.state_dict()["winners"] == [1]


def test_the_deal_alternates_and_a_tie_pays_nothing():
    env = start(decks=(DECK, DECK), hands=2)
    act(env, "keep", "keep", "play KC", "play QC")  # player_1 wins hand 1
    d = env.unwrapped.state_dict()
    assert d["dealer"] == 1 and d["hands"] == [["JC", "KC", "AH"], ["QC", "JD", "AS"]]
    assert env.agent_selection == "player_0" and not any(env.terminations.values())
    act(env, "keep", "keep", "play KC", "play QC")  # player_0 wins hand 2
    d = env.unwrapped.state_dict()
    assert d["scores"] == [1, 1] and d["winners"] == [0, 1] and all(env.terminations.values())
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}


@pytest.mark.parametrize(("option", "value"), [("hands", 0), ("hands", 101), ("hands", 2.0), ("reward", "points")])
def test_bad_options_are_refused(option, value):
    with pytest.raises(ValueError, match=option):
        cardenvs.make(GAME, **{option: value})


def test_the_rule_agent_decides_alike_batched_and_row_by_row_and_beats_random():
    venv = V.make(GAME, num_envs=64, seed=3)
    obs, info = venv.reset()
    fast, reference = HighCardRuleAgent(), HighCardRuleAgent(reference=True)
    rng = np.random.default_rng(0)
    won = np.zeros(2)
    for _ in range(200):
        actions = fast.act_batch(obs, info["action_mask"])
        np.testing.assert_array_equal(actions, reference.act_batch(obs, info["action_mask"]))
        assert info["action_mask"][np.arange(64), actions].all()
        random = (rng.random(info["action_mask"].shape) * info["action_mask"]).argmax(1)
        actions = np.where(info["current_player"] == 0, actions, random)  # the agent is player_0
        obs, rewards, term, trunc, info = venv.step(actions)
        won += rewards.sum(0)
    assert won[0] > won[1]
