"""Cancellation Hearts: rules (rules.py), observation (observation.py), PettingZoo view (env.py)."""
