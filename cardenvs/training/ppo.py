"""Training baseline agents with sb3-contrib's MaskablePPO on the batched
engine (:class:`cardenvs.training.seat_env.SeatVecEnv`).

:func:`train` runs up to two stages: against fixed opponents (rule-based or
random), then self-play against frozen snapshots of the learner (refreshed
every ``snapshot_every`` steps).  With ``advice=True`` the learner is a
rule-advised policy (:mod:`cardenvs.agents.advice`): it starts out playing like the
rule-based agent and learns where to deviate.  It writes checkpoints, the final model, a
learning curve (PNG) and the evaluation results into ``run_dir``.
The per-game scripts in ``examples/train_<game>.py`` call it with their
defaults.
"""

from __future__ import annotations

import json
import pathlib
import time
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

import numpy as np

from ..agents.policy import FrozenPolicyAgent, PolicyAgent, load_model, one_torch_thread, save_trained
from ..core.agent import Agent, RandomAgent
from ..evaluation.matches import match
from .curves import plot_curve
from .seat_env import learner_vec_env


@dataclass
class TrainConfig:
    game: str
    env_config: dict = field(default_factory=dict)  # options of the training episodes
    eval_config: dict = field(default_factory=dict)  # options of the evaluation games
    fixed_steps: int = 200_000  # learner steps against the fixed opponents
    selfplay_steps: int = 0  # then learner steps of self-play
    team_steps: int = 0  # then steps with its own snapshot as partner against the fixed opponents
    wall_seconds: float = 0.0  # stop training once this much wall time has passed (0: no limit)
    init_model: str | None = None  # continue training this saved model
    snapshot_every: int = 50_000
    num_envs: int = 64
    n_steps: int = 128  # per env and rollout
    batch_size: int = 1024
    n_epochs: int = 4
    learning_rate: float = 3e-4
    gamma: float = 0.99
    # GAE's lambda: lower values credit an action mostly with what follows it soon (less variance
    # from the far end of the game, more reliance on the value estimate)
    gae_lambda: float = 0.95
    reward_mode: str = "seat"  # or "relative": minus the opponents' mean (zero-sum)
    ent_coef: float = 0.01
    net_arch: tuple = (256, 256)
    # 0, or the features per repeat of each repeated observation block wider than that (Push's 36
    # meld slots of 132), encoded by one shared layer (agents/slot_features.py): a cheaper first layer
    slot_features: int = 0
    eval_games: int = 200
    seed: int = 0
    checkpoint_every: int = 100_000
    advice: bool = False  # a rule-advised policy (agents/advice.py)
    advice_weight: float = 4.0  # its initial trust in the advice (a logit bonus)
    # options of the rule agent that gives the advice (its teacher), e.g. Spit's {"deny": True};
    # saved with the model, so make_agent(game, "ppo") builds the same teacher
    advisor_options: dict = field(default_factory=dict)
    # added to every learner step's reward (seat_env._SB3VecEnv.step_reward): a negative cost of time
    # keeps the learner from stalling where a draw by the tick limit would beat a loss (Spit)
    step_reward: float = 0.0
    # Model selection: every ``select_every`` learner steps (0: never) the policy plays
    # ``select_games`` evaluation games against the rule agent on ``select_seed`` (seeds held
    # out from every final evaluation), and the best policy seen, the last one included, is kept.
    select_every: int = 0
    select_games: int = 200
    select_seed: int = 5000


# The light recipe (every game's default, examples/train_<game>.py): many games at once, one
# epoch over large batches and a small network keep PPO's update cheap next to the engine
# (64 games, 4 epochs and 256x256 ran several times slower and learned no better).
LIGHT_RECIPE: dict[str, Any] = {"num_envs": 256, "n_epochs": 1, "batch_size": 4096, "net_arch": (128, 128)}


class Selection:
    """Model selection on held-out seeds (``TrainConfig.select_*``): each
    candidate policy plays the rule agent on the selection seeds; the best
    one is saved to ``path`` and becomes the trained model.  A policy's
    evaluation can only go up and down with training (PPO is not monotone:
    in Pepper, later policies lost what earlier ones had), so keeping the
    best on seeds of its own is how the run's result is not left to chance.

    Every candidate meets the same deals, so the deals' luck is the same for
    all of them, but not zero: the rule agent in the candidate's place (the
    *reference*, played once) shows where "as good as the rule agent" lies
    on these seeds (in Push it is well above half)."""

    def __init__(self, cfg: TrainConfig, rule_agent: Agent, advisor: Agent | None, path: pathlib.Path, log):
        self.cfg, self.rule, self.advisor, self.path, self.log = cfg, rule_agent, advisor, path, log
        self.history: list[dict[str, float]] = []
        self.best: tuple[float, int] | None = None  # (win rate, learner steps)
        self.reference: float | None = None  # the rule agent's own win rate in the candidate's place

    def consider(self, model: Any) -> None:
        cfg = self.cfg
        if self.reference is None:
            ref = match(cfg.game, self.rule, self.rule, cfg.select_games, seed=cfg.select_seed, **cfg.eval_config)
            self.reference = ref.win_rate
        agent = PolicyAgent(model, name="candidate", advisor=self.advisor)
        res = match(cfg.game, agent, self.rule, cfg.select_games, seed=cfg.select_seed, **cfg.eval_config)
        steps = int(model.num_timesteps)
        self.history.append({"steps": steps, "win_rate": res.win_rate})
        self.log(f"selection at {steps:,} steps: {res} (the rule agent in its place: {self.reference:.1%})")
        if self.best is None or res.win_rate > self.best[0]:
            self.best = (res.win_rate, steps)
            model.save(str(self.path))

    def chosen(self, model: Any, env: Any) -> Any:
        """The best policy of the run (the last one is a candidate too)."""
        self.consider(model)
        if self.best is not None and self.best[1] == int(model.num_timesteps):
            return model
        return load_model(f"{self.path}.zip", env=env)

    def summary(self) -> dict[str, Any]:
        cfg = self.cfg
        chosen = None if self.best is None else self.best[1]
        return {
            "seed": cfg.select_seed,
            "games": cfg.select_games,
            "rule_reference": self.reference,
            "chosen_steps": chosen,
            "history": self.history,
        }


def _opponent_names() -> tuple[str, ...]:
    return ("random", "rule")


def train(
    cfg: TrainConfig,
    rule_agent: Agent,
    run_dir: str | pathlib.Path,
    model_path: str | pathlib.Path | None,
    opponent: str = "rule",
    progress_bar: bool = True,
    log=print,
) -> dict[str, Any]:
    """Train, save and evaluate; returns the evaluation summary.  The kept
    policy goes to ``model_path`` (None: nowhere) as a cardenvs policy file
    (it loads without unpickling: ``make_agent(game, "ppo:PATH")``), or as an
    SB3 zip when the path ends in ``.zip``; ``run_dir/final_model.zip`` is
    always the SB3 zip, with the optimizer's state, to train on from."""
    one_torch_thread()  # the engine and the policy share two cores
    run_dir = pathlib.Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    if opponent not in _opponent_names():
        raise ValueError(f"opponent must be one of {_opponent_names()}, got {opponent!r}")
    fixed = rule_agent if opponent == "rule" else RandomAgent(cfg.seed)
    cfg = replace(cfg, advisor_options=_advisor_options(cfg))  # (a model trained on goes on with its teacher)
    advisor = _advisor(cfg, rule_agent) if cfg.advice else None
    env = learner_vec_env(
        cfg.game,
        cfg.num_envs,
        opponents=fixed,
        partner=fixed,
        seed=cfg.seed,
        reward_mode=cfg.reward_mode,
        advisor=advisor,
        **cfg.env_config,
    )
    env.step_reward = cfg.step_reward
    model = _new_model(cfg, env)
    curve: list[tuple[int, float]] = []
    selection = Selection(cfg, rule_agent, advisor, run_dir / "best_model", log) if cfg.select_every else None
    t0, cpu0 = time.perf_counter(), time.process_time()
    _run_stages(cfg, model, env, fixed, advisor, curve, run_dir, progress_bar, log, selection)
    run_steps = int(model.num_timesteps)
    if selection is not None:
        model = selection.chosen(model, env)
    train_seconds = time.perf_counter() - t0
    train_cpu_seconds = time.process_time() - cpu0  # the budget: CPU time, whatever else shares the machine
    if model_path:  # a policy file (loads without unpickling), or an SB3 zip for a path ending in .zip
        save_trained(model, model_path)
    model.save(str(run_dir / "final_model"))  # the SB3 zip, with the optimizer's state, to train on (--init)
    plot_curve(curve, run_dir / "learning_curve.png", f"{cfg.game}: MaskablePPO training return")
    summary = {
        "config": asdict(cfg),
        "opponent": opponent,
        "train_seconds": round(train_seconds, 1),
        "train_cpu_seconds": round(train_cpu_seconds, 1),
        "timesteps": int(model.num_timesteps),  # the kept policy's learner steps
        "run_timesteps": run_steps,  # the whole run's (the CPU time is the whole run's)
        "results": _evaluate(cfg, model, advisor, rule_agent, log),
    }
    if cfg.advice:  # how far the kept policy came to trust the rule agent (it starts at cfg.advice_weight)
        summary["advice_weight_kept"] = round(float(model.policy.advice_weight.detach()), 4)
    if selection is not None:
        summary["selection"] = selection.summary()
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary


def _advisor_options(cfg: TrainConfig) -> dict:
    """The teacher's options: ``cfg.advisor_options``, or those saved in
    ``cfg.init_model`` when training goes on from it (other ones given for
    it are a ``ValueError``: the policy has learned on top of its teacher)."""
    if not (cfg.advice and cfg.init_model):
        return dict(cfg.advisor_options)
    from ..agents.advice import advisor_options

    saved = advisor_options(load_model(cfg.init_model))
    if cfg.advisor_options and cfg.advisor_options != saved:
        raise ValueError(
            f"{cfg.init_model} was advised by the rule agent with options {saved}, "
            f"not {cfg.advisor_options}: train on with its own teacher (leave out advisor_options)"
        )
    return saved


def _advisor(cfg: TrainConfig, rule_agent: Agent) -> Agent:
    """The teacher of an advised policy: the rule agent, with ``cfg.advisor_options`` if any."""
    if not cfg.advisor_options:
        return rule_agent
    from ..agents.registry import rule_agent as make_rule_agent

    return make_rule_agent(cfg.game, **cfg.eval_config, **cfg.advisor_options)


def _new_model(cfg: TrainConfig, env: Any) -> Any:
    """A fresh MaskablePPO (rule-advised with ``cfg.advice``), or ``cfg.init_model`` loaded."""
    from sb3_contrib import MaskablePPO

    if cfg.init_model:
        return load_model(cfg.init_model, env=env)
    from ..agents.legal_logits import GATHER_FROM, LegalPolicy

    # (Push-sized action spaces train over each row's legal actions: LegalPolicy; the others the stock policy)
    policy: Any = LegalPolicy if env.action_space.n >= GATHER_FROM else "MlpPolicy"
    policy_kwargs: dict[str, Any] = {"net_arch": list(cfg.net_arch)}
    if cfg.advice:
        from ..agents.advice import AdvisedPolicy

        policy = AdvisedPolicy
        policy_kwargs.update(
            advice_size=env.action_space.n, advice_weight=cfg.advice_weight, advisor_options=dict(cfg.advisor_options)
        )
    if cfg.slot_features:
        from ..agents.slot_features import slot_policy_kwargs

        advice = env.action_space.n if cfg.advice else 0
        policy_kwargs.update(slot_policy_kwargs(cfg.game, env.observation_space, cfg.slot_features, advice))
    from ..agents.rollout_buffer import KeptRolloutBuffer

    return MaskablePPO(
        policy,
        env,
        rollout_buffer_class=KeptRolloutBuffer,
        n_steps=cfg.n_steps,
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        learning_rate=cfg.learning_rate,
        gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda,
        ent_coef=cfg.ent_coef,
        policy_kwargs=policy_kwargs,
        seed=cfg.seed,
        device="cpu",
        verbose=0,
    )


def _callbacks(
    cfg: TrainConfig,
    curve: list[tuple[int, float]],
    run_dir: pathlib.Path,
    selection: Selection | None,
    log=None,
) -> tuple[Any, Any, Any]:
    """(the learning-curve callback, the snapshot-refresh callback class, the
    checkpoint callbacks: checkpoints, with ``selection`` candidates, with
    ``log`` a progress line at every checkpoint, for runs without a progress bar)."""
    from stable_baselines3.common.callbacks import BaseCallback, CheckpointCallback

    class Curve(BaseCallback):
        """Collects every finished training episode's return."""

        def _on_step(self) -> bool:
            for info in self.locals["infos"]:
                if "episode" in info:
                    curve.append((self.num_timesteps, info["episode"]["r"]))
            return True

    class SelfPlay(BaseCallback):
        """Refreshes the frozen snapshot every ``snapshot_every`` steps."""

        def __init__(self, snapshot: FrozenPolicyAgent):
            super().__init__()
            self.snapshot, self.last = snapshot, 0

        def _on_step(self) -> bool:
            if self.num_timesteps - self.last >= cfg.snapshot_every:
                self.snapshot.update()
                self.last = self.num_timesteps
            return True

    class Candidates(BaseCallback):
        """Hands the policy to the model selection every ``select_every`` steps."""

        def __init__(self):
            super().__init__()
            self.last = 0

        def _on_step(self) -> bool:
            if self.num_timesteps - self.last >= cfg.select_every:
                selection.consider(self.model)
                self.last = self.num_timesteps
            return True

    checkpoints = CheckpointCallback(
        save_freq=max(1, cfg.checkpoint_every // cfg.num_envs),
        save_path=str(run_dir / "checkpoints"),
        name_prefix=cfg.game,
    )

    class Progress(BaseCallback):
        """A line per ``checkpoint_every`` steps: steps, CPU time, mean recent return."""

        def __init__(self):
            super().__init__()
            self.last, self.cpu0 = 0, time.process_time()

        def _on_step(self) -> bool:
            if self.num_timesteps - self.last >= cfg.checkpoint_every:
                self.last = self.num_timesteps
                cpu = time.process_time() - self.cpu0
                recent = [r for _, r in curve[-200:]]
                mean = f"{np.mean(recent):+.3f}" if recent else "-"
                log(
                    f"{self.num_timesteps:,} steps, {cpu / 60:.1f} CPU-min since this stage began, "
                    f"mean return of the last {len(recent)} episodes {mean}"
                )
            return True

    stop = _deadline_callback(time.perf_counter() + cfg.wall_seconds if cfg.wall_seconds else None)
    saving = [checkpoints, stop] if selection is None else [checkpoints, Candidates(), stop]
    if log is not None:
        saving.append(Progress())
    return Curve(), SelfPlay, saving


def _deadline_callback(deadline: float | None) -> Any:
    """An SB3 callback that stops learning once the wall-clock ``deadline`` has passed."""
    from stable_baselines3.common.callbacks import BaseCallback

    class Deadline(BaseCallback):
        def _on_step(self) -> bool:
            return not past(deadline)

    return Deadline()


def past(deadline: float | None) -> bool:
    """Whether the wall-clock ``deadline`` (``time.perf_counter()``) has passed; never, for None."""
    return deadline is not None and time.perf_counter() >= deadline


def _run_stages(cfg, model, env, fixed, advisor, curve, run_dir, progress_bar, log, selection=None) -> None:
    """Against the fixed agents, then self-play, then with its own snapshot as partner."""
    curve_cb, SelfPlay, saving = _callbacks(cfg, curve, run_dir, selection, None if progress_bar else log)
    deadline = time.perf_counter() + cfg.wall_seconds if cfg.wall_seconds else None
    if cfg.fixed_steps:
        log(f"stage 1: {cfg.fixed_steps:,} steps against {fixed.name} opponents and partner")
        model.learn(cfg.fixed_steps, callback=[curve_cb, *saving], progress_bar=progress_bar)
    if cfg.selfplay_steps and not past(deadline):
        snapshot = FrozenPolicyAgent(model, advisor=advisor)
        env.opponents = env.partner = snapshot
        log(f"stage 2: {cfg.selfplay_steps:,} steps of self-play against frozen snapshots")
        model.learn(
            cfg.selfplay_steps,
            callback=[curve_cb, SelfPlay(snapshot), *saving],
            reset_num_timesteps=False,
            progress_bar=progress_bar,
        )
    if cfg.team_steps and not past(deadline):
        # as evaluated: the learner's own policy as partner, the fixed agent as opponents
        partner = FrozenPolicyAgent(model, name="partner", advisor=advisor)
        env.opponents, env.partner = fixed, partner
        log(f"stage 3: {cfg.team_steps:,} steps with its own snapshot as partner against {fixed.name} opponents")
        model.learn(
            cfg.team_steps,
            callback=[curve_cb, SelfPlay(partner), *saving],
            reset_num_timesteps=False,
            progress_bar=progress_bar,
        )
    if past(deadline):
        log(f"time is up: training stopped after {cfg.wall_seconds / 60:g} minutes of wall time")


def _evaluate(cfg: TrainConfig, model: Any, advisor: Agent | None, rule_agent: Agent, log) -> list[dict]:
    """The trained policy against random and the rule-based agent."""
    trained = PolicyAgent(model, name="ppo", advisor=advisor)
    results = []
    for opp in (RandomAgent(cfg.seed + 1), rule_agent):
        res = match(cfg.game, trained, opp, cfg.eval_games, seed=cfg.seed + 7, **cfg.eval_config)
        log(str(res))
        log(res.verdict())
        lo, hi = res.ci
        results.append(
            {
                "opponent": opp.name,
                "games": res.games,
                "wins": res.wins,
                "win_rate": res.win_rate,
                "ci95": [lo, hi],
                "mean_score": res.mean_score,
                "mean_opponent_score": res.mean_opponent_score,
                "chance": res.chance,
                "verdict": res.verdict(),
            }
        )
    return results


# the fields --set may override, with their defaults (a value must have the default's type)
TRAIN_FIELDS = {
    f.name: f.default
    for f in fields(TrainConfig)
    if f.name not in ("game", "env_config", "eval_config", "advisor_options")
}


def parse_overrides(items: list[str], allowed: dict[str, Any] | None, flag: str) -> dict[str, Any]:
    """``["a=1", "b=(2,3)", "c=text"]`` -> ``{"a": 1, "b": (2, 3), "c": "text"}``: each
    value is a Python literal, else kept as text.  With ``allowed`` (name ->
    default), a name outside it or a value of another type than its default
    (an int where a float is due is fine) is a ValueError naming the flag."""
    import ast

    out: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ValueError(f"{flag} takes NAME=VALUE, got {item!r}")
        if allowed is not None and name not in allowed:
            raise ValueError(f"{flag}: unknown field {name!r}; one of {sorted(allowed)}")
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            value = text
        if allowed is not None and not _same_kind(value, allowed[name]):
            raise ValueError(f"{flag}: {name} takes a {type(allowed[name]).__name__}, got {text!r}")
        out[name] = value
    return out


def _same_kind(value: Any, default: Any) -> bool:
    if default is None or isinstance(default, str):  # init_model, reward_mode
        return value is None or isinstance(value, str)
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(default, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float))
    if isinstance(default, tuple):
        return isinstance(value, (tuple, list)) and all(isinstance(x, int) for x in value)
    return isinstance(value, type(default))
