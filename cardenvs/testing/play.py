"""Checks by random legal play of the AEC env: cards conserved, masks
exact, observations inside their spaces, and bad actions answered as the
``illegal_action`` option says."""

from __future__ import annotations

import copy
import json
from typing import Any

import numpy as np

from cardenvs.core.errors import IllegalActionError

from .common import check_cards, full_deck, make_env, make_vector, play, random_rows, step_copy
from .report import Case, Skip


def cards_conserved(case: Case) -> None:
    """Every card of the deck exactly once in ``state_dict()`` (and nothing
    else card-like) at every step of random play, and after it."""
    env = make_env(case)
    for seed in case.seeds:
        for _ in play(case, env, seed):
            check_cards(case, env.unwrapped.state_dict(), full_deck(env.unwrapped.rules))
        check_cards(case, env.unwrapped.state_dict(), full_deck(env.unwrapped.rules), " at the end")


def legal_masks(case: Case) -> None:
    """The acting seat's mask is ``int8``, of the action space's size and
    never empty while the game is on; in turn-based games every other seat's
    mask is empty; every action the mask allows steps cleanly (on a copy of
    the env: no error, every card still there once) and every one it leaves
    out is refused with ``IllegalActionError``, the state unchanged."""
    env = make_env(case)
    deck = full_deck(env.unwrapped.rules)
    for seed in case.seeds:
        for agent, obs in play(case, env, seed):
            mask = obs["action_mask"]
            case.expect(mask.dtype == np.int8, f"mask dtype {mask.dtype}, want int8")
            case.expect(mask.shape == (env.action_space(agent).n,), f"mask shape {mask.shape}")
            case.expect(mask.any(), f"{agent}'s action mask is empty while the game is on")
            if not case.spec.simultaneous:
                others = [a for a in env.agents if a != agent and env.observe(a)["action_mask"].any()]
                case.expect(not others, f"{others} have legal actions while {agent} is to act")
            for action in np.flatnonzero(mask):
                text = env.unwrapped.action_to_str(int(action))
                try:
                    sd = step_copy(env, int(action), case.spec.simultaneous).state_dict()
                except Exception as exc:  # noqa: BLE001 (any error: the mask allowed what the rules cannot play)
                    case.expect(False, f"{agent}'s mask allows {text!r}, which fails: {type(exc).__name__}: {exc}")
                check_cards(case, sd, deck, f" after {agent}'s allowed action {text!r} (is it legal?)")
            _refuses_the_rest(case, env, agent, mask)


def _refuses_the_rest(case: Case, env: Any, agent: str, mask: np.ndarray) -> None:
    """Every action ``mask`` leaves out raises ``IllegalActionError`` and
    changes nothing (the ``illegal_action="raise"`` default)."""
    before = json.dumps(env.unwrapped.state_dict())
    for action in np.flatnonzero(mask == 0):
        text = env.unwrapped.action_to_str(int(action))
        _refused(case, env.step, int(action), IllegalActionError, f"{agent}'s masked-out {text!r}")
    case.expect(json.dumps(env.unwrapped.state_dict()) == before, f"a masked-out action of {agent} changed the state")


def observation_spaces(case: Case) -> None:
    """Every agent's observation lies in its ``observation_space`` at every
    step, with the default dtype and ``obs_dtype="float32"`` (finite
    bounds); ``state()`` lies in ``state_space`` (games with a state layout)."""
    for dtype in (None, "float32"):
        env = make_env(case, obs_dtype=dtype) if dtype else make_env(case)
        for seed in case.seeds:
            for _ in play(case, env, seed):
                for agent in env.agents:
                    space, obs = env.observation_space(agent), env.observe(agent)
                    case.expect(
                        space.contains(obs), f"{agent}'s observation is outside its space ({dtype or 'default'})"
                    )
                if case.spec.state_layouts:
                    case.expect(env.state_space.contains(env.state()), "state() is outside state_space")
        if dtype:
            box = env.observation_space(env.possible_agents[0])["observation"]
            case.expect(np.isfinite(box.low).all() and np.isfinite(box.high).all(), "float32 bounds not finite")


def _illegal(mask: np.ndarray) -> int | None:
    wrong = np.flatnonzero(~np.asarray(mask, bool))
    return int(wrong[0]) if len(wrong) else None


def illegal_actions(case: Case) -> None:
    """``illegal_action="raise"``: an illegal action, an out-of-range id and a
    huge int raise ``IllegalActionError``, a float ``TypeError``, the state
    unchanged (AEC env and vector engine); ``"terminate"``: the game ends,
    the offender gets -1 and everyone else 0; ``"wait"`` (where the game
    takes it): the action is played as ``"wait"``.  Under both, an id out of
    range is still refused (``IllegalActionError``, the state unchanged)."""
    for seed in case.seeds:
        _raises(case, seed)
        _terminates(case, seed)
        _waits(case, seed)
        _vector_raises(case, seed)


def _refused(case: Case, step: Any, wrong: Any, errors: Any, what: str) -> None:
    """``step(wrong)`` raises one of ``errors``."""
    try:
        step(wrong)
    except errors:
        return
    case.expect(False, f"{what} did not raise {errors}")


def _acting_with_illegal(case: Case, env: object, seed: int) -> tuple[str, int] | None:
    """Random play until the seat to act has an illegal action: it and the action."""
    for agent, obs in play(case, env, seed):
        bad = _illegal(obs["action_mask"])
        if bad is not None:
            return agent, bad
    return None


def _raises(case: Case, seed: int) -> None:
    env = make_env(case)
    found = _acting_with_illegal(case, env, seed)
    if found is None:
        raise Skip(f"no illegal action in {case.steps} steps of seed {seed}")
    agent, bad = found
    before = json.dumps(env.unwrapped.state_dict())
    n = env.action_space(agent).n
    for wrong, error in ((bad, IllegalActionError), (n, IllegalActionError), (-1, IllegalActionError)):
        _refused(case, env.step, wrong, error, f"stepping {wrong} (illegal)")
        case.expect(json.dumps(env.unwrapped.state_dict()) == before, f"a refused action {wrong} changed the state")
    _refused(case, env.step, 2**70, IllegalActionError, "stepping 2**70")
    _refused(case, env.step, 1.0, TypeError, "stepping 1.0")
    case.expect(json.dumps(env.unwrapped.state_dict()) == before, "a refused action changed the state")


def _terminates(case: Case, seed: int) -> None:
    env = make_env(case, illegal_action="terminate")
    found = _acting_with_illegal(case, env, seed)
    if found is None:
        return
    agent, bad = found
    _out_of_range_refused(case, env, agent, "terminate")
    env.step(bad)
    while env.agents and not any(env.terminations.values()):  # (simultaneous: the others act, legally)
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    case.expect(
        all(env.terminations.values()), "an illegal action with illegal_action='terminate' did not end the game"
    )
    want = {a: (-1.0 if a == agent else 0.0) for a in env.possible_agents}
    got = {a: env.unwrapped._cumulative_rewards.get(a, 0.0) for a in env.possible_agents}
    case.expect(got == want, f"forfeit rewards {got}, want {want}")


def _out_of_range_refused(case: Case, env: Any, agent: str, policy: str) -> None:
    """Ids out of range are no actions of the game: refused under ``policy`` too, nothing changed."""
    before = json.dumps(env.unwrapped.state_dict())
    for wrong in (env.action_space(agent).n, -1, 2**70):
        _refused(case, env.step, wrong, IllegalActionError, f"stepping {wrong} (out of range) under {policy!r}")
    unchanged = json.dumps(env.unwrapped.state_dict()) == before
    case.expect(unchanged, f"an action out of range changed the state ({policy})")
    case.expect(not any(env.terminations.values()), f"an action out of range ended the game ({policy})")


def _waits(case: Case, seed: int) -> None:
    try:
        env = make_env(case, illegal_action="wait")
    except ValueError:
        return  # (the game has no "wait")
    found = _acting_with_illegal(case, env, seed)
    if found is None:
        return
    agent, bad = found
    _out_of_range_refused(case, env, agent, "wait")
    twin = copy.deepcopy(env)
    env.step(bad)
    twin.step(env.unwrapped.str_to_action("wait"))
    while env.agents and env.agent_selection != env.possible_agents[0]:  # (the rest of the tick, alike)
        action = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
        env.step(action)
        twin.step(action)
    case.expect(env.unwrapped.state_dict() == twin.unwrapped.state_dict(), "an illegal action was not played as 'wait'")


def _vector_raises(case: Case, seed: int) -> None:
    venv = make_vector(case, 4, seed)
    _, info = venv.reset()
    rng = np.random.default_rng(seed)
    for _ in range(case.steps):
        masks = info["action_mask"]
        actions = random_rows(rng, masks)
        rows = [i for i in range(4) if _illegal(masks[i].reshape(-1, masks.shape[-1])[0]) is not None]
        if rows:
            break
        info = venv.step(actions)[-1]
    else:
        return
    before = [json.dumps(venv.state_dict(i)) for i in range(4)]
    bad = actions.copy()
    bad.reshape(4, -1)[rows[0], 0] = _illegal(masks[rows[0]].reshape(-1, masks.shape[-1])[0])
    for wrong in (bad, actions[:3], np.full_like(actions, venv.num_actions), actions.astype(float)):
        _refused(case, venv.step, wrong, (ValueError, TypeError), f"the vector engine stepping {wrong.tolist()}")
    case.expect([json.dumps(venv.state_dict(i)) for i in range(4)] == before, "a refused vector step changed a game")
    venv.step(actions)
