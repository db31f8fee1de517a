"""Spit and Speed's entry in the registry (:mod:`cardenvs.registry`): names and
``"module:attribute"`` texts only, so importing it imports no kernel.  Its layouts and short configs
stand one per variant: Spit, then Speed."""

from ...core.gamespec import GameSpec

SPEC = GameSpec(
    name="spit_v0",
    title="Spit and Speed",
    summary="real-time shedding games, two variants",
    players="2",
    folder="spit",
    rules="cardenvs.games.spit.rules:spit_rules",
    simultaneous=True,
    layouts=("cardenvs.games.spit.observation:LAYOUT", "cardenvs.games.spit.speed.observation:LAYOUT"),
    state_layouts=("cardenvs.games.spit.state:STATE_LAYOUT", "cardenvs.games.spit.speed.state:STATE_LAYOUT"),
    short_config=({"max_ticks": 60}, {"variant": "speed", "max_ticks": 60}),
    rule_agent="cardenvs.games.spit.agent:SpitRuleAgent",
    baseline="spit_ppo.npz",
    scratch="spit_scratch.json",
    scratch_search="lookahead:worlds=16,horizon=4,discount=0.5",
    sampler="cardenvs.games.spit.sampler",
    scene="cardenvs.games.spit.scene:scene",
)
