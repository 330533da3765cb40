#!/usr/bin/env bash
# bench/noclobber.sh: what -n costs (issue 24, item 1). N_FILES files of SIZE
# bytes at LATENCY ms first-byte latency (s3emu), cp -r with and without -n,
# alternating, REPS times each, in four cells: upload to an empty prefix
# ("new") and over the same tree again ("exist": without -n every file is
# written again, with -n every PutObject gets its 412), and the same S3 to S3.
# Per run: wall, user and sys CPU of s3c (GNU time) and the HeadObject,
# PutObject, CopyObject and ListObjectsV2 requests s3emu served; then the
# medians per cell.
#
#   bench/noclobber.sh                          (2,000 x 8 KiB, 20 ms, 3 reps)
#   N_FILES=500 LATENCY=0 REPS=5 bench/noclobber.sh
#   S3C=build/s3c S3EMU=build/s3emu             (binaries)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
: "${S3C:=$ROOT/build/s3c}" "${S3EMU:=$ROOT/build/s3emu}" "${N_FILES:=2000}" "${SIZE:=8192}" "${LATENCY:=20}" "${REPS:=3}"
EMU=$S3EMU
T=$(mktemp -d)
# shellcheck source=bench/emu-lib.sh
. "$ROOT/bench/emu-lib.sh"
bench_emu_start noclobber.sh --latency-ms "$LATENCY"
mkdir -p "$T/src"
for i in $(seq 1 "$N_FILES"); do head -c "$SIZE" /dev/urandom >"$T/src/f$i"; done
if ! "$S3C" mb s3://nc-src >/dev/null || ! "$S3C" cp -r --only-show-errors "$T/src" s3://nc-src/ >/dev/null; then
    echo "noclobber.sh: seeding failed" >&2
    exit 1
fi

ops() { curl -s "$URL/_s3emu/stats" | jq -r "[.ops.HeadObject // 0, .ops.PutObject // 0, .ops.CopyObject // 0, .ops.ListObjectsV2 // 0] | @csv"; }

# run KIND FLAG DST REP: one timed cp -r (KIND up or copy), one CSV line per its two cells.
run() {
    local kind=$1 flag=$2 b=$3 rep=$4 src cell
    [ "$kind" = up ] && src=$T/src || src=s3://nc-src/
    "$S3C" mb "s3://$b" >/dev/null
    for cell in new exist; do
        curl -s -X DELETE "$URL/_s3emu/stats" >/dev/null
        # shellcheck disable=SC2086  # $flag is empty or -n
        /usr/bin/time -f '%e,%U,%S' -o "$T/time" "$S3C" cp -r --no-progress --only-show-errors $flag \
            "$src" "s3://$b/p/" >"$T/log" 2>&1 || { echo "noclobber.sh: $kind $flag failed" >&2; tail -3 "$T/log" >&2; }
        echo "$kind,$cell,${flag:-none},$rep,$(cat "$T/time"),$(ops)"
    done
}

echo "# s3c $("$S3C" version | head -1), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), $N_FILES x $SIZE B, ${LATENCY} ms, $(date -u '+%F %T') UTC"
echo "kind,cell,flag,rep,wall_s,user_s,sys_s,heads,puts,copies,lists"
for rep in $(seq 1 "$REPS"); do
    for kind in up copy; do
        run "$kind" "" "nc-$kind-plain-$rep" "$rep"
        run "$kind" -n "nc-$kind-n-$rep" "$rep"
    done
done | tee "$T/csv"

python3 - "$T/csv" <<'PY'
import csv, statistics, sys
cells = {}
for r in csv.reader(open(sys.argv[1])):
    if r and r[0] in ("up", "copy"):
        cells.setdefault((r[0], r[1], r[2]), []).append((float(r[4]), float(r[5]) + float(r[6]), r[7], r[8], r[9], r[10]))
print()
print("| kind | destination | flag | wall s median (all) | CPU s median | HEAD / PUT / COPY / LIST (last run) |")
print("|---|---|---|---|---|---|")
for k in sorted(cells):
    v = cells[k]
    print("| %s | %s | %s | %.2f (%s) | %.2f | %s / %s / %s / %s |" % (k + (statistics.median(x[0] for x in v),
          " ".join("%.2f" % x[0] for x in v), statistics.median(x[1] for x in v)) + v[-1][2:]))
PY
