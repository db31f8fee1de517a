"""The project's generic tests through the conformance kit
(:mod:`cardenvs.testing`): every game of the registry x every check, in its
short config; and a planted bug (a mask that allows an illegal card) makes
the kit fail naming the check, the game, the seed and the step."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from helpers import SHORT_GAMES

from cardenvs.registry import GAMES, rules_class
from cardenvs.testing import CHECKS, ConformanceError, Report, check_game


@pytest.mark.parametrize("check", list(CHECKS))
@pytest.mark.parametrize("game", list(GAMES))
def test_game_passes_the_check(game, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (PettingZoo's advice; the processes' load warning)
        report = check_game(game, checks=[check], seeds=2, steps=150, config=SHORT_GAMES.get(game, {}))
    (result,) = report
    assert result.check == check and result.game == game
    if result.status == "skipped":
        pytest.skip(result.message)
    report.raise_if_failed()


def plant_an_illegal_card(monkeypatch, game: str) -> None:
    """Wrap ``game``'s rules so that every mask also allows an illegal action
    of the kind it allows already (an id between two legal ones: a card not
    in hand, while playing); the one-call step is switched off so every view
    reads the wrapped mask."""
    rules = rules_class(game)
    step, reset = rules.step, rules.reset

    def add_illegal(state):
        for row in np.flatnonzero(~state.done):
            legal = np.flatnonzero(state.legal[row])
            wrong = np.flatnonzero(~state.legal[row])
            wrong = wrong[(wrong > legal.min()) & (wrong < legal.max())] if len(legal) else wrong[:0]
            if len(wrong):
                state.legal[row, wrong[0]] = True

    def bad_step(self, state, actions):
        out = step(self, state, actions)
        add_illegal(state)
        return out

    def bad_reset(self, state, rows, dealer=None):
        reset(self, state, rows, dealer)
        add_illegal(state)

    monkeypatch.setattr(rules, "step", bad_step)
    monkeypatch.setattr(rules, "reset", bad_reset)
    monkeypatch.setattr(rules, "one_game", lambda self: None)


def test_a_mask_allowing_an_illegal_card_fails_the_kit_naming_the_check(monkeypatch):
    plant_an_illegal_card(monkeypatch, "pepper_v0")
    report = check_game("pepper_v0", checks=["legal_masks", "cards_conserved"], seeds=1, config={"max_hands": 2})
    masks = report.result("legal_masks")
    assert masks.failed and masks.game == "pepper_v0" and masks.seed == 0 and masks.step is not None
    assert "allowed action 'play" in masks.message and "cards not conserved" in masks.message
    assert masks.line().startswith(f"FAILED  legal_masks pepper_v0 seed=0 step={masks.step}: ")
    assert report.result("cards_conserved").failed
    with pytest.raises(ConformanceError, match="legal_masks pepper_v0 seed=0"):
        report.raise_if_failed()


def test_report_and_arguments():
    report = check_game("pepper_v0", checks=["cards_conserved"], seeds=[4], steps=20)
    assert isinstance(report, Report) and report.ok and [r.check for r in report] == ["cards_conserved"]
    report.raise_if_failed()
    with pytest.raises(ValueError, match="unknown checks"):
        check_game("pepper_v0", checks=["colour"])
    with pytest.raises(ValueError, match="unknown game"):
        check_game("chess_v0")


def test_the_command_prints_a_line_per_check_and_fails_on_a_failure():
    run = [sys.executable, "-m", "cardenvs.testing", "push_v0", "--quick", "--check", "cards_conserved"]
    out = subprocess.run(run, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[:2] == [
        'push_v0 config {"max_turns": 12, "rounds": [1, 2]} (short_config)',  # (GameSpec.short_config, unless --config)
        "PASSED  cards_conserved push_v0",
    ]
    bad = subprocess.run([*run[:4], "--check", "colour"], capture_output=True, text=True, timeout=300)
    assert bad.returncode != 0 and "colour" in bad.stderr
