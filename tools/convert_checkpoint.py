"""Convert SB3 zips (``MaskablePPO.save``) into cardenvs policy files: the
policy's weights as ``.npy`` arrays and its description in JSON, which load
without unpickling anything (see ``cardenvs/agents/checkpoint.py``).

    python tools/convert_checkpoint.py agents/checkpoints/*_ppo.zip   # writes *_ppo.npz beside each
    python tools/convert_checkpoint.py runs/pepper/final_model.zip -o pepper.npz

The zip is read without unpickling it too (its pickled fields are rebuilt
from SB3's readable description of them), so converting a file runs no code
from it.  ``--check GAME`` then compares the policy file with the zip as SB3
itself loads it (``MaskablePPO.load``, which DOES unpickle the zip: use it on
your own files only): the same weights, bit for bit, and the same actions on
``--rows`` observations of GAME met in games between the rule agent and a
random one (each with the advice the policy's teacher gives there).
It also writes the policy file again with the zip's exact observation
bounds (which SB3 describes in a shortened repr).  ``--fixture FILE``
records those observations and actions (what ``tests/test_checkpoints.py``
replays against the committed baselines).
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def convert(zip_path: pathlib.Path, out: pathlib.Path | None = None, spaces=None) -> pathlib.Path:
    """The policy file of the SB3 zip ``zip_path`` (default: beside it,
    ``.npz``).  A space's bounds are known from the zip only when uniform
    (SB3 describes them in a shortened repr), else written as infinite; the
    bounds do not change what the policy plays, and ``spaces`` (observation,
    action) gives the exact ones."""
    from cardenvs.agents.policy import load_policy, save_policy

    model = load_policy(zip_path)
    if spaces is not None:
        assert spaces[0].shape == model.observation_space.shape and spaces[1] == model.action_space, zip_path
        model.observation_space, model.action_space = spaces
    return save_policy(model, out or zip_path.with_suffix(".npz"))


class _Recorder:
    """Plays as ``inner`` and keeps about ``share`` of the rows it is asked
    about that have a legal action (observation, mask)."""

    def __init__(self, inner, share: float, rng: np.random.Generator, kept: list):
        self.inner, self.share, self.rng, self.kept, self.name = inner, share, rng, kept, inner.name

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        keep = np.flatnonzero(mask.any(axis=1) & (self.rng.random(len(mask)) < self.share))
        if len(keep):
            self.kept.append((np.array(obs[keep]), np.array(mask[keep], bool)))
        return self.inner.act_batch(obs, mask)


def observations(game: str, model, rows: int, seed: int = 0) -> dict[str, np.ndarray]:
    """``rows`` observations of ``game`` (rule agent against random, default
    options), their masks and the advice for ``model`` (-1: none)."""
    from cardenvs.agents.advice import advice_size, advisor_options
    from cardenvs.agents.base import RandomAgent
    from cardenvs.agents.registry import rule_agent
    from cardenvs.evaluation.matches import play_games
    from cardenvs.registry import rules_class

    rng = np.random.default_rng(seed)
    kept: list = []
    players = int(getattr(rules_class(game)(), "num_players", 2))
    seats = [
        _Recorder(rule_agent(game) if s % 2 == 0 else RandomAgent(seed + s), 0.05, rng, kept) for s in range(players)
    ]
    games = 8
    while sum(len(o) for o, _ in kept) < rows:
        play_games(game, seats, games, seed=seed + games, num_envs=games)
        games *= 2
    obs = np.concatenate([o for o, _ in kept])[:rows]
    mask = np.concatenate([m for _, m in kept])[:rows]
    width = model.observation_space.shape[-1] - advice_size(model)
    obs = obs[:, :width].astype(np.int16)
    if not advice_size(model):
        return {"obs": obs, "mask": mask, "advice": np.full(rows, -1, np.int16)}
    # each observation three times: with its teacher's advice (as played), with a random legal action
    # as the advice and with none (there the policy's own preferences decide: actions unlike the advice)
    teacher = rule_agent(game, **advisor_options(model)).act_batch(obs, mask)
    other = (rng.random(mask.shape) * mask).argmax(axis=1)
    advice = np.concatenate([teacher, other, np.full(rows, -1)]).astype(np.int16)
    return {"obs": np.concatenate([obs] * 3), "mask": np.concatenate([mask] * 3), "advice": advice}


def policy_input(case: dict[str, np.ndarray], advice_size: int) -> np.ndarray:
    """The policy's input for recorded observations: each observation, then
    the one-hot of its advice (``advice_size`` columns; 0: none; advice -1:
    all zeros)."""
    x = case["obs"].astype(np.float32)
    if not advice_size:
        return x
    onehot = np.zeros((len(x), advice_size), np.float32)
    rows = np.flatnonzero(case["advice"] >= 0)
    onehot[rows, case["advice"][rows]] = 1.0
    return np.concatenate([x, onehot], axis=1)


def check(game: str, zip_path: pathlib.Path, policy_path: pathlib.Path, rows: int) -> dict[str, np.ndarray]:
    """Compare the policy file with SB3's own load of the zip (see the module
    doc: this unpickles the zip); returns the recorded observations and actions."""
    import torch
    from sb3_contrib import MaskablePPO

    from cardenvs.agents.advice import advice_size
    from cardenvs.agents.policy import load_policy

    reference = MaskablePPO.load(zip_path, device="cpu")  # (unpickles: your own files only)
    convert(zip_path, policy_path, (reference.observation_space, reference.action_space))  # the exact bounds
    safe = load_policy(policy_path)
    assert safe.observation_space == reference.observation_space, f"{policy_path}: another observation space"
    ours, theirs = safe.policy.state_dict(), reference.policy.state_dict()
    assert ours.keys() == theirs.keys(), f"{policy_path}: other weights than {zip_path}"
    assert all(torch.equal(ours[k], theirs[k]) for k in ours), f"{policy_path}: weights differ from {zip_path}"
    case = observations(game, safe, rows)
    x = policy_input(case, advice_size(safe))
    want, _ = reference.predict(x, action_masks=case["mask"], deterministic=True)
    got, _ = safe.predict(x, action_masks=case["mask"], deterministic=True)
    assert (np.asarray(want) == np.asarray(got)).all(), f"{policy_path}: other actions than {zip_path}"
    print(f"{policy_path}: the weights and actions of {zip_path} on {len(x)} inputs ({rows} observations of {game})")
    return {**case, "actions": np.asarray(want, np.int16)}


def _game_of(path: pathlib.Path) -> str | None:
    from cardenvs.registry import GAMES

    stems = {pathlib.Path(g.baseline).stem: name for name, g in GAMES.items() if g.baseline}
    return stems.get(path.stem)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("zips", nargs="+", type=pathlib.Path, help="SB3 zips (MaskablePPO.save)")
    p.add_argument("-o", "--output", type=pathlib.Path, help="the policy file (one zip only; default: beside it)")
    p.add_argument("--check", nargs="?", const="auto", metavar="GAME", help="compare with SB3's load (unpickles!)")
    p.add_argument("--rows", type=int, default=512, help="observations compared by --check (default 512)")
    p.add_argument("--fixture", type=pathlib.Path, help="with --check: save the observations and actions here")
    args = p.parse_args()
    if args.output and len(args.zips) > 1:
        p.error("--output takes one zip")
    for zip_path in args.zips:
        out = convert(zip_path, args.output)
        print(f"{zip_path} ({zip_path.stat().st_size / 1e6:.2f} MB) -> {out} ({out.stat().st_size / 1e6:.2f} MB)")
        if args.check:
            game = _game_of(out) if args.check == "auto" else args.check
            if game is None:
                p.error(f"--check: which game is {zip_path} for? (--check GAME)")
            case = check(game, zip_path, out, args.rows)
            if args.fixture:
                target = args.fixture if len(args.zips) == 1 else args.fixture / f"{out.stem}.npz"
                target.parent.mkdir(parents=True, exist_ok=True)
                np.savez_compressed(target, **case)
                print(f"  recorded in {target} ({target.stat().st_size / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
