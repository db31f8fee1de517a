"""Scenes: a picture of a table as a list of drawing primitives.

A scene is a JSON-serialisable dict ``{"w": width, "h": height, "items": [...]}``
whose items are plain dicts (short keys, since replays embed thousands):

- ``{"k": "card", "x", "y", "c": "QS", "o": owner, "m": mark, "s": scale, "hl": 1, "g": group}``:
  a card with its top-left corner at (x, y).  ``"c"`` is its text when it is
  face up; a card without ``"c"`` is drawn face down.  ``"o"`` tags a card
  that only its owner may see (a seat, or :data:`NOBODY` for cards no seat
  sees, such as a dead hand or a widow); cards without ``"o"`` are public.
  ``"m"``: ``"x"`` (cancelled: greyed and crossed), ``"=7"`` (a wild standing
  for rank 7, written under the card).  ``"d": 1`` marks a card drawn only
  as the thickness of a pile.
- ``{"k": "text", "x", "y", "t": text, "z": size, "a": "start" | "middle" | "end", "f": colour, "b": 1}``:
  a label whose baseline is at y.
- ``{"k": "box", "x", "y", "w", "h", "f": fill, "e": edge colour, "r": corner radius, "lw": edge width}``.
- ``{"k": "pip", "x", "y", "s": suit, "z": size}``: a suit symbol centred on (x, y).

Every item may carry ``"g"``, the name of the group it belongs to (a seat's
panel, the trick, a meld): the text backend (:func:`to_text`) prints the
scene group by group.

Scene builders draw the *spectator's* scene, with every private card tagged
by its owner; :func:`for_viewpoint` turns it into what one seat sees by
turning the others' private cards face down (their text and marks removed,
so no backend can leak them).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

NOBODY = -1  # owner of cards no seat may see (dead hand, widow); the spectator sees them
CARD_W, CARD_H = 44, 62
SUITS = "CDHS"
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
RED, BLACK = "#c0262d", "#1a1a1a"
FELT, PANEL, TURN, EDGE, BACK = "#1f6b3a", "#2a7d48", "#f2c14e", "#174f2b", "#2d4f9e"
INK, DIM = "#f4f4ee", "#bcd9c4"


def suit_colour(suit: str) -> str:
    return RED if suit in "DH" else BLACK


class Scene:
    """A scene under construction: ``add_*`` methods append items; ``group``
    sets the group of the items added next."""

    def __init__(self, w: int, h: int, title: str = ""):
        self.w, self.h = int(w), int(h)
        self.items: list[dict[str, Any]] = []
        self.g: str | None = None
        self.box(0, 0, w, h, fill=FELT)
        if title:
            self.text(12, 22, title, size=16, bold=True)

    def group(self, name: str | None) -> Scene:
        self.g = name
        return self

    def _add(self, item: dict[str, Any]) -> dict[str, Any]:
        if self.g is not None:
            item["g"] = self.g
        self.items.append(item)
        return item

    def box(self, x, y, w, h, fill=None, edge=None, radius=0, width=1) -> dict:
        item: dict[str, Any] = {"k": "box", "x": r(x), "y": r(y), "w": r(w), "h": r(h)}
        if fill:
            item["f"] = fill
        if edge:
            item["e"] = edge
            if width != 1:
                item["lw"] = width
        if radius:
            item["r"] = radius
        return self._add(item)

    def text(self, x, y, text: str, size: int = 13, anchor: str = "start", colour: str = INK, bold=False) -> dict:
        item: dict[str, Any] = {"k": "text", "x": r(x), "y": r(y), "t": str(text), "z": size}
        if anchor != "start":
            item["a"] = anchor
        if colour != INK:
            item["f"] = colour
        if bold:
            item["b"] = 1
        return self._add(item)

    def pip(self, x, y, suit: str, size: int = 14) -> dict:
        return self._add({"k": "pip", "x": r(x), "y": r(y), "s": suit, "z": size})

    def card(self, x, y, card: str | None, owner: int | None = None, mark: str | None = None, scale=1.0, hl=False):
        item: dict[str, Any] = {"k": "card", "x": r(x), "y": r(y)}
        if card is not None:
            item["c"] = card
        if owner is not None:
            item["o"] = int(owner)
        if mark:
            item["m"] = mark
        if scale != 1.0:
            item["s"] = scale
        if hl:
            item["hl"] = 1
        return self._add(item)

    def cards(
        self,
        x,
        y,
        cards: Iterable[str | None],
        owner: int | None = None,
        scale=1.0,
        step: float | None = None,
        max_width: float | None = None,
        marks: Iterable[str | None] | None = None,
    ) -> float:
        """A row of overlapping cards from (x, y); returns the row's width.
        ``step`` (the offset between cards) shrinks to fit ``max_width``."""
        cards = list(cards)
        marks = list(marks) if marks is not None else [None] * len(cards)
        w = CARD_W * scale
        step = w * 0.42 if step is None else step
        if max_width is not None and len(cards) > 1 and w + step * (len(cards) - 1) > max_width:
            step = max(3.0, (max_width - w) / (len(cards) - 1))
        for i, (c, m) in enumerate(zip(cards, marks)):
            self.card(x + i * step, y, c, owner, m, scale)
        return w + step * (len(cards) - 1) if cards else 0.0

    def pile(self, x, y, count: int, label: str = "", top: str | None = None, scale=1.0, size=12) -> None:
        """A face-down pile (or one with ``top`` face up), with its count and
        a label beneath."""
        if count <= 0:
            self.box(x, y, CARD_W * scale, CARD_H * scale, edge=DIM, radius=4)
        else:
            depth = min(3, count - 1)
            for i in range(depth):  # the pile's thickness (decor: the text backend skips it)
                self.card(x + 2 * (depth - i), y - 2 * (depth - i), None, scale=scale)["d"] = 1
            self.card(x, y, top, scale=scale)
        cx = x + CARD_W * scale / 2
        label = f"{label}: {count}" if label else str(count)
        self.text(cx, y + CARD_H * scale + size + 2, label, size=size, anchor="middle")

    def done(self) -> dict[str, Any]:
        return {"w": self.w, "h": self.h, "items": self.items}


def r(v: float) -> float:
    """Coordinates rounded to one decimal (smaller replays, stable SVG)."""
    v = round(float(v), 1)
    return int(v) if v == int(v) else v


def for_viewpoint(scene: dict[str, Any], viewpoint: int | None) -> dict[str, Any]:
    """The scene as seat ``viewpoint`` sees it (None: the spectator, who
    sees everything): other owners' cards face down, without text or mark."""
    if viewpoint is None:
        return scene
    items = []
    for it in scene["items"]:
        if it["k"] == "card" and "o" in it and it["o"] != viewpoint:
            it = {k: v for k, v in it.items() if k not in ("c", "m")}
        items.append(it)
    return {**scene, "items": items}


def cards_shown(scene: dict[str, Any]) -> list[str]:
    """The texts of the face-up cards of a scene, in drawing order."""
    return [it["c"] for it in scene["items"] if it["k"] == "card" and "c" in it]


def to_text(scene: dict[str, Any]) -> str:
    """The scene as lines of text, one per group, in the order the groups
    first appear (face-down cards as ``##``, cancelled ones in brackets,
    wilds followed by ``=rank``)."""
    lines: dict[str | None, list[str]] = {}
    for it in scene["items"]:
        g = it.get("g")
        if it["k"] == "text":
            lines.setdefault(g, []).append(it["t"])
        elif it["k"] == "card" and not it.get("d"):
            if "c" not in it:
                word = "##"
            else:
                word = it["c"]
                m = it.get("m")
                if m == "x":
                    word = f"[{word}]"
                elif m:
                    word += m
            lines.setdefault(g, []).append(word)
    return "\n".join(" ".join(words) for words in lines.values() if words)


def dumps(scene: dict[str, Any]) -> str:
    return json.dumps(scene, separators=(",", ":"))
