"""PIMC vs the rule agent in Pepper (4 players, default config), seats alternating.

python benchmarks/pimc_match.py GAMES SEED WORLDS   # e.g. 1000 4242 32
"""

import sys
import time

from cardenvs.agents.evaluation import wilson_interval
from cardenvs.agents.pimc import PIMCAgent, play_match
from cardenvs.agents.registry import make_agent

n = int(sys.argv[1])
seed = int(sys.argv[2])
a = PIMCAgent("pepper_v0", worlds=int(sys.argv[3]), seed=seed)
t = time.perf_counter()
w, n = play_match("pepper_v0", a, make_agent("pepper_v0", "rule"), n, seed=seed)
lo, hi = wilson_interval(w, n)
print(f"pepper 4p: PIMC({sys.argv[3]} worlds, random rollout) vs rule: won {w}/{n} = {w / n:.3f}", flush=True)
print(f"95% Wilson [{lo:.3f}, {hi:.3f}], {time.perf_counter() - t:.0f}s", flush=True)
