"""Search agents (PIMC, and ``best`` / ``scratch`` where they search) in
``cardenvs play``, ``cardenvs serve`` and recorded games: whole games to the
end, the env's game never changed by the search, the tracker of what the
seats saw following every action (the human's too), clear refusals."""

from __future__ import annotations

import io
import json
import threading
import urllib.request

import numpy as np
import pytest

from cardenvs.app.agents import SearchPlayer, attach, load_agent, parse_agent_option
from cardenvs.app.play import play
from cardenvs.app.replay import record_game, recording_env
from cardenvs.app.serve import make_server

PIMC = "pimc:worlds=2"
SHORT = {  # one hand / one round: a whole game in seconds
    "pepper_v0": {"num_players": 2, "max_hands": 1},
    "cancellation_hearts_v0": {"num_players": 6, "max_hands": 1},
    "push_v0": {"rounds": [1]},
}


@pytest.mark.parametrize("game", list(SHORT))
def test_play_a_whole_game_against_a_search(game, tmp_path):
    out = io.StringIO()
    path = tmp_path / "game.json"
    code = play(game, 0, PIMC, 5, SHORT[game], inp=io.StringIO("1\n" * 2000), out=out, replay_path=str(path))
    assert code == 0, out.getvalue()[-2000:]
    assert "final scores" in out.getvalue()
    replay = json.loads(path.read_text())
    assert replay["players"][1] == PIMC and len(replay["actions"]) > 10


@pytest.mark.parametrize("game", list(SHORT))
def test_a_recorded_game_with_a_search_replays_to_the_same_end(game):
    """The search reads the env's state but never changes it: the recorded
    actions, played again on a fresh env, end in the same state."""
    seats = len(recording_env(game, **SHORT[game]).possible_agents)
    agents = [PIMC, *["random"] * (seats - 1)]
    replay = record_game(game, agents, seed=11, config=SHORT[game])
    again = recording_env(game, **SHORT[game])
    again.reset(seed=11)
    for text in replay.actions:
        again.step(again.unwrapped.str_to_action(text))
    assert again.unwrapped.state_dict() == replay.states()[-1]
    assert replay.states()[-1]["done"]


def test_the_tracker_follows_every_action_and_a_game_moved_behind_its_back_is_refused():
    game, config = "cancellation_hearts_v0", SHORT["cancellation_hearts_v0"]
    player = load_agent(game, PIMC, 3, config)
    assert isinstance(player, SearchPlayer)
    env = recording_env(game, **config)
    env.reset(seed=4)
    attach([player], env)
    u = env.unwrapped
    rng = np.random.default_rng(0)
    for _ in range(30):  # every seat's move goes through the env (as a human's does): the player follows
        obs = env.observe(env.agent_selection)
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(player.act(obs["observation"], obs["action_mask"]) if rng.random() < 0.5 else rng.choice(legal)))
    obs = env.observe(env.agent_selection)
    player.act(obs["observation"], obs["action_mask"])  # (it catches up on the moves made since its last)
    assert player.seen == 30 and int(player.tracker.played.sum()) > 0
    # a step that bypasses the recording (nothing recorded): the search says so rather than search a wrong world
    state = u.game_state()
    u.rules.step(state, np.array([int(np.flatnonzero(state.legal[0])[0])]))
    obs = env.observe(env.agent_selection)
    with pytest.raises(RuntimeError, match="recorded actions do not explain"):
        player.act(obs["observation"], obs["action_mask"])


def test_clear_refusals():
    with pytest.raises(ValueError, match="PIMC plays"):
        load_agent("spit_v0", PIMC)
    with pytest.raises(ValueError, match="options are"):
        load_agent("pepper_v0", "pimc:wolrds=2")
    player = load_agent("pepper_v0", PIMC, 0, {"num_players": 2})
    with pytest.raises(RuntimeError, match="attach it to the env"):
        player.act(np.zeros(10), np.ones(10, bool))
    for spec, words in [("pimc:worlds=1000", "worlds must be 1..256"), ("pimc:budget=60", "budget must be"),
                        ("pimc:nope=1", "options are")]:  # fmt: skip
        with pytest.raises(ValueError, match=words):
            parse_agent_option(f"deep={spec}")
    assert parse_agent_option("deep=pimc:worlds=32,rollout=rule") == ("deep", "pimc:worlds=32,rollout=rule")
    assert parse_agent_option("strong=best") == ("strong", "best")


def test_serve_a_whole_game_against_a_named_search():
    srv = make_server("127.0.0.1", 0, tick=0, agents={"deep": PIMC})
    threading.Thread(target=srv.serve_forever, daemon=True).start()

    def call(path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            srv.url.rstrip("/") + path, data=data, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read())

    try:
        s = call("/api/new", {"game": "cancellation_hearts_v0", "seat": 2, "seed": 3, "vs": "deep",
                              "config": SHORT["cancellation_hearts_v0"]})  # fmt: skip
        sid = s["session"]
        searchers = list(srv.sessions[sid].agents.values())
        assert all(isinstance(a, SearchPlayer) for a in searchers) and len({id(a) for a in searchers}) == 5
        while not s["done"]:
            s = call("/api/move", {"session": sid, "action": s["legal"][0]["id"]})
        assert s["result"]["winners"] and call(f"/api/replay?session={sid}")["players"][2] == "human"
    finally:
        srv.shutdown()
        srv.server_close()
