#!/usr/bin/env bash
# `tritongym slurm` against a real single-node Slurm (tests/slurm/local_slurm.sh: munged, slurmctld and
# slurmd from Debian's slurm-wlm and munge, on loopback, in a temporary folder): the quickstart submitted as
# 3 shards, one array task cancelled mid-run with scancel, `tritongym slurm resume` submitting that shard
# alone again, and the merged store checked against a single-process run of the same file: every planned
# episode exactly once, the same keys, the same verdicts. That single-process run judges its candidates on an
# evaluation server that `tritongym slurm serve` started as a Slurm job (the interpreter, a bearer token), found
# through the server's endpoint file by executor.remote's endpoints_dir; `slurm serve stop` ends that job, and
# the server's file goes with it. Both parts share the cluster and run at once, to keep the test short. Slurm is
# stopped at the end, whatever happened.
#   slurm_test.sh SOURCE_DIR TRITONGYM
# Exit 77 (ctest's SKIP_RETURN_CODE) where Slurm or munge is not installed.
set -euo pipefail
source_dir=$(cd "$1" && pwd)
# shellcheck source=local_slurm.sh
source "$source_dir/tests/slurm/local_slurm.sh"

missing=$(local_slurm_missing)
if [[ -n $missing ]]; then
  echo "SKIPPED: a local Slurm needs Debian's slurm-wlm and munge (missing:" $missing"); TG_TEST_PACKAGES=1 scripts/setup.sh installs them"
  exit 77
fi
tritongym=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")

work=$(mktemp -d "${TMPDIR:-/tmp}/tritongym-slurm-test.XXXXXX")
run_dir=$work/runs/quickstart
single_dir=$work/runs/single
single_pid=""
servers_dir=$work/servers
token_file=$work/serve-token
say() { printf '[slurm test %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
fail() { say "FAILED: $*"; exit 1; }

# The jobs this test submitted, from the submission record.
submitted_jobs() {
  [[ -f $run_dir/slurm/submissions.json ]] || return 0
  python3 - "$run_dir/slurm/submissions.json" <<'PY'
import json, sys
for submission in json.load(open(sys.argv[1]))["submissions"]:
    for job in (submission["array_job"], submission["merge_job"]):
        if job:
            print(job)
PY
}

serve_jobs() {  # the evaluation server jobs this test submitted, from slurm serve's record
  [[ -f $servers_dir/serve.json ]] || return 0
  python3 -c 'import json, sys; print("\n".join(job["job"] for job in json.load(open(sys.argv[1]))["jobs"]))' \
    "$servers_dir/serve.json"
}

cleanup() {
  local status=$?
  set +e
  # Jobs first (by their ids), so that no tritongym outlives the cluster; then the daemons.
  local jobs
  jobs=$( (submitted_jobs; serve_jobs) | tr '\n' ' ')
  if [[ -n $jobs && -n ${SLURM_CONF:-} ]]; then
    # shellcheck disable=SC2086
    scancel $jobs 2>/dev/null
    for _ in $(seq 90); do
      [[ -z $(squeue -h -u "$(id -un)" -o %i 2>/dev/null) ]] && break
      sleep 0.5
    done
  fi
  if [[ -n $single_pid ]]; then kill "$single_pid" 2>/dev/null; wait "$single_pid" 2>/dev/null; fi
  if ((status != 0)); then
    local_slurm_logs
    for log in "$run_dir"/slurm/logs/*.log "$servers_dir"/logs/*.log "$work"/single.log; do
      [[ -f $log ]] && { echo "---- $log (last 30 lines)"; tail -n 30 "$log"; }
    done
  fi
  local_slurm_stop
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

say "starting munged, slurmctld and slurmd in $work/cluster"
local_slurm_start "$work/cluster" || fail "the local Slurm did not start"
sinfo

cd "$source_dir"
quickstart=examples/quickstart.yaml
# One episode at a time per shard, so that a cancelled shard stops with some of its episodes left.
overrides=(max_concurrent_episodes=1)

# An evaluation server on the node, as a Slurm job: it listens on every address, so it needs a token.
(umask 077 && python3 -c 'import secrets; print(secrets.token_hex(24))' >"$token_file")
say "tritongym slurm serve --nodes 1 (the interpreter) --dir $servers_dir"
"$tritongym" slurm serve --nodes 1 --token-file "$token_file" --dir "$servers_dir" \
  --executor tritongym.executor.triton-interpreter --executor-config '{"workers": 2}' | tee "$work/serve-submit.log"
serve_job=$(serve_jobs | tail -n 1)
[[ -n $serve_job ]] || fail "no job id in $servers_dir/serve.json"

say "tritongym slurm $quickstart --shards 3"
"$tritongym" slurm "$quickstart" "${overrides[@]}" "output.dir=$run_dir" --shards 3 | tee "$work/submit.log"
array_job=$(submitted_jobs | sed -n 1p)
merge_job=$(submitted_jobs | sed -n 2p)
[[ -n $array_job && -n $merge_job ]] || fail "no job ids in $run_dir/slurm/submissions.json"
grep -q "^#SBATCH --array=0-2$" "$run_dir/slurm/shards.sbatch" || fail "the array script does not ask for tasks 0-2"

say "waiting for the server of job $serve_job to write its endpoint file"
deadline=$((SECONDS + 120))
until endpoint=$("$tritongym" slurm endpoints "$servers_dir" 2>"$work/endpoints.log"); do
  ((SECONDS < deadline)) || { cat "$work/endpoints.log"; fail "no endpoint in $servers_dir/endpoints within 120 s"; }
  sleep 1
done
[[ -f $servers_dir/endpoints/$serve_job-0.endpoint && $endpoint == *:* ]] ||
  fail "slurm endpoints printed '$endpoint', not the HOST:PORT of $servers_dir/endpoints/$serve_job-0.endpoint"
say "the server listens at $endpoint"

# The reference: the same run in one process (its episodes as many at once as the run file says), beside the
# cluster's jobs, its evaluations judged by the server over HTTP.
"$tritongym" --log-level warn run "$quickstart" "output.dir=$single_dir" executor.plugin=tritongym.executor.remote \
  "executor.config.endpoints_dir=$servers_dir/endpoints" "executor.config.token_file=$token_file" \
  >"$work/single.log" 2>&1 &
single_pid=$!

# Python reads the JSON the status command prints.
status_field() {
  "$tritongym" slurm status "$run_dir" --json 2>/dev/null | python3 -c "import json, sys; d = json.load(sys.stdin); print($1)" || true
}

job_state() {  # the state squeue gives a job (or array task) that slurmctld still holds
  squeue -h -t all -j "$1" -o %T 2>/dev/null | head -n 1
}

wait_until_ended() {  # wait_until_ended JOB SECONDS
  local deadline=$((SECONDS + $2)) state
  while ((SECONDS < deadline)); do
    state=$(job_state "$1")
    case $state in
      COMPLETED | FAILED | CANCELLED | TIMEOUT | OUT_OF_MEMORY | NODE_FAIL | PREEMPTED | BOOT_FAIL | DEADLINE) return 0 ;;
    esac
    sleep 1
  done
  fail "job $1 did not end within $2 s (state: ${state:-unknown})"
}

say "waiting for shard 1 (job ${array_job}_1) to record its first episode"
deadline=$((SECONDS + 150))
until [[ $(status_field 'd["shards"][1]["store"]["recorded"]') -ge 1 ]]; do
  ((SECONDS < deadline)) || fail "shard 1 recorded no episode within 150 s"
  sleep 1
done
[[ $(job_state "${array_job}_1") == RUNNING ]] || fail "shard 1's job is $(job_state "${array_job}_1"), not RUNNING"
say "scancel ${array_job}_1 (shard 1 has recorded $(status_field 'd["shards"][1]["store"]["recorded"]') of 4)"
scancel "${array_job}_1"

wait_until_ended "$merge_job" 300
say "the first merge job has ended: $(job_state "$merge_job")"
"$tritongym" slurm status "$run_dir" && fail "slurm status says complete, with shard 1 cancelled"
[[ $(job_state "${array_job}_1") == CANCELLED ]] || fail "shard 1's job is $(job_state "${array_job}_1"), not CANCELLED"
[[ $(status_field 'd["shards"][1]["store"]["complete"]') == False ]] || fail "the cancelled shard 1 is complete"
recorded_before=$(status_field 'd["shards"][1]["store"]["recorded"]')
[[ $(status_field 'd["merge"]["store"]["status"]') == interrupted ]] || fail "the partial merge is not marked interrupted"
[[ $(job_state "$merge_job") == FAILED ]] || fail "the partial merge job is $(job_state "$merge_job"), not FAILED"

say "tritongym slurm resume $run_dir"
"$tritongym" slurm resume "$run_dir" | tee "$work/resume.log"
grep -q "^shard 1: .*submitted again" "$work/resume.log" || fail "resume did not submit shard 1 again"
if grep -Eq "^shard [02]: .*submitted again" "$work/resume.log"; then fail "resume submitted a complete shard again"; fi
resubmitted=$(python3 -c "import json, sys; s = json.load(open(sys.argv[1]))['submissions'][-1]; print(s['shards'], s['array_job'] != '', s['merge_job'] != '')" \
  "$run_dir/slurm/submissions.json")
[[ $resubmitted == "[1] True True" ]] || fail "the resubmission is $resubmitted, not shard 1 with a merge"
second_merge=$(submitted_jobs | tail -n 1)

wait_until_ended "$second_merge" 300
say "the second merge job has ended: $(job_state "$second_merge")"
"$tritongym" slurm status "$run_dir" || fail "slurm status does not say complete after the resume"
[[ $(job_state "$second_merge") == COMPLETED ]] || fail "the second merge job is $(job_state "$second_merge")"
grep -q "($recorded_before were already recorded)" "$run_dir/slurm/logs/shard-1.log" ||
  fail "shard 1 was not resumed from its $recorded_before recorded episodes (see its log)"

say "waiting for the single-process run"
wait "$single_pid" || { cat "$work/single.log"; fail "the single-process run failed"; }
single_pid=""

say "tritongym slurm serve stop $servers_dir"
"$tritongym" slurm serve stop "$servers_dir" | tee "$work/serve-stop.log"
grep -q "^job $serve_job (RUNNING): cancelled" "$work/serve-stop.log" || fail "slurm serve stop did not cancel job $serve_job"
wait_until_ended "$serve_job" 120
[[ $(job_state "$serve_job") == CANCELLED ]] || fail "the server job is $(job_state "$serve_job"), not CANCELLED"
[[ -z $(ls -A "$servers_dir/endpoints") ]] || fail "endpoint files outlived the server: $(ls -A "$servers_dir/endpoints")"
grep -q "draining" "$servers_dir/logs/serve-$serve_job.log" || fail "the server did not drain on scancel (see its log)"
if grep -rqF "$(cat "$token_file")" "$work" --exclude=serve-token --exclude-dir=cluster; then
  fail "the bearer token was written somewhere: $(grep -rlF "$(cat "$token_file")" "$work" --exclude=serve-token --exclude-dir=cluster)"
fi

# The merged store against the single-process one: every planned episode once, same keys, same verdicts.
python3 - "$run_dir/merged/run.sqlite" "$single_dir/run.sqlite" "$endpoint" <<'PY'
import json, sqlite3, sys

def episodes(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = db.execute("SELECT episode_key, verdict FROM episodes").fetchall()
    planned = db.execute("SELECT planned_episodes, status FROM runs").fetchone()
    return rows, planned

merged, (merged_planned, merged_status) = episodes(sys.argv[1])
single, (single_planned, single_status) = episodes(sys.argv[2])
keys = [key for key, _ in merged]
assert len(keys) == len(set(keys)), f"an episode is in the merged store twice: {sorted(keys)}"
assert single_status == "finished" and len(single) == single_planned == 12, (single_status, len(single), single_planned)
assert merged_status == "finished" and merged_planned == 12 and len(merged) == 12, (merged_status, merged_planned, len(merged))
assert dict(merged) == dict(single), "merged and single-process verdicts differ:\n" + "\n".join(
    f"  {key}: merged {dict(merged).get(key)}, single {dict(single).get(key)}"
    for key in sorted(set(dict(merged)) | set(dict(single))) if dict(merged).get(key) != dict(single).get(key))
print(f"merged store: {len(merged)} episodes, each once, the same keys and verdicts as the single-process run")

# Every evaluation of the single-process run was judged by the Slurm job's server.
db = sqlite3.connect(f"file:{sys.argv[2]}?mode=ro", uri=True)
assert db.execute("SELECT executor FROM runs").fetchone()[0] == "tritongym.executor.remote"
records = [json.loads(row[0]) for row in db.execute("SELECT record_json FROM evaluations")]
assert records, "the single-process run recorded no evaluation"
where = {(r["remote"]["endpoint"], r["remote"].get("server_executor")) for r in records}
assert where == {(sys.argv[3], "tritongym.executor.triton-interpreter")}, where
print(f"single-process run: {len(records)} evaluations, every one judged by {sys.argv[3]}")
PY
say "passed"
