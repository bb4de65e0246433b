#!/usr/bin/env bash
# Installs what is missing (Debian packages, the pinned Python venv) and builds TritonGym.
# Idempotent: a second run skips every step that is already done.
#   TG_BUILD_DIR   build folder (default: build)
#   TG_PRESET      CMake configure preset (default: dev)
#   TG_SKIP_VENV=1 do not create the Python venv (host-only builds)
#   TG_VENV_NEED_MIB  free space the venv is checked for first (default: 6144)
#   TG_TEST_PACKAGES=1 also install what only the tests need (Slurm and munge for tests/slurm)
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
# Tests only (scripts/test.sh sets TG_TEST_PACKAGES=1): a one-node Slurm that tests/slurm starts in a temporary
# folder for `tritongym slurm`. Debian enables munge's service; Slurm's daemons start only with /etc/slurm/slurm.conf.
if [[ ${TG_TEST_PACKAGES:-0} == 1 ]]; then
  DEBIAN_PACKAGES+=(slurm-wlm munge)
fi

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
    # The pinned torch brings its CUDA libraries: the venv takes 4.7 GiB, and pip holds the wheel it
    # installs (torch's is about 1 GiB) beside it. Say so before pip fails half-way with "No space
    # left on device". pip's cache is off: a clean clone never reuses it, and it would keep a second
    # copy of every wheel.
    rm -rf "$VENV"  # a venv left half-installed, or for older pins, is made again
    need_mib=$((${TG_VENV_NEED_MIB:-6144}))
    for dir in "$ROOT" "${TMPDIR:-/tmp}"; do
      free_mib=$(df -Pm "$dir" | awk 'NR == 2 { print $4 }')
      if ((free_mib < need_mib)); then
        printf '\033[1m[setup]\033[0m error: the Python venv (pinned torch and triton, scripts/requirements.txt) needs about %d MiB free; %s has %d MiB free.\n' \
          "$need_mib" "$dir" "$free_mib" >&2
        printf '        Free some space there, or point TMPDIR at a larger disk; TG_SKIP_VENV=1 builds the host alone.\n' >&2
        exit 1
      fi
    done
    say "creating Python venv at $VENV with $(python3 --version)"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --no-cache-dir --upgrade pip
    "$VENV/bin/pip" install --quiet --no-cache-dir -r scripts/requirements.txt
    cp scripts/requirements.txt "$STAMP"
  fi
  export TRITONGYM_PYTHON=$VENV/bin/python
fi

say "configuring and building (preset: $PRESET)"
cmake --preset "$PRESET" >/dev/null
cmake --build --preset "$PRESET"
say "built: $(ls -d build/bin/tritongym)"
