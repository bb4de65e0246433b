#!/usr/bin/env bash
# Installs this build to a temporary prefix, builds examples/plugin-template (a workflow) and
# examples/executor-template (an executor on the SDK's support library) against the installed SDK with
# find_package(TritonGym), loads them with the installed host, and runs the conformance kit on them.
#   plugin_template_test.sh SOURCE_DIR BUILD_DIR CONFORMANCE_TEST_EXECUTABLE
set -euo pipefail
source_dir=$1
build_dir=$2
conformance_tests=$3
work=$(mktemp -d)
# The installed host knows no checkout's venv: the executor template's Python is the one the build's tests use.
if [[ -z ${TRITONGYM_PYTHON:-} && -x $source_dir/.venv/bin/python ]]; then export TRITONGYM_PYTHON=$source_dir/.venv/bin/python; fi
trap 'rm -rf "$work"' EXIT

cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
cmake -S "$source_dir/examples/plugin-template" -B "$work/build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$work/build" >/dev/null
cmake -S "$source_dir/examples/executor-template" -B "$work/executor" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$work/executor" >/dev/null

doctor=$("$work/prefix/bin/tritongym" --plugin-path "$work/build/plugins" --plugin-path "$work/executor/plugins" plugins doctor --json)
status_of() {  # status_of ID -> loaded | refused | missing
  echo "$doctor" | python3 -c 'import json, sys
plugins = {p["id"]: p["status"] for p in json.load(sys.stdin)["plugins"]}
print(plugins.get(sys.argv[1], "missing"))' "$1"
}
[[ $(status_of acme.workflow.greedy) == loaded ]] || { echo "FAIL: the template plugin did not load"; echo "$doctor"; exit 1; }
[[ $(status_of acme.executor.cold) == loaded ]] || { echo "FAIL: the executor template did not load"; echo "$doctor"; exit 1; }
# The installed host also finds its own built-in plugins and its tasks.
[[ $(status_of tritongym.workflow.one-shot) == loaded ]] || { echo "FAIL: installed built-ins missing"; exit 1; }
# One installed library of several plugins (its plugin.yaml lists them): the five evaluating tools load from it.
libraries=$(echo "$doctor" | python3 -c 'import json, sys
plugins = {p["id"]: p for p in json.load(sys.stdin)["plugins"]}
tools = [plugins.get("tritongym.tool." + name) for name in ("compile", "test", "benchmark", "profile", "submit")]
print(" ".join(sorted({t["library"] if t and t["status"] == "loaded" else "missing" for t in tools})))')
[[ $libraries != *missing* && $libraries != *" "* ]] || { echo "FAIL: the evaluating tools are not one loaded library: $libraries"; exit 1; }
"$work/prefix/bin/tritongym" tasks list | grep -q "standard/vector-add" || { echo "FAIL: installed tasks missing"; exit 1; }

# The executor judges a real task's oracle, and a wrong answer, through the installed host.
for code in oracle wrong; do
  file="$source_dir/tasks/standard/vector-add/oracle.py"
  [[ $code == wrong ]] && { printf 'def vector_add(x, y):\n    return x - y\n' > "$work/wrong.py"; file="$work/wrong.py"; }
  verdict=$({ "$work/prefix/bin/tritongym" --plugin-path "$work/executor/plugins" --log-level warn eval \
    --task standard/vector-add --code "$file" --executor acme.executor.cold --json || true; } | python3 -c 'import json, sys; print(json.load(sys.stdin)["verdict"])')
  want=passed; [[ $code == wrong ]] && want=wrong_answer
  [[ $verdict == "$want" ]] || { echo "FAIL: acme.executor.cold judged the $code $verdict, not $want"; exit 1; }
done
TRITONGYM_CONFORMANCE_PATH="$work/build/plugins:$work/executor/plugins" "$conformance_tests" --gtest_brief=1
echo "PASS: the templates build against the installed SDK, load, judge, and pass the conformance kit"
