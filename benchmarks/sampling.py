"""Sampled worlds per second: cardenvs' batched information-set samplers
(Pepper 4p, Cancellation Hearts 6p, mid-hand positions from random play)
next to OpenSpiel's ``resample_from_infostate`` (euchre, hearts), in one run.

    python benchmarks/sampling.py [--batch 1024] [--worlds 64]

Two cardenvs numbers per game: ``deals`` (the sampler core: the hidden
cards as count arrays) and ``states`` (complete BatchStates the rules can
step: every array of the row copied, then the hidden cards written).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from cardenvs.registry import rules_class
from cardenvs.search import base, cancellation_hearts, pepper


def random_positions(game, batch, plays, seed, tracker=None, **config):
    rules = rules_class(game)(**config)
    rng = np.random.default_rng(seed)
    state = rules.new_state(batch, rng)
    rules.reset(state, np.arange(batch))
    for _ in range(plays):
        noise = rng.random(state.legal.shape)
        actions = np.where(state.legal, noise, -1).argmax(1)
        if tracker is None:
            rules.step(state, actions)
        else:
            tracker.step(rules, state, actions)
    return rules, state


def best_rate(fn, count, repeats=3):
    fn()  # compile / warm up
    best = min(_timed(fn) for _ in range(repeats))
    return count / best


def _timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def cardenvs_rates(batch, worlds):
    rng = np.random.default_rng(0)
    rules, state = random_positions("pepper_v0", batch, 16, 1)  # bidding done, ~2 tricks in
    seats = state.current.copy()
    problem = pepper.problem(state, seats)
    yield "Pepper 4p", "deals", best_rate(lambda: base.sample_deals(*problem, worlds, rng), batch * worlds)
    yield "Pepper 4p", "states", best_rate(lambda: pepper.sample(rules, state, seats, worlds, rng), batch * worlds)
    h_rules = rules_class("cancellation_hearts_v0")()
    tracker = cancellation_hearts.Tracker(h_rules, batch)
    h_rules, h_state = random_positions("cancellation_hearts_v0", batch, 18 + 6 * 6, 2, tracker=tracker)
    h_seats = h_state.current.copy()

    def hearts():
        return cancellation_hearts.sample(h_rules, h_state, h_seats, worlds, rng, tracker=tracker)

    yield "Cancellation Hearts 6p", "states", best_rate(hearts, batch * worlds)


def openspiel_rates(samples):
    try:
        import pyspiel
    except ImportError:
        yield "OpenSpiel", "not installed", 0.0
        return
    for name in ("euchre", "hearts"):
        game = pyspiel.load_game(name)
        rng = np.random.default_rng(0)
        state = game.new_initial_state()
        while state.is_chance_node() or state.move_number() < 20 and not state.is_terminal():
            actions = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
            state.apply_action(int(rng.choice(actions)))
        player = state.current_player()
        if not hasattr(state, "resample_from_infostate"):
            yield f"OpenSpiel {name}", "resample_from_infostate not exposed in Python", 0.0
            continue
        sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)

        def run(state=state, player=player, sampler=sampler):
            for _ in range(samples):
                state.resample_from_infostate(player, sampler)

        yield f"OpenSpiel {name}", "resample_from_infostate", best_rate(run, samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--worlds", type=int, default=64)
    parser.add_argument("--openspiel-samples", type=int, default=2000)
    args = parser.parse_args()
    print(f"batch {args.batch} x {args.worlds} worlds, one process")
    for game, what, rate in [*cardenvs_rates(args.batch, args.worlds), *openspiel_rates(args.openspiel_samples)]:
        print(f"{game:28s} {what:48s} {rate:12,.0f} worlds/s")


if __name__ == "__main__":
    main()
