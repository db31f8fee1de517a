"""Spit: the compiled kernels that apply a tick (see :mod:`cardenvs.core.jit`):
both players' actions (:func:`act`: the slaps of the slapping games,
:func:`slap`, then the plays and moves of the playing ones,
:func:`play_and_move`) and the automatic spit that breaks a stalemate
(:func:`spit_until_playable`).

Each is a loop over batch rows that reads and writes the state's arrays (a
:class:`~cardenvs.games.spit.tables.SpitArrays` bundle) in place, with the
config's :class:`~cardenvs.games.spit.tables.ActionTables`.  No kernel draws a
random number: the tick's coin (``first``, the faster hand of each game) is
drawn by the rules and passed in.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import kernel, raw_draw, scalar, view1, view2, view3
from .legal import masks
from .observation import OBS_DTYPE, write_observations
from .scoring import end_deals, truncate_rows
from .tables import (
    K_MOVE,
    K_PLAY,
    MAX_TICKS_AT,
    NONE,
    PLAYING,
    SLAPPING,
    STALL_TICKS_AT,
    unpack_actions,
    unpack_arrays,
    unpack_masks,
    unpack_stall,
    unpack_tick,
)


@kernel
def act(actions, first, active, action_tables, arrays, rewards, end_rows, end_taker, went_out):
    """Apply one tick's actions ``(B, 2)`` of the ``active`` games: the
    slaps of the slapping games, the plays and moves of the playing ones,
    then the deals that end (:func:`~cardenvs.games.spit.scoring.end_deals`).

    The deals that end (to be laid out anew by the caller, in this order:
    slaps, then the faster hands going out, then the slower ones, each in
    row order) are written to ``end_rows`` and ``end_taker`` (the seat taking
    spit pile 0 and pile 1); returns how many there are after the slaps,
    after the faster hands and in all.  ``action_tables`` and ``arrays``
    are the packs of an :class:`~.tables.ActionTables` and of the state
    (see :mod:`.tables`); ``went_out`` (B,): scratch (see :func:`play_and_move`).
    """
    tables, state = unpack_actions(action_tables), unpack_arrays(arrays)  # named again (see tables' packs)
    slaps = slap(actions, first, active, tables.slap_pile, state.phase, end_rows, end_taker)
    play_and_move(actions, first, active, tables, state, unpack_stall(arrays), rewards, went_out)
    faster = end_deals(True, first, went_out, state, rewards, end_rows, end_taker, slaps)
    return slaps, faster, end_deals(False, first, went_out, state, rewards, end_rows, end_taker, faster)


#: A raw PCG64 draw below this: its double (``random()``) below 0.5 (see ``SpitRules.step_one``).
HALF_RAW = np.uint64(1 << 63)


@kernel
def tick_one(coin, packs):
    """A batch of one's whole tick, for the one-game views (see
    ``SpitRules.step_one``): the ticks counted, :func:`act` with the
    faster hand ``coin`` (or, when the pack's scalar 3 is not 0, the
    coin drawn here first, from the generator of the pack's scalars 3 and
    4: :func:`~cardenvs.core.jit.raw_draw`, a raw draw below
    :data:`HALF_RAW`), the masks (:func:`~.legal.masks`), the truncation
    at the rules' ``max_ticks`` and both observations and int8 masks -- in
    the order :meth:`step` takes them.  ``packs``
    (:func:`~cardenvs.core.onegame.step_call`): the rules' tables, the
    state's arrays and the pack of a :class:`~cardenvs.core.onegame.OneGame`
    (rewards, observations, masks, the actions, then act's ``end_rows`` and
    ``end_taker``, the masks' ``stuck``, ``counts`` (4,), the scratch
    ``active``, ``first`` and ``rows`` (1,): a kernel's every array is an
    allocation, then ``spat``, ``dry`` and ``went_out`` (1,)).  It stops
    after :func:`act` when a deal ends (``counts``: what :func:`tick_rows`
    returns); a game
    stuck after the masks spits until playable (as ``SpitRules.follow_up``
    does first, drawing nothing: :func:`spit_until_playable`) and, unless
    still stuck (``dry``: the deal ends, which draws), gets its masks anew
    and goes on; the rules finish the ticks it stopped.  Returns whether
    the tick was observed (it went to its end), whether anyone scored, and
    whether the game is over and truncated."""
    tables, arrays, one = view2(packs, 0, np.int64), view2(packs, 1, np.int64), view2(packs, 2, np.int64)
    rewards, seen, mask = view2(one, 0, np.float32), view3(one, 1, OBS_DTYPE), view3(one, 2, np.int8)
    actions, end_rows, end_taker = view2(one, 3, np.int64), view1(one, 4, np.int64), view2(one, 5, np.int64)
    stuck, counts, active = view1(one, 6, np.bool_), view1(one, 7, np.int64), view1(one, 8, np.bool_)
    first, rows, max_ticks = view1(one, 9, np.int64), view1(one, 10, np.int64), scalar(tables, MAX_TICKS_AT)
    spat, dry, went_out = view1(one, 11, np.int64), view1(one, 12, np.bool_), view1(one, 13, np.int64)
    rewards[0, :] = 0
    state = unpack_arrays(arrays)
    legal, ticks, truncated = unpack_tick(arrays)
    active[0] = not state.done[0]
    ticks[0] += active[0]
    draw_function = scalar(packs, 3)
    first[0] = coin if draw_function == 0 else raw_draw(draw_function, scalar(packs, 4)) < HALF_RAW
    rows[0] = 0
    counts[0], counts[1], counts[2], counts[3] = tick_rows_into(
        actions, first, active, tables, arrays, rewards, end_rows, end_taker, stuck, rows, went_out
    )
    scored = False
    for seat in range(rewards.shape[1]):
        scored |= rewards[0, seat] != 0
    if counts[2]:
        return False, scored, False, False
    if counts[3]:  # stuck: both spit until a card fits (follow_up's first step)
        spit_until_playable(rows, unpack_masks(tables).fits, arrays, spat, dry)
        if dry[0]:
            return False, scored, False, False
        masks(rows, tables, arrays, stuck)
    if max_ticks >= 0:
        truncate_rows(max_ticks, state.done, ticks, truncated, state.phase, legal)
    write_observations(rows, max(max_ticks, 0), max(scalar(tables, STALL_TICKS_AT), 0), arrays, seen)
    for seat in range(2):
        for action in range(mask.shape[2]):
            mask[0, seat, action] = legal[0, seat, action]
    return True, scored, state.done[0], truncated[0]


@kernel
def tick_rows(actions, first, active, tables, arrays, rewards, end_rows, end_taker, stuck):
    """:func:`act`, then -- unless a deal ends, which the rules lay out anew
    before any mask -- the masks of every row (:func:`~.legal.masks`,
    ``stuck`` (B,)): a tick's two kernels in one call.  Returns what
    :func:`act` returns (the deals ended after the slaps, after the faster
    hands and in all), then how many games are stuck (0 when a deal ends:
    no masks made)."""
    batch = actions.shape[0]
    return tick_rows_into(
        actions,
        first,
        active,
        tables,
        arrays,
        rewards,
        end_rows,
        end_taker,
        stuck,
        np.arange(batch),
        np.empty(batch, np.int64),
    )


@kernel
def tick_rows_into(actions, first, active, tables, arrays, rewards, end_rows, end_taker, stuck, every, went_out):
    """:func:`tick_rows` with its arrays made by the caller: ``every`` the
    row numbers ``0..B-1``, ``went_out`` (B,) scratch (a kernel's every
    array is an allocation, a visible part of a batch of one's tick: see
    :func:`tick_one`, which passes its own)."""
    slaps, faster, ends = act(actions, first, active, tables, arrays, rewards, end_rows, end_taker, went_out)
    if ends:
        return slaps, faster, ends, 0
    return 0, 0, 0, masks(every, tables, arrays, stuck)


@kernel
def slap(actions, first, active, slap_pile, phase, end_rows, end_taker):
    """Slapping games: the faster hand (seat ``first``) gets the pile it
    slapped and the other player the other pile (a non-slap, only possible
    with ``illegal_action="wait"``, is slower than any slap).  Each such
    deal ends: written to ``end_rows`` / ``end_taker`` from index 0;
    returns how many."""
    ends = 0
    for r in range(actions.shape[0]):
        if not active[r] or phase[r] != SLAPPING:
            continue
        fast = first[r]
        fast_pick = slap_pile[actions[r, fast]]
        if fast_pick >= 0:
            decider, pile = fast, fast_pick
        else:
            decider, pile = 1 - fast, slap_pile[actions[r, 1 - fast]]
        if pile < 0:
            continue
        end_rows[ends] = r
        end_taker[ends, pile] = decider
        end_taker[ends, 1 - pile] = 1 - decider
        ends += 1
    return ends


@kernel
def play_and_move(actions, first, active, tables, state, stall, rewards, went_out):
    """Playing games: the faster hand's play or move is applied first; the
    slower one's does nothing when the faster one played the last card of
    its layout, or played onto the same spit pile (both cards fitted the old
    top, so their ranks differ by 0 or 2: the second no longer fits).
    ``stall`` (B,), the stall rule's count, grows by the tick and starts
    again at a card played (a move is not a play).

    A play or move takes the top card of stockpile I (the card below, if
    any, turns face up at once); ``"move I J"`` puts it into the empty space
    J, ``"play I P"`` onto spit pile P (earning ``tables.shed``, 0: none).
    Writes to ``went_out`` (B,) the seat of each game that played its last
    layout card (-1: none).  (One loop without per-row calls: a call
    passing the bundles would cost more than the work.)"""
    kind, play_pile = tables.kind, tables.play_pile
    batch = actions.shape[0]
    went_out[:] = -1
    for r in range(batch):
        if not active[r] or state.phase[r] != PLAYING:
            continue
        stall[r] += 1
        fast = first[r]
        fast_action, slow_action = actions[r, fast], actions[r, 1 - fast]
        slow_void = kind[fast_action] == K_PLAY and (
            state.layout_count[r, fast] == 1
            or (kind[slow_action] == K_PLAY and play_pile[slow_action] == play_pile[fast_action])
        )
        for k in range(1 if slow_void else 2):
            seat = fast ^ k
            action = actions[r, seat]
            if kind[action] != K_PLAY and kind[action] != K_MOVE:
                continue
            source = tables.source[action]
            card = state.stockpile_top[r, seat, source]
            state.layout_shape[r, seat] += tables.shape_change[action]
            height = np.int64(state.stockpile_count[r, seat, source]) - 1
            state.stockpile_count[r, seat, source] = np.int8(height)
            state.stockpiles[r, seat, source, height] = NONE
            below = state.stockpiles[r, seat, source, height - 1] if height > 0 else np.int8(NONE)
            state.stockpile_top[r, seat, source] = below
            if kind[action] == K_MOVE:
                space = tables.destination[action]
                state.stockpiles[r, seat, space, 0] = card
                state.stockpile_count[r, seat, space] = 1
                state.stockpile_top[r, seat, space] = card
                continue
            pile = play_pile[action]
            state.centre[r, pile, state.centre_count[r, pile]] = card
            state.centre_count[r, pile] += 1
            state.centre_top[r, pile] = card
            stall[r] = 0
            if tables.shed != 0:
                rewards[r, seat] += tables.shed
            state.layout_count[r, seat] -= 1
            if state.layout_count[r, seat] == 0:
                went_out[r] = seat


@kernel
def spit_until_playable(rows, fits, arrays, spat, dry):
    """Stuck games ``rows`` (nobody can play or expose a card): both players
    spit, round after round, until a stockpile top fits a spit pile or the
    spit cards run out (a player whose spit cards run out stops).  The
    layouts do not change meanwhile, so the round is found first, then the
    cards are turned.  Writes the rounds spat ``spat`` (k,) and whether the
    game is still stuck ``dry`` (k,); a spit starts the stall rule's count
    again.  ``arrays``: the state's pack."""
    state, stall = unpack_arrays(arrays), unpack_stall(arrays)
    for k in range(rows.shape[0]):
        r = rows[k]
        stall[r] = 0
        rounds = max(state.spit_count[r, 0], state.spit_count[r, 1])
        hit = _first_playable_round(r, rounds, fits, state)
        spat[k] = hit if hit > 0 else rounds
        dry[k] = hit == 0
        for p in range(2):
            left = state.spit_count[r, p]
            turned = min(spat[k], left)
            for j in range(turned):  # the j-th card turned is the j-th from the top
                card = state.spit_cards[r, p, left - 1 - j]
                state.spit_cards[r, p, left - 1 - j] = NONE
                state.centre[r, p, state.centre_count[r, p] + j] = card
                state.centre_top[r, p] = card
            state.spit_count[r, p] = left - turned
            state.centre_count[r, p] += turned


@kernel
def _first_playable_round(r, rounds, fits, state):
    """The first of ``rounds`` spitting rounds after which a stockpile top
    of game ``r`` fits a spit pile (0: none)."""
    size = state.stockpile_top.shape[2]
    for t in range(1, rounds + 1):
        for p in range(2):
            # spit pile P's top after t rounds: spit card left - t (the
            # bottom one once they run out); without spit cards, as it is
            left = state.spit_count[r, p]
            pile_top = state.spit_cards[r, p, max(left - t, 0)] if left > 0 else state.centre_top[r, p]
            for seat in range(2):
                for i in range(size):
                    if fits[pile_top, state.stockpile_top[r, seat, i]]:
                        return t
    return 0
