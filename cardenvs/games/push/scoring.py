"""Push: ending a round (a compiled kernel: each team's penalty, the score,
the per-round rewards) and the win/loss rewards at the end of a game.
Teams: seats 0 and 2 (team 0), seats 1 and 3 (team 1); the lower total
wins."""

from __future__ import annotations

import numpy as np

from ...core.jit import kernel
from .tables import CARD_PENALTY, NUM_TYPES, Config, Scores


@kernel
def score_rounds(rows, out_seat, config, hands, scores, rewards):
    """Score the round just ended in game ``rows[i]``: each team's penalty is
    the value of its two hands, 0 for the team of ``out_seat[i]`` (the player
    who went out; -1 none); with ``config.score_delta`` each seat is rewarded
    minus its team's penalty.  ``scores``: the state's :class:`tables.Scores`
    (the bundles come as plain tuples: see ``tables.plain``)."""
    config, scores = Config(*config), Scores(*scores)
    for i in range(rows.shape[0]):
        b = rows[i]
        penalty_even = 0  # team 0
        penalty_odd = 0  # team 1
        for t in range(NUM_TYPES):
            penalty_even += (np.int64(hands[b, 0, t]) + np.int64(hands[b, 2, t])) * CARD_PENALTY[t]
            penalty_odd += (np.int64(hands[b, 1, t]) + np.int64(hands[b, 3, t])) * CARD_PENALTY[t]
        out = out_seat[i]
        if out >= 0:
            if out % 2 == 0:
                penalty_even = 0
            else:
                penalty_odd = 0
        scores.scores[b, 0] += penalty_even
        scores.scores[b, 1] += penalty_odd
        scores.last_penalty[b, 0] = penalty_even
        scores.last_penalty[b, 1] = penalty_odd
        scores.went_out[b] = out
        scores.hand_number[b] += 1
        if config.score_delta:
            for seat in range(4):
                rewards[b, seat] -= penalty_even if seat % 2 == 0 else penalty_odd


def win_loss_rewards(team_scores: np.ndarray) -> np.ndarray:
    """Rewards ``(len, 4)`` of finished games with team scores ``(len, 2)``:
    +1 to both players of the team with the lower total, -1 to the others,
    0 to everyone in a draw."""
    result = np.sign(team_scores[:, 1] - team_scores[:, 0]).astype(np.float32)  # +1: team 0 lower (wins)
    return np.stack([result, -result], 1)[:, np.arange(4) % 2]
