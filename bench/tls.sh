#!/usr/bin/env bash
# bench/tls.sh — what TLS adds to s3c's large transfers, in client CPU-s per GB
# (issue 17's target, issue 24 item 5: at most +0.6 on upload as on download).
#
# Two s3emu in the same run, one serving HTTP and one HTTPS (--tls-dir: a CA
# and a certificate made for the run, trusted through AWS_CA_BUNDLE), both
# pinned to EMU_CORE with the same model; s3c pinned to CLIENT_CORE. Each round
# uploads COUNT files of SIZE bytes from tmpfs, then downloads them to tmpfs,
# over http and then https (the order turns each round). Client CPU is GNU
# time's user+sys of s3c alone; prints every run and a Markdown table of the
# medians and of what TLS adds.
#
#   bench/tls.sh [S3C-BINARY]                  default: build/s3c
#   TLS_REPS=5 TLS_COUNT=4 TLS_SIZE=200000000 TLS_LATENCY_MS=20 TLS_BANDWIDTH_MBPS=90
#   TLS_EMU_CORE=1 TLS_CLIENT_CORE=0 TLS_DST=/dev/shm/tlsbench TLS_S3EMU=build/s3emu
#
# Needs GNU time, taskset, python3.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
S3C=${1:-$ROOT/build/s3c}
REPS=${TLS_REPS:-5}
COUNT=${TLS_COUNT:-4}
SIZE=${TLS_SIZE:-200000000}
EMU_CORE=${TLS_EMU_CORE:-1}
CLIENT_CORE=${TLS_CLIENT_CORE:-0}
DST=${TLS_DST:-/dev/shm/tlsbench}
AK=s3emu-access
SK=s3emu-secret

WORK=$(mktemp -d /tmp/tls-bench.XXXXXX)
PIDS=()
cleanup() {
    local rc=$? p
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
    rm -rf "$WORK" "$DST"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# emu SCHEME: start one s3emu; its URL in $WORK/SCHEME.url.
emu() {
    local tls=() url=
    [ "$1" = https ] && tls=(--tls-dir "$WORK/tls")
    taskset -c "$EMU_CORE" "${TLS_S3EMU:-$ROOT/build/s3emu}" --host 127.0.0.1 --port 0 --access-key $AK --secret-key $SK \
        --latency-ms "${TLS_LATENCY_MS:-20}" --bandwidth-mbps "${TLS_BANDWIDTH_MBPS:-90}" "${tls[@]}" \
        >"$WORK/$1.out" 2>"$WORK/$1.err" &
    PIDS+=($!)
    for _ in $(seq 100); do
        url=$(sed -n 's/^ready //p' "$WORK/$1.out")
        [ -n "$url" ] && break
        sleep 0.05
    done
    [ -n "$url" ] || { echo "s3emu ($1) did not start: $(cat "$WORK/$1.err")" >&2; exit 1; }
    case $url in http://127.0.0.1:*|https://127.0.0.1:*) ;; *) echo "not loopback: $url" >&2; exit 1 ;; esac
    echo "$url" >"$WORK/$1.url"
}
emu http
emu https

export HOME=$WORK AWS_ACCESS_KEY_ID=$AK AWS_SECRET_ACCESS_KEY=$SK AWS_REGION=us-east-1
export AWS_CONFIG_FILE=$WORK/config AWS_SHARED_CREDENTIALS_FILE=$WORK/credentials
: >"$WORK/config"
: >"$WORK/credentials"

mkdir -p "$DST/src"
for i in $(seq "$COUNT"); do head -c "$SIZE" /dev/urandom >"$DST/src/f$i"; done
GB=$(python3 -c "print($COUNT * $SIZE / 1e9)")

# s3c_on SCHEME ARGS...: s3c against that scheme's emulator, pinned; prints "CPU WALL".
s3c_on() {
    local scheme=$1
    shift
    local env=(AWS_ENDPOINT_URL="$(cat "$WORK/$scheme.url")")
    [ "$scheme" = https ] && env+=(AWS_CA_BUNDLE="$WORK/tls/ca.pem")
    env "${env[@]}" /usr/bin/time -f '%U %S %e' -o "$WORK/time" taskset -c "$CLIENT_CORE" "$S3C" "$@" >/dev/null
    awk '{ printf "%.3f %.3f\n", $1 + $2, $3 }' "$WORK/time"
}

for s in http https; do s3c_on $s mb s3://tls >/dev/null; done

: >"$WORK/runs"
echo "round scheme direction cpu_s wall_s cpu_s_per_gb"
for r in $(seq "$REPS"); do
    order="http https"
    [ $((r % 2)) = 0 ] && order="https http"
    for s in $order; do
        read -r cpu wall < <(s3c_on "$s" cp -r "$DST/src/" "s3://tls/r$r/")
        echo "$r $s up $cpu $wall $(python3 -c "print(round($cpu / $GB, 3))")" | tee -a "$WORK/runs"
        rm -rf "$DST/down"
        read -r cpu wall < <(s3c_on "$s" cp -r "s3://tls/r$r/" "$DST/down/")
        cmp -s "$DST/down/f1" "$DST/src/f1" || { echo "download differs ($s, round $r)" >&2; exit 1; }
        echo "$r $s down $cpu $wall $(python3 -c "print(round($cpu / $GB, 3))")" | tee -a "$WORK/runs"
        rm -rf "$DST/down"
        s3c_on "$s" rm -r --quiet "s3://tls/r$r/" >/dev/null # (the emulator keeps objects in memory)
    done
done

python3 - "$WORK/runs" "$COUNT" "$SIZE" "$REPS" <<'EOF'
import statistics, sys
runs = [l.split() for l in open(sys.argv[1])]
count, size, reps = sys.argv[2], int(sys.argv[3]), sys.argv[4]
print(f"\n{count} x {size} bytes, {reps} rounds, client CPU-s per GB (user+sys of s3c):\n")
print("| | http runs | median | https runs | median | TLS adds (medians) |")
print("|---|---|---|---|---|---|")
for d in ("up", "down"):
    v = {s: [float(r[5]) for r in runs if r[1] == s and r[2] == d] for s in ("http", "https")}
    m = {s: statistics.median(v[s]) for s in v}
    print(f"| {d} | {', '.join(f'{x:.2f}' for x in v['http'])} | {m['http']:.2f} | "
          f"{', '.join(f'{x:.2f}' for x in v['https'])} | {m['https']:.2f} | **{m['https'] - m['http']:+.2f}** |")
EOF
