"""Speed (``cardenvs.spit_v0``, ``variant="speed"``), a variant of Spit inside its folder.  The deck, phases,
adjacency of ranks, the tick's skeleton (``cardenvs.games.spit.tick.TickRules``), the end of a game and the
card code are Spit's (``cardenvs.games.spit``).
Speed is whole-batch numpy over row subsets (no compiled kernels: each tick is a few array operations).

- ``tables.py``       Speed's action table, the deal sizes, the table of cards that fit a centre top
- ``deal.py``         dealing a game (stocks, side piles, the middle cards, hands)
- ``legal.py``        which cards can be played, the legal masks, whether a stuck game can ever go on
- ``apply.py``        a hand's plays (with the refill from the stock); side piles flipping and being rebuilt
- ``scoring.py``      the end of a game and of a match (points)
- ``observation.py``  the observation layout (``LAYOUT``, ``speed_layout``) and its writer
- ``rules.py``        ``SpeedRules``

Speed has no env of its own: its env is ``spit_v0``'s (``cardenvs/games/spit/env.py``) with ``variant="speed"``.
"""
