#!/usr/bin/env bash
# scripts/ceph-rgw-start.sh DIR PORT
#
# Starts a throw-away single-node Ceph cluster (one monitor, one OSD, no mgr)
# and a RADOS Gateway answering S3 on http://127.0.0.1:PORT. The monitor
# listens on 127.0.0.1:PORT+1. Nothing leaves DIR: config, stores, logs, admin
# sockets and pid files all live there; /etc/ceph and /var/lib/ceph are not
# touched. Only loopback addresses are used.
#
# Writes:
#   DIR/pids    the PID of every daemon started, in start order (one a line);
#               scripts/server-stop.sh DIR stops exactly those.
#   DIR/s3.env  sourceable: AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
#               AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_DEFAULT_REGION and the
#               same values as S3C_TEST_* for tests/e2e (S3C_TEST_STORE=ceph).
#   DIR/s3-K.env  the same for user K (K = 1 .. S3_USERS-1): an owner of its
#               own, so runs that share the gateway do not see each other's
#               buckets in ListBuckets (tests compare whole bucket listings).
#
# Knobs (environment, all optional):
#   CEPH_OBJECTSTORE    memstore (default: RAM, fastest) or bluestore (sparse file)
#   CEPH_STORE_SIZE_GB  memstore arena / bluestore file size  (default 8 / 20)
#   S3_ACCESS_KEY, S3_SECRET_KEY, S3_REGION   the S3 user's keys, the region
#   S3_USERS            S3 users to create, each with an env file (default 1)
#   CEPH_START_TIMEOUT  seconds allowed for each step         (default 120)
#
# Needs: apt-get install --no-install-recommends ceph-mon ceph-osd radosgw
# (scripts/deps.sh does it), plus curl.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 DIR PORT" >&2; exit 2; }
DIR=$(realpath -m "$1")
PORT=$2
MON_PORT=$((PORT + 1))
STORE=${CEPH_OBJECTSTORE:-memstore}
case $STORE in
    memstore)  SIZE_GB=${CEPH_STORE_SIZE_GB:-8} ;;
    bluestore) SIZE_GB=${CEPH_STORE_SIZE_GB:-20} ;;
    *) echo "CEPH_OBJECTSTORE must be memstore or bluestore" >&2; exit 2 ;;
esac
AK=${S3_ACCESS_KEY:-s3ctestaccesskey0001}
SK=${S3_SECRET_KEY:-s3ctestsecretkey/0001+abcdefghijklmnopqrstuv}
REGION=${S3_REGION:-us-east-1}
TIMEOUT=${CEPH_START_TIMEOUT:-120}
USERS=${S3_USERS:-1}
case $USERS in ''|*[!0-9]*|0) echo "S3_USERS must be a number from 1" >&2; exit 2 ;; esac

for b in ceph-mon ceph-osd radosgw radosgw-admin ceph monmaptool curl; do
    command -v "$b" >/dev/null || {
        echo "ceph-rgw-start: '$b' not found: run scripts/deps.sh as root" >&2; exit 1; }
done

# A port is busy when something accepts a connection on it.
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for p in "$PORT" "$MON_PORT"; do
    if port_busy "$p"; then echo "ceph-rgw-start: port $p is in use" >&2; exit 1; fi
done

T0=$EPOCHREALTIME
log() { awk -v a="$T0" -v b="$EPOCHREALTIME" -v m="$*" \
        'BEGIN { printf "ceph-rgw-start [%5.1fs] %s\n", b - a, m }' >&2; }

# Refuse to run over a live cluster, and never wipe a directory we did not make.
if [ -s "$DIR/pids" ]; then
    while read -r pid; do
        if [ -n "$pid" ] && [ -d "/proc/$pid" ]; then
            echo "ceph-rgw-start: $DIR/pids lists running pid $pid: run scripts/server-stop.sh $DIR" >&2
            exit 1
        fi
    done < "$DIR/pids"
fi
if [ -d "$DIR" ] && [ -n "$(ls -A "$DIR")" ] && [ ! -f "$DIR/.ceph-rgw" ]; then
    echo "ceph-rgw-start: $DIR is not empty and was not made by this script" >&2; exit 1
fi
rm -rf "${DIR:?}"/{mon.a,osd.0,run,log,crash,rgw,ceph.conf,monmap,s3.env,pids} "$DIR"/s3-*.env
mkdir -p "$DIR"/{mon.a,osd.0,run,log,crash,rgw}
touch "$DIR/.ceph-rgw"
CONF=$DIR/ceph.conf
PIDS=$DIR/pids
: > "$PIDS"

# On failure, stop what was started (only our own PIDs) and show the logs.
on_exit() {
    local rc=$? pid
    [ $rc -eq 0 ] && return
    echo "ceph-rgw-start: failed (exit $rc); last log lines:" >&2
    tail -n 5 "$DIR"/log/*.log >&2 2>/dev/null || true
    for pid in $(cat "$PIDS" "$DIR"/run/*.pid 2>/dev/null | sort -u); do
        kill -KILL "$pid" 2>/dev/null || true
    done
    rm -f "$PIDS"
}
trap on_exit EXIT
trap 'exit 143' TERM INT HUP

# Wait up to TIMEOUT s for a command to succeed, polling every 0.1 s.
wait_for() {
    local what=$1 i; shift
    for ((i = 0; i < TIMEOUT * 10; i++)); do
        "$@" && return 0
        sleep 0.1
    done
    echo "ceph-rgw-start: timed out waiting for $what" >&2
    return 1
}
record_pid() {            # record_pid NAME: append DIR/run/NAME.pid to DIR/pids
    wait_for "$1 pid file" test -s "$DIR/run/$1.pid"
    cat "$DIR/run/$1.pid" >> "$PIDS"
    echo >> "$PIDS"
    sed -i '/^$/d' "$PIDS"
}

FSID=$(cat /proc/sys/kernel/random/uuid)
# '\$name' and '\$id' are expanded by Ceph itself.
cat > "$CONF" <<CONF
[global]
fsid = $FSID
mon host = [v2:127.0.0.1:$MON_PORT]
mon initial members = a
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind msgr1 = false
ms bind ipv6 = false
# No cephx: there are no keys to keep and clients need none.
auth cluster required = none
auth service required = none
auth client required = none
# With auth=none, "secure" mode towards the monitor fails (-13): allow crc.
ms mon client mode = crc secure
keyring = $DIR/keyring
run dir = $DIR/run
crash dir = $DIR/crash
admin socket = $DIR/run/\$name.asok
log file = $DIR/log/\$name.log
pid file = $DIR/run/\$name.pid
log to stderr = false
err to stderr = true
# One OSD: pools of size 1, few placement groups, no autoscaler (no mgr).
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
osd crush chooseleaf type = 0
mon osd full ratio = .99
mon osd nearfull ratio = .99
mon osd backfillfull ratio = .99
osd failsafe full ratio = .99
mon data avail warn = 2
mon data avail crit = 1

[mon]
mon data = $DIR/mon.\$id
mon cluster log file = $DIR/log/cluster.log
# Each pool radosgw creates costs osdmap epochs: commit them every 0.1 s, not 1 s.
paxos propose interval = 0.1
paxos min wait = 0.01

[osd]
osd data = $DIR/osd.\$id
osd objectstore = $STORE
osd class load list = *
osd class default list = *
osd fast shutdown = true
osd memory target = 1073741824
memstore device bytes = $((SIZE_GB << 30))
bluestore block create = true
bluestore block size = $((SIZE_GB << 30))
bluestore fsck on mount = false
bluestore fsck on mkfs = false

[client]
rgw data = $DIR/rgw
rgw luarocks location = $DIR/rgw/luarocks
# Deleted and overwritten data is collected after 2 h by default; with
# memstore that is RAM, so collect it within seconds.
rgw gc obj min wait = 5
rgw gc processor period = 5
rgw gc processor max time = 5
# SSE-C over plain http (tests run on loopback without TLS).
rgw crypt require ssl = false

[client.rgw.$PORT]
rgw frontends = beast endpoint=127.0.0.1:$PORT tcp_nodelay=1
CONF
export CEPH_CONF=$CONF
C=(-c "$CONF")

log "monitor: mkfs"
monmaptool --create --clobber --fsid "$FSID" --addv a "[v2:127.0.0.1:$MON_PORT]" \
    "$DIR/monmap" >/dev/null
ceph-mon "${C[@]}" --mkfs -i a --monmap "$DIR/monmap"
ceph-mon "${C[@]}" -i a                 # daemonizes and writes its pid file
record_pid mon.a
log "monitor up"

OSD_UUID=$(cat /proc/sys/kernel/random/uuid)
OSD_ID=$(timeout "$TIMEOUT" ceph "${C[@]}" osd new "$OSD_UUID")
log "osd.$OSD_ID: mkfs ($STORE)"
ceph-osd "${C[@]}" -i "$OSD_ID" --mkfs --osd-uuid "$OSD_UUID" 2>>"$DIR/log/osd-mkfs.log"
ceph-osd "${C[@]}" -i "$OSD_ID" 2>>"$DIR/log/osd-stderr.log"
record_pid "osd.$OSD_ID"
log "osd.$OSD_ID started"

# radosgw-admin creates the RGW pools on first use. It waits by itself for the
# OSD to come up and the pools to turn active (faster than polling
# `ceph osd dump`, a Python process per poll); TIMEOUT bounds the wait.
# user_keys K: the keys of user K (0 is the one S3_ACCESS_KEY names), same
# lengths as the first.
user_keys() {
    if [ "$1" = 0 ]; then UAK=$AK USK=$SK; return; fi
    UAK=${AK:0:${#AK}-4}$(printf 'u%03d' "$1") USK=${SK:0:${#SK}-4}$(printf 'u%03d' "$1")
}
for ((u = 0; u < USERS; u++)); do
    user_keys $u
    uid=s3c-test
    [ $u = 0 ] || uid=s3c-test-$u
    timeout "$TIMEOUT" radosgw-admin "${C[@]}" user create --uid "$uid" \
        --display-name "s3c test $u" --access-key "$UAK" --secret-key "$USK" >/dev/null
done
log "S3 users created: $USERS"
radosgw "${C[@]}" -n "client.rgw.$PORT" 2>>"$DIR/log/rgw-stderr.log"
record_pid "client.rgw.$PORT"
rgw_up() { [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/")" = 200 ]; }
wait_for "radosgw on port $PORT" rgw_up
log "radosgw answers on http://127.0.0.1:$PORT"

for ((u = 0; u < USERS; u++)); do
    user_keys $u
    envf=$DIR/s3.env
    [ $u = 0 ] || envf=$DIR/s3-$u.env
    cat > "$envf" <<ENV
export AWS_ENDPOINT_URL=http://127.0.0.1:$PORT
export AWS_ACCESS_KEY_ID='$UAK'
export AWS_SECRET_ACCESS_KEY='$USK'
export AWS_REGION=$REGION
export AWS_DEFAULT_REGION=$REGION
export S3C_TEST_STORE=ceph
export S3C_TEST_ENDPOINT=http://127.0.0.1:$PORT
export S3C_TEST_ACCESS_KEY='$UAK'
export S3C_TEST_SECRET_KEY='$USK'
export S3C_TEST_REGION=$REGION
ENV
done
echo "http://127.0.0.1:$PORT"
