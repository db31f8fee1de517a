"""Sampled worlds per second: cardenvs' batched information-set samplers
(mid-hand positions from random play) next to OpenSpiel's
``resample_from_infostate`` (euchre, hearts, gin rummy: one state at a
time), in one run, on one core.

    python benchmarks/sampling.py [--shapes 1024x64,256x32] [--openspiel-samples 2000] [--json [PATH]]

Per game and batch shape (B games x K worlds each): ``deals`` (the sampler
core: every world's hidden cards as one compact int8 row) and ``states``
(complete states the rules can step: every array of the row copied, the
hidden places written, masks fixed).  Positions: Pepper 4p after bidding,
~2 tricks in; Cancellation Hearts 6p ~6 tricks in; Push mid-round (with
its tracker); Spit mid-game; Speed a few ticks in.  Rates are the best of
``--repeats`` timed calls after one warm-up, by the wall clock and by
this process's CPU time (other jobs on the machine inflate the first),
pinned to CPU 0.  ``states, out= recycled``: each call writes over the
previous call's worlds (``sample_worlds(..., out=...)``) instead of fresh
memory, as a search loop can.  ``--json`` (alone:
``benchmarks/results/sampling.json``) also writes the rates with the commit
and the machine (``docs/results.md`` is generated from it).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import report  # benchmarks/report.py: --json

from cardenvs.registry import rules_class
from cardenvs.search import base, cancellation_hearts, pepper, push, sample_worlds


def random_positions(game, batch, plays, seed, tracker=None, **config):
    """``batch`` games after ``plays`` random legal steps (through ``tracker``)."""
    rules = rules_class(game)(**config)
    rng = np.random.default_rng(seed)
    state = rules.new_state(batch, rng)
    rules.reset(state, np.arange(batch))
    for _ in range(plays):
        noise = rng.random(state.legal.shape)
        actions = np.where(state.legal, noise, -1).argmax(-1)
        if tracker is None:
            rules.step(state, actions)
        else:
            tracker.step(rules, state, actions)
    return rules, state


def best_rate(fn, count, repeats=5):
    """``(count / best wall time, count / best CPU time)`` of ``repeats``
    calls after a warm-up (CPU time: this process only; on a machine shared
    with other jobs the wall clock also counts their turns on the core)."""
    fn()  # compile / warm up
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return count / min(walls), count / max(min(cpus), 1e-9)


def positions(batch):
    """(label, rules, state, seats, known, problem or None) per game."""
    rules, state = random_positions("pepper_v0", batch, 16, 1)  # bidding done, ~2 tricks in
    seats = state.current.copy()
    yield "Pepper 4p", rules, state, seats, {}, pepper.problem(state, seats)
    h_rules = rules_class("cancellation_hearts_v0")()
    tracker = cancellation_hearts.Tracker(h_rules, batch)
    rules, state = random_positions("cancellation_hearts_v0", batch, 18 + 6 * 6, 2, tracker=tracker)
    seats = state.current.copy()
    deal = cancellation_hearts.problem(rules, state, seats, tracker)[0]
    yield "Cancellation Hearts 6p", rules, state, seats, {"tracker": tracker}, deal
    p_rules = rules_class("push_v0")()
    tracker = push.Tracker(p_rules, batch)
    rules, state = random_positions("push_v0", batch, 60, 3, tracker=tracker)
    seats = np.where(state.done, 0, state.current)
    yield "Push 4p", rules, state, seats, {"tracker": tracker}, None
    rules, state = random_positions("spit_v0", batch, 100, 4)
    yield "Spit", rules, state, np.zeros(batch, np.int64), {}, None
    rules, state = random_positions("spit_v0", batch, 3, 5, variant="speed")
    yield "Speed", rules, state, np.zeros(batch, np.int64), {}, None


def cardenvs_rates(shapes, repeats):
    for batch, worlds in shapes:
        rng = np.random.default_rng(0)
        for label, rules, state, seats, known, problem in positions(batch):
            shape = f"{batch}x{worlds}"
            if problem is not None:

                def deals(problem=problem):
                    return base.sample_cards(*problem, worlds, rng)

                yield label, shape, "deals", best_rate(deals, batch * worlds, repeats)

            def states(rules=rules, state=state, seats=seats, known=known):
                return sample_worlds(rules, state, seats, worlds, rng, **known)

            yield label, shape, "states", best_rate(states, batch * worlds, repeats)
            recycled = [states()]

            def states_into(rules=rules, state=state, seats=seats, known=known, recycled=recycled):
                recycled[0] = sample_worlds(rules, state, seats, worlds, rng, out=recycled[0], **known)

            yield label, shape, "states, out= recycled", best_rate(states_into, batch * worlds, repeats)


def openspiel_rates(samples, repeats):
    try:
        import pyspiel
    except ImportError:
        yield "OpenSpiel", "-", "not installed", (0.0, 0.0)
        return
    for name, moves in (("euchre", 20), ("hearts", 20), ("gin_rummy", 30)):
        game = pyspiel.load_game(name)
        rng = np.random.default_rng(0)
        state = game.new_initial_state()
        while state.is_chance_node() or state.move_number() < moves and not state.is_terminal():
            actions = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
            state.apply_action(int(rng.choice(actions)))
        player = state.current_player()
        sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)

        def run(state=state, player=player, sampler=sampler):
            for _ in range(samples):
                state.resample_from_infostate(player, sampler)

        yield f"OpenSpiel {name}", "1", "resample_from_infostate", best_rate(run, samples, repeats)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default="1024x64,256x32", help="batch x worlds, comma separated")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--openspiel-samples", type=int, default=2000)
    report.add_json_option(parser, "sampling")
    args = parser.parse_args()
    shapes = [tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",")]
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {0})
    load = os.getloadavg() if hasattr(os, "getloadavg") else ()
    print(f"one process pinned to CPU 0; load average {' '.join(f'{x:.2f}' for x in load)}")
    rows = [*cardenvs_rates(shapes, args.repeats), *openspiel_rates(args.openspiel_samples, args.repeats)]
    print(f"{'game':24s} {'shape':>8s} {'what':24s} {'worlds/s (wall)':>16s} {'worlds/CPU-s':>14s}")
    for game, shape, what, (wall, cpu) in rows:
        print(f"{game:24s} {shape:>8s} {what:24s} {wall:16,.0f} {cpu:14,.0f}")
    if args.json:
        records = [
            {"game": game, "shape": shape, "what": what, "worlds_per_s": wall, "worlds_per_cpu_s": cpu}
            for game, shape, what, (wall, cpu) in rows
        ]
        report.write(args.json, "sampling", records, pinned_cpu=0)


if __name__ == "__main__":
    main()
