"""What the checks share: making a game's envs from a :class:`Case`,
random legal play of an AEC env, the cards a ``state_dict()`` holds and a
digest of everything a step returned."""

from __future__ import annotations

import copy
import importlib
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

import cardenvs
import cardenvs.vector as V

from .report import Case

RANKS, SUITS = "23456789TJQKA", "CDHS"


def make_env(case: Case, **extra: Any) -> Any:
    """The game's AEC env (wrapped) with the case's config and ``extra``."""
    return cardenvs.make(case.game, **{**case.config, **extra})


def make_parallel(case: Case, **extra: Any) -> Any:
    """A simultaneous game's parallel env (its module's ``parallel_env``)."""
    return importlib.import_module(case.spec.module).parallel_env(**{**case.config, **extra})


def make_vector(case: Case, num_envs: int, seed: int, **extra: Any) -> Any:
    return V.make(case.game, num_envs=num_envs, seed=seed, **{**case.config, **extra})


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def random_rows(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One random legal action per row (per row and seat: simultaneous games)."""
    return (rng.random(masks.shape) * masks).argmax(-1).astype(np.int64)


def play(case: Case, env: Any, seed: int) -> Iterator[tuple[str, dict]]:
    """Random legal play of the AEC ``env`` from ``reset(seed=seed)``, at most
    ``case.steps`` actions: yields ``(agent, observation)`` before each action
    (the caller may look at the env), then steps a random legal one;
    ``case.step`` counts the actions taken."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    case.at(seed, 0)
    for _agent in env.agent_iter(max_iter=4 * case.steps):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if case.step >= case.steps:
            return
        agent = env.agent_selection
        yield agent, obs
        case.expect(obs["action_mask"].any(), f"{agent}'s action mask is empty while the game is on")
        env.step(random_legal(rng, obs["action_mask"]))
        case.step += 1


def full_deck(rules: Any) -> list[str]:
    """Every card of the game, as texts, sorted (copies repeated)."""
    deck = rules.deck
    return sorted(t for t, n in zip(deck.texts, deck.copies) for _ in range(n))


def is_card_text(value: Any) -> bool:
    return isinstance(value, str) and (value == "JK" or (len(value) == 2 and value[0] in RANKS and value[1] in SUITS))


def cards_in(value: Any) -> list[str]:
    """Every card text among the values of a ``state_dict()`` (not its keys), sorted."""
    found: list[str] = []

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            for item in v.values():
                walk(item)
        elif isinstance(v, (list, tuple)):
            for item in v:
                walk(item)
        elif is_card_text(v):
            found.append(v)

    walk(value)
    return sorted(found)


def check_cards(case: Case, state_dict: dict, deck: list[str], when: str = "") -> None:
    """Every card of ``deck`` exactly once in ``state_dict``, nothing else card-like."""
    got = cards_in(state_dict)
    if got != deck:
        extra, missing = Counter(got) - Counter(deck), Counter(deck) - Counter(got)
        case.expect(
            False, f"cards not conserved{when}: extra {sorted(extra.elements())}, missing {sorted(missing.elements())}"
        )


def step_copy(env: Any, action: int, simultaneous: bool = False) -> Any:
    """A copy of the AEC ``env`` (unwrapped) after ``action`` (``simultaneous``
    games: and the other seats' first legal actions, so the tick is played;
    a turn-based game's copy is looked at right after the action, before
    another seat's move could hide what it did, e.g. by ending the hand)."""
    twin = copy.deepcopy(env.unwrapped)
    first = twin.agent_selection
    twin.step(action)
    while simultaneous and twin.agents and twin.agent_selection != first and not any(twin.terminations.values()):
        if twin.agent_selection == twin.possible_agents[0]:
            break
        twin.step(int(np.flatnonzero(twin.observe(twin.agent_selection)["action_mask"])[0]))
    return twin


def digest_into(value: Any, h: Any) -> None:
    """Feed everything ``value`` holds into the hash ``h`` (dicts by key;
    sequences and object arrays item by item; arrays with dtype and shape)."""
    if isinstance(value, dict):
        for key in sorted(value):
            h.update(str(key).encode())
            digest_into(value[key], h)
    elif isinstance(value, (tuple, list)) or (isinstance(value, np.ndarray) and value.dtype == object):
        h.update(b"[%d]" % len(value))
        for item in value:
            digest_into(item, h)
    elif isinstance(value, np.ndarray):
        h.update(f"{value.dtype}{value.shape}".encode())
        h.update(np.ascontiguousarray(value).tobytes())
    else:
        h.update(repr(value).encode())


def first_difference(a: list[str], b: list[str]) -> int | None:
    """The first index where two digest lists differ (None: the same)."""
    for t, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return t
    return None if len(a) == len(b) else min(len(a), len(b))


def vector_play(case: Case, make: Callable[[], Any], seed: int, rows: bool = True) -> list[str]:
    """Random legal play of a vector engine from ``make()``: one digest per
    step of everything it returned and (every tenth step) some rows' state
    dicts; turn-based games: every fifth step moves only some rows."""
    import hashlib

    venv = make()
    rng = np.random.default_rng(seed + 1)
    digests = []
    try:
        out = venv.reset(seed=seed)
        for t in range(case.steps):
            case.at(seed, t)
            h = hashlib.sha256()
            digest_into(out, h)
            if t % 10 == 0:
                digest_into([venv.state_dict(i) for i in range(0, venv.num_envs, 5)], h)
            digests.append(h.hexdigest())
            actions = random_rows(rng, out[-1]["action_mask"])
            some = rng.random(venv.num_envs) < 0.5 if rows and t % 5 == 4 and not case.spec.simultaneous else None
            out = venv.step(actions, rows=some)
    finally:
        venv.close()
    return digests
