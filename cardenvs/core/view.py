"""What every PettingZoo view of a batched rules core shares (turn-based AEC
and simultaneous parallel alike): render modes, starting a game from
``reset(seed, options)`` on a batch of one, and the text/state extras."""

from __future__ import annotations

from typing import Any

import numpy as np

RESET_OPTIONS = ("decks", "dealer")
RENDER_MODES = (None, "human", "ansi")


def check_render_mode(render_mode: Any) -> Any:
    if render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be one of {list(RENDER_MODES)}, got {render_mode!r}")
    return render_mode


class RulesView:
    """Mixin for a PettingZoo env holding ``self.rules`` and a batch-of-one
    ``self._state``."""

    rules: Any
    render_mode: str | None
    _state: Any = None
    _rng: np.random.Generator | None = None

    def _new_game(self, seed: int | None, options: dict | None):
        """A new batch-of-one state from ``reset``'s arguments.  Options are
        validated before anything changes (a bad deck or dealer raises
        ValueError and the current game goes on untouched)."""
        options = dict(options or {})
        unknown = set(options) - set(RESET_OPTIONS)
        if unknown:  # PettingZoo's API tests pass arbitrary options: warn, do not fail
            import gymnasium

            gymnasium.logger.warn(f"ignoring unknown reset options {sorted(unknown)}; known: {list(RESET_OPTIONS)}")
        dealer = self.rules.check_dealer(options.get("dealer"))
        rng = np.random.default_rng(seed) if seed is not None or self._rng is None else self._rng
        state = self.rules.new_state(1, rng)
        self.rules.set_fixed_decks(state, options.get("decks"))
        self._rng = rng
        self.rules.reset(state, np.array([0]), dealer=dealer)
        return state

    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; use render_mode='ansi' or 'human'")
            return None
        text = "(not reset yet)" if self._state is None else self.rules.render(self._state, 0)
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

    def state_dict(self) -> dict[str, Any]:
        if self._state is None:
            raise RuntimeError("call reset() before state_dict()")
        return self.rules.state_dict(self._state, 0)
