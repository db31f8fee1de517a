# Every target sets itself up on a fresh machine: it creates .venv and
# installs what it needs (idempotent; re-installs when pyproject.toml changes).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python

.PHONY: demo test test-under-load test-full test-deps lint format playthroughs docs results wheel-smoke contract bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

# torch first, pinned: this machine has the CPU wheel of 2.13.0, and an
# unpinned torch would pull a multi-GB CUDA build.
# The demo needs only the package and its train extra (torch, SB3, sb3-contrib).
$(VENV)/.installed-train: pyproject.toml | $(PY)
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[train]"
	touch $@

# The tests need every extra: the rllib extra (Ray RLlib: tests/test_rllib.py
# trains with it), torchrl (tests/test_torchrl.py), dev (pytest, ruff, the tools of docs/using-with.md) and docs
# (MkDocs: tests/test_docs_site.py builds the site).
# The browser tests drive Debian's chromium and chromium-driver (installed here
# when missing; without apt, or when it fails, those tests skip and say why).
$(VENV)/.installed-dev: pyproject.toml | $(PY)
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[dev,train,rllib,docs,torchrl]"
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then \
	  if command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null) \
	      || echo "could not install chromium and chromium-driver: the browser tests will skip"; \
	  else echo "no apt-get: chromium is not installed, the browser tests will skip"; fi; \
	fi
	touch $(VENV)/.installed-train $@

## demo: the main job: train a Pepper agent for a few minutes (rule-advised
## MaskablePPO on the batched engine), then print its win rates against random
## and rule-based play
DEMO_MINUTES ?= 3
demo: $(VENV)/.installed-train
	$(PY) examples/train_pepper.py --advice --minutes $(DEMO_MINUTES) --select-every 1000000 --select-games 200 --eval-games 200 --run-dir runs/demo --save ""

## test: the test suite (long training runs deselected; see test-full)
test: $(VENV)/.installed-dev
	$(PY) -m pytest -q

## test-under-load: the tests that start processes or read benchmark tables, with
## every core kept busy by a CPU hog (their verdicts must not depend on load)
LOAD_TESTS ?= tests/test_core_processes.py tests/test_core_threads.py tests/test_seat_rewards.py
test-under-load: $(VENV)/.installed-dev
	tools/under_load.sh $(PY) -m pytest -q -p no:cacheprovider $(LOAD_TESTS)

## test-full: every test, the slow ones included
test-full: $(VENV)/.installed-dev
	$(PY) -m pytest -q -m "slow or not slow"

## test-deps: the oldest and the newest numba and numpy that pip installs, on
## each Python 3.10-3.13 this machine has: a fresh venv each (no torch), the
## engine's, the games' and the compiler's tests (tools/test_deps.sh says which).
## DEPS_SETS: PYTHON:NUMBA:NUMPY pins, or PYTHON:newest (what pip picks).
DEPS_OLDEST := 3.10:0.60.0:2.0.0 3.11:0.60.0:2.0.0 3.12:0.60.0:2.0.0 3.13:0.61.0:2.1.0
DEPS_SETS ?= $(DEPS_OLDEST) 3.10:newest 3.11:newest 3.12:newest 3.13:newest
test-deps:
	tools/test_deps.sh $(DEPS_SETS)

## lint: ruff's lint and format checks (configured in pyproject.toml)
lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

## format: format the code and apply ruff's safe fixes
format: $(VENV)/.installed-dev
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

## playthroughs: regenerate the golden playthroughs (only when play is meant to change)
playthroughs: $(VENV)/.installed-dev
	$(PY) tests/playthroughs.py

## docs: fill the generated tables of docs/<game>.md from the code and
## docs/results.md from benchmarks/results/*.json (re-rendered: `make results`
## measures them), then build the site into
## site/ (mkdocs.yml; --strict: a broken link or a docstring warning fails)
docs: $(VENV)/.installed-dev
	$(PY) tools/gen_docs.py
	$(PY) tools/gen_results.py
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

## results: regenerate every table and chart of docs/results.md from the benchmarks,
## on this commit and machine: the quick runs (about half an hour on 2 cores; each
## table says it is quick and its budget); FULL=1: every run at its full size, the
## long ones too (training seeds, PIMC matches, the reference table: hours). The
## jobs: tools/results_plan.py (`$(PY) tools/make_results.py --list`).
results: $(VENV)/.installed-dev
	$(PY) -m pip install -q -r benchmarks/requirements.txt || echo "some peers could not be installed; they are skipped"
	$(PY) tools/make_results.py $(if $(filter 1 yes true,$(FULL)),--full)

## wheel-smoke: build the wheel, install it read-only in a fresh venv, run a smoke test from elsewhere
wheel-smoke: $(VENV)/.installed-dev
	PY=$(PY) tools/wheel_smoke.sh

## contract: the public contract check from ../shared (full run)
contract: $(VENV)/.installed-dev
	$(PY) ../shared/checks/contract.py

## bench: throughput of the vector engine and the AEC env next to peer libraries
bench: $(VENV)/.installed-dev
	$(PY) -m pip install -q -r benchmarks/requirements.txt || echo "some peers could not be installed; they are skipped"
	$(PY) benchmarks/throughput.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis *.egg-info
