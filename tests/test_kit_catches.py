"""The conformance kit catches what a game shows a seat that it could not
see at a real table, counts read from the wrong seats and masks that do
not follow the rules' own refusal (docs/adding-a-game.md, section 7): each
bug is planted in the template game, High Card (its observation writer,
its rules or its layout patched for the test), and the kit must fail
naming the check, without ``playthroughs`` (a golden playthrough recorded
with the bug in pins the bug).  The new checks pass on every registered
game (short configs, one seed)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import cardenvs.games.high_card.observation as ob
import cardenvs.games.high_card.state as hc_state
from cardenvs.core.layout import Field, Layout
from cardenvs.games.high_card.rules import HighCardRules
from cardenvs.games.high_card.tables import NUM_PLAYERS, PLAYING, STOCK_SIZE, SUIT, unpack_arrays
from cardenvs.registry import GAMES, spec
from cardenvs.testing import CHECKS, check_game, infosets

GAME = "high_card_v0"
NEW = ("information_sets", "public_counts")
REWARDS = ("rewards_outcome", "reward_seats")
EVERY = [c for c in CHECKS if c != "playthroughs"]


def kit(*checks: str, seeds: int = 2) -> dict[str, object]:
    """The kit's results on High Card (short config) by check."""
    report = check_game(GAME, seeds=seeds, steps=40, config={"hands": 2}, checks=checks or EVERY)
    return {r.check: r for r in report}


def leak(monkeypatch: pytest.MonkeyPatch, plant) -> None:
    """High Card's observation writer, then ``plant(state, row, seat, obs)`` per row."""
    real = ob.encode_rows

    def leaky(rows, seats, hands, arrays, out):
        real(rows, seats, hands, arrays, out)
        state = unpack_arrays(arrays)
        for i in range(len(rows)):
            plant(state, rows[i], seats[i], out[i])

    monkeypatch.setattr(ob, "encode_rows", leaky)


def failed(results: dict, check: str, words: str, also: tuple[str, ...] = ()) -> None:
    """``check`` failed saying ``words``, and no check but those ``also``
    names (where the same bug shows too)."""
    result = results[check]
    assert result.failed and words in result.message, result.line()
    others = {r.check for r in results.values() if r.failed} - {check}
    assert others <= set(also), [r.line() for r in results.values()]


#: A card leaked into the discards is in the state's ``public`` part too (player_0's observation),
#: where state_decode finds it in the wrong place.
IN_THE_STATE = ("state_decode",)


def test_the_template_passes_every_check():
    results = kit()
    assert all(not r.failed for r in results.values()), [r.line() for r in results.values()]


def test_a_leak_of_the_opponents_hand_once_play_starts_is_caught(monkeypatch):
    def opponents_hand(state, row, seat, obs):  # (a) after the deal, never at it
        if state.phase[row] == PLAYING:
            obs[ob.DISCARDS : ob.DISCARDS + 16] |= state.hands[row, 1 - seat]

    leak(monkeypatch, opponents_hand)
    failed(kit(), "information_sets", "shows cards it has not seen", also=IN_THE_STATE)


def test_a_leak_of_the_stocks_next_card_is_caught(monkeypatch):
    def next_card(state, row, seat, obs):  # (b)
        if state.stock_top[row] < STOCK_SIZE and state.table[row, 0] < 0:
            obs[ob.LED + state.stock[row, state.stock_top[row]]] = 1

    leak(monkeypatch, next_card)
    failed(kit(), "information_sets", "shows cards it has not seen")


def test_the_card_a_seat_just_drew_shown_to_every_seat_is_caught(monkeypatch):
    def drawn_card(state, row, seat, obs):  # (c) the last card drawn from the stock (swapped in)
        if state.stock_top[row] > 0:
            obs[ob.DISCARDS + state.stock[row, state.stock_top[row] - 1]] = 1

    leak(monkeypatch, drawn_card)
    failed(kit(), "information_sets", "shows cards it has not seen", also=IN_THE_STATE)


def with_counts(monkeypatch: pytest.MonkeyPatch, relative: bool) -> None:
    """High Card with two count columns declared in its layout, each seat's
    hand size by relative seat (``relative`` False: by absolute seat, the
    planted bug) and the stock's size."""
    layout = Layout(
        [
            *ob.LAYOUT,
            Field("hand_sizes", NUM_PLAYERS, "cards in each relative seat's hand", high=3, counts="hands"),
            Field("stock_size", 1, "cards in the stock", high=STOCK_SIZE, counts="stock"),
        ]
    )
    real = HighCardRules.observe

    def observe(self, state, seats, rows=None):
        seats = np.asarray(seats, np.int64)
        rows = np.arange(len(seats)) if rows is None else np.asarray(rows, np.int64)
        sizes = state.hands[rows].sum(-1)  # (k, seats) by absolute seat
        order = (seats[:, None] + np.arange(NUM_PLAYERS)) % NUM_PLAYERS if relative else np.arange(NUM_PLAYERS)
        counts = np.take_along_axis(sizes, np.broadcast_to(order, sizes.shape), 1)
        stock = (STOCK_SIZE - state.stock_top[rows])[:, None]
        return np.concatenate([real(self, state, seats, rows), counts, stock], 1).astype(ob.OBS_DTYPE)

    low, high = (b.astype(np.float32) for b in layout.bounds())
    monkeypatch.setattr(ob, "LAYOUT", layout)
    for name, value in (("obs_size", layout.size), ("obs_low", low), ("obs_high", high), ("observe", observe)):
        monkeypatch.setattr(HighCardRules, name, value)


def test_counts_read_from_the_right_seats_pass(monkeypatch):
    with_counts(monkeypatch, relative=True)
    results = kit(*NEW)
    assert results["public_counts"].passed and results["information_sets"].passed, results


def test_counts_read_from_the_wrong_seats_are_caught(monkeypatch):
    with_counts(monkeypatch, relative=False)  # (d)
    results = kit(*NEW)
    failed(results, "public_counts", "hand_sizes")
    message = results["public_counts"].message  # (the entry's relative seat, and the seat whose hand it counts)
    seats = re.search(r"^player_(\d)'s hand_sizes \(relative seat (\d): player_(\d)\)", message)
    assert seats and int(seats[3]) == (int(seats[1]) + int(seats[2])) % 2, message
    assert f"state_dict()['hands'][{seats[3]}] says" in message, message


def test_a_mask_allowing_a_held_card_the_rules_forbid_is_caught(monkeypatch):
    """(e) Following suit decided by the wrong hand (the opponent's): a seat
    holding the suit led may play another card whenever its opponent holds
    none of that suit, which it cannot see."""
    real = HighCardRules.advance

    def advance(self, state, actions, rewards):
        ended = real(self, state, actions, rewards)
        for row in np.flatnonzero((state.phase == PLAYING) & (state.table[:, 0] >= 0)):
            seat, led = state.current[row], state.table[row, 0]
            theirs = state.hands[row, 1 - seat]
            if not (theirs * (SUIT[led] == SUIT)).any():  # the opponent cannot follow: "nor can you"
                state.legal[row, 17:33] = state.hands[row, seat] > 0
        return ended

    monkeypatch.setattr(HighCardRules, "advance", advance)
    failed(kit(*NEW, "legal_masks", seeds=6), "information_sets", "mask depends on cards it has not seen")


@pytest.mark.parametrize("game", GAMES)
def test_the_new_checks_pass_on_every_registered_game(game):
    for config in spec(game).short_config:
        report = check_game(game, seeds=1, steps=40, config=config, checks=NEW)
        assert report.ok, str(report)


@pytest.mark.parametrize(("game", "config"), [(g, dict(c)) for g in GAMES for c in spec(g).short_config])
def test_the_reward_and_state_checks_pass_on_every_registered_game(game, config):
    """Long enough for whole games (short configs): the winners' rewards are
    checked in every turn-based game; Spit's short games are cut at their
    tick limit, a draw nobody wins, and nothing else of its rewards is
    known to the kit."""
    report = check_game(game, seeds=1, steps=300, config=config, checks=[*REWARDS, "state_decode"])
    assert report.ok, str(report)
    skipped = {r.check for r in report if r.status == "skipped"}
    assert skipped <= ({"rewards_outcome"} if spec(game).simultaneous else set()), str(report)


DECK52 = [f"{r}{s}" for s in "CDHS" for r in "23456789TJQKA"]


def trades_of_a_four_seat_deal() -> dict[int, list[tuple[str, str, int]]]:
    """The trades ``information_sets`` makes for each seat of a four-seat
    game with a stock, from its record (7 cards dealt to each seat, 24 in
    the stock; seat 1 plays a card, then seat 2 draws the stock's top)."""
    hands, stock = [DECK52[7 * k : 7 * (k + 1)] for k in range(4)], DECK52[28:]
    played, drew = (
        [hands[0], hands[1][1:], hands[2], hands[3]],
        [hands[0], hands[1][1:], [*hands[2], stock[0]], hands[3]],
    )
    positions = [
        {"hands": hands, "stock": stock, "trick": []},
        {"hands": played, "stock": stock, "trick": [hands[1][0]]},
        *[{"hands": drew, "stock": stock[1:], "trick": [hands[1][0]]}] * 3,
    ]
    record = [(sd, {}, 0) for sd in positions]
    hidden = {seat: infosets._hidden_until(record, seat, ("stock",), DECK52) for seat in range(4)}
    return {seat: infosets._trades(record, seat, hidden[seat]) for seat in range(4)}


def test_information_sets_trade_every_hidden_card_at_four_seats():
    """Every card a seat has not seen is in a trade (the other hands, the
    stock at every depth, the card drawn, the card played before it was
    played), with a card of another place: never two cards of the stock,
    whose trade would not show a leak of which cards the stock holds."""
    stock = set(DECK52[29:])  # (the cards never drawn)
    for seat, trades in trades_of_a_four_seat_deal().items():
        own = set(DECK52[7 * seat : 7 * (seat + 1)])
        assert {card for x, y, _ in trades for card in (x, y)} == set(DECK52) - own, seat
        assert len(trades) <= infosets.MAX_TRADES
        assert all(not {x, y} <= stock for x, y, _ in trades), seat


def test_a_decode_that_names_a_place_otherwise_is_caught(monkeypatch):
    """``decode`` must name the places as ``state_dict()`` does (``hand s``)."""
    real = hc_state.decode

    def decode(rules, values):
        return {name.replace("hand ", "hand_"): cards for name, cards in real(rules, values).items()}

    monkeypatch.setattr(hc_state, "decode", decode)
    failed(kit("state_decode"), "state_decode", "no place 'hand 0' decoded")


def test_a_decode_that_reads_the_stock_bottom_first_is_caught(monkeypatch):
    real = hc_state.decode

    def decode(rules, values):
        cards = real(rules, values)
        return {**cards, "stock": cards["stock"][::-1]}

    monkeypatch.setattr(hc_state, "decode", decode)
    failed(kit("state_decode"), "state_decode", "'stock' decoded in another order")


def test_hidden_deals_returning_none_leaves_the_trade_to_the_kit(monkeypatch):
    monkeypatch.setattr(HighCardRules, "hidden_deals", lambda self, deck: None)
    result = kit("hidden_cards")["hidden_cards"]
    assert result.status == "skipped" and "no two opponents" in result.message, result.line()  # (two seats: one)


def test_a_mask_leaving_out_an_action_the_rules_take_is_caught(monkeypatch):
    """The mask an env shows and what its step takes must be one: here the
    shown mask leaves out a legal action, which stepping still plays."""
    from cardenvs.core.aec import CardGameAECEnv

    real = CardGameAECEnv.observe

    def observe(self, agent):
        seen = real(self, agent)
        legal = np.flatnonzero(seen["action_mask"])
        if len(legal) > 1:
            seen["action_mask"][legal[-1]] = 0
        return seen

    monkeypatch.setattr(CardGameAECEnv, "observe", observe)
    failed(kit("legal_masks"), "legal_masks", "masked-out")
