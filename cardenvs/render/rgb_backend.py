"""The bitmap backend: a scene (already seen from its viewpoint) -> an RGB
``uint8`` numpy array ``(height, width, 3)``, drawn with Pillow (its default
font; suits are drawn as shapes, as in the SVG backend)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from .canvas import BACK, CARD_H, CARD_W, INK, TURN, suit_colour
from .svg_backend import STAR, SUIT_SHAPES, rank_text


def _pil():
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as e:  # pragma: no cover - Pillow is a dependency
        raise ImportError("render_mode='rgb_array' needs Pillow: pip install pillow") from e
    return Image, ImageDraw, ImageFont


@lru_cache(maxsize=32)
def font(size: int):
    _, _, ImageFont = _pil()
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError):  # Pillow < 10.1 or no FreeType: the small bitmap font
        return ImageFont.load_default()


@lru_cache(maxsize=4096)
def stamp(text: str, size: int, anchor: str):
    """``text`` rendered once as a mask, with the offset of its top-left
    corner from the anchor point (a baseline point): labels repeat from frame
    to frame, and pasting a mask is far cheaper than rendering the text."""
    Image, ImageDraw, _ = _pil()
    f = font(size)
    a = {"start": "ls", "middle": "ms", "end": "rs"}[anchor]
    try:
        l, t, r, b = f.getbbox(text, anchor=a)
    except (ValueError, TypeError):  # bitmap fonts take no anchor: put the text's bottom on the baseline
        l, t, r, b = f.getbbox(text)
        w, h = r - l, b - t
        l, t, r, b = {"ls": 0, "ms": -w // 2, "rs": -w}[a], -h, 0, 0
        r = l + w
        mask = Image.new("L", (max(w, 1), max(h, 1)), 0)
        ImageDraw.Draw(mask).text((0, 0), text, font=f, fill=255)
        return mask, l, t
    mask = Image.new("L", (max(r - l, 1), max(b - t, 1)), 0)
    ImageDraw.Draw(mask).text((-l, -t), text, font=f, fill=255, anchor=a)
    return mask, l, t


@lru_cache(maxsize=64)
def _rgb(colour: str) -> tuple[int, int, int]:
    c = colour.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


@lru_cache(maxsize=2048)
def card_sprite(card: str | None, scale: float, cancelled: bool, hl: bool):
    """A card drawn once (RGBA, transparent around its rounded corners, with
    a 2-pixel margin for the highlight): cards repeat from frame to frame,
    and pasting a sprite is far cheaper than drawing the card."""
    w, h = CARD_W * scale, CARD_H * scale
    p = Painter(int(w) + 6, int(h) + 6, "RGBA")
    p.draw_card(2, 2, card, scale, None, hl)
    if cancelled:  # greyed (as the SVG's translucent grey) and crossed out
        Image, ImageDraw, _ = _pil()
        grey = Image.new("RGBA", p.img.size, (0, 0, 0, 0))
        ImageDraw.Draw(grey).rounded_rectangle([2, 2, 2 + w, 2 + h], max(2, int(4 * scale)), fill=(119, 119, 119, 140))
        p.img = Image.alpha_composite(p.img, grey)
        d = ImageDraw.Draw(p.img)
        d.line([6, 6, w - 2, h - 2], fill=(221, 0, 0, 255), width=3)
        d.line([w - 2, 6, 6, h - 2], fill=(221, 0, 0, 255), width=3)
    return p.img


class Painter:
    def __init__(self, w: int, h: int, mode: str = "RGB"):
        Image, ImageDraw, _ = _pil()
        self.img = Image.new(mode, (w, h), (0, 0, 0) if mode == "RGB" else (0, 0, 0, 0))
        self.d = ImageDraw.Draw(self.img)
        self.alpha = mode == "RGBA"

    def text(self, x, y, text: str, size: int, colour: str, anchor: str = "start", bold=False) -> None:
        mask, dx, dy = stamp(text, int(size), anchor)
        rgb = _rgb(colour) + ((255,) if self.alpha else ())
        self.img.paste(rgb, (round(x + dx), round(y + dy)), mask)

    def pip(self, x, y, suit: str, size: float) -> None:
        shape = SUIT_SHAPES[suit]
        fill = _rgb(suit_colour(suit))
        for cx, cy, r in shape["circles"]:
            self.d.ellipse([x + (cx - r) * size, y + (cy - r) * size, x + (cx + r) * size, y + (cy + r) * size], fill)
        for poly in shape["polys"]:
            self.d.polygon([(x + px * size, y + py * size) for px, py in poly], fill)

    def card(self, it: dict[str, Any]) -> None:
        s = it.get("s", 1.0)
        x, y = round(it["x"]), round(it["y"])
        sprite = card_sprite(it.get("c"), s, it.get("m") == "x", bool(it.get("hl")))
        self.img.paste(sprite, (x - 2, y - 2), sprite)
        mark = it.get("m")
        if mark and mark != "x":  # what a wild stands for, beneath the card
            w, h = CARD_W * s, CARD_H * s
            self.d.rounded_rectangle([x, y + h + 2, x + w, y + h + 16], 3, fill=_rgb(TURN))
            self.text(x + w / 2, y + h + 13, mark, 11, "#222222", "middle", bold=True)

    def draw_card(self, x, y, card: str | None, s: float, mark: str | None, hl: bool) -> None:
        """Draw a card (only into sprites: see :func:`card_sprite`)."""
        w, h = CARD_W * s, CARD_H * s
        rad = max(2, int(4 * s))
        if card is None:
            self.d.rounded_rectangle([x, y, x + w, y + h], rad, fill=_rgb(BACK), outline=(13, 31, 69))
            self.d.rounded_rectangle([x + 4 * s, y + 4 * s, x + w - 4 * s, y + h - 4 * s], rad, outline=(143, 168, 224))
            return
        self.d.rounded_rectangle([x, y, x + w, y + h], rad, fill=(253, 253, 248), outline=(85, 85, 85))
        if card == "JK":
            self.text(x + 4 * s, y + 14 * s, "JK", max(7, round(12 * s)), "#6a1b9a", bold=True)
            self.d.polygon([(x + (22 + px * 26) * s, y + (38 + py * 26) * s) for px, py in STAR], _rgb("#6a1b9a"))
        else:
            self.text(x + 4 * s, y + 15 * s, rank_text(card), max(7, round(14 * s)), suit_colour(card[1]), bold=True)
            self.pip(x + 10 * s, y + 24 * s, card[1], 10 * s)
            self.pip(x + 26 * s, y + 42 * s, card[1], 22 * s)
        if hl:
            self.d.rounded_rectangle([x - 2, y - 2, x + w + 2, y + h + 2], rad + 1, outline=_rgb(TURN), width=3)

    def item(self, it: dict[str, Any]) -> None:
        k = it["k"]
        if k == "card":
            self.card(it)
        elif k == "text":
            self.text(it["x"], it["y"], it["t"], it.get("z", 13), it.get("f", INK), it.get("a", "start"), it.get("b"))
        elif k == "box":
            fill = _rgb(it["f"]) if it.get("f") else None
            edge = _rgb(it["e"]) if it.get("e") else None
            box = [it["x"], it["y"], it["x"] + it["w"] - 1, it["y"] + it["h"] - 1]
            if it.get("r"):
                self.d.rounded_rectangle(box, it["r"], fill=fill, outline=edge, width=int(it.get("lw", 1)))
            else:
                self.d.rectangle(box, fill=fill, outline=edge, width=int(it.get("lw", 1)))
        elif k == "pip":
            self.pip(it["x"], it["y"], it["s"], it.get("z", 14))


def to_rgb(scene: dict[str, Any]) -> np.ndarray:
    p = Painter(scene["w"], scene["h"])
    for it in scene["items"]:
        p.item(it)
    return np.asarray(p.img, dtype=np.uint8)
