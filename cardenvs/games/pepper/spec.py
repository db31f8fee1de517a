"""Pepper's entry in the registry (:mod:`cardenvs.registry`): names and
``"module:attribute"`` texts only, so importing it imports no kernel."""

from ...core.gamespec import GameSpec

SPEC = GameSpec(
    name="pepper_v0",
    title="Pepper",
    summary="bidding trick-taker with bowers, 24 cards",
    players="2-4",
    folder="pepper",
    rules="cardenvs.games.pepper.rules:PepperRules",
    layouts=("cardenvs.games.pepper.observation:LAYOUT",),
    state_layouts=("cardenvs.games.pepper.state:STATE_LAYOUT",),
    short_config=({"max_hands": 2},),
    rule_agent="cardenvs.games.pepper.agent:PepperRuleAgent",
    baseline="pepper_ppo.npz",
    scratch="pepper_scratch.json",
    scratch_search="pimc:worlds=16,search=all",
    best="pimc:worlds=32,rollout=rule,search=all,score=margin",
    sampler="cardenvs.games.pepper.sampler",
    scene="cardenvs.games.pepper.scene:scene",
)
