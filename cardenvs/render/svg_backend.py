"""The SVG backend: a scene (already seen from its viewpoint) -> SVG text.

A face-up card is ``<g class="card" data-card="QS">``; a face-down one is
``<g class="card back">`` with nothing of its face anywhere (no text,
attribute or comment), so a seat's picture holds no other seat's private
card.  Suits are drawn as shapes (:data:`SUIT_SHAPES`), not font glyphs, so
they look the same in every browser and in the bitmap backend.
"""

from __future__ import annotations

import math
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from .canvas import BACK, CARD_H, CARD_W, INK, TURN, suit_colour

# Suit symbols in a unit box centred on (0, 0): circles (cx, cy, r) and polygons.
SUIT_SHAPES: dict[str, dict[str, list]] = {
    "D": {"circles": [], "polys": [[(0, -0.5), (0.38, 0), (0, 0.5), (-0.38, 0)]]},
    "H": {
        "circles": [(-0.22, -0.2, 0.25), (0.22, -0.2, 0.25)],
        "polys": [[(-0.465, -0.12), (0.465, -0.12), (0, 0.5)]],
    },
    "S": {
        "circles": [(-0.22, 0.1, 0.23), (0.22, 0.1, 0.23)],
        "polys": [[(-0.44, 0.04), (0.44, 0.04), (0, -0.5)], [(0, 0.05), (0.16, 0.5), (-0.16, 0.5)]],
    },
    "C": {
        "circles": [(0, -0.24, 0.21), (-0.23, 0.1, 0.21), (0.23, 0.1, 0.21)],
        "polys": [[(0, -0.05), (0.15, 0.5), (-0.15, 0.5)]],
    },
}
STAR = [
    ((1 if k % 2 == 0 else 0.42) * 0.5 * math.cos(-math.pi / 2 + k * math.pi / 5),
     (1 if k % 2 == 0 else 0.42) * 0.5 * math.sin(-math.pi / 2 + k * math.pi / 5))
    for k in range(10)
]  # fmt: skip
RANK_TEXT = {"T": "10"}
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"


def rank_text(card: str) -> str:
    return "JK" if card == "JK" else RANK_TEXT.get(card[:1], card[:1])


def _n(v: float) -> str:
    v = round(float(v), 2)
    return str(int(v)) if v == int(v) else str(v)


def _a(v: Any) -> str:
    """A value for a double-quoted attribute, escaped (scenes may be drawn
    from a file: nothing in one can end the attribute)."""
    return escape(str(v), {'"': "&quot;", "'": "&#39;"})


def pip_svg(x: float, y: float, suit: str, size: float) -> str:
    shape = SUIT_SHAPES.get(suit) if isinstance(suit, str) else None
    if shape is None:  # not a suit (a scene built by hand): no pip
        return ""
    fill = suit_colour(suit)
    parts = [
        f'<circle cx="{_n(x + cx * size)}" cy="{_n(y + cy * size)}" r="{_n(r * size)}" fill="{fill}"/>'
        for cx, cy, r in shape["circles"]
    ]
    for poly in shape["polys"]:
        pts = " ".join(f"{_n(x + px * size)},{_n(y + py * size)}" for px, py in poly)
        parts.append(f'<polygon points="{pts}" fill="{fill}"/>')
    return "".join(parts)


def card_svg(it: dict[str, Any]) -> str:
    s = it.get("s", 1.0)
    x, y = it["x"], it["y"]
    head = f'transform="translate({_n(x)},{_n(y)}) scale({_n(s)})"'
    w, h = CARD_W, CARD_H
    if "c" not in it:
        owner = f' data-owner="{_a(it["o"])}"' if "o" in it else ""
        return (
            f'<g class="card back"{owner} {head}>'
            f'<rect width="{w}" height="{h}" rx="4" fill="{BACK}" stroke="#0d1f45"/>'
            f'<rect x="4" y="4" width="{w - 8}" height="{h - 8}" rx="3" fill="none" stroke="#8fa8e0"/></g>'
        )
    card = str(it["c"])
    out = [f'<g class="card" data-card={quoteattr(card)} {head}>']
    out.append(f'<rect width="{w}" height="{h}" rx="4" fill="#fdfdf8" stroke="#555"/>')
    if card == "JK":
        out.append('<text x="4" y="14" font-size="12" font-weight="bold" fill="#6a1b9a">JK</text>')
        pts = " ".join(f"{_n(22 + px * 26)},{_n(38 + py * 26)}" for px, py in STAR)
        out.append(f'<polygon points="{pts}" fill="#6a1b9a"/>')
    else:
        suit = card[1:2]
        text = escape(rank_text(card))
        out.append(f'<text x="4" y="15" font-size="14" font-weight="bold" fill="{suit_colour(suit)}">{text}</text>')
        out.append(pip_svg(10, 24, suit, 10))
        out.append(pip_svg(26, 42, suit, 22))
    mark = it.get("m")
    if mark == "x":
        out.append(f'<rect width="{w}" height="{h}" rx="4" fill="#777" fill-opacity="0.55"/>')
        out.append(f'<path d="M4 4L{w - 4} {h - 4}M{w - 4} 4L4 {h - 4}" stroke="#d00" stroke-width="3"/>')
    if it.get("hl"):
        out.append(f'<rect x="-2" y="-2" width="{w + 4}" height="{h + 4}" rx="5" fill="none" stroke="{TURN}" '
                   'stroke-width="3"/>')  # fmt: skip
    out.append("</g>")
    if mark and mark != "x":  # what a wild stands for, beneath the card (unscaled, to stay legible)
        bx, by, bw = x, y + h * s + 2, w * s
        out.append(f'<rect x="{_n(bx)}" y="{_n(by)}" width="{_n(bw)}" height="14" rx="3" fill="{TURN}"/>')
        out.append(
            f'<text x="{_n(bx + bw / 2)}" y="{_n(by + 11)}" font-size="11" font-weight="bold" text-anchor="middle" '
            f'fill="#222">{escape(str(mark))}</text>'
        )
    return "".join(out)


def item_svg(it: dict[str, Any]) -> str:
    k = it["k"]
    if k == "card":
        return card_svg(it)
    if k == "text":
        attrs = f'x="{_n(it["x"])}" y="{_n(it["y"])}" font-size="{_n(it.get("z", 13))}" fill="{_a(it.get("f", INK))}"'
        if it.get("a"):
            attrs += f' text-anchor="{_a(it["a"])}"'
        if it.get("b"):
            attrs += ' font-weight="bold"'
        return f"<text {attrs}>{escape(str(it['t']))}</text>"
    if k == "box":
        attrs = f'x="{_n(it["x"])}" y="{_n(it["y"])}" width="{_n(it["w"])}" height="{_n(it["h"])}"'
        attrs += f' fill="{_a(it.get("f", "none"))}"'
        if it.get("e"):
            attrs += f' stroke="{_a(it["e"])}" stroke-width="{_n(it.get("lw", 1))}"'
        if it.get("r"):
            attrs += f' rx="{_n(it["r"])}"'
        return f"<rect {attrs}/>"
    if k == "pip":
        return pip_svg(it["x"], it["y"], it["s"], it.get("z", 14))
    return ""


def to_svg(scene: dict[str, Any]) -> str:
    w, h = _n(scene["w"]), _n(scene["h"])
    body = "".join(item_svg(it) for it in scene["items"])
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
        f'font-family="{FONT}">{body}</svg>'
    )
