#!/usr/bin/env bash
# The declared dependency range, tried: for each SET (PYTHON:NUMBA:NUMPY, e.g.
# 3.10:0.60.0:2.0.0, or PYTHON:newest for what pip picks unpinned), a fresh
# venv with that Python, `pip install -e .` with numba and numpy so pinned,
# plus pytest and hypothesis (no torch), then the tests in DEPS_TESTS (the
# engine, the games, and the compile machinery: builder, cache, first use), with a
# numba cache and a private cache folder of its own (cold: kernels run as
# Python while the builder compiles them, then compiled). Prints the versions
# installed and the verdict of each set, and a closing count; exits non-zero
# when a set failed. A Python not on this machine (on PATH as pythonX.Y, or
# in pyenv's versions) is said and skipped, not failed.
# Run by `make test-deps` (.ci/run runs it; DEPS_SETS chooses the sets).
set -uo pipefail
cd "$(dirname "$0")/.."
tests=${DEPS_TESTS:-cardenvs/games tests/test_numba_internals.py tests/test_core_jit.py tests/test_playthroughs.py tests/test_first_use.py tests/test_builder_process.py tests/test_compile_cache.py}
work=$(mktemp -d /tmp/cardenvs-deps.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0 skipped=0 summary=()

find_python() {  # the interpreter of Python version $1 (3.10), or nothing
	local found
	found=$(command -v "python$1" 2>/dev/null) && "$found" -c pass 2>/dev/null && { echo "$found"; return; }
	for found in "$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")/versions/$1".*/bin/"python$1"; do
		[ -x "$found" ] && "$found" -c pass 2>/dev/null && echo "$found"
	done | sort -V | tail -n 1
}

for set in "$@"; do
	IFS=: read -r version numba numpy <<<"$set"
	python=$(find_python "$version")
	if [ -z "$python" ]; then
		summary+=("SKIPPED python $version: not on this machine (no python$version on PATH or in pyenv)")
		skipped=$((skipped + 1))
		continue
	fi
	pins=(numba numpy)
	[ "$numba" = newest ] || pins=("numba==$numba" "numpy==$numpy")
	venv="$work/$version-$numba"
	log="$work/$version-$numba.log"
	echo "== $set: $python, ${pins[*]}"
	if "$python" -m venv "$venv" >"$log" 2>&1 &&
		"$venv/bin/pip" install -q --upgrade pip >>"$log" 2>&1 &&
		"$venv/bin/pip" install -q -e . "${pins[@]}" pytest hypothesis >>"$log" 2>&1; then
		got=$("$venv/bin/python" -c 'import sys, numba, numpy, llvmlite
print(f"python {sys.version.split()[0]} numba {numba.__version__} numpy {numpy.__version__} llvmlite {llvmlite.__version__}")')
		# shellcheck disable=SC2086 # (DEPS_TESTS: a list of paths)
		env -u PYTHONPATH -u NUMBA_DISABLE_JIT -u CARDENVS_COMPILE NUMBA_CACHE_DIR="$venv/numba-cache" \
			XDG_CACHE_HOME="$venv/xdg" "$venv/bin/python" -m pytest -q -p no:cacheprovider $tests >>"$log" 2>&1
		code=$?
		verdict="$(tail -n 1 "$log")"
	else
		got="python $version, ${pins[*]}" code=1 verdict="could not be installed"
	fi
	if [ "$code" -eq 0 ]; then
		passed=$((passed + 1))
		summary+=("PASSED $got ($verdict)")
	else
		failed=$((failed + 1))
		summary+=("FAILED $got ($verdict)")
		tail -n 30 "$log"
	fi
done
echo "== the dependency sets (tests: $tests)"
printf '%s\n' "${summary[@]}"
echo "test-deps: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
