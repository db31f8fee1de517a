"""Speed has no env of its own: it is ``cardenvs.spit_v0`` with ``variant="speed"``
(:mod:`cardenvs.spit.env`, whose rules come from :func:`cardenvs.spit.rules.spit_rules`)."""
