"""The parts every game's scene is drawn with: seats around the table, the
header, a seat's panel, a trick, the end of the game, and :func:`generic`,
the scene of a game that has none of its own.  A game's ``scene.py``
(named by its ``GameSpec.scene``) draws with these and with
:mod:`.canvas`; the application (:mod:`cardenvs.app`) finds it through
the registry.

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

from .canvas import CARD_H, CARD_W, DIM, EDGE, INK, PANEL, TURN, Scene


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
