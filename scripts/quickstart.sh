#!/usr/bin/env bash
# The README's first command: install what is missing, build, and run the quickstart.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export TRITONGYM_PYTHON="$PWD/.venv/bin/python"
tg=build/bin/tritongym

echo; echo "== tritongym doctor   (what this machine has, and what is missing for what)"
$tg doctor
# A fresh run folder each time: `run` refuses a folder that already holds a store (resume continues one).
out=runs/quickstart-$(date -u +%Y%m%d-%H%M%S)
echo; echo "== tritongym run examples/quickstart.yaml output.dir=$out"
$tg run examples/quickstart.yaml "output.dir=$out"
