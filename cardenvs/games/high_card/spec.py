"""High Card's entry in the registry (:mod:`cardenvs.registry`): names and
``"module:attribute"`` texts only, so importing it imports no kernel.  No
trained baseline, sampler or scene: what needs one says so (the table
draws a generic scene)."""

from cardenvs.core.gamespec import GameSpec

SPEC = GameSpec(
    name="high_card_v0",
    title="High Card",
    summary="the template game: swap a card, then one trick; 16 cards",
    players="2",
    folder="high_card",
    rules="cardenvs.games.high_card.rules:HighCardRules",
    layouts=("cardenvs.games.high_card.observation:LAYOUT",),
    state_layouts=("cardenvs.games.high_card.state:STATE_LAYOUT",),
    short_config=({"hands": 2},),
    rule_agent="cardenvs.games.high_card.agent:HighCardRuleAgent",
)
