"""What every PettingZoo view of a batched rules core shares (turn-based AEC
and simultaneous parallel alike): the options every env takes, render modes,
starting a game from ``reset(seed, options)`` on a batch of one, and the
text/state extras.

``reset(seed, options)`` takes ``options["dealer"]`` and ``options["decks"]``;
other keys are ignored (PettingZoo's API tests pass keys of their own)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

from . import illegal
from .errors import cut_short
from .options import OBS_DTYPES, build_rules, check_seed
from .spaces import observation_box
from .state import encode_states, state_box

RESET_OPTIONS = ("decks", "dealer")
RENDER_MODES = (None, "human", "ansi", "rgb_array")
# render_mode="rgb_array" draws the table with a picture maker registered from
# above core (cardenvs/__init__.py registers cardenvs.app's), so that core
# imports nothing above itself: maker(state_dict or None, viewpoint, kind) ->
# (H, W, 3) uint8 for kind "rgb", or a seat's view as text for kind "text".
_picture_maker: Any = None


def set_picture_maker(maker: Any) -> None:
    """Register the function drawing ``render_mode="rgb_array"`` frames."""
    global _picture_maker
    _picture_maker = maker


def check_render_mode(render_mode: Any) -> Any:
    if render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be one of {list(RENDER_MODES)}, got {render_mode!r}")
    return render_mode


def view_options(
    config: dict[str, Any], factory: Callable[..., Any], simultaneous: bool = False
) -> tuple[dict[str, Any], str, np.dtype | None]:
    """Split ``config`` into (the rules' config, ``illegal_action``,
    ``obs_dtype``), validating the two view options."""
    config = dict(config)
    policy = illegal.parse(config.pop("illegal_action", "raise"), simultaneous)
    dtype = config.pop("obs_dtype", None)
    if dtype is not None and not (isinstance(dtype, str) and dtype == "float32") and dtype is not np.float32:
        raise ValueError(f"obs_dtype must be one of {list(OBS_DTYPES)}, got {dtype!r}")
    return config, policy, (None if dtype is None else np.dtype(np.float32))


class RulesView:
    """Mixin for a PettingZoo env holding ``self.rules`` and a batch-of-one
    ``self._state``."""

    rules: Any
    render_mode: str | None
    illegal_action: str = "raise"
    obs_dtype: np.dtype | None = None
    _state: Any = None
    _rng: np.random.Generator | None = None
    _forfeit: int | None = None  # the seat whose illegal action ended the game (illegal_action="terminate")
    _fault: str | None = None  # why a step cut short ended the game (every call but reset raises it)

    def _set_up(self, factory: Any, render_mode: Any, config: dict[str, Any], simultaneous: bool = False) -> None:
        """Build the rules from ``config`` (the view's own options taken out
        and validated) and the spaces every agent shares."""
        self.render_mode = check_render_mode(render_mode)
        rules_config, self.illegal_action, self.obs_dtype = view_options(config, factory, simultaneous)
        self.rules = build_rules(factory, rules_config, extra=("render_mode",))
        self.config = dict(config)
        n = self.rules.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        obs_space = spaces.Dict(
            {
                "observation": observation_box(self.rules, self.obs_dtype),
                "action_mask": spaces.Box(0, 1, (self.rules.num_actions,), np.int8),
            }
        )
        # One space object per agent, returned unchanged on every call.
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.rules.num_actions) for a in self.possible_agents}

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _cast(self, obs: np.ndarray) -> np.ndarray:
        return obs if self.obs_dtype is None else obs.astype(self.obs_dtype)

    def _require_game(self) -> Any:
        if self._state is None:
            raise RuntimeError(
                self._fault or "no game: call reset() (a reset that raised, or a step cut short, leaves none)"
            )
        return self._state

    def _cut_short(self, exc: BaseException, during: str = "a step") -> None:
        """The game is dropped after ``during`` (a step, a reset) was cut
        short while the rules moved it or the view's own record of it (a
        Ctrl-C, a MemoryError): every later call but ``reset()`` raises a
        RuntimeError saying why.  (The handlers that call this drop the game
        themselves first, as it is the one thing that must happen: a second
        Ctrl-C lands at the latest when this call begins.)"""
        self._state = None
        self._fault = cut_short("the env", exc, during)
        if hasattr(self, "_ready"):
            self._ready = None

    def _new_game(self, seed: int | None, options: dict | None):
        """A new batch-of-one state from ``reset``'s arguments.  The seed
        and options are validated before anything changes (a bad seed, deck
        or dealer raises ValueError and the current game goes on untouched)."""
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"options must be a dict (keys {list(RESET_OPTIONS)}), got {options!r}")
        seed = check_seed(seed)
        options = dict(options or {})
        dealer = self.rules.check_dealer(options.get("dealer"))
        rng = np.random.default_rng(seed) if seed is not None or self._rng is None else self._rng
        state = self.rules.new_state(1, rng)
        self.rules.set_fixed_decks(state, options.get("decks"))
        self._rng = rng
        self.rules.reset(state, np.array([0]), dealer=dealer)
        self._forfeit = None
        self._fault = None
        return state

    def render(self, seat: int | None = None) -> Any:
        """The table as the render mode shows it.  By default it is the
        *spectator's* view (every hand shown: for logs and debugging, not for
        agents), and says so; ``seat=k`` shows only what seat k sees (the
        others' hidden cards face down)."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; use 'ansi', 'human' or 'rgb_array'")
            return None
        state = None if self._state is None else self.state_dict()
        if seat is not None and not (
            isinstance(seat, (int, np.integer)) and not isinstance(seat, bool) and 0 <= seat < self.rules.num_players
        ):
            raise ValueError(f"seat must be one of 0..{self.rules.num_players - 1} or None, got {seat!r}")
        if self.render_mode == "rgb_array":
            if _picture_maker is None:
                raise RuntimeError("render_mode='rgb_array' needs a picture maker: import cardenvs")
            return _picture_maker(state, seat, "rgb")
        if state is None:
            text = "(not reset yet)"
        elif seat is None:
            text = "spectator's view (every hand shown)\n" + self.rules.render(self._state, 0)
        else:
            text = f"player_{seat}'s view\n" + _picture_maker(state, int(seat), "text")
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def action_to_str(self, action: int) -> str:
        return self.rules.action_to_str(action)

    def str_to_action(self, text: str) -> int:
        return self.rules.str_to_action(text)

    def game_state(self) -> Any:
        """The engine's state of the game in play: the rules' ``BatchState``
        of a batch of one, every hand in it (hidden information: for agents
        that search the game from what their seat saw, as PIMC, and for
        tools). Read it, never change it: the env steps it."""
        return self._require_game()

    def state_dict(self) -> dict[str, Any]:
        d = self.rules.state_dict(self._require_game(), 0)
        if self._forfeit is not None:  # ended by an illegal action (illegal_action="terminate")
            d["done"] = True
            d["illegal_action_by"] = self._forfeit
        return d

    # --- the whole game, for centralised critics (cardenvs.core.state) ---------
    @property
    def state_space(self) -> spaces.Box:
        """PettingZoo's ``state_space``: the space of :meth:`state` (a Box
        with finite bounds, in the observations' dtype; made when first asked)."""
        space = self.__dict__.get("_state_space")
        if space is None:
            space = self._state_space = state_box(self.rules, self.obs_dtype)
        return space

    def state(self) -> np.ndarray:
        """PettingZoo's ``state()``: the whole game from a neutral view (every
        hand, stock and pile; seats absolute), one flat array laid out as
        the game's docs page's state table says (:mod:`cardenvs.core.state`).
        For centralised critics: never in ``observe()`` or ``last()``."""
        return encode_states(self.rules, self._require_game(), np.zeros(1, np.int64), self.obs_dtype)[0]
