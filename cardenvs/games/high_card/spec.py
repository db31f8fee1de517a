"""What the registry knows of High Card (importing this imports nothing heavy)."""

from cardenvs.core.gamespec import GameSpec

SPEC = GameSpec(
    name="high_card_v0",
    title="High Card",
    players="2",
    folder="high_card",
    rules="cardenvs.games.high_card.rules:HighCardRules",
    layouts=("cardenvs.games.high_card.observation:LAYOUT",),
    state_layouts=("cardenvs.games.high_card.state:STATE_LAYOUT",),
    short_config=({"hands": 2},),
    rule_agent="cardenvs.games.high_card.agent:HighCardRuleAgent",
)
