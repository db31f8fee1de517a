"""The play page of :mod:`.serve`: one self-contained HTML file (no network)
that talks to the server's JSON API.  Made per server: its defaults are the
server's ``--tick`` and its choice of agents."""

from __future__ import annotations

from html import escape
from typing import Any

from cardenvs.registry import GAMES

from .web import page


def games_list() -> list[dict[str, Any]]:
    """The games the page offers (``GET /api/games``): Speed as a game of its own."""
    out = []
    for g in GAMES.values():
        out.append({"name": g.name, "title": g.title, "players": g.players, "simultaneous": g.simultaneous})
    out.append({"name": "speed", "title": "Speed (spit_v0, variant speed)", "players": "2", "simultaneous": True})
    return out


SCRIPT = r"""
let S = null, timer = null, vp = "me";
const $ = id => document.getElementById(id);
async function api(path, body) {
  const r = await fetch(path, body === undefined ? {} :
    {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const j = await r.json();
  if (!r.ok) throw new Error(j.error || ("HTTP " + r.status));
  return j;
}
function fail(e) { $("error").textContent = String(e.message || e); }
function render(j) {
  $("error").textContent = "";
  $("table").innerHTML = sceneSVG(j.scene, null);
  let status;
  if (j.done) {
    const w = j.result.winners;
    status = "Game over. " + (w.length ? "Winners: " + w.map(s => "player_" + s).join(", ") : "A draw.");
    if (w.includes(j.seat)) status += " (you!)";
  } else if (j.your_turn) {
    status = j.simultaneous ? "Play whenever you like (the clock runs)." : "Your turn.";
  } else {
    status = "Waiting...";
  }
  $("status").textContent = `${j.title}: you are player_${j.seat} vs ${j.vs}; step ${j.steps}. ` + status;
  $("status").dataset.steps = j.steps;
  const moves = $("moves");
  moves.innerHTML = "";
  for (const m of j.legal) {
    const b = document.createElement("button");
    b.className = "move"; b.textContent = m.text; b.dataset.id = m.id;
    b.onclick = () => api("/api/move", {session: S, action: m.text}).then(render).catch(fail);
    moves.appendChild(b);
  }
  $("log").textContent = j.log.slice().reverse().join("\n");
  $("spectate").disabled = !j.done;
  if (timer && (j.done || !j.simultaneous)) { clearInterval(timer); timer = null; }
}
function refresh() {
  if (!S) return;
  const q = vp === "me" ? "" : "&viewpoint=spectator";
  api("/api/state?session=" + S + q).then(render).catch(fail);
}
$("new").onclick = () => {
  let config = {};
  try { config = JSON.parse($("config").value || "{}"); } catch (e) { fail(new Error("config: " + e.message)); return; }
  const body = {game: $("game").value, seat: +$("seat").value, vs: $("vs").value, config: config,
                tick: +$("tick").value};
  if ($("seed").value !== "") body.seed = +$("seed").value;
  vp = "me";
  api("/api/new", body).then(j => {
    S = j.session; render(j);
    if (timer) clearInterval(timer);
    timer = j.simultaneous && j.tick > 0 ? setInterval(refresh, Math.max(150, j.tick * 500)) : null;
  }).catch(fail);
};
$("spectate").onclick = () => { vp = vp === "me" ? "spectator" : "me"; refresh(); };
"""


def play_page(tick: float, agents: list[str]) -> str:
    """The page for a server whose Spit/Speed clock runs ``tick`` seconds a
    tick (the default of the page's tick field) and whose agents are ``agents``."""
    options = "".join(f"<option value='{g['name']}'>{g['title']}</option>" for g in games_list())
    against = "".join(f"<option>{escape(name)}</option>" for name in agents)
    body = (
        "<header><h1>cardenvs</h1>"
        f"<label>game <select id='game'>{options}</select></label>"
        "<label>your seat <input id='seat' type='number' value='0' min='0' max='10' style='width:4em'></label>"
        f"<label>against <select id='vs'>{against}</select>"
        "</label><label>seed <input id='seed' type='number' style='width:6em'></label>"
        "<label>config <input id='config' value='{}' style='width:12em' title='game options as JSON'></label>"
        f"<label>tick (s) <input id='tick' type='number' value='{tick:g}' step='0.1' min='0' style='width:4em'>"
        "</label><button id='new'>new game</button><button id='spectate' disabled>all hands</button></header>"
        "<main><div id='status'>Choose a game and press “new game”.</div><div id='error' class='err'></div>"
        "<div id='moves'></div><div id='table'></div><div id='log'></div></main>"
    )
    return page("cardenvs: play", body, SCRIPT)
