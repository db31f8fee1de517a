"""A league's run folder: ``DIR/arena.json``, the manifest (what is run, and
the sha256 of each finished pair's file), and ``DIR/pairs/<i>-<j>.json``,
a pair's games; written as a run goes, read back to resume it.

A run folder may come from anyone (a colleague's run, a download), so it
is read as data and nothing in it is trusted: the manifest is checked field
by field (:func:`check_manifest`: types, bounds, the game and its options)
and every pair file against the run before anything is played or written
(:func:`check_pair`: the same run -- game, options, seed, batch, agents,
seatings --, as many deals as the run, scores that agree with the winners,
the digest the manifest recorded).  Any fault is a :class:`RunDirError` (a
ValueError) in one line naming the file.  Agents are never made from the
folder: it records each agent's name (a label) and spec, and whoever
resumes gives the agents again, which must be the recorded ones
(``league(..., resume=True)`` compares them; ``cardenvs arena --resume``
takes specs from its command line only, see :mod:`cardenvs.app.arena`).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import pathlib
import re
from typing import Any

import numpy as np

from ..core.messages import cut, is_int, kind, show
from ..registry import GAMES
from ..vector import rules_class
from .duplicate import DuplicateRecord, pair_seatings, sides_of

MANIFEST, PAIRS = "arena.json", "pairs"
LEAGUE_FILES = ("league.json", "league.md", "league.png")  # (written by :meth:`.leagues.LeagueResult.save`)
FORMAT, VERSION = "cardenvs-arena", 3  # (3: free-for-all pairs seated by the reference agents)
#: A run's numbers are integers in these ranges (inclusive), from the command line or a manifest.
BOUNDS = {"deals": (1, 10**7), "seed": (0, 2**63 - 1), "batch": (1, 10**5), "resamples": (1, 10**5)}
MAX_AGENTS, MAX_TEXT = 64, 500  # agents in a league; characters in a name or a spec
MAX_MANIFEST = 1 << 20  # bytes (a manifest is a few hundred)
IDENTITY = ("format", "version", "game", "config", "seed", "deals", "batch", "agents", "specs", "reference")
DIGEST = re.compile(r"^[0-9a-f]{64}$")
#: a pair file's keys, and the type of the optional ones
PAIR_KEYS = {"game", "config", "seed", "batch", "names", "seatings", "sides", "low_score_wins"}
PAIR_KEYS |= {"independent", "streams", "hands", "scores", "winners", "forfeits", "truncated"}
OPTIONAL_PAIR_KEYS = {"hands", "truncated"}


class RunDirError(ValueError):
    """A run folder that holds another run, a file this library did not
    write, or a run that does not match its arguments (one line)."""


def bounded(value: Any, what: str, key: str) -> int:
    """``value`` if it is an integer within :data:`BOUNDS` ``[key]``, else ValueError naming ``what``."""
    low, high = BOUNDS[key]
    if not (is_int(value) or isinstance(value, np.integer)) or not low <= value <= high:
        raise ValueError(f"{what} must be at least {low} and at most {high}, got {kind(value)} {show(value)}")
    return int(value)


def game_rules(game: str, config: dict) -> Any:
    """The rules of ``game`` made with ``config`` (its options; the view's
    ``illegal_action`` and ``obs_dtype`` aside): ValueError in one line for
    an unknown option or a bad value."""
    bad = [k for k in config if not isinstance(k, str)]
    if bad:
        raise ValueError(f"config keys must be strings, got {show(bad)}")
    try:
        return rules_class(game)(**{k: v for k, v in config.items() if k not in ("illegal_action", "obs_dtype")})
    except (TypeError, ValueError) as e:
        raise ValueError(f"config {show(config)}: {cut(e)}") from None


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_json(file: pathlib.Path, limit: int | None = None) -> tuple[bytes, Any]:
    """A run file's bytes and JSON (RunDirError naming the file if it is
    missing, not a file, bigger than ``limit`` bytes or not JSON)."""
    try:
        if not file.is_file():
            raise RunDirError(f"{file}: missing or not a file")
        if limit is not None and file.stat().st_size > limit:
            raise RunDirError(f"{file}: {file.stat().st_size} bytes, more than a file of this kind holds")
        raw = file.read_bytes()
        return raw, json.loads(raw)
    except (OSError, ValueError, RecursionError) as e:
        if isinstance(e, RunDirError):
            raise
        raise RunDirError(f"{file}: cannot be read as JSON: {cut(e, 200)}") from None


def check_manifest(m: Any, file: pathlib.Path) -> dict:
    """``m``, a manifest read from ``file``, if it is one this library
    writes (module docstring); RunDirError naming the file otherwise."""
    try:
        if not isinstance(m, dict):
            raise ValueError(f"a manifest is a JSON object, this is {kind(m)}")
        if m.get("format") != FORMAT or m.get("version") != VERSION or not is_int(m.get("version")):
            raise ValueError(
                f"not a manifest of this cardenvs (format {show(m.get('format'))}, version {show(m.get('version'))};"
                f" expected {FORMAT!r}, {VERSION}): run the league again in a new folder"
            )
        keys = set(IDENTITY) | {"pairs"}
        if set(m) != keys:
            raise ValueError(f"keys {show(sorted(map(str, m)), 200)}; a manifest has {sorted(keys)}")
        if not isinstance(m["game"], str) or m["game"] not in GAMES:
            raise ValueError(f"'game' must be a registered game, got {kind(m['game'])} {show(m['game'])}")
        if not isinstance(m["config"], dict):
            raise ValueError(f"'config' must be an object, got {kind(m['config'])} {show(m['config'])}")
        game_rules(m["game"], m["config"])
        for key in ("seed", "deals", "batch"):
            bounded(m[key], f"'{key}'", key)
        check_agents(m["agents"], m["specs"])
        reference = m["reference"]
        if not isinstance(reference, list) or len(reference) != len(m["agents"]):
            raise ValueError(f"'reference' must be a list of true/false per agent, got {show(reference)}")
        if not all(isinstance(r, bool) for r in reference):
            raise ValueError(f"'reference' must hold true or false only, got {show(reference)}")
        _check_digests(m["pairs"], len(m["agents"]))
    except RunDirError:
        raise
    except ValueError as e:
        raise RunDirError(f"{file}: {e}") from None
    return m


def _text(value: Any, where: str) -> None:
    if not isinstance(value, str) or not value or len(value) > MAX_TEXT or not value.isprintable():
        raise ValueError(f"{where} must be printable text of 1 to {MAX_TEXT} characters, got {show(value)}")


def check_agents(names: Any, specs: Any) -> None:
    """ValueError unless ``names`` are 2 to :data:`MAX_AGENTS` distinct
    printable names and ``specs`` a spec (or None) each: a run's agents as a
    manifest records them."""
    if not isinstance(names, list) or not 2 <= len(names) <= MAX_AGENTS:
        raise ValueError(f"'agents' must be a list of 2 to {MAX_AGENTS} names, got {kind(names)} {show(names)}")
    if not isinstance(specs, list) or len(specs) != len(names):
        raise ValueError(f"'specs' must be a list of a spec (or null) per agent, got {kind(specs)} {show(specs)}")
    for i, (name, spec) in enumerate(zip(names, specs)):
        _text(name, f"'agents'[{i}]")
        if spec is not None:
            _text(spec, f"'specs'[{i}]")
    if len(set(names)) != len(names):
        raise ValueError(f"'agents' names an agent twice: {show(names)}")


def _check_digests(pairs: Any, agents: int) -> None:
    if not isinstance(pairs, dict):
        raise ValueError(f"'pairs' must be an object (pair -> sha256), got {kind(pairs)} {show(pairs)}")
    names = {pair_name(i, j) for i, j in itertools.combinations(range(agents), 2)}
    for key, value in pairs.items():
        if key not in names:
            raise ValueError(f"'pairs' names no pair of the {agents} agents: {show(key)}")
        if not isinstance(value, str) or not DIGEST.match(value):
            raise ValueError(f"'pairs'[{key!r}] must be a sha256 (64 hex digits), got {show(value)}")


def pair_name(i: int, j: int) -> str:
    """The pair of agents ``i`` and ``j``, as its file and the manifest's ``pairs`` name it."""
    return f"{i}-{j}"


def expected_pair(manifest: dict, i: int, j: int, rules: Any) -> dict[str, Any]:
    """What a pair file of this run holds besides its games (as JSON has it)."""
    keys = ("game", "config", "seed", "batch")
    return {
        **json.loads(json.dumps({k: manifest[k] for k in keys})),
        "names": [manifest["agents"][i], manifest["agents"][j]],
        "seatings": _seatings(rules, manifest["reference"], i, j),
        "sides": sides_of(rules).tolist(),
        "low_score_wins": bool(getattr(rules, "low_score_wins", False)),
        "independent": False,
        "streams": True,
    }


def _seatings(rules: Any, reference: list[bool], i: int, j: int) -> list:
    """The pair's seatings as JSON has them ([] for a pair a league does not play)."""
    table = pair_seatings(rules, reference[i], reference[j])
    return [] if table is None else table.tolist()


def check_pair(data: Any, expected: dict[str, Any], deals: int) -> DuplicateRecord:
    """A pair file's record, if ``data`` is a pair of the run ``expected``
    describes, with ``deals`` deals whose winners agree with their scores;
    ValueError saying what is wrong otherwise."""
    if not isinstance(data, dict):
        raise ValueError(f"a pair file is a JSON object, this is {kind(data)}")
    missing, unknown = PAIR_KEYS - OPTIONAL_PAIR_KEYS - set(data), set(data) - PAIR_KEYS
    if missing or unknown:
        raise ValueError(f"keys {show(sorted(map(str, data)), 200)}; a pair file has {sorted(PAIR_KEYS)}")
    for key, want in expected.items():
        if data[key] != want or type(data[key]) is not type(want):
            raise ValueError(f"a pair of another run: its {key} is {show(data[key])}, this run's {show(want)}")
    shape = (deals, *np.shape(expected["seatings"]))
    scores = _array(data, "scores", shape, "iuf")
    winners, forfeits = (_array(data, key, shape, "iu") for key in ("winners", "forfeits"))
    if "hands" in data and (_array(data, "hands", shape[:2], "iu") < -1).any():
        raise ValueError("'hands' must be -1 or more")
    if "truncated" in data and not np.isin(_array(data, "truncated", shape[:2], "iu"), (0, 1)).all():
        raise ValueError("'truncated' must be 0 or 1")
    flags = np.concatenate([winners.ravel(), forfeits.ravel()])
    if not np.isfinite(scores).all() or ((flags != 0) & (flags != 1)).any():
        raise ValueError("scores must be finite, winners and forfeits 0 or 1")
    _check_winners(scores, winners.astype(bool), np.asarray(expected["sides"]), expected["low_score_wins"])
    return DuplicateRecord.from_json(data)


def _array(data: dict, key: str, shape: tuple[int, ...], kinds: str) -> np.ndarray:
    """``data[key]`` as an array of ``shape`` whose numbers are of ``kinds`` (ValueError otherwise)."""
    try:
        array = np.asarray(data[key])
    except (ValueError, TypeError):
        array = np.asarray(None)
    if array.shape != shape or array.dtype.kind not in kinds:
        raise ValueError(
            f"'{key}' must be numbers shaped {list(shape)} (deals, seatings, seats): the run's deals, "
            f"got {'numbers' if array.dtype.kind in kinds else 'other values'} shaped {list(array.shape)}"
        )
    return array


def _check_winners(scores: np.ndarray, winners: np.ndarray, sides: np.ndarray, low_score_wins: bool) -> None:
    """ValueError for a game whose partners differ in winning or whose winner scored worse than a seat that lost."""
    for side in np.unique(sides):
        seats = winners[..., sides == side]
        if (seats != seats[..., :1]).any():
            raise ValueError("partners (one side) must win or lose together; a game has them apart")
    better = -scores if low_score_wins else scores
    behind = winners[..., :, None] & ~winners[..., None, :] & (better[..., :, None] < better[..., None, :])
    if behind.any():
        d, s = np.argwhere(behind.any(axis=(-1, -2)))[0]
        raise ValueError(
            f"deal {d}, seating {s}: the winners {np.flatnonzero(winners[d, s]).tolist()} contradict the scores "
            f"{scores[d, s].tolist()} (a winner scored worse than a seat that did not win)"
        )


class RunDir:
    """A league's run folder (module docstring): ``manifest`` is the run's
    identity (:data:`IDENTITY`); ``rules``, its game's, give the seatings."""

    def __init__(self, out: str | pathlib.Path, manifest: dict, rules: Any):
        self.path, self.rules = pathlib.Path(out), rules
        self.manifest = {**json.loads(json.dumps({k: manifest[k] for k in IDENTITY})), "pairs": {}}

    def check(self, resume: bool) -> dict[tuple[int, int], DuplicateRecord]:
        """The finished pairs of the run to resume, each checked (none for a
        new run); RunDirError if the folder cannot hold the run, holds
        another run, or (resuming) none, or a file that is not the run's."""
        self._check_folder()
        file = self.path / MANIFEST
        if not (file.exists() or file.is_symlink()):
            if resume:
                raise RunDirError(f"{self.path} holds no run to resume (no {MANIFEST})")
            return {}
        if not resume:
            raise RunDirError(f"{self.path} holds a run already: --resume it or choose another --out")
        old = check_manifest(read_json(file, MAX_MANIFEST)[1], file)
        differ = [k for k in IDENTITY if old[k] != self.manifest[k]]
        if differ:
            other = show([old[k] for k in differ])
            raise RunDirError(f"{self.path} holds a run with other {', '.join(differ)}: {other}")
        self.manifest["pairs"] = dict(old["pairs"])
        finished = {}
        for i, j in itertools.combinations(range(len(old["agents"])), 2):
            pair = self.pair_file(i, j)
            if pair.exists() or pair.is_symlink():
                finished[(i, j)] = self._load(pair, i, j)
        return finished

    def _check_folder(self) -> None:
        """RunDirError if the folder (or its pairs folder) is a file, or under one."""
        above = self.path
        while not (above.exists() or above.is_symlink()) and above != above.parent:
            above = above.parent
        if not above.is_dir():
            raise RunDirError(f"{self.path} cannot be a run's folder: {above} is not a folder")
        pairs = self.path / PAIRS
        if (pairs.exists() or pairs.is_symlink()) and not pairs.is_dir():
            raise RunDirError(f"{pairs} is not a folder")
        # a link where the run writes would have it write elsewhere (a folder from anyone may hold one)
        written = [self.path / name for name in (MANIFEST, PAIRS, *LEAGUE_FILES)] + list(self.path.glob("*.tmp"))
        links = [p for p in written + (list(pairs.iterdir()) if pairs.is_dir() else []) if p.is_symlink()]
        if links:
            raise RunDirError(f"{links[0]} is a link: a run folder holds its own files, not links to others")

    def _load(self, file: pathlib.Path, i: int, j: int) -> DuplicateRecord:
        """The pair (i, j)'s record from ``file``, checked (module docstring)."""
        raw, data = read_json(file)
        try:
            record = check_pair(data, expected_pair(self.manifest, i, j, self.rules), self.manifest["deals"])
        except ValueError as e:
            raise RunDirError(f"{file}: {e}") from None
        recorded = self.manifest["pairs"].get(pair_name(i, j))
        if recorded is None:
            raise RunDirError(f"{file}: not recorded in {MANIFEST} (from elsewhere): delete it to play the pair")
        if digest(raw) != recorded:
            raise RunDirError(f"{file}: its sha256 is not the one {MANIFEST} recorded (changed, or another run's)")
        return record

    def start(self) -> None:
        """Make the folder and write the manifest of a new run (RunDirError if it cannot be written)."""
        try:
            (self.path / PAIRS).mkdir(parents=True, exist_ok=True)
            if not (self.path / MANIFEST).exists():
                _replace(self.path / MANIFEST, self._manifest_text())
        except OSError as e:
            raise RunDirError(f"{self.path}: the run cannot be written there: {e.strerror or e}") from None

    def pair_file(self, i: int, j: int) -> pathlib.Path:
        return self.path / PAIRS / f"{pair_name(i, j)}.json"

    def save(self, i: int, j: int, record: DuplicateRecord) -> None:
        """Record the pair's digest in the manifest, then write the pair: a
        pair file is whole or absent, and never there without its digest."""
        text = json.dumps(record.to_json()).encode()
        self.manifest["pairs"][pair_name(i, j)] = digest(text)
        _replace(self.path / MANIFEST, self._manifest_text())
        _replace(self.pair_file(i, j), text)

    def _manifest_text(self) -> bytes:
        return (json.dumps(self.manifest, indent=1) + "\n").encode()


def _replace(file: pathlib.Path, data: bytes) -> None:
    """Write ``file`` whole (a temporary file, then renamed over it): an interrupt never leaves half of it."""
    tmp = file.with_name(file.name + ".tmp")
    tmp.unlink(missing_ok=True)  # (then made afresh: "x" never follows a link planted in its place)
    with open(tmp, "xb") as f:
        f.write(data)
    os.replace(tmp, file)
