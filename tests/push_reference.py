"""An independent, deliberately naive reading of Push's legality rules,
written from ``shared/rules/push.md`` and the action texts of the README,
over ``state_dict()`` only.  Whether a meld or contract can still be
finished is decided by brute-force search (depth-first, every card choice
for every slot, memoised), not by the engine's counting formulas.  The
property tests compare the engine's mask with it."""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

RANKS = "23456789TJQKA"
SUITS = "CDHS"
WILDS = ("2C", "2D", "2H", "2S", "JK")
TYPES = [r + s for s in SUITS for r in RANKS] + ["JK"]
TYPE_ID = {t: i for i, t in enumerate(TYPES)}
CONTRACT = {1: ("set", "set"), 2: ("set", "run"), 3: ("run", "run"), 4: ("set", "set", "set"), 5: ("run", "run")}
RUN_MIN = {1: 3, 2: 4, 3: 4, 4: 3, 5: 5}
POS_CH = ["A"] + list("23456789TJQK") + ["A"]
POS_TOKEN = ["Alo"] + list("23456789TJQK") + ["Ahi"]
VALUE = {**{r: 5 for r in "3456789"}, **{r: 10 for r in "TJQK"}, "A": 15, "2": 20}


def pos_card(pos: int, suit: str) -> str:
    """The natural card of run position ``pos`` (0 = ace low .. 13 = ace high)."""
    return POS_CH[pos] + suit


def card_value(card: str) -> int:
    return 20 if card == "JK" else VALUE[card[0]]


# ---------------------------------------------------------------- search
@lru_cache(maxsize=500_000)
def _fill(hand: tuple, melds: tuple) -> bool:
    """Can every slot of every meld be filled from ``hand`` (counts per
    type)?  ``melds``: tuple of (slots, needs_natural) where each slot is a
    tuple of the natural types that may fill it (any wild may too, except
    a 2 that is the slot's own natural)."""
    if not melds:
        return True
    (slots, need_nat), rest = melds[0], melds[1:]

    def go(h, i, got):
        if i == len(slots):
            return (got or not need_nat) and _fill(h, rest)
        for t in slots[i]:
            if h[t] > 0 and go(h[:t] + (h[t] - 1,) + h[t + 1 :], i + 1, True):
                return True
        for w in WILDS:
            t = TYPE_ID[w]
            if t not in slots[i] and h[t] > 0 and go(h[:t] + (h[t] - 1,) + h[t + 1 :], i + 1, got):
                return True
        return False

    return go(hand, 0, False)


def set_slots(rank: str, count: int) -> tuple:
    return tuple(tuple(TYPE_ID[rank + s] for s in SUITS) for _ in range(count))


def run_slots(suit: str, positions) -> tuple:
    return tuple((TYPE_ID[pos_card(p, suit)],) for p in positions)


def whole_shapes(kind: str, length: int):
    """Every minimal meld of a kind: (slots, needs_natural)."""
    if kind == "set":
        return [(set_slots(r, 3), True) for r in RANKS[1:]]
    return [(run_slots(s, range(lo, lo + length)), True) for s in SUITS for lo in range(0, 15 - length)]


def _cheap_bound(hand: tuple, melds) -> bool:
    """A necessary condition (to skip hopeless shape combinations fast): the
    slots minus at most one natural per slot type use no more than the wilds."""
    wild = sum(hand[TYPE_ID[w]] for w in WILDS)
    slots = sum(len(s) for s, _ in melds)
    if slots > sum(hand):
        return False
    return slots - sum(1 for sl, _ in melds for s in sl if any(hand[t] for t in s)) <= wild


def completable(hand: tuple, pending, kinds) -> bool:
    """``pending``: (slots, needs_natural) of the meld being built or None;
    ``kinds``: (kind, min length) of the whole melds still to lay."""
    first = [pending] if pending is not None else []
    combos = [()]
    for kind, length in kinds:
        combos = [c + (s,) for c in combos for s in whole_shapes(kind, length)]
    for combo in combos:
        melds = tuple(first) + combo
        if _cheap_bound(hand, melds) and _fill(hand, melds):
            return True
    return False


def hand_tuple(cards) -> tuple:
    c = Counter(cards)
    return tuple(c.get(t, 0) for t in TYPES)


def spans():
    for lo in range(14):
        for hi in range(lo + 2, 14):
            if hi - lo + 1 <= 13:
                yield lo, hi


def new_meld_possible(hand: tuple) -> bool:
    """Can ``hand`` make some new meld (a set of 3, or a run of 3: any longer
    meld holds one)?  Once made it can take a wild (a set, a short run)."""
    shapes = [(set_slots(r, 3), True) for r in RANKS[1:]]
    shapes += [(run_slots(s, range(lo, lo + 3)), True) for s in SUITS for lo in range(12)]
    return any(_fill(hand, (shape,)) for shape in shapes)


def with_owed(hand: tuple, slots: tuple, need_nat: bool, owed: str) -> bool:
    """Can ``slots`` be filled from ``hand`` with a card of type ``owed`` in
    one of them (it is the natural there if the slot is its own place)?"""
    o = TYPE_ID[owed]
    if hand[o] == 0:
        return False
    rest_hand = hand[:o] + (hand[o] - 1,) + hand[o + 1 :]
    for i, slot in enumerate(slots):
        if _fill(rest_hand, ((slots[:i] + slots[i + 1 :], need_nat and o not in slot),)):
            return True
    return False


def changed(hand: tuple, remove: str, add: str | None = None) -> tuple:
    h = list(hand)
    h[TYPE_ID[remove]] -= 1
    if add is not None:
        h[TYPE_ID[add]] += 1
    return tuple(h)


# ---------------------------------------------------------------- legality
def legal_texts(sd: dict) -> set[str]:
    if sd["done"]:
        return set()
    seat = sd["current_player"]
    if sd["phase"] == "draw":
        return {"take", "push"}
    hand_list = sd["hands"][seat]
    hand = hand_tuple(hand_list)
    rnd = sd["round"]
    contract = CONTRACT[rnd]
    runmin = RUN_MIN[rnd]
    melds = sd["melds"]
    pending = melds[-1] if melds and not melds[-1]["complete"] else None
    in_contract = sd["in_contract"]
    done = sd["contract_done"][seat]
    owed = sd["owed_wild"][5:] if sd["owed_wild"] else None
    laid = sd["contract_melds_laid"]
    # the whole melds still to lay after the current/next one
    if in_contract or not done:
        i = laid if in_contract else 0
        later = [(k, 3 if k == "set" else runmin) for k in contract[i + 1 :]]
    else:
        later = []

    out = set()
    table = [m for m in melds if m["complete"]]

    def targets(exclude=None):
        """Table melds that can take a wild (a set, a run shorter than 13)."""
        n = 0
        for j, m in enumerate(table):
            if j == exclude:
                continue
            if m["kind"] == "set" or len(m["cards"]) < 13:
                n += 1
        return n

    # with a wild owed and no table meld to take it, a 13-card run must take it
    full_run_owes = owed is not None and targets() == 0

    def try_after(card, pend):
        h = list(hand)
        h[TYPE_ID[card]] -= 1
        return completable(tuple(h), pend, later)

    if pending is not None:
        if pending["kind"] == "set":
            rank = pending["rank"]
            count = len(pending["cards"])
            has_nat = any(c[0] == rank for c in pending["cards"])
            for x in tuple(SUITS) + WILDS:
                card = rank + x if len(x) == 1 else x
                if hand[TYPE_ID[card]] == 0 or (count == 0 and len(x) == 2):
                    continue
                nat = has_nat or len(x) == 1
                need = max(0, 2 - count)
                if try_after(card, (set_slots(rank, need), not nat)):
                    out.add(f"add {x}")
            if count >= 3:
                out.add("end set")
        else:
            suit = pending["suit"]
            lo, hi = pending["span"]
            p = lo + len(pending["cards"])
            has_nat = any(_natural_at(c, q, suit) for c, q in zip(pending["cards"], pending["positions"]))
            rest = range(p + 1, hi + 1)
            nat_card = pos_card(p, suit)
            owes = full_run_owes and hi - lo + 1 == 13

            def keeps_owed(card, nat):
                return not owes or card == owed or with_owed(changed(hand, card), run_slots(suit, rest), not nat, owed)

            nat_ok = hand[TYPE_ID[nat_card]] and try_after(nat_card, (run_slots(suit, rest), False))
            if nat_ok and keeps_owed(nat_card, True):
                out.add("fill nat")
            for w in WILDS:
                w_ok = hand[TYPE_ID[w]] and w != nat_card and try_after(w, (run_slots(suit, rest), not has_nat))
                if w_ok and keeps_owed(w, has_nat):
                    out.add(f"fill {w}")
        return out

    # between melds
    if not in_contract and owed is None:
        out |= {f"discard {c}" for c in set(hand_list)}
    if in_contract or not done:
        kind = contract[laid if in_contract else 0]
        min_len = 3 if kind == "set" else runmin
    else:
        kind, min_len = None, 3
    for r in RANKS[1:]:
        if kind in (None, "set") and completable(hand, (set_slots(r, 3), True), later):
            out.add(f"set {r}")
    for s in SUITS:
        for lo, hi in spans():
            if (
                kind in (None, "run")
                and hi - lo + 1 >= min_len
                and completable(hand, (run_slots(s, range(lo, hi + 1)), True), later)
                and not (
                    full_run_owes
                    and hi - lo + 1 == 13
                    and not with_owed(hand, run_slots(s, range(lo, hi + 1)), True, owed)
                )
            ):
                out.add(f"run {s} {POS_CH[lo]}-{POS_CH[hi]}")
    if not done or in_contract:
        return out

    # lay-offs and swaps
    held = {c for c in hand_list}
    for j, m in enumerate(table):
        if m["kind"] == "set":
            rank = m["ranks"][0]
            for x in SUITS:
                if rank + x in held:
                    out.add(f"layoff {j} {x}")
            for w in WILDS:
                if w in held:
                    out.add(f"layoff {j} {w}")
            if owed is None:
                wilds_in = {c for c in m["cards"] if c in WILDS}
                for x in SUITS:
                    if rank + x in held:
                        out |= {f"swap {j} {x} {w}" for w in wilds_in}
            continue
        suit = m["suit"]
        pos = m["positions"]
        lo, hi = pos[0], pos[-1]
        for end, newp in (("low", lo - 1), ("high", hi + 1)):
            if not 0 <= newp <= 13 or (newp == 0 and hi == 13) or (newp == 13 and lo == 0):
                continue
            fills_up = len(pos) + 1 == 13
            for x in ("nat",) + WILDS:
                card = pos_card(newp, suit) if x == "nat" else x
                if x != "nat" and card == pos_card(newp, suit):
                    continue  # a 2 in its own place is the natural
                if card not in held:
                    continue
                last_use = owed is not None and fills_up and card != owed and targets(exclude=j) == 0
                if last_use and not new_meld_possible(changed(hand, card)):
                    continue  # the owed wild could go nowhere
                out.add(f"layoff {j} {end} {x}")
        if owed is None:
            for c, p in zip(m["cards"], pos):
                swappable = c in WILDS and not _natural_at(c, p, suit) and pos_card(p, suit) in held
                if swappable and (targets() > 0 or new_meld_possible(changed(hand, pos_card(p, suit), c))):
                    out.add(f"swap {j} {POS_TOKEN[p]}")
    return out


def _natural_at(card: str, pos: int, suit: str) -> bool:
    return card == pos_card(pos, suit)
