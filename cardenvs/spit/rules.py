"""Spit and Speed: the batched rules core (every rule of ``shared/rules/spit.md``).

Spit is real-time: at every *tick* both players submit one action.  State is
a :class:`~cardenvs.core.game.BatchState` of arrays with one row per game;
:class:`SpitRules` holds the configuration and applies a tick to all rows at
once: Speed in whole-batch numpy (branches are row subsets), Spit with
compiled per-row kernels (:mod:`.kernels`) for the hot spots.  The PettingZoo
parallel env, its AEC view and the vector engine are views over this class
(:mod:`cardenvs.core.simultaneous`).

Cards are the 52 standard cards, id ``suit * 13 + rank`` (ranks ``2..A``,
suits ``C D H S``); 52 stands for "no card".  Piles and stacks are stored
bottom first with a count; unused slots hold 52.

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

Speed actions: 0 ``"wait"``, ``1 + 2*card + P`` ``"play CARD P"`` (card id
as above, onto centre pile P): 105 actions.

One tick (:meth:`SpitRules.step`): a seeded coin per game decides whose
action is applied first (the faster hand).  Each action is checked against
the position as it is when applied; one that no longer fits (the other
player just covered that pile) or comes after the end of the deal does
nothing.  Then the automatic events: turning face-down cards (immediate),
stalemate spits / side-pile flips, the end of a deal, and the legal masks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.cards import standard_deck
from ..core.game import BatchState, choice, positive_int
from ..core.simultaneous import SimultaneousRules, SimultaneousVectorEnv
from . import kernels, observation

# "no card", the phases and the Spit action kinds are defined once, with the kernels
from .kernels import DONE, K_MOVE, K_PLAY, K_SLAP, NONE, PLAYING, SLAPPING

DECK = standard_deck()  # local id == global id: suit * 13 + rank
RED = np.isin(np.arange(52) // 13, (1, 2))  # diamonds and hearts

PHASE_NAMES = ("playing", "slapping", "done")
WAIT = 0


def adjacency(alternate_colors: bool) -> np.ndarray:
    """``ADJ[top, card]``: ``card`` may be played on a pile whose top is
    ``top`` (rank one above or below, circular; with ``alternate_colors``
    also the other colour).  Row and column 52 (no card) are all False."""
    rank = np.arange(52) % 13
    diff = (rank[None, :] - rank[:, None]) % 13
    adj = np.zeros((53, 53), bool)
    ok = (diff == 1) | (diff == 12)
    if alternate_colors:
        ok &= RED[None, :] != RED[:, None]
    adj[:52, :52] = ok
    return adj


class SpitRules(SimultaneousRules):
    """Batched Spit / Speed rules for one configuration.

    Config (defaults from the rules file): ``variant`` ``"spit"``/``"speed"``;
    ``stockpiles`` 5/4 and ``alternate_colors`` (Spit; alternate colours also
    apply to Speed); ``speed_side_piles`` 10/5 and ``target_score`` (None or
    a positive int; Speed only); ``max_ticks`` (5000; None = no limit);
    ``reward`` ``"win_loss"``/``"cards_shed"``; ``illegal_action``
    ``"raise"``/``"wait"``.
    """

    name = "spit_v0"
    deck = DECK
    num_players = 2
    wait_action = WAIT
    vector_env_class = SimultaneousVectorEnv

    def __init__(
        self,
        variant: str = "spit",
        stockpiles: int = 5,
        alternate_colors: bool = False,
        speed_side_piles: int = 10,
        target_score: int | None = None,
        max_ticks: int | None = 5000,
        reward: str = "win_loss",
        illegal_action: str = "raise",
    ):
        self.variant = choice("variant", variant, ("spit", "speed"))
        self.stockpiles = choice("stockpiles", stockpiles, (5, 4))
        if not isinstance(alternate_colors, (bool, np.bool_)):
            raise ValueError(f"alternate_colors must be one of [False, True], got {alternate_colors!r}")
        self.alternate_colors = bool(alternate_colors)
        self.speed_side_piles = choice("speed_side_piles", speed_side_piles, (10, 5))
        self.target_score = positive_int("target_score", target_score, allow_none=True)
        self.max_ticks = positive_int("max_ticks", max_ticks, allow_none=True)
        self.reward = choice("reward", reward, ("win_loss", "cards_shed"))
        self.illegal_action = choice("illegal_action", illegal_action, ("raise", "wait"))
        self.speed = self.variant == "speed"
        if self.speed and stockpiles != 5:
            raise ValueError(
                f"stockpiles applies only to variant='spit' (got stockpiles={stockpiles!r} with variant='speed')"
            )
        if not self.speed and speed_side_piles != 10:
            raise ValueError(
                f"speed_side_piles applies only to variant='speed' (got {speed_side_piles!r} with variant='spit')"
            )
        if not self.speed and target_score is not None:
            raise ValueError(f"target_score applies only to variant='speed' (got {target_score!r} with variant='spit')")
        self.adj = adjacency(self.alternate_colors)
        self.adj_flat = self.adj.ravel()
        # reward per card played (float32, the dtype of the rewards; 0: none)
        self.shed = np.float32(1.0 / 52 if self.reward == "cards_shed" else 0.0)
        self.texts: list[str] = []
        if self.speed:
            self._init_speed()
        else:
            self._init_spit()
        self.num_actions = len(self.texts)
        self.text_index = {t: a for a, t in enumerate(self.texts)}

    def _init_spit(self) -> None:
        S = self.stockpiles
        self.layout_size = S * (S + 1) // 2  # 15 (10 with four stockpiles)
        self.play0 = 1
        self.move0 = 1 + 2 * S
        self.slap0 = self.move0 + S * (S - 1)
        A = self.slap0 + 2
        kind, src, dst = np.zeros(A, np.int64), np.zeros(A, np.int64), np.zeros(A, np.int64)
        self.texts = ["wait"]
        for i in range(S):
            for p in range(2):
                kind[len(self.texts)], src[len(self.texts)], dst[len(self.texts)] = K_PLAY, i, p
                self.texts.append(f"play {i} {p}")
        for i in range(S):
            for j in range(S):
                if i != j:
                    kind[len(self.texts)], src[len(self.texts)], dst[len(self.texts)] = K_MOVE, i, j
                    self.texts.append(f"move {i} {j}")
        for p in range(2):
            kind[len(self.texts)], dst[len(self.texts)] = K_SLAP, p
            self.texts.append(f"slap {p}")
        self.kind, self.src, self.dst = kind, src, dst
        # slap_pile[a]: the pile an action slaps, -1 for any other action;
        # play_pile[a]: the pile an action plays onto, 0 for any other action
        self.slap_pile = np.where(kind == K_SLAP, dst, -1)
        self.play_pile = np.where(kind == K_PLAY, dst, 0)
        # Laying out n cards: position t (t < layout size) goes to stockpile
        # I at height H (piles of 1, 2, 3, ... cards), slot LAYOUT_SLOT[t] =
        # I * S + H of a seat's flattened (S, S) stockpiles.
        pos_pile = np.repeat(np.arange(S), np.arange(1, S + 1))
        pos_height = np.concatenate([np.arange(i + 1) for i in range(S)])
        self.layout_slot = pos_pile * S + pos_height
        # PILE_SIZES[m]: stockpile sizes when m <= layout size cards are laid out
        self.pile_sizes = np.array(
            [[min(i + 1, max(0, m - i * (i + 1) // 2)) for i in range(S)] for m in range(self.layout_size + 1)],
            np.int64,
        )
        # A seat's layout *shape*: sum of pile_n[I] * 6**I (kept up to date
        # by every pop and move).  From it: the filled-stockpile bits and
        # whether a move would expose a card (a pile of 2+ and an empty one).
        self.pow6 = 6 ** np.arange(S)
        self.shape_of_laid = self.pile_sizes @ self.pow6  # the shape after laying out m cards
        # SHAPE_CHANGE[a]: how action a changes its player's shape (a card
        # leaves stockpile src; a move puts it on stockpile dst)
        self.shape_change = np.where(kind == K_PLAY, -self.pow6[src], 0) + np.where(
            kind == K_MOVE, self.pow6[dst] - self.pow6[src], 0
        )
        sizes = (np.arange(6**S)[:, None] // self.pow6) % 6
        self.filled_of_shape = ((sizes > 0) * 2 ** np.arange(S)).sum(axis=1)
        self.expose_of_shape = (sizes >= 2).any(axis=1) & (sizes == 0).any(axis=1)
        # The parts of a playing seat's mask: PLAY_MASK[play bits] (bit 2I+P:
        # stockpile I's top fits spit pile P) are the "play I P" actions in
        # order, MOVE_MASK[filled bits] the "move I J" actions (I filled, J empty).
        self.play_mask = ((np.arange(4**S)[:, None] >> np.arange(2 * S)) & 1).astype(bool)
        filled = ((np.arange(2**S)[:, None] >> np.arange(S)) & 1).astype(bool)
        self.move_mask = np.stack([filled[:, i] & ~filled[:, j] for i in range(S) for j in range(S) if i != j], axis=1)
        self.obs_size = observation.SPIT_OBS_SIZE
        self.obs_dtype = observation.SPIT_OBS_DTYPE
        self.obs_low = np.zeros(self.obs_size, np.float32)
        self.obs_high = observation.SPIT_OBS_HIGH

    def _init_speed(self) -> None:
        self.texts = ["wait"] + [f"play {DECK.texts[c]} {p}" for c in range(52) for p in range(2)]
        self.side_size = self.speed_side_piles
        self.stock_size = (52 - 2 - 2 * self.side_size) // 2  # 15 (20 with side piles of 5)
        self.obs_size = observation.SPEED_OBS_SIZE
        self.obs_low = np.zeros(self.obs_size, np.float32)
        max_score = (self.target_score or 1) + 52  # the last game of a match adds at most 52
        self.obs_dtype = observation.speed_obs_dtype(max_score)
        self.obs_high = observation.speed_obs_high(max_score)
        # adj_cards[top] (53, 52): which cards may be played on a pile whose top is ``top``
        self.adj_cards = np.ascontiguousarray(self.adj[:, :52])

    # ------------------------------------------------------------------ state
    def new_state(self, batch: int, rng: np.random.Generator) -> BatchState:
        B = batch
        s = BatchState(batch, rng)
        s.phase = np.full(B, DONE, np.int64)
        s.legal = np.zeros((B, 2, self.num_actions), bool)
        s.done = np.zeros(B, bool)
        s.truncated = np.zeros(B, bool)
        s.deals = np.zeros(B, np.int64)
        s.hand_number = np.zeros(B, np.int64)
        s.dealer = np.zeros(B, np.int64)
        s.scores = np.zeros((B, 2), np.int64)
        s.winner = np.full(B, -1, np.int64)
        s.ticks = np.zeros(B, np.int64)
        # the centre (spit piles in Spit, centre piles in Speed): bottom first
        s.centre = np.full((B, 2, 52), NONE, np.int8)
        s.centre_n = np.zeros((B, 2), np.int64)
        s.ctop = np.full((B, 2), NONE, np.int64)
        if self.speed:
            s.hand = np.zeros((B, 2, 52), bool)
            s.hand_n = np.zeros((B, 2), np.int64)
            s.stock = np.full((B, 2, 52), NONE, np.int16)  # bottom first
            s.stock_n = np.zeros((B, 2), np.int64)
            s.side = np.full((B, 2, 52), NONE, np.int16)  # bottom first
            s.side_n = np.zeros((B, 2), np.int64)
        else:
            S = self.stockpiles
            # Cards and card counts are int8 (less memory to sweep every
            # tick): widen them before arithmetic that could pass 127.
            s.piles = np.full((B, 2, S, S), NONE, np.int8)  # stockpile cards, bottom first
            s.pile_n = np.zeros((B, 2, S), np.int8)
            s.layout_n = np.zeros((B, 2), np.int64)  # cards left in each layout
            s.shape = np.zeros((B, 2), np.int64)  # layout shape code (see _init_spit)
            s.top = np.full((B, 2, S), NONE, np.int8)  # face-up top card of each stockpile
            s.spit = np.full((B, 2, 52), NONE, np.int8)  # spit cards, bottom first
            s.spit_n = np.zeros((B, 2), np.int64)
        return s

    def reset(self, state: BatchState, rows: np.ndarray, dealer: int | None = None) -> None:
        """Start a new game in ``rows``.  ``dealer`` is recorded only: Spit
        has no dealer (both players lay out their own cards)."""
        rows = np.asarray(rows, np.int64)
        state.done[rows] = False
        state.truncated[rows] = False
        state.deals[rows] = 0
        state.hand_number[rows] = 0
        state.dealer[rows] = 0 if dealer is None else dealer
        state.scores[rows] = 0
        state.winner[rows] = -1
        state.ticks[rows] = 0
        if self.speed:
            self._speed_deal(state, rows)
            self._speed_settle(state, rows)
            for _ in range(100):
                # A deal nobody could ever play from (vanishingly rare) is
                # dealt again, so that an episode never starts finished.
                dead = rows[state.done[rows]]
                if not dead.size:
                    break
                state.done[dead] = False
                state.hand_number[dead] = 0
                self._speed_deal(state, dead)
                self._speed_settle(state, dead)
        else:
            order = self.deck_orders(state, rows)
            cards = np.stack([order[:, :26], order[:, 26:]], axis=1)  # seat 0: the first 26 cards
            self._lay_out(
                state,
                rows,
                np.concatenate([cards, np.full_like(cards, NONE)], axis=2).astype(np.int64),
                np.full((len(rows), 2), 26, np.int64),
            )
            self._spit_settle(state, rows)

    # ------------------------------------------------------------------ tick
    def step(self, state: BatchState, actions: np.ndarray) -> np.ndarray:
        B = state.batch
        actions = np.asarray(actions, np.int64)
        rewards = np.zeros((B, 2), np.float32)
        active = ~state.done
        state.ticks += active
        # The faster hand this tick: a seeded coin per game.
        first = (state.rng.random(B) < 0.5).astype(np.int64)
        if self.speed:
            ended = np.zeros(B, bool)  # the game ended during this tick
            flat_actions, base = actions.reshape(-1), 2 * np.arange(B)
            playing = active
            for k in (0, 1):
                seat = first ^ k
                a = flat_actions[base + seat]
                rows = np.flatnonzero(playing & ~ended & (a != WAIT))
                if rows.size:
                    self._speed_play(state, rows, seat[rows], a[rows], k == 1, ended, rewards)
            self._speed_settle(state, None)
        else:
            self._spit_tick(state, actions, first, active, rewards)
            self._spit_settle(state, None)
        if self.max_ticks is not None:
            cut = np.flatnonzero(~state.done & (state.ticks >= self.max_ticks))
            if cut.size:  # truncation: a draw, no reward
                state.done[cut] = True
                state.truncated[cut] = True
                state.phase[cut] = DONE
                state.legal[cut] = False
        return rewards

    def _finish(self, state: BatchState, rows: np.ndarray, winner: np.ndarray, rewards: np.ndarray) -> None:
        """The game is over in ``rows``: ``winner`` seat (-1: a draw)."""
        state.done[rows] = True
        state.phase[rows] = DONE
        state.winner[rows] = winner
        won = winner >= 0
        rewards[rows[won], winner[won]] += 1.0
        rewards[rows[won], 1 - winner[won]] -= 1.0

    # ================================================================= Spit
    # The per-row work of a Spit tick is compiled (:mod:`.kernels`); the
    # methods below keep the order of the tick and every random draw.
    def _spit_tick(self, state, actions, first, active, rewards) -> None:
        """Slaps, plays and moves of the ``active`` games (one kernel), then
        the deals that ended are laid out anew, together: slaps first, then
        the faster hands going out (the order of the seeded deck orders)."""
        B = state.batch
        end_rows, end_taker = np.empty(B, np.int64), np.empty((B, 2), np.int64)
        ends = kernels.act(
            actions,
            first,
            active,
            self.kind,
            self.src,
            self.dst,
            self.play_pile,
            self.slap_pile,
            self.shape_change,
            self.shed,
            state.piles,
            state.pile_n,
            state.top,
            state.shape,
            state.centre,
            state.centre_n,
            state.ctop,
            state.layout_n,
            state.spit_n,
            state.scores,
            state.phase,
            state.done,
            state.winner,
            rewards,
            end_rows,
            end_taker,
        )
        if ends:
            self._new_layouts(state, end_rows[:ends], end_taker[:ends])

    def _new_layouts(self, state, rows, taker) -> None:
        """End of a deal: each player gathers their stockpile and spit cards
        plus the spit pile(s) they take (``taker`` (k, 2): seat taking spit
        pile 0 and pile 1), in the order of the next deck order (a seeded
        shuffle, or ``decks[k]``), and lays out a new layout."""
        k = len(rows)
        order = self.deck_orders(state, rows)
        cards = np.full((k, 2, 52), NONE, np.int64)
        counts = np.empty((k, 2), np.int64)
        kernels.gather_cards(rows, taker, order, state.piles, state.spit, state.centre, cards, counts)
        state.hand_number[rows] += 1
        self._lay_out(state, rows, cards, counts)

    def _lay_out(self, state, rows, cards, counts) -> None:
        """Each player of ``rows`` lays out ``cards`` (k, 2, 52) int64
        (``counts`` of them, in order) and turns a spit card; see
        :func:`.kernels.lay_out`."""
        kernels.lay_out(
            rows,
            cards,
            counts,
            self.layout_slot,
            self.pile_sizes,
            self.shape_of_laid,
            state.piles,
            state.pile_n,
            state.layout_n,
            state.shape,
            state.top,
            state.spit,
            state.spit_n,
            state.centre,
            state.centre_n,
            state.ctop,
            state.phase,
        )

    def _spit_masks(self, state, rows) -> np.ndarray:
        """Recompute the legal masks of ``rows``; returns which of them are
        stuck: playing, nobody can play and nobody can expose a card by
        moving into an empty space."""
        stuck = np.empty(len(rows), bool)
        kernels.masks(
            rows,
            self.adj,
            state.top,
            state.ctop,
            state.shape,
            state.phase,
            self.filled_of_shape,
            self.expose_of_shape,
            self.play_mask,
            self.move_mask,
            state.legal,
            stuck,
        )
        return stuck

    def _spit_until_playable(self, state, rows):
        """Stuck games ``rows``: both players spit, round after round, until a
        stockpile top fits a spit pile or the spit cards run out.  Returns
        the rounds spat, and whether the game is still stuck."""
        spat, dry = np.empty(len(rows), np.int64), np.empty(len(rows), bool)
        kernels.spit_until_playable(
            rows, self.adj, state.top, state.spit, state.spit_n, state.centre, state.centre_n, state.ctop, spat, dry
        )
        return spat, dry

    def _spit_settle(self, state, rows) -> None:
        """Resolve stalemates (spit again; without spit cards the deal ends)
        and recompute the legal masks of ``rows`` (None = every row).

        Stuck games spit one card each per *round*; a game that runs out of
        spit cards still stuck ends its deal in the round after its last
        spit.  The rounds are counted per game and the ends of deals are
        handled round by round, games in the order of ``rows``, so the
        seeded draws (the coin and the new deck orders) always go to the
        same games."""
        every = np.arange(state.batch) if rows is None else np.asarray(rows, np.int64)
        stuck = self._spit_masks(state, every)
        touched = np.flatnonzero(stuck)  # positions in ``every``
        if touched.size:
            spat, dry = self._spit_until_playable(state, every[touched])
            wait_pos, wait_round = touched[dry], spat[dry] + 1  # deals to end, and in which round
            guard = 0
            while wait_pos.size:
                guard += 1
                if guard > 10000:
                    raise RuntimeError("Spit stalemate resolution did not converge")
                now = wait_round == wait_round.min()
                pos, round_ = np.sort(wait_pos[now]), wait_round[now][0]
                wait_pos, wait_round = wait_pos[~now], wait_round[~now]
                r = every[pos]
                one_pile = (state.centre_n[r] == 0).any(axis=1)
                state.phase[r[~one_pile]] = SLAPPING
                one = r[one_pile]
                if one.size:
                    # One spit pile, stuck, no spit cards: the player with
                    # more layout cards takes the pile (equal: a seeded coin).
                    left = state.layout_n[one]
                    coin = (state.rng.random(len(one)) < 0.5).astype(np.int64)
                    seat = np.where(left[:, 0] > left[:, 1], 0, np.where(left[:, 1] > left[:, 0], 1, coin))
                    self._new_layouts(state, one, np.stack([seat, seat], axis=1))
                    again = pos[one_pile][self._spit_masks(state, one)]
                    if again.size:
                        spat, dry = self._spit_until_playable(state, every[again])
                        wait_pos = np.concatenate([wait_pos, again[dry]])
                        wait_round = np.concatenate([wait_round, round_ + spat[dry] + 1])
            # (every game changed here was stuck at first: it is in ``touched``)
            self._spit_masks(state, every[touched])

    # ================================================================= Speed
    def _speed_deal(self, state, rows) -> None:
        """Deal a Speed game: stocks, side piles, the two middle cards, then
        hands of five from the own stock."""
        order = self.deck_orders(state, rows)
        st, sd = self.stock_size, self.side_size
        state.phase[rows] = PLAYING
        for stack, count, start, size in ((state.stock, state.stock_n, 0, st), (state.side, state.side_n, 2 * st, sd)):
            stack[rows] = NONE
            for seat in (0, 1):
                block = order[:, start + seat * size : start + (seat + 1) * size]
                stack[rows, seat, :size] = block[:, ::-1]  # stored bottom first
                count[rows, seat] = size
        state.centre[rows] = NONE
        state.centre[rows, :, 0] = order[:, 50:52]
        state.centre_n[rows] = 1
        state.ctop[rows] = order[:, 50:52]
        state.hand[rows] = False
        for seat in (0, 1):
            top5 = order[:, seat * st : seat * st + 5]
            state.hand[rows[:, None], seat, top5] = True
            state.stock[rows, seat, st - 5 : st] = NONE
            state.stock_n[rows, seat] = st - 5
        state.hand_n[rows] = 5

    def _speed_play(self, state, rows, seats, actions, second, ended, rewards) -> None:
        card, pile = (actions - 1) // 2, (actions - 1) % 2
        r, s = rows, seats
        if second:
            fits = self.adj_flat[state.ctop[r, pile] * 53 + card]
            r, s, card, pile = r[fits], s[fits], card[fits], pile[fits]
        state.hand[r, s, card] = False
        state.centre[r, pile, state.centre_n[r, pile]] = card
        state.centre_n[r, pile] += 1
        state.ctop[r, pile] = card
        if self.shed:
            rewards[r, s] += self.shed
        # refill the hand from the own stock at once
        draw = state.stock_n[r, s] > 0
        dr, ds = r[draw], s[draw]
        n = state.stock_n[dr, ds] - 1
        state.hand[dr, ds, state.stock[dr, ds, n]] = True
        state.stock[dr, ds, n] = NONE
        state.stock_n[dr, ds] = n
        state.hand_n[r[~draw], s[~draw]] -= 1
        out = ~draw & (state.hand_n[r, s] == 0)
        if out.any():
            self._speed_won(state, r[out], s[out], ended, rewards)

    def _speed_won(self, state, rows, seats, ended, rewards) -> None:
        """``seats`` played every card of hand and stock: they win the game,
        scoring the cards left in the opponent's hand and stock."""
        ended[rows] = True
        other = 1 - seats
        state.scores[rows, seats] += state.hand_n[rows, other] + state.stock_n[rows, other]
        state.hand_number[rows] += 1
        if self.target_score is None:
            self._finish(state, rows, seats, rewards)
            return
        over = state.scores[rows, seats] >= self.target_score
        self._finish(state, rows[over], seats[over], rewards)
        if (~over).any():
            self._speed_deal(state, rows[~over])

    def _speed_plays(self, state, rows) -> np.ndarray:
        """``(k, 2, 52, 2)``: seat holds the card and it fits centre pile P."""
        hand = state.hand if rows is None else state.hand[rows]
        ctop = state.ctop if rows is None else state.ctop[rows]
        fits = self.adj_cards[ctop].transpose(0, 2, 1)  # (k, 52, 2)
        return hand[:, :, :, None] & fits[:, None, :, :]

    def _speed_settle(self, state, rows) -> None:
        """Nobody can play: the side piles flip a card each onto the centre
        pile beside them (rebuilt from the centre when both are empty) until
        somebody can; a game nobody can ever continue is a draw."""
        plays = self._speed_plays(state, rows)
        phase = state.phase if rows is None else state.phase[rows]
        stuck = (phase == PLAYING) & ~plays.any(axis=(1, 2, 3))
        guard = 0
        while stuck.any():
            guard += 1
            if guard > 10000:
                raise RuntimeError("Speed stalemate resolution did not converge")
            idx = np.flatnonzero(stuck)
            r = idx if rows is None else rows[idx]
            self._speed_flip(state, r)
            sub = self._speed_plays(state, r)
            plays[idx] = sub
            stuck[idx] = (state.phase[r] == PLAYING) & ~sub.any(axis=(1, 2, 3))
        phase = state.phase if rows is None else state.phase[rows]
        k = len(phase)
        legal = np.empty((k, 2, self.num_actions), bool)
        playing = (phase == PLAYING)[:, None]
        legal[:, :, WAIT] = playing
        legal[:, :, 1:] = plays.reshape(k, 2, 104) & playing[:, :, None]
        if rows is None:
            state.legal[:] = legal
        else:
            state.legal[rows] = legal

    def _speed_flip(self, state, rows) -> None:
        k = len(rows)
        kk = np.arange(k)
        # A game where no card that can still reach a centre top fits any
        # card in a hand can never go on: a draw (this includes "no card left
        # to turn": side piles empty and nothing under the centre tops).
        movable = np.zeros((k, 53), bool)
        movable[kk[:, None], state.side[rows].reshape(k, -1)] = True
        under = state.centre[rows].copy()
        under[kk[:, None], np.arange(2)[None, :], state.centre_n[rows] - 1] = NONE  # the tops stay
        turnable = movable.copy()
        turnable[kk[:, None], under.reshape(k, -1)] = True
        turnable[:, NONE] = False
        reachable = turnable.copy()
        reachable[kk[:, None], state.ctop[rows]] = True
        held = state.hand[rows].any(axis=1)  # (k, 52)
        hope = (reachable[:, :52] @ self.adj_cards.astype(np.int64)[:52] * held).any(axis=1) & turnable[:, :52].any(
            axis=1
        )
        dead = rows[~hope]
        if dead.size:
            self._speed_draw(state, dead)
        rows = rows[hope]
        if not rows.size:
            return
        # side piles run dry: the cards under the centre tops, shuffled, make new ones
        dry = rows[(state.side_n[rows] == 0).all(axis=1)]
        if dry.size:
            self._rebuild_side_piles(state, dry)
        r, p = np.nonzero(state.side_n[rows] > 0)
        r = rows[r]
        n = state.side_n[r, p] - 1
        card = state.side[r, p, n]
        state.side[r, p, n] = NONE
        state.side_n[r, p] = n
        state.centre[r, p, state.centre_n[r, p]] = card
        state.centre_n[r, p] += 1
        state.ctop[r, p] = card

    def _rebuild_side_piles(self, state, rows) -> None:
        """The cards under both centre tops, in a seeded random order, become
        side pile 0 (the first half, rounded up) and side pile 1."""
        k = len(rows)
        centre = state.centre[rows].astype(np.int64)
        n = state.centre_n[rows]
        below = np.arange(52)[None, None, :] < (n - 1)[:, :, None]
        cards = np.where(below, centre, NONE).reshape(k, -1)
        keys = np.where(cards < NONE, state.rng.random(cards.shape), 2.0)
        cards = np.take_along_axis(cards, np.argsort(keys, axis=1), axis=1)
        m = (n - 1).sum(axis=1)
        half = (m + 1) // 2
        state.side[rows] = NONE
        pos = np.arange(cards.shape[1])[None, :]
        r, t = np.nonzero(pos < half[:, None])
        state.side[rows[r], 0, t] = cards[r, t]
        r, t = np.nonzero((pos >= half[:, None]) & (pos < m[:, None]))
        state.side[rows[r], 1, t - half[r]] = cards[r, t]
        state.side_n[rows, 0] = half
        state.side_n[rows, 1] = m - half
        tops = state.ctop[rows]
        state.centre[rows] = NONE
        state.centre[rows, :, 0] = tops
        state.centre_n[rows] = 1

    def _speed_draw(self, state, rows) -> None:
        """Nobody can ever play again: a drawn game (no points).  With a
        target score the next game is dealt; otherwise the episode ends."""
        state.hand_number[rows] += 1
        if self.target_score is None:
            self._finish(state, rows, np.full(len(rows), -1), np.zeros((state.batch, 2), np.float32))
        else:
            self._speed_deal(state, rows)

    # ------------------------------------------------------------ observation
    def observe(self, state: BatchState, rows: np.ndarray | None = None) -> np.ndarray:
        if self.speed:
            return observation.encode_speed(self, state, rows)
        return observation.encode_spit(self, state, rows)

    def seat_scores(self, state: BatchState) -> np.ndarray:
        return state.scores.copy()

    # ------------------------------------------------------------ texts
    def action_to_str(self, action: int) -> str:
        a = int(action)
        if not 0 <= a < self.num_actions:
            raise ValueError(f"action {action!r} out of range 0..{self.num_actions - 1}")
        return self.texts[a]

    def str_to_action(self, text: str) -> int:
        try:
            return self.text_index[text]
        except (KeyError, TypeError):
            raise ValueError(f"unknown {self.variant} action {text!r}; e.g. {self.texts[:3]}") from None

    # ------------------------------------------------------------ state_dict / render
    def state_dict(self, state: BatchState, row: int = 0) -> dict[str, Any]:
        b = row
        texts = DECK.texts

        def stack(arr, n, top_first):
            cards = [texts[int(c)] for c in arr[:n]]
            return cards[::-1] if top_first else cards

        out: dict[str, Any] = {
            "game": self.name,
            "variant": self.variant,
            "phase": PHASE_NAMES[state.phase[b]],
            "dealer": int(state.dealer[b]),
            "hand_number": int(state.hand_number[b]),
            "scores": [int(x) for x in state.scores[b]],
            "done": bool(state.done[b]),
            "truncated": bool(state.truncated[b]),
            "winner": None if state.winner[b] < 0 else int(state.winner[b]),
            "tick": int(state.ticks[b]),
            "spit_piles": [stack(state.centre[b, p], state.centre_n[b, p], False) for p in range(2)],
        }
        if self.speed:
            out["hands"] = [DECK.texts_of(np.flatnonzero(state.hand[b, s])) for s in range(2)]
            out["stocks"] = [stack(state.stock[b, s], state.stock_n[b, s], True) for s in range(2)]
            out["side_piles"] = [stack(state.side[b, p], state.side_n[b, p], True) for p in range(2)]
        else:
            S = self.stockpiles
            out["stockpiles"] = [
                [stack(state.piles[b, s, i], state.pile_n[b, s, i], False) for i in range(S)] for s in range(2)
            ]
            out["face_up"] = [[int(state.pile_n[b, s, i] > 0) for i in range(S)] for s in range(2)]
            out["spit_cards"] = [stack(state.spit[b, s], state.spit_n[b, s], True) for s in range(2)]
        return out

    def render(self, state: BatchState, row: int = 0) -> str:
        d = self.state_dict(state, row)
        head = (
            f"{'Speed' if self.speed else 'Spit'} tick {d['tick']}, "
            f"{'game' if self.speed else 'deal'} {d['hand_number'] + 1}, phase {d['phase']}, scores {d['scores']}"
        )
        lines = [head]
        piles = "  ".join(
            f"pile {p}: {(d['spit_piles'][p] or ['--'])[-1]} ({len(d['spit_piles'][p])} cards)" for p in range(2)
        )
        for s in range(2):
            if self.speed:
                lines.append(f"player_{s}: hand {' '.join(d['hands'][s]) or '-'}  stock {len(d['stocks'][s])}")
            else:
                stacks = " ".join(("[" + "#" * (len(p) - 1) + p[-1] + "]") if p else "[ ]" for p in d["stockpiles"][s])
                lines.append(f"player_{s}: {stacks}  spit cards {len(d['spit_cards'][s])}")
            if s == 0:
                lines.append(
                    ("centre " if self.speed else "spit ")
                    + piles
                    + (f"  side piles {len(d['side_piles'][0])}/{len(d['side_piles'][1])}" if self.speed else "")
                )
        if d["done"]:
            lines.append(
                "game over: "
                + (
                    "truncated (draw)"
                    if d["truncated"]
                    else "draw"
                    if d["winner"] is None
                    else f"player_{d['winner']} wins"
                )
            )
        return "\n".join(lines)
