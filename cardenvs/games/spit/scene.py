"""Spit and Speed's table scene: ``state_dict()`` -> the spectator's scene
(:mod:`cardenvs.render.canvas`), every private card tagged by its owner; it
reads only the public ``state_dict()`` (the decisions every scene follows are
in :mod:`cardenvs.render.parts`)."""

from __future__ import annotations

from ...render.canvas import CARD_H, CARD_W, DIM, Scene
from ...render.parts import game_over, header, panel, seat_name


def scene(state: dict) -> Scene:
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
