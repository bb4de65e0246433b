#!/usr/bin/env bash
# The README's second command: install what is missing, build, and run the whole test suite.
# Tests labelled `gpu` skip, visibly, on a machine without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
TG_TEST_PACKAGES=1 ./scripts/setup.sh
export TRITONGYM_PYTHON="$PWD/.venv/bin/python"
ctest --preset dev --output-on-failure "$@"
