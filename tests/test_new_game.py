"""``cardenvs new-game`` proves the recipe of docs/adding-a-game.md (issue
#32 item 6): in a copy of the repository's tracked files, a new game made
from the template touches only its folder, its docs page and its registry
line (and the generated games tables and prose), and passes the
conformance kit and the generic suite (every test parametrised over the
registry) as it is.  Bugs planted in its files, and in the copy's template
(a mask that allows a card not in hand, a leak of the stock's cards, a
reward with the wrong sign or paid to the wrong seat), make the kit fail
naming the check, with ``playthroughs`` left out (issue #54).  Bad names
are refused in one line, nothing written."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
NAME = "card_duel"


def run(tree: pathlib.Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    """``python *args`` in ``tree``, importing cardenvs from it."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(
        [sys.executable, *args], cwd=tree, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def snapshot(tree: pathlib.Path) -> dict[str, bytes]:
    """Every file of the tree, by path (caches left out)."""
    return {
        str(p.relative_to(tree)): p.read_bytes()
        for p in tree.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def outside_games_tables(page: bytes) -> str:
    """A page without its generated blocks (the games tables, the prose that counts the games)."""
    return re.sub(r"<!-- generated:([\w-]+) -->.*?<!-- /generated:\1 -->", "", page.decode(), flags=re.S)


def checkout_files(root: pathlib.Path) -> list[str] | None:
    """The files of the checkout at ``root`` as its work tree has them: the
    tracked ones and the untracked ones git does not ignore (a game made by
    ``new-game`` and not yet added: the registry, tracked, already names
    it); None outside a git checkout."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        check=False,
    )
    if listed.returncode != 0:
        return None
    return sorted({name for name in listed.stdout.decode().split("\0") if name and (root / name).is_file()})


def test_the_copy_takes_untracked_files_and_leaves_ignored_ones(tmp_path):
    """A checkout with a new game not yet added (its folder untracked, the
    registry naming it) is copied whole; what git ignores is not."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / ".gitignore").write_text("*.pyc\n")
    (tmp_path / "registry.py").write_text("GAME_FOLDERS = []\n")
    subprocess.run([*git, "add", "."], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=tmp_path, check=True)
    (tmp_path / "registry.py").write_text('GAME_FOLDERS = ["new"]\n')
    (tmp_path / "games" / "new").mkdir(parents=True)
    (tmp_path / "games" / "new" / "rules.py").write_text("")
    (tmp_path / "games" / "new" / "rules.pyc").write_bytes(b"")
    assert checkout_files(tmp_path) == [".gitignore", "games/new/rules.py", "registry.py"]


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> pathlib.Path:
    """A copy of the repository's files (as they are in the work tree:
    :func:`checkout_files`), with the new game made in it by ``cardenvs
    new-game``."""
    listed = checkout_files(ROOT)
    if listed is None:
        pytest.skip("not a git checkout: the tracked files cannot be listed")
    tree = tmp_path_factory.mktemp("checkout")
    for name in listed:
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, tree / name)
    before = snapshot(tree)
    made = run(tree, "-m", "cardenvs.app.cli", "new-game", NAME)
    assert made.returncode == 0, made.stderr
    assert f"made {NAME}_v0 (Card Duel)" in made.stdout and f"python -m cardenvs.testing {NAME}_v0" in made.stdout
    after = snapshot(tree)
    changed = {path for path, data in after.items() if before.get(path) != data}
    folder = f"cardenvs/games/{NAME}/"
    generated = {"README.md", "docs/index.md", "docs/getting-started.md"}  # (their generated blocks: nothing else)
    assert changed - {f"docs/{NAME}.md", "cardenvs/registry.py", *generated} == {
        p for p in changed if p.startswith(folder)
    }
    for page in generated:
        assert outside_games_tables(after[page]) == outside_games_tables(before[page])
    for page in ("README.md", "docs/index.md"):
        assert f"[Card Duel]({'docs/' if page == 'README.md' else ''}{NAME}.md)" in after[page].decode()
    readme = after["README.md"].decode()  # (the prose counts it, and says what it has not got yet)
    assert "-->Five<!--" in readme and "Card Duel has no PPO baseline or world sampler yet" in readme
    assert "-->five<!--" in after["docs/getting-started.md"].decode()
    assert {f"{folder}spec.py", f"{folder}rules.py", f"{folder}playthroughs/{NAME}.txt", f"docs/{NAME}.md"} <= changed
    assert f'    "{NAME}",\n' in (tree / "cardenvs/registry.py").read_text()
    rules = (tree / folder / "rules.py").read_text()
    assert "class CardDuelRules" in rules and 'title = "Card Duel"' in rules and "high_card" not in rules
    return tree


@pytest.mark.parametrize(
    "bad", ["Card-Duel", "1duel", "duel_v0", "class", "core", "app", "vector", "registry", "index", "high_card", NAME]
)
def test_a_bad_name_is_refused_in_one_line_and_nothing_is_written(tree, bad):
    before = snapshot(tree)
    refused = run(tree, "-m", "cardenvs.app.cli", "new-game", bad, timeout=120)
    assert refused.returncode == 2 and refused.stdout == ""
    assert len(refused.stderr.splitlines()) == 1 and refused.stderr.startswith("cardenvs new-game: ")
    assert snapshot(tree) == before


@pytest.mark.parametrize("part", ["app", "vector", "render", "registry", "table"])
def test_the_top_level_parts_names_are_reserved(part):
    from cardenvs.app.new_game import NameError_, check_name

    with pytest.raises(NameError_, match=f"^'{part}' is reserved"):
        check_name(part, ROOT)


def test_the_kit_passes_on_the_new_game(tree):
    """In its short_config (spec.py), which its first line names."""
    from cardenvs.testing import CHECKS

    checked = run(tree, "-m", "cardenvs.testing", f"{NAME}_v0", "--quick")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    lines = checked.stdout.splitlines()
    assert lines[0] == f'{NAME}_v0 config {{"hands": 2}} (short_config)', lines[0]
    counts = f"SKIPPED public_counts {NAME}_v0"  # (the template's observation shows no counts)
    checks = lines[1:-1]
    assert len(checks) == len(CHECKS) and all(line.startswith(("PASSED  ", counts)) for line in checks), checked.stdout


def test_the_kit_refuses_a_config_the_game_refuses_in_one_line(tree):
    refused = run(tree, "-m", "cardenvs.testing", f"{NAME}_v0", "--config", '{"hands": 0}', timeout=120)
    assert refused.returncode == 2 and refused.stdout == "", refused.stdout
    assert refused.stderr.splitlines()[-1] == (
        f'python -m cardenvs.testing: error: {NAME}_v0 refuses the config {{"hands": 0}}: '
        "hands must be a positive integer, got 0"
    )


def test_a_recipe_the_game_refuses_is_refused_in_one_line(tree):
    """The new game's playthrough recorded again after its ``hands`` option
    is gone (here: its recipe names a bad value): one line, naming the file
    and the line to edit."""
    recording = tree / "cardenvs" / "games" / NAME / "playthroughs" / f"{NAME}.txt"
    source = recording.read_text()
    assert source.startswith(f"# {NAME}: {NAME}_v0 {{}} seed ")  # (the template's recipe: the game's defaults)
    recording.write_text(source.replace(f"{NAME}_v0 {{}}", f'{NAME}_v0 {{"hands": 0}}', 1))
    try:
        recorded = run(tree, "tests/playthroughs.py", NAME, timeout=120)
    finally:
        recording.write_text(source)
    assert recorded.returncode == 1 and recorded.stdout == "", recorded.stdout
    (line,) = recorded.stderr.splitlines()
    assert line.startswith(f"{recording.resolve()}: {NAME}_v0 refuses the config of its first line"), line
    assert "edit that line" in line, line


def test_the_generic_suite_passes_on_the_new_game(tree):
    """Every test of the repository selected by the new game's name (the
    registry-parametrised ones) and the game's own tests, in the copy."""
    this = f"--ignore={pathlib.Path(__file__).relative_to(ROOT)}"  # (its tests name the game too)
    suite = run(tree, "-m", "pytest", "-q", "-p", "no:cacheprovider", this, "-k", NAME, timeout=1500)
    assert suite.returncode == 0, suite.stdout[-3000:] + suite.stderr[-2000:]
    summary = suite.stdout.strip().splitlines()[-1]
    assert "failed" not in summary and "error" not in summary, summary
    passed = int(re.search(r"(\d+) passed", summary)[1])
    assert passed >= 80, summary  # (about 115: the kit's checks, the engines, views, state, docs, its own tests)


def test_a_mask_allowing_an_illegal_card_fails_the_kit_naming_the_check(tree):
    legal = tree / "cardenvs" / "games" / NAME / "legal.py"
    source = legal.read_text()
    rule = "mask[PLAY0 + card] = hand[card] > 0 and (not can_follow or SUIT[card] == SUIT[led])"
    assert rule in source
    legal.write_text(source.replace(rule, "mask[PLAY0 + card] = True  # planted: any card of the deck"))
    try:
        checked = run(tree, "-m", "cardenvs.testing", f"{NAME}_v0", "--quick", "--check", "legal_masks")
    finally:
        legal.write_text(source)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    first = checked.stdout.splitlines()[1]  # (after the line naming the config)
    assert first.startswith(f"FAILED  legal_masks {NAME}_v0 seed=0 step="), first
    assert "cards not conserved after" in first and "allowed action 'play" in first, first


#: The observation's line writing the card led, and the stock's card at ``depth`` (0: its top) written
#: there instead while no card is led: face down, nobody has seen it.
LED_LINE = "            obs[LED + state.table[row, 0]] = 1\n"
STOCK_LEAK = (
    "        elif state.stock_top[row] + {depth} < state.stock.shape[1]:  # planted: a card of the stock\n"
    "            obs[LED + state.stock[row, state.stock_top[row] + {depth}]] = 1\n"
)
#: Bugs planted in a game's files, each a realistic one-line mistake:
#: (file, text, planted text, --config or None for the short_config, the check that fails, words of its line).
PLANTS = {
    "reward_wrong_sign_at_the_end": (
        "apply.py",
        "lead = state.scores[row, 0] - state.scores[row, 1]",
        "lead = state.scores[row, 1] - state.scores[row, 0]",  # (win/loss paid the wrong way round)
        None,
        "rewards_outcome",
        "were not paid the most",
    ),
    "reward_to_the_wrong_seat": (
        "apply.py",
        "rewards[row, winner] += 1.0",
        "rewards[row, follower] += 1.0",  # (score_delta paid to the seat that played second)
        None,
        "reward_seats",
        "but its score changed by",
    ),
    "stock_next_card_leaked": ("observation.py", LED_LINE, LED_LINE + STOCK_LEAK.format(depth=0), None,
                               "information_sets", "shows cards it has not seen"),
    "stock_second_card_leaked_short_config": ("observation.py", LED_LINE, LED_LINE + STOCK_LEAK.format(depth=1),
                                              None, "information_sets", "shows cards it has not seen"),
    "stock_second_card_leaked_default_config": ("observation.py", LED_LINE, LED_LINE + STOCK_LEAK.format(depth=1),
                                                "{}", "information_sets", "shows cards it has not seen"),
}  # fmt: skip


@pytest.mark.parametrize("bug", list(PLANTS))
@pytest.mark.parametrize("folder", ["high_card", NAME])
def test_a_planted_bug_fails_the_kit_naming_the_check(tree, folder, bug):
    """Planted in the copy's template (High Card) and in the new game, the
    kit run as a user runs it, every check but ``playthroughs`` (a golden
    playthrough recorded with the bug in pins the bug): it fails, naming
    the check, the game, the seed and the step."""
    from cardenvs.testing import CHECKS

    name, title = ("high_card_v0", "High Card") if folder == "high_card" else (f"{NAME}_v0", "Card Duel")
    path, text, planted, config, check, words = PLANTS[bug]
    source = (tree / "cardenvs" / "games" / folder / path).read_text()
    assert source.count(text) == 1, f"{folder}/{path} has not got {text!r}: the plant is out of date"
    checks = [arg for c in CHECKS if c != "playthroughs" for arg in ("--check", c)]
    (tree / "cardenvs" / "games" / folder / path).write_text(source.replace(text, planted))
    try:
        configured = ["--config", config] if config is not None else []
        checked = run(tree, "-m", "cardenvs.testing", name, "--quick", *configured, *checks)
    finally:
        (tree / "cardenvs" / "games" / folder / path).write_text(source)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    lines = checked.stdout.splitlines()
    ran = config if config is not None else json.dumps({"hands": 2})  # (the short_config, or --config's)
    assert lines[0].startswith(f"{name} config {ran} ("), lines[0]
    line = next((line for line in lines if line.startswith(f"FAILED  {check} {name} seed=0 step=")), None)
    assert line is not None and words in line, f"{title}: {check} did not fail\n" + checked.stdout
