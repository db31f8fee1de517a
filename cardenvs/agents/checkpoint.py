"""Saved policies that load without running anything from the file.

A checkpoint is one of two kinds, told apart by what the zip holds:

* **cardenvs' policy file** (``.npz``: the committed baselines, and what
  training saves by default): one ``.npy`` array per weight of the policy,
  read by numpy with ``allow_pickle=False``, and ``cardenvs_policy.json``:
  the policy's class and options, its observation and action spaces and
  PPO's hyper-parameters.  Classes are written by name and only those of
  :func:`allowed_classes` (the policies, feature extractors, activations,
  optimizers and rollout buffers cardenvs trains with) are accepted.
* **an SB3 zip** (``MaskablePPO.save``): its ``data`` member is JSON, but
  every value JSON cannot hold (the policy class, the spaces, the schedules)
  is a cloudpickle, and ``MaskablePPO.load`` unpickles them: **a pickle runs
  whatever code it names**, so an SB3 zip is only as safe as whoever made
  it.  cardenvs does not unpickle them: it rebuilds the few fields it needs
  from the readable description SB3 writes beside each pickle (a class's
  module and name, a space's shape and dtype, a constant schedule's value),
  accepts only the classes above, ignores the other pickled fields (the
  episode buffers, the last observations), and reads the weights
  (``policy.pth``; ``policy.optimizer.pth`` to train on) with
  ``torch.load(weights_only=True)``, torch's loader restricted to tensors
  and plain containers.  A field it cannot rebuild that way is an error,
  never a pickle to run.

Either kind loads for play (:func:`load_policy`: the policy alone) or for
training on (:func:`load_model`: a ``MaskablePPO``).  A malformed file (not a
zip, truncated, members missing, JSON fields missing or of the wrong type,
weights that do not fit the policy) is a :class:`CheckpointError`, a
``ValueError`` naming the file and what is wrong; so is, when the file is
read rather than when the agent acts, a weight or optimizer state holding
NaN or an infinity, a weight in another byte order, and a zip member or a
JSON key given twice (one copy would be used silently).  Policy files are
written by ``cardenvs.agents.checkpoint_write``.  The network a file
describes is built first without storage (torch's ``meta`` device), and
its weights' names and shapes must be those the file holds before it is
built for real: a small file describing very large layers is refused
before their memory is taken.  A file cannot make anything run but the
allowed classes.
"""

from __future__ import annotations

import ast
import functools
import io
import json
import math
import pathlib
import re
import zipfile
from dataclasses import dataclass, field
from typing import Any

import numpy as np

TRAIN_EXTRA = "this needs the 'train' extra (torch, stable-baselines3, sb3-contrib): pip install 'cardenvs[train]'"
FORMAT, VERSION = "cardenvs-policy", 1
META = "cardenvs_policy.json"  # the description member of a policy file
SUFFIX = ".npz"  # a policy file's suffix (what train() writes for any path not ending in .zip)
MAX_BYTES = 2**31  # the most a checkpoint may unpack to (a zip bomb is an error, not an out-of-memory)
MAX_SIZE = 10**7  # the most observation columns / actions a space may have
# PPO's hyper-parameters a policy file records (the MaskablePPO arguments of the same names)
HYPER = (
    "learning_rate",
    "n_steps",
    "batch_size",
    "n_epochs",
    "gamma",
    "gae_lambda",
    "clip_range",
    "clip_range_vf",
    "normalize_advantage",
    "ent_coef",
    "vf_coef",
    "max_grad_norm",
    "target_kl",
    "stats_window_size",
    "rollout_buffer_class",
    "rollout_buffer_kwargs",
    "seed",
)
_CLASS_REPR = re.compile(r"<class '([A-Za-z_][\w.]*)'>")
_METHOD_REPR = re.compile(r"<function ([A-Za-z_][\w.]*)\.[A-Za-z_]\w* at 0x[0-9a-fA-F]+>")
_CONSTANT_SCHEDULE = re.compile(r"ConstantSchedule\(val=([-+0-9.eE]+|inf|nan)\)")


class CheckpointError(ValueError):
    """A checkpoint that cannot be loaded (the message names the file)."""


def train_extra() -> Any:
    """torch (an ImportError naming the ``train`` extra without it)."""
    try:
        import sb3_contrib  # noqa: F401
        import torch
    except ImportError as exc:
        raise ImportError(TRAIN_EXTRA) from exc
    return torch


@functools.cache
def allowed_classes() -> dict[str, type]:
    """The classes a checkpoint may name, by ``module.QualName``: nothing
    else is ever imported or called for a checkpoint."""
    import torch.nn as nn
    import torch.optim as optim
    from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.torch_layers import FlattenExtractor

    from .advice import AdvisedPolicy
    from .legal_logits import LegalPolicy
    from .rollout_buffer import KeptRolloutBuffer
    from .slot_features import SlotFeatures

    classes = [MaskableActorCriticPolicy, LegalPolicy, AdvisedPolicy, FlattenExtractor, SlotFeatures]
    classes += [MaskableRolloutBuffer, KeptRolloutBuffer, optim.Adam, optim.AdamW, optim.SGD, optim.RMSprop]
    classes += [nn.Tanh, nn.ReLU, nn.LeakyReLU, nn.ELU, nn.SELU, nn.GELU, nn.SiLU, nn.Sigmoid, nn.Identity]
    table = {class_name(c): c for c in classes}
    table["agents.advice.AdvisedPolicy"] = AdvisedPolicy  # the package's old name (the baselines before 0.2)
    return table


def class_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _allowed(name: str, where: str) -> type:
    cls = allowed_classes().get(name)
    if cls is None:
        raise ValueError(f"{where} names the class {name!r}, which is not one a checkpoint may use")
    return cls


# ------------------------------------------------------------ the JSON values
def encode(value: Any, where: str) -> Any:
    """``value`` as JSON: tuples as ``{"__tuple__": [...]}``, allowed classes
    as ``{"__class__": name}``, numpy scalars as numbers."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list):
        return [encode(v, where) for v in value]
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v, where) for v in value]}
    if isinstance(value, dict) and all(isinstance(k, str) and not k.startswith("__") for k in value):
        return {k: encode(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, type) and allowed_classes().get(class_name(value)) is value:
        return {"__class__": class_name(value)}
    raise ValueError(f"{where} = {value!r} cannot be written to a policy file (not a JSON value or an allowed class)")


def decode(value: Any, where: str) -> Any:
    """The inverse of :func:`encode` (a ValueError for anything else)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [decode(v, where) for v in value]
    if isinstance(value, dict):
        if set(value) == {"__tuple__"} and isinstance(value["__tuple__"], list):
            return tuple(decode(v, where) for v in value["__tuple__"])
        if set(value) == {"__class__"} and isinstance(value["__class__"], str):
            return _allowed(value["__class__"], where)
        if any(k.startswith("__") for k in value):
            raise ValueError(f"{where} holds an unknown tagged value {sorted(value)}")
        return {k: decode(v, f"{where}.{k}") for k, v in value.items()}
    raise ValueError(f"{where} holds {type(value).__name__}, not a JSON value")


def space_json(space: Any) -> dict[str, Any]:
    """A Box or Discrete space as JSON (a Box's bounds as one number when uniform)."""
    import gymnasium as gym

    if isinstance(space, gym.spaces.Discrete):
        return {"type": "Discrete", "n": int(space.n), "start": int(space.start)}
    if isinstance(space, gym.spaces.Box):

        def bound(a: np.ndarray) -> Any:
            flat = np.asarray(a, np.float64).ravel()
            return float(flat[0]) if flat.size and (flat == flat[0]).all() else flat.tolist()

        shape = [int(n) for n in space.shape]
        low, high = bound(space.low), bound(space.high)
        return {"type": "Box", "shape": shape, "dtype": str(space.dtype), "low": low, "high": high}
    raise ValueError(f"a {type(space).__name__} space cannot be written to a policy file (only Box and Discrete)")


def _count(value: Any, where: str, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= MAX_SIZE:
        raise ValueError(f"{where} must be an integer from {low} to {MAX_SIZE}, not {value!r}")
    return value


def space_from_json(value: Any, where: str) -> Any:
    """The space :func:`space_json` wrote (a ValueError for anything else)."""
    import gymnasium as gym

    if not isinstance(value, dict) or value.get("type") not in ("Box", "Discrete"):
        raise ValueError(f"{where} must be a Box or Discrete space, not {value!r:.200}")
    if value["type"] == "Discrete":
        start = value.get("start", 0)
        if isinstance(start, bool) or not isinstance(start, int):
            raise ValueError(f"{where}.start must be an integer")
        return gym.spaces.Discrete(_count(value.get("n"), f"{where}.n"), start=start)
    shape = value.get("shape")
    if not isinstance(shape, list) or not shape:
        raise ValueError(f"{where}.shape must be a list of sizes")
    shape = tuple(_count(n, f"{where}.shape") for n in shape)
    _count(math.prod(shape), f"{where}'s size")
    if value.get("dtype") not in ("float32", "float64", "int8", "int16", "int32", "int64", "uint8"):
        raise ValueError(f"{where}.dtype must be a numeric dtype, not {value.get('dtype')!r}")
    bounds = []
    for key in ("low", "high"):
        b = value.get(key)
        if isinstance(b, (int, float)) and not isinstance(b, bool):
            bounds.append(np.full(shape, float(b)))
        elif isinstance(b, list) and len(b) == math.prod(shape) and all(isinstance(x, (int, float)) for x in b):
            bounds.append(np.asarray(b, np.float64).reshape(shape))
        else:
            raise ValueError(f"{where}.{key} must be a number or {math.prod(shape)} numbers")
    return gym.spaces.Box(bounds[0].astype(value["dtype"]), bounds[1].astype(value["dtype"]), dtype=value["dtype"])


# -------------------------------------------------------------- a checkpoint
@dataclass
class Checkpoint:
    """What a checkpoint holds, in the objects that rebuild its policy."""

    path: pathlib.Path
    kind: str  # "cardenvs" (a policy file) or "sb3" (an SB3 zip)
    policy_class: type
    policy_kwargs: dict[str, Any]
    observation_space: Any
    action_space: Any
    hyperparameters: dict[str, Any]  # HYPER's, those known (an SB3 zip may not tell them all)
    num_timesteps: int
    weights: dict[str, Any]  # the policy's state dict (numpy arrays or tensors)
    optimizer: dict[str, Any] | None = None  # the optimizer's state (SB3 zips), for training on
    unknown: list[str] = field(default_factory=list)  # HYPER fields an SB3 zip holds only as a pickle

    def error(self, what: str) -> CheckpointError:
        return CheckpointError(f"{self.path}: {what}")


def read_checkpoint(path: str | pathlib.Path) -> Checkpoint:
    """The checkpoint at ``path``, read without unpickling anything (see the
    module doc); a :class:`CheckpointError` if it is not a sound one."""
    path = pathlib.Path(path)
    if not path.exists():
        raise CheckpointError(f"{path}: no such file")
    if path.is_dir():
        raise CheckpointError(f"{path}: a directory, not a checkpoint file")
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
            if sum(info.file_size for info in infos) > MAX_BYTES:
                raise CheckpointError(f"{path}: unpacks to more than {MAX_BYTES:,} bytes")
            twice = repeated([info.filename for info in infos])  # (a reader would take one copy silently)
            if twice is not None:
                raise CheckpointError(f"{path}: holds {twice!r} more than once")
            names = {info.filename for info in infos}
            if META in names:
                return _read_policy_file(path, archive)
            if {"data", "policy.pth"} <= names:
                return _read_sb3_zip(path, archive)
    except (zipfile.BadZipFile, EOFError, OSError) as e:  # (zlib.error and a bad CRC are BadZipFile/OSError kinds)
        raise CheckpointError(f"{path}: not a readable zip archive, so not a checkpoint ({e})") from e
    except (CheckpointError, ImportError):
        raise
    except Exception as e:  # noqa: BLE001 (a damaged member: zlib, struct, unicode errors)
        raise CheckpointError(f"{path}: damaged ({type(e).__name__}: {e})") from e
    raise CheckpointError(
        f"{path}: neither a cardenvs policy file (no {META}) nor an SB3 zip (no data and policy.pth); "
        f"it holds {sorted(names)[:8]}"
    )


def repeated(names: list[str]) -> str | None:
    """The first of ``names`` given more than once, if any: a zip member or
    a JSON key stored twice is read as one of its copies, silently, so a
    reader of the file and the loader could see different values."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            return name
        seen.add(name)
    return None


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    twice = repeated([key for key, _ in pairs])
    if twice is not None:
        raise ValueError(f"the key {twice!r} is given more than once")
    return dict(pairs)


def _json_member(path: pathlib.Path, archive: zipfile.ZipFile, name: str) -> Any:
    """A member's JSON; a CheckpointError unless it is JSON with one value per key."""
    try:
        return json.loads(archive.read(name).decode("utf-8"), object_pairs_hook=_unique_keys)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:  # (json.JSONDecodeError is a ValueError)
        raise CheckpointError(f"{path}: its {name} is not JSON with one value per key ({e})") from e


def _read_policy_file(path: pathlib.Path, archive: zipfile.ZipFile) -> Checkpoint:
    meta = _json_member(path, archive, META)
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CheckpointError(f"{path}: its {META} is not a {FORMAT} description")
    version = meta.get("version")
    if version != VERSION:
        raise CheckpointError(f"{path}: format version {version!r}; this cardenvs reads version {VERSION}")
    weights: dict[str, np.ndarray] = {}
    for name in archive.namelist():
        if name == META:
            continue
        if not name.endswith(".npy"):
            raise CheckpointError(f"{path}: unexpected member {name!r} (a policy file holds .npy weights)")
        with archive.open(name) as member:
            try:
                array = np.lib.format.read_array(member, allow_pickle=False)
            except ValueError as e:  # e.g. an object array, which would need a pickle
                raise CheckpointError(f"{path}: {name} is not a plain numeric array ({e})") from e
        check_weights(path, name, array)
        weights[name.removesuffix(".npy")] = array
    try:
        return _describe_policy_file(path, meta, weights)
    except CheckpointError:
        raise
    except (ValueError, RecursionError) as e:
        raise CheckpointError(f"{path}: {META}: {e}") from e


def check_weights(path: pathlib.Path, name: str, array: np.ndarray) -> None:
    """A CheckpointError unless ``array`` is plain numbers in this machine's
    byte order, all finite (a NaN or an infinity would only fail, or play
    nonsense, when the agent acts)."""
    if array.dtype.kind not in "biuf":
        raise CheckpointError(f"{path}: {name} holds {array.dtype}, not plain numbers")
    if not array.dtype.isnative:
        raise CheckpointError(f"{path}: {name} is stored in another byte order ({array.dtype.str}) than this machine's")
    if array.dtype.kind == "f" and not np.isfinite(array).all():
        raise CheckpointError(f"{path}: {name} holds non-finite numbers (NaN or infinity)")


def _describe_policy_file(path: pathlib.Path, meta: dict, weights: dict[str, np.ndarray]) -> Checkpoint:
    for key, kind in (("policy_class", str), ("policy_kwargs", dict), ("hyperparameters", dict), ("weights", dict)):
        if not isinstance(meta.get(key), kind):
            raise ValueError(f"{key} must be a {kind.__name__}")
    listed = meta["weights"]
    held = {k: list(a.shape) for k, a in weights.items()}
    if listed != held:
        diff = sorted(set(listed) ^ set(held)) or sorted(k for k in listed if listed[k] != held[k])
        raise ValueError(f"its weights are not the ones it lists (first differences: {diff[:4]})")
    hyper = check_hyperparameters(decode(meta["hyperparameters"], "hyperparameters"))
    steps = meta.get("num_timesteps", 0)
    if isinstance(steps, bool) or not isinstance(steps, int):
        raise ValueError("num_timesteps must be an integer")
    return Checkpoint(
        path,
        "cardenvs",
        _allowed(meta["policy_class"], "policy_class"),
        decode(meta["policy_kwargs"], "policy_kwargs"),
        space_from_json(meta.get("observation_space"), "observation_space"),
        space_from_json(meta.get("action_space"), "action_space"),
        hyper,
        steps,
        weights,
    )


def check_hyperparameters(hyper: dict[str, Any]) -> dict[str, Any]:
    """``hyper`` (some of :data:`HYPER`), each of its kind, else a ValueError."""

    def number(v: Any) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool)

    kinds = {
        "n_steps": lambda v: isinstance(v, int) and not isinstance(v, bool) and v > 0,
        "n_epochs": lambda v: isinstance(v, int) and not isinstance(v, bool) and v > 0,
        "stats_window_size": lambda v: isinstance(v, int) and not isinstance(v, bool) and v > 0,
        "batch_size": lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool) and v > 1),
        "seed": lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool)),
        "normalize_advantage": lambda v: isinstance(v, bool),
        "clip_range_vf": lambda v: v is None or number(v),
        "target_kl": lambda v: v is None or number(v),
        "rollout_buffer_class": lambda v: v is None or v in allowed_classes().values(),
        "rollout_buffer_kwargs": lambda v: v is None or isinstance(v, dict),
    }
    for key, value in hyper.items():
        if key not in HYPER:
            raise ValueError(f"unknown hyperparameter {key!r}")
        if not kinds.get(key, number)(value):
            raise ValueError(f"hyperparameter {key} = {value!r:.80} is not of its kind")
    return hyper


# ------------------------------------------------------------- SB3's zips
def _literal(text: str, where: str) -> Any:
    """A Python literal as ``str()`` writes it (numpy scalars as ``np.int64(3)``
    included), parsed without evaluating anything; a ValueError otherwise."""

    def value(node: ast.AST) -> Any:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str, bool, type(None))):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = value(node.operand)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [value(e) for e in node.elts]
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.Dict) and None not in node.keys:
            return {value(k): value(v) for k, v in zip(node.keys, node.values)}
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in ("np", "numpy")
            and re.fullmatch(r"(u?int|float)(8|16|32|64)|bool_?", node.func.attr)
            and len(node.args) == 1
            and not node.keywords
        ):
            return value(node.args[0])
        raise ValueError(f"{where}: {text[:120]!r} is not a plain value")

    if len(text) > 100_000:
        raise ValueError(f"{where}: a description of {len(text):,} characters")
    try:
        return value(ast.parse(text.strip(), mode="eval").body)
    except (SyntaxError, RecursionError, MemoryError, TypeError) as e:
        raise ValueError(f"{where}: {text[:120]!r} is not a plain value") from e


def _hint(value: Any, where: str) -> Any:
    """An entry of SB3's description of a pickled dict: a value JSON could
    hold as it is, else its ``str()``: an allowed class or a literal (a
    string that is neither stays a string)."""
    if not isinstance(value, str):
        return value
    m = _CLASS_REPR.fullmatch(value.strip())
    if m:
        return _allowed(m.group(1), where)
    try:
        return _literal(value, where)
    except ValueError:
        return value


def _sb3_class(entry: Any, where: str, required: bool = True) -> type | None:
    """The class SB3 pickled as ``entry``, named by its description (its
    ``__module__`` and its methods' qualified names), if it is an allowed one;
    else a ValueError (``required``) or None."""
    name = None
    if isinstance(entry, dict) and ":serialized:" in entry:
        module = entry.get("__module__")
        owners = {m.group(1) for v in entry.values() if isinstance(v, str) for m in [_METHOD_REPR.fullmatch(v)] if m}
        name = f"{module}.{owners.pop()}" if isinstance(module, str) and len(owners) == 1 else None
    if name in allowed_classes():
        return allowed_classes()[name]
    if required:
        said = f"the class {name!r}, not one a checkpoint may use" if name else "a class its description does not name"
        raise ValueError(f"{where} is {said}")
    return None


def _sb3_space(entry: Any, where: str) -> Any:
    """A Box or Discrete space from SB3's description of its pickle."""
    if not isinstance(entry, dict):
        raise ValueError(f"{where} is missing")
    kind = str(entry.get(":type:", ""))
    if kind.endswith(".Discrete'>"):
        n = _hint(entry.get("n"), where)
        start = _hint(entry.get("start", 0), where)
        return space_from_json({"type": "Discrete", "n": n, "start": start}, where)
    if kind.endswith(".Box'>"):
        shape = _hint(entry.get("_shape"), where)
        bounds = []
        for key, infinite in (("low_repr", -math.inf), ("high_repr", math.inf)):
            b = _hint(entry.get(key), where)  # one number when uniform (the array's repr is cut short otherwise)
            bounds.append(b if isinstance(b, (int, float)) and not isinstance(b, bool) else infinite)
        shape = list(shape) if isinstance(shape, (list, tuple)) else shape
        box = {"type": "Box", "shape": shape, "dtype": entry.get("dtype"), "low": bounds[0], "high": bounds[1]}
        return space_from_json(box, where)
    raise ValueError(f"{where} is a {kind or 'missing'} space; only Box and Discrete load")


def _sb3_value(key: str, entry: Any) -> tuple[Any, bool]:
    """(the value, known?) of hyper-parameter ``key`` in SB3's data."""
    if not (isinstance(entry, dict) and ":serialized:" in entry):
        return entry, True
    if key == "rollout_buffer_class":
        return _sb3_class(entry, key, required=False), True
    m = _CONSTANT_SCHEDULE.search(str(entry.get("value_schedule", "")))  # a FloatSchedule(ConstantSchedule)
    return (float(m.group(1)), True) if m else (None, False)


def _sb3_policy_kwargs(data: dict) -> dict[str, Any]:
    entry = data.get("policy_kwargs") or {}
    if isinstance(entry, dict) and ":serialized:" in entry:
        entry = {k: _hint(v, f"policy_kwargs.{k}") for k, v in entry.items() if not k.startswith(":")}
    if not isinstance(entry, dict):
        raise ValueError("policy_kwargs is not a dict")
    kwargs = dict(entry)
    kwargs.pop("device", None)
    arch = kwargs.get("net_arch")
    if isinstance(arch, list) and arch and isinstance(arch[0], dict):  # SB3 < 1.8's layout (as SB3's load converts)
        kwargs["net_arch"] = arch[0]
    return kwargs


def _read_sb3_zip(path: pathlib.Path, archive: zipfile.ZipFile) -> Checkpoint:
    data = _json_member(path, archive, "data")
    if not isinstance(data, dict):
        raise CheckpointError(f"{path}: its data member is not a JSON object")
    try:
        policy_class = _sb3_class(data.get("policy_class"), "policy_class")
        kwargs = _sb3_policy_kwargs(data)
        obs_space = _sb3_space(data.get("observation_space"), "observation_space")
        action_space = _sb3_space(data.get("action_space"), "action_space")
        hyper, unknown = {}, []
        for key in HYPER:
            stored = "_stats_window_size" if key == "stats_window_size" else key
            if stored not in data:
                continue  # (an older SB3 without this argument: its default)
            value, known = _sb3_value(key, data[stored])
            if known:
                hyper[key] = value
            else:
                unknown.append(key)
        check_hyperparameters(hyper)
        steps = data.get("num_timesteps", 0)
        steps = steps if isinstance(steps, int) and not isinstance(steps, bool) else 0
    except ValueError as e:
        raise CheckpointError(f"{path}: an SB3 zip whose {e}") from e
    weights = _torch_member(path, archive, "policy.pth")
    optimizer = None
    if "policy.optimizer.pth" in archive.namelist():
        optimizer = _torch_member(path, archive, "policy.optimizer.pth", tensors_only=False)
    return Checkpoint(
        path, "sb3", policy_class, kwargs, obs_space, action_space, hyper, steps, weights, optimizer, unknown
    )


def _torch_member(path: pathlib.Path, archive: zipfile.ZipFile, name: str, tensors_only: bool = True) -> dict:
    """A ``.pth`` member, loaded by torch's loader restricted to tensors and
    plain containers (``weights_only=True``: no class of the file's choosing)."""
    torch = train_extra()
    try:
        value = torch.load(io.BytesIO(archive.read(name)), map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 (torch refuses a forbidden global with UnpicklingError, a bad file with others)
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise CheckpointError(f"{path}: its {name} is not a plain state dict ({first})") from e
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise CheckpointError(f"{path}: its {name} is not a state dict")
    if tensors_only and not all(isinstance(v, torch.Tensor) for v in value.values()):
        raise CheckpointError(f"{path}: its {name} holds values other than tensors")
    where = _non_finite(value, torch)
    if where is not None:
        raise CheckpointError(f"{path}: {name}: {where} holds non-finite numbers (NaN or infinity)")
    return value


def _non_finite(value: Any, torch: Any, where: str = "") -> str | None:
    """The first place in ``value`` (tensors, numbers, and the dicts and
    lists an optimizer's state nests them in) that is NaN or infinite, if
    any: such a state loads, then turns every weight trained with it to NaN."""
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, (list, tuple)):
        items = enumerate(value)
    elif isinstance(value, torch.Tensor):
        return where if value.is_floating_point() and not torch.isfinite(value).all() else None
    else:
        return where if isinstance(value, float) and not math.isfinite(value) else None
    return next((w for k, v in items for w in [_non_finite(v, torch, f"{where}[{k!r}]")] if w is not None), None)
