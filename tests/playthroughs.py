"""Golden playthroughs: one seeded game per file pins each game's behaviour.

Each file in ``tests/playthroughs/`` is a game played by a seeded random
policy through the public API only (the AEC env, or Spit's parallel env).
For every step it records the acting seat(s), the legal action texts, a hash
of the observation the seat decides on, the action text and the rewards; at
every deal it records the full ``state_dict()``.  ``tests/test_playthroughs.py``
replays each file through the AEC (parallel) env *and* the vector engine and
requires every line to match, so a change that is not meant to change play
must leave these files byte-for-byte unchanged.

A game may keep its playthroughs in its own folder instead,
``cardenvs/games/<folder>/playthroughs/<name>.txt`` (a new game does: see
docs/adding-a-game.md): they are found through the registry, and each
file's first line (``# <name>: <game> <config as JSON> seed <seed>``) says
how it is played.  To add one, write that line alone into the file and
record it.

Regenerate them (only when play is meant to change, and say what changed in
the commit) with::

    python tests/playthroughs.py            # every file
    python tests/playthroughs.py pepper_4p  # some of them
"""

from __future__ import annotations

import hashlib
import json
import pathlib
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

import cardenvs  # noqa: E402
import cardenvs.vector as V  # noqa: E402
from cardenvs import spit_v0  # noqa: E402
from cardenvs.registry import GAMES  # noqa: E402

FOLDER = ROOT / "playthroughs"

# name -> (game, config, seed).  Configs are kept short enough (max_hands,
# rounds) that a file stays small while covering every phase of play.
PLAYTHROUGHS: dict[str, tuple[str, dict[str, Any], int]] = {
    "pepper_2p": ("pepper_v0", {"num_players": 2, "max_hands": 6}, 1),
    "pepper_3p": ("pepper_v0", {"num_players": 3, "max_hands": 6}, 2),
    "pepper_4p": ("pepper_v0", {"num_players": 4, "max_hands": 8}, 3),
    "pepper_4p_redeal": (
        "pepper_v0",
        {"num_players": 4, "max_hands": 8, "all_pass": "redeal", "reward": "score_delta"},
        4,
    ),
    "cancellation_hearts_6p": ("cancellation_hearts_v0", {"num_players": 6, "max_hands": 3}, 5),
    "cancellation_hearts_11p": ("cancellation_hearts_v0", {"num_players": 11, "max_hands": 2}, 6),
    "cancellation_hearts_6p_no_passing": (
        "cancellation_hearts_v0",
        {"num_players": 6, "max_hands": 3, "passing": "none", "reward": "score_delta"},
        7,
    ),
    "push_all_rounds": ("push_v0", {"max_turns": 40}, 8),
    "push_round_3": ("push_v0", {"rounds": [3], "reward": "score_delta"}, 9),
    "spit_5_stockpiles": ("spit_v0", {}, 10),
    "spit_4_stockpiles": ("spit_v0", {"stockpiles": 4}, 11),
    "spit_alternate_colors": ("spit_v0", {"alternate_colors": True, "reward": "cards_shed"}, 12),
    "speed": ("spit_v0", {"variant": "speed"}, 13),
    "speed_target_score": ("spit_v0", {"variant": "speed", "target_score": 20, "speed_side_piles": 5}, 14),
}
#: The file of each playthrough kept in a game's folder (the others are in FOLDER).
IN_GAME_FOLDERS: dict[str, pathlib.Path] = {}
HEADER = re.compile(r"# (\w+): (\w+) (\{.*\}) seed (\d+)")


def _from_game_folders() -> None:
    """Add the playthroughs of every registered game's folder to PLAYTHROUGHS
    (read from each file's first line)."""
    for game in GAMES.values():
        for path in sorted((ROOT.parent / "cardenvs" / "games" / game.folder / "playthroughs").glob("*.txt")):
            first = path.read_text().partition("\n")[0]
            found = HEADER.fullmatch(first)
            if found is None or found[1] != path.stem or found[2] != game.name or found[1] in PLAYTHROUGHS:
                sys.exit(f"{path}: the first line must be '# {path.stem}: {game.name} {{config}} seed N' (a new name)")
            PLAYTHROUGHS[found[1]] = (found[2], json.loads(found[3]), int(found[4]))
            IN_GAME_FOLDERS[found[1]] = path


_from_game_folders()


def obs_hash(obs: np.ndarray) -> str:
    """A short hash of an observation's values (independent of its dtype)."""
    return hashlib.sha256(np.asarray(obs, np.int64).tobytes()).hexdigest()[:12]


def fmt_rewards(rewards: Any) -> str:
    return " ".join(f"{float(r):g}" for r in rewards)


def legal_texts(env: Any, mask: np.ndarray) -> str:
    return "|".join(env.unwrapped.action_to_str(int(a)) for a in np.flatnonzero(mask))


class Policy:
    """The seeded random policy of a playthrough: uniform over legal actions,
    except that Spit's ``wait`` is chosen only one time in five when another
    move is legal (so real-time games end in a few hundred ticks)."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed + 1000)

    def __call__(self, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) > 1 and legal[0] == 0 and self.rng.random() < 0.8:
            legal = legal[1:]
        return int(self.rng.choice(legal))


def _deal_line(state: dict) -> str:
    return "deal " + json.dumps(state, sort_keys=True, separators=(",", ":"))


def play_turn_based(game: str, config: dict, seed: int) -> Iterator[str]:
    """The lines of one game through the AEC env."""
    env = cardenvs.make(game, **config)
    env.reset(seed=seed)
    policy = Policy(seed)
    names = env.possible_agents
    hand_number = None
    step = 0
    while True:
        state = env.unwrapped.state_dict()
        if state["hand_number"] != hand_number:
            hand_number = state["hand_number"]
            yield _deal_line(state)
        agent = env.agent_selection
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        action = policy(obs["action_mask"])
        text = env.unwrapped.action_to_str(action)
        env.step(action)
        rewards = [env.rewards[a] for a in names]
        yield (
            f"{step} {agent} obs={obs_hash(obs['observation'])} legal={legal_texts(env, obs['action_mask'])}"
            f" -> {text} | rewards {fmt_rewards(rewards)}"
        )
        step += 1
    yield f"end scores {state['scores']} terminated {all(env.terminations.values())}"


def play_simultaneous(game: str, config: dict, seed: int) -> Iterator[str]:
    """The lines of one game through Spit's parallel env."""
    env = spit_v0.parallel_env(**config)
    observations, _ = env.reset(seed=seed)
    policy = Policy(seed)
    names = env.possible_agents
    hand_number = None
    tick = 0
    while env.agents:
        state = env.unwrapped.state_dict()
        if state["hand_number"] != hand_number:
            hand_number = state["hand_number"]
            yield _deal_line(state)
        actions = {a: policy(observations[a]["action_mask"]) for a in names}
        parts = [
            f"{a} obs={obs_hash(observations[a]['observation'])}"
            f" legal={legal_texts(env, observations[a]['action_mask'])}"
            f" -> {env.unwrapped.action_to_str(actions[a])}"
            for a in names
        ]
        observations, rewards, terms, truncs, _ = env.step(actions)
        ending = " terminated" if any(terms.values()) else " truncated" if any(truncs.values()) else ""
        yield f"{tick} " + " ; ".join(parts) + f" | rewards {fmt_rewards(rewards[a] for a in names)}{ending}"
        tick += 1
    yield f"end scores {env.unwrapped.state_dict()['scores']}"


def playthrough(name: str) -> list[str]:
    game, config, seed = PLAYTHROUGHS[name]
    head = [f"# {name}: {game} {json.dumps(config, sort_keys=True)} seed {seed}"]
    play: Callable[..., Iterator[str]] = play_simultaneous if game == "spit_v0" else play_turn_based
    return head + list(play(game, config, seed))


def path_of(name: str) -> pathlib.Path:
    return IN_GAME_FOLDERS.get(name, FOLDER / f"{name}.txt")


# --- the vector engine, replaying a recorded file -----------------------------
def parse_step(line: str) -> tuple[str, list[tuple[str, str, str, str]], str]:
    """(step number, [(agent, obs hash, legal, action text)], rewards and ending)."""
    head, _, tail = line.partition(" | ")
    number, _, body = head.partition(" ")
    seats = []
    for part in body.split(" ; "):
        agent, _, rest = part.partition(" obs=")
        digest, _, rest = rest.partition(" legal=")
        legal, _, action = rest.partition(" -> ")
        seats.append((agent, digest, legal, action))
    return number, seats, tail


def replay_in_vector_engine(name: str, lines: list[str]) -> None:
    """Replay the recorded actions of ``lines`` in a batch of one of the vector
    engine and assert that it shows the same seats, masks, observation hashes,
    rewards and deals."""
    game, config, seed = PLAYTHROUGHS[name]
    venv = V.make(game, num_envs=1, seed=seed, **config)
    obs, info = venv.reset()
    rules = venv.rules
    hand_number = None
    simultaneous = game == "spit_v0"
    for lineno, line in enumerate(lines[1:], start=2):
        where = f"{path_of(name).name}:{lineno}"
        if line.startswith("end "):
            return
        state = venv.state_dict(0)
        if state["hand_number"] != hand_number:
            hand_number = state["hand_number"]
            assert line == _deal_line(state), f"{where}: the vector engine dealt differently"
            continue
        number, seats, tail = parse_step(line)
        actions = []
        for k, (agent, digest, legal, action) in enumerate(seats):
            seat = int(agent.split("_")[1])
            mask = info["action_mask"][0][k] if simultaneous else info["action_mask"][0]
            view = obs[0][k] if simultaneous else obs[0]
            if not simultaneous:
                assert int(info["current_player"][0]) == seat, f"{where}: seat to act differs"
            assert obs_hash(view) == digest, f"{where}: observation of {agent} differs"
            got = "|".join(rules.action_to_str(int(a)) for a in np.flatnonzero(mask))
            assert got == legal, f"{where}: legal actions of {agent} differ"
            actions.append(rules.str_to_action(action))
        obs, rewards, term, trunc, info = venv.step(np.array([actions if simultaneous else actions[0]]))
        want = tail.split(" terminated")[0].split(" truncated")[0]
        assert f"rewards {fmt_rewards(rewards[0])}" == want, f"{where}: rewards differ"
        if term[0] or trunc[0]:
            rest = [x for x in lines[lineno:] if not x.startswith("deal ")]  # the AEC env's last state
            assert rest and rest[0].startswith("end "), f"{where}: the vector engine ended the game early"
            scores = [int(x) for x in info["final_scores"][0]]
            assert rest[0].startswith(f"end scores {scores}"), f"{where}: final scores differ"
            return
    raise AssertionError(f"{name}: the file ended without an 'end' line")


def check_recipe(name: str) -> None:
    """Exit with one line if the game refuses the playthrough's config (a
    recipe line copied from another game, e.g. by ``cardenvs new-game``,
    names options the game has not got any more)."""
    game, config, seed = PLAYTHROUGHS[name]
    try:
        cardenvs.make(game, **config)
    except (TypeError, ValueError) as refused:
        sys.exit(
            f"{path_of(name)}: {game} refuses the config of its first line, {json.dumps(config)} ({refused}): "
            f"edit that line, e.g. '# {name}: {game} {{}} seed {seed}' for the game's defaults, and record again"
        )


def write(names: list[str]) -> None:
    FOLDER.mkdir(exist_ok=True)
    for name in names:
        check_recipe(name)
        lines = playthrough(name)
        path_of(name).write_text("\n".join(lines) + "\n")
        print(f"{path_of(name).relative_to(ROOT.parent)}: {len(lines)} lines")


if __name__ == "__main__":
    wanted = sys.argv[1:] or list(PLAYTHROUGHS)
    unknown = sorted(set(wanted) - set(PLAYTHROUGHS))
    if unknown:
        sys.exit(f"unknown playthroughs {unknown}; known: {sorted(PLAYTHROUGHS)}")
    write(wanted)
