"""The batched rule agents make exactly the decisions of their per-row
reference (``act_row``, run by ``reference=True``), on thousands of
reachable decision states per game and config: half from random play, half
from rule-guided play (the rule agents with 20% random moves, which reaches
the states of sensible play: long auctions, trumps in play, full spit piles).

Random and rule-guided play never reach a Cancellation Hearts moon choice
(one seat must take all 26 hearts and both Black Marias), so that branch is
checked on reached states turned into moon choices (the mask of the moon
phase, scores drawn around the target).  Pepper's Little Pepper bid needs an
estimate of every trick, which no hand reaches: that branch is unreachable.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from cardenvs.agents import push as push_agent
from cardenvs.agents.base import RuleAgent
from cardenvs.agents.registry import rule_agent
from cardenvs.agents.states import decision_states
from cardenvs.games.cancellation_hearts import observation as HO
from cardenvs.games.cancellation_hearts.agent import MOON_OTHERS, MOON_SELF
from cardenvs.games.push import observation as PO
from cardenvs.games.push import tables as PT

ROWS = 3000  # per source (random, rule-guided): 6,000 decisions per config
CONFIGS = [
    ("pepper_v0", {"num_players": 2}),
    ("pepper_v0", {"num_players": 3}),
    ("pepper_v0", {"num_players": 4}),
    ("cancellation_hearts_v0", {"num_players": 6}),
    ("cancellation_hearts_v0", {"num_players": 11}),
    ("spit_v0", {}),
    ("spit_v0", {"stockpiles": 4}),
    ("spit_v0", {"variant": "speed"}),
    ("push_v0", {}),
    ("push_v0", {"rounds": (3,)}),
    ("push_v0", {"rounds": (4, 5)}),
]
# How many of the actions legal somewhere a config's decisions must pick: most
# of them, but for Push, where most legal actions are swaps and wild lay-offs
# on the table melds, which the rule agent keeps for last (and there are 36
# tables' worth of them).
VARIETY = {"push_v0": 0.15}
IDS = [
    f"{game.removesuffix('_v0')}-{'-'.join(f'{k}={v}' for k, v in config.items()) or 'default'}"
    for game, config in CONFIGS
]


@functools.cache
def states(game: str, items: tuple) -> tuple[np.ndarray, np.ndarray]:
    config = dict(items)
    guide = rule_agent(game, **config)
    played = decision_states(game, ROWS, seed=1, **config)
    guided = decision_states(game, ROWS, seed=2, guide=guide, explore=0.2, **config)
    return np.concatenate([played[0], guided[0]]), np.concatenate([played[1], guided[1]])


def decisions(game: str, config: dict, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(batched, per-row reference) decisions."""
    agent, reference_agent = rule_agent(game, **config), rule_agent(game, reference=True, **config)
    assert isinstance(agent, RuleAgent) and not agent.reference and reference_agent.reference
    return agent.act_batch(obs, mask), reference_agent.act_batch(obs, mask)


@pytest.mark.parametrize(("game", "config"), CONFIGS, ids=IDS)
def test_batched_rule_agent_equals_the_per_row_reference(game, config):
    obs, mask = states(game, tuple(config.items()))
    assert len(obs) == 2 * ROWS and mask.any(axis=1).all()
    batched, reference = decisions(game, config, obs, mask)
    np.testing.assert_array_equal(batched, reference)
    assert mask[np.arange(len(mask)), batched].all()
    # the decisions are varied: most of the game's actions are chosen somewhere
    assert len(np.unique(batched)) >= VARIETY.get(game, 0.6) * mask.any(axis=0).sum()
    agent = rule_agent(game, **config)
    # float32 observations, as the advised learner holds them (a strided slice)
    wide = np.concatenate([obs.astype(np.float32), np.zeros((len(obs), 3), np.float32)], axis=1)
    np.testing.assert_array_equal(agent.act_batch(wide[:, : obs.shape[1]], mask), reference)
    # one row at a time (the AEC envs' act)
    for i in range(0, len(obs), 101):
        assert agent.act(obs[i], mask[i]) == reference[i]


def test_pepper_decisions_cover_every_kind():
    """Bids, passes, every trump choice (no-trump too), leads and follows."""
    for n in (2, 3, 4):
        obs, mask = states("pepper_v0", (("num_players", n),))
        chosen = set(rule_agent("pepper_v0", num_players=n).act_batch(obs, mask).tolist())
        assert {0, 1, 2, 3, 10, 11, 12, 13} <= chosen
        assert len(chosen & set(range(15, 39))) == 24
    assert 14 in chosen  # no-trump (4 players)


@pytest.mark.parametrize("num_players", [6, 11])
@pytest.mark.parametrize("target_score", [150, 60])
def test_hearts_moon_choice_batched_equals_reference(num_players, target_score):
    obs, mask = states("cancellation_hearts_v0", (("num_players", num_players),))
    rng = np.random.default_rng(num_players + target_score)
    obs = obs.copy()
    scores = HO.PRIVATE_AT + HO.SCORES
    obs[:, scores : scores + num_players] = rng.integers(-30, target_score + 30, (len(obs), num_players))
    moon = np.zeros_like(mask)
    moon[:, [MOON_SELF, MOON_OTHERS]] = True
    config = {"num_players": num_players, "target_score": target_score}
    batched, reference = decisions("cancellation_hearts_v0", config, obs, moon)
    np.testing.assert_array_equal(batched, reference)
    assert 0.001 < (batched == MOON_OTHERS).mean() < 0.999


@pytest.mark.parametrize(
    ("game", "config"), [CONFIGS[0], CONFIGS[3], CONFIGS[5], CONFIGS[8]], ids=[IDS[0], IDS[3], IDS[5], IDS[8]]
)
def test_a_row_without_a_legal_action_is_refused(game, config):
    obs, mask = states(game, tuple(config.items()))
    mask = mask[:8].copy()
    mask[5] = False
    with pytest.raises(ValueError, match="no legal action"):
        rule_agent(game, **config).act_batch(obs[:8], mask)
    assert len(rule_agent(game, **config).act_batch(obs[:0], mask[:0])) == 0


PUSH_CONFIGS = [c for c in CONFIGS if c[0] == "push_v0"]


def push_states() -> tuple[np.ndarray, np.ndarray]:
    parts = [states(game, tuple(config.items())) for game, config in PUSH_CONFIGS]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def test_push_action_tables_agree_with_the_action_texts():
    """The batched Push rules read per-action tables and id blocks where the
    reference reads the action texts: every action says the same both ways."""
    agent = rule_agent("push_v0")
    words = agent.words
    naturals = ("nat", "C", "D", "H", "S")
    blocks = [
        ("take", PT.TAKE, PT.TAKE + 1),
        ("push", PT.PUSH, PT.PUSH + 1),
        ("discard", PT.DISCARD0, PT.SET0),
        ("set", PT.SET0, PT.RUN0),
        ("run", PT.RUN0, PT.ADD0),
        ("add", PT.ADD0, PT.END_SET),
        ("end", PT.END_SET, PT.FILL0),
        ("fill", PT.FILL0, PT.MELD0),
    ]
    for kind, lo, hi in blocks:
        assert {w[0] for w in words[lo:hi]} == {kind}
    assert {w[0] for w in words[PT.MELD0 :]} == {"layoff", "swap"}
    for a, w in enumerate(words):
        natural = (w[0] in ("add", "fill") and w[1] in naturals) or (w[0] == "layoff" and w[-1] in naturals)
        assert bool(push_agent.NATURAL[a]) == natural, agent.texts[a]
        if w[0] in ("set", "run"):
            assert push_agent.SPAN[a] == agent._span(a), agent.texts[a]
        if w[0] == "discard":
            card = agent._card(w[1])
            assert card == a - PT.DISCARD0
            penalty = 2 * push_agent.NATURAL_PENALTY[card % 13]
            lone, paired = (-1, -1) if push_agent.is_wild(card) else (penalty, penalty // 2)
            assert (push_agent.LONE_VALUE[card], push_agent.PAIRED_VALUE[card]) == (lone, paired)


def test_push_decisions_take_every_rule():
    """On the reached states, the decisions go through each of the rules: both
    draws, natural and wild fills and adds, ending a set instead of adding a
    wild, sets, the longest of runs of different spans, natural lay-offs on
    sets and runs, discards."""
    obs, mask = push_states()
    chosen = rule_agent("push_v0").act_batch(obs, mask)
    kind, natural = PT.ACTION_KIND[chosen], push_agent.NATURAL[chosen].astype(bool)
    assert (chosen == PT.TAKE).sum() > 100 and (chosen == PT.PUSH).sum() > 100
    for k in (PT.ACT_FILL, PT.ACT_ADD, PT.ACT_LAY_OFF_SET, PT.ACT_LAY_OFF_RUN):
        assert (natural & (kind == k)).sum() > 20, k
    for k in (PT.ACT_FILL, PT.ACT_ADD):
        assert (~natural & (kind == k)).sum() > 20, k
    wild_add = mask[:, PT.ADD0 + 4 : PT.END_SET].any(axis=1) & ~mask[:, PT.ADD0 : PT.ADD0 + 4].any(axis=1)
    assert (wild_add & (chosen == PT.END_SET)).sum() > 10
    assert (kind == PT.ACT_DECLARE_SET).sum() > 100 and (kind == PT.ACT_DISCARD).sum() > 1000
    runs = chosen[kind == PT.ACT_DECLARE_RUN]
    first_run = mask[kind == PT.ACT_DECLARE_RUN, PT.RUN0 : PT.ADD0].argmax(axis=1) + PT.RUN0
    longer = push_agent.SPAN[runs] > push_agent.SPAN[first_run]
    assert len(runs) > 100 and longer.sum() > 50


def test_push_random_masks_batched_equals_reference():
    """Reached observations with random masks (any mix of action kinds, each
    row its own density, draws mostly cleared, natural discards cleared in
    some rows): the batched rules still decide as the reference, through its
    rare branches too (a wild discarded, the first legal action when no rule
    applies, as when an owed wild must be placed)."""
    obs, _ = push_states()
    rng = np.random.default_rng(15)
    density = np.exp(rng.uniform(np.log(0.0005), np.log(0.05), len(obs)))
    mask = rng.random((len(obs), PT.NUM_ACTIONS)) < density[:, None]
    mask[rng.random(len(obs)) < 0.9, : PT.DISCARD0] = False
    mask[np.ix_(rng.random(len(obs)) < 0.3, PT.DISCARD0 + np.flatnonzero(~PT.IS_WILD))] = False  # wilds only
    mask[np.arange(len(obs)), rng.integers(PT.NUM_ACTIONS, size=len(obs))] = True
    batched, reference = decisions("push_v0", {}, obs, mask)
    np.testing.assert_array_equal(batched, reference)
    kind = PT.ACTION_KIND[batched]
    assert np.isin(kind, [PT.ACT_SWAP_RUN, PT.ACT_SWAP_SET]).sum() > 100
    assert PT.IS_WILD[batched[kind == PT.ACT_DISCARD] - PT.DISCARD0].sum() > 10
    assert len(np.unique(kind)) == 12


def test_push_arrays_of_the_wrong_shape_are_refused():
    obs, mask = states("push_v0", ())
    agent = rule_agent("push_v0")
    for bad_obs, bad_mask in [
        (obs[:4, :100], mask[:4]),  # too few columns for the hand and the discard's top
        (obs[:4], mask[:4, :-1]),  # not Push's actions
        (obs[:4], mask[:3]),
        (obs[0], mask[0]),
    ]:
        with pytest.raises(ValueError):
            agent.act_batch(bad_obs, bad_mask)


@pytest.mark.parametrize("config", [{}, {"stockpiles": 4}], ids=["default", "stockpiles=4"])
def test_spit_denial_option_batched_equals_reference_and_denies(config):
    """``SpitRuleAgent(deny=True)``: batched == reference, and every play it
    picks leaves the opponent the fewest fits of all legal plays."""
    from cardenvs.games.spit.agent import PLAY, opponent_fits_after

    obs, mask = states("spit_v0", tuple(config.items()))
    denier = rule_agent("spit_v0", deny=True, **config)
    batched = denier.act_batch(obs, mask)
    np.testing.assert_array_equal(
        batched, rule_agent("spit_v0", deny=True, reference=True, **config).act_batch(obs, mask)
    )
    greedy = rule_agent("spit_v0", **config).act_batch(obs, mask)
    assert 0.02 < (batched != greedy).mean() < 0.5  # it is the greedy player, but for the pile it plays on
    checked = 0
    for row in np.flatnonzero(denier.kind_code[batched] == PLAY)[:400]:
        plays = [a for a in np.flatnonzero(mask[row]) if denier.kind_code[a] == PLAY]
        fits = {a: opponent_fits_after(obs[row], *denier.args[a]) for a in plays}
        assert fits[batched[row]] == min(fits.values())
        checked += len(set(fits.values())) > 1
    assert checked > 20  # rows where the choice mattered


def test_spit_denial_option_is_checked():
    with pytest.raises(ValueError, match="Spit strategy"):
        rule_agent("spit_v0", deny=True, variant="speed")
    with pytest.raises(ValueError, match="deny is True or False"):
        rule_agent("spit_v0", deny="yes")


PUSH_OPTIONS = [{"push_naturals": True}, {"run_discards": True}, {"push_naturals": True, "run_discards": True}]


@pytest.mark.parametrize("options", PUSH_OPTIONS, ids=lambda o: "+".join(o))
def test_push_options_batched_equals_reference(options):
    """The stronger play's options (``push_naturals``, ``run_discards``):
    the batched rules decide as the reference on the reached states and on
    random masks over them (discards of every kind in every round), and
    they change the decisions they are about, only those."""
    obs, mask = push_states()
    rng = np.random.default_rng(16)
    noisy = (rng.random(mask.shape) < 0.02) | mask
    noisy[rng.random(len(obs)) < 0.9, : PT.DISCARD0] = False  # mostly discard choices among many
    for m in (mask, noisy):
        batched, reference = decisions("push_v0", options, obs, m)
        np.testing.assert_array_equal(batched, reference)
    default = rule_agent("push_v0").act_batch(obs, mask)
    chosen = rule_agent("push_v0", **options).act_batch(obs, mask)
    changed = chosen != default
    assert changed.sum() > 50
    top = obs[:, PO.TOP : PO.TOP + PT.NUM_TYPES].argmax(axis=1)
    draws = mask[:, PT.TAKE] & mask[:, PT.PUSH]
    if options.get("push_naturals"):  # a natural on top is always pushed
        assert (chosen[draws & ~PT.IS_WILD[top]] == PT.PUSH).all()
        assert (chosen[draws & PT.IS_WILD[top]] == PT.TAKE).all()
    else:
        assert not changed[draws].any()
    if options.get("run_discards"):  # other discards only before the contract, in rounds with a run
        discards = PT.ACTION_KIND[default] == PT.ACT_DISCARD
        rounds = obs[:, PO.ROUND : PO.ROUND + 5].argmax(axis=1) + 1
        laid = obs[:, PO.SEATS + PO.SEAT_CONTRACT] > 0
        moved = changed & discards
        assert moved.sum() > 50
        assert np.isin(rounds[moved], [2, 3, 5]).all() and not laid[moved].any()
        for r in (2, 3, 5):
            assert (rounds[moved] == r).sum() > 5, r
    else:
        assert not changed[~draws].any()


def test_push_options_must_be_booleans_and_come_through_the_registry():
    for bad in ({"push_naturals": 1}, {"run_discards": "yes"}, {"push_naturals": None}):
        with pytest.raises(ValueError, match="True or False"):
            rule_agent("push_v0", **bad)
    teacher = rule_agent("push_v0", push_naturals=True, run_discards=True, rounds=(2,))  # game options filtered out
    assert (teacher.push_naturals, teacher.run_discards, teacher.name) == (
        True,
        True,
        "rule(push_naturals,run_discards)",
    )
    default = rule_agent("push_v0")
    assert (default.push_naturals, default.run_discards, default.name) == (False, False, "rule")
    # the teacher of advised training (train_push.py --advice --advisor push_naturals=True ...)
    from cardenvs.training.ppo import TrainConfig, _advisor

    options = {"push_naturals": True, "run_discards": True}
    advisor = _advisor(TrainConfig(game="push_v0", advice=True, advisor_options=options), default)
    assert (advisor.push_naturals, advisor.run_discards) == (True, True)
    assert default.obs_columns == PT.NUM_TYPES * 2  # the default reads the hand and the discard's top only
