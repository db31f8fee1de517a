"""PettingZoo conformance of the Push env (api, seed, render) and its spaces."""

import pytest
from pettingzoo.test import api_test, render_test, seed_test

from cardenvs import push_v0

CONFIGS = [{}, {"rounds": [1], "reward": "score_delta"}, {"rounds": [3, 5], "max_turns": 30}]
IDS = [str(c) for c in CONFIGS]


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_api(cfg):
    api_test(push_v0.env(**cfg), num_cycles=300)


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_seed(cfg):
    seed_test(lambda render_mode=None: push_v0.env(render_mode=render_mode, **cfg), num_cycles=100)


def test_render():
    render_test(lambda render_mode=None: push_v0.env(render_mode=render_mode))


def test_ansi_render_shows_the_table():
    env = push_v0.env(render_mode="ansi", rounds=[1])
    env.reset(seed=0, options={"dealer": 3})
    text = env.render()
    assert isinstance(text, str) and "player_0" in text and "phase draw" in text and "stock 83" in text


def test_spaces_are_the_same_objects_and_mask_is_int8():
    env = push_v0.env()
    env.reset(seed=0)
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
        assert env.action_space(agent).n == 2371
        assert env.observe(agent)["action_mask"].dtype.name == "int8"
        assert env.observation_space(agent)["observation"].shape == (4961,)


def test_the_observation_layout_covers_every_index_once_and_is_what_the_writer_uses():
    """``observation.LAYOUT`` places every entry of the observation exactly
    once, the writer's offsets are read from it (and are those of version 0),
    its bounds are the observation space's, and the fields hold what their
    meanings say."""
    import numpy as np

    from cardenvs.games.push import observation as O

    covered = np.zeros(O.OBS_SIZE, np.int64)

    def cover(layout, start):
        for field in layout:
            for k in range(field.count):
                at = start + field.offset + k * field.size
                if field.parts is None:
                    covered[at : at + field.size] += 1
                else:
                    cover(field.parts, at)

    cover(O.LAYOUT, 0)
    assert O.OBS_SIZE == O.LAYOUT.size == 4961 and (covered == 1).all()
    names = ["hand", "discard_top", "discard_pile", "stock_size", "seats", "round", "phase", "in_contract"]
    names += ["contract_melds", "pending", "owed_wild", "dealer", "turn", "pending_next", "melds"]
    writer = [O.HAND, O.TOP, O.PILE, O.STOCK, O.SEATS, O.ROUND, O.PHASE, O.IN_CONTRACT]
    writer += [O.CONTRACT_IDX, O.PEND, O.OWED, O.DEALER, O.TURN, O.PEND_NEXT, O.MELDS]
    assert writer == [O.LAYOUT[n].offset for n in names]
    assert writer == [0, 53, 106, 159, 160, 172, 177, 179, 180, 181, 184, 189, 193, 194, 208]
    slot = ["used", "pending", "owner", "kind", "set_rank", "run_suit", "run_span", "run_positions", "set_cards"]
    slot_writer = [O.USED, O.PENDING, O.OWNER, O.KIND, O.SET_RANK, O.RUN_SUIT, O.SPAN, O.POS, O.SET_CARDS]
    assert slot_writer == [O.SLOT[n].offset for n in slot] == [0, 1, 2, 6, 8, 21, 25, 39, 123]
    assert (O.SLOT_SIZE, O.POSITION_SIZE, O.SEAT_SIZE) == (132, 6, 3)
    assert (O.SEAT_HAND, O.SEAT_CONTRACT, O.SEAT_SCORE) == (0, 1, 2)
    high = np.ones(O.OBS_SIZE)  # version 0's bounds, written out by hand
    high[0:53] = high[106:159] = 4
    high[159] = 108
    high[160:172:3] = 108
    high[162:172:3] = np.inf
    high[180] = 3
    high[193] = np.inf
    for m in range(36):
        high[208 + 132 * m + 123 : 208 + 132 * (m + 1)] = 4
    high[4960] = 32767  # 0.2: turns left before max_turns, appended
    low, layout_high = O.LAYOUT.bounds()
    assert (low == 0).all() and np.array_equal(layout_high, high)
    env = push_v0.env(rounds=[2])
    env.reset(seed=4)
    for _ in range(60):  # into the melding
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[-1]))
    agent = env.agent_selection
    seat = int(agent[-1])
    obs, state = env.observe(agent)["observation"], env.unwrapped._state

    def field(name, layout=O.LAYOUT, start=0):
        f = layout[name]
        return obs[start + f.offset : start + f.stop]

    assert np.array_equal(field("hand"), state.hands[0, seat])
    assert np.array_equal(field("discard_pile"), state.pile_counts[0])
    assert field("stock_size")[0] == state.stock_size[0] and field("turn")[0] == state.turns[0]
    for k in range(4):
        at = O.SEATS + O.SEAT_SIZE * k
        assert field("hand_size", O.SEAT, at)[0] == state.held[0, (seat + k) % 4]
    assert field("round")[1] == 1 and field("phase")[1] == 1
    assert field("used", O.SLOT, O.MELDS)[0] == (state.n_melds[0] > 0 or state.pend[0] > 0)
