"""The table pictures of the README (docs/images/table_<game>.png), drawn by
cardenvs.app from seeded random play:

    python tools/table_pictures.py
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cardenvs  # noqa: E402
from cardenvs import app  # noqa: E402

# (file name, game, config, seed, AEC steps played, viewpoint: None = spectator)
PICTURES = [
    ("pepper", "pepper_v0", {}, 3, 13, 0),
    ("cancellation_hearts", "cancellation_hearts_v0", {"num_players": 11}, 3, 60, None),
    ("push", "push_v0", {}, 3, 400, None),
    ("spit", "spit_v0", {}, 3, 200, None),
    ("speed", "spit_v0", {"variant": "speed"}, 3, 30, 1),
]


def position(game: str, config: dict, seed: int, steps: int) -> dict:
    env = cardenvs.make(game, **config)
    env.reset(seed=seed)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return env.unwrapped.state_dict()


def main() -> None:
    from PIL import Image

    out = ROOT / "docs" / "images"
    out.mkdir(parents=True, exist_ok=True)
    for name, game, config, seed, steps, viewpoint in PICTURES:
        path = out / f"table_{name}.png"
        Image.fromarray(app.rgb_array(position(game, config, seed, steps), viewpoint)).save(path, optimize=True)
        print(path.relative_to(ROOT))


if __name__ == "__main__":
    main()
