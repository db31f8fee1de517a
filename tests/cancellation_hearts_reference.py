"""An independent, deliberately naive reading of Cancellation Hearts'
legality rules, written from ``shared/rules/cancellation_hearts.md`` over
``state_dict()`` only.  The property tests compare the engine's mask with it
in every visited state.

Hearts are "broken" once a heart or a Black Maria has been played: it is
derived here from the cards seen played (tricks taken, carried, not
collected, on the table), not read from the engine's flag.
"""

from __future__ import annotations

POINTS = {**{r + "H": 1 for r in "23456789TJQKA"}, "QS": 13}


def breaks_hearts(card: str) -> bool:
    return card[1] == "H" or card == "QS"


def played_cards(sd: dict) -> list[str]:
    """Every card played this hand (the widow was never played)."""
    cards = [c for pile in sd["taken"] for c in pile] + sd["carried"] + sd["uncollected"]
    return cards + [t["card"] for t in sd["trick"]]


def legal_texts(sd: dict) -> set[str]:
    if sd["done"]:
        return set()
    seat = sd["current_player"]
    hand = sd["hands"][seat]
    if sd["phase"] == "passing":
        return {f"pass {c}" for c in hand}
    if sd["phase"] == "moon_choice":
        return {"moon self", "moon others"}
    trick = sd["trick"]
    if trick:
        led = trick[0]["card"][1]
        follow = [c for c in hand if c[1] == led]
        return {f"play {c}" for c in (follow or hand)}
    if sd["tricks_played"] == 0:  # the opening lead
        ok = [c for c in hand if not breaks_hearts(c)]
    elif not any(breaks_hearts(c) for c in played_cards(sd)):
        ok = [c for c in hand if c[1] != "H"]
    else:
        ok = hand
    return {f"play {c}" for c in (ok or hand)}


def hand_points(cards: list[str]) -> int:
    return sum(POINTS.get(c, 0) for c in cards)
