"""The Spit diagnosis's ablations (benchmarks/learning/spit_choices.py) do
what their rows say, on positions of real games: each changes only the
choice it names, and only to a legal action."""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest
from helpers import load_script

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cardenvs.vector as V  # noqa: E402
from cardenvs.agents.builtin import RandomAgent  # noqa: E402
from cardenvs.games.spit.agent import SpitRuleAgent  # noqa: E402


@pytest.fixture(scope="module")
def positions():
    """Seat 0's observations and masks of 64 games played for 300 ticks
    by the rule agent against random play (slaps, plays, moves, waits)."""
    choices = load_script("benchmarks/learning/spit_choices.py")
    venv = V.make("spit_v0", 64, seed=11)
    obs, info = venv.reset()
    rule, rand = SpitRuleAgent(), RandomAgent(seed=3)
    seen_obs, seen_mask = [], []
    for _ in range(300):
        mask = info["action_mask"]
        seen_obs.append(obs[:, 0].copy())
        seen_mask.append(mask[:, 0].copy())
        actions = np.stack([rule.act_batch(obs[:, 0], mask[:, 0]), rand.act_batch(obs[:, 1], mask[:, 1])], 1)
        obs, _, _, _, info = venv.step(actions)
    return choices, np.concatenate(seen_obs), np.concatenate(seen_mask)


class Lowest:
    """A stand-in policy: the lowest legal action (waiting, where legal)."""

    name = "lowest"

    def act_batch(self, obs, mask):
        return np.argmax(mask, axis=1)


def test_each_ablation_changes_only_its_choice(positions):
    choices, obs, mask = positions
    kinds = choices.KINDS
    rule = SpitRuleAgent().act_batch(obs, mask)
    assert {"play", "move", "slap", "wait"} <= set(kinds[rule])
    for agent in (
        choices.Ablated("any play", plays="any", seed=1),
        choices.Ablated("any play, any move", plays="any", moves="any", seed=1),
        choices.Ablated("no moves", moves="none"),
        choices.Ablated("any slap", slaps="any", seed=1),
    ):
        out = agent.act_batch(obs, mask)
        assert mask[np.arange(len(out)), out].all()
        same_kind = kinds[out] == kinds[rule]
        if agent.plays == "any":  # another play where the rule agent plays, sometimes
            assert (out[kinds[rule] == "play"] != rule[kinds[rule] == "play"]).any()
        else:
            assert (out[kinds[rule] == "play"] == rule[kinds[rule] == "play"]).all()
        slaps = kinds[rule] == "slap"
        if agent.slaps == "any":  # the other pile, sometimes
            assert (kinds[out][slaps] == "slap").all() and (out[slaps] != rule[slaps]).any()
        else:
            assert (out[slaps] == rule[slaps]).all()
        if agent.moves == "none":
            assert not (kinds[out] == "move").any() and (kinds[out][kinds[rule] == "move"] == "wait").all()
            assert same_kind[kinds[rule] != "move"].all()
        elif agent.moves == "any":  # a move wherever it cannot play and a move is legal
            can_move = (mask & (kinds == "move")).any(axis=1) & ~(mask & (kinds == "play")).any(axis=1)
            assert (kinds[out][can_move & (kinds[rule] != "slap")] == "move").all()
        else:
            assert same_kind.all()


def test_the_policy_rows(positions):
    choices, obs, mask = positions
    kinds = choices.KINDS
    never = choices.NeverWaits(Lowest()).act_batch(obs, mask)
    assert mask[np.arange(len(never)), never].all()
    others = mask[:, 1:].any(axis=1)
    assert (kinds[never][others] != "wait").all() and others.any()
    rule = SpitRuleAgent().act_batch(obs, mask)
    chosen = choices.ChoosesThePlay(Lowest()).act_batch(obs, mask)
    plays = kinds[rule] == "play"
    assert (chosen[~plays] == rule[~plays]).all()
    first_play = np.argmax(mask & (kinds == "play"), axis=1)
    assert (chosen[plays] == first_play[plays]).all() and (chosen[plays] != rule[plays]).any()
