"""Push's table scene: ``state_dict()`` -> the spectator's scene
(:mod:`cardenvs.render.canvas`), every private card tagged by its owner; it
reads only the public ``state_dict()`` (the decisions every scene follows are
in :mod:`cardenvs.render.parts`)."""

from __future__ import annotations

from ...render.canvas import CARD_H, CARD_W, DIM, INK, TURN, Scene
from ...render.parts import game_over, header, panel, seat_name

RUN_POS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"]


def is_wild(card: str) -> bool:
    return card == "JK" or card[0] == "2"


def meld_marks(meld: dict) -> list[str | None]:
    """``=r`` under each card that stands for another rank (a wild), None for
    naturals in their own place."""
    marks: list[str | None] = []
    for card, rank in zip(meld["cards"], meld.get("ranks") or [None] * len(meld["cards"])):
        natural = not is_wild(card) or (meld["kind"] == "run" and card[1] == meld.get("suit") and rank == "2")
        marks.append(None if natural or rank is None else f"={rank}")
    return marks


def meld_label(i: int, meld: dict) -> str:
    if meld["kind"] == "set":
        shape = f"set {meld.get('rank') or (meld.get('ranks') or ['?'])[0]}"
    else:
        span = meld.get("ranks") or []
        shape = f"run {meld.get('suit')} {span[0]}-{span[-1]}" if span else f"run {meld.get('suit')}"
    pending = "" if meld.get("complete", True) else " (building)"
    return f"#{i} p{meld['owner']} {shape}{pending}"


def scene(state: dict) -> Scene:
    S = Scene(1400, 860)
    rounds = state.get("rounds") or []
    extra = f"round {state.get('round', '?')} of {len(rounds)}" if rounds else ""
    header(S, state, "Push", extra)
    side_w, flat_w, ph = 330, 520, 112
    spots = [
        ((S.w - flat_w) / 2, S.h - ph - 8, flat_w),
        (8, (S.h - ph) / 2 + 17, side_w),
        ((S.w - flat_w) / 2, 36, flat_w),
        (S.w - side_w - 8, (S.h - ph) / 2 + 17, side_w),
    ]
    for seat, (x, y, pw) in enumerate(spots[: state["num_players"]]):
        team = "team 0+2" if seat % 2 == 0 else "team 1+3"
        contract = "contract down" if state["contract_done"][seat] else "contract not down"
        panel(S, x, y, pw, ph, seat, state, f"{team} score {state['scores'][seat]} · {contract}")
        S.cards(x + 8, y + 42, state["hands"][seat], owner=seat, scale=0.8, step=16, max_width=pw - 16)
    # discard pile and stock, top of the centre
    left, right, top = side_w + 24, S.w - side_w - 24, 36 + ph + 12
    S.group("piles")
    discard = state.get("discard") or []
    S.pile(left, top, len(discard), "discard", top=discard[-1] if discard else None, scale=0.8)
    S.pile(left + 70, top, state.get("stock_size", len(state.get("stock") or [])), "stock", scale=0.8)
    info = []
    if state.get("owed_wild") is not None:
        info.append("a swapped wild is owed")
    if state.get("went_out", -1) >= 0:
        info.append(f"{seat_name(state['went_out'])} went out")
    if state.get("turn") is not None:
        info.append(f"turn {state['turn']}")
    S.text(left + 150, top + 20, " · ".join(info), size=12, colour=DIM)
    melds(S, state.get("melds") or [], left, top + 78, right, S.h - ph - 24)
    game_over(S, state)
    return S


def melds(S: Scene, table: list[dict], left: float, top: float, right: float, bottom: float) -> None:
    """Melds in a flow layout (slot order), shrunk until they fit."""
    for scale in (0.62, 0.52, 0.44, 0.36, 0.3):
        step = CARD_W * scale + 2  # side by side, so every wild's meaning shows beneath it
        row_h = CARD_H * scale + 40
        x, y, spots = left, top, []
        for m in table:
            w = max(CARD_W * scale + step * (len(m["cards"]) - 1), 84)
            if x + w > right and x > left:
                x, y = left, y + row_h
            spots.append((x, y))
            x += w + 14
        if y + row_h <= bottom or scale == 0.3:
            break
    for i, (m, (x, y)) in enumerate(zip(table, spots)):
        S.group(f"meld {i}")
        S.text(x, y + 10, meld_label(i, m), size=11, colour=INK if m.get("complete", True) else TURN)
        marks = meld_marks(m)
        S.cards(x, y + 15, m["cards"], scale=scale, step=step, marks=marks)
