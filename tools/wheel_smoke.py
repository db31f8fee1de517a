"""Smoke test of an installed (not editable) cardenvs, run from a folder
outside the repository by ``tools/wheel_smoke.sh``: every game through
``cardenvs.make`` and ``cardenvs.vector.make``, the rule and baseline agents,
one short evaluation and the command line's ``--help``.  Exits non-zero on
the first failure."""

from __future__ import annotations

import importlib
import os
import pathlib
import subprocess
import sys

import numpy as np

import cardenvs
import cardenvs.vector as V
from cardenvs.agents.registry import make_agent
from cardenvs.evaluation.matches import match
from cardenvs.registry import spec


def main() -> None:
    here = pathlib.Path(cardenvs.__file__).resolve()
    assert "site-packages" in str(here), f"not an installed package: {here}"
    if os.environ.get("CARDENVS_EXPECT_READONLY"):
        try:
            (here.parent / "probe").write_text("")
        except OSError:
            print(f"{here.parent} is read-only")
        else:
            raise AssertionError("the installed package was meant to be read-only")
    assert not (here.parents[1] / "agents").exists(), "a top-level 'agents' package was installed"
    for game in cardenvs.GAMES:
        env = cardenvs.make(game)
        env.reset(seed=0)
        venv = V.make(game, 8, seed=0)
        obs, info = venv.reset()
        rng = np.random.default_rng(0)
        for _ in range(20):
            mask = info["action_mask"]
            obs, _, _, _, info = venv.step((rng.random(mask.shape) * mask).argmax(-1))
        names = ["rule"] + (["ppo"] if spec(game).baseline else [])  # (a game may have no baseline)
        agents = [make_agent(game, name).name for name in names]
        print(f"{game}: env, vector engine, {' and '.join(agents)} agents ok")
    result = match("pepper_v0", make_agent("pepper_v0", "ppo"), make_agent("pepper_v0", "random"), 4, seed=1)
    print(result)
    for command in ([], ["play"], ["serve"], ["replay"], ["eval"], ["bench"], ["train"]):
        argv = [sys.executable, "-m", "cardenvs.app.cli", *command, "--help"]
        done = subprocess.run(argv, capture_output=True, text=True)
        assert done.returncode == 0, (command, done.stderr)
    # the application's and the vector view's packages are in the wheel, the old paths alias them,
    # and the console script runs the command line
    app_serve, old_serve = (importlib.import_module(f"cardenvs.{p}.serve") for p in ("app", "table"))
    assert (
        old_serve is app_serve and V.SeatRewards is importlib.import_module("cardenvs.vector.seat_rewards").SeatRewards
    )
    for argv in (
        [str(pathlib.Path(sys.executable).with_name("cardenvs")), "--help"],
        [sys.executable, "-m", "cardenvs.cli", "--help"],
    ):
        done = subprocess.run(argv, capture_output=True, text=True)
        assert done.returncode == 0 and done.stdout.startswith("usage: cardenvs"), (argv, done.stderr)
    print("cardenvs.app, cardenvs.vector, the `cardenvs` script and the old paths ok")
    cache = pathlib.Path(os.environ.get("HOME", "~")).expanduser() / ".cache" / "numba"
    print(f"numba cache beside the code: none (read-only); in the user's cache: {cache.exists()}")
    print("wheel smoke test: 0 failed")


if __name__ == "__main__":
    main()
