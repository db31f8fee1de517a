#!/usr/bin/env bash
# Build the sdist and the wheel, install the wheel (with the train extra) into
# a fresh virtualenv outside the repository, make the installed package
# read-only, and run tools/wheel_smoke.py from another folder (so numba
# cannot write its cache beside the package and must use the user's cache).
# Run by `make wheel-smoke` and .ci/run (as root, for the read-only mount).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
py=${PY:-.venv/bin/python}
work=$(mktemp -d /tmp/cardenvs-wheel.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
"$py" -m build --sdist --wheel --outdir "$work/dist" . 2>&1 | tail -n 2
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --upgrade pip
"$work/venv/bin/pip" install -q torch==2.13.0
"$work/venv/bin/pip" install -q "$(ls "$work"/dist/*.whl)[train]"
site=$("$work/venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
[ ! -e "$site/agents" ] || { echo "a top-level 'agents' package was installed"; exit 1; }
mkdir -p "$work/elsewhere" "$work/home"
cp tools/wheel_smoke.py "$work/elsewhere/"
cd "$work/elsewhere"
# The installed package read-only (a read-only bind mount in a private mount
# namespace: file modes do not stop root), so numba must keep its cache in
# the user's cache folder ($HOME/.cache or NUMBA_CACHE_DIR), not beside the code.
run="HOME=$work/home CARDENVS_EXPECT_READONLY=1 $work/venv/bin/python wheel_smoke.py"
unshare -m sh -c "mount --bind '$site/cardenvs' '$site/cardenvs' && mount -o remount,ro,bind '$site/cardenvs' && $run"
cd "$root"
