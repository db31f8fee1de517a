"""The package list, derived rather than written: every package under
cardenvs/ (so a new game's folder needs no line anywhere), plus
cardenvs.baselines, which pyproject.toml maps from agents/checkpoints/.
(pyproject.toml's ``packages.find`` alone cannot do it: it finds only the
packages inside the folders it searches, and the mapped one is outside.)
Everything else is in pyproject.toml."""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["cardenvs", "cardenvs.*"]), "cardenvs.baselines"])
