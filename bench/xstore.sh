#!/usr/bin/env bash
# bench/xstore.sh: a copy between two stores with their own keys (issue 25,
# item 5). Two s3emu instances at LATENCY ms first-byte latency, each with its
# own access key (so no server-side copy can happen: the bytes go through the
# client), pinned to core 1; the clients on core 0. Two sets: N_SMALL files of
# SMALL bytes and N_BIG of BIG bytes, copied from the source bucket to the
# destination bucket by:
#   s3c      cp -r with --source-profile/--source-endpoint-url (the relay)
#   rclone   copy between two remotes (its defaults: 4 transfers)
#   rclone64 the same with --transfers 64 --checkers 64
#   awspipe  `aws s3 cp s3://src/k - | aws s3 cp - s3://dst/k` per object, on
#            the first AWS_SAMPLE objects of a set only (two Python starts per
#            object): its wall is scaled to the whole set, and says so
# and, for the bar the relay must clear, s3c's download of the set alone (to
# tmpfs) from the source and its upload alone (from tmpfs) to the destination.
# REPS runs of each, interleaved; the destination is emptied between runs
# (not timed). Per run: wall, user and sys CPU (GNU time) of the client; then
# the medians per cell.
#
#   bench/xstore.sh                        (10,000 x 8 KiB, 4 x 200 MiB, 20 ms, 3 reps)
#   N_SMALL=1000 N_BIG=2 REPS=1 bench/xstore.sh
#   S3C=build/s3c S3EMU=build/s3emu        (binaries)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
: "${S3C:=$ROOT/build/s3c}" "${S3EMU:=$ROOT/build/s3emu}" "${LATENCY:=20}" "${REPS:=3}"
: "${N_SMALL:=10000}" "${SMALL:=8192}" "${N_BIG:=4}" "${BIG:=209715200}" "${AWS_SAMPLE:=100}"
T=$(mktemp -d)
SHM=$(mktemp -d /dev/shm/xstore.XXXXXX)
PIDS=()
cleanup() {
    local p
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
    rm -rf "$T" "$SHM"
}
trap cleanup EXIT

# emu NAME KEY: an s3emu on core 1 answering to KEY/KEY-secret; sets URL_<NAME>.
emu() {
    taskset -c 1 "$S3EMU" --port 0 --latency-ms "$LATENCY" --access-key "$2" --secret-key "$2-secret" \
        > "$T/$1.out" 2> "$T/$1.err" &
    PIDS+=($!)
    for _ in $(seq 1 100); do grep -q ready "$T/$1.out" 2>/dev/null && break; sleep 0.05; done
    printf -v "URL_$1" '%s' "$(sed -n 's/^ready //p' "$T/$1.out")"
    [ -n "$(eval echo "\$URL_$1")" ] || { echo "xstore.sh: s3emu $1 did not start" >&2; exit 1; }
}
emu src xstoresrcaccesskey01
emu dst xstoredstaccesskey01
taskset -cp 0 $$ > /dev/null # this script and every client it starts: core 0
export HOME=$T/home AWS_CONFIG_FILE=$T/config AWS_SHARED_CREDENTIALS_FILE=$T/credentials
mkdir -p "$HOME"
# AWS_CA_BUNDLE makes rclone 1.60 fail on plain HTTP ("unable to load custom CA bundle").
unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN AWS_PROFILE AWS_ENDPOINT_URL AWS_CA_BUNDLE
printf '[profile src]\nregion = us-east-1\n[profile dst]\nregion = us-east-1\n' > "$AWS_CONFIG_FILE"
printf '[src]\naws_access_key_id = %s\naws_secret_access_key = %s-secret\n[dst]\naws_access_key_id = %s\naws_secret_access_key = %s-secret\n' \
    xstoresrcaccesskey01 xstoresrcaccesskey01 xstoredstaccesskey01 xstoredstaccesskey01 > "$AWS_SHARED_CREDENTIALS_FILE"
for side in SRC DST; do
    lc=${side,,}
    url=$(eval echo "\$URL_$lc")
    export "RCLONE_CONFIG_${side}_TYPE=s3" "RCLONE_CONFIG_${side}_PROVIDER=Other" "RCLONE_CONFIG_${side}_REGION=us-east-1" \
        "RCLONE_CONFIG_${side}_ENDPOINT=$url" "RCLONE_CONFIG_${side}_ACCESS_KEY_ID=xstore${lc}accesskey01" \
        "RCLONE_CONFIG_${side}_SECRET_ACCESS_KEY=xstore${lc}accesskey01-secret" "RCLONE_CONFIG_${side}_FORCE_PATH_STYLE=true"
done
SRC=(--profile src --endpoint-url "$URL_src")
DST=(--profile dst --endpoint-url "$URL_dst")
RELAY=(--source-profile src --source-endpoint-url "$URL_src")

mkdir -p "$T/small" "$T/big"
for i in $(seq 1 "$N_SMALL"); do head -c "$SMALL" /dev/urandom > "$T/small/f$i"; done
for i in $(seq 1 "$N_BIG"); do head -c "$BIG" /dev/urandom > "$T/big/f$i"; done
if ! "$S3C" "${SRC[@]}" mb s3://xs-src >/dev/null || ! "$S3C" "${DST[@]}" mb s3://xs-dst >/dev/null ||
    ! "$S3C" "${SRC[@]}" cp -r --only-show-errors "$T/small" s3://xs-src/small/ ||
    ! "$S3C" "${SRC[@]}" cp -r --only-show-errors "$T/big" s3://xs-src/big/; then
    echo "xstore.sh: seeding failed" >&2
    exit 1
fi
rm -rf "$T/small" "$T/big"

# timed TOOL SET REP CMD...: one run of CMD (a program, or a function of this
# script), one CSV line with its wall and CPU time, its children's included.
timed() {
    local tool=$1 set=$2 rep=$3 ok=1 TIMEFORMAT='%R,%U,%S'
    shift 3
    { time { "$@" > "$T/log" 2>&1 || ok=0; }; } 2> "$T/time"
    if [ $ok = 0 ]; then
        echo "xstore.sh: $tool $set failed: $(tail -n 2 "$T/log" | tr '\n' ' ')" >&2
        return
    fi
    echo "$tool,$set,$rep,$(cat "$T/time")"
}

# awspipe SET: the first AWS_SAMPLE objects of SET through two aws processes each.
awspipe() {
    local set=$1 k n=0
    for k in $("$S3C" "${SRC[@]}" ls "s3://xs-src/$set/" | awk '{ print $4 }'); do
        [ "$n" -lt "$AWS_SAMPLE" ] || break
        aws "${SRC[@]}" s3 cp --only-show-errors "s3://xs-src/$set/$k" - |
            aws "${DST[@]}" s3 cp --only-show-errors - "s3://xs-dst/aws/$set/$k" || return 1
        n=$((n + 1))
    done
}

empty_dst() { "$S3C" "${DST[@]}" rm -r --only-show-errors s3://xs-dst/ >/dev/null 2>&1; rm -rf "${SHM:?}"/*; }

echo "# s3c $("$S3C" version | head -1), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), $N_SMALL x $SMALL B and $N_BIG x $BIG B, ${LATENCY} ms, s3emu x2 on core 1, clients on core 0, $(date -u '+%F %T') UTC"
echo "tool,set,rep,wall_s,user_s,sys_s"
for rep in $(seq 1 "$REPS"); do
    for set in small big; do
        timed s3c "$set" "$rep" "$S3C" "${DST[@]}" cp "${RELAY[@]}" -r --no-progress --only-show-errors "s3://xs-src/$set/" "s3://xs-dst/s3c/$set/"
        empty_dst
        timed rclone "$set" "$rep" rclone copy "src:xs-src/$set" "dst:xs-dst/rclone/$set"
        empty_dst
        timed rclone64 "$set" "$rep" rclone copy --transfers 64 --checkers 64 "src:xs-src/$set" "dst:xs-dst/rclone/$set"
        empty_dst
        timed download "$set" "$rep" "$S3C" "${SRC[@]}" cp -r --no-progress --only-show-errors "s3://xs-src/$set/" "$SHM/$set/"
        timed upload "$set" "$rep" "$S3C" "${DST[@]}" cp -r --no-progress --only-show-errors "$SHM/$set/" "s3://xs-dst/up/$set/"
        empty_dst
        [ "$rep" = 1 ] && timed awspipe "$set" "$rep" awspipe "$set"
        empty_dst
    done
done | tee "$T/csv"

python3 - "$T/csv" "$AWS_SAMPLE" "$N_SMALL" "$N_BIG" <<'PY'
import csv, statistics, sys
sample, n = int(sys.argv[2]), {"small": int(sys.argv[3]), "big": int(sys.argv[4])}
cells = {}
for r in csv.reader(open(sys.argv[1])):
    if len(r) == 6 and not r[0].startswith("#") and r[0] != "tool":
        cells.setdefault((r[0], r[1]), []).append((float(r[3]), float(r[4]) + float(r[5])))
print()
print("| set | tool | runs | wall s (median) | client CPU s | vs s3c |")
print("|---|---|---|---|---|---|")
for s in ("small", "big"):
    base = statistics.median(w for w, _ in cells.get(("s3c", s), [(float("nan"), 0)]))
    for t in ("s3c", "rclone", "rclone64", "download", "upload", "awspipe"):
        v = cells.get((t, s))
        if not v:
            continue
        wall, cpu = statistics.median(w for w, _ in v), statistics.median(c for _, c in v)
        note = ""
        if t == "awspipe":
            k = min(sample, n[s])
            wall, cpu = wall * n[s] / k, cpu * n[s] / k
            note = f" (scaled from {k} objects)"
        print(f"| {s} | {t}{note} | {len(v)} | {wall:.2f} | {cpu:.2f} | {wall / base:.2f}x |")
PY
