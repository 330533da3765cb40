#!/usr/bin/env bash
# bench/keylist.sh: what a plain key list costs (issue 24, item 1). N_FILES
# keys of SIZE bytes at LATENCY ms first-byte latency (s3emu), listed in a key
# file with no sizes, copied by `cp --from-manifest` to a directory and to
# another bucket, and by `sync --from-manifest` to an empty directory, with two
# builds in the same run, alternating, REPS times each: BEFORE (e.g. main's
# build, whose source HEADs go one by one on the planning thread) and AFTER
# (this tree's, where they are requests in flight). Per run: wall, user and
# sys CPU of s3c (GNU time), the HeadObject, GetObject, CopyObject and
# ListObjectsV2 requests s3emu served, and the duplicates of overdue reads the
# run's hedging sent (--stat; s3emu serves them too, so requests chosen =
# served - hedged); then the medians per cell.
#
#   BEFORE=/path/to/main/build/s3c bench/keylist.sh       (2,000 x 8 KiB, 20 ms, 3 reps)
#   N_FILES=500 LATENCY=0 REPS=5 BEFORE=... AFTER=build/s3c S3EMU=build/s3emu bench/keylist.sh
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
: "${AFTER:=$ROOT/build/s3c}" "${BEFORE:=}" "${S3EMU:=$ROOT/build/s3emu}" "${N_FILES:=2000}" "${SIZE:=8192}"
: "${LATENCY:=20}" "${REPS:=3}"
[ -n "$BEFORE" ] || { echo "keylist.sh: set BEFORE to the s3c to compare with (e.g. main's build/s3c)" >&2; exit 2; }
EMU=$S3EMU
T=$(mktemp -d)
# shellcheck source=bench/emu-lib.sh
. "$ROOT/bench/emu-lib.sh"
bench_emu_start keylist.sh --latency-ms "$LATENCY"
"$AFTER" mb s3://kl-src >/dev/null || exit 1
curl -sSf -X POST "$URL/_s3emu/populate?bucket=kl-src&count=$N_FILES&prefix=k/&size=$SIZE" >/dev/null ||
    { echo "keylist.sh: seeding failed" >&2; exit 1; }
"$AFTER" ls s3://kl-src/k/ | awk '{print "k/" $4}' > "$T/keys.txt"
[ "$(wc -l < "$T/keys.txt")" = "$N_FILES" ] || { echo "keylist.sh: $(wc -l < "$T/keys.txt") keys listed" >&2; exit 1; }

ops() { curl -s "$URL/_s3emu/stats" | jq -r "[.ops.HeadObject // 0, .ops.GetObject // 0, .ops.CopyObject // 0, .ops.ListObjectsV2 // 0] | @csv"; }

# run BUILD NAME CELL REP: one timed command of CELL (cp-down, cp-copy, sync-down), one CSV line.
run() {
    local bin=$1 name=$2 cell=$3 rep=$4 dst=$T/out-$2-$3-$4
    curl -s -X DELETE "$URL/_s3emu/stats" >/dev/null
    case $cell in
        cp-down) set -- cp --from-manifest "$T/keys.txt" s3://kl-src/k/ "$dst/" ;;
        cp-copy) "$AFTER" mb "s3://kl-$name-$rep" >/dev/null
                 set -- cp --from-manifest "$T/keys.txt" s3://kl-src/k/ "s3://kl-$name-$rep/k/" ;;
        sync-down) set -- sync --from-manifest "$T/keys.txt" s3://kl-src/k/ "$dst/" ;;
    esac
    /usr/bin/time -f '%e,%U,%S' -o "$T/time" "$bin" --no-progress --only-show-errors "$@" --stat >"$T/log" 2>&1 ||
        { echo "keylist.sh: $name $cell failed" >&2; tail -3 "$T/log" >&2; }
    hedged=$(sed -n 's/^requests [0-9]*: \([0-9]*\) hedged.*/\1/p' "$T/log")
    echo "$cell,$name,$rep,$(cat "$T/time"),$(ops),${hedged:-0}"
    rm -rf "$dst"
}

echo "# before $("$BEFORE" version | head -1), after $("$AFTER" version | head -1), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), $N_FILES x $SIZE B, ${LATENCY} ms, $(date -u '+%F %T') UTC"
echo "cell,build,rep,wall_s,user_s,sys_s,heads,gets,copies,lists,hedged"
for rep in $(seq 1 "$REPS"); do
    for cell in cp-down cp-copy sync-down; do
        run "$BEFORE" before "$cell" "$rep"
        run "$AFTER" after "$cell" "$rep"
    done
done | tee "$T/csv"

python3 - "$T/csv" <<'PY'
import csv, statistics, sys
runs = [r for r in csv.reader(open(sys.argv[1])) if r and r[0] in ("cp-down", "cp-copy", "sync-down")]
rows = ["", "| cell | build | wall s median (all) | CPU s median | served HEAD / GET / COPY / LIST, hedged twins "
        "(each run) | chosen (served - hedged) |", "|---|---|---|---|---|---|"]
for cell, build in sorted({(r[0], r[1]) for r in runs}):
    mine = [r for r in runs if (r[0], r[1]) == (cell, build)]
    walls = [float(r[3]) for r in mine]
    rows.append("| %s | %s | %.2f (%s) | %.2f | %s | %s |" % (
        cell, build, statistics.median(walls), " ".join("%.2f" % w for w in walls),
        statistics.median(float(r[4]) + float(r[5]) for r in mine),
        "; ".join("%s / %s / %s / %s, %s" % tuple(r[6:11]) for r in mine),
        " ".join(str(sum(int(x) for x in r[6:9]) - int(r[10])) for r in mine)))
print("\n".join(rows))
PY
