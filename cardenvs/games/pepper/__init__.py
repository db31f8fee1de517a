"""Pepper (``cardenvs.pepper_v0``), one file per part of the game:

- ``tables.py``: the deck, phases, action ids and texts, card tables, the kernels' bundles (Config, Table)
- ``deal.py``: compiled: dealing a hand and opening its auction
- ``legal.py``: compiled: the next seat and the legal mask of each phase (auction, trump choice, play)
- ``apply.py``: compiled: the step's rows by phase, then a bid or pass, the trump choice, a card played
- ``scoring.py``: compiled: the end of a trick, a hand's score, the end of a hand and of the game, rewards
- ``observation.py``: the observation layout as data (LAYOUT, SEAT) and its writer kernel
- ``rules.py``: PepperRules, the thin rules class (config, state, step by phase, state_dict, render)
- ``env.py``: the PettingZoo AEC view (raw_env, env)
- ``agent.py``: the rule agent (PepperRuleAgent)
- ``sampler.py``: the information-set sampler (search)
- ``scene.py``: the table scene
- ``spec.py``: the registry entry (SPEC)
"""
