"""Push's entry in the registry (:mod:`cardenvs.registry`): names and
``"module:attribute"`` texts only, so importing it imports no kernel."""

from ...core.gamespec import GameSpec

SPEC = GameSpec(
    name="push_v0",
    title="Push",
    summary="partnership contract rummy with wilds and pushing",
    players="4",
    folder="push",
    rules="cardenvs.games.push.rules:PushRules",
    layouts=("cardenvs.games.push.observation:LAYOUT",),
    state_layouts=("cardenvs.games.push.state:STATE_LAYOUT",),
    short_config=({"rounds": [1, 2], "max_turns": 12},),
    rule_agent="cardenvs.games.push.agent:PushRuleAgent",
    baseline="push_ppo.npz",
    scratch="push_scratch.json",
    best="pimc:worlds=32,rollout=rule,search=all,score=margin",
    sampler="cardenvs.games.push.sampler",
    scene="cardenvs.games.push.scene:scene",
)
