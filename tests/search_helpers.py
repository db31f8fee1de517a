"""Shared helpers of the sampler tests: random play to a position, exact
enumeration of the consistent deals, a chi-squared p-value, state equality."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np


def random_play(rules, state, rng, steps, stop=None):
    """Step every unfinished row with random legal actions ``steps`` times;
    rows where ``stop(state)`` holds are not stepped any more."""
    for _ in range(steps):
        live = ~state.done & (np.ones(state.batch, bool) if stop is None else ~stop(state))
        if not live.any():
            break
        actions = np.zeros(state.batch, np.int64)
        for row in np.flatnonzero(live):
            actions[row] = rng.choice(np.flatnonzero(state.legal[row]))
        part = state.select(np.flatnonzero(live))
        rules.step(part, actions[live])
        state.assign(np.flatnonzero(live), part)
    return state


def enumerate_deals(unseen_cards, capacities, consistent):
    """Every distinct deal (a tuple of sorted card tuples, one per place) of
    the physical cards ``unseen_cards`` (a list of card types, duplicates
    allowed) to places of ``capacities``, with ``consistent(deal)`` true,
    and how many physical deals each one stands for."""
    deals: Counter = Counter()

    def place(p, left, chosen):
        if p == len(capacities):
            deal = tuple(tuple(sorted(unseen_cards[i] for i in idx)) for idx in chosen)
            if consistent(deal):
                deals[deal] += 1
            return
        for idx in itertools.combinations(left, capacities[p]):
            place(p + 1, [i for i in left if i not in idx], chosen + [idx])

    place(0, list(range(len(unseen_cards))), [])
    return deals


def chi2_pvalue(observed, expected):
    """Pearson's chi-squared test p-value (scipy if installed)."""
    observed, expected = np.asarray(observed, float), np.asarray(expected, float)
    try:
        from scipy.stats import chisquare

        return float(chisquare(observed, expected).pvalue)
    except ImportError:  # pragma: no cover
        stat = float(((observed - expected) ** 2 / expected).sum())
        dof = len(observed) - 1
        # Wilson-Hilferty normal approximation of the chi-squared tail
        z = ((stat / dof) ** (1 / 3) - (1 - 2 / (9 * dof))) / math.sqrt(2 / (9 * dof))
        return 0.5 * math.erfc(z / math.sqrt(2))


def states_equal(a, b):
    """Whether two batch states hold the same arrays."""
    keys = [k for k, v in vars(a).items() if isinstance(v, np.ndarray)]
    return all(np.array_equal(getattr(a, k), getattr(b, k)) for k in keys)


HEARTS, SPADES, BLACK_MARIA = 2, 3, 49  # Cancellation Hearts: suit ids (C D H S) and the Q of spades' card type


def hearts_facts(plays, num_players):
    """The test's own reading of the Cancellation Hearts rules on one hand's
    plays (``plays``: (seat, card type) in order, from the first trick):
    ``(seat, k, allowed, kind)`` for each play k that the rules allow only
    to a hand holding nothing but the card types ``allowed`` (a set) --
    ``"void"``: not following suit (none of the suit led); ``"opening"``: an
    opening lead of a heart or Black Maria (hearts and Black Marias only);
    ``"hearts only"``: a heart led before a heart or Black Maria was played
    (hearts only)."""
    facts, broken = [], False
    for k, (seat, card) in enumerate(plays):
        position = k % num_players  # every trick has one card per seat
        if position == 0 and k == 0 and (card // 13 == HEARTS or card == BLACK_MARIA):
            facts.append((seat, k, {t for t in range(52) if t // 13 == HEARTS or t == BLACK_MARIA}, "opening"))
        elif position == 0 and not broken and card // 13 == HEARTS:
            facts.append((seat, k, {t for t in range(52) if t // 13 == HEARTS}, "hearts only"))
        elif position > 0 and card // 13 != plays[k - position][1] // 13:
            led = plays[k - position][1] // 13
            facts.append((seat, k, {t for t in range(52) if t // 13 != led}, "void"))
        broken |= card // 13 == HEARTS or card == BLACK_MARIA
    return facts


def facts_hold(facts, plays, hands):
    """Whether hands now (``hands[seat]``: card types) fit every fact: the
    hand at play k (the cards now and those played since) held only the
    allowed types."""
    for seat, k, allowed, _ in facts:
        since = [card for s, card in plays[k:] if s == seat]
        if not set(hands[seat]) | set(since) <= allowed:
            return False
    return True


RANKS = "23456789TJQKA"


def deal_order(hands, widow, dealer=-1):
    """The deck order (top first) dealing ``hands`` (seat s's cards
    ``hands[s]``) one at a time from the dealer's left (the dealer: the
    last seat unless given), then the widow."""
    n = len(hands)
    return [hands[(dealer + 1 + m) % n][j] for j in range(len(hands[0])) for m in range(n)] + list(widow)


def hearts_only_deal(rng=None):
    """The F1 reproduction's deal (6 players, dealer 5, no passing): seat 0
    seventeen clubs below the ace, seat 1 sixteen hearts and an ace of clubs
    (the other is in the widow), seats 2-5 a club or two each.  Trick 0 is
    all clubs, seat 1's ace wins it and seat 1, holding only hearts, leads
    one before hearts are broken.  With ``rng``: which clubs, hearts and
    other cards go where is shuffled (the same plays follow)."""
    clubs = [r + "C" for r in RANKS[:-1]] * 2
    hearts = [r + "H" for r in RANKS] * 2
    others = [r + s for s in "DS" for r in RANKS] * 2
    for cards in (clubs, hearts, others) if rng is not None else ():
        rng.shuffle(cards)
    hands = [clubs[:17], hearts[:16] + ["AC"], [], [], [], []]
    widow = ["AC", others.pop()]
    for i, card in enumerate(clubs[17:]):
        hands[2 + i % 4].append(card)
    pool = hearts[16:] + others
    if rng is not None:
        rng.shuffle(pool)
    for seat in range(2, 6):
        while len(hands[seat]) < 17:
            hands[seat].append(pool.pop())
    return deal_order(hands, widow)


def opening_deal(rng, num_players=6):
    """A deal (dealer the last seat, no passing) whose leader, seat 0, holds
    only hearts and both Black Marias, so opens with one of them; the other
    cards shuffled by ``rng``."""
    size = 104 // num_players
    hearts = [r + "H" for r in RANKS] * 2
    rest = [r + s for s in "CDS" for r in RANKS if r + s != "QS"] * 2 + hearts[size - 2 :]
    rng.shuffle(rest)
    hands = [hearts[: size - 2] + ["QS", "QS"]] + [rest[size * i : size * (i + 1)] for i in range(num_players - 1)]
    return deal_order(hands, rest[size * (num_players - 1) :])
