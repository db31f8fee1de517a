"""An independent, deliberately naive reading of Spit's and Speed's
legality rules, written from ``shared/rules/spit.md`` over ``state_dict()``
only.  The property tests compare the engine's masks with it in every
visited state."""

from __future__ import annotations

RANKS = "23456789TJQKA"
RED = {"D", "H"}


def fits(card: str, pile: list[str], alternate_colors: bool) -> bool:
    """``card`` may go on ``pile``: one rank above or below its top
    (circular), and of the other colour when colours must alternate."""
    if not pile:
        return False
    top = pile[-1]
    diff = (RANKS.index(card[0]) - RANKS.index(top[0])) % 13
    if diff not in (1, 12):
        return False
    return not alternate_colors or ((card[1] in RED) != (top[1] in RED))


def legal_texts(sd: dict, seat: int, alternate_colors: bool = False) -> set[str]:
    if sd["done"]:
        return set()
    if sd["variant"] == "speed":
        out = {"wait"}
        for card in sd["hands"][seat]:
            for p, pile in enumerate(sd["spit_piles"]):
                if fits(card, pile, alternate_colors):
                    out.add(f"play {card} {p}")
        return out
    if sd["phase"] == "slapping":
        return {"slap 0", "slap 1"}
    out = {"wait"}
    piles = sd["stockpiles"][seat]
    for i, pile in enumerate(piles):
        if not pile:
            continue
        for p, spit_pile in enumerate(sd["spit_piles"]):
            if fits(pile[-1], spit_pile, alternate_colors):
                out.add(f"play {i} {p}")
        for j, other in enumerate(piles):
            if j != i and not other:
                out.add(f"move {i} {j}")
    return out


def stuck(sd: dict, alternate_colors: bool = False, stall_ticks: int | None = 30) -> bool:
    """Spit: nobody can play onto a spit pile nor expose a card by a move,
    or (the stall rule) no card was played for ``stall_ticks`` ticks."""
    if stall_ticks is not None and sd["stall"] >= stall_ticks:
        return True
    for seat in (0, 1):
        piles = sd["stockpiles"][seat]
        if any(t.startswith("play") for t in legal_texts(sd, seat, alternate_colors)):
            return False
        if any(len(p) >= 2 for p in piles) and any(not p for p in piles):
            return False
    return True
