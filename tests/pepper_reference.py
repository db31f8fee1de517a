"""An independent, deliberately naive reading of Pepper's legality rules,
written from ``shared/rules/pepper.md`` over ``state_dict()`` only.  The
property tests compare the engine's mask with it in every visited state."""

from __future__ import annotations

SUITS = "CDHS"
SAME_COLOUR = {"C": "S", "S": "C", "D": "H", "H": "D"}


def effective_suit(card: str, trump: str | None) -> str:
    if trump in SAME_COLOUR and card == "J" + SAME_COLOUR[trump]:
        return trump  # the left bower is a trump
    return card[1]


def legal_texts(sd: dict, all_pass: str = "stick_dealer") -> set[str]:
    n = sd["num_players"]
    seat = sd["current_player"]
    if sd["done"]:
        return set()
    if sd["phase"] == "bidding":
        ladder = ["1", "2", "3", "4", "5"] + (["6", "7"] if n < 4 else []) + ["little", "big"]
        order = ["1", "2", "3", "4", "5", "6", "7", "little", "big"]
        high = sd["bid"]["value"] if sd["bid"] else None
        above = [v for v in ladder if high is None or order.index(v) > order.index(high)]
        out = {f"bid {v}" for v in above}
        stuck = (
            all_pass == "stick_dealer"
            and sd["bid"] is None
            and seat == sd["dealer"]
            and all(sd["passed"][s] for s in range(n) if s != seat)
        )
        if not stuck:
            out.add("pass")
        return out
    if sd["phase"] == "choosing_trump":
        return {"trump C", "trump D", "trump H", "trump S", "trump none"}
    hand = sd["hands"][seat]
    trick = sd["trick"]
    if not trick:
        return {f"play {c}" for c in hand}
    led = effective_suit(trick[0]["card"], sd["trump"])
    follow = [c for c in hand if effective_suit(c, sd["trump"]) == led]
    return {f"play {c}" for c in (follow or hand)}
