"""render_mode="rgb_array" on every env, and Gymnasium's RecordVideo
recording an episode of every game (PettingZoo's render_test runs with every
render mode in tests/test_pettingzoo.py and the games' own env tests)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import cardenvs
from cardenvs import spit_v0

SHORT = [
    ("pepper_v0", {"max_hands": 1}),
    ("cancellation_hearts_v0", {"num_players": 6, "max_hands": 1, "passing": "none"}),
    ("push_v0", {"rounds": [1], "max_turns": 12}),
    ("spit_v0", {"max_ticks": 30}),
    ("spit_v0", {"variant": "speed", "max_ticks": 30}),
]


class TableEnv(gym.Env):
    """A whole PettingZoo game as a Gymnasium env (every seat plays the
    action given; the legal ones are in ``info["action_mask"]``), so that
    Gymnasium's recording wrappers can film it."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(self, game: str, **config):
        self.game = cardenvs.make(game, render_mode="rgb_array", **config)
        self.render_mode = "rgb_array"
        self.action_space = self.game.action_space(self.game.possible_agents[0])
        self.observation_space = gym.spaces.Discrete(1)

    def _info(self):
        obs, *_ = self.game.last()
        return {"action_mask": obs["action_mask"]}

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.game.reset(seed=seed)
        return 0, self._info()

    def step(self, action):
        self.game.step(int(action))
        _, _, term, trunc, _ = self.game.last()
        return 0, 0.0, bool(term), bool(trunc), self._info()

    def render(self):
        return self.game.render()


def run_episode(env, seed=0, limit=2000):
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    for _ in range(limit):
        action = rng.choice(np.flatnonzero(info["action_mask"]))
        _, _, term, trunc, info = env.step(action)
        if term or trunc:
            return True
    return False


class RenderFrames(gym.Wrapper):
    """The frame after every reset and step (as Gymnasium's RenderCollection)."""

    def __init__(self, env):
        super().__init__(env)
        self.frames = []

    def reset(self, **kw):
        out = self.env.reset(**kw)
        self.frames.append(self.env.render())
        return out

    def step(self, action):
        out = self.env.step(action)
        self.frames.append(self.env.render())
        return out


def filmed(game, config, folder):
    """An env filming its episodes with Gymnasium's RecordVideo (which keeps
    a copy of each frame here), or only collecting frames without moviepy."""
    try:
        import moviepy  # noqa: F401 - RecordVideo writes with it
    except ImportError:
        return RenderFrames(TableEnv(game, **config))
    from gymnasium.wrappers import RecordVideo

    class Recorder(RecordVideo):
        frames: list = []

        def _capture_frame(self):
            super()._capture_frame()
            self.frames.append(self.recorded_frames[-1])

    env = Recorder(TableEnv(game, **config), str(folder / "video"), episode_trigger=lambda e: True, disable_logger=True)
    env.frames = []
    return env


@pytest.mark.parametrize("game,config", SHORT, ids=[g + str(c) for g, c in SHORT])
def test_record_video_films_an_episode_of_every_game(game, config, tmp_path):
    raw = cardenvs.make(game, render_mode="rgb_array", **config)
    assert "rgb_array" in raw.metadata["render_modes"]
    before = raw.unwrapped.render()  # before reset: an empty table (the wrapper would refuse)
    assert before.dtype == np.uint8 and before.ndim == 3
    env = filmed(game, config, tmp_path)
    assert run_episode(env)
    env.close()
    frames = env.frames
    assert len(frames) > 10
    shapes = {f.shape for f in frames}
    assert len(shapes) == 1 and next(iter(shapes))[2] == 3 and frames[0].dtype == np.uint8
    # the table changes over the episode
    assert len({f.tobytes() for f in frames[:: max(1, len(frames) // 8)]}) > 2
    if isinstance(env, RenderFrames):
        pytest.skip("frames checked; no video: gymnasium's RecordVideo needs moviepy (pip install -e '.[dev]')")
    videos = list((tmp_path / "video").glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000, videos


def test_spit_parallel_env_renders_rgb_frames():
    env = spit_v0.parallel_env(render_mode="rgb_array")
    env.reset(seed=1)
    frame = env.render()
    assert frame.shape == (640, 980, 3) and frame.dtype == np.uint8
