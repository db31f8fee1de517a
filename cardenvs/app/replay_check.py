"""The checks every replay passes before it is re-played or drawn.

A replay file is input from anywhere (a download, a bug report), and the
viewer turns it into a web page; so :meth:`Replay.from_dict
<cardenvs.app.replay.Replay.from_dict>` and :meth:`Replay.check
<cardenvs.app.replay.Replay.check>` accept only what this library writes,
and anything else raises :class:`ReplayError` (a ``ValueError``) saying what
is wrong -- never another exception.  What is checked (docs/replays.md):

- the top level: a JSON object with the known keys only, ``format``
  ``"cardenvs-replay"``, ``version`` 1, ``game`` a registered game;
- ``config``: the game's own options (the env checks each value);
  ``render_mode`` is not one of them in a replay;
- ``seed``: an integer ``0 <= seed < 2**64``; it may be absent only when the
  replay carries its states (``states_recorded``);
- ``options``: ``None`` or ``{"decks": ..., "dealer": ...}`` as ``reset``
  takes them (the env checks them);
- ``actions``: a list of action texts of the game (Spit/Speed: one list of
  texts per tick, one per seat), each at most :data:`MAX_TEXT` characters;
  whether each is *legal* shows when the replay is re-played;
- ``players``: ``None`` or one printable name per seat (at most
  :data:`MAX_NAME` characters); ``result``: ``None`` or
  ``{"scores": [number per seat] | None, "winners": [seat, ...]}``;
  ``note``: text of at most :data:`MAX_NOTE` characters;
- ``states_recorded`` (Spit/Speed rows of the vector engine only): one state
  per step plus the start, each shaped as the game's ``state_dict()`` with
  the same keys, every card a card text, each card of the game exactly once
  and nothing else a card text, other texts short words (letters, digits,
  spaces, ``_.-``), seats in range and numbers finite and bounded.
"""

from __future__ import annotations

import importlib
import math
import re
from collections import Counter
from typing import Any

from cardenvs.registry import spec

from ..core.messages import cut, is_int, kind, show  # noqa: F401 (this module's names too)

FORMAT = "cardenvs-replay"
VERSION = 1
CARD = re.compile(r"^([2-9TJQKA][CDHS]|JK)$")
WORDS = re.compile(r"^[A-Za-z0-9 _.-]{0,64}$")  # the other texts of a state: a phase, a variant, "face down"...
MAX_TEXT = 64  # an action text, or a text in a recorded state
MAX_NAME = 200  # a player's name (an agent's name may be a checkpoint's path)
MAX_NOTE = 2000
SEED_LIMIT = 2**64  # seeds are 0 <= seed < SEED_LIMIT
MAX_NUMBER = 2**31  # numbers in results and recorded states are below this in size
FIELDS = ("game", "config", "seed", "options", "actions", "players", "result", "note", "states_recorded")
SEAT_KEYS = ("dealer", "winner", "current_player")


class ReplayError(ValueError):
    """A replay that this library did not write or cannot re-play.  The
    message says what is wrong; :meth:`Replay.load` puts the file's name in
    front of it (``path`` holds it; None for a dict or an object)."""

    def __init__(self, message: str, path: str | None = None):
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path


def is_number(value: Any) -> bool:
    return (is_int(value) and abs(value) < MAX_NUMBER) or (
        isinstance(value, float) and math.isfinite(value) and abs(value) < MAX_NUMBER
    )


def _text(value: Any, where: str, limit: int, extra: str = "") -> str:
    if not isinstance(value, str):
        raise ReplayError(f"{where} must be a string, got {kind(value)} {show(value)}")
    if len(value) > limit:
        raise ReplayError(f"{where} is {len(value)} characters long; at most {limit} are allowed")
    if not all(c.isprintable() or c in extra for c in value):
        raise ReplayError(f"{where} holds control characters: {show(value)}")
    return value


# ---------------------------------------------------------------- the top level
def check_fields(d: Any) -> dict[str, Any]:
    """The fields of a replay read from JSON, checked for type (what can be
    checked without the game); raises :class:`ReplayError`."""
    if not isinstance(d, dict):
        raise ReplayError(f"a replay is a JSON object, this is {kind(d)}")
    if d.get("format") != FORMAT:
        raise ReplayError(f"not a cardenvs replay (format {show(d.get('format'))}, expected {FORMAT!r})")
    version = d.get("version")
    if not is_int(version) or version != VERSION:
        raise ReplayError(f"replay version {show(version)} is not supported (this library reads {VERSION})")
    unknown = sorted(str(k) for k in d if k not in ("format", "version", *FIELDS))
    if unknown:
        raise ReplayError(f"unknown keys {show(unknown, 120)}; a replay has {['format', 'version', *FIELDS]}")
    if "game" not in d:
        raise ReplayError("'game' is missing")
    try:
        spec(_text(d["game"], "'game'", MAX_TEXT))
    except ReplayError:
        raise
    except ValueError as e:
        raise ReplayError(cut(e)) from None
    for key, types, name in (
        ("config", dict, "an object"),
        ("options", (dict, type(None)), "an object or null"),
        ("actions", list, "a list"),
        ("players", (list, type(None)), "a list or null"),
        ("result", (dict, type(None)), "an object or null"),
        ("states_recorded", (list, type(None)), "a list or null"),
    ):
        if key in d and not isinstance(d[key], types):
            raise ReplayError(f"'{key}' must be {name}, got {kind(d[key])} {show(d[key])}")
    seed = d.get("seed")
    if seed is not None and not (is_int(seed) and 0 <= seed < SEED_LIMIT):
        raise ReplayError(f"'seed' must be an integer 0 <= seed < 2**64 (or absent), got {kind(seed)} {show(seed)}")
    if "note" in d:
        _text(d["note"], "'note'", MAX_NOTE, extra="\n\t")
    return {k: d[k] for k in FIELDS if k in d}


# ------------------------------------------------------------------ the game
def check_replay(replay: Any) -> None:
    """Everything :func:`check_fields` checks, then the replay against its
    game: the config, seed and options make a game, every action is one of
    the game's action texts, one name per seat, and recorded states are the
    game's states.  Raises :class:`ReplayError`."""
    fields = {k: getattr(replay, k) for k in FIELDS}
    check_fields({"format": FORMAT, "version": VERSION, **fields})
    config, game = replay.config, replay.game
    bad = [k for k in config if not isinstance(k, str) or k == "render_mode"]
    if bad:
        raise ReplayError(f"'config' may not hold {show(bad)} (the game's options only, without render_mode)")
    if replay.seed is None and replay.states_recorded is None:
        raise ReplayError(
            "'seed' is missing: a replay is re-played from its seed (a game played without a seed by an "
            "older cardenvs recorded none and cannot be re-played)"
        )
    options = replay.options
    if options is not None and set(options) - {"decks", "dealer"}:
        raise ReplayError(f"'options' may hold 'decks' and 'dealer' only, got {show(sorted(map(str, options)))}")
    simultaneous = spec(game).simultaneous
    mod = importlib.import_module(spec(game).module)
    try:
        env = mod.parallel_env(**config) if simultaneous else mod.env(**config)
    except (ValueError, TypeError) as e:
        raise ReplayError(f"'config' {show(config)}: {cut(e)}") from None
    try:
        env.reset(seed=replay.seed if replay.seed is not None else 0, options=options)
    except (ValueError, TypeError, KeyError, IndexError) as e:
        raise ReplayError(f"'options' {show(options)}: {cut(e)}") from None
    n = len(env.possible_agents)
    _check_actions(replay.actions, env.unwrapped, game, n if simultaneous else None)
    _check_people(replay.players, replay.result, n)
    if replay.states_recorded is not None:
        if not simultaneous:
            raise ReplayError(f"'states_recorded' is only for Spit/Speed rows of the vector engine, not {game}")
        _check_states(replay, env.unwrapped.state_dict(), n)


def _check_actions(actions: list, u: Any, game: str, seats: int | None) -> None:
    """Turn-based games: one text per step; ``seats`` given: one list of
    ``seats`` texts per tick."""
    known: dict[str, bool] = {}
    for i, action in enumerate(actions):
        texts = [action]
        if seats is not None:
            if not isinstance(action, list) or len(action) != seats:
                raise ReplayError(f"action {i} must be a list of {seats} action texts, got {show(action)}")
            texts = action
        for t in texts:
            _text(t, f"action {i}", MAX_TEXT)
            if t not in known:
                try:
                    u.str_to_action(t)
                except (ValueError, KeyError, TypeError) as e:
                    raise ReplayError(f"action {i} {show(t)} is not an action of {game}: {cut(e)}") from None
                known[t] = True


def _check_people(players: list | None, result: dict | None, n: int) -> None:
    if players is not None:
        if len(players) != n:
            raise ReplayError(f"'players' must name the {n} seats, got {len(players)} names")
        for i, p in enumerate(players):
            _text(p, f"player {i}'s name", MAX_NAME)
    if result is None:
        return
    if set(result) - {"scores", "winners"}:
        raise ReplayError(f"'result' may hold 'scores' and 'winners' only, got {show(sorted(map(str, result)))}")
    scores, winners = result.get("scores"), result.get("winners", [])
    if scores is not None and not (isinstance(scores, list) and len(scores) == n and all(map(is_number, scores))):
        raise ReplayError(f"'result' scores must be {n} numbers (or null), got {show(scores)}")
    if not (isinstance(winners, list) and all(is_int(w) and 0 <= w < n for w in winners)):
        raise ReplayError(f"'result' winners must be a list of seats 0..{n - 1}, got {show(winners)}")


# ------------------------------------------------------------- recorded states
def template(ref: Any) -> Any:
    """The shape of a state (from a real ``state_dict()``) that a recorded
    state must have: ``"card"``, ``"text"``, ``"bool"``, ``"number"``,
    ``"seat?"`` (null or an integer), ``("list", element, length or None)``
    or ``("dict", {key: shape})``.  A list of cards may have any length; other
    lists (per seat, per pile) have the reference's; an empty list holds cards."""
    if isinstance(ref, dict):
        return ("dict", {k: template(v) for k, v in ref.items()})
    if isinstance(ref, list):
        elem = None
        for v in ref:
            elem = _merge(elem, template(v))
        return ("list", elem, None if elem in (None, "card") else len(ref))
    if isinstance(ref, str):
        return "card" if CARD.match(ref) else "text"
    if isinstance(ref, bool):
        return "bool"
    return "seat?" if ref is None else "number"


def _merge(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] == "list":
        elem = _merge(a[1], b[1])
        return ("list", elem, None if elem in (None, "card") else a[2])
    return a


def conform(value: Any, shape: Any, where: str, cards: Counter) -> None:
    """Raise :class:`ReplayError` unless ``value`` has ``shape`` (see
    :func:`template`); counts its cards into ``cards``."""
    if isinstance(shape, tuple) and shape[0] == "dict":
        if not isinstance(value, dict) or set(value) != set(shape[1]):
            got = sorted(map(str, value)) if isinstance(value, dict) else kind(value)
            raise ReplayError(f"{where} must be an object with keys {sorted(shape[1])}, got {show(got, 120)}")
        for k, s in shape[1].items():
            conform(value[k], s, f"{where}[{k!r}]", cards)
        return
    if isinstance(shape, tuple):  # a list; its element None when the reference's was empty (then cards)
        elem, length = shape[1], shape[2]
        if not isinstance(value, list) or (length is not None and len(value) != length):
            size = "a list" if length is None else f"a list of {length}"
            raise ReplayError(f"{where} must be {size}, got {kind(value)} {show(value)}")
        for i, v in enumerate(value):
            conform(v, elem if elem is not None else "card", f"{where}[{i}]", cards)
        return
    ok = {
        "card": lambda v: isinstance(v, str) and CARD.match(v) is not None,
        "text": lambda v: isinstance(v, str) and WORDS.match(v) is not None and not CARD.match(v),
        "bool": lambda v: isinstance(v, bool),
        "number": is_number,
        "seat?": lambda v: v is None or (is_int(v) and abs(v) < MAX_NUMBER),
    }[shape]
    if not ok(value):
        what = {"card": "a card text (e.g. 'QS', 'TD', 'JK')", "text": "a short word (letters, digits, ' _.-')"}
        raise ReplayError(f"{where} must be {what.get(shape, shape)}, got {kind(value)} {show(value)}")
    if shape == "card":
        cards[value] += 1


def _check_states(replay: Any, ref: dict, n: int) -> None:
    states = replay.states_recorded
    if len(states) != len(replay.actions) + 1:
        raise ReplayError(f"'states_recorded' must hold {len(replay.actions) + 1} states (one per action and the "
                          f"start), got {len(states)}")  # fmt: skip
    shape = template(ref)
    deck = Counter()
    conform(ref, shape, "the reference state", deck)
    for i, state in enumerate(states):
        where = f"recorded state {i}"
        cards: Counter = Counter()
        conform(state, shape, where, cards)
        for key in ("game", "variant", "num_players"):
            if key in ref and state[key] != ref[key]:
                raise ReplayError(f"{where}: {key!r} is {show(state[key])}, this replay's game has {ref[key]!r}")
        for key in SEAT_KEYS:
            if state.get(key) is not None and not 0 <= state[key] < n:
                raise ReplayError(f"{where}: {key!r} must be a seat 0..{n - 1}, got {show(state[key])}")
        if cards != deck:
            odd = sorted(((cards - deck) + (deck - cards)).elements())
            raise ReplayError(f"{where} does not hold every card of the game exactly once (look at {show(odd)})")
        for seat, (piles, up) in enumerate(zip(state.get("stockpiles", []), state.get("face_up", []))):
            if any(not (is_int(u) and 0 <= u <= len(p)) for p, u in zip(piles, up)):
                raise ReplayError(f"{where}: face_up[{seat}] must count cards of each pile, got {show(up)}")
