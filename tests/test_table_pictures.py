"""Pictures of the table (cardenvs.app): what is drawn, for whom.

Positions come from seeded random play through the public API; the checks
read only ``state_dict()`` and the pictures: how many cards are drawn face
up, that a seat's SVG, bitmap and text never show another seat's private
cards, and that every hand is there for the spectator."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest

import cardenvs
from cardenvs import app
from cardenvs.render.canvas import BACK, CARD_H, CARD_W

CASES = [
    ("pepper_v0", {}, (0, 13, 30)),
    ("pepper_v0", {"num_players": 2}, (5, 20)),
    ("pepper_v0", {"num_players": 3}, (9,)),
    ("cancellation_hearts_v0", {"num_players": 11}, (3, 40, 75)),
    ("cancellation_hearts_v0", {"num_players": 7}, (10, 60)),
    ("push_v0", {}, (0, 120, 400)),
    ("spit_v0", {}, (0, 60, 300)),
    ("spit_v0", {"variant": "speed"}, (0, 20)),
]
CARD_TOKEN = re.compile(r"(?<![0-9A-Za-z])(?:[2-9TJQKA][CDHS]|JK)(?![0-9A-Za-z])")


def positions(game, config, steps):
    """state_dicts after the given numbers of (AEC) steps of seeded random play."""
    env = cardenvs.make(game, **config)
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    out = []
    for n in range(max(steps) + 1):
        if n in steps:
            out.append(env.unwrapped.state_dict())
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert out, "no position reached"
    return out


def private_cards(state: dict, viewer: int | None) -> Counter:
    """Cards a seat may not see: the other seats' hands (and cards being
    passed), and cards no seat sees (Pepper's dead hand, the Hearts widow)."""
    if viewer is None:
        return Counter()
    hidden: Counter = Counter()
    for key in ("hands", "passing"):
        for seat, cards in enumerate(state.get(key) or []):
            if seat != viewer:
                hidden.update(cards)
    hidden.update(state.get("dead_hand") or [])
    hidden.update(state.get("widow") or [])
    return hidden


def expected_face_up(state: dict) -> Counter:
    """The spectator's face-up cards, counted from the state alone."""
    c: Counter = Counter()
    for key in ("hands", "passing"):
        for cards in state.get(key) or []:
            c.update(cards)
    game = state["game"]
    if game == "pepper_v0":
        c.update(p["card"] for p in state["trick"])
        if state["tricks"]:
            c.update(p["card"] for p in state["tricks"][-1]["cards"])
        c.update(state["dead_hand"])
    elif game == "cancellation_hearts_v0":
        c.update(p["card"] for p in state["trick"])
        c.update(state["carried"] + state["uncollected"] + state["widow"])
    elif game == "push_v0":
        for m in state["melds"]:
            c.update(m["cards"])
        c.update(state["discard"][-1:])
    elif game == "spit_v0":
        c.update(p[-1] for p in state["spit_piles"] if p)
        if state["variant"] == "spit":
            for piles, ups in zip(state["stockpiles"], state["face_up"]):
                for pile, up in zip(piles, ups):
                    c.update(pile[len(pile) - min(up, len(pile)) :])
    return c


def svg_cards(svg: str) -> tuple[Counter, int]:
    """(face-up cards by their data-card, number of face-down cards)."""
    return Counter(re.findall(r'<g class="card" data-card="([^"]+)"', svg)), svg.count('<g class="card back"')


@pytest.mark.parametrize("game,config,steps", CASES, ids=[f"{g}-{c}" for g, c, _ in CASES])
def test_svg_shows_each_viewer_exactly_what_it_may_see(game, config, steps):
    for state in positions(game, config, steps):
        n = state.get("num_players", 2)
        spectator, _ = svg_cards(app.svg(state))
        assert spectator == expected_face_up(state)
        for seat in range(n):
            svg = app.svg(state, seat)
            shown, backs = svg_cards(svg)
            hidden = private_cards(state, seat)
            assert shown == spectator - hidden, f"seat {seat}"
            # no card text anywhere else in the file (attributes, labels, comments)
            tokens = Counter(CARD_TOKEN.findall(svg))
            allowed = shown + Counter({"JK": shown["JK"]})  # a joker's face reads "JK"
            assert tokens == allowed, f"seat {seat}: card texts outside face-up cards: {tokens - allowed}"
            assert backs >= sum(hidden.values()) if game != "spit_v0" else True
            # the text picture hides the same cards
            words = Counter(CARD_TOKEN.findall(app.text(state, seat)))
            assert words == shown


def test_each_hand_is_drawn_face_down_for_the_others():
    state = positions("pepper_v0", {}, (0,))[0]
    for seat in range(4):
        scene = app.scene(state, seat)
        owned = Counter(it.get("o") for it in scene["items"] if it["k"] == "card" and "c" not in it)
        for other in range(4):
            expected = 0 if other == seat else len(state["hands"][other])
            assert owned.get(other, 0) == expected


def test_hearts_cancelled_cards_and_push_wilds_are_marked():
    for state in positions("cancellation_hearts_v0", {"num_players": 11}, tuple(range(20, 120))):
        cancelled = [p["card"] for p in state["trick"] if p["cancelled"]]
        if cancelled:
            marked = [it["c"] for it in app.scene(state)["items"] if it.get("m") == "x"]
            assert Counter(marked) == Counter(cancelled)
            break
    else:
        pytest.fail("no cancelled card in these positions")
    state = positions("push_v0", {}, (400,))[0]
    marks = [it["m"] for it in app.scene(state)["items"] if it["k"] == "card" and it.get("m", "").startswith("=")]

    def natural_two(meld, card, rank):  # a 2 of the run's suit in its own place is no wild
        return meld["kind"] == "run" and card[0] == "2" and card[1] == meld["suit"] and rank == "2"

    wild_ranks = [
        r
        for m in state["melds"]
        for c, r in zip(m["cards"], m["ranks"])
        if (c == "JK" or c[0] == "2") and not natural_two(m, c, r)
    ]
    assert sorted(marks) == sorted("=" + r for r in wild_ranks)
    assert any(f"#{i} p{m['owner']}" in app.text(state) for i, m in enumerate(state["melds"]))


def card_pixels(scene: dict, img: np.ndarray):
    """For each card that no later card covers at its sample point: (face up?, pixel there)."""
    cards = [it for it in scene["items"] if it["k"] == "card"]
    out = []
    for i, it in enumerate(cards):
        s = it.get("s", 1.0)
        px, py = int(it["x"] + 3 * s), int(it["y"] + CARD_H * s / 2)
        covered = any(
            o["x"] <= px <= o["x"] + CARD_W * o.get("s", 1.0) and o["y"] <= py <= o["y"] + CARD_H * o.get("s", 1.0)
            for o in cards[i + 1 :]
        )
        if not covered:
            out.append(("c" in it, tuple(int(v) for v in img[py, px])))
    return out


@pytest.mark.parametrize("game,config,steps", CASES[::2], ids=[f"{g}-{c}" for g, c, _ in CASES[::2]])
def test_bitmap_draws_faces_and_backs_where_the_scene_puts_them(game, config, steps):
    back = tuple(int(BACK[i : i + 2], 16) for i in (1, 3, 5))
    shapes = set()
    for state in positions(game, config, steps):
        for viewer in (None, 0):
            scene = app.scene(state, viewer)
            img = app.rgb_array(state, viewer)
            assert img.dtype == np.uint8 and img.shape == (scene["h"], scene["w"], 3)
            shapes.add(img.shape)
            samples = card_pixels(scene, img)
            assert samples
            for face_up, pixel in samples:
                if face_up:
                    assert min(pixel) > 200, pixel  # the white of a card face
                else:
                    assert pixel == back
        if any(len(h) for h in state.get("hands") or []):
            assert not np.array_equal(app.rgb_array(state), app.rgb_array(state, 0))
    assert len(shapes) == 1  # one frame size per game and config


def test_empty_table_and_unknown_game_fallback():
    assert app.rgb_array(None).shape == (400, 640, 3)
    fake = {"game": "other_v0", "phase": "x", "scores": [1, 2], "hands": [["AS"], ["KD"]], "done": False}
    assert svg_cards(app.svg(fake, 0)) == (Counter({"AS": 1}), 1)
