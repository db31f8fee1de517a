"""Cancellation Hearts's table scene: ``state_dict()`` -> the spectator's scene
(:mod:`cardenvs.render.canvas`), every private card tagged by its owner; it
reads only the public ``state_dict()`` (the decisions every scene follows are
in :mod:`cardenvs.render.parts`)."""

from __future__ import annotations

from ...render.canvas import DIM, NOBODY, Scene
from ...render.parts import game_over, header, panel, ring, seat_name, trick_row


def scene(state: dict) -> Scene:
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


def private_action(text: str) -> bool:
    """Whether an action's text is private to the seat that played it: a card
    chosen to pass (replays show others' passes without their text)."""
    return text.startswith("pass ")
