"""The state for centralised critics read back: ``state()`` decoded by the
game's ``decode`` (:func:`cardenvs.core.state.decode_state`) puts every card
where ``state_dict()`` has it, under the same names and in the same order.

The names are the template's (High Card's ``state.py``): seat s's hand is
``hand s`` and every other place is its ``state_dict()`` key (a list of card
texts, or of ``{"card": ...}`` as a trick's), in its order (a pile top
first, a trick in play order).  A game that names its places otherwise says
where its cards are with ``places(state_dict)`` in its ``state`` module,
``{name: [card texts]}`` as its ``decode`` names and orders them (Pepper's
``table s`` and ``played s``).  Hands are compared as multisets, every
other place in order; empty places are left out on both sides.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from cardenvs.core.state import decode_state, state_module

from .common import is_card_text, make_env, play
from .report import Case, Skip


def template_places(sd: dict[str, Any]) -> dict[str, list[str]]:
    """Where every card is in ``state_dict()`` ``sd``, named the template's
    way (the module doc)."""
    out = {f"hand {s}": list(hand) for s, hand in enumerate(sd.get("hands", []))}
    for key, value in sd.items():
        if key != "hands" and isinstance(value, list) and value:
            cards = [v.get("card") if isinstance(v, dict) else v for v in value]
            if all(is_card_text(c) for c in cards):
                out[key] = cards
    return out


def reference_places(rules: Any, sd: dict[str, Any]) -> dict[str, list[str]]:
    """Where ``decode`` must put every card of ``state_dict()`` ``sd``: the
    game's own ``places(sd)`` if its state module has one, else
    :func:`template_places`; empty places left out."""
    places = getattr(state_module(rules), "places", template_places)
    return {name: list(cards) for name, cards in places(sd).items() if len(cards)}


def decoded_places(rules: Any, state: np.ndarray) -> dict[str, list[str]]:
    """``decode`` of the state ``state``, empty places left out."""
    return {name: list(cards) for name, cards in decode_state(rules, state).items() if len(cards)}


def place_differences(decoded: dict[str, list[str]], want: dict[str, list[str]]) -> list[str]:
    """How ``decoded`` differs from ``want``, one phrase per place (none: the same)."""
    found = []
    for name in sorted(set(want) - set(decoded)):
        found.append(f"no place {name!r} decoded (state_dict() has {want[name]})")
    for name in sorted(set(decoded) - set(want)):
        found.append(f"{name!r} decoded ({decoded[name]}) is not a place of state_dict()")
    for name in sorted(set(decoded) & set(want)):
        got, wanted = decoded[name], want[name]
        if Counter(got) != Counter(wanted):
            found.append(f"{name!r} decoded {got}, state_dict() has {wanted}")
        elif got != wanted and not name.startswith("hand "):
            found.append(f"{name!r} decoded in another order: {got}, state_dict() has {wanted}")
    return found


def state_decode(case: Case) -> None:
    """At every step of random play, ``state()`` decoded puts every card
    where ``state_dict()`` has it, same names, same order (module doc)."""
    env = make_env(case)
    rules = env.unwrapped.rules
    try:
        state_module(rules)
    except NotImplementedError as missing:
        raise Skip(str(missing)) from None
    for seed in case.seeds:
        for _ in play(case, env, seed):
            _same(case, rules, env)
        _same(case, rules, env)


def _same(case: Case, rules: Any, env: Any) -> None:
    differences = place_differences(
        decoded_places(rules, env.state()), reference_places(rules, env.unwrapped.state_dict())
    )
    case.expect(not differences, "state() decoded: " + "; ".join(differences[:3]))
