#!/usr/bin/env bash
# Installs what is missing (Debian packages, the pinned Python venv) and builds TritonGym.
# Idempotent: a second run skips every step that is already done.
#   TG_BUILD_DIR   build folder (default: build)
#   TG_PRESET      CMake configure preset (default: dev)
#   TG_SKIP_VENV=1 do not create the Python venv (host-only builds)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PRESET=${TG_PRESET:-dev}

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

DEBIAN_PACKAGES=(
  cmake ninja-build g++ pkg-config python3 python3-venv python3-dev
  libboost1.81-dev libboost-program-options1.81-dev libboost-json1.81-dev libboost-filesystem1.81-dev
  libyaml-cpp-dev libspdlog-dev libfmt-dev libgtest-dev libgmock-dev
  libcurl4-openssl-dev libsqlite3-dev pybind11-dev
  chromium  # tests only: the HTML report's headless-browser test
)

missing=()
for pkg in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  say "installing Debian packages: ${missing[*]}"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  say "Debian packages: all present"
fi

if [[ ${TG_SKIP_VENV:-0} != 1 ]]; then
  VENV=$ROOT/.venv
  STAMP=$VENV/.tritongym-requirements
  if [[ -f $STAMP ]] && cmp -s "$STAMP" scripts/requirements.txt; then
    say "Python venv: up to date ($VENV)"
  else
    say "creating Python venv at $VENV with $(python3 --version)"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --upgrade pip
    "$VENV/bin/pip" install --quiet -r scripts/requirements.txt
    cp scripts/requirements.txt "$STAMP"
  fi
  export TRITONGYM_PYTHON=$VENV/bin/python
fi

say "configuring and building (preset: $PRESET)"
cmake --preset "$PRESET" >/dev/null
cmake --build --preset "$PRESET"
say "built: $(ls -d build/bin/tritongym)"
