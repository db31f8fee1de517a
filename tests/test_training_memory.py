"""The training loop's memory and input layers: the rollout buffer that keeps
its arrays (cardenvs.agents.rollout_buffer), the shared-slot features
extractor (cardenvs.agents.slot_features) and the policy's action layer
computed at the legal pairs only (AdvisedPolicy with LegalLogits.at)."""

from __future__ import annotations

import numpy as np
import pytest

th = pytest.importorskip("torch")
from gymnasium import spaces  # noqa: E402
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer  # noqa: E402
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy  # noqa: E402

from cardenvs.agents.advice import AdvisedPolicy  # noqa: E402
from cardenvs.agents.registry import make_agent, rule_agent  # noqa: E402
from cardenvs.agents.rollout_buffer import KeptRolloutBuffer  # noqa: E402
from cardenvs.agents.slot_features import SlotFeatures, repeated_blocks, slot_policy_kwargs  # noqa: E402
from cardenvs.games.push import observation as push_obs  # noqa: E402
from cardenvs.training.ppo import TrainConfig, _new_model, train  # noqa: E402
from cardenvs.training.seat_env import learner_vec_env  # noqa: E402
from tools.slim_checkpoint import slim  # noqa: E402

SMALL = dict(num_envs=8, n_steps=16, batch_size=32, n_epochs=2, net_arch=(16, 16), advice=True, seed=3)


def trained_parameters(game: str, kept: bool, rollouts: int = 3, **config) -> tuple[th.Tensor, object]:
    """The policy's parameters after ``rollouts`` rollouts and updates, with
    our buffer or sb3-contrib's."""
    th.set_num_threads(1)
    cfg = TrainConfig(game=game, **{**SMALL, **config})
    rule = rule_agent(game)
    env = learner_vec_env(game, cfg.num_envs, opponents=rule, partner=rule, seed=3, advisor=rule)
    model = _new_model(cfg, env)
    if not kept:
        model.rollout_buffer = MaskableRolloutBuffer(
            model.n_steps,
            model.observation_space,
            model.action_space,
            gamma=model.gamma,
            gae_lambda=model.gae_lambda,
            n_envs=model.n_envs,
        )
    model.learn(cfg.num_envs * cfg.n_steps * rollouts)
    return th.cat([p.detach().flatten() for p in model.policy.parameters()]), model.rollout_buffer


@pytest.mark.parametrize("game, config", [("pepper_v0", {}), ("push_v0", {"slot_features": 8})])
def test_kept_buffer_trains_bit_for_bit_as_sb3_contribs(game, config):
    """Three rollouts and updates (the buffer reused twice; Push on the
    gathered path): the same parameters to the bit, masks stored as bool."""
    ours, buffer = trained_parameters(game, True, **config)
    theirs, stock_buffer = trained_parameters(game, False, **config)
    assert isinstance(buffer, KeptRolloutBuffer) and type(stock_buffer) is MaskableRolloutBuffer
    assert th.equal(ours, theirs)
    assert buffer.action_masks.dtype == bool and stock_buffer.action_masks.dtype == np.float32


def test_kept_buffer_allocates_once():
    """After the first rollout every array the update reads is one of the
    buffer's own, the same from one rollout to the next."""
    _, buffer = trained_parameters("pepper_v0", True, rollouts=1)
    first = {name: buffer.__dict__[name] for name in ("observations", "action_masks", "values", "advantages")}
    buffer.reset()
    assert buffer.pos == 0 and not buffer.full and not buffer.generator_ready
    assert (buffer.action_masks == True).all() and (buffer.values == 0).all()  # noqa: E712 (as a fresh buffer)
    buffer.full = True
    list(buffer.get(64))
    assert all(buffer.__dict__[name] is array for name, array in first.items())


def test_push_meld_slots_are_the_repeated_block():
    """Push's blocks: its 36 meld slots of 132 (not the 4 seats of 3); the
    layout is found by its size; another size is a ValueError."""
    assert repeated_blocks("push_v0", push_obs.OBS_SIZE, 16) == [(push_obs.MELDS, 36, 132)]
    assert (push_obs.MELDS, 36, 132) in repeated_blocks("push_v0", push_obs.OBS_SIZE, 2)
    assert len(repeated_blocks("push_v0", push_obs.OBS_SIZE, 2)) == 2  # the seats too
    with pytest.raises(ValueError, match="no observation layout of 12 entries"):
        repeated_blocks("push_v0", 12, 16)


def test_slot_features_encode_each_slot_with_one_layer():
    """The kept columns first as they are, then each slot through the shared
    layer in table order, then the advice through its own; a block that does not fit or
    overlaps is a ValueError."""
    space = spaces.Box(-1.0, 1.0, (2 + 3 * 4 + 1 + 5,), np.float32)  # 2 kept, 3 slots of 4, 1 kept, 5 advice
    extractor = SlotFeatures(space, [(2, 3, 4)], width=2, advice_size=5)
    assert extractor.features_dim == 2 + 3 * 2 + 1 + 2
    obs = th.randn(6, space.shape[0])
    out = extractor(obs).detach()
    layer = extractor.encoders[0]
    np.testing.assert_array_equal(out[:, :3], obs[:, [0, 1, 14]])
    for slot in range(3):
        want = th.relu(layer(obs[:, 2 + 4 * slot : 6 + 4 * slot]))
        np.testing.assert_allclose(out[:, 3 + 2 * slot : 5 + 2 * slot], want.detach(), rtol=1e-6)
    np.testing.assert_allclose(out[:, 9:], th.relu(extractor.advice(obs[:, 15:])).detach(), rtol=1e-6)
    with pytest.raises(ValueError, match="do not fit"):
        SlotFeatures(space, [(8, 3, 4)], width=2, advice_size=5)  # runs into the advice
    with pytest.raises(ValueError, match="overlap"):
        SlotFeatures(space, [(2, 2, 4), (6, 2, 4)], width=2, advice_size=5)
    for bad in (-1, 2.5, True):
        with pytest.raises(ValueError, match="slot_features must be an int"):
            slot_policy_kwargs("push_v0", space, bad, 5)


def test_action_layer_at_the_legal_pairs_gives_the_stock_gradients():
    """AdvisedPolicy with 2,371 actions takes its action layer at the legal
    pairs only: the loss's gradients on every parameter (the action layer's
    and the advice weight's included) are sb3-contrib's."""
    n_actions, width, rows = 2371, 40, 32
    space = spaces.Box(-1.0, 1.0, (width + n_actions,), np.float32)
    th.manual_seed(0)
    policy = AdvisedPolicy(space, spaces.Discrete(n_actions), lambda _: 1e-3, advice_size=n_actions, net_arch=[16])
    gen = np.random.default_rng(1)
    masks = np.zeros((rows, n_actions), bool)
    for r in range(rows):
        masks[r, gen.choice(n_actions, gen.integers(1, 50), replace=False)] = True
    chosen = th.tensor([gen.choice(np.flatnonzero(m)) for m in masks])
    obs = th.zeros((rows, width + n_actions))
    obs[:, :width] = th.randn(rows, width)
    obs[th.arange(rows), width + chosen] = 1.0

    def gradients(evaluate) -> list[th.Tensor]:
        policy.zero_grad()
        values, log_prob, entropy = evaluate(obs)
        (log_prob.sum() + entropy.sum() + values.sum()).backward()
        return [p.grad.clone() for p in policy.parameters()]

    ours = gradients(lambda o: policy.evaluate_actions(o, chosen, action_masks=masks))

    def stock(o):
        policy._remember(o)
        return MaskableActorCriticPolicy.evaluate_actions(policy, o, chosen, action_masks=masks)

    for a, b in zip(ours, gradients(stock)):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_push_trained_with_slot_features_saves_small_and_plays_through_make_agent(tmp_path):
    """A Push policy with the slot features trains, saves, and loads by
    ``make_agent(..., "ppo:PATH")``, which plays it with its teacher, legally."""
    cfg = TrainConfig(
        "push_v0", fixed_steps=128, num_envs=4, n_steps=32, batch_size=64, eval_games=1, slot_features=8, advice=True
    )
    train(cfg, rule_agent("push_v0"), tmp_path / "run", tmp_path / "p.zip", progress_bar=False, log=lambda *a: None)
    agent = make_agent("push_v0", f"ppo:{tmp_path / 'p.zip'}")
    assert isinstance(agent.model.policy.features_extractor, SlotFeatures)
    import cardenvs.push_v0 as push

    env = push.env()
    env.reset(seed=5)
    for _ in range(40):  # it plays every seat, legally
        observation, _, terminated, truncated, _ = env.last()
        action = int(agent.act_batch(observation["observation"][None], observation["action_mask"][None])[0])
        assert observation["action_mask"][action]
        env.step(None if terminated or truncated else action)
    size = (tmp_path / "p.zip").stat().st_size
    slim(tmp_path / "p.zip")  # as tools/install_baseline.py installs a baseline
    assert (tmp_path / "p.zip").stat().st_size < min(size, 10 * 2**20)
    assert isinstance(make_agent("push_v0", f"ppo:{tmp_path / 'p.zip'}").model.policy.features_extractor, SlotFeatures)
