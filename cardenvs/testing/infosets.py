"""What a seat sees, along random play: two games that differ only in cards
a seat has not seen give it the same observation and mask, a change it can
see (its own hand) changes its observation, and the counts an observation
shows (``Field(counts=...)``) are the state's.

Two games in one information set come from the game's own sampler where it
has one (``GameSpec.sampler``, :func:`cardenvs.search.sample_worlds`, with
its ``Tracker`` where it takes one: the worlds are exactly the states
consistent with what the seat saw).  A game without one is checked by
*trading* two cards: the same fixed deck with two cards swapped, the same
actions with those cards' texts swapped (``reset(options={"decks": ...})``,
``action_to_str``), compared while the second game is the first with the
two cards relabelled (its ``state_dict()`` says so) and while neither card
has been anywhere the seat sees: only other seats' ``hands`` and the places
the rules name in ``hidden_places`` (e.g. ``("stock",)``) are hidden.  Every
card a seat has not seen is traded (:func:`_trades`), whatever the number of
seats: every hand, the stock at every depth, a card drawn or passed."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import numpy as np

from cardenvs.core.errors import IllegalActionError
from cardenvs.core.layout import Layout
from cardenvs.registry import load
from cardenvs.search import sample_worlds, sampler

from .common import full_deck, make_env, play
from .report import Case, Skip

WORLDS = 3  # sampled worlds per seat and position
POSITIONS = 6  # positions looked at per seed (sampler games)
MAX_TRADES = 64  # card trades per seat and seed (games without a sampler): every card of a 52-card deck


# ---------------------------------------------------------------- shared
def observation_layout(case: Case, size: int) -> Layout | None:
    """The game's observation layout of ``size`` entries (one per variant)."""
    return next((lay for lay in map(load, case.spec.layouts) if lay.size == size), None)


def entry_name(layout: Layout | None, index: int) -> str:
    """The field an observation entry belongs to, e.g. ``seats[1].hand_size``."""
    if layout is None:
        return f"entry {index}"
    for f in layout:
        if f.offset <= index < f.stop:
            if f.parts is None:
                return f.name
            j, inner = divmod(index - f.offset, f.size)
            return f"{f.name}[{j}].{entry_name(f.parts, inner)}"
    return f"entry {index}"


def _differs(case: Case, a: np.ndarray, b: np.ndarray) -> str:
    """The fields where observations ``a`` and ``b`` differ (first few)."""
    layout = observation_layout(case, a.shape[-1])
    names = dict.fromkeys(entry_name(layout, int(i)) for i in np.flatnonzero(a != b))
    return ", ".join(list(names)[:4])


# ---------------------------------------------------------------- sampler games
def information_sets(case: Case) -> None:
    """For every seat, at positions along random play: games that differ only
    in cards the seat has not seen give it the same observation and mask, and
    a change of its own hand changes its observation (module doc)."""
    for seed in case.seeds:
        if case.spec.sampler is not None:
            _with_sampler(case, seed)
        else:
            _with_trades(case, seed)


def _seen(rules: Any, state: Any, seat: int, simultaneous: bool) -> tuple[np.ndarray, np.ndarray]:
    """Every row's observation and mask of ``seat`` (a seat not to act: no mask)."""
    if simultaneous:
        return rules.observe(state)[:, seat], state.legal[:, seat]
    obs = rules.observe(state, np.full(state.batch, seat, np.int64))
    return obs, state.legal & (state.current == seat)[:, None]


def _tracker(rules: Any, module: Any) -> Any:
    """The sampler's tracker for this config (None: it takes none)."""
    try:
        return module.Tracker(rules, 1) if hasattr(module, "Tracker") else None
    except ValueError:
        return None


def _with_sampler(case: Case, seed: int) -> None:
    """Random play of a batch of one on the rules (through the tracker),
    worlds sampled for every seat at :data:`POSITIONS` positions."""
    rules = make_env(case).unwrapped.rules
    state = rules.new_state(1, np.random.default_rng(seed))
    rules.reset(state, np.array([0]))
    tracker = _tracker(rules, sampler(case.game))
    rng = np.random.default_rng(seed)
    every = max(1, case.steps // POSITIONS)
    for step in range(case.steps):
        case.at(seed, step)
        if state.done[0]:
            return
        if step % every == 0:
            for seat in range(rules.num_players):
                _same_in_worlds(case, rules, state, seat, tracker, rng)
        legal = state.legal
        actions = (rng.random(legal.shape) * legal).argmax(-1).astype(np.int64)
        (tracker.step if tracker is not None else lambda r, s, a: r.step(s, a))(rules, state, actions)


def _same_in_worlds(case: Case, rules: Any, state: Any, seat: int, tracker: Any, rng: np.random.Generator) -> None:
    """``seat`` sees its worlds as the real game; in worlds drawn for another
    seat, where its own hand differs, it sees something else."""
    known = {} if tracker is None else {"tracker": tracker}
    simultaneous = case.spec.simultaneous
    obs, mask = _seen(rules, state, seat, simultaneous)
    worlds = sample_worlds(rules, state, seat, WORLDS, rng, **known)
    w_obs, w_mask = _seen(rules, worlds, seat, simultaneous)
    for w in range(WORLDS):
        where = _differs(case, obs[0], w_obs[w])
        case.expect(not where, f"player_{seat}'s observation shows cards it has not seen (sampler's world: {where})")
        case.expect(np.array_equal(mask[0], w_mask[w]), f"player_{seat}'s mask depends on cards it has not seen")
    hands = rules.state_dict(state, 0).get("hands")
    if not isinstance(hands, list) or len(hands) != rules.num_players or rules.num_players < 2:
        return
    other = (seat + 1) % rules.num_players
    theirs = sample_worlds(rules, state, other, WORLDS, rng, **known)
    t_obs, _ = _seen(rules, theirs, seat, simultaneous)
    for w in range(WORLDS):
        if Counter(rules.state_dict(theirs, w)["hands"][seat]) != Counter(hands[seat]):
            case.expect(not np.array_equal(t_obs[w], obs[0]), f"player_{seat}'s observation does not show its own hand")


# ---------------------------------------------------------------- trades (no sampler)
def _record(case: Case, env: Any, seed: int, deck: list[str]) -> list[tuple[dict, dict, int | None]]:
    """Random play of the first hand from fixed ``deck``: per position its
    ``state_dict()``, every agent's observation and the action then taken."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed, options={"decks": [deck]})
    record: list[tuple[dict, dict, int | None]] = []
    while len(record) <= case.steps and env.agents:
        sd = env.unwrapped.state_dict()
        seen = {agent: env.observe(agent) for agent in env.possible_agents}
        agent = env.agent_selection
        if sd.get("done") or sd.get("hand_number", 0) > 0 or env.terminations[agent] or env.truncations[agent]:
            break
        mask = seen[agent]["action_mask"]
        action = int(rng.choice(np.flatnonzero(mask))) if mask.any() else None
        record.append((sd, seen, action))
        if action is None:
            break
        env.step(action)
    return record


def _places(sd: dict) -> dict[str, tuple]:
    """Where each card is: ``("hands", seat)``, else the top key of the
    ``state_dict()`` holding it (a card met twice: ``("twice",)``)."""
    where: dict[str, tuple] = {}

    def walk(value: Any, place: tuple) -> None:
        if isinstance(value, dict):
            for item in value.values():
                walk(item, place)
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item, place)
        elif isinstance(value, str) and len(value) == 2:
            where[value] = ("twice",) if value in where else place

    for key, value in sd.items():
        if key == "hands" and isinstance(value, list):
            for seat, hand in enumerate(value):
                walk(hand, ("hands", seat))
        else:
            walk(value, (key,))
    return where


def _hidden_until(record: list, seat: int, hidden: tuple[str, ...], deck: list[str]) -> dict[str, int]:
    """Each single card's first position where ``seat`` could see it (the
    record's length: never), from position 0 on."""
    single = {c for c, n in Counter(deck).items() if n == 1}
    until = dict.fromkeys(single, len(record))
    for t, (sd, _, _) in enumerate(record):
        for card, place in _places(sd).items():
            unseen = (place[0] == "hands" and place[1] != seat) or place[0] in hidden
            if card in until and until[card] > t and not unseen:
                until[card] = t
    return until


def _trades(record: list, seat: int, until: dict[str, int]) -> list[tuple[str, str, int]]:
    """Pairs of cards ``seat`` has not seen, ``(x, y, until)``, such that
    every such card is in one, whatever the number of seats (at most
    :data:`MAX_TRADES`).  The cards are grouped by the places they went
    through (a hand, the stock, a hand after a draw or a pass), each group
    in its place's order (a pile top first), and taken round-robin over the
    groups: the first trades reach every group, the next ones the groups'
    next cards (the stock at every depth).  Each card is traded with a card
    of another group that stays unseen at least as long (one not yet traded
    if there is one), so the two games are compared for as long as it is
    hidden."""
    order = {card: i for i, card in enumerate(_places(record[0][0]))}
    groups: dict[tuple, list[str]] = {}
    for card in sorted((c for c in until if until[c] > 0), key=lambda c: order.get(c, len(order))):
        path = tuple(_places(sd).get(card) for sd, _, _ in record[: until[card]])
        groups.setdefault(path, []).append(card)
    members = list(groups.values())
    if len(members) < 2:
        return []
    queue = [g[k] for k in range(max(map(len, members))) for g in members if k < len(g)]
    group_of = {card: i for i, g in enumerate(members) for card in g}
    traded: set[str] = set()
    pairs = []
    for x in queue:
        if x in traded:
            continue
        others = [y for y in queue if group_of[y] != group_of[x]]
        lasting = [y for y in others if until[y] >= until[x]] or [max(others, key=until.__getitem__)]
        y = next((y for y in lasting if y not in traded), lasting[0])
        pairs.append((x, y, min(until[x], until[y])))
        traded |= {x, y}
    return pairs[:MAX_TRADES]


def _swapped(value: Any, x: str, y: str) -> Any:
    """``value`` (a ``state_dict()``) with cards ``x`` and ``y`` relabelled,
    lists of cards as multisets (a hand's order is the deck's)."""
    if isinstance(value, dict):
        return {k: _swapped(v, x, y) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        items = [_swapped(v, x, y) for v in value]
        return sorted(items) if items and all(isinstance(v, str) for v in items) else items
    return {x: y, y: x}.get(value, value) if isinstance(value, str) else value


def _with_trades(case: Case, seed: int) -> None:
    env = make_env(case)
    deck = full_deck(env.unwrapped.rules)
    deck = [deck[i] for i in np.random.default_rng(seed).permutation(len(deck))]
    record = _record(case, env, seed, deck)
    if not record:
        raise Skip("no position to compare in the first hand")
    hidden = tuple(getattr(env.unwrapped.rules, "hidden_places", ()))
    for seat in range(len(env.possible_agents)):
        until = _hidden_until(record, seat, hidden, deck)
        for x, y, stop in _trades(record, seat, until):
            _twin(case, env, seed, deck, record, seat, (x, y, stop), hidden=True)
        own = [c for c, p in _places(record[0][0]).items() if p == ("hands", seat) and c in until]
        far = [c for c in until if until[c] > 0]
        if own and far:
            _twin(case, env, seed, deck, record, seat, (own[0], far[0], 1), hidden=False)


def _twin(
    case: Case, env: Any, seed: int, deck: list[str], record: list, seat: int, trade: tuple, hidden: bool
) -> None:
    """Replay ``record`` with the trade's two cards swapped: at each position
    before ``stop`` where the twin is the relabelled game, ``seat`` sees the
    same (``hidden``) or something else (a card of its own traded)."""
    x, y, stop = trade
    twin = make_env(case)
    twin.reset(seed=seed, options={"decks": [[{x: y, y: x}.get(c, c) for c in deck]]})
    agent, rules = env.possible_agents[seat], env.unwrapped
    for t, (sd, seen, action) in enumerate(record[:stop]):
        case.at(seed, t)
        if _swapped(sd, x, y) != _swapped(twin.unwrapped.state_dict(), "", ""):
            return  # (a rule told the two games apart: they are no longer one relabelled)
        mine = twin.observe(agent)
        where = _differs(case, seen[agent]["observation"], mine["observation"])
        if not hidden:
            case.expect(where, f"{agent}'s observation does not change when its own card {x} is {y} instead")
            return
        case.expect(not where, f"{agent}'s observation shows cards it has not seen ({x} and {y} traded: {where})")
        same_mask = np.array_equal(seen[agent]["action_mask"], mine["action_mask"])
        case.expect(same_mask, f"{agent}'s mask depends on cards it has not seen ({x} and {y} traded)")
        text = " ".join({x: y, y: x}.get(word, word) for word in rules.action_to_str(action).split(" "))
        try:
            twin.step(rules.str_to_action(text))
        except (IllegalActionError, ValueError, KeyError):
            return


# ---------------------------------------------------------------- public counts
COUNTS = re.compile(r"^(\w+)(?:\[\+(\d+)\])?$")


def counted_entries(layout: Layout, base: int = 0, rel: int | None = None) -> Iterator[tuple[int, str, int | None]]:
    """``(index, key, relative seat)`` of every entry the layout declares a
    count of (``Field(counts=...)``): inside a block repeated per relative
    seat the block's seat; a field of several entries, one per relative seat;
    ``"key[+k]"``, relative seat k; else the whole of ``state_dict()[key]``."""
    for f in layout:
        if f.parts is not None:
            for j in range(f.count):
                yield from counted_entries(f.parts, base + f.offset + j * f.size, j if f.count > 1 else rel)
        elif f.counts:
            found = COUNTS.match(f.counts)
            if found is None:
                raise ValueError(f"field {f.name}: counts={f.counts!r} is not 'key' or 'key[+k]'")
            key, fixed = found[1], found[2]
            if fixed is not None or rel is not None or f.span == 1:
                yield base + f.offset, key, int(fixed) if fixed is not None else rel
            else:
                yield from ((base + f.offset + j, key, j) for j in range(f.span))


def _count(sd: dict, key: str, seat: int, rel: int | None, n: int) -> int:
    """What a counted entry must show: the size of ``sd[key]`` (per relative
    seat ``rel`` of ``seat``: ``sd[key][(seat + rel) % n]``; 0 past the seats)."""
    value = sd[key]
    if rel is not None:
        if rel >= n:
            return 0
        value = value[(seat + rel) % n]
    return len(value) if isinstance(value, (list, tuple)) else int(value)


def public_counts(case: Case) -> None:
    """Every count an observation declares (``Field(counts="hands")``: the
    cards of each relative seat's hand; ``"stock"``: the stock's) is the
    ``state_dict()``'s, for every seat at every step of random play."""
    env = make_env(case)
    agents = env.possible_agents
    layout = observation_layout(case, env.observation_space(agents[0])["observation"].shape[0])
    entries = list(counted_entries(layout)) if layout is not None else []
    if not entries:
        raise Skip("the observation layout declares no counts (Field(counts=...))")
    for seed in case.seeds:
        for _ in play(case, env, seed):
            sd = env.unwrapped.state_dict()
            for seat, agent in enumerate(agents):
                obs = env.observe(agent)["observation"]
                for index, key, rel in entries:
                    want = _count(sd, key, seat, rel, len(agents))
                    got = obs[index].item()
                    if got != want:
                        case.expect(False, _count_message(layout, index, agent, got, key, want, seat, rel, len(agents)))


def _count_message(
    layout: Layout, index: int, agent: str, got: float, key: str, want: int, seat: int, rel: int | None, n: int
) -> str:
    """A wrong count, with the relative seat it is of and the absolute seat
    whose ``state_dict()`` entry it must show."""
    name = entry_name(layout, index)
    if rel is None:
        return f"{agent}'s {name} shows {got:g}; state_dict()[{key!r}] says {want}"
    if rel >= n:
        return f"{agent}'s {name} (relative seat {rel}, past the {n} seats) shows {got:g}, want 0"
    other = (seat + rel) % n
    return (
        f"{agent}'s {name} (relative seat {rel}: player_{other}) shows {got:g}; "
        f"state_dict()[{key!r}][{other}] says {want}"
    )
