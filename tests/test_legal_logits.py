"""The gathered masked categorical (cardenvs.agents.legal_logits) against
sb3-contrib's: the same log-probs, entropies, gradients and greedy actions,
samples from the same distribution; and AdvisedPolicy's training path with
it (Push-sized action spaces) against the stock one."""

from __future__ import annotations

import numpy as np
import pytest

th = pytest.importorskip("torch")
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution  # noqa: E402
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy  # noqa: E402

from cardenvs.agents.advice import AdvisedPolicy  # noqa: E402
from cardenvs.agents.legal_logits import GATHER_FROM, LegalLogits  # noqa: E402


def random_case(seed: int, rows: int = 64, actions: int = 3000):
    gen = np.random.default_rng(seed)
    masks = np.zeros((rows, actions), bool)
    for r in range(rows):  # 1 to 60 legal actions, anywhere
        masks[r, gen.choice(actions, gen.integers(1, 61), replace=False)] = True
    logits = th.tensor(gen.normal(0, 3, (rows, actions)), dtype=th.float32, requires_grad=True)
    chosen = th.tensor([gen.choice(np.flatnonzero(m)) for m in masks])
    return logits, masks, chosen


def stock(logits, masks):
    dist = MaskableCategoricalDistribution(logits.shape[1]).proba_distribution(action_logits=logits)
    dist.apply_masking(masks)
    return dist


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_log_probs_entropies_and_gradients_equal_sb3_contribs(seed):
    logits, masks, chosen = random_case(seed)
    ours, theirs = LegalLogits.of(logits, masks), stock(logits, masks)
    lp, ent = ours.log_prob(chosen), ours.entropy()
    np.testing.assert_allclose(lp.detach(), theirs.log_prob(chosen).detach(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ent.detach(), theirs.entropy().detach(), rtol=1e-5, atol=1e-5)
    (grad_ours,) = th.autograd.grad((lp - 0.01 * ent).sum(), logits)
    (grad_theirs,) = th.autograd.grad((theirs.log_prob(chosen) - 0.01 * theirs.entropy()).sum(), logits)
    np.testing.assert_allclose(grad_ours, grad_theirs, rtol=1e-4, atol=1e-6)
    assert (grad_ours[~th.as_tensor(masks)] == 0).all()  # illegal logits get no gradient


def test_greedy_actions_equal_sb3_contribs_with_ties():
    logits, masks, _ = random_case(3)
    with th.no_grad():
        logits[:, :] = th.round(logits)  # many ties among the legal logits
        actions, log_prob = LegalLogits.of(logits, masks).sample(deterministic=True)
        theirs = stock(logits, masks)
        np.testing.assert_array_equal(actions, theirs.get_actions(deterministic=True))
        np.testing.assert_allclose(log_prob, theirs.log_prob(actions), rtol=1e-5, atol=1e-5)
    assert masks[np.arange(len(masks)), actions.numpy()].all()


def test_samples_follow_the_distribution():
    masks = np.zeros((1, 2000), bool)
    masks[0, [3, 700, 1999]] = True
    logits = th.zeros((1, 2000))
    logits[0, [3, 700, 1999, 5]] = th.tensor([0.0, 1.0, 2.0, 9.0])  # 5 is illegal
    th.manual_seed(0)
    legal = LegalLogits.of(logits.repeat(20000, 1), masks.repeat(20000, 0))
    actions, log_prob = legal.sample()
    counts = np.array([(actions == a).sum().item() for a in (3, 700, 1999)])
    assert counts.sum() == 20000  # never an illegal action
    expected = 20000 * np.exp([0.0, 1.0, 2.0]) / np.exp([0.0, 1.0, 2.0]).sum()
    assert (((counts - expected) ** 2) / expected).sum() < 13.8  # chi-squared, 2 dof, p = 0.001
    np.testing.assert_allclose(log_prob, legal.log_prob(actions))


def test_bad_actions_and_empty_rows():
    logits, masks, chosen = random_case(4, rows=4)
    legal = LegalLogits.of(logits, masks)
    illegal = th.tensor([int(np.flatnonzero(~m)[0]) for m in masks])
    with pytest.raises(ValueError, match="outside its row's legal actions"):
        legal.log_prob(illegal)
    masks[2] = False
    assert LegalLogits.of(logits, masks) is None and LegalLogits.of(logits[[0, 1, 3]], masks[[0, 1, 3]]) is not None


def test_advised_policy_trains_push_sized_spaces_on_the_gathered_path():
    """AdvisedPolicy with 2,371 actions: evaluate_actions and forward take the
    gathered path and give what MaskableActorCriticPolicy's own give."""
    from gymnasium import spaces

    n_actions, width = 2371, 40
    obs_space = spaces.Box(-1.0, 1.0, (width + n_actions,), np.float32)
    th.manual_seed(0)
    policy = AdvisedPolicy(obs_space, spaces.Discrete(n_actions), lambda _: 1e-3, advice_size=n_actions, net_arch=[16])
    assert policy.advice_size >= GATHER_FROM
    logits, masks, chosen = random_case(5, rows=32, actions=n_actions)
    obs = th.zeros((32, width + n_actions))
    obs[:, :width] = th.randn(32, width)
    obs[th.arange(32), width + chosen] = 1.0  # the advice: one legal action each
    values, log_prob, entropy = policy.evaluate_actions(obs, chosen, action_masks=masks)
    policy._remember(obs)
    values2, log_prob2, entropy2 = MaskableActorCriticPolicy.evaluate_actions(policy, obs, chosen, action_masks=masks)
    for a, b in ((values, values2), (log_prob, log_prob2), (entropy, entropy2)):
        np.testing.assert_allclose(a.detach(), b.detach(), rtol=1e-5, atol=1e-5)
    greedy, values3, log_prob3 = policy(obs, deterministic=True, action_masks=masks)
    policy._remember(obs)
    greedy2, _, _ = MaskableActorCriticPolicy.forward(policy, obs, deterministic=True, action_masks=masks)
    np.testing.assert_array_equal(greedy, greedy2)
    np.testing.assert_allclose(values3.detach(), values.detach(), rtol=1e-6)
    drawn, _, _ = policy(obs, action_masks=masks)
    assert masks[np.arange(32), drawn.numpy()].all()


def test_unadvised_legal_policy_trains_over_the_legal_actions_as_the_stock_one():
    """LegalPolicy (an unadvised learner's, Push-sized spaces): values,
    log-probs, entropies and every gradient as MaskableActorCriticPolicy's;
    training picks it for Push only."""
    from gymnasium import spaces

    from cardenvs.agents.legal_logits import LegalPolicy
    from cardenvs.training.ppo import TrainConfig, _new_model
    from cardenvs.training.seat_env import learner_vec_env

    n_actions, width = 2371, 40
    th.manual_seed(0)
    policy = LegalPolicy(spaces.Box(-1.0, 1.0, (width,), np.float32), spaces.Discrete(n_actions), lambda _: 1e-3)
    _, masks, chosen = random_case(7, rows=32, actions=n_actions)
    obs = th.randn(32, width)

    def run(evaluate):
        policy.zero_grad()
        values, log_prob, entropy = evaluate(obs, chosen, action_masks=masks)
        (values.sum() + log_prob.sum() + entropy.sum()).backward()
        return [values, log_prob, entropy], [p.grad.clone() for p in policy.parameters()]

    ours, theirs = (
        run(policy.evaluate_actions),
        run(lambda *a, **k: MaskableActorCriticPolicy.evaluate_actions(policy, *a, **k)),
    )
    for a, b in zip(ours[0] + ours[1], theirs[0] + theirs[1]):
        np.testing.assert_allclose(a.detach(), b.detach(), rtol=1e-4, atol=1e-5)
    greedy, _, _ = policy(obs, deterministic=True, action_masks=masks)
    np.testing.assert_array_equal(greedy, MaskableActorCriticPolicy.forward(policy, obs, True, action_masks=masks)[0])
    for game, kind in (("push_v0", LegalPolicy), ("pepper_v0", MaskableActorCriticPolicy)):
        model = _new_model(TrainConfig(game, num_envs=2, net_arch=(8,)), learner_vec_env(game, 2, seed=1))
        assert type(model.policy) is kind
