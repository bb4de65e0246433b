# A single-node Slurm cluster in a temporary folder, for tests: munged, slurmctld and slurmd on loopback,
# run as the current user, with every file (key, config, state, spool, logs, sockets) under one folder.
# Source this file, then:
#   local_slurm_start DIR    writes DIR/{munge.key,slurm.conf,...}, starts the daemons, waits for the node,
#                            and exports SLURM_CONF so that sbatch, squeue, sacct and scancel find the cluster
#   local_slurm_stop         stops whatever local_slurm_start started (safe to call more than once, and after
#                            a start that failed half-way); call it from an EXIT trap
#   local_slurm_logs         prints the daemons' logs (for a failing test)
# No GPU, no cgroups, no accounting database: sacct answers from nothing here, which the callers must accept.

LOCAL_SLURM_DIR=""
LOCAL_SLURM_PIDS=()

local_slurm_missing() {
  # The programs a local cluster needs that this machine lacks, one per line.
  local program
  for program in munged mungekey slurmctld slurmd sbatch squeue scancel sinfo; do
    command -v "$program" >/dev/null 2>&1 || echo "$program"
  done
}

_local_slurm_free_port() {
  # A TCP port nothing listens on, from the kernel (bind to port 0), so that two tests never share one.
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

_local_slurm_wait_for() {
  # _local_slurm_wait_for SECONDS DESCRIPTION COMMAND...: retries COMMAND every half second.
  local seconds=$1 description=$2
  shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      echo "local slurm: $description did not happen within $seconds s" >&2
      return 1
    fi
    sleep 0.5
  done
}

local_slurm_start() {
  LOCAL_SLURM_DIR=$1
  local dir=$1 user cpus memory_mib ctld_port slurmd_port node
  mkdir -p "$dir"/{state,spool,log,munge}
  chmod 700 "$dir/munge"
  user=$(id -un)
  # At least 4 CPUs, more than a small machine has (config_overrides lets slurmd take the configured count):
  # the test's jobs mostly wait on worker processes, and 3 shards and a merge should run at once.
  cpus=$(nproc)
  ((cpus >= 4)) || cpus=4
  memory_mib=$(awk '/MemTotal/ { print int($2 / 1024) - 512 }' /proc/meminfo)
  ctld_port=$(_local_slurm_free_port)
  slurmd_port=$(_local_slurm_free_port)
  node=localhost

  # munge: a fresh key, its socket and files in the folder.
  mungekey --create --keyfile="$dir/munge/munge.key" --force >/dev/null
  chmod 600 "$dir/munge/munge.key"
  munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" \
    --force || return 1
  _local_slurm_wait_for 10 "munged's pid file" test -s "$dir/munge/munged.pid" || return 1
  LOCAL_SLURM_PIDS+=("$(cat "$dir/munge/munged.pid")")

  cat > "$dir/slurm.conf" <<CONF
ClusterName=tritongym-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
SlurmdParameters=config_overrides
MpiDefault=none
KillWait=30
MinJobAge=600
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
PlugStackConfig=$dir/plugstack.conf
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory_mib State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
  : > "$dir/plugstack.conf"
  export SLURM_CONF=$dir/slurm.conf

  slurmctld -f "$dir/slurm.conf" -i || return 1
  _local_slurm_wait_for 20 "slurmctld's pid file" test -s "$dir/slurmctld.pid" || return 1
  LOCAL_SLURM_PIDS+=("$(cat "$dir/slurmctld.pid")")
  slurmd -f "$dir/slurm.conf" -N "$node" || return 1
  _local_slurm_wait_for 20 "slurmd's pid file" test -s "$dir/slurmd.pid" || return 1
  LOCAL_SLURM_PIDS+=("$(cat "$dir/slurmd.pid")")
  # The node is up once sinfo shows it idle (or mixed/allocated, if something already runs).
  _local_slurm_wait_for 60 "node $node coming up" \
    sh -c "sinfo -h -N -n $node -o %t | grep -Eq '^(idle|mix|alloc)'" || return 1
}

local_slurm_stop() {
  # Stops the daemons this shell started (newest first), by the ids it recorded; waits for each to go.
  local index pid
  for ((index = ${#LOCAL_SLURM_PIDS[@]} - 1; index >= 0; index--)); do
    pid=${LOCAL_SLURM_PIDS[index]}
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$pid" 2>/dev/null || true
  done
  LOCAL_SLURM_PIDS=()
}

local_slurm_logs() {
  local log
  for log in "$LOCAL_SLURM_DIR"/log/*.log; do
    [[ -f $log ]] || continue
    echo "---- $log (last 40 lines)"
    tail -n 40 "$log"
  done
}
