"""Scene builders, one per game: ``state_dict()`` -> the spectator's scene
(see :mod:`cardenvs.table.canvas`), every private card tagged by its owner.

They read only the public ``state_dict()`` contract (shared/API.md), never a
game's internals.  The canvas size depends only on the game and its player
count, so the frames of an episode all have one shape (as video encoders
and Gymnasium's rendering wrappers require).

Decisions: seats sit clockwise around the table with seat 0 at the bottom,
whatever the viewpoint (so a replay keeps its layout when the viewpoint
changes); the spectator sees every hand, the dead hand and the widow;
cards that lie face down in a pile (stock, spit cards, the face-down cards
of a stockpile, Speed's stocks and side piles) are drawn as a pile with its
count for everyone, the spectator included.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .canvas import CARD_H, CARD_W, DIM, EDGE, INK, NOBODY, PANEL, SUIT_NAMES, TURN, Scene


def seat_name(seat: int) -> str:
    return f"player_{seat}"


def ring(n: int, w: float, h: float, pw: float, ph: float, top: float = 34, margin: float = 8) -> list[tuple]:
    """Top-left corners of ``n`` seat panels (pw x ph) on an ellipse in a
    w x h canvas: seat 0 at the bottom, then clockwise (left, top, right)."""
    cx, cy = w / 2, (h + top) / 2
    rx, ry = w / 2 - pw / 2 - margin, (h - top) / 2 - ph / 2 - margin
    out = []
    for i in range(n):
        a = math.pi / 2 + 2 * math.pi * i / n
        out.append((cx + rx * math.cos(a) - pw / 2, cy + ry * math.sin(a) - ph / 2))
    return out


def header(S: Scene, state: dict, title: str, extra: str = "") -> None:
    parts = [title, f"phase {state.get('phase', '?')}"]
    if "hand_number" in state:
        parts.append(f"deals done {state['hand_number']}")
    if "dealer" in state:
        parts.append(f"dealer {seat_name(state['dealer'])}")
    if extra:
        parts.append(extra)
    S.group("table").text(12, 22, " · ".join(parts), size=15, bold=True)


def panel(S: Scene, x, y, w, h, seat: int, state: dict, info: str) -> None:
    """A seat's panel: a box (gold edge when the seat is to act), its name and
    ``info``."""
    turn = state.get("current_player") == seat and not state.get("done")
    S.group(seat_name(seat))
    S.box(x, y, w, h, fill=PANEL, edge=TURN if turn else EDGE, radius=8, width=3 if turn else 1)
    label = seat_name(seat) + (" (to play)" if turn else "")
    S.text(x + 8, y + 17, label, size=13, bold=True, colour=TURN if turn else INK)
    S.text(x + 8, y + 33, info, size=12, colour=DIM)


def game_over(S: Scene, state: dict) -> None:
    if not state.get("done"):
        return
    winners = state.get("winners")
    if winners is None and state.get("winner") is not None:
        winners = [state["winner"]]
    if state.get("illegal_action_by") is not None:
        text = f"Game over: illegal action by {seat_name(state['illegal_action_by'])}"
    elif winners:
        text = "Game over: " + ", ".join(seat_name(s) for s in winners) + (" win" if len(winners) > 1 else " wins")
    else:
        text = "Game over: a draw" if not state.get("truncated") else "Game over: cut at the tick limit (a draw)"
    S.group("result")
    S.box(S.w / 2 - 230, S.h / 2 - 26, 460, 44, fill="#fff8dc", edge=TURN, radius=8, width=3)
    S.text(S.w / 2, S.h / 2 + 2, text, size=17, anchor="middle", colour="#222222", bold=True)


def trick_row(S: Scene, cx, y, plays: list[dict], scale=1.0, label="trick", winner: int | None = None) -> None:
    """A trick's cards in play order, centred on cx, each seat named below."""
    S.group(label)
    cw = CARD_W * scale + 6
    x0 = cx - cw * max(len(plays), 1) / 2
    S.text(x0, y - 6, label + ("" if plays else " (empty)"), size=12, colour=DIM)
    for i, p in enumerate(plays):
        x = x0 + i * cw
        S.card(x, y, p["card"], mark="x" if p.get("cancelled") else None, scale=scale, hl=p["seat"] == winner)
        S.text(x + CARD_W * scale / 2, y + CARD_H * scale + 13, f"p{p['seat']}", size=11, anchor="middle")


# --------------------------------------------------------------------------- Pepper
def pepper(state: dict) -> Scene:
    n = state["num_players"]
    S = Scene(980, 640)
    bid = state.get("bid")
    extra = ""
    if bid:
        extra = f"bid {bid['value']} by {seat_name(bid['seat'])}"
    if state.get("trump"):
        t = state["trump"]
        extra += f" · trump {SUIT_NAMES.get(t, t)}"
    header(S, state, "Pepper", extra)
    pw, ph = 300, 120
    for seat, (x, y) in enumerate(ring(n, S.w, S.h, pw, ph)):
        b = state["bids"][seat] if state.get("bids") else None
        info = f"score {state['scores'][seat]} · tricks {state['tricks_won'][seat]}"
        info += f" · bid {b}" if b else (" · passed" if state.get("passed", [False] * n)[seat] else "")
        panel(S, x, y, pw, ph, seat, state, info)
        S.cards(x + 8, y + 46, state["hands"][seat], owner=seat, step=30, max_width=pw - 16)
    cx, cy = S.w / 2, S.h / 2 + 17
    trick_row(S, cx, cy - 80, state.get("trick") or [])
    done_tricks = state.get("tricks") or []
    if done_tricks:
        last = done_tricks[-1]
        trick_row(S, cx, cy + 20, last["cards"], scale=0.7, label="last trick", winner=last.get("winner"))
    if state.get("dead_hand"):
        S.group("dead hand")
        S.text(20, S.h - 92, "dead hand", size=12, colour=DIM)
        S.cards(20, S.h - 86, state["dead_hand"], owner=NOBODY, scale=0.7, step=14)
    game_over(S, state)
    return S


# ------------------------------------------------------------- Cancellation Hearts
def hearts(state: dict) -> Scene:
    n = state["num_players"]
    S = Scene(1280, 860)
    extra = f"pass {state.get('pass_direction', '-')}"
    extra += " · hearts broken" if state.get("hearts_broken") else ""
    header(S, state, "Cancellation Hearts", extra)
    pw, ph, scale = 250, 98, 0.7
    for seat, (x, y) in enumerate(ring(n, S.w, S.h, pw, ph)):
        taken = len(state["taken"][seat])
        info = f"score {state['scores'][seat]} · points {state['points_taken'][seat]} · took {taken}"
        if state.get("widow_taken_by") == seat:
            info += " + widow"
        panel(S, x, y, pw, ph, seat, state, info)
        hand, passing = state["hands"][seat], state["passing"][seat]
        room = pw - 16 - (50 if passing else 0)
        width = S.cards(x + 8, y + 44, hand, owner=seat, scale=scale, step=20, max_width=room)
        if passing:
            S.group(f"{seat_name(seat)} passing")
            S.text(x + pw - 8, y + 33, "passing", size=11, anchor="end", colour=DIM)
            S.cards(x + 16 + max(width, 0), y + 44, passing, owner=seat, scale=scale, step=8)
    cx, cy = S.w / 2, S.h / 2 + 17
    trick_row(S, cx, cy - 70, state.get("trick") or [], scale=0.8)
    S.group("table")
    carried = state.get("carried") or []
    if carried:
        S.text(cx - 200, cy + 20, f"carried to the next won trick ({len(carried)})", size=12, colour=DIM)
        S.cards(cx - 200, cy + 26, carried, scale=0.55, step=9, max_width=400)
    unc = state.get("uncollected") or []
    if unc:
        S.text(cx - 200, cy + 90, f"taken by nobody ({len(unc)})", size=12, colour=DIM)
        S.cards(cx - 200, cy + 96, unc, scale=0.55, step=9, max_width=400)
    widow = state.get("widow") or []
    if widow:
        S.group("widow")
        who = state.get("widow_taken_by")
        label = f"widow ({len(widow)}, {state.get('widow_status', '')}"
        label += f" by {seat_name(who)})" if who is not None else ")"
        S.text(cx + 60, cy + 20, label, size=12, colour=DIM)
        S.cards(cx + 60, cy + 26, widow, owner=NOBODY, scale=0.55, step=12)
    if state.get("moon_shooter") is not None:
        S.text(cx, cy + 160, f"{seat_name(state['moon_shooter'])} shot the moon", size=14, anchor="middle", bold=True)
    game_over(S, state)
    return S


# --------------------------------------------------------------------------- Push
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


def push(state: dict) -> Scene:
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


# ------------------------------------------------------------------- Spit and Speed
def spit(state: dict) -> Scene:
    S = Scene(980, 640)
    speed = state.get("variant") == "speed"
    extra = f"tick {state.get('tick', 0)}"
    header(S, state, "Speed" if speed else "Spit", extra)
    ph = 200
    for seat in (0, 1):
        y = S.h - ph - 8 if seat == 0 else 36
        info = f"score {state['scores'][seat]}"
        panel(S, 8, y, S.w - 16, ph, seat, state, info)
        if speed:
            speed_seat(S, state, seat, y)
        else:
            spit_seat(S, state, seat, y)
    S.group("spit piles")
    cy = S.h / 2 + 17 - CARD_H / 2 - 8
    for p, pile in enumerate(state.get("spit_piles") or []):
        x = S.w / 2 - 70 + p * 96
        S.pile(x, cy, len(pile), f"pile {p}", top=pile[-1] if pile else None)
    game_over(S, state)
    return S


def spit_seat(S: Scene, state: dict, seat: int, y: float) -> None:
    piles = state["stockpiles"][seat]
    face_up = state["face_up"][seat]
    for i, pile in enumerate(piles):
        x = 30 + i * 110
        up = min(face_up[i], len(pile))
        down = len(pile) - up
        S.group(f"{seat_name(seat)} stockpile {i}")
        S.text(x, y + 54, f"stockpile {i}: {len(pile)}", size=11, colour=DIM)
        if not pile:
            S.box(x, y + 62, CARD_W, CARD_H, edge=DIM, radius=4)
        for j in range(down):
            S.card(x + 3 * min(j, 4), y + 62 + 3 * min(j, 4), None)
        base = 3 * min(down, 5)
        for j, card in enumerate(pile[down:]):
            S.card(x + base, y + 62 + base + 18 * j, card)
    S.group(f"{seat_name(seat)} spit cards")
    S.pile(S.w - 120, y + 62, len(state["spit_cards"][seat]), "spit cards")


def speed_seat(S: Scene, state: dict, seat: int, y: float) -> None:
    S.group(f"{seat_name(seat)} hand")
    S.text(30, y + 54, "hand", size=11, colour=DIM)
    S.cards(30, y + 62, state["hands"][seat], owner=seat, step=50)
    S.group(f"{seat_name(seat)} stock")
    S.pile(330, y + 62, len(state["stocks"][seat]), "stock")
    S.group(f"side pile {seat}")
    S.pile(S.w - 120, y + 62, len(state["side_piles"][seat]), f"side pile {seat}")


# ------------------------------------------------------------------------ fallback
def generic(state: dict) -> Scene:
    """Any other game: seats with their hands (tagged as private) and scores."""
    hands = state.get("hands") or []
    n = state.get("num_players") or len(hands) or len(state.get("scores") or [])
    S = Scene(980, 640)
    header(S, state, state.get("game", "game"))
    pw, ph = 300, 110
    for seat, (x, y) in enumerate(ring(max(n, 1), S.w, S.h, pw, ph)):
        scores = state.get("scores") or []
        panel(S, x, y, pw, ph, seat, state, f"score {scores[seat]}" if seat < len(scores) else "")
        if seat < len(hands):
            S.cards(x + 8, y + 44, hands[seat], owner=seat, scale=0.8, step=14, max_width=pw - 16)
    if state.get("trick"):
        trick_row(S, S.w / 2, S.h / 2 - 20, state["trick"])
    game_over(S, state)
    return S


BUILDERS: dict[str, Callable[[dict], Scene]] = {
    "pepper_v0": pepper,
    "cancellation_hearts_v0": hearts,
    "push_v0": push,
    "spit_v0": spit,
}


def build(state: dict[str, Any]) -> Scene:
    return BUILDERS.get(state.get("game", ""), generic)(state)


def private_action(game: str, text: str) -> bool:
    """Whether an action's text is private to the seat that played it (a card
    chosen to pass in Cancellation Hearts); replays show others' private
    actions without their text."""
    return game == "cancellation_hearts_v0" and text.startswith("pass ")
