"""The ``cardenvs`` command line.

    cardenvs play pepper --seat 0 --vs rule          # a game in the terminal
    cardenvs serve --port 8000                        # the play page in a browser
    cardenvs replay record pepper --agents rule random -o game.json --html game.html
    cardenvs replay view game.json -o game.html      # the replay viewer (one HTML file)
    cardenvs replay picture game.json --step 40 --viewpoint 1 -o table.svg
    cardenvs arena pepper --agents random,rule,ppo  # a league in duplicate deals, rated
    cardenvs compare --algorithms ppo,dmc --games pepper --seeds 5 --cpu-minutes 10 --out bench
                                                     # training algorithms compared, with intervals
    cardenvs eval | bench | train GAME               # the repository's scripts (from a checkout)
    cardenvs new-game card_duel                      # a new game: a copy of the template (from a checkout)

Every command has ``--help``.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import time
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[2]  # the checkout, when run from one
SCRIPTS = {
    "eval": ("examples/evaluate.py", "Evaluate agents: a tournament with win rates and confidence intervals."),
    "bench": ("benchmarks/throughput.py", "Throughput of the vector engine and the AEC env next to peer libraries."),
}


class Progress:
    """A one-line progress counter on stderr (at most two updates a second)."""

    def __init__(self, label: str, stream=None):
        self.label, self.stream = label, stream or sys.stderr
        self.t0 = self.last = time.monotonic()
        self.open = False  # a line is being written

    def __call__(self, i: int, total: int | None) -> None:
        """Item ``i`` (from 0) of ``total`` (None: unknown) is done."""
        now = time.monotonic()
        last = total is not None and i + 1 >= total
        if now - self.last >= 0.5 or last:
            self.last = now
            count = f"{i + 1}/{total}" if total is not None else f"{i + 1}"
            self.stream.write(f"\r{self.label}: {count} ({now - self.t0:.0f}s)")
            self.open = True
            if last:
                self.close()
            self.stream.flush()

    def close(self) -> None:
        if self.open:
            self.stream.write("\n")
            self.stream.flush()
            self.open = False


def _config(text: str) -> dict[str, Any]:
    from .arena import json_config

    try:
        return json_config(text)
    except ValueError as e:
        raise SystemExit(str(e)) from None


def _fail(message: str) -> int:
    sys.stderr.write(f"cardenvs: {message}\n")
    return 2


def _file_error(path: str, e: Exception) -> int:
    """A file that cannot be used, as one line (``cardenvs: error: FILE: what
    is wrong``, the message cut to a line's length) and exit code 2."""
    if isinstance(e, OSError):
        what = f"{e.filename or path}: {e.strerror or e}"
    else:
        what = str(e) if getattr(e, "path", None) else f"{path}: {e}"  # a ReplayError names its file
    what = " ".join(what.split())
    return _fail("error: " + (what if len(what) <= 500 else what[:497] + "..."))


def _seed_arg(seed: int | None) -> None:
    if seed is not None and seed < 0:
        raise ValueError(f"--seed must be a non-negative integer, got {seed}")


# ----------------------------------------------------------------------- play
def cmd_play(args: argparse.Namespace) -> int:
    from .agents import AgentsUnavailableError
    from .play import play

    try:
        _seed_arg(args.seed)
        return play(args.game, args.seat, args.vs, args.seed, _config(args.config), replay_path=args.save_replay)
    except (ValueError, AgentsUnavailableError) as e:
        return _fail(str(e))
    except OSError as e:
        if e.filename is None or e.filename != args.save_replay:  # not the replay (e.g. stdout closed)
            raise
        return _file_error(args.save_replay, e)


# ---------------------------------------------------------------------- serve
def cmd_serve(args: argparse.Namespace) -> int:
    from .agents import parse_agent_option
    from .serve import serve

    agents: dict[str, str] = {}
    try:
        for text in args.agent or []:
            name, agent_spec = parse_agent_option(text)
            if name in agents:
                raise ValueError(f"--agent {name}=... is given twice")
            agents[name] = agent_spec
    except ValueError as e:
        return _fail(str(e))
    if not 0 <= args.tick <= 60:
        return _fail(f"--tick must be from 0 to 60 seconds, got {args.tick}")
    serve(args.host, args.port, tick=args.tick, open_browser=args.open, agents=agents)
    return 0


# --------------------------------------------------------------------- replay
def cmd_replay_record(args: argparse.Namespace) -> int:
    from .agents import AgentsUnavailableError
    from .play import resolve_game
    from .replay import record_game

    try:
        _seed_arg(args.seed)
        game, extra = resolve_game(args.game)
        config = {**extra, **_config(args.config)}
        agents: Any = args.agents if len(args.agents) > 1 else args.agents[0]
        if isinstance(agents, list):
            from .replay import _module

            n = len(_module(game).raw_env(**config).possible_agents)
            agents = (agents * n)[:n] if len(agents) < n else agents
        t0 = time.monotonic()
        progress = Progress("steps played")
        replay = record_game(
            game,
            agents,
            seed=args.seed,
            config=config,
            max_steps=args.max_steps,
            progress=lambda i, n: progress(i - 1, n),
        )
        progress.close()
    except (ValueError, AgentsUnavailableError) as e:
        return _fail(str(e))
    try:
        replay.save(args.output)
    except OSError as e:
        return _file_error(args.output, e)
    print(
        f"recorded {len(replay.actions)} steps in {time.monotonic() - t0:.1f}s -> {args.output}; result {replay.result}"
    )
    if args.html:
        return _write_viewer(replay, args.html, args.max_html_steps, 0)
    return 0


def _write_viewer(replay, path: str, max_steps: int, start: int) -> int:
    from .viewer import write_html

    total = min(len(replay.actions), start + max_steps - 1)
    progress = Progress("building the viewer", None)
    try:
        write_html(replay, path, max_steps=max_steps, start=start, progress=progress)
    finally:
        progress.close()
    print(f"viewer -> {path} ({os.path.getsize(path) // 1024} KB, steps {start}..{total} of {len(replay.actions)})")
    return 0


def cmd_replay_view(args: argparse.Namespace) -> int:
    from .replay import Replay

    if args.max_steps < 1 or args.start < 0:
        return _fail(f"error: --max-steps must be >= 1 and --start >= 0, got {args.max_steps} and {args.start}")
    try:
        replay = Replay.load(args.replay)
        out = args.output or str(pathlib.Path(args.replay).with_suffix(".html"))
        code = _write_viewer(replay, out, args.max_steps, args.start)
    except (OSError, ValueError) as e:  # the replay (ReplayError, a step that cannot be played) or the page
        return _file_error(args.replay, e)
    if args.open:
        import webbrowser

        webbrowser.open(pathlib.Path(out).resolve().as_uri())
    return code


def cmd_replay_picture(args: argparse.Namespace) -> int:
    from .. import app
    from .replay import Replay

    vp = None if args.viewpoint in (None, "spectator") else args.viewpoint
    if args.step < 0 or not (vp is None or vp.isdigit()):
        return _fail(f"error: --step must be >= 0 and --viewpoint spectator or a seat, got {args.step}, {vp!r}")
    vp = None if vp is None else int(vp)
    try:
        replay = Replay.load(args.replay)
        states = replay.states(limit=args.step)
    except (OSError, ValueError) as e:
        return _file_error(args.replay, e)
    state = states[min(args.step, len(states) - 1)]
    seats = len(state["scores"])  # every game's state has a score per seat
    if vp is not None and vp >= seats:
        return _fail(f"error: --viewpoint must be spectator or a seat 0..{seats - 1}, got {vp}")
    try:
        if args.output.endswith(".svg"):
            pathlib.Path(args.output).write_text(app.svg(state, vp))
        elif args.output.endswith(".txt"):
            pathlib.Path(args.output).write_text(app.text(state, vp) + "\n")
        else:
            from PIL import Image

            Image.fromarray(app.rgb_array(state, vp)).save(args.output)
    except ValueError as e:  # a seat the game has not, a picture format Pillow does not know
        return _fail(f"error: {' '.join(str(e).split())}")
    except OSError as e:
        return _file_error(args.output, e)
    print(f"step {min(args.step, len(states) - 1)} ({'spectator' if vp is None else f'player_{vp}'}) -> {args.output}")
    return 0


# ------------------------------------------------------- the repository's scripts
def _script(path: str) -> pathlib.Path | None:
    p = ROOT / path
    return p if p.is_file() else None


def _run_script(rel: str, argv: list[str]) -> int:
    script = _script(rel)
    if script is None:
        return _fail(
            f"this command runs {rel} from a checkout of the cardenvs repository, and there is none next to "
            f"the installed package ({ROOT}); clone the repository and run it from there (pip install -e .)"
        )
    # the scripts print their own progress (per pairing, per measurement, per update)
    return subprocess.call([sys.executable, str(script), *argv], cwd=str(ROOT))


def _script_help(rel: str) -> str:
    script = _script(rel)
    if script is None:
        return f"({rel} is not here: these commands need a checkout of the repository)"
    done = subprocess.run([sys.executable, str(script), "--help"], cwd=str(ROOT), capture_output=True, text=True)
    return done.stdout or done.stderr


class ScriptHelp(argparse.Action):
    """``--help`` of a wrapping command: its own usage, then the script's options."""

    def __init__(self, option_strings, dest, script_of, **kw):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kw)
        self.script_of = script_of

    def __call__(self, parser, namespace, values, option_string=None):
        rel = self.script_of(namespace)
        parser.print_help()
        print(f"\nEverything after the command goes to {rel}; its options:\n")
        print(_script_help(rel))
        parser.exit()


def cmd_script(args: argparse.Namespace) -> int:
    return _run_script(SCRIPTS[args.command][0], args.args)


def _train_script(game: str | None) -> str:
    from .play import resolve_game

    name = resolve_game(game)[0] if game else "pepper_v0"
    return f"examples/train_{name.removesuffix('_v0')}.py"


def cmd_train(args: argparse.Namespace) -> int:
    try:
        rel = _train_script(args.game)
    except ValueError as e:
        return _fail(str(e))
    return _run_script(rel, args.args)


# ----------------------------------------------------------------------- main
# the agents `play --vs` and `replay record --agents` take
AGENTS_HELP = (
    "random, rule, ppo (the committed baseline), scratch, best, pimc:OPTIONS (a search, e.g. pimc:worlds=32,"
    "rollout=rule: Pepper, Hearts, Push) or a saved policy, PATH or ppo:PATH: a cardenvs policy file "
    "(.npz) or an SB3 zip. An SB3 zip holds pickles, and a pickle runs code when it is unpickled "
    "(MaskablePPO.load does): cardenvs reads it without unpickling, but load only files you trust"
)


def parser() -> argparse.ArgumentParser:
    from .. import GAMES

    games = ", ".join(GAMES) + " (or pepper, hearts, push, spit, speed)"
    p = argparse.ArgumentParser(prog="cardenvs", description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    sp = sub.add_parser("play", help="play a game in the terminal against the agents", description=_doc("play"))
    sp.add_argument("game", help=games)
    sp.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    sp.add_argument("--vs", default="random", help="the other seats: " + AGENTS_HELP)
    sp.add_argument("--seed", type=int, default=None, help="the deal's seed (default: random)")
    sp.add_argument("--config", default="{}", help="game options as JSON, e.g. '{\"num_players\": 3}'")
    sp.add_argument("--save-replay", metavar="FILE", help="save the game as a replay (JSON)")
    sp.set_defaults(func=cmd_play)

    sp = sub.add_parser("serve", help="serve the play page on a local port", description=_doc("serve"))
    sp.add_argument("--host", default="127.0.0.1")
    sp.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    sp.add_argument("--tick", type=float, default=1.0, help="Spit/Speed: seconds per tick when you wait (default 1)")
    sp.add_argument("--open", action="store_true", help="open the page in a browser")
    sp.add_argument(
        "--agent",
        action="append",
        metavar="NAME=SPEC",
        help="offer another agent by NAME (repeatable): SPEC is random, rule, ppo, scratch, best, pimc:OPTIONS (a "
        "search: at most 256 worlds, budget at most 10 s), ppo:PATH or the PATH of an "
        "saved policy (a cardenvs .npz or an SB3 zip). Requests name agents only (random, rule, ppo and these), "
        "never a file. An SB3 zip is a pickle, which can run code: name only files you trust",
    )
    sp.set_defaults(func=cmd_serve)

    sp = sub.add_parser("replay", help="record, view and draw replays", description=_doc("replay"))
    rsub = sp.add_subparsers(dest="action", metavar="ACTION", required=True)
    rp = rsub.add_parser("record", help="play a game with agents and save its replay")
    rp.add_argument("game", help=games)
    rp.add_argument("--agents", nargs="+", default=["random"], help="one per seat (repeated to fill): " + AGENTS_HELP)
    rp.add_argument("--seed", type=int, default=0)
    rp.add_argument("--config", default="{}", help="game options as JSON")
    rp.add_argument("--max-steps", type=int, default=None, help="stop after this many steps")
    rp.add_argument("-o", "--output", default="replay.json")
    rp.add_argument("--html", metavar="FILE", help="also write the viewer page")
    rp.add_argument("--max-html-steps", type=int, default=2000, help="steps in the viewer page (default 2000)")
    rp.set_defaults(func=cmd_replay_record)
    rp = rsub.add_parser("view", help="write the HTML viewer of a replay (one self-contained file)")
    rp.add_argument("replay", help="a replay JSON file")
    rp.add_argument("-o", "--output", help="the HTML file (default: the replay's name with .html)")
    rp.add_argument("--max-steps", type=int, default=2000, help="steps in the page (default 2000)")
    rp.add_argument("--start", type=int, default=0, help="the first step in the page")
    rp.add_argument("--open", action="store_true", help="open it in a browser")
    rp.set_defaults(func=cmd_replay_view)
    rp = rsub.add_parser("picture", help="draw one step of a replay (.svg, .png or .txt)")
    rp.add_argument("replay")
    rp.add_argument("--step", type=int, default=0)
    rp.add_argument("--viewpoint", default="spectator", help="spectator or a seat number")
    rp.add_argument("-o", "--output", default="table.svg")
    rp.set_defaults(func=cmd_replay_picture)

    _own_modules(sub)

    for name, (rel, text) in SCRIPTS.items():
        sp = sub.add_parser(name, help=text.lower().rstrip("."), add_help=False, description=f"{text} Runs {rel}.")
        sp.add_argument("-h", "--help", action=ScriptHelp, script_of=lambda ns, rel=rel: rel, help="show this help")
        sp.add_argument("args", nargs=argparse.REMAINDER, help=f"options of {rel}")
        sp.set_defaults(func=cmd_script)
    scripts = ", ".join(f"examples/train_{g.removesuffix('_v0')}.py" for g in GAMES)
    sp = sub.add_parser(
        "train",
        help="train a PPO agent (examples/train_<game>.py)",
        description="Train a MaskablePPO agent: runs examples/train_<game>.py from a checkout (needs the train "
        f"extra): {scripts}. Everything after the game goes to the script: `cardenvs train pepper --help` "
        "shows its options (e.g. --minutes).",
    )
    sp.add_argument("game", nargs="?", help=games)
    sp.add_argument("args", nargs=argparse.REMAINDER, help="options of the training script")
    sp.set_defaults(func=cmd_train)
    return p


def _own_modules(sub: argparse._SubParsersAction) -> None:
    """The commands whose options and code live in modules of their own."""
    from .arena import add_parser as add_arena  # (cardenvs/app/arena.py)
    from .compare import add_parser as add_compare  # (cardenvs/app/compare.py)
    from .new_game import add_parser as add_new_game  # (cardenvs/app/new_game.py)

    add_arena(sub, Progress)
    add_compare(sub)
    add_new_game(sub)


def _doc(command: str) -> str:
    return {
        "play": "Play a game in the terminal: the table from your seat, the legal moves by text; "
        "type a move's number or text (q quits). Reads stdin line by line, so it can be scripted.",
        "serve": "Serve the play page (every game; Spit and Speed in real time) and its JSON API "
        "on a local port (standard library http.server). It answers only to requests naming its own "
        "address (Host and Origin): other web pages cannot use it. Opponents are chosen by name: random, "
        "rule, ppo and the names given with --agent. The page's tick starts at --tick.",
        "replay": "Record a game with agents, turn a replay into the HTML viewer, or draw one step.",
    }[command]


def _wrapped(argv: list[str]) -> argparse.Namespace | None:
    """eval/bench/train: everything after the command (after the game, for
    train) goes to the script untouched, options included; None when argparse
    should handle the line (a --help of the command itself)."""
    if not argv or argv[0] not in (*SCRIPTS, "train"):
        return None
    command, rest = argv[0], argv[1:]
    game = None
    if command == "train" and rest and not rest[0].startswith("-"):
        game, rest = rest[0], rest[1:]
    if rest[:1] in (["-h"], ["--help"]) and game is None:  # the command's own help (train GAME --help: the script's)
        return None
    func = cmd_train if command == "train" else cmd_script
    return argparse.Namespace(command=command, game=game, args=rest, func=func)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = _wrapped(argv) or parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
