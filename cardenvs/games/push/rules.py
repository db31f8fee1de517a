"""Push: the rules class (every rule of ``docs/push.md``), a thin
layer over the compiled kernels: config validation, the state's arrays, a
step dispatched to the kernels (``apply.step_rows``: the actions and the
new masks; then, for rounds that ended, ``scoring.py`` and ``deal.py``),
``state_dict`` and the render.  The action-space plan is in
:mod:`cardenvs.games.push.tables`, the observation in
:mod:`cardenvs.games.push.observation`.

Other decisions (see the README rules notes): two contract sets may have
the same rank; sets cannot be of 2s (no natural); a swapped-out wild may be
laid off on any meld, the one it came from included; a set's wild stands for
the set's rank, so any natural of that rank may be swapped for it;
``max_turns`` (default 200) ends a round like an exhausted stock when that
many turns have been played in it (taking the discard forever never ends).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.game import NO_ROWS, BatchState, TurnBasedRules, choice, positive_int
from ...core.jit import pack
from ...core.onegame import OneGame, step_call
from . import apply, observation
from .apply import step_rows
from .deal import deal_rows
from .legal import write_masks
from .outputs import PushState, copy_masks
from .scoring import score_rounds, win_loss_rewards
from .tables import (
    ACTIONS,
    CONFIG_KINDS,
    DECK,
    DONE,
    KIND_NAMES,
    NO_MELD,
    NUM_ACTIONS,
    NUM_MELDS,
    NUM_POSITIONS,
    NUM_TYPES,
    PHASE_NAMES,
    PLAIN_CARDS,
    PLAIN_MASKS,
    PLAIN_MELD_BLOCKS,
    PLAIN_SCORES,
    PLAIN_TABLE,
    PLAIN_TURN,
    POSITION_RANK,
    RANK_CHARS,
    SET,
    SUIT_CHARS,
    Config,
    StatePack,
)

_ROW_0 = np.zeros(1, np.int64)  # the row of a batch of one


class PushRules(TurnBasedRules):
    """Batched Push rules for one configuration.

    Config: ``rounds`` (list of round numbers 1..5 to play, increasing; default
    all five), ``reward`` ``"win_loss"``/``"score_delta"``, ``max_turns``
    (turns per round before it ends as if the stock were exhausted; 200).
    """

    name = "push_v0"
    title = "Push"
    deck = DECK
    num_players = 4
    partnerships = True  # team 0 = seats {0, 2}, team 1 = seats {1, 3}
    low_score_wins = True
    actions = ACTIONS
    num_actions = NUM_ACTIONS
    obs_size = observation.OBS_SIZE
    obs_low, obs_high = observation.OBS_LOW, observation.OBS_HIGH
    obs_dtype = np.int16  # scores reach 5 x 960 points; see __init__ for the turn counter

    def __init__(self, rounds=(1, 2, 3, 4, 5), reward: str = "win_loss", max_turns: int = 200):
        wrong = f"rounds must be a non-empty list of round numbers 1..5 in increasing order, got {rounds!r}"
        if not isinstance(rounds, (list, tuple, np.ndarray)):
            raise ValueError(wrong)
        rounds = list(rounds)
        if not rounds or any(
            isinstance(r, (bool, np.bool_)) or not isinstance(r, (int, np.integer)) or not 1 <= r <= 5 for r in rounds
        ):
            raise ValueError(wrong)
        if any(a >= b for a, b in zip(rounds, rounds[1:])):  # distinct and in order
            raise ValueError(wrong)
        self.rounds = np.array([int(r) for r in rounds], np.int64)
        self.reward = choice("reward", reward, ("win_loss", "score_delta"))
        self.max_turns = positive_int("max_turns", max_turns)
        if self.max_turns > np.iinfo(np.int16).max:  # the observed turn counter must fit
            self.obs_dtype = np.int32
        self.team = np.arange(4) % 2
        self.config = Config(self.rounds, self.max_turns, self.reward == "score_delta")
        self.kernel_config = tuple(self.config)  # (as the kernels take it: see tables.plain)
        self.make_packs()

    pack_names = ("config_pack",)

    def make_packs(self) -> None:
        # the Config as apply.step_one takes it (see tables.CONFIG_KINDS)
        self.config_pack = pack(self.kernel_config, CONFIG_KINDS)

    # ------------------------------------------------------------------ state
    def new_state(self, batch: int, rng: np.random.Generator) -> PushState:
        melds = NUM_MELDS
        state = PushState.adopt(self.common_state(batch, rng, 2))  # scores per team; hand_number = rounds completed
        state.phase[:] = DONE
        state.round_i = np.zeros(batch, np.int64)  # index into self.rounds
        state.turns = np.zeros(batch, np.int64)  # turns completed this round
        state.last_penalty = np.zeros((batch, 2), np.int64)
        state.went_out = np.full(batch, -1, np.int64)  # who went out last round (-1 none)
        state.hands = np.zeros((batch, 4, NUM_TYPES), np.int8)
        state.held = np.zeros((batch, 4), np.int16)  # cards in each hand (kept with hands: read every observation)
        state.stock = np.zeros((batch, DECK.num_cards), np.int64)  # top at stock_top
        state.stock_top = np.zeros(batch, np.int64)
        state.stock_size = np.zeros(batch, np.int64)
        # wilds turned up at the deal and put under the stock: every seat saw
        # them, so the bottom min(buried, stock_size) stock cards are known
        state.buried = np.zeros(batch, np.int64)
        state.pile = np.zeros((batch, DECK.num_cards), np.int64)  # bottom first
        state.pile_size = np.zeros(batch, np.int64)
        state.pile_counts = np.zeros((batch, NUM_TYPES), np.int8)
        state.n_melds = np.zeros(batch, np.int64)  # finished melds (a pending one sits at slot n_melds)
        state.meld_kind = np.zeros((batch, melds), np.int8)
        state.meld_owner = np.zeros((batch, melds), np.int8)
        state.meld_rank = np.zeros((batch, melds), np.int8)
        state.meld_suit = np.zeros((batch, melds), np.int8)
        state.meld_lo = np.zeros((batch, melds), np.int8)
        state.meld_hi = np.zeros((batch, melds), np.int8)
        state.meld_pos = np.full((batch, melds, NUM_POSITIONS), -1, np.int8)
        state.meld_counts = np.zeros((batch, melds, NUM_TYPES), np.int8)
        state.meld_len = np.zeros((batch, melds), np.int8)
        state.meld_obs = np.zeros((batch, melds, observation.SLOT_SIZE), np.int8)  # each slot's observation block
        state.meld_stamp = np.zeros((batch, melds), np.int64)  # which version of its block a slot holds
        state.legal_written = np.zeros(batch, np.int64)  # how far each mask row reaches (legal.py)
        state.pend = np.zeros(batch, np.int64)  # NO_MELD / SET / RUN being built
        state.pend_next = np.zeros(batch, np.int64)  # next run position to fill
        state.pend_nat = np.zeros(batch, bool)
        state.in_contract = np.zeros(batch, bool)
        state.contract_idx = np.zeros(batch, np.int64)  # contract melds finished this turn
        state.contract_done = np.zeros((batch, 4), bool)
        state.owed = np.full(batch, -1, np.int64)  # wild type swapped out and not yet used
        return state

    def start_game(self, state: PushState, rows: np.ndarray) -> None:
        state.outputs.own_masks(state)  # (the masks a caller holds are never written)
        state.round_i[rows] = 0
        state.last_penalty[rows] = 0
        state.went_out[rows] = -1
        self._deal(state, rows)
        self._write_masks(state, rows)

    def round_number(self, state: BatchState) -> np.ndarray:
        return self.rounds[np.minimum(state.round_i, len(self.rounds) - 1)]

    def _deal(self, state: PushState, rows: np.ndarray, keys: np.ndarray | None = None) -> None:
        """Deal the round ``rounds[round_i]`` in ``rows`` (dealer already set):
        the deck orders are drawn here (numpy; or made from the shuffle
        ``keys`` drawn before), the cards dealt by :func:`deal.deal_rows`."""
        orders = self.deck_orders(state, rows, keys)
        rows = np.asarray(rows, np.int64)
        per_seat = 5 + self.rounds[state.round_i[rows]]
        deal_rows(
            rows,
            np.asarray(orders, np.int64),
            per_seat,
            state.bundle(PLAIN_CARDS),
            state.bundle(PLAIN_TABLE),
            state.bundle(PLAIN_MELD_BLOCKS),
            state.bundle(PLAIN_TURN),
            state.buried,
        )

    def _write_masks(self, state: PushState, rows: np.ndarray) -> None:
        """Recompute ``state.legal`` of the games ``rows`` (:func:`legal.write_masks`)."""
        rows = np.asarray(rows, np.int64)
        cards, table, turn = state.bundle(PLAIN_CARDS), state.bundle(PLAIN_TABLE), state.bundle(PLAIN_TURN)
        write_masks(rows, self.kernel_config, cards, table, turn, state.bundle(PLAIN_MASKS))

    def write_changed_outputs(self, state: PushState, obs: np.ndarray, masks: np.ndarray, key: int) -> None:
        """A faster piece (core.game.FASTER_PIECES): only what changed since
        this state last wrote these arrays (its records of them, kept by
        ``key``), as for its recycled ones (outputs.Outputs: records of the
        whole batch, so the core never writes them on row views)."""
        outputs = state.outputs
        record = outputs.kept_record(("observation", key), (len(obs), observation.RECORD_SIZE), -1)
        observation.encode_into(state, state.current, state.every_row(), obs, record, self.kernel_config)
        written = outputs.kept_record(("masks", key), (len(masks),), masks.shape[1])
        copy_masks(masks, written, state.legal, state.legal_written)

    def action_masks(self, state: PushState) -> np.ndarray:
        """The masks for the caller to keep: a large batch (4096 games: 10 MB)
        is not copied but handed out read-only (:class:`outputs.Outputs`)."""
        return state.outputs.masks_for_caller(state)

    # ------------------------------------------------------------------ step
    def advance(self, state: PushState, actions: np.ndarray, rewards: np.ndarray) -> list[np.ndarray]:
        """Every game's action and new mask (:func:`apply.step_rows`); then
        the rounds that ended are scored, and the games over end; the others'
        next round is dealt (:meth:`deal_next`)."""
        ended = np.zeros(state.batch, bool)  # round over
        out_seat = np.full(state.batch, -1, np.int64)
        step_rows(
            actions,
            self.kernel_config,
            state.bundle(PLAIN_CARDS),
            state.bundle(PLAIN_TABLE),
            state.bundle(PLAIN_TURN),
            state.bundle(PLAIN_MELD_BLOCKS),
            state.outputs.stamp_clock,
            state.bundle(PLAIN_MASKS),
            ended,
            out_seat,
        )
        if not np.count_nonzero(ended):
            return [NO_ROWS]
        rows = np.flatnonzero(ended)
        return [self._end_round(state, rows, out_seat[rows], rewards)]

    def one_game(self) -> OneGame | None:
        """The buffers of :meth:`step_one`, with its scratch: the record of
        what the observation buffer holds (``observation.encode_rows``) and
        how far its mask was written.  None (no one-call step) when the
        observation is int32 (``max_turns`` above int16): the kernel writes int16."""
        if np.dtype(self.obs_dtype) != np.int16:
            return None
        return OneGame(self, scratch=(np.full((1, observation.RECORD_SIZE), -1, np.int64), np.zeros(1, np.int64)))

    def step_one(self, state: PushState, action: int, one: OneGame) -> tuple[bool, bool, int]:
        """:meth:`step` of a batch of one, and the next seat's observation and
        mask in the same call (:func:`~cardenvs.games.push.apply.step_one`), unless
        the round ends: it is scored and the next one dealt here, as
        :meth:`step` does (the deal is drawn).  Only a round's end scores."""
        outputs = state.outputs
        outputs.own_masks(state, every_row_rewritten=True)
        if one.owner is not outputs:  # the record's stamps are another counter's: write it all
            one.scratch[0].fill(-1)
            one.owner = outputs
        made = state._bundles.get(one)  # (step_call's, without the call)
        step, packs = (
            made if made is not None else step_call(state, one, self.config_pack, StatePack, apply.step_one, "int")
        )
        observed, out_seat, seat = step(action, packs)
        if observed:
            return True, False, seat
        self.deal_requests(state, [self._end_round(state, _ROW_0, np.array([out_seat]), one.rewards)])
        return False, any(one.rewards[0].tolist()), -1 if state.done[0] else int(state.current[0])

    def deal_next(self, state: PushState, rows: np.ndarray, keys: np.ndarray) -> None:
        """The next round of ``rows``: dealt by the next dealer, and its masks."""
        self.pass_the_deal(state, rows, keys)
        self._write_masks(state, rows)

    def _end_round(self, state: PushState, rows: np.ndarray, out_seat: np.ndarray, rewards: np.ndarray) -> np.ndarray:
        """Score the round in ``rows``: a team with a player out scores 0, the
        other team(s) the values of their hands; then end the games over.
        Returns the rows that play on (their next round is dealt)."""
        score_rounds(rows, out_seat, self.kernel_config, state.hands, state.bundle(PLAIN_SCORES), rewards)
        state.round_i[rows] += 1
        over = state.round_i[rows] >= len(self.rounds)
        end = rows[over]
        if end.size:
            self.end_games(state, end, DONE)
            state.round_i[end] = len(self.rounds) - 1
            if self.reward == "win_loss":
                rewards[end] += win_loss_rewards(state.scores[end])
        return rows[~over]

    # ------------------------------------------------------------------ observation
    def observe(self, state: PushState, seats: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        return observation.encode(state, seats, rows, self.kernel_config, self.obs_dtype)

    def seat_scores(self, state: BatchState) -> np.ndarray:
        return state.scores[:, self.team]

    # ------------------------------------------------------------------ state_dict / render
    def meld_dicts(self, state: BatchState, row: int = 0) -> list[dict]:
        out = []
        count = int(state.n_melds[row]) + (1 if state.pend[row] != NO_MELD else 0)
        for m in range(count):
            kind = int(state.meld_kind[row, m])
            meld = {
                "owner": int(state.meld_owner[row, m]),
                "kind": KIND_NAMES[kind],
                "complete": bool(m < state.n_melds[row]),
            }
            if kind == SET:
                rank = RANK_CHARS[state.meld_rank[row, m]]
                cards = DECK.counts_to_texts(state.meld_counts[row, m])
                cards = [c for c in cards if c[0] != "2" and c != "JK"] + [c for c in cards if c[0] == "2" or c == "JK"]
                meld.update(cards=cards, ranks=[rank] * len(cards), suit=None, rank=rank)
            else:
                lo, hi = int(state.meld_lo[row, m]), int(state.meld_hi[row, m])
                filled = [p for p in range(lo, hi + 1) if state.meld_pos[row, m, p] >= 0]
                meld.update(
                    cards=[DECK.texts[state.meld_pos[row, m, p]] for p in filled],
                    ranks=[RANK_CHARS[POSITION_RANK[p]] for p in filled],
                    suit=SUIT_CHARS[state.meld_suit[row, m]],
                    positions=filled,
                    span=[lo, hi],
                )
            out.append(meld)
        return out

    def state_dict(self, state: BatchState, row: int = 0) -> dict[str, Any]:
        top, size = int(state.stock_top[row]), int(state.stock_size[row])
        pend = int(state.pend[row])
        return {
            "game": self.name,
            "num_players": 4,
            "phase": PHASE_NAMES[state.phase[row]],
            "dealer": int(state.dealer[row]),
            "hand_number": int(state.hand_number[row]),
            "round": int(self.rounds[state.round_i[row]]),
            "rounds": [int(r) for r in self.rounds],
            "turn": int(state.turns[row]),
            "scores": [int(state.scores[row, self.team[s]]) for s in range(4)],
            "done": bool(state.done[row]),
            "current_player": int(state.current[row]),
            "hands": [DECK.counts_to_texts(state.hands[row, s]) for s in range(4)],
            "melds": self.meld_dicts(state, row),
            "discard": DECK.texts_of(state.pile[row, : state.pile_size[row]]),
            "stock": DECK.texts_of(state.stock[row, top : top + size]),
            "stock_size": size,
            "contract_done": [bool(x) for x in state.contract_done[row]],
            "in_contract": bool(state.in_contract[row]),
            "contract_melds_laid": int(state.contract_idx[row]) if state.in_contract[row] else 0,
            "pending": None if pend == NO_MELD else KIND_NAMES[pend],
            "owed_wild": None if state.owed[row] < 0 else "wild " + DECK.texts[state.owed[row]],
            "last_round_penalty": [int(x) for x in state.last_penalty[row]],
            "went_out": int(state.went_out[row]),
            "winners": self.winners(state, row),
        }

    def render_title(self, d: dict[str, Any]) -> str:
        return (
            f"Push round {d['round']} (deal {d['hand_number'] + 1} of {len(self.rounds)}), dealer {d['dealer']}, "
            f"phase {d['phase']}, turn {d['turn']}, scores {d['scores']}"
        )

    def render_lines(self, d: dict[str, Any]) -> list[str]:
        lines = [
            f"discard pile ({len(d['discard'])}): top {d['discard'][-1] if d['discard'] else '-'}; "
            f"stock {d['stock_size']}"
        ]
        for s in range(4):
            contract = "done" if d["contract_done"][s] else "not yet"
            lines.append(self.seat_line(d, s, f"{' '.join(d['hands'][s]) or '-'}  contract {contract}"))
        for m, meld in enumerate(d["melds"]):
            if meld["kind"] == "set":
                what = f"set of {meld['ranks'][0] if meld['ranks'] else '?'} " + " ".join(meld["cards"])
            else:
                what = f"run {meld['suit']} " + " ".join(f"{c}={r}" for c, r in zip(meld["cards"], meld["ranks"]))
            building = "" if meld["complete"] else ", being built"
            lines.append(f"  meld {m} (player_{meld['owner']}{building}): {what.rstrip()}")
        if d["owed_wild"]:
            lines.append(f"  must use the {d['owed_wild']} this turn")
        return lines
