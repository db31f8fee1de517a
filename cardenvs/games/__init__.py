"""The games, one folder each: ``cardenvs/games/<folder>/`` holds a game's
rules kernels, its env (``env.py``), its registry entry (``spec.py``), and,
where it has them, its rule agent (``agent.py``), its information-set
sampler (``sampler.py``) and its table scene (``scene.py``).  The registry
(:mod:`cardenvs.registry`) lists the folders; a game folder imports only
:mod:`cardenvs.core` (its agent builds on :mod:`cardenvs.core.agent`, its
sampler on :mod:`cardenvs.core.sampling`) and the renderer
:mod:`cardenvs.render` (in its scene), never another game's folder nor
anything above (``tests/test_render_layer.py``)."""
