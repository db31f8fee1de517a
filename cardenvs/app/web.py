"""The browser side, shared by the replay viewer and the play page: CSS and
a JavaScript renderer of scenes (the same drawing as :mod:`.svg_backend`), inlined
into each page so that nothing is fetched from the network."""

from __future__ import annotations

import base64
import hashlib
import json

from ..render.canvas import BACK, CARD_H, CARD_W, FELT, INK, TURN
from ..render.svg_backend import FONT, STAR, SUIT_SHAPES

CSS = f"""
body {{ background: #123d22; color: {INK}; font-family: {FONT}; margin: 0; }}
header {{ padding: 8px 14px; background: #0c2a17; display: flex; gap: 14px; align-items: center; flex-wrap: wrap; }}
header h1 {{ font-size: 17px; margin: 0 8px 0 0; }}
main {{ padding: 10px 14px; }}
button, select, input {{ font: inherit; font-size: 14px; padding: 4px 9px; border-radius: 5px;
  border: 1px solid #8fb59a; background: #f4f4ee; color: #112; cursor: pointer; }}
button:disabled {{ opacity: .45; cursor: default; }}
#table svg {{ max-width: 100%; height: auto; background: {FELT}; border-radius: 8px; }}
#caption {{ min-height: 1.4em; margin: 6px 0; font-size: 15px; }}
#moves {{ display: flex; flex-wrap: wrap; gap: 6px; margin: 8px 0; max-height: 220px; overflow: auto; }}
#moves button {{ background: #fff8dc; }}
#log {{ font-size: 13px; color: #bcd9c4; max-height: 160px; overflow: auto; white-space: pre-wrap; }}
.err {{ color: #ffb4a8; font-weight: bold; }}
label {{ font-size: 14px; }}
"""

_CONSTANTS = json.dumps(
    {"W": CARD_W, "H": CARD_H, "BACK": BACK, "TURN": TURN, "INK": INK, "SUITS": SUIT_SHAPES, "STAR": STAR, "FONT": FONT}
)

RENDER_JS = (
    "const K = "
    + _CONSTANTS
    + r""";
// Every value written into the SVG text goes through esc (text, attributes) or n (numbers):
// a scene drawn from a file may hold anything.
const ESC = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"};
function esc(s) { return String(s).replace(/[&<>"']/g, c => ESC[c]); }
function n(v) { return String(Math.round(Number(v) * 100) / 100); }
function suitColour(s) { return (s === "D" || s === "H") ? "#c0262d" : "#1a1a1a"; }
function pipSVG(x, y, suit, size) {
  if (!Object.prototype.hasOwnProperty.call(K.SUITS, suit)) return "";
  const sh = K.SUITS[suit], f = suitColour(suit); let out = "";
  for (const [cx, cy, r] of sh.circles) {
    out += `<circle cx="${n(x + cx * size)}" cy="${n(y + cy * size)}" r="${n(r * size)}" fill="${f}"/>`;
  }
  for (const p of sh.polys) {
    const pts = p.map(([px, py]) => n(x + px * size) + "," + n(y + py * size)).join(" ");
    out += `<polygon points="${pts}" fill="${f}"/>`;
  }
  return out;
}
function rankText(c) { return c === "JK" ? "JK" : (c[0] === "T" ? "10" : c[0]); }
// A card item; viewpoint null = spectator; a seat sees others' private cards face down.
function cardSVG(it, vp) {
  const s = it.s || 1, w = K.W, h = K.H;
  const hidden = !("c" in it) || ("o" in it && vp !== null && it.o !== vp);
  const head = `transform="translate(${n(it.x)},${n(it.y)}) scale(${n(s)})"`;
  if (hidden) {
    return `<g class="card back" ${head}><rect width="${w}" height="${h}" rx="4" fill="${K.BACK}" stroke="#0d1f45"/>` +
      `<rect x="4" y="4" width="${w - 8}" height="${h - 8}" rx="3" fill="none" stroke="#8fa8e0"/></g>`;
  }
  const c = String(it.c);
  let out = `<g class="card" data-card="${esc(c)}" ${head}>`;
  out += `<rect width="${w}" height="${h}" rx="4" fill="#fdfdf8" stroke="#555"/>`;
  if (c === "JK") {
    out += `<text x="4" y="14" font-size="12" font-weight="bold" fill="#6a1b9a">JK</text>`;
    const pts = K.STAR.map(([px, py]) => n(22 + px * 26) + "," + n(38 + py * 26)).join(" ");
    out += `<polygon points="${pts}" fill="#6a1b9a"/>`;
  } else {
    out += `<text x="4" y="15" font-size="14" font-weight="bold" fill="${suitColour(c[1])}">${esc(rankText(c))}</text>`;
    out += pipSVG(10, 24, c[1], 10) + pipSVG(26, 42, c[1], 22);
  }
  if (it.m === "x") {
    out += `<rect width="${w}" height="${h}" rx="4" fill="#777" fill-opacity="0.55"/>`;
    out += `<path d="M4 4L${w - 4} ${h - 4}M${w - 4} 4L4 ${h - 4}" stroke="#d00" stroke-width="3"/>`;
  }
  if (it.hl) {
    out += `<rect x="-2" y="-2" width="${w + 4}" height="${h + 4}" rx="5" fill="none" stroke="${K.TURN}"`;
    out += ` stroke-width="3"/>`;
  }
  out += "</g>";
  if (it.m && it.m !== "x") {
    const bx = it.x, by = it.y + h * s + 2, bw = w * s;
    out += `<rect x="${n(bx)}" y="${n(by)}" width="${n(bw)}" height="14" rx="3" fill="${K.TURN}"/>`;
    out += `<text x="${n(bx + bw / 2)}" y="${n(by + 11)}" font-size="11" font-weight="bold" text-anchor="middle"`;
    out += ` fill="#222">${esc(it.m)}</text>`;
  }
  return out;
}
function itemSVG(it, vp) {
  if (it.k === "card") return cardSVG(it, vp);
  if (it.k === "text") {
    let a = `x="${n(it.x)}" y="${n(it.y)}" font-size="${n(it.z || 13)}" fill="${esc(it.f || K.INK)}"`;
    if (it.a) a += ` text-anchor="${esc(it.a)}"`;
    if (it.b) a += ` font-weight="bold"`;
    return `<text ${a}>${esc(it.t)}</text>`;
  }
  if (it.k === "box") {
    let a = `x="${n(it.x)}" y="${n(it.y)}" width="${n(it.w)}" height="${n(it.h)}" fill="${esc(it.f || "none")}"`;
    if (it.e) a += ` stroke="${esc(it.e)}" stroke-width="${n(it.lw || 1)}"`;
    if (it.r) a += ` rx="${n(it.r)}"`;
    return `<rect ${a}/>`;
  }
  if (it.k === "pip") return pipSVG(it.x, it.y, it.s, it.z || 14);
  return "";
}
function sceneSVG(scene, vp) {
  const body = scene.items.map(it => itemSVG(it, vp)).join("");
  const w = n(scene.w), h = n(scene.h), size = `width="${w}" height="${h}" viewBox="0 0 ${w} ${h}"`;
  return `<svg xmlns="http://www.w3.org/2000/svg" ${size} font-family="${K.FONT}">${body}</svg>`;
}
"""
)


# Characters escaped in JSON embedded in a <script> element: with none of <, > and &
# left, no text in the data can end the element or start an HTML comment in it
# ("<!--<script>" would swallow the rest of the page); U+2028/9 for old parsers.
_JSON_ESCAPES = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def script_json(data: object) -> str:
    """``data`` as JSON that can stand inside a ``<script>`` element as it
    is (``JSON.parse`` of the element's text gives ``data`` back)."""
    return json.dumps(data, separators=(",", ":")).translate(_JSON_ESCAPES)


def page(title: str, body: str, script: str, data: object | None = None, sealed: bool = False) -> str:
    """A self-contained HTML page: inline CSS, the renderer, ``data`` as JSON
    (in ``<script id="data">``, see :func:`script_json`) and the page's own
    ``script``.  ``title`` and ``body`` are HTML: the caller escapes them.
    ``sealed``: the page says (Content-Security-Policy) that nothing but its
    own script runs and nothing is fetched: no inline handler, no other
    script, no request, whatever a value written into it holds."""
    data_js = ""
    if data is not None:
        data_js = f'<script id="data" type="application/json">{script_json(data)}</script>'
    code = f"{RENDER_JS}\n{script}"
    policy = ""
    if sealed:
        digest = base64.b64encode(hashlib.sha256(code.encode()).digest()).decode()
        rules = f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; img-src data:"
        policy = f"<meta http-equiv='Content-Security-Policy' content=\"{rules}\">"
    return (
        f"<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>{policy}"
        f"<meta name='viewport' content='width=device-width, initial-scale=1'><title>{title}</title>"
        f"<style>{CSS}</style></head><body>{body}{data_js}<script>{code}</script></body></html>\n"
    )
