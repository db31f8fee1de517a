"""What the library needs to know of a game, by name: :class:`GameSpec`.

Each game's folder, ``cardenvs/games/<folder>/``, holds one in its
``spec.py`` (``SPEC = GameSpec(...)``), and :mod:`cardenvs.registry` builds
its list of games from them.  Every field is a plain value or a
``"module:attribute"`` text, so importing a spec imports no kernel (the
registry imports every spec)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, kw_only=True)
class GameSpec:
    """A game of the registry.

    ``name``: its registry name (``"pepper_v0"``), also the public module
    ``cardenvs.<name>``; ``title``: its name in prose; ``players``: the
    table sizes, as text (``"2-4"``); ``folder``: its package under
    ``cardenvs/games/``; ``rules``: ``"module:callable"`` of its batched
    rules (a rules class, or a function that picks one from the config, as
    Spit's variants do); ``simultaneous``: players act at once (a parallel
    env) rather than in turn (AEC); ``layouts``: ``"module:attribute"`` of
    each observation layout (one per variant), in the order their tables
    stand in the docs page; ``state_layouts``: likewise the layout of each
    variant's state (the whole game, for centralised critics:
    :mod:`cardenvs.core.state`), whose tables stand in the page's "State"
    section; ``short_config``: per variant (in the order of ``layouts``),
    a config short enough (a hand or two, a round, a few dozen ticks) that a
    batch stepped a few hundred times finishes and restarts many games: the
    tests' and the conformance kit's; ``summary``: a line on the game for the
    games tables of the README and the docs' home page.

    Optional (None: the game lacks it, and what needs it says so):
    ``rule_agent``: ``"module:Class"`` of its rule-based agent;
    ``baseline``: the file name of its committed PPO policy (a cardenvs
    policy file, ``<name>_ppo.npz``: see ``cardenvs/agents/checkpoint.py``);
    ``scratch``: the file name of its committed policy learned from scratch
    (no rule advice, no imitation: ``<name>_scratch.json``, an MLP policy
    file of :mod:`cardenvs.agents.mlp`, the agent ``"scratch-policy"``);
    ``scratch_search``: the search the agent ``"scratch"`` plays that policy
    with, when its learner is a search distilled into a policy (expert
    iteration): a ``pimc:`` spec without ``rollout`` and ``fallback``, which
    are the policy itself, e.g. ``"pimc:worlds=16,search=all"``, or in Spit
    a ``lookahead:`` spec without ``rollout`` (the policy, sampled), e.g.
    ``"lookahead:worlds=16,horizon=4"`` (None: the agent ``"scratch"`` is
    the policy alone);
    ``best``: the agent spec of its strongest agent (the agent ``"best"``;
    any built-in spec, e.g. ``"pimc:worlds=32,rollout=scratch"``);
    ``sampler``: the module of its information-set sampler (its
    ``sample(...)``, and a ``Tracker`` where the state forgets what a seat
    saw: :func:`cardenvs.search.sample_worlds`); ``scene``:
    ``"module:function"`` of its table scene (``state_dict()`` -> scene:
    :mod:`cardenvs.app`; without one, a generic scene)."""

    name: str
    title: str
    players: str
    folder: str
    rules: str
    simultaneous: bool = False
    layouts: tuple[str, ...]
    state_layouts: tuple[str, ...] = ()
    short_config: tuple[Mapping[str, Any], ...] = field(default=({},), hash=False)
    summary: str = ""
    rule_agent: str | None = None
    baseline: str | None = None
    scratch: str | None = None
    scratch_search: str | None = None
    best: str | None = None
    sampler: str | None = None
    scene: str | None = None

    def __post_init__(self) -> None:
        if not self.layouts:
            raise ValueError(f"game {self.name!r}: a GameSpec needs at least one observation layout")
        if len(self.short_config) != len(self.layouts):
            raise ValueError(
                f"game {self.name!r}: short_config has {len(self.short_config)} configs for "
                f"{len(self.layouts)} variants (one per observation layout)"
            )

    @property
    def module(self) -> str:
        """The public module, e.g. ``cardenvs.pepper_v0`` (its env module,
        :attr:`env_module`, under the name users import)."""
        return f"cardenvs.{self.name}"

    @property
    def package(self) -> str:
        """The game's package, e.g. ``cardenvs.games.pepper``."""
        return f"cardenvs.games.{self.folder}"

    @property
    def env_module(self) -> str:
        """The module that defines its envs, e.g. ``cardenvs.games.pepper.env``."""
        return f"{self.package}.env"

    @property
    def doc(self) -> str:
        """Its docs page, e.g. ``docs/pepper.md``."""
        return f"docs/{self.folder}.md"
