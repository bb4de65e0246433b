#!/usr/bin/env bash
# The README's first command: install what is missing, build, and run the quickstart.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export TRITONGYM_PYTHON="$PWD/.venv/bin/python"
tg=build/bin/tritongym

echo; echo "== tritongym tasks list"
$tg tasks list
echo; echo "== tritongym run examples/quickstart.yaml --check   (the run engine lands with a later issue)"
$tg run examples/quickstart.yaml --check >/dev/null && echo "examples/quickstart.yaml and every plugin it names check out"
echo; echo "== tritongym doctor"
$tg doctor
echo; echo "== tritongym plugins list"
$tg plugins list
