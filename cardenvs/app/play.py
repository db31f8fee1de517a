"""Play a game in the terminal against the agents (``cardenvs play``).

The table is printed as text from the human's seat (the others' hands as
``##``), the legal moves are listed by their texts, and a move is typed as
its number or its text; ``q`` quits.  Input is read line by line, so a game
can be scripted through stdin.  Spit and Speed are played tick by tick (one
action each per tick, ``wait`` included): a terminal cannot do real time.

A game without a seed draws one (:func:`.replay.draw_seed`) and prints it,
so the game can be played again and its replay re-plays.
"""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

from cardenvs.registry import GAMES, spec

from . import games, text
from .agents import act, attach, load_agent
from .replay import draw_seed, recording_env, recording_parallel_env

ALIASES = {"hearts": "cancellation_hearts_v0", "speed": "spit_v0"}


def resolve_game(name: str) -> tuple[str, dict[str, Any]]:
    """A game name as typed (``pepper``, ``pepper_v0``, ``hearts``,
    ``speed`` …) -> (registry name, config it implies)."""
    extra: dict[str, Any] = {"variant": "speed"} if name == "speed" else {}
    name = ALIASES.get(name, name)
    if name not in GAMES and f"{name}_v0" in GAMES:
        name = f"{name}_v0"
    spec(name)  # ValueError naming the games
    return name, extra


class QuitError(Exception):
    pass


def choose(legal: list[str], inp: TextIO, out: TextIO) -> str:
    """Ask for one of ``legal`` (a number from 1 or a text) until one is given."""
    while True:
        out.write("your move (number or text, q to quit): ")
        out.flush()
        line = inp.readline()
        if not line:
            out.write("\n(input ended)\n")
            raise QuitError
        if not (hasattr(inp, "isatty") and inp.isatty()):  # scripted: echo the line, as a terminal would
            out.write(line.rstrip("\n") + "\n")
        line = " ".join(line.split())
        if line.lower() in ("q", "quit", "exit"):
            raise QuitError
        if line.isdigit() and 1 <= int(line) <= len(legal):
            return legal[int(line) - 1]
        for t in legal:
            if t.lower() == line.lower():
                return t
        out.write(f"not a legal move: {line!r}; type a number 1-{len(legal)} or one of the texts listed\n")


def list_moves(legal: list[str], out: TextIO) -> None:
    width = max(len(t) for t in legal) + 6
    per_line = max(1, 100 // width)
    for i in range(0, len(legal), per_line):
        out.write("".join(f"{j + 1:>3}) {legal[j]:<{width - 5}}" for j in range(i, min(i + per_line, len(legal)))))
        out.write("\n")


def play(
    game: str,
    seat: int = 0,
    vs: str = "random",
    seed: int | None = None,
    config: dict[str, Any] | None = None,
    inp: TextIO | None = None,
    out: TextIO | None = None,
    replay_path: str | None = None,
) -> int:
    """Play one game; returns 0 when it was played to the end, 1 when quit.
    ``seed`` None draws one (printed, and recorded in the replay)."""
    inp = inp or sys.stdin
    out = out or sys.stdout
    if replay_path and not os.path.isdir(os.path.dirname(os.path.abspath(replay_path))):
        raise ValueError(f"cannot save the replay to {replay_path}: its folder does not exist")
    name, extra = resolve_game(game)
    config = {**extra, **(config or {})}
    simultaneous = spec(name).simultaneous
    env = recording_parallel_env(name, **config) if simultaneous else recording_env(name, **config)
    n = len(env.possible_agents)
    if not 0 <= seat < n:
        raise ValueError(f"--seat must be 0..{n - 1} for {name} with this config, got {seat}")
    seed = draw_seed() if seed is None else seed
    others = {s: load_agent(name, vs, seed + 1 + s, config) for s in range(n) if s != seat}
    out.write(f"{name} (seed {seed}): you are player_{seat}; the others are {vs}. Moves by number or text, q quits.\n")
    try:
        if simultaneous:
            _play_ticks(env, seat, others, seed, inp, out)
        else:
            _play_turns(env, name, seat, others, seed, inp, out)
    except QuitError:
        out.write("quit.\n")
        return 1
    finally:
        if replay_path:
            env.replay.players = [("you" if s == seat else vs) for s in range(n)]
            env.replay.save(replay_path)
            out.write(f"replay saved to {replay_path} (view it: cardenvs replay view {replay_path})\n")
    state = env.unwrapped.state_dict()
    out.write("\n" + text(state, None) + "\n")
    winners = state.get("winners") or ([state["winner"]] if state.get("winner") is not None else [])
    out.write(f"final scores: {state.get('scores')}\n")
    if winners:
        out.write(("you win!" if seat in winners else "you lose.") + f" winners: {winners}\n")
    else:
        out.write("a draw.\n")
    out.flush()
    return 0


def _play_turns(env, name: str, seat: int, others: dict, seed, inp: TextIO, out: TextIO) -> None:
    u = env.unwrapped
    env.reset(seed=seed)
    attach(others, env)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        s = env.possible_agents.index(agent)
        if s == seat:
            out.write("\n" + text(u.state_dict(), seat) + "\n")
            legal = [u.action_to_str(int(a)) for a in obs["action_mask"].nonzero()[0]]
            out.write("legal moves:\n")
            list_moves(legal, out)
            move = choose(legal, inp, out)
            out.write(f"you (player_{seat}): {move}\n")
            env.step(u.str_to_action(move))
        else:
            a = act(others[s], obs["observation"], obs["action_mask"])
            t = u.action_to_str(a)
            shown = "(a card, face down)" if games.private_action(name, t) else t
            out.write(f"player_{s}: {shown}\n")
            env.step(a)


def _play_ticks(env, seat: int, others: dict, seed, inp: TextIO, out: TextIO) -> None:
    u = env.unwrapped
    obs, _ = env.reset(seed=seed)
    attach(others, env)
    while env.agents:
        me = env.possible_agents[seat]
        out.write("\n" + text(u.state_dict(), seat) + "\n")
        legal = [u.action_to_str(int(a)) for a in obs[me]["action_mask"].nonzero()[0]]
        out.write("legal moves this tick:\n")
        list_moves(legal, out)
        move = choose(legal, inp, out)
        out.write(f"you (player_{seat}): {move}\n")
        actions = {me: u.str_to_action(move)}
        for s, agent in others.items():
            a = env.possible_agents[s]
            actions[a] = act(agent, obs[a]["observation"], obs[a]["action_mask"])
            out.write(f"player_{s}: {u.action_to_str(actions[a])}\n")
        obs, *_ = env.step(actions)
