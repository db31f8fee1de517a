"""Spit: the compiled per-row kernels of a tick (see :mod:`cardenvs.core.jit`).

:class:`~cardenvs.spit.rules.SpitRules` keeps the order of a tick, every
random draw and the rare branches (stalemates that end a deal); these kernels
are the hot spots it calls: applying both players' actions, laying out new
deals, the legal masks (with which games are stuck) and spitting until a
stalemate is broken.  Each is a loop over batch rows that reads and writes
the state's arrays in place (the arrays of ``SpitRules.new_state``: cards and
stockpile counts ``int8``, other counts and codes ``int64``).

No kernel draws a random number: the tick's coin and the deck orders are
drawn by the rules with the batch's numpy generator and passed in.

The offsets of the byte copies that fill masks and observations are unsigned
(``np.uint64``): numba checks every signed index for a negative value (to
count from the end), and that check keeps LLVM from vectorizing the copy;
with unsigned offsets the mask and observation kernels take about 40% less
time.
"""

from __future__ import annotations

import numpy as np

from ..core.jit import kernel

NONE = 52  # "no card"
PLAYING, SLAPPING, DONE = 0, 1, 2  # phases
K_WAIT, K_PLAY, K_MOVE, K_SLAP = 0, 1, 2, 3  # Spit action kinds (SpitRules.kind)


@kernel
def act(
    actions,
    first,
    active,
    kind,
    src,
    dst,
    play_pile,
    slap_pile,
    shape_change,
    shed,
    piles,
    pile_n,
    top,
    shape,
    centre,
    centre_n,
    ctop,
    layout_n,
    spit_n,
    scores,
    phase,
    done,
    winner,
    rewards,
    end_rows,
    end_taker,
):
    """Apply one tick's actions ``(B, 2)`` of the ``active`` games.

    Slapping games: the faster hand (seat ``first``) gets the pile it slapped
    and the other player the other pile (a non-slap, only possible with
    ``illegal_action="wait"``, is slower than any slap).

    Playing games: the faster hand's play or move is applied first; the
    slower one's does nothing when the faster one played the last card of
    its layout, or played onto the same spit pile (both cards fitted the old
    top, so their ranks differ by 0 or 2: the second no longer fits).  A
    player who plays the last layout card wins the game if they have no spit
    cards; otherwise, with both spit piles in the centre, both slap next
    tick, and with one pile the deal ends: the other player takes it.

    The deals that end (to be laid out anew by the caller, in this order:
    slaps, then the faster hands going out, then the slower ones, each in
    row order) are written to ``end_rows`` and ``end_taker`` (the seat taking
    spit pile 0 and pile 1); returns how many.  ``shed`` (float32) is the
    reward per card played (0: none); a won game gives +1 / -1.
    """
    batch = actions.shape[0]
    ends = 0
    for r in range(batch):
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

    went_out = np.full(batch, -1, np.int64)  # the seat that played its last layout card
    for r in range(batch):
        if not active[r] or phase[r] != PLAYING:
            continue
        fast = first[r]
        fast_action, slow_action = actions[r, fast], actions[r, 1 - fast]
        fast_plays = kind[fast_action] == K_PLAY
        slow_void = fast_plays and (
            layout_n[r, fast] == 1 or (kind[slow_action] == K_PLAY and play_pile[slow_action] == play_pile[fast_action])
        )
        for k in range(1 if slow_void else 2):
            seat = fast ^ k
            a = actions[r, seat]
            if kind[a] != K_PLAY and kind[a] != K_MOVE:
                continue
            # the top card leaves stockpile i; the card below, if any, turns face up
            i = src[a]
            card = top[r, seat, i]
            shape[r, seat] += shape_change[a]
            n = np.int64(pile_n[r, seat, i]) - 1
            pile_n[r, seat, i] = np.int8(n)
            piles[r, seat, i, n] = NONE
            top[r, seat, i] = piles[r, seat, i, n - 1] if n > 0 else np.int8(NONE)
            if kind[a] == K_MOVE:
                j = dst[a]
                piles[r, seat, j, 0] = card
                pile_n[r, seat, j] = 1
                top[r, seat, j] = card
                continue
            p = play_pile[a]
            centre[r, p, centre_n[r, p]] = card
            centre_n[r, p] += 1
            ctop[r, p] = card
            if shed != 0:
                rewards[r, seat] += shed
            layout_n[r, seat] -= 1
            if layout_n[r, seat] == 0:
                went_out[r] = seat

    # The faster hands' deals end first: the seeded deck orders of the new
    # layouts go to the rows in that order.
    for faster in (True, False):
        for r in range(batch):
            seat = went_out[r]
            if seat < 0 or (seat == first[r]) != faster:
                continue
            if spit_n[r, seat] == 0:  # no spit cards either: the game is won
                scores[r, seat] += 1
                done[r] = True
                phase[r] = DONE
                winner[r] = seat
                rewards[r, seat] += np.float32(1.0)
                rewards[r, 1 - seat] -= np.float32(1.0)
            elif centre_n[r, 0] == 0 or centre_n[r, 1] == 0:
                # One spit pile: the player who went out takes nothing from the
                # centre; the other collects the pile with their own cards.
                end_rows[ends] = r
                end_taker[ends, 0] = 1 - seat
                end_taker[ends, 1] = 1 - seat
                ends += 1
            else:
                phase[r] = SLAPPING  # both slap a spit pile next tick
    return ends


@kernel
def gather_cards(rows, taker, orders, piles, spit, centre, cards, counts):
    """End of a deal in ``rows``: each player's cards for the next layout,
    written to ``cards`` (k, 2, 52) with ``counts`` (k, 2).

    A player gathers their stockpile and spit cards plus the spit piles
    they take (``taker`` (k, 2): the seat taking pile 0 and pile 1), in the
    order the cards have in the row's deck order ``orders`` (k, 52).
    """
    owner = np.empty(NONE + 1, np.int64)  # column NONE takes the writes of empty slots
    size = piles.shape[2]
    for k in range(rows.shape[0]):
        r = rows[k]
        for seat in range(2):
            for i in range(size):
                for h in range(size):
                    owner[piles[r, seat, i, h]] = seat
            for h in range(spit.shape[2]):
                owner[spit[r, seat, h]] = seat
        for p in range(2):
            for h in range(centre.shape[2]):
                owner[centre[r, p, h]] = taker[k, p]
        counts[k, 0] = 0
        counts[k, 1] = 0
        for t in range(orders.shape[1]):
            card = orders[k, t]
            seat = owner[card]
            cards[k, seat, counts[k, seat]] = card
            counts[k, seat] += 1


@kernel
def lay_out(
    rows,
    cards,
    counts,
    layout_slot,
    pile_sizes,
    shape_of_laid,
    piles,
    pile_n,
    layout_n,
    shape,
    top,
    spit,
    spit_n,
    centre,
    centre_n,
    ctop,
    phase,
):
    """Each player of ``rows`` lays out ``cards`` (k, 2, 52) (``counts`` of
    them, in order): position t of the layout goes to the flat stockpile
    slot ``layout_slot[t]`` (piles of 1, 2, 3, ... cards, the last laid on a
    pile its face-up top), as far as the cards go; the rest, in order, are
    the spit cards (first = top), and the top one is turned onto the
    player's own spit pile at once.  The games are playing again."""
    size = piles.shape[2]
    layout_size = layout_slot.shape[0]
    for k in range(rows.shape[0]):
        r = rows[k]
        for seat in range(2):
            count = counts[k, seat]
            laid = min(count, layout_size)
            piles[r, seat] = NONE
            for t in range(laid):
                slot = layout_slot[t]
                piles[r, seat, slot // size, slot % size] = np.int8(cards[k, seat, t])
            for i in range(size):
                n = pile_sizes[laid, i]
                pile_n[r, seat, i] = np.int8(n)
                top[r, seat, i] = piles[r, seat, i, n - 1] if n > 0 else np.int8(NONE)
            layout_n[r, seat] = laid
            shape[r, seat] = shape_of_laid[laid]
            # spit cards: stored bottom first, the top one turned at once
            left = count - laid
            spit[r, seat] = NONE
            for h in range(left - 1):
                spit[r, seat, h] = np.int8(cards[k, seat, layout_size + left - 1 - h])
            spit_n[r, seat] = max(left - 1, 0)
            centre[r, seat] = NONE
            if left > 0:
                centre[r, seat, 0] = np.int8(cards[k, seat, layout_size])
                centre_n[r, seat] = 1
                ctop[r, seat] = cards[k, seat, layout_size]
            else:
                centre_n[r, seat] = 0
                ctop[r, seat] = NONE
        phase[r] = PLAYING


@kernel
def masks(rows, adj, top, ctop, shape, phase, filled_of_shape, expose_of_shape, play_mask, move_mask, legal, stuck):
    """The legal actions ``legal[r, seat]`` of the games ``rows``, in the
    order of the action ids: while playing, wait, the plays that fit
    (``adj[pile top, card]``) and the moves from a filled stockpile into an
    empty one; while slapping, both slaps; nothing once the game is over.

    A seat's plays are its *play bits* (bit 2I+P: stockpile I's top fits
    spit pile P), its moves its filled-stockpile bits (from the layout
    shape); ``play_mask[play bits]`` and ``move_mask[filled bits]`` are the
    corresponding parts of the mask.  Also writes ``stuck`` (k,): playing,
    nobody can play and nobody can expose a card by moving into an empty
    space."""
    size = top.shape[2]
    plays_end = np.uint64(1 + 2 * size)  # actions 1.. are the plays, then the moves, then the slaps
    moves_end = plays_end + np.uint64(size * (size - 1))
    for k in range(rows.shape[0]):
        r = rows[k]
        pile0, pile1 = ctop[r, 0], ctop[r, 1]
        playing = phase[r] == PLAYING
        slapping = phase[r] == SLAPPING
        anyone_plays = False
        can_expose = False
        for seat in range(2):
            bits = 0
            for i in range(size):
                card = top[r, seat, i]
                bits |= (np.int64(adj[pile0, card]) | (np.int64(adj[pile1, card]) << 1)) << (2 * i)
            anyone_plays |= bits != 0
            can_expose |= expose_of_shape[shape[r, seat]]
            mask = legal[r, seat]
            mask[0] = playing
            if playing:
                fitting, movable = play_mask[bits], move_mask[filled_of_shape[shape[r, seat]]]
                for a in range(np.uint64(fitting.shape[0])):
                    mask[np.uint64(1) + a] = fitting[a]
                for a in range(np.uint64(movable.shape[0])):
                    mask[plays_end + a] = movable[a]
            else:
                mask[1:moves_end] = False
            mask[moves_end] = slapping
            mask[moves_end + np.uint64(1)] = slapping
        stuck[k] = playing and not anyone_plays and not can_expose


@kernel
def spit_until_playable(rows, adj, top, spit, spit_n, centre, centre_n, ctop, spat, dry):
    """Stuck games ``rows`` (nobody can play or expose a card): both players
    spit, round after round, until a stockpile top fits a spit pile or the
    spit cards run out (a player whose spit cards run out stops).  The
    layouts do not change meanwhile, so the round is found first, then the
    cards are turned.  Writes the rounds spat ``spat`` (k,) and whether the
    game is still stuck ``dry`` (k,)."""
    size = top.shape[2]
    for k in range(rows.shape[0]):
        r = rows[k]
        rounds = max(spit_n[r, 0], spit_n[r, 1])
        hit = 0
        for t in range(1, rounds + 1):
            for p in range(2):
                # spit pile P's top after t rounds: spit card n - t (the
                # bottom one once they run out); without spit cards, as it is
                n = spit_n[r, p]
                pile_top = spit[r, p, max(n - t, 0)] if n > 0 else ctop[r, p]
                for seat in range(2):
                    for i in range(size):
                        if adj[pile_top, top[r, seat, i]]:
                            hit = t
                if hit:
                    break
            if hit:
                break
        spat[k] = hit if hit > 0 else rounds
        dry[k] = hit == 0
        for p in range(2):
            n = spit_n[r, p]
            turned = min(spat[k], n)
            for j in range(turned):  # the j-th card turned is the j-th from the top
                card = spit[r, p, n - 1 - j]
                spit[r, p, n - 1 - j] = NONE
                centre[r, p, centre_n[r, p] + j] = card
                ctop[r, p] = card
            spit_n[r, p] = n - turned
            centre_n[r, p] += turned
