"""Self-play PPO with action masks on a cardenvs game, CleanRL style, in one file.

Every seat of every game in a batch is played by the one learning policy,
learned from scratch (no rule advice, no teacher).  A decision's reward is
what its seat earns until that seat next acts in the same game, or until the
game ends.  In the turn-based games (Pepper, Cancellation Hearts, Push)
``cardenvs.vector.SeatRewards`` hands it over (``info["seat_reward"]`` with
the seat's next observation, ``info["final_seat_rewards"]`` when the game
ends).  In Spit both seats of every game act on every step (observations
``(B, 2, ...)``, actions ``(B, 2)``), so seat s's decision on a step earns
``rewards[:, s]`` of that step and its next decision is the next step's.
Either way the rollout only keeps, per game and seat, the one decision
still waiting for its reward.

The rollout stores decisions, not steps: each decision links to its seat's
next decision (its successor), and GAE runs along each seat's own sequence
of decisions, bootstrapping from the successor's value.  A decision still
waiting for its reward when a rollout ends is carried into the next rollout
(with the log-probability and value it was taken with), so no reward is lost
or cut at a rollout's edge.

Two critics (``--critic``); the actor reads only the seat's observation in
both (decentralised execution):

- ``obs`` (default): the critic reads the seat's observation, as the actor.
- ``state``: the MAPPO-style centralised critic.  It reads the whole game's
  state at the moment of the decision (the vector engine's ``states()`` row
  of that game: every hand, stock and pile, from a neutral view; squashed
  like the observations) and the one-hot of the seat it values (the state
  is the same for every seat).  Rewards and GAE stay per seat.

The network and the squashing are :mod:`cardenvs.agents.mlp`'s, so a saved
policy plays with ``cardenvs.agents.mlp.MLPAgent`` exactly as it trained.

A stated budget: ``--cpu-minutes M`` stops when the CPU time of the
training (this process, every thread, plus the engine's worker processes,
counted from the start of training; the evaluations before and after are
not counted) reaches M minutes, checked after each iteration, whatever
``--total-steps`` says (which is then unlimited unless given).  The learning
rate decays linearly over whichever budget runs out first.  ``--run-dir
DIR`` saves the policy every ``--snapshot-every S`` CPU-seconds and at the
end, as ``DIR/policy_<cpu seconds, 6 digits>.pt`` + ``.json``
(``MLPAgent.load``), and the run's record in ``DIR/run.json``: the
snapshots and why the run stopped (``"stop_reason"``: ``"cpu_budget"`` or
``"total_steps"``).  A snapshot taken within the same CPU-second as the
previous one replaces it.

    python examples/selfplay_ppo.py                                # Pepper, 4 players, score_delta, 2 hands a game
    python examples/selfplay_ppo.py --config '{"num_players": 3}'  # merged over the game's defaults below
    python examples/selfplay_ppo.py --game push_v0 --total-steps 200000
    python examples/selfplay_ppo.py --game cancellation_hearts_v0 --config '{"num_players": 8, "max_hands": 2}'
    python examples/selfplay_ppo.py --game spit_v0 --critic state --cpu-minutes 20 --snapshot-every 120 \\
        --run-dir runs/spit_state --eval-games 0

It prints one line per iteration (the mean seat return of the games that
ended in it, the losses, the speed) and a summary: the mean seat return of
the first and last tenth of the games, and the policy before and after
training at seat 0 against uniformly random legal play at the other seats.
"""

from __future__ import annotations

import argparse
import glob
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
from cardenvs.agents.mlp import build_mlp, save_policy, symlog  # noqa: E402
from cardenvs.core.cpu import CpuClock  # noqa: E402, F401 (the learners beside this one import it from here)
from cardenvs.registry import spec as game_spec  # noqa: E402

# Short games by default, so that a short run sees many of them end.  --config is merged over these
# (give {"max_hands": null} for no limit).  Spit: "cards_held" pays each card got rid of for good
# (docs/spit.md, "meant for training"; with "win_loss" alone a learner from scratch learns to wait), and
# 600 ticks (random play ends about 3 games in 4 within it) rather than 5000.
GAME_DEFAULTS: dict[str, dict[str, Any]] = {
    "pepper_v0": {"reward": "score_delta", "max_hands": 2},
    "cancellation_hearts_v0": {"reward": "score_delta", "max_hands": 1},
    "push_v0": {"reward": "score_delta", "rounds": [1]},
    "spit_v0": {"reward": "cards_held", "max_ticks": 600},
}
CRITICS = ("obs", "state")
OPPONENT_KINDS = ("pool", "random", "rule")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="pepper_v0", choices=sorted(GAME_DEFAULTS))
    p.add_argument("--config", default="{}", help="game options as JSON, merged over the game's defaults")
    p.add_argument("--critic", default="obs", choices=CRITICS, help="what the critic reads (see above)")
    p.add_argument("--num-envs", type=int, default=16, help="games played at once")
    p.add_argument("--num-steps", type=int, default=128, help="engine steps per rollout")
    p.add_argument(
        "--total-steps",
        type=int,
        default=None,
        help="engine steps x games to train on (in Spit each is two decisions); default 200000, "
        "or no limit with --cpu-minutes",
    )
    p.add_argument("--cpu-minutes", type=float, default=None, help="stop when training has used this much CPU")
    p.add_argument("--snapshot-every", type=float, default=None, help="save the policy every S CPU-seconds")
    p.add_argument(
        "--snapshot-every-steps",
        type=int,
        default=None,
        help="save the policy every N engine steps x games (snapshots that replay: named by their steps)",
    )
    p.add_argument("--run-dir", default=None, help="where snapshots and run.json go (a new or empty directory)")
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
    p.add_argument(
        "--zero-sum",
        action="store_true",
        help="pay each seat its reward less the mean of every seat's on the same step (Spit: a card the opponent "
        "did not get to play is worth as much as one played); only where every seat acts on every step",
    )
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--hidden", type=int, default=256, help="width of the two hidden layers (actor and critic)")
    p.add_argument("--eval-games", type=int, default=64, help="games against random play before and after (0: none)")
    p.add_argument("--torch-threads", type=int, default=1, help="small networks run fastest on one thread")
    p.add_argument("--quiet", action="store_true", help="no line per iteration")
    p.add_argument(
        "--opponents",
        default="self",
        help="who plays against the learner: 'self' (pure self-play), or a mix such as 'pool=0.5,random=0.1' "
        "(the share of games in which one side of the learner faces past snapshots of itself ('pool'), "
        "uniformly random legal play ('random') or the rule agent ('rule': an opponent, never a teacher)",
    )
    p.add_argument("--pool-every", type=int, default=20, help="iterations between the snapshots kept for 'pool'")
    p.add_argument("--pool-size", type=int, default=10, help="the most recent snapshots kept for 'pool'")
    args = p.parse_args(argv)
    args.config = {**GAME_DEFAULTS[args.game], **json.loads(args.config)}
    check_budget_args(p, args)
    if args.zero_sum and not game_spec(args.game).simultaneous:
        p.error(f"--zero-sum needs a game whose seats all act on every step (Spit), not {args.game}")
    args.opponent_mix = parse_opponents(p, args.opponents)
    return args


def parse_opponents(p: argparse.ArgumentParser, text: str) -> dict[str, float]:
    """``'self'`` -> {}; ``'pool=0.5,random=0.1'`` -> the share of games per opponent kind."""
    if text == "self":
        return {}
    mix: dict[str, float] = {}
    for part in text.split(","):
        kind, _, share = part.partition("=")
        if kind not in OPPONENT_KINDS:
            p.error(f"--opponents: unknown opponent {kind!r}; have {', '.join(OPPONENT_KINDS)}")
        try:
            mix[kind] = float(share)
        except ValueError:
            p.error(f"--opponents: {part!r} needs a share, e.g. {kind}=0.5")
        if not 0 < mix[kind] <= 1:
            p.error(f"--opponents: the share of {kind!r} must be in (0, 1], got {share}")
    if sum(mix.values()) > 1 + 1e-9:
        p.error(f"--opponents: the shares add up to {sum(mix.values()):g}, more than 1")
    return mix


def check_budget_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse (exit 2, nothing written) budgets that cannot be met and a run
    directory that already holds a run."""
    if args.cpu_minutes is not None and not args.cpu_minutes > 0:
        p.error(f"--cpu-minutes must be positive, got {args.cpu_minutes}")
    if args.total_steps is not None and args.total_steps <= 0:
        p.error(f"--total-steps must be positive, got {args.total_steps}")
    if args.total_steps is None and args.cpu_minutes is None:
        args.total_steps = 200_000
    if args.snapshot_every is not None:
        if args.run_dir is None:
            p.error("--snapshot-every needs --run-dir")
        if not args.snapshot_every >= 1:
            p.error(f"--snapshot-every is in CPU-seconds, at least 1, got {args.snapshot_every}")
    if args.snapshot_every_steps is not None:
        if args.run_dir is None:
            p.error("--snapshot-every-steps needs --run-dir")
        if args.snapshot_every_steps < 1:
            p.error(f"--snapshot-every-steps must be at least 1, got {args.snapshot_every_steps}")
    if args.run_dir is not None:
        run_dir = pathlib.Path(args.run_dir)
        if run_dir.exists() and not run_dir.is_dir():
            p.error(f"--run-dir {run_dir} is a file")
        if (run_dir / "run.json").exists() or glob.glob(str(run_dir / "policy_*")):
            p.error(f"--run-dir {run_dir} already holds a run: choose a new directory")


def preprocess(obs: np.ndarray) -> torch.Tensor:
    """Observations as float32, squashed (symlog): scores and counts can be large."""
    return symlog(obs)


class ActorCritic(nn.Module):
    """An actor and a critic (separate MLPs, :func:`cardenvs.agents.mlp.build_mlp`);
    illegal actions get logit -1e9.  The actor reads observations of
    ``obs_size``.  The critic reads the observation too, or, given
    ``state_size`` (``--critic state``), the game's state and the one-hot of
    the seat it values: ``critic_size = state_size + num_players`` numbers
    (:meth:`critic_input`)."""

    def __init__(
        self, obs_size: int, num_actions: int, hidden: int, state_size: int | None = None, num_players: int = 0
    ):
        super().__init__()
        self.hidden = [hidden, hidden]
        self.obs_size, self.num_actions = obs_size, num_actions
        self.reads_state, self.num_players = state_size is not None, num_players
        self.critic_size = obs_size if state_size is None else state_size + num_players
        self.critic = build_mlp(self.critic_size, self.hidden, 1, out_std=1.0)
        self.actor = build_mlp(obs_size, self.hidden, num_actions, out_std=0.01)

    def critic_input(self, x: torch.Tensor, states: Any = None, seats: Any = None) -> torch.Tensor:
        """What the critic reads for decisions with preprocessed observations
        ``x``: ``x`` itself, or (reading the state) the squashed ``states``,
        one row per decision (its game's state when it was taken), followed
        by the one-hot of the deciding seat."""
        if not self.reads_state:
            return x
        seat = torch.nn.functional.one_hot(torch.as_tensor(np.asarray(seats, np.int64)), self.num_players)
        return torch.cat([symlog(states), seat.to(torch.float32)], dim=1)

    def value(self, c: torch.Tensor) -> torch.Tensor:
        """The critic's values of critic inputs ``c`` ``(N, critic_size)``
        (ValueError for another width: a state of the wrong size, say)."""
        if c.ndim != 2 or c.shape[1] != self.critic_size:
            raise ValueError(f"the critic reads (N, {self.critic_size}) inputs, got {tuple(c.shape)}")
        return self.critic(c).squeeze(-1)

    def policy(self, x: torch.Tensor, mask: torch.Tensor) -> Categorical:
        """The actor's distribution over the legal actions."""
        return Categorical(logits=self.actor(x).masked_fill(~mask, -1e9))

    def action_and_value(
        self, x: torch.Tensor, mask: torch.Tensor, c: torch.Tensor, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """An action (sampled unless given), its log-probability, the
        entropy, and the critic's value of ``c``."""
        dist = self.policy(x, mask)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(c)


FIELDS = {  # what is stored of one decision: (dtype, fill)
    "obs": (np.float32, 0),
    "mask": (bool, False),
    "state": (np.float32, 0),  # the game's state when it was taken (--critic state only)
    "action": (np.int64, 0),
    "logp": (np.float32, 0),
    "value": (np.float32, 0),  # the critic's value when the decision was taken (scaled units)
    "reward": (np.float32, 0),  # what the seat earned until its next decision or the game's end (raw)
    "done": (bool, False),  # the game ended before the seat's next decision
    "next_value": (np.float32, 0),  # the value at the seat's next decision (0 when done)
    "succ": (np.int64, -1),  # the seat's next decision in this rollout, -1 if none
    "resolved": (bool, False),  # the reward has arrived (only these are trained on)
    "game": (np.int64, 0),  # a running id of the game
    "row": (np.int64, 0),  # the engine row it was played in
    "seat": (np.int64, 0),
}
BATCH = ("obs", "mask", "state", "action", "logp", "value", "row", "seat")  # what the update reads


class Opponents:
    """Who plays the seats the learner does not (``--opponents``).  When a
    game starts, it draws what faces the learner: with each kind's share, a
    past snapshot of the learner ("pool"), uniformly random legal play
    ("random") or the rule agent ("rule": an opponent only, never a teacher:
    nothing is learned from its decisions); else the learner plays every
    seat.  Against an opponent, the learner plays one side (drawn at random:
    a team in partnership games, one seat otherwise) and the opponent every
    other seat; the opponent's decisions are not trained on."""

    def __init__(self, mix: dict[str, float], args: argparse.Namespace, num_envs: int, seed: int):
        from cardenvs.agents.registry import rule_agent
        from cardenvs.core.agent import RandomAgent
        from cardenvs.evaluation.duplicate import sides_of
        from cardenvs.registry import rules_class

        self.kinds = list(mix)
        self.shares = np.array([mix[k] for k in self.kinds] + [1.0 - sum(mix.values())])
        self.rng = np.random.default_rng(seed + 7919)
        options = {k: v for k, v in args.config.items() if k not in ("illegal_action", "obs_dtype")}
        rules = rules_class(args.game)(**options)
        self.sides = sides_of(rules)
        self.kind = np.full(num_envs, -1)  # per row: the index of its opponent's kind, -1 for self-play
        self.seats = np.zeros((num_envs, len(self.sides)), bool)  # per row: the seats an opponent plays
        self.pick = np.zeros(num_envs, np.int64)  # per row with a pool opponent: which snapshot
        self.pool: list[nn.Module] = []
        self.pool_size = args.pool_size
        self.agents = {"random": RandomAgent(seed + 1)}
        if "rule" in mix:
            self.agents["rule"] = rule_agent(args.game, **args.config)

    def snapshot(self, actor: nn.Module) -> None:
        """Keep a frozen copy of the learner's actor for "pool" (the last ``pool_size``)."""
        import copy

        self.pool = (self.pool + [copy.deepcopy(actor).eval()])[-self.pool_size :]

    def new_games(self, rows: np.ndarray) -> None:
        """Draw the opponents of the games starting in ``rows``."""
        drawn = self.rng.choice(len(self.shares), size=len(rows), p=self.shares)
        self.kind[rows] = np.where(drawn == len(self.kinds), -1, drawn)
        learner_side = self.rng.choice(np.unique(self.sides), size=len(rows))
        self.seats[rows] = (self.kind[rows, None] >= 0) & (self.sides[None, :] != learner_side[:, None])
        self.pick[rows] = self.rng.integers(0, max(1, len(self.pool)), size=len(rows))

    def play(self, rows: np.ndarray, seats: np.ndarray, obs: np.ndarray, mask: np.ndarray, action: np.ndarray):
        """Replace the learner's ``action`` where an opponent decides; returns those decisions."""
        theirs = self.seats[rows, seats]
        for k, kind in enumerate(self.kinds):
            sel = np.flatnonzero(theirs & (self.kind[rows] == k))
            if not len(sel):
                continue
            if kind != "pool":
                action[sel] = self.agents[kind].act_batch(obs[sel], mask[sel])
                continue
            for j, actor in enumerate(self.pool or []):
                part = sel[self.pick[rows[sel]] % len(self.pool) == j]
                if len(part):
                    with torch.no_grad():
                        logits = actor(preprocess(obs[part])).masked_fill(~torch.as_tensor(mask[part]), -1e9)
                    action[part] = Categorical(logits=logits).sample().numpy()
        return theirs


class SelfPlayCollector:
    """Plays every seat of ``num_envs`` games with ``agent`` and stores each
    decision with the reward its seat earns until its next decision (turn-based
    games: what :class:`cardenvs.vector.SeatRewards` hands it later; Spit:
    the step's reward).  ``collect()`` returns one rollout; decisions still
    waiting for their reward are carried into the next one.  ``returns[g]``
    is, per seat, the sum of the rewards stored on game ``g``'s decisions
    (what the learner was told that game was worth to each seat).  With
    a critic that reads the state, each decision also stores its game's
    ``states()`` row."""

    def __init__(
        self,
        venv: Any,
        agent: ActorCritic,
        num_steps: int,
        seed: int,
        opponents: Opponents | None = None,
        zero_sum: bool = False,
    ):
        self.venv, self.agent, self.num_steps, self.opponents = venv, agent, num_steps, opponents
        self.zero_sum = zero_sum  # pay each seat its reward less every seat's mean (simultaneous games)
        n, p = venv.num_envs, venv.num_players
        self.rows = np.arange(n)
        self.obs, self.info = venv.reset(seed=seed)
        self.simultaneous = self.obs.ndim == 3  # Spit: (n, p, obs), every seat acts on every step
        self.per_step = n * p if self.simultaneous else n  # decisions per engine step
        self.pending = np.zeros((n, p), np.float32)  # Spit: what each seat earned on the last step
        self.waiting = np.full((n, p), -1, np.int64)  # per row and seat, its decision awaiting its reward
        self.fields = {k: v for k, v in FIELDS.items() if k != "state" or agent.reads_state}
        self.carry: dict[str, np.ndarray] = {}  # those decisions, carried from the last rollout
        self.game = np.arange(n)  # the id of the game in each row
        self.returns = np.zeros((4 * n, p))  # per game id, per seat
        self.first_rollout = np.zeros(4 * n, np.int64)  # per game id, the rollout it started in
        self.iteration = 0
        self.shapes = {"obs": venv.single_observation_space.shape, "mask": (venv.single_action_space.n,)}
        if agent.reads_state:
            self.shapes["state"] = venv.single_state_space.shape
        if opponents is not None:
            opponents.new_games(self.rows)

    def _new_games(self, ended: np.ndarray) -> None:
        start = self.game.max() + 1
        self.game[ended] = start + np.arange(len(ended))
        while self.game.max() >= len(self.returns):
            self.returns = np.concatenate([self.returns, np.zeros_like(self.returns)])
            self.first_rollout = np.concatenate([self.first_rollout, np.zeros_like(self.first_rollout)])
        self.first_rollout[self.game[ended]] = self.iteration
        if self.opponents is not None:
            self.opponents.new_games(ended)

    def _deciders(self) -> tuple[np.ndarray, ...]:
        """The decisions to take now, one per (row, seat) that acts: their
        rows, seats, observations, masks and the reward of each seat's
        previous decision in that game."""
        mask = self.info["action_mask"]
        if not self.simultaneous:
            seats = self.info["current_player"]
            return self.rows, seats, self.obs, mask, self.info["seat_reward"]
        n, p = self.pending.shape
        rows, seats = np.repeat(self.rows, p), np.tile(np.arange(p), n)
        obs, mask = self.obs.reshape(n * p, -1), mask.reshape(n * p, -1)
        return rows, seats, obs, mask, self.pending[rows, seats]

    def _step(self, action: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Step the engine; returns the rows whose game ended, their seats'
        remainders ``(k, num_players)`` and their final scores."""
        if self.simultaneous:
            self.obs, rewards, terminated, truncated, self.info = self.venv.step(action.reshape(self.pending.shape))
            if self.zero_sum:  # (two seats: half the difference, so a won game is still worth 1)
                rewards = rewards - rewards.mean(1, keepdims=True)
        else:
            self.obs, rewards, terminated, truncated, self.info = self.venv.step(action)
        ended = np.flatnonzero(terminated | truncated)
        final = rewards[ended] if self.simultaneous else self.info.get("final_seat_rewards", rewards)[ended]
        self.pending[:] = rewards
        self.pending[ended] = 0.0  # (a new game starts there: nothing is owed)
        return ended, final, self.info["final_scores"][ended] if len(ended) else np.zeros((0, rewards.shape[1]))

    def _decide(self, buf: dict[str, np.ndarray], k: np.ndarray) -> np.ndarray:
        """Take the decisions of this step into ``buf`` at ``k``, paying each
        seat's previous decision; returns the actions."""
        rows, seats, obs, mask, seat_reward = self._deciders()
        x = preprocess(obs)
        state = self.venv.states()[rows] if self.agent.reads_state else None
        c = self.agent.critic_input(x, state, seats)
        with torch.no_grad():
            action, logp, _, value = self.agent.action_and_value(x, torch.tensor(mask), c)
        action, logp, value = action.numpy(), logp.numpy(), value.numpy()
        theirs = np.zeros(len(rows), bool)
        if self.opponents is not None:  # (an opponent's decisions are stored nowhere: never resolved, never trained on)
            theirs = self.opponents.play(rows, seats, obs, mask, action)
        # The seat's previous decision in this game gets its reward and its successor.
        prev = self.waiting[rows, seats]
        paid = (prev >= 0) & ~theirs
        p = prev[paid]
        buf["reward"][p] = seat_reward[paid]
        buf["next_value"][p] = value[paid]
        buf["succ"][p] = k[paid]
        buf["resolved"][p] = True
        taken = {"obs": obs, "mask": mask, "action": action, "logp": logp, "value": value, "state": state}
        for name, v in taken.items():
            if name in self.fields:
                buf[name][k] = v
        buf["game"][k], buf["row"][k], buf["seat"][k] = self.game[rows], rows, seats
        mine = ~theirs
        self.waiting[rows[mine], seats[mine]] = k[mine]
        return action

    def _gae(self, buf: dict[str, np.ndarray], m: int, gamma: float, gae_lambda: float, scale: float) -> np.ndarray:
        """GAE backwards along each seat's decisions: a successor was taken
        later, so it sits in a later block (the carried decisions, block 0,
        come first)."""
        adv = np.zeros(len(buf["action"]), np.float32)
        d = self.per_step
        blocks = [np.arange(m)] + [m + t * d + np.arange(d) for t in range(self.num_steps)]
        for idx in reversed(blocks):
            succ = buf["succ"][idx]
            live = ~buf["done"][idx]
            succ_adv = np.where(live & (succ >= 0), adv[np.maximum(succ, 0)] * buf["resolved"][np.maximum(succ, 0)], 0)
            delta = buf["reward"][idx] * scale + gamma * buf["next_value"][idx] * live - buf["value"][idx]
            adv[idx] = delta + gamma * gae_lambda * succ_adv
        return adv

    def collect(self, gamma: float, gae_lambda: float, reward_scale: float) -> dict[str, Any]:
        """One rollout of ``num_steps`` engine steps.  Returns the resolved
        decisions with their advantages and returns (numpy arrays), and
        ``"games"``: per game that ended in it, ``{"game", "returns",
        "final_scores", "rollouts"}`` (the rollouts it spanned)."""
        m = len(self.carry.get("action", ()))
        size = m + self.num_steps * self.per_step
        buf = {k: np.full((size, *self.shapes.get(k, ())), fill, dtype) for k, (dtype, fill) in self.fields.items()}
        for k, v in self.carry.items():
            buf[k][:m] = v
        ended_games: list[tuple[np.ndarray, np.ndarray]] = []
        for t in range(self.num_steps):
            action = self._decide(buf, m + t * self.per_step + np.arange(self.per_step))
            ended, final, scores = self._step(action)
            if len(ended):
                # Every seat's last decision of an ended game gets the seat's remainder.
                last = self.waiting[ended]
                has = last >= 0
                q = last[has]
                buf["reward"][q] = final[has]
                buf["done"][q] = True
                buf["next_value"][q] = 0.0
                buf["resolved"][q] = True
                self.waiting[ended] = -1
                ended_games.append((self.game[ended].copy(), scores.copy()))
                self._new_games(ended)
        adv = self._gae(buf, m, gamma, gae_lambda, reward_scale)
        # Carry the decisions still waiting into the next rollout.
        flat = self.waiting.reshape(-1)
        has = flat >= 0
        self.carry = {k: buf[k][flat[has]] for k in self.fields}
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
        batch = {k: buf[k][res] for k in BATCH if k in self.fields}
        batch["advantages"] = adv[res]
        batch["returns"] = adv[res] + buf["value"][res]
        batch["games"] = games
        return batch


def ppo_update(agent: ActorCritic, optimizer: torch.optim.Optimizer, batch: dict[str, Any], args: argparse.Namespace):
    """CleanRL's PPO update (clipped objective and value loss, normalised
    advantages per minibatch) over the resolved decisions; the critic reads
    what :meth:`ActorCritic.critic_input` makes of them."""
    t = {k: torch.as_tensor(v) for k, v in batch.items() if k not in ("games", "obs", "state")}
    t["obs"] = preprocess(batch["obs"])
    t["critic"] = agent.critic_input(t["obs"], batch.get("state"), batch["seat"])
    size = len(t["action"])
    mb = max(1, math.ceil(size / args.num_minibatches))
    stats: dict[str, float] = {}
    # how much of the returns' variance the critic explained when the decisions were taken (1 best, <= 0 none)
    spread = float(np.var(batch["returns"])) if size > 1 else 0.0
    explained = 1.0 - float(np.var(batch["returns"] - batch["value"])) / spread if spread > 0 else float("nan")
    for _ in range(args.update_epochs):
        order = torch.randperm(size)
        for start in range(0, size, mb):
            i = order[start : start + mb]
            _, logp, entropy, value = agent.action_and_value(t["obs"][i], t["mask"][i], t["critic"][i], t["action"][i])
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
                    "ev": explained,
                }
    return stats


def make_engine(args: argparse.Namespace, seed: int) -> V.VectorEnv | V.ProcessVectorEnv:
    """The games, in ``args.num_processes`` processes (per-game streams
    then: processes draw for their own games)."""
    if args.num_processes == 1:
        return V.make(args.game, args.num_envs, seed=seed, **args.config)
    return V.make(args.game, args.num_envs, seed=seed, rng="per_game", num_processes=args.num_processes, **args.config)


def evaluate(agent: ActorCritic, args: argparse.Namespace, seed: int) -> tuple[float, float]:
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
        actions = (rng.random(mask.shape) * mask).argmax(axis=-1)
        with torch.no_grad():
            if obs.ndim == 3:  # Spit: every seat acts; the policy plays seat 0
                actions[:, 0] = agent.policy(preprocess(obs[:, 0]), torch.tensor(mask[:, 0])).sample().numpy()
            else:
                policy = agent.policy(preprocess(obs), torch.tensor(mask)).sample().numpy()
                actions = np.where(info["current_player"] == 0, policy, actions)
        obs, rewards, terminated, truncated, info = venv.step(actions)
        total += rewards
        for i in np.flatnonzero(terminated | truncated):
            results.append(total[i].copy())
            total[i] = 0.0
    venv.close()
    r = np.array(results[: args.eval_games])
    return float(r[:, 0].mean()), float(r[:, 1:].mean())


class Snapshots:
    """Saves the actor into ``args.run_dir`` (``policy_<cpu seconds>.pt`` +
    ``.json``, :func:`cardenvs.agents.mlp.save_policy`) every
    ``args.snapshot_every`` CPU-seconds and at the end, and keeps the run's
    record in ``run.json``.  Does nothing without a run directory."""

    def __init__(self, args: argparse.Namespace, agent: ActorCritic):
        self.args, self.agent = args, agent
        self.dir = pathlib.Path(args.run_dir) if args.run_dir else None
        self.next = args.snapshot_every
        self.every_steps = getattr(args, "snapshot_every_steps", None)
        self.next_steps = self.every_steps
        self.saved: list[dict[str, Any]] = []
        if self.dir is not None:
            self.dir.mkdir(parents=True, exist_ok=True)

    def due(self, cpu: float, steps: int = 0) -> bool:
        if self.dir is None:
            return False
        by_steps = self.next_steps is not None and steps >= self.next_steps
        return by_steps or (self.next is not None and cpu >= self.next)

    def save(self, cpu: float, steps: int, iterations: int, final: bool = False) -> None:
        if self.dir is None:
            return
        if self.next is not None:
            self.next = (math.floor(cpu / self.args.snapshot_every) + 1) * self.args.snapshot_every
        if self.every_steps is not None:  # (named by their steps: a run on a steps budget replays its files)
            self.next_steps = (steps // self.every_steps + 1) * self.every_steps
        stem = f"policy_{int(cpu):06d}" if self.every_steps is None else f"policy_{steps:012d}"
        training = {"algorithm": "selfplay_ppo", "critic": self.args.critic, "seed": self.args.seed, "steps": steps}
        training.update(iterations=iterations, cpu_seconds=round(cpu, 3), final=final)
        a = self.agent
        save_policy(
            self.dir / stem,
            a.actor,
            game=self.args.game,
            config=self.args.config,
            obs_size=a.obs_size,
            num_actions=a.num_actions,
            hidden=a.hidden,
            training=training,
        )
        self.saved = [s for s in self.saved if s["file"] != stem + ".json"]  # (the same CPU-second: replaced)
        self.saved.append({"file": stem + ".json", "cpu_seconds": round(cpu, 3), "steps": steps, "final": final})

    def record(self, summary: dict[str, Any]) -> None:
        """Write ``run.json``: the arguments, why and when the run stopped, the snapshots."""
        if self.dir is None:
            return
        keys = ("stop_reason", "steps", "iterations", "cpu_seconds")
        run = {"game": self.args.game, "config": self.args.config, "critic": self.args.critic}
        run.update({k: summary[k] for k in keys}, snapshots=self.saved, args=vars(self.args))
        (self.dir / "run.json").write_text(json.dumps(run, indent=1) + "\n")


def make_agent(args: argparse.Namespace, venv: Any) -> ActorCritic:
    """The network for ``venv``'s game and ``args.critic``."""
    obs_size, num_actions = venv.single_observation_space.shape[0], venv.single_action_space.n
    if args.critic == "state":
        return ActorCritic(obs_size, num_actions, args.hidden, venv.single_state_space.shape[0], venv.num_players)
    return ActorCritic(obs_size, num_actions, args.hidden)


def train_loop(args: argparse.Namespace, agent: ActorCritic, collector: SelfPlayCollector) -> dict[str, Any]:
    """Iterate until the steps or the CPU budget run out; returns the games,
    the losses, the steps, the CPU-seconds and why it stopped."""
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    per_iteration = args.num_envs * args.num_steps
    iterations = max(1, args.total_steps // per_iteration) if args.total_steps is not None else None
    budget = args.cpu_minutes * 60 if args.cpu_minutes is not None else None
    snapshots = Snapshots(args, agent)
    games: list[dict[str, Any]] = []
    losses: list[dict[str, float]] = []
    it, reason = 0, "total_steps"
    clock, start = CpuClock(), time.perf_counter()
    while iterations is None or it < iterations:
        used = max(it / iterations if iterations else 0.0, clock.seconds() / budget if budget else 0.0)
        optimizer.param_groups[0]["lr"] = max(0.0, 1.0 - used) * args.lr
        if collector.opponents is not None and it % args.pool_every == 0:
            collector.opponents.snapshot(agent.actor)
        batch = collector.collect(args.gamma, args.gae_lambda, args.reward_scale)
        stats = ppo_update(agent, optimizer, batch, args)
        games.extend(batch["games"])
        losses.append(stats)
        it += 1
        cpu = clock.seconds()
        if not args.quiet:
            ret = np.mean([g["returns"].mean() for g in batch["games"]]) if batch["games"] else float("nan")
            steps = it * per_iteration
            print(
                f"[{it:>4}/{iterations or '-'}] steps {steps:>9,}  games {len(games):>6}  seat return {ret:8.2f}  "
                f"pg {stats['pg']:+.3f}  v {stats['v']:.3f}  ev {stats['ev']:+.2f}  ent {stats['ent']:.2f}  "
                f"kl {stats['kl']:.4f}  "
                f"{steps / (time.perf_counter() - start):,.0f} steps/s  cpu {cpu:,.0f}s",
                flush=True,
            )
        if budget is not None and cpu >= budget:
            reason = "cpu_budget"
            break
        if snapshots.due(cpu, it * per_iteration):
            snapshots.save(cpu, it * per_iteration, it)
    cpu = clock.seconds()
    snapshots.save(cpu, it * per_iteration, it, final=True)
    out = {"games": games, "losses": losses, "steps": it * per_iteration, "iterations": it}
    out.update(cpu_seconds=cpu, seconds=time.perf_counter() - start, stop_reason=reason)
    snapshots.record(out)
    return out


def train(args: argparse.Namespace) -> dict[str, Any]:
    """Train; returns a summary: ``"games"`` (per game that ended, the per-seat
    returns the rollouts assigned and the game's final scores), ``"losses"``
    (per iteration, the last minibatch's), the mean seat return of the first
    and last tenth of the games, the evaluations before and after, steps,
    CPU-seconds, seconds and ``"stop_reason"`` (``"cpu_budget"`` or
    ``"total_steps"``)."""
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    engine = make_engine(args, args.seed)
    venv = engine if engine.batch_shape != (engine.num_envs,) else V.SeatRewards(engine)  # Spit needs no accounting
    agent = make_agent(args, venv)
    opponents = Opponents(args.opponent_mix, args, args.num_envs, args.seed) if args.opponent_mix else None
    collector = SelfPlayCollector(venv, agent, args.num_steps, args.seed, opponents, args.zero_sum)
    eval_before = evaluate(agent, args, args.seed + 1) if args.eval_games else None
    per_iteration = args.num_envs * args.num_steps
    mix = ", ".join(f"{kind} in {share:.0%}" for kind, share in args.opponent_mix.items())
    who = f"the policy against {mix} of the games, itself in the rest" if mix else "all played by one policy"
    print(
        f"{args.game} {json.dumps(args.config)}: {venv.num_players} seats, {who}; "
        f"the critic reads the {'state and the seat' if args.critic == 'state' else 'observation'}; "
        f"{args.num_envs} games x {args.num_steps} steps per rollout, "
        f"{'no step limit' if args.total_steps is None else f'{max(1, args.total_steps // per_iteration)} iterations'}"
        + (f", {args.cpu_minutes:g} CPU-minutes" if args.cpu_minutes is not None else "")
    )
    summary = train_loop(args, agent, collector)
    venv.close()
    games, seconds = summary["games"], summary["seconds"]
    tenth = max(1, len(games) // 10)
    seat_returns = [g["returns"].mean() for g in games]
    summary["start_return"] = float(np.mean(seat_returns[:tenth])) if games else float("nan")
    summary["end_return"] = float(np.mean(seat_returns[-tenth:])) if games else float("nan")
    summary["eval_before"] = eval_before
    summary["eval_after"] = evaluate(agent, args, args.seed + 1) if args.eval_games else None
    print(
        f"\ndone: {summary['steps']:,} steps, {len(games)} games in {seconds:.1f}s "
        f"({summary['cpu_seconds']:.1f} CPU-s; stopped by {summary['stop_reason']})"
    )
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
