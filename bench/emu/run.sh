#!/usr/bin/env bash
# bench/emu/run.sh: how cheap is s3emu per request? wrk drives 8 KB PUT and
# GET at latency 0 with auth off; the emulator's own CPU time per request is
# read from /proc. With BIG=1 it also measures the emulator's CPU per byte
# of 64 MB uploads and downloads (curl, BIG_N of each, to distinct keys and
# to one key overwritten); with SCALE=1, populating 1,000,000 empty objects
# (CPU, RSS bytes per object) and listing them in pages of 1,000 (CPU per
# page); with PEERS=1 it times the AWS CLI and rclone syncing N small files
# up and down against the same emulator (objects/s).
#
#   bench/emu/run.sh [DURATION_S] [CONNECTIONS]      (defaults 10 s, 64)
#   BIG=1 SCALE=1 PEERS=1 N=1000 bench/emu/run.sh
#   EMU_ARGS="--threads 1" bench/emu/run.sh          (flags for the emulator)
# Prints markdown tables on stdout.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
EMU=${S3EMU:-$ROOT/build/s3emu}
DUR=${1:-10}
CONNS=${2:-64}
THREADS=${THREADS:-2}
N=${N:-1000}
BIG_N=${BIG_N:-5}
T=$(mktemp -d)
EMU_PID=
cleanup() { [ -n "$EMU_PID" ] && kill "$EMU_PID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT

# shellcheck disable=SC2086
"$EMU" --port 0 --anonymous ${EMU_ARGS:-} >"$T/out" 2>"$T/err" &
EMU_PID=$!
for _ in $(seq 1 100); do grep -q ready "$T/out" 2>/dev/null && break; sleep 0.05; done
URL=$(sed -n 's/^ready //p' "$T/out")
curl -s -X PUT "$URL/bench" >/dev/null
head -c 8192 /dev/urandom >"$T/obj"
curl -s -X PUT --data-binary @"$T/obj" "$URL/bench/obj8k" >/dev/null

cat >"$T/put.lua" <<'LUA'
wrk.method = "PUT"
wrk.body = string.rep("x", 8192)
local n = 0
request = function()
  n = n + 1
  return wrk.format("PUT", "/bench/put/k" .. (n % 10000))
end
LUA

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$EMU_PID/stat"; }
requests() { curl -s "$URL/_s3emu/stats" | sed 's/.*"requests":\([0-9]*\).*/\1/'; }
HZ=$(getconf CLK_TCK)

run() { # name, wrk args...
    local name=$1; shift
    local c0 r0 c1 r1 out rps lat
    c0=$(cpu_ticks); r0=$(requests)
    out=$(wrk -t"$THREADS" -c"$CONNS" -d"${DUR}s" --latency "$@" 2>&1)
    c1=$(cpu_ticks); r1=$(requests)
    rps=$(echo "$out" | awk '/Requests\/sec/ { print $2 }')
    lat=$(echo "$out" | awk '/ 50%/ { p50 = $2 } / 99%/ { p99 = $2 } END { print p50 " / " p99 }')
    errs=$(echo "$out" | awk '/Non-2xx|Socket errors/ { printf "%s ", $0 }')
    awk -v n="$name" -v rps="$rps" -v lat="$lat" -v c0="$c0" -v c1="$c1" -v r0="$r0" -v r1="$r1" \
        -v hz="$HZ" -v e="$errs" 'BEGIN {
        cpu = (c1 - c0) / hz; req = r1 - r0;
        printf "| %s | %s | %s | %.2f | %.1f | %s |\n", n, rps, lat, cpu, (req ? cpu / req * 1e6 : 0), (e == "" ? "none" : e) }'
}

echo "s3emu bench: wrk -t$THREADS -c$CONNS -d${DUR}s, 8 KB objects, latency 0, --anonymous ${EMU_ARGS:-}, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| workload | requests/s | latency p50 / p99 | emulator CPU s | emulator CPU µs/request | errors |"
echo "|---|---|---|---|---|---|"
run "GET 8 KB" "$URL/bench/obj8k"
run "PUT 8 KB" -s "$T/put.lua" "$URL"

if [ "${BIG:-0}" = 1 ]; then
    head -c $((64 << 20)) /dev/urandom >"$T/big"
    big() { # name, key prefix (distinct keys) or key (one key)
        local c0 c1 c2 i k
        c0=$(cpu_ticks)
        for i in $(seq 1 "$BIG_N"); do
            k=$2; [ "$3" = distinct ] && k=$2$i
            curl -s -X PUT --data-binary @"$T/big" "$URL/bench/$k" >/dev/null
        done
        c1=$(cpu_ticks)
        for i in $(seq 1 "$BIG_N"); do
            k=$2; [ "$3" = distinct ] && k=$2$i
            curl -s "$URL/bench/$k" -o /dev/null
        done
        c2=$(cpu_ticks)
        awk -v n="$1" -v c0="$c0" -v c1="$c1" -v c2="$c2" -v hz="$HZ" -v k="$BIG_N" 'BEGIN {
            b = k * 64 * 1048576; printf "| %s | %d | %.2f | %.2f |\n", n, k, (c1 - c0) / hz * 1e9 / b, (c2 - c1) / hz * 1e9 / b }'
    }
    echo
    echo "64 MB objects with curl (emulator CPU per byte moved):"
    echo
    echo "| workload | objects | PUT ns/byte | GET ns/byte |"
    echo "|---|---|---|---|"
    big "64 MB, distinct keys" big/d distinct
    big "64 MB, one key overwritten" big/same same
fi

if [ "${SCALE:-0}" = 1 ]; then
    c0=$(cpu_ticks)
    rss0=$(awk '/VmRSS/ { print $2 }' "/proc/$EMU_PID/status")
    curl -s -X POST "$URL/_s3emu/populate?bucket=scale&prefix=obj/&count=1000000&size=0" >"$T/pop"
    c1=$(cpu_ticks)
    rss1=$(awk '/VmRSS/ { print $2 }' "/proc/$EMU_PID/status")
    pages=0 tok=
    while :; do
        curl -s "$URL/scale?list-type=2${tok:+&continuation-token=$tok}" >"$T/page"
        pages=$((pages + 1))
        tok=$(sed -n 's/.*<NextContinuationToken>\([^<]*\)<.*/\1/p' "$T/page" | sed 's/=/%3D/g; s/+/%2B/g; s#/#%2F#g')
        [ -n "$tok" ] || break
    done
    c2=$(cpu_ticks)
    curl -s "$URL/scale?list-type=2&start-after=obj/000777777&max-keys=1000" >"$T/sa"
    echo
    echo "1,000,000 empty objects: populate, then ListObjectsV2 pages of 1,000 with continuation tokens."
    echo
    echo "| populate CPU s | RSS bytes/object | pages | listing CPU ms/page | start-after page first key |"
    echo "|---|---|---|---|---|"
    awk -v c0="$c0" -v c1="$c1" -v c2="$c2" -v hz="$HZ" -v r0="$rss0" -v r1="$rss1" -v p="$pages" \
        -v k="$(grep -o '<Key>[^<]*' "$T/sa" | head -1 | cut -c6-)" 'BEGIN {
        printf "| %.2f | %.0f | %d | %.2f | %s |\n", (c1 - c0) / hz, (r1 - r0) * 1024 / 1e6, p, (c2 - c1) / hz * 1000 / p, k }'
fi

if [ "${PEERS:-0}" = 1 ]; then
    mkdir -p "$T/src" "$T/dst" "$T/dst2"
    for i in $(seq 1 "$N"); do head -c 8192 /dev/urandom >"$T/src/f$i"; done
    export AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x AWS_DEFAULT_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true
    unset AWS_PROFILE AWS_CA_BUNDLE
    peer() { # name, command...
        local name=$1; shift
        local c0 r0 s0 s1 c1 r1
        c0=$(cpu_ticks); r0=$(requests); s0=$(date +%s.%N)
        "$@" >/dev/null 2>&1
        s1=$(date +%s.%N); c1=$(cpu_ticks); r1=$(requests)
        awk -v n="$name" -v s0="$s0" -v s1="$s1" -v c0="$c0" -v c1="$c1" -v r0="$r0" -v r1="$r1" -v hz="$HZ" -v N="$N" 'BEGIN {
            w = s1 - s0; printf "| %s | %d | %.1f | %.0f | %.0f | %.2f |\n", n, N, w, N / w, (r1 - r0) / w, (c1 - c0) / hz }'
    }
    echo
    echo "Peers against the same emulator: $N files of 8 KB (wall s, objects/s, requests/s seen by the emulator, emulator CPU s)."
    echo
    echo "| client | files | wall s | objects/s | emulator requests/s | emulator CPU s |"
    echo "|---|---|---|---|---|---|"
    peer "aws s3 sync up (defaults)" /usr/bin/aws --endpoint-url "$URL" s3 sync "$T/src" s3://bench/aws/
    peer "aws s3 sync down (defaults)" /usr/bin/aws --endpoint-url "$URL" s3 sync s3://bench/aws/ "$T/dst"
    S3C_BIN=${S3C:-$ROOT/build/s3c}
    if [ -x "$S3C_BIN" ]; then
        peer "s3c cp -r up (defaults)" "$S3C_BIN" --endpoint-url "$URL" cp -r --quiet "$T/src" s3://bench/s3c/
        peer "s3c cp -r down (defaults)" "$S3C_BIN" --endpoint-url "$URL" cp -r --quiet s3://bench/s3c/ "$T/dst3"
    fi
    if command -v rclone >/dev/null; then
        export RCLONE_CONFIG_EMU_TYPE=s3 RCLONE_CONFIG_EMU_PROVIDER=Other RCLONE_CONFIG_EMU_ENDPOINT="$URL" \
               RCLONE_CONFIG_EMU_FORCE_PATH_STYLE=true RCLONE_CONFIG_EMU_ACCESS_KEY_ID=x RCLONE_CONFIG_EMU_SECRET_ACCESS_KEY=x
        peer "rclone copy up (--transfers 64)" rclone copy --transfers 64 --checkers 64 "$T/src" emu:bench/rclone
        peer "rclone copy down (--transfers 64)" rclone copy --transfers 64 --checkers 64 emu:bench/rclone "$T/dst2"
    fi
fi
