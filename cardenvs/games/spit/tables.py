"""Spit's constants and tables (no numba); the ones Speed shares are marked.

Cards are the 52 standard cards, id ``suit * 13 + rank`` (ranks ``2..A``,
suits ``C D H S``); :data:`NONE` (52) stands for "no card".  Piles and
stacks are stored bottom first with a count; unused slots hold :data:`NONE`.

Spit actions (one fixed ``Discrete`` space per config; S = ``stockpiles``):

====================================  =======================================
id                                    text
====================================  =======================================
0                                     ``"wait"``
1 + 2*I + P                           ``"play I P"``: top card of stockpile I
                                      onto spit pile P
1 + 2*S + I*(S-1) + (J if J < I       ``"move I J"``: top card of stockpile I
else J-1)                             into the empty space J (I != J)
1 + 2*S + S*(S-1) + P                 ``"slap P"``
====================================  =======================================

S = 5: 33 actions (play 1-10, move 11-30, slap 31-32); S = 4: 23 actions.

The kernels read the per-config tables as named bundles
(:class:`ActionTables`, :class:`MaskTables`, :class:`LayoutTables`, built once
per config) and the state's arrays as one (:class:`SpitArrays`).  They are
handed to a kernel as packs (:func:`cardenvs.core.jit.pack`) and named again inside it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...core.actions import ActionTable
from ...core.cards import standard_deck
from ...core.jit import fscalar, kernel, pack_kind, view1, view2, view3, view4

# --- shared with Speed ------------------------------------------------------
DECK = standard_deck()  # local id == global id: suit * 13 + rank
NONE = 52  # "no card"
PLAYING, SLAPPING, DONE = 0, 1, 2  # phases (Speed is always playing until done)
PHASE_NAMES = ("playing", "slapping", "done")
WAIT = 0  # the action id of "wait" in both variants
VARIANTS = ("spit", "speed")
RED = np.isin(np.arange(52) // 13, (1, 2))  # diamonds and hearts


def adjacency(alternate_colors: bool) -> np.ndarray:
    """``fits[top, card]`` (53, 53) bool: ``card`` may be played on a pile
    whose top is ``top`` (rank one above or below, circular; with
    ``alternate_colors`` also the other colour).  Row and column 52 (no
    card) are all False.  Shared with Speed."""
    rank = np.arange(52) % 13
    diff = (rank[None, :] - rank[:, None]) % 13
    fits = np.zeros((53, 53), bool)
    adjacent = (diff == 1) | (diff == 12)
    if alternate_colors:
        adjacent &= RED[None, :] != RED[:, None]
    fits[:52, :52] = adjacent
    return fits


# --- Spit ---------------------------------------------------------------------
STOCKPILE_CHOICES = (5, 4)
K_WAIT, K_PLAY, K_MOVE, K_SLAP = 0, 1, 2, 3  # action kinds (SpitTables.kind)
SPIT_EXAMPLES = ("wait", "play 0 1", "move 0 1", "slap 0")


def spit_actions(stockpiles: int) -> list[tuple[str, int, int, int]]:
    """Every action in id order as ``(text, kind, source, destination)``:
    the stockpile a card leaves and the spit pile it is played onto, the
    empty space it moves into, or the pile slapped (0 where unused)."""
    out = [("wait", K_WAIT, 0, 0)]
    out += [(f"play {i} {p}", K_PLAY, i, p) for i in range(stockpiles) for p in range(2)]
    out += [(f"move {i} {j}", K_MOVE, i, j) for i in range(stockpiles) for j in range(stockpiles) if i != j]
    out += [(f"slap {p}", K_SLAP, 0, p) for p in range(2)]
    return out


def spit_action_table(stockpiles: int) -> ActionTable:
    """The action texts of Spit with ``stockpiles`` stockpiles."""
    return ActionTable([text for text, *_ in spit_actions(stockpiles)], "spit", SPIT_EXAMPLES)


# The per-config tables the kernels read, in three bundles (one per kind of
# kernel).  A layout *shape* is a seat's ``sum(stockpile_count[I] * 6**I)``
# (kept up to date by every play and move); from it come the filled-stockpile
# bits and whether a move would expose a card (a pile of 2+ and an empty one).
# A seat's *play bits*: bit 2I+P set when stockpile I's top fits spit pile P.


class ActionTables(NamedTuple):
    """What each action id does (:mod:`.apply`)."""

    kind: np.ndarray  # (A,) the kind of each action (K_*)
    source: np.ndarray  # (A,) the stockpile a play or move takes its card from
    destination: np.ndarray  # (A,) the empty space a move fills
    play_pile: np.ndarray  # (A,) the spit pile an action plays onto (0 for other actions)
    slap_pile: np.ndarray  # (A,) the pile an action slaps (-1 for other actions)
    shape_change: np.ndarray  # (A,) how an action changes its player's layout shape
    shed: np.float32  # reward per card played (0: none)


class MaskTables(NamedTuple):
    """The parts of a legal mask (:mod:`.legal`)."""

    fits: np.ndarray  # (53, 53) bool: see :func:`adjacency`
    play_mask: np.ndarray  # (4**S, 2S) bool: the "play I P" part of a mask, by play bits
    move_mask: np.ndarray  # (2**S, S(S-1)) bool: the "move I J" part, by filled-stockpile bits
    filled_of_shape: np.ndarray  # (6**S,) the filled-stockpile bits of a shape
    expose_of_shape: np.ndarray  # (6**S,) bool: a move would expose a face-down card


class LayoutTables(NamedTuple):
    """Where the cards of a new layout go (:mod:`.deal`): position t (t <
    layout size L = S(S+1)/2) goes to stockpile I at height H (piles of 1,
    2, 3, ... cards), slot ``layout_slot[t] = I * S + H`` of a seat's
    flattened (S, S) stockpiles."""

    layout_slot: np.ndarray  # (L,) flat stockpile slot of layout position t
    pile_sizes: np.ndarray  # (L + 1, S) stockpile sizes after laying out m cards
    shape_of_laid: np.ndarray  # (L + 1,) the layout shape after laying out m cards


def action_tables(stockpiles: int, shed: float) -> ActionTables:
    """The action tables of Spit with ``stockpiles`` stockpiles, earning
    ``shed`` per card played."""
    actions = spit_actions(stockpiles)
    kind = np.array([a[1] for a in actions], np.int64)
    source = np.array([a[2] for a in actions], np.int64)
    destination = np.array([a[3] for a in actions], np.int64)
    pow6 = 6 ** np.arange(stockpiles)
    leaves = np.where((kind == K_PLAY) | (kind == K_MOVE), -pow6[source], 0)
    return ActionTables(
        kind=kind,
        source=source,
        destination=destination,
        play_pile=np.where(kind == K_PLAY, destination, 0),
        slap_pile=np.where(kind == K_SLAP, destination, -1),
        shape_change=leaves + np.where(kind == K_MOVE, pow6[destination], 0),
        shed=np.float32(shed),
    )


def mask_tables(stockpiles: int, alternate_colors: bool) -> MaskTables:
    """The mask tables of Spit with ``stockpiles`` stockpiles."""
    S = stockpiles
    sizes = (np.arange(6**S)[:, None] // 6 ** np.arange(S)) % 6  # the stockpile sizes of each shape
    filled = ((np.arange(2**S)[:, None] >> np.arange(S)) & 1).astype(bool)
    return MaskTables(
        fits=adjacency(alternate_colors),
        play_mask=((np.arange(4**S)[:, None] >> np.arange(2 * S)) & 1).astype(bool),
        move_mask=np.stack([filled[:, i] & ~filled[:, j] for i in range(S) for j in range(S) if i != j], axis=1),
        filled_of_shape=((sizes > 0) * 2 ** np.arange(S)).sum(axis=1),
        expose_of_shape=(sizes >= 2).any(axis=1) & (sizes == 0).any(axis=1),
    )


def layout_tables(stockpiles: int) -> LayoutTables:
    """The layout tables of Spit with ``stockpiles`` stockpiles."""
    S = stockpiles
    layout_size = S * (S + 1) // 2  # 15 (10 with four stockpiles)
    pile_sizes = np.array(
        [[min(i + 1, max(0, m - i * (i + 1) // 2)) for i in range(S)] for m in range(layout_size + 1)], np.int64
    )
    pile_of_position = np.repeat(np.arange(S), np.arange(1, S + 1))
    height_of_position = np.concatenate([np.arange(i + 1) for i in range(S)])
    return LayoutTables(
        layout_slot=pile_of_position * S + height_of_position,
        pile_sizes=pile_sizes,
        shape_of_laid=pile_sizes @ 6 ** np.arange(S),
    )


class SpitArrays(NamedTuple):
    """The state arrays of a Spit batch the kernels read and write (one row
    per game; see ``SpitRules.new_state``), as one bundle
    (``state.bundle(SpitArrays)``).  Cards and stockpile counts are
    ``int8`` (less memory to sweep every tick): widen them before
    arithmetic that could pass 127."""

    stockpiles: np.ndarray  # (B, 2, S, S) stockpile cards, bottom first
    stockpile_count: np.ndarray  # (B, 2, S)
    stockpile_top: np.ndarray  # (B, 2, S) the face-up top card of each stockpile
    layout_count: np.ndarray  # (B, 2) cards left in each layout
    layout_shape: np.ndarray  # (B, 2) layout shape code (see above)
    spit_cards: np.ndarray  # (B, 2, 52) bottom first
    spit_count: np.ndarray  # (B, 2)
    centre: np.ndarray  # (B, 2, 52) the spit piles, bottom first
    centre_count: np.ndarray  # (B, 2)
    centre_top: np.ndarray  # (B, 2)
    phase: np.ndarray  # (B,)
    done: np.ndarray  # (B,)
    winner: np.ndarray  # (B,) -1: none (yet)
    scores: np.ndarray  # (B, 2)


# ---------------------------------------------------------------- packs
# The kernels take the rules' tables and the state's arrays as packs
# (:func:`cardenvs.core.jit.pack`: one int64 array each, a fraction of what
# a plain tuple of the 14 SpitArrays costs a call at batch 1) and name them
# again first thing (``unpack_*``, free once compiled).  The kinds below
# and the unpack kernels list the fields in the same order.

_I64_1, _I64_2, _I8_3 = (np.int64, 1), (np.int64, 2), (np.int8, 3)
#: The rules' pack (``rules.tables_pack``): the :class:`ActionTables` (values 0-6), the
#: :class:`MaskTables` (7-11), the :class:`LayoutTables` (12-14), then ``max_ticks`` (15; -1: none) and
#: ``stall_ticks`` (16; -1: none).
TABLES_KINDS = (
    *(*(_I64_1,) * 6, (float, 0)),
    *((np.bool_, 2), (np.bool_, 2), (np.bool_, 2), _I64_1, (np.bool_, 1)),
    *(_I64_1, _I64_2, _I64_1),
    (None, 0),
    (None, 0),
)
#: Where ``max_ticks`` and ``stall_ticks`` are in the rules' pack (``scalar(tables, ...)``).
MAX_TICKS_AT, STALL_TICKS_AT = 15, 16
#: The state's pack: the :class:`SpitArrays`, then what a tick reads besides (the masks, ticks, truncation,
#: and the ticks since a card was last played or spat: the stall rule's count).
STATE_FIELDS = (*SpitArrays._fields, "legal", "ticks", "truncated", "stall")
STATE_KINDS = (
    *((np.int8, 4), _I8_3, _I8_3, _I64_2, _I64_2),  # stockpiles, stockpile_count, stockpile_top, layout_count, shape
    *(_I8_3, _I64_2, _I8_3, _I64_2, _I64_2),  # spit_cards, spit_count, centre, centre_count, centre_top
    *(_I64_1, (np.bool_, 1), _I64_1, _I64_2),  # phase, done, winner, scores
    *((np.bool_, 3), _I64_1, (np.bool_, 1), _I64_1),  # legal, ticks, truncated, stall
)
#: ``state.bundle(StatePack)``: the state's arrays as one pack (made once per state).
StatePack = pack_kind(STATE_FIELDS, STATE_KINDS)


@kernel
def unpack_actions(p):
    """The :class:`ActionTables` of the rules' pack (:data:`TABLES_KINDS`)."""
    return ActionTables(
        view1(p, 0, np.int64),
        view1(p, 1, np.int64),
        view1(p, 2, np.int64),
        view1(p, 3, np.int64),
        view1(p, 4, np.int64),
        view1(p, 5, np.int64),
        np.float32(fscalar(p, 6)),
    )


@kernel
def unpack_masks(p):
    """The :class:`MaskTables` of the rules' pack (:data:`TABLES_KINDS`)."""
    return MaskTables(
        view2(p, 7, np.bool_),
        view2(p, 8, np.bool_),
        view2(p, 9, np.bool_),
        view1(p, 10, np.int64),
        view1(p, 11, np.bool_),
    )


@kernel
def unpack_layout(p):
    """The :class:`LayoutTables` of the rules' pack (:data:`TABLES_KINDS`)."""
    return LayoutTables(view1(p, 12, np.int64), view2(p, 13, np.int64), view1(p, 14, np.int64))


@kernel
def unpack_arrays(p):
    """The :class:`SpitArrays` of a state's pack (:data:`STATE_KINDS`)."""
    return SpitArrays(
        view4(p, 0, np.int8),
        view3(p, 1, np.int8),
        view3(p, 2, np.int8),
        view2(p, 3, np.int64),
        view2(p, 4, np.int64),
        view3(p, 5, np.int8),
        view2(p, 6, np.int64),
        view3(p, 7, np.int8),
        view2(p, 8, np.int64),
        view2(p, 9, np.int64),
        view1(p, 10, np.int64),
        view1(p, 11, np.bool_),
        view1(p, 12, np.int64),
        view2(p, 13, np.int64),
    )


@kernel
def unpack_tick(p):
    """What a tick reads of a state's pack besides its :class:`SpitArrays`:
    ``legal``, ``ticks``, ``truncated``."""
    return view3(p, 14, np.bool_), view1(p, 15, np.int64), view1(p, 16, np.bool_)


@kernel
def unpack_stall(p):
    """The stall rule's count of a state's pack (``state.stall`` (B,)): ticks
    of play since a card was last played onto a spit pile or spat."""
    return view1(p, 17, np.int64)
