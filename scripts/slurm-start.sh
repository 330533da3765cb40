#!/usr/bin/env bash
# scripts/slurm-start.sh DIR
#
# Starts a one-node Slurm cluster on loopback, for tests (tests/slurm/run.sh)
# and for trying examples/slurm/: munged with a key and socket of its own,
# slurmctld and slurmd on two free ports, every file (configuration, state,
# spool, logs, PIDs) under DIR. The node claims 4 CPUs whatever the machine
# has, so a 4-task array runs at once. Needs root (slurmd runs jobs as their
# user) and Debian's slurmctld, slurmd, slurm-client and munge.
#
# Writes DIR/slurm.env (export SLURM_CONF=...; source it before sbatch,
# squeue, scontrol) and DIR/pids (munged, slurmctld, slurmd, in start order)
# for scripts/server-stop.sh DIR, which stops exactly those PIDs. Waits until
# the node is idle; exit 0 then, 1 (with the logs' tails) when it is not
# within SLURM_START_TIMEOUT seconds (default 60).
set -uo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
DIR=$(mkdir -p "$1" && cd "$1" && pwd) || exit 2
TIMEOUT=${SLURM_START_TIMEOUT:-60}
for t in munged slurmctld slurmd sinfo python3; do
    command -v "$t" >/dev/null || { echo "slurm-start: $t not found (scripts/deps.sh installs it)" >&2; exit 2; }
done
chmod 700 "$DIR"
mkdir -p "$DIR/munge" "$DIR/state" "$DIR/spool" "$DIR/log"
chmod 700 "$DIR/munge"
: > "$DIR/pids"

# Two free loopback ports.
read -r CTLD_PORT SLURMD_PORT < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')
NODE=$(hostname -s)

dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$DIR/munge/munge.key"
munged --foreground --force --socket="$DIR/munge/munge.socket" --key-file="$DIR/munge/munge.key" \
    --pid-file="$DIR/munge/munged.pid" --log-file="$DIR/log/munged.log" --seed-file="$DIR/munge/seed" \
    > "$DIR/log/munged.out" 2>&1 &
echo $! >> "$DIR/pids"

cat > "$DIR/slurm.conf" <<CONF
ClusterName=s3ctest
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge/munge.socket
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
InactiveLimit=0
KillWait=5
MinJobAge=300
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN
PartitionName=s3c Nodes=ALL Default=YES MaxTime=30 State=UP
CONF
echo "export SLURM_CONF=$DIR/slurm.conf" > "$DIR/slurm.env"
export SLURM_CONF=$DIR/slurm.conf

for ((i = 0; i < 50; i++)); do [ -S "$DIR/munge/munge.socket" ] && break; sleep 0.1; done
slurmctld -D -i -f "$DIR/slurm.conf" > "$DIR/log/slurmctld.out" 2>&1 &
echo $! >> "$DIR/pids"
slurmd -D -f "$DIR/slurm.conf" -N "$NODE" > "$DIR/log/slurmd.out" 2>&1 &
echo $! >> "$DIR/pids"

for ((i = 0; i < TIMEOUT * 5; i++)); do
    state=$(sinfo -h -n "$NODE" -o %T 2>/dev/null | head -n 1)
    case $state in
        idle*|mix*|alloc*) echo "slurm-start: node $NODE $state, slurmctld on 127.0.0.1:$CTLD_PORT"; exit 0 ;;
    esac
    sleep 0.2
done
echo "slurm-start: the node did not come up within ${TIMEOUT}s (state '${state:-}')" >&2
for f in "$DIR"/log/*; do echo "--- $f" >&2; tail -n 15 "$f" >&2; done
exit 1
