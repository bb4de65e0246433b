#!/usr/bin/env bash
# The GPU machine's check, in one script (shared/DEVICE.md). The host is built here, on the CPU
# machine, and travels as a bundle of stripped binaries with the shared libraries they need, because
# the GPU machine lacks some build dependencies and has no package registry.
#
#   scripts/device-check.sh bundle   (here, after scripts/setup.sh)  -> build/device-bundle/
#   scripts/device-check.sh run      (on the GPU machine; `run` tool with carry: [build/device-bundle])
#
# `run` prints the machine, `tritongym doctor`, every test binary's result (the gpu-labelled tests
# included) and a summary table last; full logs go to $OUT (or ./device-logs), packed at the end into
# device-logs.tgz beside summary.txt, doctor.txt and the benches' *.md (DEVICE_PACK=0: left as they are). Switches:
#   DEVICE_GTEST_FILTER=... the gpu tests to run (gtest filter). On 2026-12-01 the gpu_tests binary took 470 s in
#                          two calls (EveryShippedOraclePasses 274 s, the rest 195 s): near a 10-minute call's limit
#                          with the start, so it runs in two: '*EveryShippedOraclePasses*' and its negation.
#   DEVICE_TASKS=0         skip `tasks check` on the GPU       DEVICE_FIXTURES=1  fixture evals
#   DEVICE_TASKS_SECONDS=420  when `tasks check` is stopped (what it checked by then is kept)
#   DEVICE_SUITE_SECONDS=480  when a test binary is stopped (its log keeps the tests that ended)
#   DEVICE_TASKS_ARGS="--split standard"  part of the oracle sweep (task ids or a split): the whole of it, like
#                          EveryShippedOraclePasses, takes more than one call
#   DEVICE_AUDIT=1         `tasks audit` on the GPU (every task, or DEVICE_AUDIT_ARGS="ids or --split S"), its table
#                          written after each task to $OUT/audit (in device-logs.tgz, audit.md beside it); a carried
#                          device-state/audit/audit.json is resumed (--resume), so a sweep longer than one call is
#                          finished across calls (fold $OUT/audit back into device-state/audit here between them);
#                          stopped after DEVICE_AUDIT_SECONDS (420); torch.compile limited to DEVICE_AUDIT_COMPILE_S (40) a shape;
#                          DEVICE_AUDIT_JOBS (2) tasks at once; the table carried is device-state/audit-<GPU model>/ (audit-H100,
#                          audit-H200) where there is one, else device-state/audit/
#   DEVICE_SUITES="a b"    test binaries (default: all; "": none) DEVICE_BENCH=1     oracle speedups
#   DEVICE_FIDELITY=1      bench/timing_fidelity.py (DEVICE_FIDELITY_ARGS="--variants ...")   DEVICE_THROUGHPUT=1 bench/eval_throughput.py
#   DEVICE_MULTI_GPU=1     bench/multi_gpu.py (one executor on the first two GPUs against the first alone, timing on
#                          the second while the first is busy, serve if it has landed; with fewer than two GPUs it
#                          says so and runs nothing; DEVICE_MULTI_GPU_ARGS="--pairs 2 ...", DEVICE_MULTI_GPU_SECONDS
#                          (500), TRITONGYM_COMMIT=<commit> for its report: the machine's copy has no repository)
#   DEVICE_CONTEXT=1       bench/context_interference.py (another process's CUDA contexts against a timed kernel)
#   DEVICE_CALL_ORDER=1    bench/call_order.py (interleaved functions: one input set a round against the next per
#                          call; DEVICE_CALL_ORDER_ARGS="--task standard/softmax --shapes all ...")
#   DEVICE_THROUGHPUT_WORKERS=N  the warm pool's candidate workers (default: the executor's automatic count)
#   DEVICE_THROUGHPUT_VARIANT=JSON  a further steady-state pass with this executor config on top; several
#                          are separated by '|': '{"workers": 6}|{"workers": 8}'
#   DEVICE_THROUGHPUT_PLANE=gpu|files  the warm pool's data plane (default: the executor's, gpu)
#   DEVICE_THROUGHPUT_ORDER_PAIRS=N  N further pairs of steady-state passes: the batch in its lines' order, then
#                          autotuners first (what that order gains)
#   DEVICE_THROUGHPUT_READY_POOL=IDLE_S  a further pass through a pool started, and idle IDLE_S, before the
#                          candidates came (`eval --batch -`)
#   DEVICE_THROUGHPUT_COLD_ALSO=candidate|pass  the cold path a second time, with that Triton cache
#   DEVICE_THROUGHPUT=warm|cold  one path of it, saved as $OUT/throughput-PATH.json (one lane each; join
#                          them here with `bench/eval_throughput.py --combine WARM.json COLD.json`)
#   TG_BUNDLE=DIR          the bundle (default build/device-bundle)
#   DEVICE_SCRIPT="CMD"    a command of one's own, run first (an experiment), its output in $out/script.log
#                          or a script file (in a lane's spec a value cannot hold spaces: name a file there)
#   DEVICE_ORACLE_RUN=I/N  shard I of N of examples/oracle-all-tasks.yaml, stopped (Ctrl-C, a consistent
#                          store) after DEVICE_ORACLE_RUN_SECONDS, or DEVICE_ORACLE_GRACE (150) + 30 s
#                          before DEVICE_LANE_DEADLINE: running episodes get the grace to finish;
#                          its folder is $OUT/oracle-run/shard-I-of-N (in device-logs.tgz; 0/1, the whole
#                          run, writes to $OUT/oracle-run itself: carry it back as .../shard-0-of-1).
#                          A carried device-state/oracle-run/shard-I-of-N is resumed instead (`tritongym
#                          resume`); join the finished shards here with `tritongym merge`.
#   DEVICE_ORACLE_RUN_ARGS="key=value ..."  overrides for a fresh oracle run (none holds a space), e.g.
#                          'suites.0.tasks=[standard/softmax,standard/rmsnorm]' for some tasks only
#
#   scripts/device-check.sh lanes "VAR=x VAR=y" "VAR=z"   (on a machine of several GPUs)
#       one `run` per argument, at once, the i-th on GPU i alone (CUDA_VISIBLE_DEVICES=i); the native module
#       is built once first. Each lane's output is $OUT/lane-i.txt and its logs $OUT/lane-i.tgz, packed
#       also when DEVICE_LANE_DEADLINE (seconds since the epoch) stops the lane.
set -euo pipefail
cd "$(dirname "$0")/.."
BUNDLE=${TG_BUNDLE:-build/device-bundle}

bundle() {
  rm -rf "$BUNDLE"
  mkdir -p "$BUNDLE/bin" "$BUNDLE/lib" "$BUNDLE/plugins" "$BUNDLE/tests"
  for exe in build/bin/*; do install -s "$exe" "$BUNDLE/bin/"; done
  for plugin in build/plugins/*/plugin.yaml; do
    dir=$(dirname "$plugin"); mkdir -p "$BUNDLE/plugins/$(basename "$dir")"
    cp "$plugin" "$BUNDLE/plugins/$(basename "$dir")/"
    for so in "$dir"/*.so; do install -s -m 644 "$so" "$BUNDLE/plugins/$(basename "$dir")/"; done
    # The plugin's data files (a DSL's rules and reference, ...).
    find "$dir" -maxdepth 1 -type f ! -name '*.so' ! -name plugin.yaml -exec cp {} "$BUNDLE/plugins/$(basename "$dir")/" \;
  done
  cp -r build/tests/fixture-plugins "$BUNDLE/tests/"
  # The worker package (the native module is rebuilt there, for that machine's Python).
  mkdir -p "$BUNDLE/plugins/python" && cp -r build/plugins/python/tritongym_worker "$BUNDLE/plugins/python/"
  find "$BUNDLE/tests" -name '*.so' -exec strip {} \;
  # The non-system shared libraries the binaries and plugins need (Boost, yaml-cpp, spdlog, fmt, SQLite).
  find "$BUNDLE" -type f \( -perm -u+x -o -name '*.so' \) -exec ldd {} \; 2>/dev/null |
    awk '/=> \// {print $3}' | sort -u |
    grep -E 'libboost|libyaml-cpp|libspdlog|libfmt|libsqlite3' | while read -r lib; do cp -L "$lib" "$BUNDLE/lib/"; done
  du -sh "$BUNDLE"
}

# interrupt_after SECONDS GRACE CMD...: Ctrl-C after SECONDS (a run starts no new episode and finishes the
# running ones), Ctrl-C again GRACE seconds later (it stops at once), SIGKILL 15 s after that.
interrupt_after() {
  local seconds=$1 grace=$2; shift 2
  "$@" &
  local pid=$! step
  for step in "$seconds:INT" "$grace:INT" "15:KILL"; do
    local wait_s=${step%%:*} elapsed=0
    while (( elapsed < wait_s )) && kill -0 "$pid" 2>/dev/null; do sleep 1; elapsed=$((elapsed + 1)); done
    kill -0 "$pid" 2>/dev/null || break
    kill -s "${step#*:}" "$pid" 2>/dev/null || true
  done
  wait "$pid" || true
}

build_native() {
  local out=$1
  export TRITONGYM_PYTHON=${TRITONGYM_PYTHON:-$(command -v python3)}
  echo "== building the native module for $TRITONGYM_PYTHON"
  if cmake -S plugins/executors/native -B /tmp/tritongym-native -DPython_EXECUTABLE="$TRITONGYM_PYTHON" \
       -DCMAKE_BUILD_TYPE=Release > "$out/native-build.log" 2>&1 && cmake --build /tmp/tritongym-native >> "$out/native-build.log" 2>&1; then
    cp /tmp/tritongym-native/tritongym_native*.so "$BUNDLE/plugins/python/"
    PYTHONPATH="$BUNDLE/plugins/python" "$TRITONGYM_PYTHON" -c 'import tritongym_native, json; print(json.dumps(tritongym_native.describe()))' | tee "$out/native.json"
  else
    echo "native module did not build (see native-build.log)"; tail -5 "$out/native-build.log"
  fi
}

# The Python workflow plugin embeds the interpreter, and the one built here links this machine's libpython
# (3.11), which the GPU machine lacks (its python3 is 3.12): it is built again there against that python3, as
# the native module is, with Boost.JSON compiled in from the headers (the machine has Boost's headers, not its
# libraries). If it cannot be built, the bundle's stays and its test skips with the loader's reason.
build_python_workflow() {
  local out=$1 python=${TRITONGYM_PYTHON:-$(command -v python3)}
  local dir="$BUNDLE/plugins/tritongym_workflow_python" log="$out/python-workflow-build.log"
  [[ -d $dir ]] || return 0
  echo "== building the Python workflow plugin for $python"
  local includes libs
  # shellcheck disable=SC2086  # the include and library flags are words
  if includes=$("$python" -m pybind11 --includes 2> "$log" ||
                "$python" -c 'import sysconfig; print("-I" + sysconfig.get_paths()["include"])') &&
     libs=$("$python" -c 'import sysconfig as s; d = s.get_config_var("LIBDIR"); print(f"-L{d} -Wl,-rpath,{d} -l:" + s.get_config_var("INSTSONAME"))') &&
     g++ -std=c++20 -O2 -shared -fPIC -fvisibility=hidden -fvisibility-inlines-hidden -Isdk/include $includes \
       -include boost/json/src.hpp plugins/workflows/python/python_workflow.cpp -o /tmp/tritongym-python-workflow.so \
       $libs >> "$log" 2>&1; then
    install -m 644 /tmp/tritongym-python-workflow.so "$dir/libtritongym_workflow_python.so"
    echo "built: $(ldd "$dir/libtritongym_workflow_python.so" | grep -o 'libpython[^ ]*' | head -1)"
  else
    echo "the Python workflow plugin did not build (see python-workflow-build.log):"; tail -5 "$log"
  fi
}

lanes() {
  local final=${OUT:-$PWD/device-logs} lane=0
  mkdir -p "$final"
  build_native "$final"
  build_python_workflow "$final"
  ensure_bytecode
  for spec in "$@"; do
    (
      rm -rf "/tmp/lane-$lane" && mkdir -p "/tmp/lane-$lane"  # nothing left from an earlier call
      status=0 limit=() deadline=${DEVICE_LANE_DEADLINE:-}
      # DEVICE_LANE_DEADLINE (seconds since the epoch, here or in the lane's spec): the lane is stopped
      # then, and its logs still packed.
      for word in $spec; do [[ $word == DEVICE_LANE_DEADLINE=* ]] && deadline=${word#*=}; done
      [[ -n $deadline ]] && limit=(timeout -k 15 $((deadline - $(date +%s))))
      # shellcheck disable=SC2086  # a lane's spec is VAR=value words
      "${limit[@]}" env TG_BUNDLE="$BUNDLE" $spec CUDA_VISIBLE_DEVICES=$lane OUT="/tmp/lane-$lane" DEVICE_NATIVE_BUILT=1 DEVICE_PACK=0 bash "$0" run \
        > "$final/lane-$lane.txt" 2>&1 || status=$?
      echo "lane $lane ($spec) exited $status" >> "$final/lane-$lane.txt"
      tar czf "$final/lane-$lane.tgz" -C /tmp "lane-$lane"
    ) &
    lane=$((lane + 1))
  done
  wait
}

# The GPU machine's torch comes without bytecode, and its environment says PYTHONDONTWRITEBYTECODE=1: every
# Python process there compiled torch's 2141 modules from source (importing it took 3.5 s; 1.7 to 2.0 s with the
# bytecode, measured 2026-11-30). A pip install leaves the bytecode in place; compiled here once per machine (9 s), so
# that what is measured (worker start, the cold path of bench/eval_throughput.py) is what a user's machine does.
ensure_bytecode() {
  local site
  local python=${TRITONGYM_PYTHON:-$(command -v python3)}
  site=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  if [[ -d $site/torch/__pycache__ ]]; then return; fi
  echo "== torch has no bytecode in $site: compiling it (python -m compileall)"
  "$python" -m compileall -q -j "$(nproc)" "$site" > /dev/null 2>&1 || echo "(compileall exited $?)"
}

run() {
  local out=${OUT:-$PWD/device-logs}
  mkdir -p "$out"
  export LD_LIBRARY_PATH="$PWD/$BUNDLE/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export TRITONGYM_TEST_BUILD_DIR="$PWD/$BUNDLE" TRITONGYM_TEST_SOURCE_DIR="$PWD"
  export TRITONGYM_PYTHON=${TRITONGYM_PYTHON:-$(command -v python3)}
  local tg="$BUNDLE/bin/tritongym"
  [[ ${DEVICE_NATIVE_BUILT:-0} == 1 ]] || { build_native "$out"; build_python_workflow "$out"; }
  ensure_bytecode
  # The baseline and ceiling caches outlive the machine: seeded from a carried device-state/cache, kept in
  # $out/cache (fold a call's caches back into device-state/cache here to carry them to the next call).
  case $out in /*) export XDG_CACHE_HOME="$out/cache" ;; *) export XDG_CACHE_HOME="$PWD/$out/cache" ;; esac
  mkdir -p "$XDG_CACHE_HOME" && if [[ -d device-state/cache ]]; then cp -r device-state/cache/. "$XDG_CACHE_HOME/"; fi
  date -u +"%Y-%m-%dT%H:%M:%SZ" | tee "$out/date.txt"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/nvidia-smi.txt" || true
  echo "== host links libcuda/libpython? (expect nothing)"
  ldd "$tg" | grep -E 'libcuda|libpython' || echo "neither"
  echo "== tritongym doctor"
  "$tg" doctor | tee "$out/doctor.txt"
  "$tg" doctor --json > "$out/doctor.json"
  # A plugin this machine cannot load (the Python workflow needs the build machine's libpython) is listed, not fatal.
  "$tg" plugins doctor | tee "$out/plugins-doctor.txt" || true
  local summary=() failed=0
  if [[ -n ${DEVICE_SCRIPT:-} ]]; then
    echo "== DEVICE_SCRIPT: $DEVICE_SCRIPT"
    local how=(bash -c "$DEVICE_SCRIPT")
    [[ -f $DEVICE_SCRIPT ]] && how=(bash "$DEVICE_SCRIPT")  # a script file needs no execute bit
    timeout "${DEVICE_SCRIPT_SECONDS:-300}" "${how[@]}" > "$out/script.log" 2>&1 || echo "(exited $?)"
    tail -20 "$out/script.log"
  fi
  if [[ ${DEVICE_FIXTURES:-0} == 1 ]]; then
  echo "== fixture candidates through tritongym eval (executor auto)"
  for fixture in tests/fixtures/candidates/vector-add/*.py; do
    name=$(basename "$fixture" .py)
    "$tg" --log-level warn eval --task standard/vector-add --code "$fixture" --timeout 20 --json > /tmp/eval.json 2>&1 || true
    { echo "### $name"; cat /tmp/eval.json; } >> "$out/fixture-evals.log"
    printf '%-20s %s\n' "$name" "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["verdict"], "|", r["message"].splitlines()[-1][:110])' /tmp/eval.json 2>/dev/null || tail -1 /tmp/eval.json)"
  done | tee "$out/fixtures.txt"
  fi
  if [[ ${DEVICE_TASKS:-1} == 1 ]]; then
  echo "== tritongym tasks check on the GPU (every oracle, every visible and held-out shape)"
  # shellcheck disable=SC2086  # DEVICE_TASKS_ARGS: words for `tasks check` (ids, --split SPLIT)
  # Stopped after DEVICE_TASKS_SECONDS (Ctrl-C, then a kill), so that the call still packs its logs; the
  # tasks checked by then are on record (one line each, as each ends).
  timeout -s INT -k 15 "${DEVICE_TASKS_SECONDS:-420}" "$tg" --log-level warn tasks check ${DEVICE_TASKS_ARGS:-} \
    --executor tritongym.executor.triton-cuda > "$out/tasks-check.txt" 2>&1 \
    && tasks_status=ok || { tasks_status=FAILED; failed=1; }
  # What is not ok (nothing, when a sweep stopped at its limit had passed every task so far: no error then).
  grep -vE "^\S+\s+ok\s|^tasks check: [0-9]+ of [0-9]+ \S+ ok in " "$out/tasks-check.txt" | tail -15 || true
  summary+=("$(printf '%-26s %-7s %s' "tasks check (cuda)" "$tasks_status" "$(tail -1 "$out/tasks-check.txt")")")
  fi
  if [[ ${DEVICE_AUDIT:-0} == 1 ]]; then
    echo "== tritongym tasks audit on the GPU (resumed from device-state/audit where carried)"
    mkdir -p "$out/audit"
    # A table joins only rows of one GPU model: device-state/audit-<model>/ (e.g. audit-H100, from nvidia-smi's name)
    # where it is carried, else device-state/audit/.
    local model table=device-state/audit/audit.json
    model=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | grep -oE '[A-Z][0-9]{2,3}' | head -1)
    if [[ -n $model && -f device-state/audit-$model/audit.json ]]; then table=device-state/audit-$model/audit.json; fi
    if [[ -f $table ]]; then cp "$table" "$out/audit/"; echo "resuming $table"; fi
    # shellcheck disable=SC2086  # DEVICE_AUDIT_ARGS: words for `tasks audit` (ids, --split SPLIT)
    timeout -s INT -k 15 "${DEVICE_AUDIT_SECONDS:-420}" "$tg" --log-level warn tasks audit ${DEVICE_AUDIT_ARGS:-} \
      --executor tritongym.executor.triton-cuda --executor-config "{\"compile_seconds\": ${DEVICE_AUDIT_COMPILE_S:-40}}" \
      --jobs "${DEVICE_AUDIT_JOBS:-2}" --out "$out/audit" --resume > /dev/null 2> "$out/audit/progress.log" && audit_status=ok || audit_status="not ok"
    cp "$out/audit/audit.md" "$out/audit.md" 2>/dev/null || true
    grep -E "^tasks audit|^error" "$out/audit/progress.log" | tail -40 || true
    summary+=("$(printf '%-26s %-7s %s' "tasks audit (cuda)" "$audit_status" "$(head -1 "$out/audit.md" 2>/dev/null)")")
  fi
  for suite in ${DEVICE_SUITES-gpu_tests unit_tests shipped_plugin_tests plugin_conformance_tests cli_tests}; do
    local filter=()
    [[ $suite == gpu_tests && -n ${DEVICE_GTEST_FILTER:-} ]] && filter=(--gtest_filter="$DEVICE_GTEST_FILTER")
    # A binary past DEVICE_SUITE_SECONDS is stopped (its log says how far it got) and the call goes on to pack.
    if timeout -k 15 "${DEVICE_SUITE_SECONDS:-480}" "$BUNDLE/bin/$suite" "${filter[@]}" > "$out/$suite.log" 2>&1; then
      status=ok
    else
      status=FAILED; failed=1
    fi
    local passed skipped
    passed=$(grep -oP '\[  PASSED  \] \K[0-9]+' "$out/$suite.log" || echo 0)
    skipped=$(grep -oP '\[  SKIPPED \] \K[0-9]+(?= test)' "$out/$suite.log" || echo 0)
    summary+=("$(printf '%-26s %-7s passed %-4s skipped %s' "$suite" "$status" "$passed" "$skipped")")
  done
  if [[ ${DEVICE_BENCH:-0} == 1 ]]; then
    echo "== oracle speedups (bench/oracle_speedups.py)"
    "$tg" tasks list --json --full > /tmp/tasks.json
    timeout "${DEVICE_BENCH_SECONDS:-500}" "$TRITONGYM_PYTHON" bench/oracle_speedups.py /tmp/tasks.json \
      --out "$out/oracle-speedups.md" > "$out/oracle-speedups.log" 2>&1 || true
    tail -3 "$out/oracle-speedups.log"
  fi
  if [[ ${DEVICE_FIDELITY:-0} == 1 || ${DEVICE_THROUGHPUT:-0} != 0 || ${DEVICE_CALL_ORDER:-0} == 1 || ${DEVICE_MULTI_GPU:-0} == 1 ]]; then
    "$tg" tasks list --json --full > /tmp/tasks.json
  fi
  if [[ ${DEVICE_FIDELITY:-0} == 1 ]]; then
    echo "== timing fidelity (bench/timing_fidelity.py)"
    PYTHONPATH="$PWD/$BUNDLE/plugins/python" timeout "${DEVICE_FIDELITY_SECONDS:-300}" "$TRITONGYM_PYTHON" \
      bench/timing_fidelity.py /tmp/tasks.json ${DEVICE_FIDELITY_ARGS:-} --out "$out/timing-fidelity.md" > "$out/timing-fidelity.log" 2>&1 || true
    tail -12 "$out/timing-fidelity.log"
  fi
  if [[ ${DEVICE_CALL_ORDER:-0} == 1 ]]; then
    echo "== the order of interleaved calls (bench/call_order.py)"
    PYTHONPATH="$PWD/$BUNDLE/plugins/python" timeout "${DEVICE_CALL_ORDER_SECONDS:-200}" "$TRITONGYM_PYTHON" \
      bench/call_order.py /tmp/tasks.json ${DEVICE_CALL_ORDER_ARGS:-} --out "$out/call-order.md" > "$out/call-order.log" 2>&1 || true
    tail -8 "$out/call-order.log"
  fi
  if [[ ${DEVICE_CONTEXT:-0} == 1 ]]; then
    echo "== another process's CUDA contexts against a timed kernel (bench/context_interference.py)"
    timeout "${DEVICE_CONTEXT_SECONDS:-120}" "$TRITONGYM_PYTHON" bench/context_interference.py \
      --out "$out/context-interference.md" --save "$out/context-interference.json" > "$out/context-interference.log" 2>&1 || true
    tail -3 "$out/context-interference.log"
  fi
  if [[ ${DEVICE_THROUGHPUT:-0} == 1 ]]; then
    echo "== evaluation throughput (bench/eval_throughput.py)"
    local variants=() variant given=()
    if [[ -n ${DEVICE_THROUGHPUT_VARIANT:-} ]]; then
      IFS='|' read -r -a given <<< "$DEVICE_THROUGHPUT_VARIANT"
      for variant in "${given[@]}"; do variants+=(--variant "$variant"); done
    fi
    timeout "${DEVICE_THROUGHPUT_SECONDS:-400}" "$TRITONGYM_PYTHON" bench/eval_throughput.py --tritongym "$tg" \
      --workers "${DEVICE_THROUGHPUT_WORKERS:-0}" ${DEVICE_THROUGHPUT_PLANE:+--data-plane "$DEVICE_THROUGHPUT_PLANE"} "${variants[@]}" ${DEVICE_THROUGHPUT_COLD_ALSO:+--cold-also "$DEVICE_THROUGHPUT_COLD_ALSO"} ${DEVICE_THROUGHPUT_READY_POOL:+--ready-pool "$DEVICE_THROUGHPUT_READY_POOL"} ${DEVICE_THROUGHPUT_ORDER_PAIRS:+--order-pairs "$DEVICE_THROUGHPUT_ORDER_PAIRS"} --tasks-json /tmp/tasks.json --out "$out/eval-throughput.md" --save "$out/throughput-both.json" \
      > "$out/eval-throughput.log" 2>&1 || true
    head -12 "$out/eval-throughput.log"
  elif [[ ${DEVICE_THROUGHPUT:-0} == warm || ${DEVICE_THROUGHPUT:-0} == cold ]]; then
    echo "== evaluation throughput, the $DEVICE_THROUGHPUT path (bench/eval_throughput.py --only)"
    timeout "${DEVICE_THROUGHPUT_SECONDS:-500}" "$TRITONGYM_PYTHON" bench/eval_throughput.py --tritongym "$tg" \
      --tasks-json /tmp/tasks.json --only "$DEVICE_THROUGHPUT" --save "$out/throughput-$DEVICE_THROUGHPUT.json" \
      > "$out/eval-throughput-$DEVICE_THROUGHPUT.log" 2>&1 || true
    tail -3 "$out/eval-throughput-$DEVICE_THROUGHPUT.log"
  fi
  if [[ ${DEVICE_MULTI_GPU:-0} == 1 ]]; then
    echo "== one executor across two GPUs (bench/multi_gpu.py)"
    # SIGINT at the limit: the bench stops its background pool and child; its JSON keeps every pass it finished,
    # and the table is laid out from it when the bench could not write it.
    # shellcheck disable=SC2086  # DEVICE_MULTI_GPU_ARGS: words for the bench
    PYTHONPATH="$PWD/$BUNDLE/plugins/python" timeout -s INT -k 30 "${DEVICE_MULTI_GPU_SECONDS:-500}" "$TRITONGYM_PYTHON" \
      bench/multi_gpu.py --tritongym "$tg" --tasks-json /tmp/tasks.json ${DEVICE_MULTI_GPU_ARGS:-} \
      --out "$out/multi-gpu.json" --table "$out/multi-gpu.md" > "$out/multi-gpu.log" 2>&1 || true
    if [[ ! -f $out/multi-gpu.md && -f $out/multi-gpu.json ]]; then
      "$TRITONGYM_PYTHON" bench/multi_gpu.py --report "$out/multi-gpu.json" --table "$out/multi-gpu.md" >> "$out/multi-gpu.log" 2>&1 || true
    fi
    tail -40 "$out/multi-gpu.log"
  fi
  if [[ -n ${DEVICE_ORACLE_RUN:-} ]]; then
    echo "== the oracle backend over every task (examples/oracle-all-tasks.yaml, shard $DEVICE_ORACLE_RUN)"
    local shard_dir="shard-${DEVICE_ORACLE_RUN%/*}-of-${DEVICE_ORACLE_RUN#*/}" carried
    # In a lane with a deadline, no episode starts after DEVICE_ORACLE_GRACE + 30 s before it: the running
    # ones get DEVICE_ORACLE_GRACE seconds to finish (an episode stopped halfway is lost work).
    local grace=${DEVICE_ORACLE_GRACE:-150}
    [[ -n ${DEVICE_LANE_DEADLINE:-} ]] && DEVICE_ORACLE_RUN_SECONDS=$((DEVICE_LANE_DEADLINE - grace - 30 - $(date +%s)))
    if (( ${DEVICE_ORACLE_RUN_SECONDS:-500} < 30 )); then DEVICE_ORACLE_RUN_SECONDS=30; fi
    carried="device-state/oracle-run/$shard_dir"
    if [[ -f $carried/run.sqlite ]]; then
      mkdir -p "$out/oracle-run" && cp -r "$carried" "$out/oracle-run/"
      interrupt_after "${DEVICE_ORACLE_RUN_SECONDS:-500}" "$grace" "$tg" resume "$out/oracle-run/$shard_dir" \
        > "$out/oracle-run.log" 2>&1 || true
    else
      local overrides=()
      [[ -n ${DEVICE_ORACLE_RUN_ARGS:-} ]] && read -r -a overrides <<< "$DEVICE_ORACLE_RUN_ARGS"
      interrupt_after "${DEVICE_ORACLE_RUN_SECONDS:-500}" "$grace" "$tg" run examples/oracle-all-tasks.yaml \
        --shard "$DEVICE_ORACLE_RUN" "output.dir=$out/oracle-run" "${overrides[@]}" > "$out/oracle-run.log" 2>&1 || true
    fi
    grep -E "episodes recorded|Pass@1|^oracle" "$out/oracle-run.log" | head -12 || true
  fi
  echo "== summary"
  printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
  # At most 8 files come back from the GPU machine (its README): everything goes into one archive (the caches
  # but the fork servers' Triton cache), with the summary, `doctor` and the benches' reports beside it.
  if [[ ${DEVICE_PACK:-1} == 1 ]]; then
    local packed=/tmp/device-logs-$$.tgz
    tar czf "$packed" -C "$out" --exclude=./cache/tritongym/triton-fork-servers . \
      && find "$out" -mindepth 1 -maxdepth 1 ! -name summary.txt ! -name doctor.txt ! -name '*.md' -exec rm -rf {} + \
      && mv "$packed" "$out/device-logs.tgz" && echo "(the rest is in device-logs.tgz: tar xzf it)"
  fi
  return $failed
}

case "${1:-}" in
  bundle) bundle ;;
  run) run ;;
  lanes) shift; lanes "$@" ;;
  *) echo "usage: $0 bundle|run|lanes SPEC..." >&2; exit 2 ;;
esac
