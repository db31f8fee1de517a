"""The games, one folder each: ``cardenvs/games/<folder>/`` holds a game's
rules kernels, its env (``env.py``), its registry entry (``spec.py``), and,
where it has them, its rule agent (``agent.py``), its information-set
sampler (``sampler.py``) and its table scene (``scene.py``).  The registry
(:mod:`cardenvs.registry`) lists the folders; a game folder imports only
:mod:`cardenvs.core` (and the shared base classes of :mod:`cardenvs.agents`,
:mod:`cardenvs.search` and :mod:`cardenvs.table` in its agent, sampler and
scene), never another game's folder."""
