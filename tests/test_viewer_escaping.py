"""The replay viewer writes nothing from a replay unescaped: player names
such as ``<!--<script>``, quotes, ``&`` and ``</script>`` stay text, the
embedded JSON parses back to the same data, and even drawing items built by
hand (a card given as a list, an attribute holding markup) draw as text
(here parsed as HTML; in a real browser in tests/test_viewer_browser.py)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

from cardenvs.app.replay import Replay, record_game
from cardenvs.app.viewer import build_html, delta_decode, delta_encode, viewer_data
from cardenvs.app.web import script_json
from cardenvs.render.svg_backend import to_svg

PWN = "document.body.setAttribute('data-pwned',1)"
NAMES = ["<!--<script>", f"\"'&amp; </script><script>{PWN}</script>", f'<img src=x onerror="{PWN}">']
NOTE = f"</script><!--<script>{PWN}&\u2028"
PAGE_TAGS = {"html", "head", "meta", "title", "style", "body", "header", "h1", "button", "input", "span"}
PAGE_TAGS |= {"label", "select", "option", "main", "div", "p", "br", "script"}


class Page(HTMLParser):
    """Every start tag with its attributes, and the text of each script element."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[str] = []
        self.text: list[str] = []
        self._in_script = False
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._in_script = True
            self.scripts.append("")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data
        else:
            self.text.append(data)

    def handle_comment(self, data):
        raise AssertionError(f"a comment in the page: {data[:80]!r}")


def hostile_replay() -> Replay:
    replay = record_game("pepper_v0", "random", seed=8, config={"num_players": 3, "max_hands": 1}, max_steps=12)
    replay.players = list(NAMES)
    replay.note = NOTE.replace("\u2028", "")  # a note is printable text
    return Replay.from_dict(json.loads(replay.dumps()))  # a file like this one is accepted


def check_page(html: str, data: dict) -> Page:
    parsed = Page(html)
    assert {t for t, _ in parsed.tags} <= PAGE_TAGS, {t for t, _ in parsed.tags} - PAGE_TAGS
    assert not [a for _, attrs in parsed.tags for a in attrs if a.startswith("on")]
    assert [t for t, _ in parsed.tags].count("script") == 2 and len(parsed.scripts) == 2
    assert parsed.tags[[t for t, _ in parsed.tags].index("script")][1] == {"id": "data", "type": "application/json"}
    assert json.loads(parsed.scripts[0]) == data  # the embedded JSON parses back to the very data
    assert not re.search(r"[<>&\u2028\u2029]", parsed.scripts[0])
    assert "<!--" not in html and "<img" not in html.lower()
    # the page allows its own script only (no inline handler), pinned by its hash
    digest = base64.b64encode(hashlib.sha256(parsed.scripts[1].encode()).digest()).decode()
    policy = [a["content"] for t, a in parsed.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert policy == [f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; img-src data:"]
    return parsed


def test_viewer_page_keeps_hostile_names_as_text():
    replay = hostile_replay()
    html = build_html(replay)
    parsed = check_page(html, viewer_data(replay))
    text = "".join(parsed.text)
    for i, name in enumerate(NAMES):  # shown, as text
        assert f"player_{i}: {name}" in text
    assert replay.note in text


TAG = f'"><img src=x onerror="{PWN}">'


def hostile_items(numbers: object) -> list[dict]:
    """Drawing items no scene builder makes: a card given as a list, markup in
    every text and attribute; ``numbers`` in the numeric fields."""
    return [
        {"k": "card", "x": 10, "y": 10, "c": [f"<img src=x onerror={PWN}>", "S"], "m": TAG},
        {"k": "card", "x": numbers, "y": 10, "c": TAG, "s": numbers, "hl": 1},
        {"k": "text", "x": 5, "y": 5, "t": TAG, "z": numbers, "f": TAG, "a": TAG},
        {"k": "box", "x": 1, "y": 1, "w": 9, "h": 9, "f": TAG, "e": TAG, "lw": numbers, "r": numbers},
        {"k": "pip", "x": 1, "y": 1, "s": "__proto__"},
    ]


def hostile_data() -> dict:
    """The viewer's data of a real game with :func:`hostile_items` drawn in
    its first two steps and markup in a caption and the page's size."""
    data = viewer_data(hostile_replay())
    extra = list(range(len(data["items"]), len(data["items"]) + 5))
    data["items"] += hostile_items(TAG)
    steps = delta_decode(data["steps"])
    steps[0] += extra
    steps[1] += extra
    data["steps"] = delta_encode(steps)
    data["captions"][1] = [0, TAG, 0]
    data["w"] = TAG
    return data


def test_hand_built_items_are_escaped_by_both_renderers():
    replay = hostile_replay()
    html = build_html(replay)
    data = hostile_data()
    crafted = html.replace(script_json(viewer_data(replay)), script_json(data))
    assert crafted != html
    check_page(crafted, data)
    # the Python SVG backend: well-formed XML with the markup as text, no element from the items
    svg = to_svg({"w": 980, "h": 640, "items": hostile_items(3)})
    root = ET.fromstring(svg)
    tags = {el.tag.split("}")[-1] for el in root.iter()}
    assert tags <= {"svg", "g", "rect", "text", "circle", "polygon", "path"}, tags
    assert not [a for el in root.iter() for a in el.attrib if a.lower().startswith("on")]
    assert sum(el.text == TAG for el in root.iter()) == 2  # the wild's mark and the label
    assert [el.get("data-card") for el in root.iter() if el.get("data-card")] == [str(hostile_items(3)[0]["c"]), TAG]
