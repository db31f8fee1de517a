"""Cancellation Hearts's entry in the registry (:mod:`cardenvs.registry`): names and
``"module:attribute"`` texts only, so importing it imports no kernel."""

from ...core.gamespec import GameSpec

SPEC = GameSpec(
    name="cancellation_hearts_v0",
    title="Cancellation Hearts",
    summary="Hearts with two decks, identical cards cancel",
    players="6-11",
    folder="cancellation_hearts",
    rules="cardenvs.games.cancellation_hearts.rules:CancellationHeartsRules",
    layouts=("cardenvs.games.cancellation_hearts.observation:LAYOUT",),
    state_layouts=("cardenvs.games.cancellation_hearts.state:STATE_LAYOUT",),
    short_config=({"max_hands": 1, "passing": "none"},),
    rule_agent="cardenvs.games.cancellation_hearts.agent:HeartsRuleAgent",
    baseline="hearts_ppo.npz",
    scratch="hearts_scratch.json",
    best="pimc:worlds=32,rollout=rule,search=all,score=margin",
    sampler="cardenvs.games.cancellation_hearts.sampler",
    scene="cardenvs.games.cancellation_hearts.scene:scene",
)
