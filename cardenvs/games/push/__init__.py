"""Push: partnership contract rummy for 4 players.

The folder, one line per file.  Imports run one way: tables <- melds <- legal <- apply <- rules <- env,
observation <- (apply, outputs), and deal, scoring, outputs <- rules.

- ``tables.py``       the deck, action ids and texts (and the action-space plan), phases,
                      contracts, the named bundles of state arrays the kernels take
- ``melds.py``        Push's own extra: the meld-feasibility searches (can a meld, a contract, still be finished?)
- ``deal.py``         kernels: dealing a round (hands, upcard, stock), an empty table, the first turn
- ``legal.py``        kernels: the legal-action masks, per phase and pending meld, lay-offs and swaps
- ``apply.py``        kernels: applying an action, one function per action kind; ``step_rows`` (actions + masks)
- ``scoring.py``      kernels: scoring a round; the win/loss rewards of a finished game
- ``observation.py``  the observation LAYOUT (data: offsets, bounds, docs table) and its writer kernels
- ``outputs.py``      Push's other extra: recycled output arrays, meld stamps and the state that owns them
- ``rules.py``        the thin rules class: config, new_state, step, state_dict, render
- ``env.py``          the PettingZoo AEC view
- ``agent.py``        the rule agent (PushRuleAgent)
- ``sampler.py``      the information-set sampler and its Tracker (search); ``push_turn.py`` its
                      check that a sampled hand can still play its turn
- ``scene.py``        the table scene
- ``spec.py``         the registry entry (SPEC)
"""
