"""No hidden card in an observation: two deals that differ only in two
cards the seat to act cannot see give that seat the same observation."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from .common import full_deck, make_env
from .report import Case, Skip


def _hands(env: Any) -> list[Counter]:
    return [Counter(hand) for hand in env.unwrapped.state_dict()["hands"]]


def _opponents_pair(hands: list[Counter], seat: int) -> tuple[int, int, str, str] | None:
    """Two other seats and a card of each the other lacks."""
    others = [s for s in range(len(hands)) if s != seat]
    for i, first in enumerate(others):
        for second in others[i + 1 :]:
            a = next((c for c in hands[first] if c not in hands[second]), None)
            b = next((c for c in hands[second] if c not in hands[first]), None)
            if a and b:
                return first, second, a, b
    return None


def _swapped_deal(env: Any, deck: list[str], pair: tuple[int, int, str, str], seed: int) -> bool:
    """Reset ``env`` on ``deck`` with one copy each of the pair's cards traded
    such that the two seats' hands are traded those cards; False if none does."""
    first, second, a, b = pair
    env.reset(seed=seed, options={"decks": [deck], "dealer": 0})
    want = _hands(env)
    want[first] += Counter([b])
    want[first] -= Counter([a])
    want[second] += Counter([a])
    want[second] -= Counter([b])
    for i in (i for i, c in enumerate(deck) if c == a):
        for j in (j for j, c in enumerate(deck) if c == b):
            other = list(deck)
            other[i], other[j] = b, a
            env.reset(seed=seed, options={"decks": [other], "dealer": 0})
            if _hands(env) == want:
                return True
    return False


def hidden_cards(case: Case) -> None:
    """From a fixed deck (``reset(options={"decks": [...]})``), trade a card
    between two opponents' hands of the seat to act: its observation and mask
    must not change (``state_dict()["hands"]`` says where the cards are).  A
    game with a ``hidden_deals`` hook on its GameSpec, or a
    ``hidden_deals(deck)`` method on its rules, gives the two decks instead;
    a hook that returns None (e.g. at a seat count where the trade works,
    three seats or more) leaves the trade to the kit."""
    hook = getattr(case.spec, "hidden_deals", None)
    for seed in case.seeds:
        case.at(seed, 0)
        env = make_env(case)
        if hook is None and hasattr(env.unwrapped.rules, "hidden_deals"):
            hook = lambda rules, deck: rules.hidden_deals(deck)  # noqa: E731
        deck = full_deck(env.unwrapped.rules)
        deck = [deck[i] for i in np.random.default_rng(seed).permutation(len(deck))]
        decks = hook(env.unwrapped.rules, deck) if hook is not None else None
        if decks is None:
            _trade_at_the_deal(case, env, deck, seed)
        _compare(case, env, deck, decks, seed)


def _trade_at_the_deal(case: Case, env: Any, deck: list[str], seed: int) -> None:
    """Deal ``deck``, then leave ``env`` on the deal of ``deck`` with a card
    traded between two opponents' hands of the seat to act."""
    env.reset(seed=seed, options={"decks": [deck], "dealer": 0})
    sd = env.unwrapped.state_dict()
    seat = env.possible_agents.index(env.agent_selection)
    pair = _opponents_pair(_hands(env), seat) if "hands" in sd else None
    if pair is None:
        raise Skip(
            "no two opponents of the seat to act hold cards in state_dict()['hands'] (give the rules a "
            "hidden_deals(deck) method: two decks differing only in cards the first seat to act cannot see)"
        )
    if not _swapped_deal(env, deck, pair, seed):
        case.expect(False, f"no deck order trades {pair[2]} and {pair[3]} between seats {pair[:2]}")


def _compare(case: Case, env: Any, deck: list[str], decks: Any, seed: int) -> None:
    """The seat to act sees the same after the deal of ``decks[0]`` and
    ``decks[1]`` (None: ``deck``, and the deal ``env`` holds now)."""
    other = None
    if decks is None:
        other = (env.observe(env.agent_selection), env.agent_selection, env.unwrapped.state_dict())
        env.reset(seed=seed, options={"decks": [deck], "dealer": 0})
    else:
        env.reset(seed=seed, options={"decks": [decks[1]], "dealer": 0})
        other = (env.observe(env.agent_selection), env.agent_selection, env.unwrapped.state_dict())
        env.reset(seed=seed, options={"decks": [decks[0]], "dealer": 0})
    obs, agent, sd = env.observe(env.agent_selection), env.agent_selection, env.unwrapped.state_dict()
    case.expect(sd != other[2], "the two deals are the same game")
    case.expect(agent == other[1], f"{agent} acts first in one deal, {other[1]} in the other")
    case.expect(
        np.array_equal(obs["observation"], other[0]["observation"]), f"{agent}'s observation shows hidden cards"
    )
    case.expect(np.array_equal(obs["action_mask"], other[0]["action_mask"]), f"{agent}'s mask depends on hidden cards")
