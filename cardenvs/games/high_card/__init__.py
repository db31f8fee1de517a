"""High Card (``cardenvs.high_card_v0``): the template game, the smallest
complete game of the library and the starting point of a new one
(``cardenvs new-game NAME`` copies this folder; see docs/adding-a-game.md).

One file per part of the game, in the order a reader meets them:

- ``tables.py``: the deck, action ids and texts, phases, the kernels' Config and Arrays (a pack)
- ``legal.py``: the legal-action mask of one game (compiled)
- ``deal.py``: dealing a hand and opening it (compiled)
- ``apply.py``: a step in one compiled call, one function per phase
- ``observation.py``: the observation layout as data (LAYOUT) and its writer (compiled)
- ``state.py``: the whole game for centralised critics (STATE_LAYOUT, encode, decode)
- ``rules.py``: the rules class: config, new state, deals, step by phase, state_dict, render
- ``env.py``: the PettingZoo AEC env
- ``agent.py``: the rule-based agent
- ``spec.py``: what the registry knows of the game
- ``test_rules.py``: the game's own tests; ``playthroughs/``: its golden playthrough
"""
