#!/usr/bin/env bash
# bench/loops.sh: s3c on 1 event loop against N (issue 12, item 5). Uploads
# and downloads N_FILES small files through one s3emu, with --loops 1 and
# --loops LOOPS, REPS times each (alternating, so load bursts hit both), at
# each first-byte latency in LATENCIES. Per run: wall, user and sys CPU of
# s3c (GNU time), the requests s3emu served, and the 1-minute load average
# when it started. Prints one CSV line a run, then a markdown table of min /
# median per cell with client CPU per request (user+sys / requests).
#
#   bench/loops.sh                                   (10,000 x 8 KiB, 0 and 20 ms, loops 1 and 2, 3 reps)
#   N_FILES=2000 SIZE=8192 LATENCIES="0" REPS=1 LOOPS="1 2 4" bench/loops.sh
#   S3C=build/s3c S3EMU=build/s3emu                 (binaries)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
S3C=${S3C:-$ROOT/build/s3c}
EMU=${S3EMU:-$ROOT/build/s3emu}
N_FILES=${N_FILES:-10000}
SIZE=${SIZE:-8192}
LATENCIES=${LATENCIES:-0 20}
LOOPS=${LOOPS:-1 2}
REPS=${REPS:-3}
T=$(mktemp -d)
# shellcheck source=bench/emu-lib.sh
. "$ROOT/bench/emu-lib.sh"
bench_emu_start loops.sh

# The data: N_FILES files of SIZE random bytes, 1,000 a directory.
SRC=$T/src
python3 - "$SRC" "$N_FILES" "$SIZE" <<'PY'
import os, sys
root, n, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(n):
    d = os.path.join(root, "d%03d" % (i // 1000))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%06d" % i), "wb") as f:
        f.write(os.urandom(size))
PY

requests() { curl -s "$URL/_s3emu/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["requests"])'; }
config() { curl -s -X POST -d "$1" "$URL/_s3emu/config" >/dev/null; }

# run DIRECTION LOOPS LATENCY REP: one timed s3c run, one CSV line.
run() {
    local dir=$1 loops=$2 lat=$3 rep=$4 r0 r1 load out
    if [ "$dir" = up ]; then
        curl -s -X POST "$URL/_s3emu/reset" >/dev/null
        config "latency_ms=$lat"
        "$S3C" mb s3://bench >/dev/null 2>&1
    else
        rm -rf "$T/dst"
    fi
    sync
    load=$(cut -d' ' -f1 /proc/loadavg)
    r0=$(requests)
    if [ "$dir" = up ]; then
        /usr/bin/time -f '%e %U %S %M' -o "$T/time" "$S3C" cp -r --no-progress --only-show-errors \
            --loops "$loops" "$SRC" s3://bench/p/ >"$T/log" 2>&1
    else
        /usr/bin/time -f '%e %U %S %M' -o "$T/time" "$S3C" cp -r --no-progress --only-show-errors \
            --loops "$loops" s3://bench/p/ "$T/dst" >"$T/log" 2>&1
    fi
    out=$?
    r1=$(requests)
    if [ "$out" != 0 ]; then
        echo "loops.sh: $dir loops=$loops latency=$lat failed:" >&2
        tail -5 "$T/log" >&2
    fi
    if [ "$dir" = down ]; then
        [ "$(find "$T/dst" -type f | wc -l)" = "$N_FILES" ] || echo "loops.sh: download incomplete" >&2
        mv "$T/dst" "$T/old.$dir.$loops.$lat.$rep" # deleted after the cell (ext4 without a journal)
    fi
    read -r wall user sys rss <"$T/time"
    echo "$dir,$loops,$lat,$rep,$wall,$user,$sys,$rss,$((r1 - r0)),$load,$out"
}

echo "# s3c $("$S3C" version | head -1), $(nproc) cores, $N_FILES x $SIZE B, $(date -u '+%F %T') UTC"
echo "direction,loops,latency_ms,rep,wall_s,user_s,sys_s,rss_kb,requests,load1,exit"
for lat in $LATENCIES; do
    config "latency_ms=$lat"
    for dir in up down; do
        for rep in $(seq 1 "$REPS"); do
            for loops in $LOOPS; do
                run "$dir" "$loops" "$lat" "$rep"
            done
        done
        rm -rf "$T"/old.*
    done
done | tee "$T/csv"

python3 - "$T/csv" <<'PY'
import csv, statistics, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r and r[0] in ("up", "down")]
cells = {}
for d, loops, lat, rep, wall, user, sys_, rss, req, load, rc in rows:
    cells.setdefault((lat, d, loops), []).append((float(wall), float(user) + float(sys_), int(req), float(load), rc))
print()
print("| latency ms | direction | loops | wall s min / median | CPU s min / median | requests | CPU ms / request (median) | load1 | failed |")
print("|---|---|---|---|---|---|---|---|---|")
for (lat, d, loops), v in sorted(cells.items(), key=lambda kv: (int(kv[0][0]), kv[0][1] != "up", int(kv[0][2]))):
    walls = [x[0] for x in v]; cpus = [x[1] for x in v]; req = statistics.median(x[2] for x in v)
    print("| %s | %s | %s | %.2f / %.2f | %.2f / %.2f | %d | %.3f | %s | %d |" % (
        lat, d, loops, min(walls), statistics.median(walls), min(cpus), statistics.median(cpus), req,
        statistics.median(cpus) / req * 1000 if req else 0, " ".join("%.1f" % x[3] for x in v),
        sum(1 for x in v if x[4] != "0")))
PY
