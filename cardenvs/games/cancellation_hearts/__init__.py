"""Cancellation Hearts (``cardenvs.cancellation_hearts_v0``), one file per part of the game:

- ``tables.py``: the deck, card points, action ids and texts, phases, lead tables, the kernels' Config and Arrays
- ``deal.py``: dealing a hand and opening it (compiled)
- ``legal.py``: the legal-action masks, one function per phase (compiled)
- ``apply.py``: applying an action, one function per phase: passing, playing, the moon choice (compiled)
- ``scoring.py``: ending a trick and a hand, the moon, scores, game end, rewards (compiled)
- ``observation.py``: the observation layout as data (LAYOUT), its offsets and bounds, the writer (compiled)
- ``rules.py``: the rules class: config, new state, deals, step by phase, state_dict, render
- ``env.py``: the PettingZoo AEC env
- ``agent.py``: the rule agent (HeartsRuleAgent)
- ``sampler.py``: the information-set sampler and its Tracker (search)
- ``scene.py``: the table scene
- ``spec.py``: the registry entry (SPEC)
"""
