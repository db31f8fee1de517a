"""Small MLP policies learned from scratch (``examples/selfplay_ppo.py``),
their file format, and :class:`MLPAgent`, which plays one.

The network and the preprocessing live here, and the example trains with
these very functions, so a saved policy plays exactly as it was trained:
observations are squashed by :func:`symlog` (scores and counts can be
large) and fed to :func:`build_mlp` (tanh hidden layers, one logit per
action; illegal actions are masked out).

The file format: a policy is two files with one stem, nothing in either
runs code when read.

- ``STEM.pt``: the actor's weights, a torch state dict of tensors only
  (``torch.save(actor.state_dict())``), read back with
  ``torch.load(..., weights_only=True)`` (torch's restricted unpickler,
  which builds tensors and plain containers only; ``pickle`` is never
  called).
- ``STEM.json``: what the weights are: ``{"format": "cardenvs-mlp-policy",
  "version": 1, "game", "config" (the game options it trained with),
  "obs_size", "num_actions", "hidden" (the hidden layers' widths),
  "activation": "tanh", "preprocess": "symlog", "weights" (the ``.pt``
  file's name, beside it), "sha256" (of that file), "training" (a free
  record: steps, CPU-seconds, ...)}``.

:meth:`MLPAgent.load` checks all of it and raises ValueError naming the file
and the fault, before it allocates anything the file declares: the JSON
(at most :data:`MAX_JSON_BYTES`, each key once), its sizes (each at most
:data:`MAX_SIZE`, at most :data:`MAX_PARAMETERS` weights in all), its
``config`` (options of its game that give ``obs_size`` and
``num_actions``), then the weights file: its size against the weights
declared, its digest (a file changed after saving is refused before torch
reads it), and every tensor's name, shape and dtype against the sizes.  The
network is made from the tensors read, never initialised at the declared
sizes first.  :func:`save_policy` writes only what this loader reads back.
"""

from __future__ import annotations

import hashlib
import json
import math
import pathlib
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.agent import Agent
from .checkpoint import TRAIN_EXTRA, repeated

try:
    import torch
    from torch import nn
except ImportError as exc:  # pragma: no cover - only without the train extra
    raise ImportError(TRAIN_EXTRA) from exc

__all__ = ["FORMAT", "VERSION", "MLPAgent", "build_mlp", "imitate", "layer", "read_policy", "save_policy", "symlog"]

FORMAT, VERSION = "cardenvs-mlp-policy", 1
MAX_BYTES = 2**31  # the largest weights file read (a policy of these sizes is a few MB)
MAX_SIZE = 10**7  # the most observation columns / actions / hidden units a file may declare
MAX_PARAMETERS = MAX_BYTES // 4  # the most float32 weights a file may declare (what MAX_BYTES holds)
MAX_JSON_BYTES = 2**20  # the largest description read (a policy's is under 2 KB)
MAX_LAYERS = 8  # hidden layers
VIEW_OPTIONS = ("illegal_action", "obs_dtype", "render_mode")  # options of a view, not of the rules
REQUIRED = ("game", "config", "obs_size", "num_actions", "hidden", "activation", "preprocess", "weights", "sha256")


def symlog(x: Any) -> torch.Tensor:
    """Observations (or states) as float32, squashed: ``sign(x) log(1 + |x|)``."""
    t = torch.as_tensor(np.asarray(x, np.float32))
    return torch.sign(t) * torch.log1p(torch.abs(t))


def layer(n_in: int, n_out: int, std: float = math.sqrt(2)) -> nn.Linear:
    """A linear layer with orthogonal weights (gain ``std``) and zero bias."""
    lin = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.zeros_(lin.bias)
    return lin


def build_mlp(n_in: int, hidden: Sequence[int], n_out: int, out_std: float = 0.01) -> nn.Sequential:
    """``n_in`` -> tanh layers of widths ``hidden`` -> ``n_out`` (the last
    layer's weights of gain ``out_std``: 0.01 for an actor's logits, so it
    starts near uniform; 1 for a critic)."""
    parts: list[nn.Module] = []
    for width in hidden:
        parts += [layer(n_in, width), nn.Tanh()]
        n_in = width
    return nn.Sequential(*parts, layer(n_in, n_out, out_std))


def imitate(
    net: nn.Module, x: Any, mask: Any, choice: Any, *, epochs: int, lr: float = 1e-3, batch: int = 1024, seed: int = 0
) -> list[float]:
    """Fit ``net`` to pick ``choice`` (an action per row) among the legal
    actions of ``mask`` from the observations ``x`` (squashed here by
    :func:`symlog`): masked cross-entropy, Adam, shuffled minibatches.
    Returns each epoch's mean loss.  Behaviour cloning and expert iteration
    both fit this way."""
    x, m, y = symlog(x), torch.as_tensor(np.asarray(mask, bool)), torch.as_tensor(np.asarray(choice, np.int64))
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    rng, losses = np.random.default_rng(seed), []
    for _ in range(epochs):
        order, total = rng.permutation(len(x)), 0.0
        for start in range(0, len(x), batch):
            idx = torch.as_tensor(order[start : start + batch])
            loss = nn.functional.cross_entropy(net(x[idx]).masked_fill(~m[idx], -1e9), y[idx])
            opt.zero_grad(), loss.backward(), opt.step()
            total += float(loss.detach()) * len(idx)
        losses.append(total / max(1, len(x)))
    return losses


def _sha256(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def save_policy(
    stem: str | pathlib.Path,
    actor: nn.Module,
    *,
    game: str,
    config: dict[str, Any],
    obs_size: int,
    num_actions: int,
    hidden: Sequence[int],
    training: dict[str, Any] | None = None,
) -> pathlib.Path:
    """Write ``actor`` (made by :func:`build_mlp` with these sizes) as
    ``STEM.pt`` + ``STEM.json`` (see the module doc); returns the JSON's path.
    ``config`` and ``training`` must be JSON-serialisable (TypeError
    otherwise); a description :func:`read_policy` would refuse (sizes, game,
    config) or an ``actor`` whose weights are not of these sizes is a
    ValueError.  Both are raised before anything is written."""
    stem = pathlib.Path(stem)
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "game": game,
        "config": config,
        "obs_size": int(obs_size),
        "num_actions": int(num_actions),
        "hidden": [int(h) for h in hidden],
        "activation": "tanh",
        "preprocess": "symlog",
        "weights": stem.name + ".pt",
        "sha256": "0" * 64,
        "training": training or {},
    }
    json.dumps(meta)  # (raises before any file is written)
    where = f"save_policy({str(stem)!r})"
    _check_meta(meta, where)
    state = {k: v.detach().clone().contiguous() for k, v in actor.state_dict().items()}
    _check_tensors(state, meta, where)
    weights = stem.with_name(meta["weights"])
    torch.save(state, weights)
    meta["sha256"] = _sha256(weights)
    path = stem.with_name(stem.name + ".json")
    path.write_text(json.dumps(meta, indent=1) + "\n")
    return path


def _meta_path(path: pathlib.Path) -> pathlib.Path:
    """The JSON of a policy given as ``STEM.json``, ``STEM.pt`` or ``STEM``."""
    if path.suffix == ".json":
        return path
    if path.suffix == ".pt":
        return path.with_suffix(".json")
    return path.with_name(path.name + ".json")


def layer_shapes(obs_size: int, hidden: Sequence[int], num_actions: int) -> dict[str, tuple[int, ...]]:
    """The names and shapes of the weights of :func:`build_mlp` with these
    sizes (its state dict), worked out without building it."""
    sizes = [obs_size, *hidden, num_actions]
    shapes: dict[str, tuple[int, ...]] = {}
    for k, (n_in, n_out) in enumerate(zip(sizes, sizes[1:])):  # (Linear at 2k, Tanh at 2k + 1)
        shapes[f"{2 * k}.weight"], shapes[f"{2 * k}.bias"] = (n_out, n_in), (n_out,)
    return shapes


def _weight_count(meta: dict[str, Any]) -> int:
    """How many numbers the network of ``meta``'s sizes holds."""
    shapes = layer_shapes(meta["obs_size"], meta["hidden"], meta["num_actions"])
    return sum(math.prod(shape) for shape in shapes.values())


def _positive(value: Any, key: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_SIZE:
        raise ValueError(f"{where}: {key} must be a positive int (at most {MAX_SIZE}), got {value!r:.80}")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are given once each (JSON would keep the
    later of two values silently: a reader and the loader could differ)."""
    twice = repeated([key for key, _ in pairs])
    if twice is not None:
        raise ValueError(f"the key {twice!r} is given more than once")
    return dict(pairs)


def _check_config(meta: dict[str, Any], where: str) -> None:
    """``config``: options of ``game`` (view options aside) whose rules have
    the declared ``obs_size`` and ``num_actions``."""
    from cardenvs.core.options import build_rules
    from cardenvs.registry import rules_class

    config = meta["config"]
    if not isinstance(config, dict):
        raise ValueError(f"{where}: config must be an object, got {config!r:.80}")
    try:
        rules = build_rules(rules_class(meta["game"]), {k: v for k, v in config.items() if k not in VIEW_OPTIONS})
    except (ValueError, TypeError, OverflowError) as exc:
        raise ValueError(f"{where}: config {config!r:.120} is not {meta['game']}'s options ({exc})") from None
    if (rules.obs_size, rules.num_actions) != (meta["obs_size"], meta["num_actions"]):
        raise ValueError(
            f"{where}: obs_size {meta['obs_size']} and num_actions {meta['num_actions']} are not the shapes of "
            f"{meta['game']} with its config {config} ({rules.obs_size} and {rules.num_actions})"
        )


def _check_meta(meta: Any, where: str) -> dict[str, Any]:
    """The sidecar's fields, checked (ValueError naming the fault); nothing
    of the declared sizes is allocated."""
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{where} is not a cardenvs MLP policy (no 'format': {FORMAT!r})")
    if meta.get("version") != VERSION:
        raise ValueError(f"{where}: version {meta.get('version')!r} is not supported (this cardenvs reads {VERSION})")
    missing = [k for k in REQUIRED if k not in meta]
    if missing:
        raise ValueError(f"{where}: missing {missing}")
    from cardenvs.registry import GAMES

    if not isinstance(meta["game"], str) or meta["game"] not in GAMES:
        raise ValueError(f"{where}: unknown game {meta['game']!r:.80}; available: {list(GAMES)}")
    _positive(meta["obs_size"], "obs_size", where)
    _positive(meta["num_actions"], "num_actions", where)
    hidden = meta["hidden"]
    if not isinstance(hidden, list) or not 0 < len(hidden) <= MAX_LAYERS:
        raise ValueError(f"{where}: hidden must be a list of 1 to {MAX_LAYERS} layer widths, got {hidden!r:.80}")
    for width in hidden:
        _positive(width, "each hidden width", where)
    count = _weight_count(meta)
    if count > MAX_PARAMETERS:
        raise ValueError(f"{where}: its sizes make {count:,} weights; a policy file holds at most {MAX_PARAMETERS:,}")
    if meta["activation"] != "tanh" or meta["preprocess"] != "symlog":
        raise ValueError(f"{where}: only activation 'tanh' and preprocess 'symlog' are known")
    if not isinstance(meta["weights"], str) or not re.fullmatch(r"[\w.-]+\.pt", meta["weights"]):
        raise ValueError(f"{where}: weights must name a .pt file beside it, got {meta['weights']!r:.80}")
    if not isinstance(meta["sha256"], str) or not re.fullmatch(r"[0-9a-f]{64}", meta["sha256"]):
        raise ValueError(f"{where}: sha256 must be 64 hex digits")
    _check_config(meta, where)
    return meta


def _check_tensors(state: Any, meta: dict[str, Any], where: Any) -> None:
    """``state`` is exactly the weights of the sizes ``meta`` declares:
    their names, shapes and dtype (float32), all finite numbers."""
    expected = layer_shapes(meta["obs_size"], meta["hidden"], meta["num_actions"])
    if not isinstance(state, dict) or set(state) != set(expected):
        names = sorted(map(str, state)) if isinstance(state, dict) else type(state).__name__
        raise ValueError(f"{where}: weights {names} are not the network's {sorted(expected)}")
    for name, shape in expected.items():
        value = state[name]
        if not isinstance(value, torch.Tensor) or tuple(value.shape) != shape or value.dtype != torch.float32:
            got = (tuple(value.shape), value.dtype) if isinstance(value, torch.Tensor) else type(value).__name__
            raise ValueError(f"{where}: {name} is {got}, the network needs {(shape, torch.float32)}")
        if not torch.isfinite(value).all():
            raise ValueError(f"{where}: {name} holds non-finite numbers")


def _load_weights(path: pathlib.Path, meta: dict[str, Any]) -> dict[str, torch.Tensor]:
    """The weights at ``path``, checked: its size against the weights its
    JSON declares, its digest, then torch's weights-only load, then the
    exact names, shapes and dtypes (:func:`_check_tensors`)."""
    if not path.is_file():
        raise ValueError(f"{path}: no such weights file")
    size = path.stat().st_size
    declared = 4 * _weight_count(meta)  # (float32)
    if size > MAX_BYTES:
        raise ValueError(f"{path}: larger than {MAX_BYTES} bytes")
    if size < declared:
        raise ValueError(f"{path}: {size:,} bytes, fewer than the {declared:,} its JSON's sizes need")
    if _sha256(path) != meta["sha256"]:
        raise ValueError(f"{path} does not match the sha256 in its JSON (changed after it was saved)")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # (torch raises several kinds for a malformed file)
        raise ValueError(f"{path}: not a torch state dict of tensors ({type(exc).__name__}: {exc})") from None
    _check_tensors(state, meta, path)
    return state


def read_policy(path: str | pathlib.Path) -> tuple[nn.Sequential, dict[str, Any]]:
    """The actor network and the description of the policy at ``path``
    (``STEM.json``, ``STEM.pt`` or ``STEM``); ValueError for a missing,
    malformed or inconsistent file (see the module doc)."""
    where = _meta_path(pathlib.Path(path))
    if not where.is_file():
        raise ValueError(f"{where}: no such policy description (a policy is STEM.json + STEM.pt)")
    if where.stat().st_size > MAX_JSON_BYTES:
        raise ValueError(f"{where}: larger than {MAX_JSON_BYTES:,} bytes, not a policy's description")
    try:
        meta = json.loads(where.read_text(), object_pairs_hook=_unique_keys)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # (json.JSONDecodeError is a ValueError)
        raise ValueError(f"{where}: not JSON with one value per key ({exc})") from None
    meta = _check_meta(meta, str(where))
    state = _load_weights(where.with_name(meta["weights"]), meta)
    with torch.device("meta"):  # (the layers without storage: the tensors read become their weights)
        actor = build_mlp(meta["obs_size"], meta["hidden"], meta["num_actions"])
    actor.load_state_dict(state, assign=True)
    actor.eval()
    return actor, meta


class MLPAgent(Agent):
    """A policy saved by :func:`save_policy` as an agent.

    ``greedy=True`` (default): each row's action is the legal one with the
    highest logit (deterministic; ties go to the lowest id).  ``greedy=False``:
    sampled from the masked softmax with this agent's own generator, seeded
    by ``seed`` (so a seeded agent replays exactly), or in a duplicate match
    from the match's streams of the deal and seat (:meth:`act_streams`).  :meth:`act_batch` takes
    one observation per row, as the policy saw them in training: in Spit, one
    seat's observation ``obs[:, seat]`` and mask ``mask[:, seat]`` (as
    :mod:`cardenvs.evaluation.matches` and the duplicate matches feed agents).
    """

    name = "mlp"

    def __init__(
        self,
        actor: nn.Module,
        meta: dict[str, Any],
        greedy: bool = True,
        seed: int | None = None,
        name: str | None = None,
    ):
        from .policy import one_torch_thread

        one_torch_thread()  # small batches: one thread is fastest on shared cores (see there)
        self.actor, self.meta = actor, meta
        self.game, self.config = meta["game"], meta["config"]
        self.obs_size, self.num_actions = meta["obs_size"], meta["num_actions"]
        self.greedy = bool(greedy)
        self.rng = np.random.default_rng(seed)
        if name is not None:
            self.name = name

    @classmethod
    def load(
        cls,
        path: str | pathlib.Path,
        game: str | None = None,
        greedy: bool = True,
        seed: int | None = None,
        name: str | None = None,
        **config: Any,
    ) -> MLPAgent:
        """The policy at ``path`` (``STEM.json``, ``STEM.pt`` or ``STEM``),
        named ``mlp(STEM)`` unless ``name`` is given.  With ``game``: checked
        to play that game with ``config`` (:meth:`check_game`).  ValueError
        for a missing, malformed or unfitting file; nothing is unpickled."""
        actor, meta = read_policy(path)
        stem = _meta_path(pathlib.Path(path)).stem
        agent = cls(actor, meta, greedy=greedy, seed=seed, name=name or f"mlp({stem})")
        if game is not None:
            agent.check_game(game, **config)
        return agent

    def check_game(self, game: str, **config: Any) -> None:
        """ValueError unless this policy plays ``game`` with ``config``: the
        same game, the same observation size and the same number of actions.
        (Other options may differ from the ones it trained with, ``self.config``:
        e.g. Spit's ``max_ticks`` only changes the ``ticks_left`` column.)"""
        from cardenvs.core.options import build_rules, rules_options
        from cardenvs.registry import rules_class

        if game != self.game:
            raise ValueError(f"{self.name} is a policy for {self.game}, not {game}")
        factory = rules_class(game)
        known = set(rules_options(factory))
        rules = build_rules(factory, {k: v for k, v in config.items() if k in known})
        if (rules.obs_size, rules.num_actions) != (self.obs_size, self.num_actions):
            raise ValueError(
                f"{self.name} plays observations of {self.obs_size} numbers and {self.num_actions} actions; "
                f"{game} with {config} has {rules.obs_size} and {rules.num_actions}"
            )

    def logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The masked logits ``(N, num_actions)`` (-inf where illegal);
        ValueError for arrays of the wrong shape or a row with no legal action."""
        obs, mask = np.asarray(obs), np.asarray(mask, bool)
        if obs.ndim != 2 or obs.shape[1] != self.obs_size:
            raise ValueError(f"{self.name} needs observations (N, {self.obs_size}), got {obs.shape}")
        if mask.shape != (len(obs), self.num_actions):
            raise ValueError(f"{self.name} needs masks ({len(obs)}, {self.num_actions}), got {mask.shape}")
        if len(mask) and not mask.any(axis=1).all():
            raise ValueError("a row of the mask has no legal action")
        with torch.no_grad():
            out = self.actor(symlog(obs)).numpy().astype(np.float64)
        return np.where(mask, out, -np.inf)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``obs`` (N, obs_size), ``mask`` (N, num_actions) -> legal actions (N,)."""
        logits = self.logits(obs, mask)
        if not self.greedy:  # Gumbel-max: a draw from softmax(logits) over the legal actions
            logits = logits + self.rng.gumbel(size=logits.shape)
        return logits.argmax(axis=1).astype(np.int64)

    def act_streams(self, obs: np.ndarray, mask: np.ndarray, rngs: list[np.random.Generator]) -> np.ndarray:
        """As :meth:`act_batch`, a sampling agent's row ``i`` drawing its
        Gumbel noise from ``rngs[i]`` (a duplicate match's common random
        numbers: one stream per deal and seat; one number per action, so the
        copies of a seat stay in step).  Two sampling policies at a seat then
        draw the same noise, and pick the same action wherever their logits
        are close (the Gumbel-max coupling).  A greedy agent draws nothing."""
        if self.greedy:
            return self.act_batch(obs, mask)
        logits = self.logits(obs, mask)
        if len(rngs) != len(logits):
            raise ValueError(f"need one generator per row, got {len(rngs)} for {len(logits)} rows")
        noise = np.array([g.gumbel(size=self.num_actions) for g in rngs]).reshape(logits.shape)
        return (logits + noise).argmax(axis=1).astype(np.int64)
