"""Speed: the observation (what one player can see) as data, and its writer.

:func:`speed_layout` names, places and bounds every number (the bound of
the scores depends on ``target_score``; :data:`LAYOUT` is the default
config's, and ``LAYOUT.markdown()`` the docs table); every offset the writer
uses is derived from it.  "Own" is the observing player, "opponent" the
other one; the centre piles keep their absolute numbers.  100 numbers, all
small integers: ``int8`` unless the scores or the ticks left can pass 127
(a ``target_score`` above 75, a ``max_ticks`` above 127: the default
5000), then ``int16`` (``int32`` past 32715; see :func:`obs_dtype`).
The card code of the centre tops is Spit's (:data:`cardenvs.games.spit.observation.CARD`).

Never encoded: the opponent's hand, a stock or side-pile card, the cards
below the centre tops.

The writer is whole-batch numpy (see :mod:`.deal`).
"""

from __future__ import annotations

import numpy as np

from ....core.game import BatchState
from ....core.layout import LEFT_MAX, Field, Layout, left_before_rows, left_field
from ..observation import CARD, CARD_CODE
from ..tables import PLAYING


def speed_layout(max_score: int) -> Layout:
    """The observation with scores bounded by ``max_score``."""
    return Layout(
        [
            Field("hand", 52, "own hand (1 = held), cards 2C 3C .. AC 2D .. AS"),
            Field("centre_tops", 0, "centre piles 0, 1: the top card", count=2, parts=CARD),
            Field("own_hand_count", 1, "cards in own hand", high=52, counts="hands[+0]"),
            Field("opponent_hand_count", 1, "cards in the opponent's hand", high=52, counts="hands[+1]"),
            Field("own_stock_count", 1, "cards in own stock", high=52, counts="stocks[+0]"),
            Field("opponent_stock_count", 1, "cards in the opponent's stock", high=52, counts="stocks[+1]"),
            Field("side_pile_counts", 1, "cards in side pile 0, 1", count=2, high=52),
            Field("centre_counts", 1, "cards in centre pile 0, 1", count=2, high=52),
            Field("seat", 2, "own seat one-hot"),
            Field("own_score", 1, "own score in points (bound: target_score + 52)", high=max_score),
            Field("opponent_score", 1, "the opponent's score in points", high=max_score),
            left_field(
                "stall_left", "ticks with no card played", "stall_ticks", "the stall (a stalemate: the side piles turn)"
            ),
            left_field("ticks_left", "ticks", "max_ticks"),
        ]
    )


def score_bound(target_score: int | None) -> int:
    """The highest score a config can reach: the last game of a match adds
    at most 52 points."""
    return (target_score or 1) + 52


LAYOUT = speed_layout(score_bound(None))

# The offsets the writer uses.
HAND = LAYOUT["hand"].offset
CENTRE_TOPS = LAYOUT["centre_tops"].offset
OWN_HAND_COUNT = LAYOUT["own_hand_count"].offset
OPPONENT_HAND_COUNT = LAYOUT["opponent_hand_count"].offset
OWN_STOCK_COUNT = LAYOUT["own_stock_count"].offset
OPPONENT_STOCK_COUNT = LAYOUT["opponent_stock_count"].offset
SIDE_PILE_COUNTS = LAYOUT["side_pile_counts"].offset
CENTRE_COUNTS = LAYOUT["centre_counts"].offset
SEAT = LAYOUT["seat"].offset
OWN_SCORE = LAYOUT["own_score"].offset
OPPONENT_SCORE = LAYOUT["opponent_score"].offset
TICKS_LEFT, STALL_LEFT = LAYOUT["ticks_left"].offset, LAYOUT["stall_left"].offset


def obs_dtype(max_score: int, max_ticks: int | None, stall_ticks: int | None = None) -> type:
    """The smallest integer dtype that holds every number (scores up to
    ``max_score``, ticks left up to ``max_ticks`` and ``stall_ticks``, each
    shown at most LEFT_MAX; every other number is at most 52)."""
    largest = max(max_score, min(max(max_ticks or 0, stall_ticks or 0), LEFT_MAX))
    for dtype in (np.int8, np.int16, np.int32):
        if largest <= np.iinfo(dtype).max:
            return dtype
    return np.int64


def observe(
    state: BatchState,
    rows: np.ndarray | None,
    dtype: type,
    limits: tuple[int | None, int | None],
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Observations ``(k, 2, 100)`` in ``dtype`` of the games in ``rows`` (all
    if None); written into ``out`` if given (of any dtype).  ``limits``: the
    rules' ``max_ticks`` and ``stall_ticks``."""
    k = state.batch if rows is None else len(rows)
    if out is None:
        out = np.empty((k, 2, LAYOUT.size), dtype)
    state.shards.map(  # (row shards in threads: see cardenvs.core.shards)
        k,
        lambda lo, hi: write_observations(state, slice(lo, hi) if rows is None else rows[lo:hi], limits, out[lo:hi]),
    )
    return out


def write_observations(
    state: BatchState, rows: slice | np.ndarray, limits: tuple[int | None, int | None], out: np.ndarray
) -> None:
    """Write the observations of the games ``rows`` into ``out``
    (``limits``: ``max_ticks`` and ``stall_ticks``)."""
    max_ticks, stall_ticks = limits
    pick = lambda a: a[rows]  # noqa: E731
    hand, centre_top = pick(state.hand), pick(state.centre_top)
    k = hand.shape[0]
    out[:, :, HAND : HAND + 52] = hand
    out[:, :, CENTRE_TOPS : CENTRE_TOPS + 2 * CARD.size] = np.take(CARD_CODE, centre_top, axis=0).reshape(
        k, 1, 2 * CARD.size
    )
    hand_count, stock_count = pick(state.hand_count), pick(state.stock_count)
    out[:, :, OWN_HAND_COUNT] = hand_count
    out[:, :, OPPONENT_HAND_COUNT] = hand_count[:, ::-1]
    out[:, :, OWN_STOCK_COUNT] = stock_count
    out[:, :, OPPONENT_STOCK_COUNT] = stock_count[:, ::-1]
    out[:, :, SIDE_PILE_COUNTS : SIDE_PILE_COUNTS + 2] = pick(state.side_count)[:, None, :]
    out[:, :, CENTRE_COUNTS : CENTRE_COUNTS + 2] = pick(state.centre_count)[:, None, :]
    out[:, :, SEAT : SEAT + 2] = np.eye(2, dtype=out.dtype)
    scores = pick(state.scores)
    out[:, :, OWN_SCORE] = scores
    out[:, :, OPPONENT_SCORE] = scores[:, ::-1]
    out[:, :, TICKS_LEFT] = left_before_rows(max_ticks, pick(state.ticks))[:, None]
    playing = pick(state.phase) == PLAYING
    out[:, :, STALL_LEFT] = np.where(playing, left_before_rows(stall_ticks, pick(state.stall)), 0)[:, None]
