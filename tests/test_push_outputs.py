"""Push's recycled outputs (cardenvs.games.push.outputs) are safe by construction:
arrays are recycled once dropped, never while held, each writer gets back
only its own record; engines in threads share nothing; a state pickled in a
forked child and loaded in the parent is observed exactly; a handed-out
array cannot be made writeable."""

from __future__ import annotations

import multiprocessing
import pickle
import threading
import zlib

import numpy as np
import pytest

import cardenvs.vector as V
from cardenvs.games.push.outputs import Outputs

SHAPE = (1024, 4096)  # 4 MB of bool: recycled
UNKNOWN = 4096


# ---------------------------------------------------------------------- one state's pool
def test_a_new_array_has_an_unknown_record_and_a_dropped_one_comes_back_with_its_record():
    outputs = Outputs()
    out, written = outputs.recycled_rows(SHAPE, np.bool_, "test.a", UNKNOWN)
    assert written.shape == (SHAPE[0],) and (written == UNKNOWN).all()
    out[:] = False
    written[:] = 0
    written[5] = 17
    address = out.__array_interface__["data"][0]
    del out
    again, record = outputs.recycled_rows(SHAPE, np.bool_, "test.a", UNKNOWN)
    assert again.__array_interface__["data"][0] == address
    assert record[5] == 17 and record[0] == 0


def test_another_writer_gets_an_unknown_record():
    outputs = Outputs()
    out, written = outputs.recycled_rows(SHAPE, np.bool_, "test.a", UNKNOWN)
    written[:] = 3
    address = out.__array_interface__["data"][0]
    del out
    other, record = outputs.recycled_rows(SHAPE, np.bool_, "test.b", UNKNOWN)
    assert other.__array_interface__["data"][0] == address
    assert (record == UNKNOWN).all()
    del other
    # and the first writer's old record is void too: test.b wrote there since
    _, record = outputs.recycled_rows(SHAPE, np.bool_, "test.a", UNKNOWN)
    assert (record == UNKNOWN).all()


def test_a_held_array_or_a_view_of_it_is_never_handed_out_again():
    outputs = Outputs()
    out, _ = outputs.recycled_rows(SHAPE, np.bool_, "test.a", UNKNOWN)
    handed = outputs.hand_out(out)
    del out
    second, _ = outputs.recycled_rows(SHAPE, np.bool_, "test.a", UNKNOWN)
    assert not np.shares_memory(second, handed)
    part = handed[10:20]
    del handed
    third, _ = outputs.recycled_rows(SHAPE, np.bool_, "test.a", UNKNOWN)
    assert not np.shares_memory(third, part) and not np.shares_memory(third, second)
    del part, second, third
    fourth, _ = outputs.recycled_rows(SHAPE, np.bool_, "test.a", UNKNOWN)  # all dropped: recycled
    assert any(fourth is array for array in outputs._arrays[:3])


def test_recycled_arrays_are_handed_out_read_only_small_ones_as_they_are():
    outputs = Outputs()
    out, _ = outputs.recycled_rows(SHAPE, np.bool_, "test.a", UNKNOWN)
    handed = outputs.hand_out(out)
    assert np.shares_memory(handed, out) and handed.shape == SHAPE and handed.dtype == np.bool_
    with pytest.raises(ValueError, match="read-only"):
        handed[0, 0] = True
    for view in (handed, handed[2:5], handed.T):
        with pytest.raises(ValueError, match="WRITEABLE"):
            view.flags.writeable = True
    small, written = outputs.recycled_rows((4, 8), np.int16, "test.a", 8)
    assert (written == 8).all()
    assert outputs.hand_out(small) is small and small.flags.writeable


def test_pools_are_per_outputs_and_copies_keep_only_the_counter():
    first, second = Outputs(), Outputs()
    out, _ = first.recycled_rows(SHAPE, np.bool_, "test.a", UNKNOWN)
    address = out.__array_interface__["data"][0]
    del out
    other, record = second.recycled_rows(SHAPE, np.bool_, "test.a", UNKNOWN)
    assert other.__array_interface__["data"][0] != address and (record == UNKNOWN).all()
    first.stamp_clock[0] = 1234
    for copy in (pickle.loads(pickle.dumps(first)), first.fork()):
        assert copy.stamp_clock[0] == 1234 and copy.stamp_clock is not first.stamp_clock
        assert copy._arrays == [] and copy._records == []


# ---------------------------------------------------------------------- engines side by side
def _actions(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """A random legal action per row (by its rank among the row's legal actions)."""
    counts = np.count_nonzero(mask, axis=1)
    pick = np.cumsum(counts) - counts + (rng.random(len(counts)) * counts).astype(np.int64)
    return np.flatnonzero(mask)[pick] % mask.shape[1]


def _digest(*arrays: np.ndarray) -> int:
    crc = 0
    for a in arrays:
        crc = zlib.crc32(memoryview(np.ascontiguousarray(a)).cast("B"), crc)
    return crc


def _run(engine, seed: int, steps: int, digests: list) -> None:
    """Step ``engine`` with random legal actions, noting a hash of everything
    every step returns."""
    rng = np.random.default_rng(seed)
    obs, info = engine.reset(seed=seed)
    digests.append(_digest(obs, info["action_mask"]))
    for _ in range(steps):
        obs, rewards, terminated, _, info = engine.step(_actions(rng, info["action_mask"]))
        digests.append(_digest(obs, info["action_mask"], rewards, terminated, info["current_player"]))


def test_four_threads_each_stepping_its_own_engine_match_the_engines_stepped_one_after_another():
    """Four engines of 2,048 games (recycled observation and mask batches)
    stepped for 200 steps at once in four threads give exactly what they
    give one after another: no engine sees another's arrays or stamps."""
    num_engines, games, steps = 4, 2048, 200
    alone = [[] for _ in range(num_engines)]
    for k in range(num_engines):
        _run(V.make("push_v0", games, max_turns=40), 100 + k, steps, alone[k])
    together = [[] for _ in range(num_engines)]
    errors = []

    def work(k: int) -> None:
        try:
            _run(V.make("push_v0", games, max_turns=40), 100 + k, steps, together[k])
        except Exception as exc:  # (an engine handed another's array raises)
            errors.append(f"engine {k}: {exc!r}")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(num_engines)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    for k in range(num_engines):
        differ = [t for t, (a, b) in enumerate(zip(alone[k], together[k])) if a != b]
        assert len(together[k]) == steps + 1 and not differ, f"engine {k} differs from step {differ[:1]}"


def _child(conn, engine, actions: np.ndarray) -> None:
    """In a forked child: step the engine, then send it (pickled) to the parent."""
    engine.step(actions)
    conn.send_bytes(pickle.dumps(engine))
    conn.close()


def _meld_slot_groups(rules) -> np.ndarray:
    """Per action id, which observation block of a meld slot it rewrites:
    -1 none (take, push, discard), 0 the next slot (declare), 1 the pending
    set (add, end set), 2 the pending run (fill), 3 + m table meld m."""
    groups = np.full(rules.num_actions, -1)
    for a in range(rules.num_actions):
        words = rules.action_to_str(a).split()
        first = {"set": 0, "run": 0, "add": 1, "end": 1, "fill": 2}.get(words[0])
        if first is not None:
            groups[a] = first
        elif words[0] in ("layoff", "swap"):
            groups[a] = 3 + int(words[1])
    return groups


def _other_moves_on_the_same_slots(actions: np.ndarray, mask: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Per row, another legal action that rewrites the same meld slot's block
    as ``actions`` does (so draws a stamp for that slot, for other contents),
    where there is one; else the same action."""
    other = actions.copy()
    for b, a in enumerate(actions):
        if groups[a] >= 0:
            choices = np.flatnonzero(mask[b] & (groups == groups[a]))
            choices = choices[choices != a]
            if len(choices):
                other[b] = choices[0]
    return other


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_an_engine_pickled_in_a_forked_child_plays_on_exactly_in_the_parent():
    """An engine stepped in a forked child and pickled back to the parent
    goes on exactly as an engine that never left, although the parent's copy
    of it stepped meanwhile with other moves on the same meld slots (the
    same number of stamps, for other blocks, into an observation batch the
    parent then drops)."""
    games, before, after = 1024, 40, 40
    engine = V.make("push_v0", games, seed=7, max_turns=60)
    groups = _meld_slot_groups(engine.rules)
    rng = np.random.default_rng(7)
    obs, info = engine.reset()
    played = []
    for _ in range(before):
        played.append(_actions(rng, info["action_mask"]))
        obs, _, _, _, info = engine.step(played[-1])
    away = _actions(rng, info["action_mask"])  # the child's move
    other = _other_moves_on_the_same_slots(away, info["action_mask"], groups)  # the parent's
    assert (other != away).sum() > 100
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(send, engine, away))
    child.start()
    send.close()
    held = obs  # (kept: the batch the parent's copy writes next is the one it drops)
    obs, _, _, _, info = engine.step(other)
    del obs, info
    back = pickle.loads(receive.recv_bytes())
    child.join()
    assert child.exitcode == 0
    seen, seen_mask = back.observe(back.state.current).copy(), back.state.legal.copy()
    twin = V.make("push_v0", games, seed=7, max_turns=60)  # never leaves: plays what the child played
    twin.reset()
    for actions in [*played, away]:
        twin_obs, _, _, _, twin_info = twin.step(actions)
    assert np.array_equal(seen_mask, twin_info["action_mask"])
    assert np.array_equal(seen, twin_obs), "the loaded engine is observed with wrong meld slots"
    play_rng = np.random.default_rng(10)
    for t in range(after):
        actions = _actions(play_rng, twin_info["action_mask"])
        back_obs, back_rewards, _, _, back_info = back.step(actions)
        twin_obs, twin_rewards, _, _, twin_info = twin.step(actions)
        assert np.array_equal(back_obs, twin_obs), f"step {t}: the loaded engine's observation differs"
        assert np.array_equal(back_info["action_mask"], twin_info["action_mask"]), f"step {t}: masks differ"
        assert np.array_equal(back_rewards, twin_rewards)
    del held


def test_a_handed_out_batch_cannot_be_made_writeable_nor_corrupt_a_later_observation():
    """Flipping ``flags.writeable`` on a handed-out observation or mask batch
    raises; a caller who tries, and writes if it worked, changes nothing the
    engine hands out later (checked against a twin engine never tampered with)."""
    games = 1800  # 17 MB of observations, 4.3 MB of masks: recycled
    engine = V.make("push_v0", games, seed=3, max_turns=25)
    twin = V.make("push_v0", games, seed=3, max_turns=25)
    obs, info = engine.reset()
    twin.reset()
    rng = np.random.default_rng(3)
    flips = 0
    for t in range(20):
        mask = info["action_mask"]
        for handed, value in ((obs, 7), (mask, True)):
            try:
                handed.flags.writeable = True
            except ValueError:
                continue
            flips += 1
            handed[:, : handed.shape[1] // 2] = value  # it worked: write through it
        actions = _actions(rng, twin.state.legal)
        del obs, mask, info, handed  # (dropped: the engine may recycle the arrays)
        obs, _, _, _, info = engine.step(actions)
        twin_obs, _, _, _, twin_info = twin.step(actions)
        assert np.array_equal(obs, twin_obs), f"step {t}: a write through a handed-out array reached a later one"
        assert np.array_equal(info["action_mask"], twin_info["action_mask"]), f"step {t}: masks corrupted"
    assert flips == 0, "a handed-out array was made writeable"


def test_a_copy_gets_outputs_of_its_own_a_subset_shares_its_states_and_put_back_games_are_stamped_anew():
    """``copy()``/``deepcopy`` give a state new outputs (the counter goes on,
    nothing else is carried over); ``select`` shares them (its games are put
    back); games put back from another state's subset get stamps from this
    state's counter, with blocks as a fresh encoding gives."""
    import copy

    from cardenvs.games.push import observation
    from cardenvs.games.push.rules import PushRules

    rules = PushRules(max_turns=40)
    states = [rules.new_state(16, np.random.default_rng(k)) for k in range(2)]
    rng = np.random.default_rng(0)
    for state in states:
        rules.reset(state, np.arange(16))
        for _ in range(150):
            rules.step(state, _actions(rng, state.legal))
    state, other = states
    for twin in (state.copy(), copy.deepcopy(state), pickle.loads(pickle.dumps(state))):
        assert twin.outputs is not state.outputs and twin.outputs._arrays == []
        assert twin.outputs.stamp_clock[0] == state.outputs.stamp_clock[0]
        assert np.array_equal(twin.meld_stamp, state.meld_stamp)
    assert state.select(np.arange(3)).outputs is state.outputs
    first = int(state.outputs.stamp_clock[0])
    rows = np.array([2, 5, 11])
    part = other.select(rows)
    assert (part.meld_stamp > 0).any()
    state.assign(rows, part)
    stamped = state.meld_stamp[rows]
    assert (stamped[stamped > 0] >= first).all() and np.array_equal(stamped > 0, part.meld_kind > 0)
    fresh = state.copy()
    slots = np.arange(observation.NUM_MELDS)
    observation.refresh_slots(fresh, np.repeat(rows, len(slots)), np.tile(slots, len(rows)))
    assert np.array_equal(fresh.meld_obs, state.meld_obs)
