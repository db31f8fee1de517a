"""Pepper's table scene: ``state_dict()`` -> the spectator's scene
(:mod:`cardenvs.render.canvas`), every private card tagged by its owner; it
reads only the public ``state_dict()`` (the decisions every scene follows are
in :mod:`cardenvs.render.parts`)."""

from __future__ import annotations

from ...render.canvas import DIM, NOBODY, SUIT_NAMES, Scene
from ...render.parts import game_over, header, panel, ring, seat_name, trick_row


def scene(state: dict) -> Scene:
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
