#!/usr/bin/env bash
# Builds navkit's Python package (navkit-py: PyO3, an abi3 wheel for CPython 3.9 and newer) with
# maturin and installs it into a virtual environment made for it, with what its tests and
# example use (navkit-py/requirements-dev.txt, from PyPI). Installs missing system packages first
# (ensure-deps.sh; python3-venv if the machine's Python cannot make a virtual environment).
#
#   scripts/python.sh                    # venv in target/python ($NAVKIT_VENV), wheel in target/wheels
#   target/python/bin/python -c 'import navkit; print(navkit.NavMesh.build("meshes/demo_level.gset"))'
#
# The wheel itself (target/wheels/navkit-*.whl) installs anywhere with `pip install`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
python=${PYTHON:-python3}
if ! command -v "$python" >/dev/null 2>&1; then
  scripts/ensure-deps.sh python3 python3-venv
  python=python3
fi
if ! "$python" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  scripts/ensure-deps.sh python3-venv
fi
venv=${NAVKIT_VENV:-$PWD/target/python}
if [ ! -x "$venv/bin/python" ]; then
  echo "navkit: making a virtual environment in $venv ($("$python" --version))" >&2
  "$python" -m venv "$venv"
fi
pip=("$venv/bin/python" -m pip --disable-pip-version-check -q)
"${pip[@]}" install -r navkit-py/requirements-dev.txt
echo "navkit: building the Python wheel (maturin, release)" >&2
rm -f target/wheels/navkit-*.whl
"$venv/bin/maturin" build --release --quiet -m navkit-py/Cargo.toml -o target/wheels -i "$venv/bin/python"
"${pip[@]}" install --force-reinstall --no-deps target/wheels/navkit-*.whl
echo "navkit: installed $(cd target/wheels && ls navkit-*.whl) into $venv" >&2
