"""The replay viewer: one self-contained HTML file (inline CSS and JS, no
network) that steps through a replay forward and back, with the viewpoint
switchable between the spectator and each seat.

The file embeds the spectator's scene of every step, each private card
tagged with its owner, and the page turns the cards the chosen seat may not
see face down (as :func:`cardenvs.render.canvas.for_viewpoint` does).  To keep
files small, the drawing items are stored once each (an item repeated from
step to step is written once) and a step is the list of its items' numbers;
a step after the first keeps only what changed
at the front and the end of the step before ("prefix-suffix" encoding);
at most ``max_steps`` steps go into one file (2,000 by default: a long game
is cut, and the page says so; ``start`` picks where the window begins).
Actions private to a seat (Cancellation Hearts' passed cards) are captioned
without their card for the other seats.

A replay file may come from anywhere, so the page is safe whatever it holds:
the replay is checked first (:meth:`Replay.check`, a ``ValueError`` for a
bad one), every value the page writes is escaped (text nodes, ``esc`` in the
renderer, :func:`html.escape` here) and the embedded JSON has no ``<``, ``>``
or ``&`` (:func:`.web.script_json`); and the page allows no script but its
own (a Content-Security-Policy with the script's hash).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from typing import Any

from . import games
from .replay import Replay
from .web import page

MAX_STEPS = 2000

SCRIPT = r"""
const D = JSON.parse(document.getElementById("data").textContent);
// steps after the first are [p, q, ...middle]: p items kept from the front of the step before, q from its end
for (let i = 1; i < D.steps.length; i++) {
  const prev = D.steps[i - 1], [p, q, ...mid] = D.steps[i];
  D.steps[i] = prev.slice(0, p).concat(mid, prev.slice(prev.length - q));
}
let step = 0, vp = null, timer = null;
const $ = id => document.getElementById(id);
function caption(i) {
  const c = D.captions[i];
  if (!c) return i === 0 && D.start === 0 ? "start of the game" : "";
  const [actor, text, priv] = c;
  if (actor === null) return "tick: " + text.map((t, s) => "player_" + s + " " + t).join(", ");
  const who = "player_" + actor;
  if (priv && vp !== null && vp !== actor) return who + ": (a private action)";
  return who + ": " + text;
}
function show() {
  const scene = {w: D.w, h: D.h, items: D.steps[step].map(k => D.items[k])};
  $("table").innerHTML = sceneSVG(scene, vp);
  $("caption").textContent = caption(step);
  $("pos").textContent = `step ${D.start + step} / ${D.start + D.steps.length - 1}` + (D.cut ? ` (of ${D.total})` : "");
  $("slider").value = step;
  $("prev").disabled = $("first").disabled = step === 0;
  $("next").disabled = $("last").disabled = step === D.steps.length - 1;
}
function go(i) { step = Math.max(0, Math.min(D.steps.length - 1, i)); show(); }
function play() {
  if (timer) { clearInterval(timer); timer = null; $("play").textContent = "play"; return; }
  $("play").textContent = "pause";
  timer = setInterval(() => { if (step >= D.steps.length - 1) play(); else go(step + 1); }, 1000 / D.fps);
}
$("first").onclick = () => go(0);
$("prev").onclick = () => go(step - 1);
$("next").onclick = () => go(step + 1);
$("last").onclick = () => go(D.steps.length - 1);
$("play").onclick = play;
$("slider").max = D.steps.length - 1;
$("slider").oninput = e => go(+e.target.value);
$("viewpoint").onchange = e => { vp = e.target.value === "spectator" ? null : +e.target.value; show(); };
document.addEventListener("keydown", e => {
  if (e.key === "ArrowRight") go(step + 1);
  else if (e.key === "ArrowLeft") go(step - 1);
  else if (e.key === "Home") go(0);
  else if (e.key === "End") go(D.steps.length - 1);
});
show();
"""


def viewer_data(
    replay: Replay, max_steps: int = MAX_STEPS, start: int = 0, progress: Callable[[int, int], None] | None = None
) -> dict[str, Any]:
    """What the viewer page embeds (see the module docstring)."""
    if max_steps < 1 or start < 0:
        raise ValueError("max_steps must be >= 1 and start >= 0")
    replay.check()  # ReplayError (a ValueError) for a replay this library did not write
    total = len(replay.actions)
    stop = min(total, start + max_steps - 1)
    items: list[Any] = []
    index: dict[str, int] = {}
    steps: list[list[int]] = []
    captions: list[Any] = []
    size = None
    for i, (state, actor, action) in enumerate(replay.steps(limit=stop)):
        if progress is not None:
            progress(i, stop + 1)
        if i < start:
            continue
        scene = games.build(state).done()
        size = size or (scene["w"], scene["h"])
        ids = []
        for it in scene["items"]:
            key = json.dumps(it, sort_keys=True, separators=(",", ":"))
            k = index.get(key)
            if k is None:
                k = index[key] = len(items)
                items.append(it)
            ids.append(k)
        steps.append(ids)
        if action is None:
            captions.append(None)
        else:
            private = actor is not None and games.private_action(replay.game, action)
            captions.append([actor, action, 1 if private else 0])
    n = len(replay.make_env().possible_agents) if replay.states_recorded is None else 2
    return {
        "encoding": "prefix-suffix",
        "game": replay.game,
        "players": replay.players,
        "num_players": n,
        "w": size[0],
        "h": size[1],
        "items": items,
        "steps": delta_encode(steps),
        "captions": captions,
        "start": start,
        "total": total,
        "cut": start > 0 or stop < total,
        "fps": 2,
    }


def delta_encode(steps: list[list[int]]) -> list[list[int]]:
    """Each step after the first as ``[p, q, *middle]``: the first p and the
    last q items of the step before, with ``middle`` between them."""
    out, prev = [], None
    for ids in steps:
        if prev is None:
            out.append(ids)
        else:
            p = 0
            while p < min(len(ids), len(prev)) and ids[p] == prev[p]:
                p += 1
            q = 0
            while q < min(len(ids), len(prev)) - p and ids[-1 - q] == prev[-1 - q]:
                q += 1
            out.append([p, q, *ids[p : len(ids) - q]])
        prev = ids
    return out


def delta_decode(steps: list[list[int]]) -> list[list[int]]:
    out: list[list[int]] = []
    for enc in steps:
        if not out:
            out.append(list(enc))
        else:
            prev, (p, q), mid = out[-1], enc[:2], enc[2:]
            out.append(prev[:p] + mid + prev[len(prev) - q :])
    return out


def build_html(replay: Replay, max_steps: int = MAX_STEPS, start: int = 0, progress=None) -> str:
    """The viewer page of ``replay``, as one HTML string."""
    data = viewer_data(replay, max_steps, start, progress)
    title = f"{replay.game} replay"
    seats = "".join(f"<option value='{s}'>player_{s}</option>" for s in range(data["num_players"]))
    players = ""
    if replay.players:
        players = " · ".join(f"player_{i}: {html.escape(str(p))}" for i, p in enumerate(replay.players))
    result = ""
    if replay.result:
        result = "result: " + html.escape(json.dumps(replay.result))
    cut = ""
    if data["cut"]:
        last = start + len(data["steps"]) - 1
        cut = f"<p class='err'>This file holds steps {start} to {last} of {data['total']} (max_steps={max_steps}).</p>"
    body = (
        f"<header><h1>{html.escape(title)}</h1>"
        "<button id='first'>|&lt;</button><button id='prev'>&lt; back</button>"
        "<button id='play'>play</button><button id='next'>forward &gt;</button><button id='last'>&gt;|</button>"
        "<input id='slider' type='range' min='0' value='0'>"
        "<span id='pos'></span>"
        "<label>viewpoint <select id='viewpoint'><option value='spectator'>spectator</option>"
        f"{seats}</select></label></header>"
        f"<main><div id='caption'></div><div id='table'></div>{cut}"
        f"<p id='log'>{players}<br>{result}<br>{html.escape(replay.note)}</p></main>"
    )
    return page(html.escape(title), body, SCRIPT, data, sealed=True)


def write_html(replay: Replay, path: str, **kw: Any) -> str:
    """Write the viewer page of ``replay`` to ``path`` (see :func:`build_html`)."""
    with open(path, "w") as f:
        f.write(build_html(replay, **kw))
    return path
