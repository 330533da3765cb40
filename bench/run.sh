#!/usr/bin/env bash
# bench/run.sh: s3c against its peers (the AWS CLI at its defaults and tuned,
# rclone at its defaults and with 64 transfers) on the workloads of issue 4
# item 9, against s3emu with a latency model (20 ms first byte, 90 MB/s per
# connection). Every cell is an upload (local tree -> s3://bench/p/) or a
# download (s3://bench/p/ -> empty local dir), timed with GNU time (wall, user,
# sys, peak RSS), verified (object/file count and bytes; sha256 of a sample
# after a download), and repeated. Writes a markdown table and the raw CSV.
#
#   bench/run.sh                   full: 10,000 x 8 KiB, 2,000 x 256 KiB,
#                                  32 x 32 MiB, 2 x 1 GiB; 3 repetitions
#   BENCH_QUICK=1 bench/run.sh     CI-sized: smaller counts, 1 repetition (< 3 min)
#
# Environment (all optional):
#   BENCH_REPS=N             repetitions of every cell (default 3; quick: 1)
#   BENCH_WORKLOADS="..."    COUNTxBYTES list (default "10000x8192 2000x262144
#                            32x33554432 2x1073741824")
#   BENCH_TOOLS="..."        subset of: s3c aws aws-tuned rclone rclone-64
#   BENCH_DIRECTIONS="..."   subset of: up down
#   BENCH_CACHE=DIR          generated data sets, kept between runs
#                            (default ${XDG_CACHE_HOME:-~/.cache}/s3c-bench)
#   BENCH_OUT=DIR            results directory (default bench/results)
#   BENCH_TAG=NAME           results are DIR/DATE-NAME.md and .csv
#                            (default emu-latency20, quick: emu-latency20-quick)
#   BENCH_TIMEOUT=S          limit of one run (default 900 s; a timeout is a failure)
#   BENCH_LATENCY_MS=20      emulator first-byte latency
#   BENCH_BANDWIDTH_MBPS=90  emulator per-connection cap, MB/s (10^6 B/s) each way
#   BENCH_KEEP=1             keep the scratch directory (logs of every run)
#   BENCH_PRIOR_CSV=FILE     also report the rows of an earlier run's CSV for the
#                            workload/direction cells this run does not measure
#                            (to redo some cells after a failure); the report says so
#   S3C, S3EMU, AWS, RCLONE  binaries (default: build/s3c and build/s3emu of
#                            this tree, /usr/bin/aws, rclone on PATH)
#
# Needs: GNU time (/usr/bin/time, Debian package "time"), curl, python3,
# the AWS CLI v2 (Debian "awscli") and rclone. Loopback only.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")

QUICK=${BENCH_QUICK:-0}
if [ "$QUICK" = 1 ]; then
    REPS=${BENCH_REPS:-1}
    WORKLOADS=${BENCH_WORKLOADS:-"1000x8192 200x262144 4x33554432 1x134217728"}
    TAG=${BENCH_TAG:-emu-latency20-quick}
else
    REPS=${BENCH_REPS:-3}
    WORKLOADS=${BENCH_WORKLOADS:-"10000x8192 2000x262144 32x33554432 2x1073741824"}
    TAG=${BENCH_TAG:-emu-latency20}
fi
TOOLS=${BENCH_TOOLS:-"s3c aws aws-tuned rclone rclone-64"}
DIRECTIONS=${BENCH_DIRECTIONS:-"up down"}
CACHE=${BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/s3c-bench}
OUT=${BENCH_OUT:-$HERE/results}
TIMEOUT=${BENCH_TIMEOUT:-900}
LATENCY_MS=${BENCH_LATENCY_MS:-20}
BANDWIDTH_MBPS=${BENCH_BANDWIDTH_MBPS:-90}
S3C=${S3C:-$ROOT/build/s3c}
S3EMU=${S3EMU:-$ROOT/build/s3emu}
AWS=${AWS:-/usr/bin/aws}
RCLONE=${RCLONE:-$(command -v rclone || echo /usr/bin/rclone)}
GNU_TIME=/usr/bin/time
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
BUCKET=bench
PREFIX=p

die() { echo "bench: $*" >&2; exit 2; }
note() { echo "bench: $*" >&2; }

[ -x "$GNU_TIME" ] || die "GNU time missing: apt-get install time"
"$GNU_TIME" -f %e true 2>/dev/null || die "$GNU_TIME is not GNU time"
[ -x "$S3C" ] || die "no s3c at $S3C (run make)"
[ -x "$S3EMU" ] || die "no s3emu at $S3EMU (build it, or set S3EMU)"
for t in $TOOLS; do
    case $t in
        s3c) ;;
        aws|aws-tuned) [ -x "$AWS" ] || die "no AWS CLI at $AWS" ;;
        rclone|rclone-64) [ -x "$RCLONE" ] || die "no rclone at $RCLONE" ;;
        *) die "unknown tool '$t'" ;;
    esac
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/s3c-bench.XXXXXX")
EMU_PID=
cleanup() {
    if [ -n "$EMU_PID" ]; then
        kill "$EMU_PID" 2>/dev/null || true
        wait "$EMU_PID" 2>/dev/null || true
    fi
    if [ "${BENCH_KEEP:-0}" = 1 ]; then note "scratch kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the emulator ------------------------------------------------------------

"$S3EMU" --port 0 --latency-ms "$LATENCY_MS" --bandwidth-mbps "$BANDWIDTH_MBPS" \
    >"$WORK/emu.out" 2>"$WORK/emu.err" &
EMU_PID=$!
for _ in $(seq 1 200); do
    grep -q '^ready ' "$WORK/emu.out" 2>/dev/null && break
    kill -0 "$EMU_PID" 2>/dev/null || break
    sleep 0.05
done
URL=$(sed -n 's/^ready //p' "$WORK/emu.out")
[ -n "$URL" ] || die "s3emu did not start: $(cat "$WORK/emu.err")"
case $URL in http://127.0.0.1:*|http://localhost:*|http://\[::1\]:*) ;; *) die "not loopback: $URL" ;; esac

HZ=$(getconf CLK_TCK)
emu_stats() { curl -sf "$URL/_s3emu/stats"; }
emu_cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$EMU_PID/stat"; }
emu_field() { # JSON FIELD -> number (top-level numeric field)
    sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p" <<<"$1"
}

# ---- isolated homes: credentials and config for each tool ---------------------

mkdir -p "$WORK/home-default/.aws" "$WORK/home-tuned/.aws"
for h in home-default home-tuned; do
    printf '[default]\naws_access_key_id = s3emu-access\naws_secret_access_key = s3emu-secret\n' \
        >"$WORK/$h/.aws/credentials"
done
printf '[default]\nregion = us-east-1\n' >"$WORK/home-default/.aws/config"
cat >"$WORK/home-tuned/.aws/config" <<'EOF'
[default]
region = us-east-1
s3 =
  max_concurrent_requests = 64
  multipart_threshold = 1GB
  multipart_chunksize = 256MB
EOF

# Every tool runs under env -i: nothing leaks from the caller's environment
# (AWS_CA_BUNDLE breaks rclone; AWS_PROFILE or AWS_CONFIG_FILE would change
# the AWS CLI's settings).
BASE_ENV=(PATH=/usr/bin:/bin LANG=C.UTF-8)
RCLONE_ENV=(RCLONE_CONFIG_EMU_TYPE=s3 RCLONE_CONFIG_EMU_PROVIDER=Other
    RCLONE_CONFIG_EMU_ENDPOINT="$URL" RCLONE_CONFIG_EMU_FORCE_PATH_STYLE=true
    RCLONE_CONFIG_EMU_ACCESS_KEY_ID=s3emu-access RCLONE_CONFIG_EMU_SECRET_ACCESS_KEY=s3emu-secret
    RCLONE_CONFIG_EMU_REGION=us-east-1)

# tool_cmd TOOL DIRECTION SRC DST -> sets CMD (argv, starting with env -i)
tool_cmd() {
    local tool=$1 dir=$2 src=$3 dst=$4 s3url="s3://$BUCKET/$PREFIX/"
    local rurl="emu:$BUCKET/$PREFIX"
    local from to
    case $tool in
        s3c|aws|aws-tuned)
            if [ "$dir" = up ]; then from=$src; to=$s3url; else from=$s3url; to=$dst; fi ;;
        rclone*)
            if [ "$dir" = up ]; then from=$src; to=$rurl; else from=$rurl; to=$dst; fi ;;
    esac
    case $tool in
        s3c) CMD=(env -i "${BASE_ENV[@]}" HOME="$WORK/home-default"
                  "$S3C" --endpoint-url "$URL" cp --recursive "$from" "$to") ;;
        aws) CMD=(env -i "${BASE_ENV[@]}" HOME="$WORK/home-default"
                  "$AWS" --endpoint-url "$URL" s3 cp --recursive "$from" "$to") ;;
        aws-tuned) CMD=(env -i "${BASE_ENV[@]}" HOME="$WORK/home-tuned"
                  "$AWS" --endpoint-url "$URL" s3 cp --recursive "$from" "$to") ;;
        rclone) CMD=(env -i "${BASE_ENV[@]}" HOME="$WORK/home-default" "${RCLONE_ENV[@]}"
                  "$RCLONE" copy "$from" "$to") ;;
        rclone-64) CMD=(env -i "${BASE_ENV[@]}" HOME="$WORK/home-default" "${RCLONE_ENV[@]}"
                  "$RCLONE" copy --transfers 64 --checkers 64 "$from" "$to") ;;
    esac
}

# The same commands with this machine's paths replaced, for the report.
tool_cmd_text() {
    local tool=$1 dir=$2
    tool_cmd "$tool" "$dir" SRC_DIR DST_DIR
    local a out="" skip=1
    for a in "${CMD[@]}"; do
        # drop "env -i VAR=..." prefix; show the program by its name
        if [ $skip = 1 ]; then
            case $a in env|-i|*=*) continue ;; esac
            skip=0
            a=$(basename "$a")
        fi
        a=${a//$URL/\$URL}
        out+="$a "
    done
    echo "${out% }"
}

s3c_admin() { # s3c as the harness's own helper (untimed)
    env -i "${BASE_ENV[@]}" HOME="$WORK/home-default" "$S3C" --endpoint-url "$URL" "$@"
}

bucket_reset() { # empty the store and recreate the bucket
    curl -sf -X POST "$URL/_s3emu/reset" >/dev/null
    s3c_admin mb "s3://$BUCKET" >/dev/null
}

# ---- data sets ----------------------------------------------------------------

# dataset COUNT BYTES -> sets DATA (the tree) and MANIFEST (sha256sum -c file of
# a sample); generated once into the cache. Files are d%03d/f%06d, 1000 a
# directory, from /dev/urandom (incompressible, all distinct).
dataset() {
    local count=$1 bytes=$2 d="$CACHE/${1}x${2}"
    DATA=$d/tree
    MANIFEST=$d/sample.sha256
    if [ -f "$d/complete" ]; then return 0; fi
    note "generating $count x $bytes bytes into the cache"
    rm -rf "$d"
    mkdir -p "$DATA"
    "$PY" - "$DATA" "$count" "$bytes" <<'PY'
import os, sys
root, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
chunk = 1 << 20
for i in range(count):
    d = os.path.join(root, "d%03d" % (i // 1000))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%06d" % i), "wb") as f:
        left = size
        while left:
            n = min(left, chunk)
            f.write(os.urandom(n))
            left -= n
PY
    # sample: every file up to 8, else 8 spread evenly (first and last included)
    (cd "$DATA" && find . -type f | LC_ALL=C sort | awk -v n="$count" '
        n <= 8 || (NR - 1) % int((n - 1) / 7) == 0 || NR == n' | head -n 9 |
        xargs sha256sum) >"$MANIFEST"
    touch "$d/complete"
}

tree_count_bytes() { # DIR -> "files bytes" (regular files only)
    find "$1" -type f -printf '%s\n' | awk '{ n++; b += $1 } END { printf "%d %.0f\n", n, b }'
}

# verify_up COUNT TOTAL -> "" if the prefix holds COUNT objects of TOTAL bytes
verify_up() {
    local want_n=$1 want_b=$2 out n b keys
    out=$(s3c_admin ls --recursive --summarize "s3://$BUCKET/$PREFIX/" 2>&1) || {
        echo "listing failed"; return; }
    n=$(sed -n 's/^ *Total Objects: *//p' <<<"$out")
    b=$(sed -n 's/^ *Total Size: *//p' <<<"$out")
    keys=$(emu_field "$(emu_stats)" keys)
    if [ "$n" != "$want_n" ] || [ "$b" != "$want_b" ] || [ "$keys" != "$want_n" ]; then
        echo "store holds $n objects ($keys keys), $b bytes; want $want_n, $want_b"
    fi
}

# verify_down DIR COUNT TOTAL -> "" if DIR holds exactly the data set
verify_down() {
    local dir=$1 want_n=$2 want_b=$3 got
    got=$(tree_count_bytes "$dir")
    if [ "$got" != "$want_n $want_b" ]; then
        echo "local tree has ${got% *} files, ${got#* } bytes; want $want_n, $want_b"
        return
    fi
    if ! (cd "$dir" && sha256sum --quiet -c "$MANIFEST" >/dev/null 2>&1); then
        echo "sha256 of a sample differs"
    fi
}

# ---- one timed run --------------------------------------------------------------

CSV=$WORK/results.csv
echo "workload,files,file_bytes,direction,tool,rep,status,wall_s,user_s,sys_s,cpu_s,peak_rss_kb,emu_requests,emu_connections,emu_cpu_s,load1,note" >"$CSV"

# run_cell WLABEL COUNT BYTES DIRECTION TOOL REP
run_cell() {
    local wl=$1 count=$2 bytes=$3 dir=$4 tool=$5 rep=$6
    local total=$((count * bytes)) dst="$WORK/dl" log="$WORK/logs/$wl-$dir-$tool-$rep.log"
    local tf="$WORK/time.out" rc status="ok" why="" s0 s1 c0 c1 load
    mkdir -p "$WORK/logs"
    if [ "$dir" = up ]; then
        bucket_reset
    else
        rm -rf "$dst"
        mkdir -p "$dst"
    fi
    tool_cmd "$tool" "$dir" "$DATA" "$dst"
    sync
    load=$(cut -d' ' -f1 /proc/loadavg)
    s0=$(emu_stats); c0=$(emu_cpu_ticks)
    rm -f "$tf"
    set +e
    timeout -k 10 "$TIMEOUT" "$GNU_TIME" -f '%e %U %S %M' -o "$tf" "${CMD[@]}" >"$log" 2>&1
    rc=$?
    set -e
    s1=$(emu_stats); c1=$(emu_cpu_ticks)
    local wall="" user="" sys="" rss=""
    if [ -s "$tf" ]; then read -r wall user sys rss < <(tail -n 1 "$tf"); fi
    if [ $rc = 124 ] || [ $rc = 137 ]; then
        status=timeout; why="no result in ${TIMEOUT} s"
    elif [ $rc != 0 ]; then
        status=fail
        why="exit $rc: $(grep -v '^\(upload\|download\|copy\|Completed\)' "$log" | grep -m1 -i 'error\|fail\|exception' |
            cut -c1-160 | tr ',"\n' ';  ')"
    else
        if [ "$dir" = up ]; then why=$(verify_up "$count" "$total"); else why=$(verify_down "$dst" "$count" "$total"); fi
        [ -z "$why" ] || status=wrong
    fi
    local req conns
    req=$(( $(emu_field "$s1" requests) - $(emu_field "$s0" requests) ))
    conns=$(( $(emu_field "$s1" connections) - $(emu_field "$s0" connections) ))
    local emu_cpu cpu
    emu_cpu=$(awk -v a="$c0" -v b="$c1" -v hz="$HZ" 'BEGIN { printf "%.2f", (b - a) / hz }')
    cpu=$(awk -v u="${user:-0}" -v s="${sys:-0}" 'BEGIN { printf "%.2f", u + s }')
    echo "$wl,$count,$bytes,$dir,$tool,$rep,$status,$wall,$user,$sys,$cpu,$rss,$req,$conns,$emu_cpu,$load,${why//,/;}" >>"$CSV"
    note "$(printf '%-14s %-4s %-9s rep %s: %-7s wall %6ss cpu %6ss rss %7s KB  req %6s conns %4s emu-cpu %5ss %s' \
        "$wl" "$dir" "$tool" "$rep" "$status" "$wall" "$cpu" "$rss" "$req" "$conns" "$emu_cpu" "$why")"
    if [ "$dir" = down ]; then retire "$dst" "$count"; fi
}

# retire DIR COUNT: a finished download directory goes. One of many files is
# only renamed aside here, and deleted with the others after the workload:
# on ext4 without a journal (these machines' disks) each file created within
# a minute of thousands being deleted costs ~250 us of kernel time (the inode
# allocator skips recently deleted inodes: recently_deleted()), so deleting
# run N's tree just before run N+1 would time that rm, not the tool.
retire() {
    if [ "$2" -ge 1000 ]; then
        mkdir -p "$WORK/old"
        mv "$1" "$WORK/old/$(date +%s%N)"
    else
        rm -rf "$1"
    fi
}

human() { # bytes -> "8 KiB", "1 GiB"
    awk -v b="$1" 'BEGIN { split("B KiB MiB GiB TiB", u, " "); i = 1;
        while (b >= 1024 && b % 1024 == 0 && i < 5) { b /= 1024; i++ } printf "%d %s", b, u[i] }'
}

# ---- the run --------------------------------------------------------------------

START_UTC=$(date -u '+%Y-%m-%d %H:%M:%S')
DAY=$(date -u +%F)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
note "emulator at $URL; load average $LOAD_START; $REPS repetition(s); tools: $TOOLS"

for w in $WORKLOADS; do
    count=${w%x*}; bytes=${w#*x}
    dataset "$count" "$bytes"
done

for w in $WORKLOADS; do
    count=${w%x*}; bytes=${w#*x}
    wl="${count} x $(human "$bytes")"
    wl=${wl// /_}
    dataset "$count" "$bytes"
    for dir in $DIRECTIONS; do
        if [ "$dir" = down ]; then
            # The download source: the data set, uploaded once by s3c (untimed)
            # and checked; the AWS CLI seeds it if s3c cannot.
            bucket_reset
            tool_cmd s3c up "$DATA" ""
            if ! "${CMD[@]}" >"$WORK/seed.log" 2>&1 || [ -n "$(verify_up "$count" $((count * bytes)))" ]; then
                note "seeding with s3c failed; seeding with the AWS CLI"
                bucket_reset
                tool_cmd aws-tuned up "$DATA" ""
                "${CMD[@]}" >"$WORK/seed.log" 2>&1 || die "cannot seed $wl: $(tail -n 3 "$WORK/seed.log")"
            fi
        fi
        # Repetition-major, so a burst of load on the machine hits every tool.
        for rep in $(seq 1 "$REPS"); do
            for tool in $TOOLS; do
                run_cell "$wl" "$count" "$bytes" "$dir" "$tool" "$rep"
            done
        done
    done
    rm -rf "$WORK/old" # the retired downloads (see retire)
done

LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
END_UTC=$(date -u '+%Y-%m-%d %H:%M:%S')

# ---- the report -------------------------------------------------------------------

mkdir -p "$OUT"
MD="$OUT/$DAY-$TAG.md"
PRIOR_NOTE=""
if [ -n "${BENCH_PRIOR_CSV:-}" ]; then
    # keep the earlier rows of every workload/direction this run did not measure
    "$PY" - "$BENCH_PRIOR_CSV" "$CSV" >"$WORK/merged.csv" <<'PY'
import csv, sys
prior = list(csv.DictReader(open(sys.argv[1], newline="")))
new = list(csv.DictReader(open(sys.argv[2], newline="")))
fields = list(csv.DictReader(open(sys.argv[2], newline="")).fieldnames)
done = {(r["workload"], r["direction"]) for r in new}
w = csv.DictWriter(sys.stdout, fieldnames=fields, lineterminator="\n")
w.writeheader()
kept = [r for r in prior if (r["workload"], r["direction"]) not in done]
# the earlier run's cells first, in their order, then this run's
for r in kept + new:
    w.writerow({k: r.get(k, "") for k in fields})
PY
    PRIOR_NOTE=$("$PY" - "$BENCH_PRIOR_CSV" "$CSV" <<'PY'
import csv, sys
prior = list(csv.DictReader(open(sys.argv[1], newline="")))
new = list(csv.DictReader(open(sys.argv[2], newline="")))
done = {(r["workload"], r["direction"]) for r in new}
cells = []
for r in prior:
    k = (r["workload"].replace("_", " "), r["direction"])
    if (r["workload"], r["direction"]) not in done and k not in cells:
        cells.append(k)
print(", ".join("%s %s" % c for c in cells))
PY
)
    cp "$WORK/merged.csv" "$CSV"
fi
cp "$CSV" "$OUT/$DAY-$TAG.csv"

{
    echo "# s3c benchmark: s3emu, ${LATENCY_MS} ms first byte, ${BANDWIDTH_MBPS} MB/s per connection"
    echo
    echo "Produced by \`bench/run.sh\`$( [ "$QUICK" = 1 ] && echo ' (BENCH_QUICK=1)'), $START_UTC to $END_UTC UTC."
    echo "Raw numbers: [\`$DAY-$TAG.csv\`]($DAY-$TAG.csv)."
    if [ -n "$PRIOR_NOTE" ]; then
        echo
        echo "Merged: the cells $PRIOR_NOTE come from an earlier run (\`BENCH_PRIOR_CSV\`, same harness,"
        echo "same machine and day; its load is in the CSV's \`load1\` column). ${BENCH_PRIOR_NOTE:-}"
    fi
    echo
    echo "## Machine"
    echo
    echo "- CPU: $(nproc) cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), memory $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), Linux $(uname -r), $(. /etc/os-release && echo "$PRETTY_NAME")"
    echo "- Load average (1, 5, 15 min) at start: $LOAD_START; at end: $LOAD_END. The machine is shared:"
    echo "  other builds and tests ran during the benchmark; the \`load1\` column of the CSV has it for every run."
    echo "- s3c: $("$S3C" version 2>/dev/null | head -n 1), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD -- src 2>/dev/null || echo ' (+ local changes)')"
    echo "- s3emu: commit $(git -C "$(dirname "$S3EMU")/.." rev-parse --short HEAD 2>/dev/null || echo unknown), model: \`$(sed -n 's/.*"model":\({[^}]*}\).*/\1/p' <<<"$(emu_stats)")\`"
    echo "- AWS CLI: $("$AWS" --version 2>&1 | head -n 1)"
    echo "- rclone: $("$RCLONE" version 2>/dev/null | head -n 1)"
    echo "- GNU time measures each client: wall seconds, user+sys CPU seconds, peak RSS (max resident set size)."
    echo
    echo "## Results"
    echo
    "$PY" "$HERE/report.py" "$CSV" "$TOOLS"
    echo
    echo "## Method"
    echo
    echo "- Emulator: \`s3emu --port 0 --latency-ms $LATENCY_MS --bandwidth-mbps $BANDWIDTH_MBPS\` (in memory, SigV4 on;"
    echo "  the bandwidth cap is per connection, each way, in 10^6 bytes/s). \`\$URL\` is its loopback address."
    echo "- Data: files of random bytes in a tree \`d000/f000000 …\` (1,000 files a directory), generated once; sizes are"
    echo "  powers of two (KiB, MiB, GiB). The page cache holds the sources (24 GiB of memory)."
    echo "- Each upload starts from an empty store (\`POST /_s3emu/reset\`, then \`s3c mb\`) and is checked by listing"
    echo "  (object count and total bytes, and the emulator's key count). Each download goes to a new empty directory"
    echo "  from a prefix that s3c uploaded (untimed) and is checked by file count, total bytes and the sha256 of up to"
    echo "  9 files spread over the tree. \`sync\` runs before every timed run. A failed, wrong or timed-out run"
    echo "  (limit ${TIMEOUT} s) is reported as such, never as a time."
    echo "- $REPS repetition(s) of each cell, repetition-major (every tool once, then every tool again), so load"
    echo "  bursts spread over all tools. Wall: min / median; ratio: the tool's median wall over s3c's (above 1: s3c"
    echo "  is faster); CPU: median user+sys; RSS: the largest peak over the repetitions."
    echo "- Every tool runs under \`env -i\` with its own HOME, keys in \`~/.aws/credentials\`, \`region = us-east-1\`."
    echo "  The tuned AWS CLI's \`~/.aws/config\` adds:"
    echo
    echo '  ```'
    sed -n '/^s3 =/,$p' "$WORK/home-tuned/.aws/config" | sed 's/^/  /'
    echo '  ```'
    echo
    echo "  rclone's remote \`emu\` is set by environment: \`RCLONE_CONFIG_EMU_TYPE=s3 RCLONE_CONFIG_EMU_PROVIDER=Other"
    echo "  RCLONE_CONFIG_EMU_ENDPOINT=\$URL RCLONE_CONFIG_EMU_FORCE_PATH_STYLE=true RCLONE_CONFIG_EMU_REGION=us-east-1\`"
    echo "  and the two key variables."
    echo "- Not run: the AWS CLI's CRT client (it connects only to ports 80 and 443, whatever \`--endpoint-url\` says),"
    echo "  s3cmd (one transfer at a time)."
    echo
    echo "Commands (SRC_DIR: the data set; DST_DIR: an empty directory):"
    echo
    echo '```'
    for tool in $TOOLS; do
        for dir in up down; do
            printf '%-9s %-4s %s\n' "$tool" "$dir" "$(tool_cmd_text "$tool" "$dir")"
        done
    done
    echo '```'
} >"$MD"

note "wrote $MD and $OUT/$DAY-$TAG.csv"
cat "$MD"
