"""Deep Monte-Carlo self-play (as DouZero) on a cardenvs game, in one file.

Every seat of every game is played by one Q-network, learned from scratch
(no rule advice, no teacher).  The network reads the seat's observation
(squashed by ``symlog``, as every cardenvs learner) and gives one value per
action; the policy is epsilon-greedy over the legal actions (greedy when it
is rated).  Each decision's target is its seat's **Monte-Carlo return**:
everything that seat earns from that decision to the end of the game
(:class:`cardenvs.vector.SeatRewards` carries each reward to the decision
that earned it; Spit pays both seats on every step).  No bootstrapping, no
critic, no policy gradient: the value of a bid is fitted to what bids like it
went on to score, however rarely the policy makes them, which is what
policy-gradient self-play failed to learn (docs/training-from-scratch.md,
"Why learning stopped").

By default the learner plays every seat (self-play).  ``--opponents``
takes ``selfplay_ppo.py``'s population (``pool=0.3,rule=0.4,random=0.1``):
in those shares of the games one side is the learner and the other sides
are its past snapshots (greedy), the rule agent (an opponent, never a
teacher) or random play, whose decisions are never recorded.
With ``--discount`` d below 1, a reward earned k of the seat's own
decisions later counts d**k in a decision's target (1: the whole
Monte-Carlo return).

The saved policy is the Q-network in the learners' policy format
(:mod:`cardenvs.agents.mlp`): ``MLPAgent`` plays its argmax over the legal
actions, so ``mlp:PATH`` rates it in the arena.

    python examples/dmc.py --game pepper_v0 --cpu-minutes 30 --seed 1 --run-dir runs/dmc_pepper

The budget is CPU time (``--cpu-minutes``; this process and its children,
as ``selfplay_ppo.py`` counts it), printed with the seed at the start.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import sys
import time
from typing import Any

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]
if (ROOT / "cardenvs").is_dir():  # the checkout this example is in, rather than another installed copy
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from selfplay_ppo import GAME_DEFAULTS, CpuClock, Opponents, parse_opponents  # noqa: E402

import cardenvs.vector as V  # noqa: E402
from cardenvs.agents.mlp import build_mlp, save_policy, symlog  # noqa: E402
from cardenvs.app.arguments import MAX_SEED, json_object, number, whole  # noqa: E402

#: the games' training options for DMC: the learners' short games (selfplay_ppo's defaults)
DMC_DEFAULTS: dict[str, dict[str, Any]] = {**GAME_DEFAULTS}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="pepper_v0", choices=sorted(DMC_DEFAULTS))
    p.add_argument(
        "--config", type=json_object, default={}, help="game options as JSON, merged over the game's defaults"
    )
    p.add_argument("--num-envs", type=whole(1, 2**20), default=256, help="games played at once")
    p.add_argument(
        "--cpu-minutes", type=number(above=0), default=None, help="stop when training has used this much CPU"
    )
    p.add_argument(
        "--total-steps", type=whole(1, 10**15), default=None, help="stop after this many engine steps x games"
    )
    p.add_argument("--snapshot-every", type=number(above=0), default=None, help="save the policy every S CPU-seconds")
    p.add_argument(
        "--snapshot-every-steps",
        type=whole(1, 10**15),
        default=None,
        help="save the policy every N engine steps x games",
    )
    p.add_argument("--run-dir", default=None, help="where snapshots and run.json go (a new or empty directory)")
    p.add_argument("--seed", type=whole(0, MAX_SEED), default=1)
    p.add_argument(
        "--epsilon", type=number(low=0, high=1), default=0.05, help="share of decisions taken uniformly at random"
    )
    p.add_argument("--lr", type=number(above=0), default=3e-4)
    p.add_argument("--hidden", type=whole(1, 65536), default=256)
    p.add_argument("--batch-size", type=whole(1, 10**7), default=2048)
    p.add_argument(
        "--replay", type=whole(1, 10**8), default=200_000, help="the most recent decisions kept to learn from"
    )
    p.add_argument("--updates-per-step", type=number(above=0), default=0.1, help="gradient steps per engine step")
    p.add_argument("--reward-scale", type=number(above=0), default=0.1)
    p.add_argument(
        "--discount",
        type=number(above=0, high=1),
        default=1.0,
        help="weight of a reward per later decision of the same seat (1: the whole Monte-Carlo return)",
    )
    p.add_argument(
        "--reward",
        default="zero_sum",
        choices=("zero_sum", "own"),
        help="what a seat is paid: 'own' (the game's reward for its side) or 'zero_sum' (that minus the mean "
        "of the other sides': setting an opponent's contract is worth as much as making one's own)",
    )
    p.add_argument(
        "--opponents",
        default="self",
        help="who plays against the learner: 'self' (every seat is the learner), or a mix such as "
        "'pool=0.3,rule=0.4,random=0.1' (the share of games in which one side of the learner faces past snapshots "
        "of itself, greedy ('pool'), the rule agent ('rule': an opponent, never a teacher) or random legal play)",
    )
    p.add_argument(
        "--pool-every-steps",
        type=whole(1, 10**15),
        default=40_960,
        help="engine steps x games between the snapshots kept for 'pool'",
    )
    p.add_argument("--pool-size", type=whole(1, 10**4), default=10, help="the most recent snapshots kept for 'pool'")
    p.add_argument("--torch-threads", type=whole(1, 1024), default=1)
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    args.opponent_mix = parse_opponents(p, args.opponents)
    args.config = {**DMC_DEFAULTS[args.game], **args.config}
    try:
        V.make(args.game, 1, **args.config).close()  # (the options checked: nothing is trained with bad ones)
    except (ValueError, TypeError, OverflowError) as e:
        p.error(f"--config: {e}")
    if args.cpu_minutes is None and args.total_steps is None:
        args.total_steps = 200_000
    if (args.snapshot_every is not None or args.snapshot_every_steps is not None) and args.run_dir is None:
        p.error("--snapshot-every and --snapshot-every-steps need --run-dir")
    if args.run_dir is not None and pathlib.Path(args.run_dir).exists() and not pathlib.Path(args.run_dir).is_dir():
        p.error(f"--run-dir {args.run_dir} is a file, not a directory")
    if args.run_dir is not None and (pathlib.Path(args.run_dir) / "run.json").exists():
        p.error(f"--run-dir {args.run_dir} already holds a run: choose a new directory")
    return args


class ZeroSum:
    """The engine with each seat's reward less the mean reward of the seats
    on other sides (partners share a side): what a seat gains on the others."""

    def __init__(self, venv: Any, game: str, config: dict):
        from cardenvs.agents.sides import margin_matrix
        from cardenvs.registry import rules_class

        self.venv = venv
        rules = rules_class(game)(**{k: v for k, v in config.items() if k not in ("illegal_action", "obs_dtype")})
        self.matrix = margin_matrix(rules)  # rewards @ matrix.T

    def __getattr__(self, name: str) -> Any:
        return getattr(self.venv, name)

    def reset(self, *args: Any, **kwargs: Any) -> Any:
        return self.venv.reset(*args, **kwargs)

    def step(self, actions: Any, **kwargs: Any) -> Any:
        obs, rewards, term, trunc, info = self.venv.step(actions, **kwargs)
        return obs, (rewards @ self.matrix.T).astype(rewards.dtype), term, trunc, info


class Greedy(torch.nn.Module):
    """A Q-network as logits that sampling turns into its argmax: the values
    stretched so far apart that any other legal action has no chance."""

    STRETCH = 1e6

    def __init__(self, q: torch.nn.Module):
        super().__init__()
        self.q = q

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (bounded well above the -1e9 an illegal action gets)
        return (self.q(x) * self.STRETCH).clamp(-1e8, 1e8)


class GreedyOpponents(Opponents):
    """selfplay_ppo's population; its past snapshots (sampled from their
    logits there) play the greedy policy of their Q-network here."""

    def snapshot(self, actor: torch.nn.Module) -> None:
        super().snapshot(Greedy(actor))


class Episodes:
    """Per row, the decisions of the game it is playing (observation, mask,
    action, seat, reward); when a game ends, each decision's Monte-Carlo
    return (its seat's rewards from there to the end) and the decisions are
    handed out.  ``per_step`` decisions per engine step: 1 in the
    turn-based games, every seat in Spit."""

    def __init__(
        self, num_envs: int, num_players: int, obs_size: int, num_actions: int, simultaneous: bool, discount: float = 1
    ):
        self.n, self.p, self.simultaneous, self.discount = num_envs, num_players, simultaneous, discount
        self.obs: list[list[np.ndarray]] = [[] for _ in range(num_envs)]
        self.mask: list[list[np.ndarray]] = [[] for _ in range(num_envs)]
        self.action: list[list[int]] = [[] for _ in range(num_envs)]
        self.seat: list[list[int]] = [[] for _ in range(num_envs)]
        self.reward: list[list[float]] = [[] for _ in range(num_envs)]
        self.last = np.full((num_envs, num_players), -1, np.int64)  # per row and seat: its decision awaiting pay

    def record(self, rows: np.ndarray, seats: np.ndarray, obs: np.ndarray, mask: np.ndarray, action: np.ndarray):
        for i, (r, s) in enumerate(zip(rows.tolist(), seats.tolist())):
            self.last[r, s] = len(self.action[r])
            self.obs[r].append(obs[i]), self.mask[r].append(mask[i])
            self.action[r].append(int(action[i])), self.seat[r].append(s), self.reward[r].append(0.0)

    def pay(self, rows: np.ndarray, seats: np.ndarray, amount: np.ndarray) -> None:
        """Add ``amount`` to the awaiting decision of each (row, seat)."""
        for r, s, a in zip(rows.tolist(), seats.tolist(), amount.tolist()):
            k = self.last[r, s]
            if k >= 0 and a:
                self.reward[r][k] += a

    def finish(self, rows: np.ndarray) -> tuple[np.ndarray, ...] | None:
        """The ended games' decisions with their returns; the rows start afresh."""
        out: list[tuple] = []
        for r in rows.tolist():
            if not self.action[r]:
                continue
            rewards, seats = np.array(self.reward[r]), np.array(self.seat[r])
            returns = np.zeros(len(rewards))
            for s in range(self.p):  # backwards along each seat's own decisions
                idx = np.flatnonzero(seats == s)
                returns[idx] = discounted_returns(rewards[idx], self.discount)
            out.append((np.stack(self.obs[r]), np.stack(self.mask[r]), np.array(self.action[r]), returns))
            self.obs[r], self.mask[r], self.action[r], self.seat[r], self.reward[r] = [], [], [], [], []
            self.last[r] = -1
        if not out:
            return None
        return tuple(np.concatenate([o[i] for o in out]) for i in range(4))


def discounted_returns(rewards: np.ndarray, discount: float) -> np.ndarray:
    """Each entry's reward plus ``discount`` times the next entry's return:
    entry i sums ``discount**(j - i) * rewards[j]`` over j >= i (the plain
    sums from the end when ``discount`` is 1, as before it existed)."""
    if discount == 1:
        return np.cumsum(rewards[::-1])[::-1]
    k = np.arange(len(rewards))
    later = k[None, :] - k[:, None]  # j - i
    return np.where(later >= 0, discount ** np.maximum(later, 0), 0.0) @ rewards


class Replay:
    """The most recent ``size`` decisions with their returns (a ring)."""

    def __init__(self, size: int, obs_size: int, num_actions: int):
        self.obs = np.zeros((size, obs_size), np.float32)
        self.action = np.zeros(size, np.int64)
        self.ret = np.zeros(size, np.float32)
        self.size, self.head, self.full = size, 0, False

    def add(self, obs: np.ndarray, action: np.ndarray, ret: np.ndarray) -> None:
        for start in range(0, len(action), self.size):
            o, a, g = obs[start : start + self.size], action[start : start + self.size], ret[start : start + self.size]
            idx = (self.head + np.arange(len(a))) % self.size
            self.obs[idx], self.action[idx], self.ret[idx] = o, a, g
            self.full |= self.head + len(a) >= self.size
            self.head = int((self.head + len(a)) % self.size)

    def __len__(self) -> int:
        return self.size if self.full else self.head

    def sample(self, rng: np.random.Generator, k: int) -> tuple[torch.Tensor, ...]:
        idx = rng.integers(0, len(self), size=k)
        return torch.as_tensor(self.obs[idx]), torch.as_tensor(self.action[idx]), torch.as_tensor(self.ret[idx])


def act(q: torch.nn.Module, obs: np.ndarray, mask: np.ndarray, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """Epsilon-greedy over the legal actions."""
    with torch.no_grad():
        values = q(symlog(obs)).numpy()
    greedy = np.where(mask, values, -np.inf).argmax(1)
    explore = rng.random(len(mask)) < epsilon
    random = (rng.random(mask.shape) * mask).argmax(1)
    return np.where(explore, random, greedy)


def deciders(obs: np.ndarray, info: dict, simultaneous: bool) -> tuple[np.ndarray, ...]:
    """The decisions of this step: rows, seats, observations, masks."""
    mask = info["action_mask"]
    n = len(obs)
    if not simultaneous:
        return np.arange(n), info["current_player"], obs, mask
    p = obs.shape[1]
    return np.repeat(np.arange(n), p), np.tile(np.arange(p), n), obs.reshape(n * p, -1), mask.reshape(n * p, -1)


def save(args: argparse.Namespace, q: torch.nn.Module, venv: Any, cpu: float, steps: int, final: bool) -> dict:
    # (named by their steps on a steps schedule: a run on a steps budget replays its files)
    stem = pathlib.Path(args.run_dir) / (
        f"policy_{int(cpu):06d}" if args.snapshot_every_steps is None else f"policy_{steps:012d}"
    )
    training = {"algorithm": "dmc", "seed": args.seed, "steps": steps, "cpu_seconds": round(cpu, 3), "final": final}
    save_policy(
        stem,
        q,
        game=args.game,
        config=args.config,
        obs_size=venv.single_observation_space.shape[-1],
        num_actions=venv.single_action_space.n,
        hidden=[args.hidden, args.hidden],
        training=training,
    )
    return {"file": stem.name + ".json", "cpu_seconds": round(cpu, 3), "steps": steps, "final": final}


def crossed(steps: int, every: int, stride: int) -> bool:
    """Whether the last ``stride`` steps, ending at ``steps``, passed a multiple of ``every``."""
    return steps // every > (steps - stride) // every


def play_step(
    venv: Any,
    q: torch.nn.Module,
    episodes: Episodes,
    opponents: Opponents | None,
    obs: np.ndarray,
    info: dict,
    epsilon: float,
    rng: np.random.Generator,
) -> tuple[np.ndarray, dict, np.ndarray, tuple[np.ndarray, ...] | None]:
    """One engine step of every game: the decisions (an opponent's taken by
    it and recorded nowhere: never paid, never learned), their pay, and the
    games that ended, which start anew; returns the next ``obs, info``, the
    ended rows and their decisions with their returns (None: no game ended)."""
    simultaneous = episodes.simultaneous
    rows, seats, o, m = deciders(obs, info, simultaneous)
    action = act(q, o, m, epsilon, rng)
    if not simultaneous:  # the acting seat's previous decision is paid on its turn
        episodes.pay(rows, seats, info["seat_reward"])
    mine = slice(None) if opponents is None else ~opponents.play(rows, seats, o, m, action)
    episodes.record(rows[mine], seats[mine], o[mine], m[mine], action[mine])
    obs, rewards, term, trunc, info = venv.step(action.reshape(info["action_mask"].shape[:-1]))
    ended = np.flatnonzero(term | trunc)
    if simultaneous:
        n, p = rewards.shape
        episodes.pay(np.repeat(np.arange(n), p), np.tile(np.arange(p), n), rewards.reshape(-1))
    elif len(ended):
        final = info["final_seat_rewards"][ended]
        p = final.shape[1]
        episodes.pay(np.repeat(ended, p), np.tile(np.arange(p), len(ended)), final.reshape(-1))
    if opponents is not None and len(ended):
        opponents.new_games(ended)
    return obs, info, ended, episodes.finish(ended)


def train(args: argparse.Namespace) -> dict[str, Any]:
    """Train; returns the run's record (also ``run.json`` in ``--run-dir``)."""
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    rng = np.random.default_rng(args.seed)
    engine = V.make(args.game, args.num_envs, seed=args.seed, **args.config)
    simultaneous = engine.batch_shape != (engine.num_envs,)
    if args.reward == "zero_sum":
        engine = ZeroSum(engine, args.game, args.config)
    venv = engine if simultaneous else V.SeatRewards(engine)
    obs_size, num_actions = venv.single_observation_space.shape[-1], venv.single_action_space.n
    q = build_mlp(obs_size, [args.hidden, args.hidden], num_actions, out_std=1.0)
    opt = torch.optim.Adam(q.parameters(), lr=args.lr)
    episodes = Episodes(args.num_envs, venv.num_players, obs_size, num_actions, simultaneous, args.discount)
    replay = Replay(args.replay, obs_size, num_actions)
    opponents = GreedyOpponents(args.opponent_mix, args, args.num_envs, args.seed) if args.opponent_mix else None
    print(
        f"DMC on {args.game} {json.dumps(args.config)}: seed {args.seed}, budget "
        + (f"{args.cpu_minutes:g} CPU-minutes" if args.cpu_minutes else f"{args.total_steps:,} steps")
        + f", {args.num_envs} games at once, epsilon {args.epsilon}, reward {args.reward}"
        + f", discount {args.discount:g}, opponents {args.opponents}",
        flush=True,
    )
    if args.run_dir:
        pathlib.Path(args.run_dir).mkdir(parents=True, exist_ok=True)
    obs, info = venv.reset(seed=args.seed)
    if opponents is not None:
        opponents.new_games(np.arange(args.num_envs))
    clock, start = CpuClock(), time.perf_counter()
    steps, updates, loss_sum, loss_n, games, snaps = 0, 0.0, 0.0, 0, 0, []
    next_snap = args.snapshot_every
    budget = args.cpu_minutes * 60 if args.cpu_minutes else math.inf
    while (args.total_steps is None or steps < args.total_steps) and clock.seconds() < budget:
        obs, info, ended, done = play_step(venv, q, episodes, opponents, obs, info, args.epsilon, rng)
        steps += args.num_envs
        if done is not None:
            replay.add(symlog(done[0]).numpy(), done[2], done[3] * args.reward_scale)
        games += len(ended)
        if opponents is not None and crossed(steps, args.pool_every_steps, args.num_envs):
            opponents.snapshot(q)
        updates += args.updates_per_step
        while updates >= 1 and len(replay) >= args.batch_size:
            x, a, g = replay.sample(rng, args.batch_size)
            loss = torch.nn.functional.mse_loss(q(x).gather(1, a[:, None]).squeeze(1), g)
            opt.zero_grad(), loss.backward(), opt.step()
            loss_sum, loss_n, updates = loss_sum + float(loss.detach()), loss_n + 1, updates - 1
        cpu = clock.seconds()
        if next_snap is not None and cpu >= next_snap:
            snaps.append(save(args, q, venv, cpu, steps, False))
            next_snap = (math.floor(cpu / args.snapshot_every) + 1) * args.snapshot_every
        if args.snapshot_every_steps is not None and crossed(steps, args.snapshot_every_steps, args.num_envs):
            snaps.append(save(args, q, venv, cpu, steps, False))
        if not args.quiet and steps % (args.num_envs * 500) == 0:
            print(
                f"steps {steps:>10,}  games {games:>7,}  loss {loss_sum / max(1, loss_n):.4f}  "
                f"{steps / (time.perf_counter() - start):,.0f} steps/s  cpu {cpu:,.0f}s",
                flush=True,
            )
            loss_sum, loss_n = 0.0, 0
    cpu = clock.seconds()
    reason = "cpu_budget" if cpu >= budget else "total_steps"
    record = {"game": args.game, "config": args.config, "algorithm": "dmc", "seed": args.seed, "steps": steps}
    record.update(games=games, cpu_seconds=round(cpu, 3), stop_reason=reason, args=vars(args))
    if args.run_dir:
        snaps.append(save(args, q, venv, cpu, steps, True))
        record["snapshots"] = snaps
        (pathlib.Path(args.run_dir) / "run.json").write_text(json.dumps(record, indent=1) + "\n")
    print(f"done: {steps:,} steps, {games:,} games, {cpu:.0f} CPU-s ({reason})", flush=True)
    record["q"] = q
    return record


if __name__ == "__main__":
    train(parse_args())
