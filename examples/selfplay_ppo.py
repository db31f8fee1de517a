"""Self-play PPO with action masks on a turn-based cardenvs game, CleanRL style, in one file.

Every seat of every game in a batch is played by the one learning policy.  A
decision's reward is what its seat earns until that seat next acts in the
same game, or until the game ends; ``cardenvs.vector.SeatRewards`` hands it
over (``info["seat_reward"]`` with the seat's next observation,
``info["final_seat_rewards"]`` when the game ends), so the rollout only keeps,
per game and seat, the one decision still waiting for its reward.

The rollout stores decisions, not steps: each decision links to its seat's
next decision (its successor), and GAE runs along each seat's own sequence
of decisions, bootstrapping from the successor's value.  A decision still
waiting for its reward when a rollout ends is carried into the next rollout
(with the log-probability and value it was taken with), so no reward is lost
or cut at a rollout's edge.

    python examples/selfplay_ppo.py                                # Pepper, 4 players, score_delta, 2 hands a game
    python examples/selfplay_ppo.py --config '{"num_players": 3}'  # merged over the game's defaults below
    python examples/selfplay_ppo.py --game push_v0 --total-steps 200000
    python examples/selfplay_ppo.py --game cancellation_hearts_v0 --config '{"num_players": 8, "max_hands": 2}'

It prints one line per iteration (the mean seat return of the games that
ended in it, the losses, the speed) and a summary: the mean seat return of
the first and last tenth of the games, and the policy before and after
training at seat 0 against uniformly random legal play at the other seats.
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
from torch import nn
from torch.distributions import Categorical

ROOT = pathlib.Path(__file__).resolve().parents[1]
if (ROOT / "cardenvs").is_dir():  # the checkout this example is in, rather than another installed copy
    sys.path.insert(0, str(ROOT))

import cardenvs.vector as V  # noqa: E402

# Short games by default, so that a short run sees many of them end.  --config is merged over these
# (give {"max_hands": null} for no limit).
GAME_DEFAULTS: dict[str, dict[str, Any]] = {
    "pepper_v0": {"reward": "score_delta", "max_hands": 2},
    "cancellation_hearts_v0": {"reward": "score_delta", "max_hands": 1},
    "push_v0": {"reward": "score_delta", "rounds": [1]},
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="pepper_v0", choices=sorted(GAME_DEFAULTS))
    p.add_argument("--config", default="{}", help="game options as JSON, merged over the game's defaults")
    p.add_argument("--num-envs", type=int, default=16, help="games played at once")
    p.add_argument("--num-steps", type=int, default=128, help="engine steps per rollout")
    p.add_argument("--total-steps", type=int, default=200_000, help="decisions to train on (steps x games)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--num-processes",
        type=int,
        default=1,
        help="step the games in this many processes (vector.make(num_processes=...), with per-game random streams)",
    )
    p.add_argument("--lr", type=float, default=2.5e-4)
    p.add_argument("--gamma", type=float, default=0.99, help="discount per decision of the same seat")
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--reward-scale", type=float, default=0.1, help="rewards are multiplied by this for learning")
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--eval-games", type=int, default=64, help="games against random play before and after (0: none)")
    p.add_argument("--torch-threads", type=int, default=1, help="small networks run fastest on one thread")
    p.add_argument("--quiet", action="store_true", help="no line per iteration")
    args = p.parse_args(argv)
    args.config = {**GAME_DEFAULTS[args.game], **json.loads(args.config)}
    return args


def preprocess(obs: np.ndarray) -> torch.Tensor:
    """Observations as float32, squashed (symlog): scores and counts can be large."""
    x = torch.as_tensor(np.asarray(obs, np.float32))
    return torch.sign(x) * torch.log1p(torch.abs(x))


def layer(n_in: int, n_out: int, std: float = math.sqrt(2)) -> nn.Linear:
    lin = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.zeros_(lin.bias)
    return lin


class Agent(nn.Module):
    """An actor and a critic (separate MLPs); illegal actions get logit -1e9."""

    def __init__(self, obs_size: int, num_actions: int, hidden: int):
        super().__init__()
        self.critic = nn.Sequential(
            layer(obs_size, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(), layer(hidden, 1, 1.0)
        )
        self.actor = nn.Sequential(
            layer(obs_size, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(), layer(hidden, num_actions, 0.01)
        )

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x).squeeze(-1)

    def action_and_value(
        self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        logits = self.actor(x).masked_fill(~mask, -1e9)
        dist = Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(x)


FIELDS = {  # what is stored of one decision: (dtype, fill)
    "obs": (np.float32, 0),
    "mask": (bool, False),
    "action": (np.int64, 0),
    "logp": (np.float32, 0),
    "value": (np.float32, 0),  # the critic's value when the decision was taken (scaled units)
    "reward": (np.float32, 0),  # what the seat earned until its next decision or the game's end (raw)
    "done": (bool, False),  # the game ended before the seat's next decision
    "next_value": (np.float32, 0),  # the value at the seat's next decision (0 when done)
    "succ": (np.int64, -1),  # the seat's next decision in this rollout, -1 if none
    "resolved": (bool, False),  # the reward has arrived (only these are trained on)
    "game": (np.int64, 0),  # a running id of the game
    "seat": (np.int64, 0),
}


class SelfPlayCollector:
    """Plays every seat of ``num_envs`` games with ``agent`` and stores each
    decision with the reward :class:`cardenvs.vector.SeatRewards` hands its seat
    later.  ``collect()`` returns one rollout; decisions still waiting for their
    reward are carried into the next one.  ``returns[g]`` is, per seat, the
    sum of the rewards stored on game ``g``'s decisions (what the learner was
    told that game was worth to each seat)."""

    def __init__(self, venv: V.SeatRewards, agent: Agent, num_steps: int, seed: int):
        self.venv, self.agent, self.num_steps = venv, agent, num_steps
        n, p = venv.num_envs, venv.num_players
        self.rows = np.arange(n)
        self.obs, self.info = venv.reset(seed=seed)
        self.waiting = np.full((n, p), -1, np.int64)  # per row and seat, its decision awaiting its reward
        self.carry: dict[str, np.ndarray] = {}  # those decisions, carried from the last rollout
        self.game = np.arange(n)  # the id of the game in each row
        self.returns = np.zeros((4 * n, p))  # per game id, per seat
        self.first_rollout = np.zeros(4 * n, np.int64)  # per game id, the rollout it started in
        self.iteration = 0
        self.shapes = {"obs": venv.single_observation_space.shape, "mask": (venv.single_action_space.n,)}

    def _new_games(self, ended: np.ndarray) -> None:
        start = self.game.max() + 1
        self.game[ended] = start + np.arange(len(ended))
        while self.game.max() >= len(self.returns):
            self.returns = np.concatenate([self.returns, np.zeros_like(self.returns)])
            self.first_rollout = np.concatenate([self.first_rollout, np.zeros_like(self.first_rollout)])
        self.first_rollout[self.game[ended]] = self.iteration

    def collect(self, gamma: float, gae_lambda: float, reward_scale: float) -> dict[str, Any]:
        """One rollout of ``num_steps`` engine steps.  Returns the resolved
        decisions with their advantages and returns (numpy arrays), and
        ``"games"``: per game that ended in it, ``{"game", "returns",
        "final_scores", "rollouts"}`` (the rollouts it spanned)."""
        n, t_max = self.venv.num_envs, self.num_steps
        m = len(self.carry.get("action", ()))
        size = m + t_max * n
        buf = {k: np.full((size, *self.shapes.get(k, ())), fill, dtype) for k, (dtype, fill) in FIELDS.items()}
        for k, v in self.carry.items():
            buf[k][:m] = v
        ended_games: list[tuple[np.ndarray, np.ndarray]] = []
        for t in range(t_max):
            seats, mask = self.info["current_player"], self.info["action_mask"]  # (copied below: may be read-only)
            with torch.no_grad():
                action, logp, _, value = self.agent.action_and_value(preprocess(self.obs), torch.tensor(mask))
            action, logp, value = action.numpy(), logp.numpy(), value.numpy()
            k = m + t * n + self.rows
            # The seat's previous decision in this game gets its reward and its successor.
            prev = self.waiting[self.rows, seats]
            paid = prev >= 0
            p = prev[paid]
            buf["reward"][p] = self.info["seat_reward"][paid]
            buf["next_value"][p] = value[paid]
            buf["succ"][p] = k[paid]
            buf["resolved"][p] = True
            for name, v in (("obs", self.obs), ("mask", mask), ("action", action), ("logp", logp), ("value", value)):
                buf[name][k] = v
            buf["game"][k], buf["seat"][k] = self.game, seats
            self.waiting[self.rows, seats] = k
            self.obs, _, terminated, truncated, self.info = self.venv.step(action)
            ended = np.flatnonzero(terminated | truncated)
            if len(ended):
                # Every seat's last decision of an ended game gets the seat's remainder.
                last = self.waiting[ended]
                has = last >= 0
                q = last[has]
                buf["reward"][q] = self.info["final_seat_rewards"][ended][has]
                buf["done"][q] = True
                buf["next_value"][q] = 0.0
                buf["resolved"][q] = True
                self.waiting[ended] = -1
                ended_games.append((self.game[ended].copy(), self.info["final_scores"][ended].copy()))
                self._new_games(ended)
        # GAE backwards along each seat's decisions: a successor was taken later, so it sits in a later
        # block (the carried decisions, block 0, come first).
        adv = np.zeros(size, np.float32)
        blocks = [np.arange(m)] + [m + t * n + self.rows for t in range(t_max)]
        for idx in reversed(blocks):
            succ = buf["succ"][idx]
            live = ~buf["done"][idx]
            succ_adv = np.where(live & (succ >= 0), adv[np.maximum(succ, 0)] * buf["resolved"][np.maximum(succ, 0)], 0)
            delta = buf["reward"][idx] * reward_scale + gamma * buf["next_value"][idx] * live - buf["value"][idx]
            adv[idx] = delta + gamma * gae_lambda * succ_adv
        # Carry the decisions still waiting into the next rollout.
        flat = self.waiting.reshape(-1)
        has = flat >= 0
        self.carry = {k: buf[k][flat[has]] for k in FIELDS}
        flat[has] = np.arange(has.sum())
        # The batch: the decisions whose reward has arrived.
        res = np.flatnonzero(buf["resolved"])
        np.add.at(self.returns, (buf["game"][res], buf["seat"][res]), buf["reward"][res])
        games = [
            {
                "game": int(g),
                "returns": self.returns[g].copy(),
                "final_scores": s.astype(np.float64),
                "rollouts": self.iteration - int(self.first_rollout[g]) + 1,
            }
            for gs, ss in ended_games
            for g, s in zip(gs, ss)
        ]
        self.iteration += 1
        batch = {k: buf[k][res] for k in ("obs", "mask", "action", "logp", "value")}
        batch["advantages"] = adv[res]
        batch["returns"] = adv[res] + buf["value"][res]
        batch["games"] = games
        return batch


def ppo_update(agent: Agent, optimizer: torch.optim.Optimizer, batch: dict[str, Any], args: argparse.Namespace):
    """CleanRL's PPO update (clipped objective and value loss, normalised
    advantages per minibatch) over the resolved decisions."""
    t = {k: torch.as_tensor(v) for k, v in batch.items() if k != "games"}
    t["obs"] = preprocess(batch["obs"])
    size = len(t["action"])
    mb = max(1, math.ceil(size / args.num_minibatches))
    stats: dict[str, float] = {}
    for _ in range(args.update_epochs):
        order = torch.randperm(size)
        for start in range(0, size, mb):
            i = order[start : start + mb]
            _, logp, entropy, value = agent.action_and_value(t["obs"][i], t["mask"][i], t["action"][i])
            log_ratio = logp - t["logp"][i]
            ratio = log_ratio.exp()
            adv = t["advantages"][i]
            if len(i) > 1:
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
            v_clipped = t["value"][i] + (value - t["value"][i]).clamp(-args.clip_coef, args.clip_coef)
            v_loss = 0.5 * torch.max((value - t["returns"][i]) ** 2, (v_clipped - t["returns"][i]) ** 2).mean()
            loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                stats = {
                    "pg": pg_loss.item(),
                    "v": v_loss.item(),
                    "ent": entropy.mean().item(),
                    "kl": ((ratio - 1) - log_ratio).mean().item(),
                }
    return stats


def make_engine(args: argparse.Namespace, seed: int) -> V.VectorEnv | V.ProcessVectorEnv:
    """The games, in ``args.num_processes`` processes (per-game streams
    then: processes draw for their own games)."""
    if args.num_processes == 1:
        return V.make(args.game, args.num_envs, seed=seed, **args.config)
    return V.make(args.game, args.num_envs, seed=seed, rng="per_game", num_processes=args.num_processes, **args.config)


def evaluate(agent: Agent, args: argparse.Namespace, seed: int) -> tuple[float, float]:
    """``args.eval_games`` games with the policy (sampling) at seat 0 and
    uniformly random legal play at every other seat: the mean return of seat
    0 and of the other seats."""
    venv = make_engine(args, seed)
    rng = np.random.default_rng(seed)
    obs, info = venv.reset()
    total = np.zeros((venv.num_envs, venv.num_players))
    results = []
    while len(results) < args.eval_games:
        mask = info["action_mask"]
        with torch.no_grad():
            policy, _, _, _ = agent.action_and_value(preprocess(obs), torch.tensor(mask))
        random = (rng.random(mask.shape) * mask).argmax(axis=1)
        actions = np.where(info["current_player"] == 0, policy.numpy(), random)
        obs, rewards, terminated, truncated, info = venv.step(actions)
        total += rewards
        for i in np.flatnonzero(terminated | truncated):
            results.append(total[i].copy())
            total[i] = 0.0
    venv.close()
    r = np.array(results[: args.eval_games])
    return float(r[:, 0].mean()), float(r[:, 1:].mean())


def train(args: argparse.Namespace) -> dict[str, Any]:
    """Train; returns a summary: ``"games"`` (per game that ended, the per-seat
    returns the rollouts assigned and the game's final scores), the mean seat
    return of the first and last tenth of the games, the evaluations before
    and after, steps and seconds."""
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    venv = V.SeatRewards(make_engine(args, args.seed))
    agent = Agent(venv.single_observation_space.shape[0], venv.single_action_space.n, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    collector = SelfPlayCollector(venv, agent, args.num_steps, args.seed)
    iterations = max(1, args.total_steps // (args.num_envs * args.num_steps))
    eval_before = evaluate(agent, args, args.seed + 1) if args.eval_games else None
    print(
        f"{args.game} {json.dumps(args.config)}: {venv.num_players} seats, all played by one policy; "
        f"{args.num_envs} games x {args.num_steps} steps per rollout, {iterations} iterations"
    )
    games: list[dict[str, Any]] = []
    start = time.perf_counter()
    for it in range(1, iterations + 1):
        frac = 1.0 - (it - 1) / iterations
        optimizer.param_groups[0]["lr"] = frac * args.lr
        batch = collector.collect(args.gamma, args.gae_lambda, args.reward_scale)
        stats = ppo_update(agent, optimizer, batch, args)
        games.extend(batch["games"])
        if not args.quiet:
            ret = np.mean([g["returns"].mean() for g in batch["games"]]) if batch["games"] else float("nan")
            steps = it * args.num_envs * args.num_steps
            print(
                f"[{it:>4}/{iterations}] steps {steps:>9,}  games {len(games):>6}  seat return {ret:8.2f}  "
                f"pg {stats['pg']:+.3f}  v {stats['v']:.3f}  ent {stats['ent']:.2f}  kl {stats['kl']:.4f}  "
                f"{steps / (time.perf_counter() - start):,.0f} steps/s",
                flush=True,
            )
    seconds = time.perf_counter() - start
    venv.close()
    tenth = max(1, len(games) // 10)
    seat_returns = [g["returns"].mean() for g in games]
    summary = {
        "games": games,
        "start_return": float(np.mean(seat_returns[:tenth])) if games else float("nan"),
        "end_return": float(np.mean(seat_returns[-tenth:])) if games else float("nan"),
        "eval_before": eval_before,
        "eval_after": evaluate(agent, args, args.seed + 1) if args.eval_games else None,
        "steps": iterations * args.num_envs * args.num_steps,
        "seconds": seconds,
    }
    print(f"\ndone: {summary['steps']:,} steps, {len(games)} games in {seconds:.1f}s")
    print(
        f"mean seat return per game: {summary['start_return']:.2f} (first {tenth} games) -> "
        f"{summary['end_return']:.2f} (last {tenth})"
    )
    if eval_before is not None:
        (b0, b1), (a0, a1) = eval_before, summary["eval_after"]
        print(
            f"policy at seat 0 vs random legal play, {args.eval_games} games: "
            f"seat 0 {b0:.2f} (others {b1:.2f}) before -> {a0:.2f} (others {a1:.2f}) after"
        )
    return summary


if __name__ == "__main__":
    train(parse_args())
