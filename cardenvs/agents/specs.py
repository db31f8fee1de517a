"""Agents by spec, for leagues and the ``cardenvs arena`` command.

A spec is one of:

- ``random``, ``rule``, ``rule:noise=P`` (the rule agent with a share P
  of its moves random), ``lowest`` and ``highest`` (always the lowest or
  highest legal action: the trivial policies), ``ppo`` (the committed baseline), ``scratch``
  (the agent learned from scratch: its committed policy, played through
  the search its GameSpec names, if any), ``scratch-policy`` (that policy
  alone), ``ppo:PATH`` (:func:`cardenvs.agents.builtin.builtin_agent`);
- ``best``: the game's strongest agent, the spec its GameSpec names
  (``best``), whatever it is;
- ``pimc`` or ``pimc:OPTION=VALUE,...``: :class:`~cardenvs.agents.pimc.PIMCAgent`
  with ``worlds`` (worlds sampled per decision, default 32, at most
  :data:`MAX_WORLDS`), ``rollout``
  (``random``, ``rule`` or ``scratch``: the policy learned from scratch),
  ``fallback`` (who takes the decisions PIMC does not search: ``rule`` or
  ``scratch``), ``search``
  (``default``: the game's searched decisions, or ``all``), ``score``
  (``default``, ``side`` or ``margin``) and ``budget`` (seconds per
  decision, above 0 and at most :data:`MAX_BUDGET`), each value checked
  when the spec is read, e.g. ``pimc:worlds=8,rollout=rule`` (Pepper,
  Cancellation Hearts and Push);
- ``lookahead`` or ``lookahead:OPTION=VALUE,...`` (Spit):
  :class:`~cardenvs.agents.lookahead.LookaheadAgent`, the look-ahead over
  the next ticks, with ``worlds`` (default 16, at most :data:`MAX_WORLDS`),
  ``horizon`` (ticks, default 4, at most
  :data:`~cardenvs.agents.lookahead.MAX_HORIZON`), ``discount`` (what a
  card shed a tick later is worth, above 0 and at most 1, default 1) and
  ``rollout``
  (``random``, or ``scratch``: the policy learned from scratch, sampled),
  e.g. ``lookahead:worlds=16,horizon=4,rollout=scratch``;
- ``package.module:Name``: imported from your code -- an :class:`Agent`
  subclass (made with the keyword arguments its constructor takes among
  ``game``, ``seed`` and the game's options), an agent instance (used as
  it is: its randomness is not reseeded), a plain policy function
  ``(obs, mask) -> actions`` on batches (a function of two positional
  arguments), or a factory (a function called with the keyword arguments
  it takes among ``game``, ``seed`` and the game's options, returning an
  agent or a policy function).

:func:`agent_factory` turns a spec into ``make(seed) -> Agent``: a league
makes each agent afresh, seeded, for each pair it plays, so a pair's games
replay exactly whatever ran before them.  Bad specs raise
:class:`AgentSpecError` (a ValueError) with one clear line.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
import math
import pathlib
import sys
from collections.abc import Callable, Iterator
from typing import Any

from ..core.agent import Agent
from ..search import MAX_WORLDS
from .adaptor import CallableAgent, as_agent

MAX_BUDGET = 3600.0  # seconds a PIMC spec may spend per decision


class OptionValueError(ValueError):
    """An option's value outside what it takes (the message says what it takes)."""


def _choice(*allowed: str) -> Callable[[str], str]:
    """A reader of one of ``allowed`` (OptionValueError naming them)."""
    said = ", ".join(map(repr, allowed[:-1])) + f" or {allowed[-1]!r}"

    def read(text: str) -> str:
        if text not in allowed:
            raise OptionValueError(said)
        return text

    return read


def _whole(text: str, top: int, unit: str = "") -> int:
    """``text`` as a whole number from 1 to ``top`` (OptionValueError saying so)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= top:
        raise OptionValueError(f"a whole number{unit} from 1 to {top}")
    return value


def _worlds(text: str) -> int:
    return _whole(text, MAX_WORLDS)


def _horizon(text: str) -> int:
    from .lookahead import MAX_HORIZON  # (on use: the look-ahead imports the engine)

    return _whole(text, MAX_HORIZON, " of ticks")


def _above_zero(text: str, top: float, unit: str = "") -> float:
    """``text`` as a number above 0 and at most ``top`` (OptionValueError saying so)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= top:  # (NaN and infinity fail too)
        raise OptionValueError(f"a number{unit} above 0 and at most {top:g}")
    return value


def _seconds(text: str) -> float:
    return _above_zero(text, MAX_BUDGET, " of seconds")


def _discount(text: str) -> float:
    return _above_zero(text, 1.0)


#: PIMC's options in a spec and how their values are read (OptionValueError for a value outside their range)
PIMC_OPTIONS: dict[str, Callable[[str], Any]] = {
    "worlds": _worlds,
    "rollout": _choice("random", "rule", "scratch"),
    "fallback": _choice("rule", "scratch"),
    "search": _choice("default", "all"),
    "score": _choice("default", "side", "margin"),
    "budget": _seconds,
}
#: the look-ahead's options in a spec (Spit), read as PIMC's are
LOOKAHEAD_OPTIONS: dict[str, Callable[[str], Any]] = {
    "worlds": _worlds,
    "horizon": _horizon,
    "discount": _discount,
    "rollout": _choice("random", "scratch"),
}
BUILT_IN = ("random", "rule", "lowest", "highest", "ppo", "scratch", "scratch-policy")


class AgentSpecError(ValueError):
    """An agent spec that names no agent, or one that cannot be made."""


def is_built_in(spec: str) -> bool:
    """Whether ``spec`` is made from this package alone -- ``random``,
    ``rule``, ``ppo`` (the committed baseline), ``pimc[:options]``,
    ``lookahead[:options]`` --,
    importing no module and reading no file it names: the specs a run
    folder may supply when it is resumed (it may come from anyone)."""
    return (
        spec in BUILT_IN or spec in ("best", "pimc", "lookahead") or spec.startswith(("pimc:", "rule:", "lookahead:"))
    )


def split_specs(text: str) -> list[str]:
    """``--agents`` text -> specs: split at commas, a piece ``KEY=VALUE``
    with no colon joining the spec before it (``pimc:worlds=8,rollout=rule``)."""
    specs: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if "=" in piece and ":" not in piece and specs and ":" in specs[-1]:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


def pimc_options(spec: str, allowed: dict[str, Callable[[str], Any]] = PIMC_OPTIONS) -> dict[str, Any]:
    """The options of ``spec``, a ``pimc`` or ``pimc:...`` spec, among ``allowed``."""
    head, _, rest = spec.partition(":")
    if head != "pimc":
        raise AgentSpecError(f"agent {spec!r}: not a pimc spec")
    return _options(spec, rest, allowed)


def lookahead_options(spec: str, allowed: dict[str, Callable[[str], Any]] = LOOKAHEAD_OPTIONS) -> dict[str, Any]:
    """The options of ``spec``, a ``lookahead`` or ``lookahead:...`` spec, among ``allowed``."""
    head, _, rest = spec.partition(":")
    if head != "lookahead":
        raise AgentSpecError(f"agent {spec!r}: not a lookahead spec")
    return _options(spec, rest, allowed)


def lookahead_agent(game: str, options: dict[str, Any], seed: int, policy: Agent | None = None, **config) -> Agent:
    """:class:`~.lookahead.LookaheadAgent` of a spec's ``options``; its
    roll-outs ``policy`` when given (the search of ``"scratch"``), else
    those ``rollout`` names (``scratch``: the policy learned from scratch)."""
    from .builtin import scratch_policy
    from .lookahead import LookaheadAgent

    options = dict(options)
    rollout = options.pop("rollout", "random")
    if policy is None and rollout == "scratch":
        policy = scratch_policy(game, seed, **config)
    return LookaheadAgent(game, rollout=policy, seed=seed, **options, **config)


def _options(spec: str, text: str, allowed: dict[str, Callable[[str], Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in filter(None, text.split(",")):
        key, eq, value = item.partition("=")
        if not eq or key not in allowed:
            raise AgentSpecError(f"agent {spec!r}: options are {', '.join(f'{k}=...' for k in allowed)}, not {item!r}")
        try:
            out[key] = allowed[key](value)
        except OptionValueError as e:
            raise AgentSpecError(f"agent {spec!r}: {key} must be {e}, not {value!r}") from None
        except ValueError:
            raise AgentSpecError(f"agent {spec!r}: {key} must be a {allowed[key].__name__}, not {value!r}") from None
    return out


def _accepted(fn: Any, offered: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments among ``offered`` that ``fn`` takes (all of them for ``**kwargs``)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return dict(offered)
    return {k: v for k, v in offered.items() if k in params and params[k].kind != params[k].VAR_POSITIONAL}


def _is_policy(fn: Any) -> bool:
    """A plain policy: a function needing two positional arguments (obs, mask) that are not game or seed."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    needed = [p for p in params if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(needed) == 2 and not {p.name for p in needed} & {"game", "seed"}


@contextlib.contextmanager
def _current_folder_if_missing(module: str) -> Iterator[None]:
    """The current folder on the import path while ``module`` is imported,
    when nothing else has it and the folder does (``python -m cardenvs``
    puts the folder first on the path; the installed ``cardenvs`` script
    does not, yet the docs' "run it from its folder" means both); the path
    is as it was after."""
    top = module.partition(".")[0]
    here = pathlib.Path.cwd()
    found = (here / f"{top}.py").is_file() or (here / top / "__init__.py").is_file()
    try:
        missing = importlib.util.find_spec(top) is None
    except (ImportError, ValueError):
        missing = False
    if not (found and missing):
        yield
        return
    before = list(sys.path)
    sys.path.insert(0, str(here))
    try:
        yield
    finally:
        sys.path[:] = before


def imported(spec: str, what: str = "agent") -> Any:
    """The object ``package.module:Name`` names (AgentSpecError in one line,
    ``what`` the spec names -- an agent, an algorithm --, if it cannot be had)."""
    module, _, name = spec.partition(":")
    try:
        with _current_folder_if_missing(module):
            mod = importlib.import_module(module)
    except Exception as e:  # noqa: BLE001 (whatever the user's module raises on import)
        raise AgentSpecError(f"{what} {spec!r}: cannot import {module} ({type(e).__name__}: {e})") from None
    try:
        return getattr(mod, name)
    except AttributeError:
        raise AgentSpecError(f"{what} {spec!r}: module {module} has no {name!r}") from None


def _user_factory(game: str, spec: str, config: dict) -> Callable[[int], Agent]:
    """``package.module:Name`` (see the module docstring)."""
    obj = imported(spec)
    if isinstance(obj, Agent) or (not isinstance(obj, type) and hasattr(obj, "act_batch")):
        return lambda seed: obj
    if isinstance(obj, type) and not (issubclass(obj, Agent) or hasattr(obj, "act_batch")):
        raise AgentSpecError(f"agent {spec!r}: {obj.__name__} is a class but not an Agent (no act_batch)")
    if not callable(obj):
        raise AgentSpecError(f"agent {spec!r}: {type(obj).__name__} is neither an agent, a policy nor a factory")
    if not isinstance(obj, type) and _is_policy(obj):
        return lambda seed: CallableAgent(obj, spec)

    def make(seed: int) -> Agent:
        made = obj(**_accepted(obj, {"game": game, "seed": seed, **config}))
        try:
            agent = as_agent(made, spec)
        except TypeError:
            raise AgentSpecError(f"agent {spec!r}: its factory returned {made!r}, not an agent or a policy") from None
        return agent

    return make


def scratch_agent(game: str, seed: int = 0, path: str | None = None, **config: Any) -> Agent:
    """The game's agent learned from scratch (``"scratch"``): its policy
    (:func:`~cardenvs.agents.builtin.scratch_policy`; ``path``: another
    policy file of the game's learner, a training seed's), played through
    the search its GameSpec names (``scratch_search``: PIMC whose roll-outs
    and fallback are that policy, as expert iteration trained it; in Spit
    the look-ahead whose roll-outs are that policy, sampled), else the
    policy alone.  Nothing in it comes from the rule agent."""
    from ..registry import GAMES
    from .builtin import scratch_policy

    search = GAMES[game].scratch_search if game in GAMES else None
    policy = scratch_policy(game, seed, path, **config)
    if search is None:
        return policy
    if search.startswith("lookahead"):  # (Spit: its roll-outs are the policy, sampled)
        agent = lookahead_agent(
            game,
            lookahead_options(search, {k: v for k, v in LOOKAHEAD_OPTIONS.items() if k != "rollout"}),
            seed,
            policy,
            **config,
        )
        agent.name = "scratch"
        return agent
    from .pimc import PIMCAgent

    options = pimc_options(search, {k: v for k, v in PIMC_OPTIONS.items() if k not in ("rollout", "fallback")})
    agent = PIMCAgent(game, rollout=policy, fallback=policy, seed=seed, **options, **config)
    agent.name = "scratch"
    return agent


def best_spec(game: str) -> str:
    """The spec of ``game``'s strongest agent (its GameSpec's ``best``), a
    built-in spec other than ``"best"``; AgentSpecError when it has none."""
    from ..registry import GAMES

    if game not in GAMES:
        raise AgentSpecError(f"agent 'best': unknown game {game!r}; have {list(GAMES)}")
    spec = GAMES[game].best
    if spec is None:
        raise AgentSpecError(f"agent 'best': {game} names no strongest agent (its GameSpec's best is None)")
    if spec == "best" or not is_built_in(spec):
        raise AgentSpecError(f"agent 'best': {game}'s GameSpec names {spec!r}, not a built-in spec")
    return spec


def agent_factory(game: str, spec: str, config: dict | None = None) -> Callable[[int], Agent]:
    """``make(seed) -> Agent`` for ``spec`` in ``game`` (registry name) with
    its ``config``; the agent is made once here to check it can be
    (AgentSpecError naming the spec otherwise)."""
    config = dict(config or {})
    config.pop("illegal_action", None)  # (view options of the engine, not of agents)
    config.pop("obs_dtype", None)
    if spec == "best":
        return agent_factory(game, best_spec(game), config)
    head, colon, rest = spec.partition(":")
    if spec == "scratch":

        def make(seed: int) -> Agent:
            return scratch_agent(game, seed, **config)

    elif spec in BUILT_IN or head in ("ppo", "rule") and colon:
        from .builtin import builtin_agent

        def make(seed: int) -> Agent:
            return builtin_agent(game, spec, seed=seed, **config)

    elif head == "pimc":
        options = pimc_options(spec)

        def make(seed: int) -> Agent:
            from .pimc import PIMCAgent

            return PIMCAgent(game, seed=seed, **options, **config)

    elif head == "lookahead":
        options = lookahead_options(spec)

        def make(seed: int) -> Agent:
            return lookahead_agent(game, options, seed, **config)

    elif head == "mlp" and colon and rest:  # a policy saved by examples/selfplay_ppo.py (no pickle)

        def make(seed: int) -> Agent:
            from .mlp import MLPAgent

            return MLPAgent.load(rest, game=game, seed=seed, **config)

    elif colon and rest:
        make = _user_factory(game, spec, config)
    else:
        known = "random, rule, rule:noise=P, lowest, highest, ppo, scratch, scratch-policy, best, ppo:PATH, mlp:PATH"
        known += ", pimc[:worlds=N,rollout=random|rule|scratch,fallback=rule|scratch,search=default|all"
        known += ",score=default|side|margin,budget=S]"
        known += ", lookahead[:worlds=N,horizon=H,discount=D,rollout=random|scratch]"
        known += ", package.module:Name"
        raise AgentSpecError(f"unknown agent {spec!r}: use {known}")
    try:
        make(0)
    except AgentSpecError:
        raise
    except Exception as e:  # noqa: BLE001 (whatever making the agent raises: a bad option, a missing extra)
        raise AgentSpecError(f"agent {spec!r} cannot be made for {game}: {type(e).__name__}: {e}") from None
    return make
