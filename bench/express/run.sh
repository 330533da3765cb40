#!/usr/bin/env bash
# bench/express/run.sh: what S3 Express One Zone buys s3c (issue 13 item 7).
# The same transfers to and from a Standard bucket and a directory bucket
# (BASE--ZONEID--x-s3) of one s3emu with a latency model: Standard requests
# wait BENCH_LATENCY_MS (20 ms) for their first byte, Express ones a tenth of
# it (s3emu's express_latency_ms default), 90 MB/s per connection both ways.
# The AWS CLI runs beside s3c on the Standard rows only: Debian's AWS CLI
# predates Express (it would send a directory bucket's requests as plain S3).
# Each cell is timed with GNU time and checked: object count and bytes after
# an upload, every file's sha256 after a download.
#
#   bench/express/run.sh
#
# Environment (all optional):
#   BENCH_WORKLOADS="1000x1048576 1x1073741824"   COUNTxBYTES
#   BENCH_REPS=1            repetitions of every cell
#   BENCH_TOOLS="s3c s3c-c10 aws"   s3c-c10: s3c held to 10 requests in flight
#                           (the AWS CLI's default), where latency shows;
#                           aws = the AWS CLI at its defaults (Standard only)
#   BENCH_LATENCY_MS=20     Standard first-byte latency (Express: a tenth)
#   BENCH_BANDWIDTH_MBPS=90 per connection, MB/s
#   BENCH_CACHE=DIR         generated data, kept between runs
#   BENCH_OUT=DIR           results (default bench/results): DATE-express.md/.csv
#   BENCH_DL=DIR            where downloads land (default /dev/shm when it exists:
#                           tmpfs, so the disk's speed is not what is measured)
#   S3C, S3EMU, AWS         binaries (default build/s3c, build/s3emu, /usr/bin/aws)
#   BENCH_EMU_CORE=1 BENCH_CLIENT_CORE=0   the emulator and the tool each on a core of
#                           its own (taskset; empty: not pinned), so one does not take
#                           the other's CPU; the emulator's CPU per cell is reported
#
# Within a repetition the Standard and the Express cell run back to back, the
# order turning each repetition, after one untimed upload per workload (the
# emulator's first store of a workload grows its heap; that run was the
# slowest of every group of three before, whichever bucket it was).
#
# Needs GNU time (/usr/bin/time), curl, the AWS CLI v2. Loopback only.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORKLOADS=${BENCH_WORKLOADS:-"1000x1048576 1x1073741824"}
REPS=${BENCH_REPS:-1}
TOOLS=${BENCH_TOOLS:-"s3c s3c-c10 aws"}
LATENCY_MS=${BENCH_LATENCY_MS:-20}
BANDWIDTH_MBPS=${BENCH_BANDWIDTH_MBPS:-90}
CACHE=${BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/s3c-bench}
OUT=${BENCH_OUT:-$ROOT/bench/results}
S3C=${S3C:-$ROOT/build/s3c}
S3EMU=${S3EMU:-$ROOT/build/s3emu}
AWS=${AWS:-/usr/bin/aws}
GNU_TIME=/usr/bin/time
EMU_CORE=${BENCH_EMU_CORE-1}
CLIENT_CORE=${BENCH_CLIENT_CORE-0}
EMU_PIN=() CLIENT_PIN=()
[ -z "$EMU_CORE" ] || EMU_PIN=(taskset -c "$EMU_CORE")
[ -z "$CLIENT_CORE" ] || CLIENT_PIN=(taskset -c "$CLIENT_CORE")
STD=bench-standard
XPR=bench--use1-az4--x-s3

die() { echo "bench/express: $*" >&2; exit 2; }
note() { echo "bench/express: $*" >&2; }
[ -x "$GNU_TIME" ] || die "GNU time missing"
[ -x "$S3C" ] && [ -x "$S3EMU" ] || die "build s3c and s3emu first (make)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/s3c-xbench.XXXXXX")
DLBASE=${BENCH_DL:-$([ -d /dev/shm ] && echo /dev/shm || echo "$WORK")}
DL=$(mktemp -d "$DLBASE/s3c-xbench-dl.XXXXXX")
EMU_PID=
cleanup() {
    [ -z "$EMU_PID" ] || { kill "$EMU_PID" 2>/dev/null || true; wait "$EMU_PID" 2>/dev/null || true; }
    rm -rf "$WORK" "$DL"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"${EMU_PIN[@]}" "$S3EMU" --port 0 --latency-ms "$LATENCY_MS" --bandwidth-mbps "$BANDWIDTH_MBPS" >"$WORK/emu.out" 2>"$WORK/emu.err" &
EMU_PID=$!
for _ in $(seq 1 200); do grep -q '^ready ' "$WORK/emu.out" 2>/dev/null && break; sleep 0.05; done
URL=$(sed -n 's/^ready //p' "$WORK/emu.out")
case $URL in http://127.0.0.1:*) ;; *) die "s3emu did not start on loopback: $(cat "$WORK/emu.err")" ;; esac
XLAT=$(curl -sf "$URL/_s3emu/config" | jq -r '.model.express_latency_ms // -1')
[ "${XLAT%%.*}" -ge 0 ] 2>/dev/null || XLAT=$(awk -v l="$LATENCY_MS" 'BEGIN { print l / 10 }')

mkdir -p "$WORK/home/.aws"
printf '[default]\naws_access_key_id = s3emu-access\naws_secret_access_key = s3emu-secret\n' >"$WORK/home/.aws/credentials"
printf '[default]\nregion = us-east-1\n' >"$WORK/home/.aws/config"
ENV=(env -i PATH=/usr/bin:/bin LANG=C.UTF-8 HOME="$WORK/home")
s3c_admin() { "${ENV[@]}" "$S3C" --endpoint-url "$URL" "$@"; }

# dataset COUNT BYTES -> DATA (a tree of COUNT files, 1,000 a directory) and SUMS (their sha256)
dataset() {
    local d="$CACHE/express-${1}x${2}"
    DATA=$d/tree SUMS=$d/sums
    [ -f "$d/complete" ] && return 0
    note "generating $1 x $2 bytes into $d"
    rm -rf "$d"; mkdir -p "$DATA"
    local i
    for ((i = 0; i < $1; i++)); do
        mkdir -p "$DATA/d$((i / 1000))"
        head -c "$2" /dev/urandom >"$DATA/d$((i / 1000))/f$i"
    done
    (cd "$DATA" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) >"$SUMS"
    touch "$d/complete"
}

CSV=$WORK/results.csv
echo "workload,direction,bucket,tool,rep,status,wall_s,cpu_s,peak_rss_kb,requests,create_sessions,load1,note,emu_cpu_s" >"$CSV"
HZ=$(getconf CLK_TCK)
emu_ticks() { awk '{ print $14 + $15 }' "/proc/$EMU_PID/stat"; }

# cell WL COUNT BYTES DIR KIND(standard|express) TOOL REP
cell() {
    local wl=$1 count=$2 bytes=$3 dir=$4 kind=$5 tool=$6 rep=$7 b s3url from to st=ok why="" rc
    b=$([ "$kind" = express ] && echo "$XPR" || echo "$STD")
    s3url="s3://$b/p/"
    if [ "$dir" = up ]; then
        s3c_admin rm --recursive "$s3url" >/dev/null 2>&1 || true
        from=$DATA to=$s3url
    else
        rm -rf "$DL"; mkdir -p "$DL"
        from=$s3url to=$DL
    fi
    case $tool in
        s3c) CMD=("${ENV[@]}" "${CLIENT_PIN[@]}" "$S3C" --endpoint-url "$URL" cp --recursive --no-progress "$from" "$to") ;;
        s3c-c10) CMD=("${ENV[@]}" "${CLIENT_PIN[@]}" "$S3C" --endpoint-url "$URL" cp --recursive --no-progress --concurrency 10 "$from" "$to") ;;
        aws) CMD=("${ENV[@]}" "${CLIENT_PIN[@]}" "$AWS" --endpoint-url "$URL" s3 cp --recursive --only-show-errors "$from" "$to") ;;
    esac
    local s0 s1 load e0 e1
    s0=$(curl -sf "$URL/_s3emu/stats")
    e0=$(emu_ticks)
    sync
    load=$(cut -d' ' -f1 /proc/loadavg)
    set +e
    "$GNU_TIME" -f '%e %U %S %M' -o "$WORK/time" "${CMD[@]}" >"$WORK/log" 2>&1
    rc=$?
    set -e
    e1=$(emu_ticks)
    s1=$(curl -sf "$URL/_s3emu/stats")
    local wall user sys rss
    read -r wall user sys rss < <(tail -n 1 "$WORK/time")
    if [ $rc != 0 ]; then
        st=fail why="exit $rc: $(head -c 160 "$WORK/log" | tr ',\n' '; ')"
    elif [ "$dir" = up ]; then
        local sum
        sum=$(s3c_admin ls --recursive --summarize "$s3url" | sed -n 's/^ *Total \(Objects\|Size\): *//p' | xargs)
        [ "$sum" = "$count $((count * bytes))" ] || st=wrong why="store holds $sum"
    else
        (cd "$DL" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) >"$WORK/got"
        cmp -s "$WORK/got" "$SUMS" || st=wrong why="sha256 of the tree differs"
    fi
    local req ses
    req=$(( $(jq .requests <<<"$s1") - $(jq .requests <<<"$s0") ))
    ses=$(( $(jq '.ops.CreateSession // 0' <<<"$s1") - $(jq '.ops.CreateSession // 0' <<<"$s0") ))
    echo "$wl,$dir,$kind,$tool,$rep,$st,$wall,$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u+s}'),$rss,$req,$ses,$load,$why,$(awk -v t=$((e1 - e0)) -v hz="$HZ" 'BEGIN{printf "%.2f", t/hz}')" >>"$CSV"
    note "$(printf '%-14s %-4s %-8s %-4s rep %s: %-5s wall %7ss req %6s sessions %s %s' "$wl" "$dir" "$kind" "$tool" "$rep" "$st" "$wall" "$req" "$ses" "$why")"
}

s3c_admin mb "s3://$STD" >/dev/null
s3c_admin mb "s3://$XPR" >/dev/null
for w in $WORKLOADS; do
    count=${w%x*} bytes=${w#*x}
    dataset "$count" "$bytes"
    wl="${count}x$(awk -v b="$bytes" 'BEGIN { split("B KiB MiB GiB", u, " "); i = 1; while (b >= 1024 && i < 4) { b /= 1024; i++ } printf "%d%s", b, u[i] }')"
    # warm-up: the emulator's heap grows to hold the workload once, untimed
    "${ENV[@]}" "$S3C" --endpoint-url "$URL" cp --recursive --no-progress "$DATA" "s3://$STD/warm/" >/dev/null
    s3c_admin rm --recursive "s3://$STD/warm/" >/dev/null
    for dir in up down; do
        if [ "$dir" = down ]; then
            # Both buckets' objects written by s3c (CRC64NVME stored), untimed: the last upload cell
            # may be the AWS CLI's (an MD5 ETag only), and checking an MD5 costs a download about
            # 1 CPU-s/GB more than a CRC (issue 24 item 4), which would be compared, not the buckets.
            for bk in "$STD" "$XPR"; do
                s3c_admin rm --recursive "s3://$bk/p/" >/dev/null 2>&1 || true
                "${ENV[@]}" "$S3C" --endpoint-url "$URL" cp --recursive --no-progress "$DATA" "s3://$bk/p/" >/dev/null
            done
        fi
        for tool in $TOOLS; do
            for ((rep = 1; rep <= REPS; rep++)); do
                kinds="standard express"
                [ $((rep % 2)) = 0 ] && kinds="express standard"
                for kind in $kinds; do
                    [ "$tool" = aws ] && [ "$kind" = express ] && continue
                    cell "$wl" "$count" "$bytes" "$dir" "$kind" "$tool" "$rep"
                done
            done
        done
    done
done

mkdir -p "$OUT"
base="$OUT/$(date +%F)-express"
cp "$CSV" "$base.csv"
{
    echo "# S3 Express vs Standard on s3emu ($(date +%F))"
    echo
    echo "s3emu: Standard first byte ${LATENCY_MS} ms, Express ${XLAT} ms; ${BANDWIDTH_MBPS} MB/s per connection;"
    echo "$(nproc) CPUs; emulator pinned to core ${EMU_CORE:-none}, the tool to core ${CLIENT_CORE:-none}. \`cp --recursive\` of the whole tree; one row per run ($REPS each)."
    echo "Tools: s3c $("$S3C" version 2>/dev/null | head -n 1 | awk '{print $2}'), $("$AWS" --version 2>&1 | cut -d' ' -f1) (defaults; Standard only)."
    echo
    echo "Downloads land in $DLBASE. Summary: min / median wall over the repetitions, CPU at the median row."
    echo
    echo "| workload | direction | bucket | tool | wall min s | wall median s | CPU s | runs ok |"
    echo "|---|---|---|---|---:|---:|---:|---:|"
    awk -F, 'NR > 1 { k = $1 "|" $2 "|" $3 "|" $4; n[k]++; w[k, n[k]] = $7; c[k, n[k]] = $8; if ($6 == "ok") ok[k]++; if (!(k in seen)) { seen[k] = 1; order[++m] = k } }
        END { for (i = 1; i <= m; i++) { k = order[i]; c0 = n[k]
                for (a = 1; a <= c0; a++) for (b = a + 1; b <= c0; b++) if (w[k, b] + 0 < w[k, a] + 0) { t = w[k, a]; w[k, a] = w[k, b]; w[k, b] = t; t = c[k, a]; c[k, a] = c[k, b]; c[k, b] = t }
                mid = int((c0 + 1) / 2); split(k, f, "|")
                printf "| %s | %s | %s | %s | %s | %s | %s | %d/%d |\n", f[1], f[2], f[3], f[4], w[k, 1], w[k, mid], c[k, mid], ok[k], c0 } }' "$CSV"
    echo
    echo "Every run:"
    echo
    echo "| workload | direction | bucket | tool | rep | wall s | CPU s | emulator CPU s | peak RSS MB | requests | CreateSession | load1 | status |"
    echo "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    awk -F, 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %.0f | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $7, $8, $14, $9 / 1024, $10, $11, $12, $6 }' "$CSV"
} >"$base.md"
note "results: $base.md"
cat "$base.md"
