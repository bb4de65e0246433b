#!/usr/bin/env bash
# Installs this build to a temporary prefix, builds examples/plugin-template against the installed
# SDK with find_package(TritonGym), loads it with the installed host, and runs the conformance kit on it.
#   plugin_template_test.sh SOURCE_DIR BUILD_DIR CONFORMANCE_TEST_EXECUTABLE
set -euo pipefail
source_dir=$1
build_dir=$2
conformance_tests=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
cmake -S "$source_dir/examples/plugin-template" -B "$work/build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$work/build" >/dev/null

doctor=$("$work/prefix/bin/tritongym" --plugin-path "$work/build/plugins" plugins doctor --json)
status_of() {  # status_of ID -> loaded | refused | missing
  echo "$doctor" | python3 -c 'import json, sys
plugins = {p["id"]: p["status"] for p in json.load(sys.stdin)["plugins"]}
print(plugins.get(sys.argv[1], "missing"))' "$1"
}
[[ $(status_of acme.workflow.greedy) == loaded ]] || { echo "FAIL: the template plugin did not load"; echo "$doctor"; exit 1; }
# The installed host also finds its own built-in plugins and its tasks.
[[ $(status_of tritongym.workflow.one-shot) == loaded ]] || { echo "FAIL: installed built-ins missing"; exit 1; }
"$work/prefix/bin/tritongym" tasks list | grep -q "standard/vector-add" || { echo "FAIL: installed tasks missing"; exit 1; }

TRITONGYM_CONFORMANCE_PATH="$work/build/plugins" "$conformance_tests" --gtest_brief=1
echo "PASS: the template builds against the installed SDK, loads, and passes the conformance kit"
