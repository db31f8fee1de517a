"""The stall rule of Spit and Speed (docs/spit.md, "Stalemate"): after
``stall_ticks`` ticks of play with no card played (default 30), the position
counts as a stalemate even though a player could play; ``stall_ticks=None``
keeps the originals, where a player holding a play may wait for ever.

Each test starts from a fixed deck and asserts exact outcomes; the last ones
play whole games between a player that always waits and the rule agent.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_spit_rules import CORNER, legal, make, sd, speed_deck, tick

import cardenvs.vector as V
from cardenvs import spit_v0
from cardenvs.games.spit.observation import LAYOUT as SPIT_LAYOUT
from cardenvs.games.spit.speed.observation import LAYOUT as SPEED_LAYOUT


def wait_ticks(env, n: int) -> None:
    for _ in range(n):
        tick(env)


def test_a_stall_spits_after_stall_ticks_ticks_without_a_play():
    env = make(CORNER)
    start = sd(env)
    assert "play 0 0" in legal(env, 0)  # seat 0 could play: the originals' stalemate never comes
    wait_ticks(env, 29)
    s = sd(env)
    assert s["stall"] == 29 and s["spit_piles"] == start["spit_piles"] and s["spit_cards"] == start["spit_cards"]
    tick(env)  # the 30th tick with no card played: both spit
    s = sd(env)
    assert s["stall"] == 0 and s["phase"] == "playing"
    for seat in (0, 1):
        spat = len(start["spit_cards"][seat]) - len(s["spit_cards"][seat])
        assert spat >= 1  # one round, more only if nothing fits after it (the originals' stalemate)
        assert s["spit_piles"][seat] == start["spit_piles"][seat] + start["spit_cards"][seat][:spat]
        assert s["spit_cards"][seat] == start["spit_cards"][seat][spat:]
    assert s["stockpiles"] == start["stockpiles"]


def test_a_card_played_starts_the_count_again_and_a_move_does_not():
    env = make(CORNER)
    wait_ticks(env, 20)
    tick(env, "wait", "play 0 1")  # 6C onto 7D: a play
    assert sd(env)["stall"] == 0
    tick(env, "wait", "move 4 0")  # a move is not a play
    assert sd(env)["stall"] == 1
    piles = sd(env)["spit_piles"]
    wait_ticks(env, 28)
    assert sd(env)["stall"] == 29 and sd(env)["spit_piles"] == piles
    tick(env)
    assert sd(env)["stall"] == 0 and all(len(a) > len(b) for a, b in zip(sd(env)["spit_piles"], piles))


def test_stall_ticks_none_keeps_the_originals():
    env = make(CORNER, stall_ticks=None, max_ticks=500)
    start = sd(env)
    wait_ticks(env, 499)
    s = sd(env)
    assert s["spit_piles"] == start["spit_piles"] and s["spit_cards"] == start["spit_cards"]
    _, rew, term, trunc, _ = env.step({"player_0": 0, "player_1": 0})
    assert trunc == {"player_0": True, "player_1": True} and rew == {"player_0": 0.0, "player_1": 0.0}


def test_stalls_without_spit_cards_end_the_deal_as_a_stalemate():
    """Waiting only: every stall spits, the spit cards run out, and the next
    stall ends the deal: both slap, as in a stalemate without spit cards."""
    env = make(CORNER)
    for _ in range(30 * 12):
        if sd(env)["phase"] != "playing":
            break
        tick(env)
    s = sd(env)
    assert s["phase"] == "slapping" and s["spit_cards"] == [[], []] and not s["truncated"]
    assert legal(env, 0) == legal(env, 1) == {"slap 0", "slap 1"}


def test_the_observation_shows_the_ticks_left_before_a_stall():
    env = make(CORNER, stall_ticks=40)
    at = SPIT_LAYOUT["stall_left"].offset
    for waited in range(3):
        obs = env.observations()
        assert [obs[a]["observation"][at] for a in ("player_0", "player_1")] == [40 - waited] * 2
        tick(env)
    env = make(CORNER, stall_ticks=None)
    assert env.observations()["player_0"]["observation"][at] == 0  # no stall rule


# Speed: both hands hold a card that fits (2C on 3D, 4D on 3D), nobody plays.
SPEED_DECK = speed_deck(["2C", "5H", "6H", "7H", "8H"], ["4D", "9S", "TS", "JS", "QS"], [], [], ["3D", "KC"])


def test_speed_a_stall_turns_the_side_piles():
    env = make(SPEED_DECK, variant="speed")
    start = sd(env)
    assert "play 2C 0" in legal(env, 0) and "play 4D 0" in legal(env, 1)
    wait_ticks(env, 29)
    assert sd(env)["spit_piles"] == start["spit_piles"] and sd(env)["stall"] == 29
    tick(env)
    s = sd(env)
    assert s["stall"] == 0
    for p in (0, 1):  # each side pile turned its top card onto the centre pile beside it
        turned = len(start["side_piles"][p]) - len(s["side_piles"][p])
        assert turned >= 1
        assert s["spit_piles"][p] == start["spit_piles"][p] + start["side_piles"][p][:turned]
    at = SPEED_LAYOUT["stall_left"].offset
    assert env.observations()["player_0"]["observation"][at] == 30


@pytest.mark.parametrize("variant", ["spit", "speed"])
def test_a_player_who_only_waits_can_not_freeze_the_game(variant):
    """Random play against a player that waits whenever it may: every game
    ends, none truncated, the waiting player never wins.  Without the stall
    rule every game is truncated."""
    for stall_ticks, truncated_expected in ((30, False), (None, True)):
        venv = V.make("spit_v0", num_envs=16, seed=3, variant=variant, stall_ticks=stall_ticks, max_ticks=3000)
        obs, info = venv.reset()
        rng = np.random.default_rng(0)
        ended = truncated = waiter_won = 0
        for _ in range(3000):
            mask = info["action_mask"]
            actions = (rng.random(mask.shape) * mask).argmax(axis=2)
            actions[:, 1] = np.where(mask[:, 1, 0], 0, actions[:, 1])  # wait whenever waiting is legal
            obs, rewards, terminated, trunc, info = venv.step(actions)
            ended += int((terminated | trunc).sum())
            truncated += int(trunc.sum())
            waiter_won += int((rewards[:, 1] > 0).sum())
        if truncated_expected:
            assert truncated == ended == 16 and waiter_won == 0
        else:
            assert ended > 16 and truncated == 0 and waiter_won == 0


def test_bad_stall_ticks_are_refused():
    for bad in (0, -3, 2.5, "30", True):
        with pytest.raises(ValueError, match="stall_ticks"):
            spit_v0.parallel_env(stall_ticks=bad)


def test_an_agent_that_always_waits_loses_every_game_to_the_rule_agent():
    """The issue's staller (``lowest``: wait is action 0, always legal while
    playing) against the rule agent, seats rotated: no game won, none
    truncated (under the originals every game was a truncated draw)."""
    from cardenvs.agents.registry import make_agent
    from cardenvs.evaluation.matches import match

    staller, rule = make_agent("spit_v0", "lowest"), make_agent("spit_v0", "rule")
    result = match("spit_v0", staller, rule, num_games=40, seed=11)
    assert result.wins == 0 and result.truncated == 0 and result.losses == 40
    originals = match("spit_v0", staller, rule, num_games=4, seed=11, stall_ticks=None, max_ticks=300)
    assert originals.truncated == 4 and originals.wins == 0
