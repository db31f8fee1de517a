"""A rule-based Push player.

Strategy (:class:`PushRuleAgent`), read from its own observation and mask:

* **Draw:** take the discard when it is wild or matches the rank of a
  natural card in hand (it helps a set), else push (the left-hand opponent
  gets two more cards to pay for, and we still draw).
* **Meld greedily:** whenever a meld can be declared, it is (the mask only
  offers melds, and contracts, that can be finished from the hand); sets are
  preferred to runs, the longest span first.  While building: naturals
  before wilds, a set is ended only when no natural of its rank is left.
  Naturals are laid off onto table melds whenever possible; wilds are kept
  for its own melds.  It never swaps (simple and safe).
* **Discard:** the natural card with the highest penalty that pairs with
  nothing in hand (K..10: 10, 9..3: 5, A: 15); wilds last.

Two opt-in options (default off: "the rule agent" the baselines are measured
against is the one above) make a stronger player, meant as the teacher of the
rule-advised learner (issue #15):

* ``push_naturals=True``: **push every natural discard**, take only a wild.
  A push hands the left-hand opponent two cards to pay for (or to go out
  through), and we still draw; a natural taken for a set of its rank is worth
  less than that.
* ``run_discards=True``: **keep the cards the contract can use.**  Until its
  contract is laid, a card is kept (its penalty halved in the discard choice)
  when it pairs with a natural of its rank in hand *only if the contract has
  a set* (rounds 1, 2, 4), and when it has a same-suit natural within two run
  positions in hand (an ace at both ends, 2s are wild) *if the contract has a
  run* (rounds 2, 3, 5).  The default keeps pairs in every round, also in
  rounds 3 and 5, whose contracts are two runs and no set.

Why these two: measured with :func:`cardenvs.evaluation.matches.match` (one
team of the options against one of the default, seats rotated, full games;
seeds 7000-7999 are the ones these options were tuned and tested on), both
options together beat the default clearly, and each alone beats it too,
``push_naturals`` more than ``run_discards``.  Search found the same edge:
PIMC (:mod:`cardenvs.agents.pimc`, 8 worlds, rule rollouts) departs from the
default most by pushing more and, in rounds 3 and 5, by discarding a pair's
card rather than a run's neighbour, and plays about even against both
options.  Tried and dropped, on top of both options (no better than even
against them): taking a natural that makes a set or a run of 3, laying a
wild off to go out, discarding a run round's duplicate card first;
discarding by penalty alone after the contract loses.  Against the default,
keeping the left-hand opponent from a card that fits a table meld loses, by
not discarding it or by taking it rather than pushing it.

The rules are written twice: :meth:`PushRuleAgent.act_row` decides one row
in Python from the action texts (the reference), :func:`decide_rows` a whole
batch in one compiled pass from per-action tables built once from
:mod:`cardenvs.games.push.tables`; ``tests/test_agents_batched.py`` checks that
they agree.
"""

from __future__ import annotations

import numpy as np

from ...core.agent import RuleAgent
from ...core.jit import kernel
from .observation import HAND, ROUND, SEAT_CONTRACT, SEATS, TOP
from .rules import PushRules
from .tables import (
    ACT_ADD,
    ACT_DECLARE_RUN,
    ACT_FILL,
    ACT_LAY_OFF_RUN,
    ACT_LAY_OFF_SET,
    ACTION_ARG,
    ACTION_KIND,
    ACTION_SUBARG,
    ADD0,
    CONTRACT_KINDS,
    DISCARD0,
    END_SET,
    FILL0,
    IS_WILD,
    JOKER,
    MELD0,
    MELD_BLOCK,
    NATURAL_TYPE,
    NUM_ACTIONS,
    NUM_POSITIONS,
    NUM_TYPES,
    POSITION_RANK,
    PUSH,
    RUN,
    RUN0,
    SET,
    SET0,
    SPAN_HI,
    SPAN_LO,
    TAKE,
)

NATURAL_PENALTY = np.array([0, 5, 5, 5, 5, 5, 5, 5, 10, 10, 10, 10, 15])  # ranks 2..A (2 is wild)


def is_wild(card: int) -> bool:
    return card == JOKER or card % 13 == 0


class PushRuleAgent(RuleAgent):
    """``PushRuleAgent(reference=False, push_naturals=False, run_discards=False)``:
    the options are the stronger play of the module docstring (booleans;
    anything else is a ValueError)."""

    name = "rule"
    obs_columns = max(HAND, TOP) + NUM_TYPES  # the batched rules read the hand and the discard's top only

    def __init__(self, reference: bool = False, push_naturals: bool = False, run_discards: bool = False) -> None:
        for option, value in (("push_naturals", push_naturals), ("run_discards", run_discards)):
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"PushRuleAgent's {option} is True or False, got {value!r}")
        super().__init__(reference)
        self.push_naturals, self.run_discards = bool(push_naturals), bool(run_discards)
        options = [o for o in ("push_naturals", "run_discards") if getattr(self, o)]
        if options:
            self.name = f"rule({','.join(options)})"
        if self.run_discards:  # it also reads the round and its own contract
            self.obs_columns = max(self.obs_columns, ROUND + NUM_ROUNDS, SEATS + SEAT_CONTRACT + 1)
        rules = PushRules()
        self.texts = [rules.action_to_str(a) for a in range(rules.num_actions)]
        self.words = [t.split() for t in self.texts]

    def _decide(self, obs: np.ndarray, mask: np.ndarray, out: np.ndarray) -> None:
        if mask.shape[1] != NUM_ACTIONS:
            raise ValueError(f"Push masks have {NUM_ACTIONS} actions, got {mask.shape[1]}")
        # as bytes (a free view): the kernel ORs them together to skip blocks without a legal action
        decide_rows(obs, np.ascontiguousarray(mask).view(np.uint8), self.push_naturals, self.run_discards, out)

    def act_states(self, rules, state, rows: np.ndarray, **known) -> np.ndarray:
        """The actions :meth:`act_batch` picks from the observations of the
        seats to act in ``rows`` (games not over), read from the state: only
        the fields the rules read (hand, discard's top; with
        ``run_discards`` the round and the seat's contract), not the whole
        observation, whose meld slots cost a search's rollouts most of their
        time.  ``known`` (what a search agent is told) is not needed."""
        rows = np.asarray(rows, np.int64)
        obs = np.zeros((len(rows), self.obs_columns), np.int16)
        seats = state.current[rows]
        obs[:, HAND : HAND + NUM_TYPES] = state.hands[rows, seats]
        top = state.pile_size[rows] - 1
        shown = np.flatnonzero(top >= 0)
        obs[shown, TOP + state.pile[rows[shown], top[shown]]] = 1
        if self.run_discards:
            obs[np.arange(len(rows)), ROUND + rules.round_number(state)[rows] - 1] = 1
            obs[:, SEATS + SEAT_CONTRACT] = state.contract_done[rows, seats]
        every = len(rows) == state.batch and (rows == np.arange(len(rows))).all()
        return self.act_batch(obs, state.legal if every else state.legal[rows])  # (a mask row is 2,371 bytes)

    def act_row(self, obs: np.ndarray, mask: np.ndarray) -> int:
        legal = [int(a) for a in np.flatnonzero(mask)]
        hand = obs[:53]
        by_kind: dict[str, list[int]] = {}
        for a in legal:
            by_kind.setdefault(self.words[a][0], []).append(a)
        if "take" in by_kind or "push" in by_kind:
            return self._draw(obs, hand, by_kind)
        # building a meld: naturals first
        for kind in ("fill", "add"):
            if kind in by_kind:
                naturals = [a for a in by_kind[kind] if self.words[a][1] in ("nat", "C", "D", "H", "S")]
                if naturals:
                    return naturals[0]
                if kind == "add" and "end" in by_kind:
                    return by_kind["end"][0]
                return by_kind[kind][0]
        if "end" in by_kind:
            return by_kind["end"][0]
        for kind in ("set", "run"):
            if kind in by_kind:
                return max(by_kind[kind], key=lambda a: (self._span(a), -a))
        layoffs = [a for a in by_kind.get("layoff", []) if self.words[a][-1] in ("nat", "C", "D", "H", "S")]
        if layoffs:
            return layoffs[0]
        if "discard" in by_kind:
            return self._discard(obs, hand, by_kind["discard"])
        return legal[0]  # an owed wild must be placed: any legal placement

    def _span(self, action: int) -> int:
        w = self.words[action]
        if w[0] != "run":
            return 3
        lo, hi = w[2].split("-")
        order = "A23456789TJQKA"
        return order.rindex(hi) - order.index(lo) + 1

    def _draw(self, obs, hand, by_kind) -> int:
        top = np.flatnonzero(obs[53:106])
        useful = False
        if top.size:
            c = int(top[0])
            same_rank = [t for t in range(52) if t % 13 == c % 13 and hand[t] > 0] if c != JOKER else []
            useful = is_wild(c) or (bool(same_rank) and not self.push_naturals)
        if useful and "take" in by_kind:
            return by_kind["take"][0]
        return by_kind.get("push", by_kind.get("take"))[0]

    def _discard(self, obs, hand, actions) -> int:
        # what keeps a card (halves its penalty): a natural of its rank in hand, or with run_discards
        # before the contract, that only if the contract has a set, and a run neighbour if it has a run
        pairs, neighbours = True, False
        rounds = np.flatnonzero(obs[ROUND : ROUND + NUM_ROUNDS])
        if self.run_discards and rounds.size and not obs[SEATS + SEAT_CONTRACT]:
            contract = CONTRACT_KINDS[rounds[0] + 1].tolist()
            pairs, neighbours = SET in contract, RUN in contract

        def cost(a: int) -> tuple:
            card = self._card(self.words[a][1])
            if is_wild(card):
                return (0, 0, a)
            rank_count = sum(hand[s * 13 + card % 13] for s in range(4))
            kept = (pairs and rank_count > 1) or (neighbours and self._run_neighbour(hand, card))
            return (1, NATURAL_PENALTY[card % 13] * (0.5 if kept else 1), a)

        return max(actions, key=cost)

    @staticmethod
    def _run_neighbour(hand, card: int) -> bool:
        """A natural of ``card``'s suit within two ranks of it in hand (the
        ace next to the king and to the 3; a 2 is wild, not a neighbour)."""
        order = "A23456789TJQKA"  # a suit's run positions, the ace at both ends
        suit, rank = divmod(card, 13)
        for at in [i for i, ch in enumerate(order) if ch == "23456789TJQKA"[rank]]:
            for near in range(max(0, at - 2), min(len(order), at + 3)):
                if order[near] not in ("2", order[at]) and hand[suit * 13 + "23456789TJQKA".index(order[near])] > 0:
                    return True
        return False

    @staticmethod
    def _card(text: str) -> int:
        if text == "JK":
            return JOKER
        return "CDHS".index(text[1]) * 13 + "23456789TJQKA".index(text[0])


# ---------------------------------------------------------------- the batched rules
# The same decisions as PushRuleAgent.act_row, row by row in one compiled
# pass.  The kinds of action sit in blocks of ids (tables.py: draws,
# discards, declares, adds, end, fills, then 55 actions per table meld), so
# each rule scans only its kind's block, in id order ("the first legal" of a
# kind is the lowest id, as in the reference's lists).  What the reference
# reads from an action's text is precomputed per action id from the action
# tables of tables.py:


def _natural() -> np.ndarray:
    """Per action: it places a natural card (an add, fill or lay-off of a natural; the reference reads
    "nat" or a suit letter C D H S in its text)."""
    kind, arg, subarg = ACTION_KIND, ACTION_ARG, ACTION_SUBARG
    return (
        ((kind == ACT_ADD) & (arg < 4))  # add C..S (then 2C..JK: the wilds)
        | ((kind == ACT_FILL) & (arg == 0))  # fill nat
        | ((kind == ACT_LAY_OFF_SET) & (subarg < 4))  # layoff m C..S
        | ((kind == ACT_LAY_OFF_RUN) & (subarg % 6 == 0))  # layoff m low/high nat
    )


NATURAL = _natural().astype(np.uint8)
# a declared run's span in positions (a low ace is position 0, a high ace 13; a set counts 3)
SPAN = np.where(ACTION_KIND == ACT_DECLARE_RUN, SPAN_HI[ACTION_SUBARG] - SPAN_LO[ACTION_SUBARG] + 1, 3)
# a card type's discard value in half points (the reference's doubled, so integers): twice its penalty
# when it pairs with nothing in hand, its penalty when it does; wilds -1, below every natural
LONE_VALUE = np.where(IS_WILD, -1, 2 * NATURAL_PENALTY[np.arange(NUM_TYPES) % 13])
PAIRED_VALUE = np.where(IS_WILD, -1, NATURAL_PENALTY[np.arange(NUM_TYPES) % 13])

NUM_ROUNDS = len(CONTRACT_KINDS) - 1  # the round's one-hot (CONTRACT_KINDS is indexed by round number 1..5)
# per round number: its contract has a set, a run (what keeps a card under run_discards)
CONTRACT_HAS_SET = (CONTRACT_KINDS == SET).any(axis=1)
CONTRACT_HAS_RUN = (CONTRACT_KINDS == RUN).any(axis=1)


def _run_neighbours() -> np.ndarray:
    """Per card type: the natural card types of its suit within two run
    positions of one of its positions (the reference's ``_run_neighbour``),
    -1 padded; none for a wild."""
    out = np.full((NUM_TYPES, 4), -1, np.int64)
    for card in np.flatnonzero(~IS_WILD):
        suit, rank = divmod(int(card), 13)
        near = {
            int(NATURAL_TYPE[suit, q])
            for p in np.flatnonzero(rank == POSITION_RANK)
            for q in range(max(0, p - 2), min(NUM_POSITIONS, p + 3))
            if POSITION_RANK[q] not in (0, rank)  # not a 2 (wild), not its own rank
        }
        out[card, : len(near)] = sorted(near)
    return out


RUN_NEIGHBOURS = _run_neighbours()

# where the naturals are laid off in each table meld's block of actions (the same in every block)
LAYOFF_OFFSETS = np.flatnonzero(NATURAL[MELD0 : MELD0 + MELD_BLOCK])
assert (NATURAL[MELD0:].reshape(-1, MELD_BLOCK) == NATURAL[MELD0 : MELD0 + MELD_BLOCK]).all()

# The scans below run over constant id ranges (the blocks of tables.py), which
# lets the compiler drop the negative-index checks and turn the "is anything
# legal in this block" passes into a few vector operations: a row skips the
# hundreds of runs and table-meld actions it cannot take in a few dozen
# cycles.


@kernel
def decide_rows(obs, mask, push_naturals, run_discards, out):
    """``out[i]``: the rule agent's action for ``obs[i]``, ``mask[i]`` (uint8; -1: none), with the
    agent's options ``push_naturals``, ``run_discards``."""
    for i in range(obs.shape[0]):
        out[i] = _decide_row(obs[i], mask[i], push_naturals, run_discards)


@kernel
def _decide_row(obs, mask, push_naturals, run_discards):
    if mask[TAKE] or mask[PUSH]:
        return _draw(obs, mask, push_naturals)
    # building a meld: a run's fill, else a set's add; naturals first
    first = _first(mask, FILL0, MELD0, False)
    if first >= 0:
        natural = _first(mask, FILL0, MELD0, True)
        return natural if natural >= 0 else first
    first = _first(mask, ADD0, END_SET, False)
    if first >= 0:
        natural = _first(mask, ADD0, END_SET, True)
        return natural if natural >= 0 else END_SET if mask[END_SET] else first
    if mask[END_SET]:
        return END_SET
    first = _first(mask, SET0, RUN0, False)  # every set spans 3: the first one
    if first >= 0:
        return first
    legal = 0
    for a in range(RUN0, ADD0):
        legal |= mask[a]
    if legal:
        best = -1
        for a in range(RUN0, ADD0):  # the longest run, the lowest id among equals
            if mask[a] and (best < 0 or SPAN[a] > SPAN[best]):
                best = a
        return best
    legal = 0
    for block in range(MELD0, NUM_ACTIONS, MELD_BLOCK):
        for j in LAYOFF_OFFSETS:
            legal |= mask[block + j]
    if legal:
        return _first(mask, MELD0, NUM_ACTIONS, True)  # the first natural laid off
    a = _discard(obs, mask, run_discards)
    return a if a >= 0 else _first(mask, 0, NUM_ACTIONS, False)


@kernel
def _first(mask, lo, hi, natural):
    """The lowest legal action in ``lo..hi-1`` (placing a natural card, if ``natural``); -1 none."""
    for a in range(lo, hi):
        if mask[a] and (NATURAL[a] or not natural):
            return a
    return -1


@kernel
def _draw(obs, mask, push_naturals):
    """Take a wild discard or one that matches the rank of a card in hand (not with
    ``push_naturals``), else push."""
    useful = False
    for c in range(NUM_TYPES):
        if obs[TOP + c] != 0:  # the top card (the first, as the reference reads the one-hot)
            useful = c == JOKER or c % 13 == 0
            if not useful and c != JOKER and not push_naturals:
                for s in range(4):
                    if obs[HAND + s * 13 + c % 13] > 0:
                        useful = True
            break
    if useful and mask[TAKE]:
        return TAKE
    return PUSH if mask[PUSH] else TAKE


@kernel
def _discard(obs, mask, run_discards):
    """The legal discard of the highest value (the highest id among equals); -1 none."""
    pairs, neighbours = True, False  # what keeps a card (see PushRuleAgent._discard)
    if run_discards and obs[SEATS + SEAT_CONTRACT] == 0:
        for r in range(NUM_ROUNDS):
            if obs[ROUND + r] != 0:
                pairs, neighbours = CONTRACT_HAS_SET[r + 1], CONTRACT_HAS_RUN[r + 1]
                break
    best, best_value = -1, -2
    for a in range(DISCARD0, SET0):
        if mask[a]:
            card = a - DISCARD0
            count = 0
            for s in range(4):
                count += obs[HAND + s * 13 + card % 13]
            kept = pairs and count > 1
            if neighbours and not kept:
                for near in RUN_NEIGHBOURS[card]:
                    if near >= 0 and obs[HAND + near] > 0:
                        kept = True
            value = PAIRED_VALUE[card] if kept else LONE_VALUE[card]
            if value >= best_value:
                best, best_value = a, value
    return best
