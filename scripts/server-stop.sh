#!/usr/bin/env bash
# scripts/server-stop.sh DIR
#
# Stops a server started by a scripts/*-start.sh script (or tests/run-all.sh)
# in DIR: signals exactly the PIDs listed in DIR/pids, last started first
# (radosgw, then the OSD, then the monitor), waits up to STOP_TIMEOUT s
# (default 20) for each, then SIGKILLs a survivor. It never looks a process up
# by name. Removes DIR/pids; leaves DIR (data, logs) in place.
# Exit 0 when everything listed is gone (or nothing was listed).
set -uo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
DIR=$1
PIDS=$DIR/pids
TIMEOUT=${STOP_TIMEOUT:-20}
[ -f "$PIDS" ] || exit 0

# alive PID: the process exists and is not a zombie waiting for its parent.
alive() {
    [ -d "/proc/$1" ] || return 1
    local st
    st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
    [ "$st" != Z ]
}

mapfile -t pids < <(grep -E '^[0-9]+$' "$PIDS")
rc=0
for ((k = ${#pids[@]} - 1; k >= 0; k--)); do
    pid=${pids[k]}
    alive "$pid" || continue
    kill -TERM "$pid" 2>/dev/null || continue
    for ((i = 0; i < TIMEOUT * 20; i++)); do
        alive "$pid" || break
        sleep 0.05
    done
    if alive "$pid"; then
        echo "server-stop: pid $pid still there after ${TIMEOUT}s: SIGKILL" >&2
        kill -KILL "$pid" 2>/dev/null
        sleep 0.2
        alive "$pid" && rc=1
    fi
done
rm -f "$PIDS"
exit $rc
