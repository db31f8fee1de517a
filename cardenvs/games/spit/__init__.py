"""Spit and Speed (``cardenvs.spit_v0``): Spit (``variant="spit"``) in this folder, with the real-time
tick it shares with Speed; Speed (``variant="speed"``) in its subpackage, :mod:`cardenvs.games.spit.speed`
(one game with two variants: one env, one registry entry, and Speed builds on Spit's tick, deck and
scoring, so it sits inside Spit's folder and imports from it, never the other way but for ``spit_rules``,
``env.py`` and the agent, sampler and scene, which serve both).

- ``tables.py``       the deck, phases, "no card", the adjacency of ranks (shared with Speed); Spit's actions
                      and their text table, the per-config tables the kernels read (``SpitTables``) and the
                      state-array bundle (``SpitArrays``)
- ``deal.py``         compiled kernels: gathering the cards at the end of a deal, laying out a new one
- ``legal.py``        compiled kernel: the legal masks (and which games are stuck)
- ``apply.py``        compiled kernels: a tick's slaps, plays and moves; the automatic spit of a stalemate
- ``scoring.py``      compiled kernel: a player going out (win, slap, one-pile end); numpy: the end of a game
                      and truncation (shared with Speed)
- ``observation.py``  the observation layout (``LAYOUT``; the card code shared with Speed) and its writer kernel
- ``tick.py``         ``TickRules``: the base rules class of Spit and Speed (shared options and state, the tick's
                      skeleton and seeded coin, results, ``state_dict`` and render skeletons)
- ``rules.py``        ``SpitRules``; ``spit_rules(variant=..., **config)``: the rules of ``spit_v0`` by variant
- ``env.py``          the PettingZoo parallel env and its AEC view (both variants)
- ``agent.py``        the rule agent of both variants (SpitRuleAgent)
- ``sampler.py``      the information-set sampler (Speed's hidden stocks; its Tracker)
- ``scene.py``        the table scene of both variants
- ``spec.py``         the registry entry (SPEC)
- ``speed/``          Speed's rules, one file per part as here
"""
