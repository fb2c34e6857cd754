#!/usr/bin/env bash
# navkit-py's tests: builds and installs the wheel into its virtual environment
# (scripts/python.sh), builds the `navkit` program with 32-bit poly refs (the features of
# test.sh's second run, so usually already built), which the tests compare the Python answers
# with, type-checks a typed use of the stubs with mypy --strict, then runs pytest on
# navkit-py/tests. Arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/python.sh
. scripts/test-targets.sh
cargo build --release -q --features "$(narrow_features)" --bin navkit
venv=${NAVKIT_VENV:-$PWD/target/python}
export NAVKIT_CLI=$PWD/target/release/navkit
echo "navkit: mypy --strict on navkit-py/tests/typed_use.py (the stubs)" >&2
"$venv/bin/python" -m mypy --strict --no-incremental navkit-py/tests/typed_use.py
echo "navkit: navkit-py's tests (pytest)" >&2
"$venv/bin/python" -m pytest -q navkit-py/tests "$@"
