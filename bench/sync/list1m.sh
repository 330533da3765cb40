#!/usr/bin/env bash
# bench/sync/list1m.sh [S3C...]: a no-op `s3c sync` of 1,000,000 objects, S3 to
# S3, with S3's listing latency (s3emu latency_ms=20), for each s3c binary
# given (default build/s3c): the listing is the whole job. Prints wall time,
# CPU, peak RSS, s3emu's request counts and bytes sent, and the CPU s3emu
# spent serving the run (/proc/PID/stat), per run. Not a test: about a
# minute per run with parallel listing, several with one page after another.
#   make && bench/sync/list1m.sh build/s3c
#   S3C_LIST_WIDTH=1 bench/sync/list1m.sh build/s3c      # one page after another
# Knobs: COUNT (objects, default 1000000), LATENCY_MS (20), PORT (0: any),
# RUNS (each binary this many times, interleaved; default 1), S3EMU (the
# emulator binary, default build/s3emu).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
COUNT=${COUNT:-1000000}
LATENCY_MS=${LATENCY_MS:-20}
[ $# -gt 0 ] || set -- "$ROOT/build/s3c"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/s3c-list1m.XXXXXX")
"${S3EMU:-$ROOT/build/s3emu}" --port "${PORT:-0}" > "$DIR/emu.out" 2> "$DIR/emu.err" &
EMU_PID=$!
trap 'kill $EMU_PID 2>/dev/null; wait $EMU_PID 2>/dev/null; rm -rf "$DIR"' EXIT
for _ in $(seq 50); do grep -q '^ready' "$DIR/emu.out" && break; sleep 0.1; done
EMU=$(sed -n 's/^ready //p' "$DIR/emu.out")
[ -n "$EMU" ] || { echo "s3emu did not start" >&2; exit 1; }
export AWS_ACCESS_KEY_ID=s3emu-access AWS_SECRET_ACCESS_KEY=s3emu-secret AWS_REGION=us-east-1 AWS_ENDPOINT_URL=$EMU
# The destination is populated second, so it is newer: nothing to copy.
for p in src/ dst/; do
    curl -sf -X POST "$EMU/_s3emu/populate?bucket=scale&count=$COUNT&prefix=$p" | jq -c '{prefix, created, ms}' || exit 1
done
curl -sf -X POST --data "latency_ms=$LATENCY_MS" "$EMU/_s3emu/config" > /dev/null || exit 1
# s3emu's CPU seconds so far (user + system), from /proc.
emu_cpu() {
    awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.2f", ($12 + $13) / hz }' "/proc/$EMU_PID/stat"
}
for _ in $(seq "${RUNS:-1}"); do
for S in "$@"; do
    curl -sf -X DELETE "$EMU/_s3emu/stats" > /dev/null
    E0=$(emu_cpu)
    echo "== $S sync s3://scale/src/ s3://scale/dst/ (${COUNT} objects, latency ${LATENCY_MS} ms, load $(cut -d' ' -f1-3 /proc/loadavg))"
    /usr/bin/time -f 'wall %e s, user %U s, sys %S s, peak RSS %M KiB' \
        "$S" sync --no-progress s3://scale/src/ s3://scale/dst/ > "$DIR/out" 2> "$DIR/err"
    echo "rc=$? lines=$(wc -l < "$DIR/out")"
    grep -v '^$' "$DIR/err" | tail -3
    E1=$(emu_cpu)
    echo "s3emu CPU $(awk -v a="$E0" -v b="$E1" 'BEGIN { printf "%.2f", b - a }') s"
    curl -sf "$EMU/_s3emu/stats" | jq -c '{ops, requests, bytes_out}'
done
done
