#!/usr/bin/env bash
# tests/faults/run.sh — the fault campaign (issue #6): s3c against an s3emu that
# fails on purpose, and every byte checked by a reader that is not s3c.
#
#   tests/faults/run.sh                      build/s3c against build/s3emu
#   S3C=build-san/s3c FAULT_FILES=500 tests/faults/run.sh    a smaller pass
#
# Part 1, faults that clear: with, at once, 2% 503 SlowDown, 1% 500, 0.5%
# connection resets halfway through a body, 0.2% truncated bodies, a 1% slow
# tail (first byte 100x later), 0.5% slow bodies and 0.2% downloads with a
# byte flipped, plus one of each lost or broken answer on the listings and
# multipart calls, s3c must move a tree of
# FAULT_FILES mixed files (tests/faults/mktree.py: mostly small, some empty,
# some just above the 8 MiB multipart threshold, two of about 20 MB) up, down
# (and cat its objects of 8 MiB or more, with two more GETs corrupted), S3 to
# S3, move it again, then change it and sync it up, down and S3 to S3
# (--delete), then rm -r it all, each with exit 0 and no error line. After each
# step the faults are switched off and tests/faults/s3check.py (Python's own
# SigV4 and HTTP) reads every object back: the sha256 of every file and object
# must equal the source tree's, with no key or file more or less (a leftover
# temp file counts), and no multipart upload may be left open.
#
# Part 2, faults that never clear: on one key, on every PutObject, on every
# UploadPart, on one download, on one server-side copy, on every
# DeleteObjects. Each run must end in
# bounded time with exit 1, one error line naming each failed object and only
# those, every other object done, no partial or temp file, and no multipart
# upload left open.
#
# Starts its own emulator (FAULT_PORT, default 0 = any free port) and stops it
# by PID on the way out. Last line: "faults: N passed, N failed" (FAULT_NAME
# instead of "faults" when set); exit 0 only if none failed. A sanitizer
# build's report on stderr fails the run.
#
# Knobs: S3C, S3EMU (binaries), FAULT_FILES (5000), FAULT_SEED (1),
# FAULT_PORT (0), FAULT_KEEP=1 (keep the work dir), FAULT_CMD_TIMEOUT (180 s
# per s3c run).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/faults
: "${S3C:=$ROOT/build/s3c}" "${S3EMU:=$ROOT/build/s3emu}"
: "${FAULT_FILES:=5000}" "${FAULT_SEED:=1}" "${FAULT_PORT:=0}" "${FAULT_KEEP:=0}"
: "${FAULT_CMD_TIMEOUT:=180}" "${FAULT_NAME:=faults}"
PY=${PY:-python3}

W=$(mktemp -d "${TMPDIR:-/tmp}/s3c-faults.XXXXXX")
EMU_PID=""
PASS=0
FAIL=0

cleanup() {
    if [ -n "$EMU_PID" ]; then
        kill -TERM "$EMU_PID" 2>/dev/null
        wait "$EMU_PID" 2>/dev/null
    fi
    if [ "$FAULT_KEEP" = 1 ]; then echo "faults: work dir kept: $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

ok() { PASS=$((PASS + 1)); printf 'ok   %4ss  %s\n' "$SECONDS" "$1"; }
bad() {
    FAIL=$((FAIL + 1))
    printf 'FAIL %4ss  %s\n' "$SECONDS" "$1"
    [ $# -lt 2 ] || printf '%s\n' "$2" | head -n 20 | sed 's/^/        | /'
}
finish() { echo "$FAULT_NAME: $PASS passed, $FAIL failed"; [ "$FAIL" = 0 ]; exit; }

# ---------------------------------------------------------------- emulator --
AK=faultsaccesskey00001
SK=faults/secret+key/000000000000000000000
[ -x "$S3C" ] && [ -x "$S3EMU" ] || { bad "binaries" "no $S3C or $S3EMU: run make"; finish; }
"$S3EMU" --port "$FAULT_PORT" --access-key "$AK" --secret-key "$SK" >"$W/emu.out" 2>"$W/emu.err" &
EMU_PID=$!
URL=""
for _ in $(seq 1 100); do
    URL=$(sed -n 's/^ready //p' "$W/emu.out")
    [ -n "$URL" ] && break
    kill -0 "$EMU_PID" 2>/dev/null || break
    sleep 0.1
done
[ -n "$URL" ] || { bad "s3emu start" "$(tail -n 5 "$W/emu.err")"; finish; }
echo "faults: s3emu $URL (pid $EMU_PID), s3c ${S3C#"$ROOT"/}, $FAULT_FILES files"

# The client's environment: nothing of the user's.
for v in $(compgen -e); do case $v in AWS_*) unset "$v" ;; esac; done
export HOME=$W/home AWS_ENDPOINT_URL=$URL AWS_ACCESS_KEY_ID=$AK AWS_SECRET_ACCESS_KEY=$SK
export AWS_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true LC_ALL=C.UTF-8 TZ=UTC
export S3CHECK_ENDPOINT=$URL S3CHECK_ACCESS_KEY=$AK S3CHECK_SECRET_KEY=$SK
mkdir -p "$HOME"

# emu SETTINGS: POST key=value&... to the admin endpoint (fails the campaign if refused).
emu() {
    local out
    out=$(curl -sS -X POST --data-binary "$1" -w '\n%{http_code}' "$URL/_s3emu/config") &&
        [ "${out##*$'\n'}" = 200 ] && return 0
    bad "s3emu config '$1'" "$out"
    return 1
}
stats() { curl -sS "$URL/_s3emu/stats"; }

# The mix of faults that clear (the first rule that matches and fires decides).
# The nth= rules make sure each listing and multipart call loses an answer at
# least once whatever the dice say. CreateMultipartUpload never loses its
# answer here: a retried Create whose first answer was lost leaves an upload
# no client can know the id of (S3 and every SDK alike; a bucket lifecycle
# rule reaps those), which the "no upload left open" check would count.
MIX="503@p=0.02;500@p=0.01;delay@op=CreateMultipartUpload,ms=1"
MIX+=";truncate@op=ListObjectsV2,nth=2;reset-mid@op=ListObjectsV2,nth=3;500@op=ListObjectsV2,nth=4"
MIX+=";reset-mid@op=UploadPart,nth=3;truncate@op=CompleteMultipartUpload,nth=2"
MIX+=";reset-mid@op=CompleteMultipartUpload,nth=5;truncate@op=UploadPartCopy,nth=4"
MIX+=";reset-mid@op=GetObject,nth=50;truncate@op=GetObject,nth=90;reset-mid@op=DeleteObjects,nth=2"
MIX+=";reset-mid@p=0.005;truncate@p=0.002;slow@p=0.005,rate=2000000;corrupt@op=GetObject,p=0.002"
faults_on() { emu "reset_stats=1&latency_ms=2&tail_pct=1&tail_mult=100&faults=$MIX"; }
faults_off() { emu "latency_ms=0&tail_pct=0&faults="; }

# fired: "kind=N ..." of the faults fired since the last reset.
fired() { stats | jq -r '.faults | to_entries | map(select(.value > 0) | "\(.key)=\(.value)") | join(" ")'; }

# ------------------------------------------------------------------ running --
# run NAME ARGS...: run s3c with a time limit; keeps RC, SECS, OUT and ERR files.
run() {
    local name=$1 t0=$EPOCHREALTIME
    shift
    timeout -k 5 "$FAULT_CMD_TIMEOUT" "$S3C" "$@" >"$W/$name.out" 2>"$W/$name.err" </dev/null
    RC=$?
    SECS=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    OUT=$W/$name.out ERR=$W/$name.err
}

# expect_clean NAME: the last run exited 0 and printed no error.
expect_clean() {
    if [ "$RC" = 0 ] && ! grep -q . "$ERR"; then
        ok "$1: exit 0 in $SECS s, faults fired: $(fired)"
    else
        bad "$1: exit $RC in $SECS s (want 0, no stderr)" "$(head -n 20 "$ERR")"
    fi
}

# tree_sums DIR: "SHA256  PATH" per file (hidden ones too), sorted by path bytes.
tree_sums() { (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum | sed 's|  \./|  |'); }

# same_sums NAME WANT-FILE GOT-FILE
same_sums() {
    if cmp -s "$2" "$3"; then
        ok "$1: $(wc -l < "$3") sha256 sums equal"
    else
        bad "$1: contents differ (diff want got)" "$(diff "$2" "$3" | head -n 20)"
    fi
}

# check_bucket NAME BUCKET PREFIX: faults off; every object under PREFIX has
# the source tree's sha256, no more, no fewer; no multipart upload is open.
check_bucket() {
    faults_off || return
    if ! "$PY" "$HERE/s3check.py" sums "$2" "$3" >"$W/got.sums" 2>"$W/check.err"; then
        bad "$1: s3check could not read s3://$2/$3" "$(cat "$W/check.err")"
        return
    fi
    same_sums "$1: s3://$2/$3" "$W/src.sums" "$W/got.sums"
    no_uploads "$1" "$2"
}

# no_uploads NAME BUCKET: ListMultipartUploads is empty.
no_uploads() {
    local u
    u=$("$PY" "$HERE/s3check.py" uploads "$2" 2>&1)
    if [ -z "$u" ]; then ok "$1: no multipart upload open in $2"; else bad "$1: uploads left open in $2" "$u"; fi
}

# bucket_empty NAME BUCKET
bucket_empty() {
    local n
    n=$("$PY" "$HERE/s3check.py" keys "$2" "" 2>&1 | wc -l)
    if [ "$n" = 0 ]; then ok "$1: s3://$2 is empty"; else bad "$1: $n keys left in s3://$2"; fi
}

mb() { faults_off && curl -sS -f -X PUT --aws-sigv4 "aws:amz:us-east-1:s3" --user "$AK:$SK" \
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$URL/$1" >/dev/null || bad "create bucket $1"; }

# --------------------------------------------------- part 1: faults that clear --
SRC=$W/src
"$PY" "$HERE/mktree.py" "$SRC" "$FAULT_FILES" "$FAULT_SEED" >"$W/bytes" ||
    { bad "mktree.py"; finish; }
tree_sums "$SRC" >"$W/src.sums"
echo "faults: source tree: $(wc -l < "$W/src.sums") files, $(cat "$W/bytes") bytes"
for b in fault-up fault-copy fault-move; do mb "$b"; done

faults_on
run up cp -r --quiet "$SRC" s3://fault-up/t/
expect_clean "cp -r up"
check_bucket "cp -r up" fault-up t/

faults_on
run down cp -r --quiet s3://fault-up/t/ "$W/down"
expect_clean "cp -r down"
faults_off
tree_sums "$W/down" >"$W/down.sums"
same_sums "cp -r down: local tree" "$W/src.sums" "$W/down.sums"

# cat: every object of 8 MiB or more to stdout under the same faults and two
# GETs more with a byte flipped (issue 14, item 3): each range is proven
# before its bytes go out, so every cat exits 0 with the source's bytes.
faults_on && emu "faults=corrupt@op=GetObject,nth=2;corrupt@op=GetObject,nth=9;$MIX"
n=0 catbad=""
while read -r sum path; do
    [ "$(stat -c %s "$SRC/$path")" -ge $((8 << 20)) ] || continue
    n=$((n + 1))
    got=$(timeout -k 5 "$FAULT_CMD_TIMEOUT" "$S3C" cat --raw "s3://fault-up/t/$path" 2>>"$W/cat.err" </dev/null |
          sha256sum | cut -d' ' -f1)
    [ "${PIPESTATUS[0]}" = 0 ] && [ "$got" = "$sum" ] || catbad+="$path "
done <"$W/src.sums"
if [ -z "$catbad" ] && [ "$n" -gt 0 ] && ! grep -q . "$W/cat.err"; then
    ok "cat: $n objects, exit 0 and the source's bytes, faults fired: $(fired)"
else
    bad "cat: $n objects, wrong or failed: $catbad" "$(head -n 20 "$W/cat.err")"
fi

faults_on
run copy cp -r --quiet s3://fault-up/t/ s3://fault-copy/t/
expect_clean "cp -r S3 to S3"
check_bucket "cp -r S3 to S3" fault-copy t/

faults_on
run move mv -r --quiet s3://fault-copy/t/ s3://fault-move/t/
expect_clean "mv -r S3 to S3"
check_bucket "mv -r S3 to S3" fault-move t/
bucket_empty "mv -r S3 to S3: the source" fault-copy

faults_on
run move-down mv -r --quiet s3://fault-move/t/d01/ "$W/move-down"
expect_clean "mv -r down"
faults_off
tree_sums "$W/move-down" >"$W/move-down.sums"
grep -E '  d01/' "$W/src.sums" | sed 's|  d01/|  |' >"$W/want-d01.sums"
same_sums "mv -r down: local tree" "$W/want-d01.sums" "$W/move-down.sums"
n=$("$PY" "$HERE/s3check.py" keys fault-move t/d01/ | wc -l)
if [ "$n" = 0 ]; then ok "mv -r down: sources deleted"; else bad "mv -r down: $n sources left"; fi

# sync: the source changes (every 100th file rewritten with another size,
# every 100th gone, 50 new), then sync --delete up, the same again (a no-op:
# nothing but listings), down into the first download, and S3 to S3 into the
# moved tree (which lost d01/ to mv -r down).
"$PY" - "$SRC" <<'PY' || bad "changing the source tree"
import os, random, sys
root = sys.argv[1]
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs)
rng = random.Random(7)
for i, path in enumerate(files):
    if i % 100 == 0:
        with open(path, "ab") as f:
            f.write(rng.randbytes(1 + i % 777))
    elif i % 100 == 1:
        os.remove(path)
os.makedirs(os.path.join(root, "new"), exist_ok=True)
for i in range(50):
    with open(os.path.join(root, "new", "n%02d" % i), "wb") as f:
        f.write(rng.randbytes(i * 97))
PY
tree_sums "$SRC" >"$W/src.sums"

faults_on
run sync-up sync --delete --quiet "$SRC" s3://fault-up/t/
expect_clean "sync --delete up"
check_bucket "sync --delete up" fault-up t/

faults_on
run sync-noop sync --delete --quiet "$SRC" s3://fault-up/t/
expect_clean "sync up again"
n=$(stats | jq '[.ops | to_entries[] | select(.key | test("Put|Upload|Copy|Delete|Complete")) | .value] | add // 0')
if [ "$n" = 0 ]; then ok "sync up again: nothing sent but listings"; else bad "sync up again: $n writes" "$(stats | jq -c .ops)"; fi

faults_on
run sync-down sync --delete --quiet s3://fault-up/t/ "$W/down"
expect_clean "sync --delete down"
faults_off
tree_sums "$W/down" >"$W/down.sums"
same_sums "sync --delete down: local tree" "$W/src.sums" "$W/down.sums"

faults_on
run sync-s3 sync --delete --quiet s3://fault-up/t/ s3://fault-move/t/
expect_clean "sync --delete S3 to S3"
check_bucket "sync --delete S3 to S3" fault-move t/

# rm -r: every key of two trees, 5,000 each, through batched DeleteObjects.
for b in fault-move fault-up; do
    faults_on
    run "rm-$b" rm -r --quiet "s3://$b/t/"
    expect_clean "rm -r s3://$b/t/"
    faults_off
    bucket_empty "rm -r s3://$b/t/" "$b"
done

# ---------------------------------------------- part 2: faults that never clear --
# A small tree of its own: 40 small files and 2 multipart ones.
NC=$W/nc
mkdir -p "$NC/a" "$NC/b"
for i in $(seq -w 1 20); do
    head -c $((10#$i * 100)) /dev/urandom >"$NC/a/f$i"
    head -c $((10#$i * 50)) /dev/urandom >"$NC/b/g$i"
done
head -c $((9 * 1048576)) /dev/urandom >"$NC/big1"
head -c $((9 * 1048576 + 7)) /dev/urandom >"$NC/big2"
tree_sums "$NC" >"$W/nc.sums"
mb fault-nc

# errors_name NAME WANT-FILE: the error lines ("OP failed: SRC to DST DETAIL",
# docs/OUTPUT.md) name exactly the objects listed in WANT-FILE (one "SRC DST"
# a line, sorted), each once. The lines name local files as the AWS CLI does,
# relative to the working directory: made absolute here, as WANT-FILE has them.
abs_name() { case $1 in s3://*) echo "$1" ;; *) realpath -m -s "$1" ;; esac; }
errors_name() {
    local src dst
    sed -nE 's/^(upload|download|copy|move) failed: ([^ ]*) to ([^ ]*) .*/\2 \3/p' "$ERR" |
        while read -r src dst; do echo "$(abs_name "$src") $(abs_name "$dst")"; done | LC_ALL=C sort >"$W/errs"
    if cmp -s "$2" "$W/errs" && [ "$(grep -c . "$ERR")" = "$(grep -c . "$2")" ]; then
        ok "$1: one error line for each of the $(grep -c . "$2") failed objects"
    else
        bad "$1: error lines (diff want got; then stderr)" "$(diff "$2" "$W/errs"; head -n 5 "$ERR")"
    fi
}

# bounded NAME LIMIT: the last run exited 1 within LIMIT seconds.
bounded() {
    if [ "$RC" = 1 ] && awk -v s="$SECS" -v l="$2" 'BEGIN { exit !(s <= l) }'; then
        ok "$1: exit 1 in $SECS s"
    else
        bad "$1: exit $RC in $SECS s (want 1 within $2 s)" "$(head -n 5 "$ERR")"
    fi
}

# One key fails on every operation: only it is missing.
emu "reset_stats=1&faults=500@key=nc1/a/f07"
run nc-key cp -r "$NC" s3://fault-nc/nc1/
bounded "never-clearing 500 on one key" 60
echo "$NC/a/f07 s3://fault-nc/nc1/a/f07" >"$W/want"
errors_name "never-clearing 500 on one key" "$W/want"
faults_off
"$PY" "$HERE/s3check.py" sums fault-nc nc1/ >"$W/got.sums"
grep -v '  a/f07$' "$W/nc.sums" >"$W/want.sums"
same_sums "never-clearing 500 on one key: the others" "$W/want.sums" "$W/got.sums"

# Every PutObject fails (throttled): every small file is named, the multipart ones land.
emu "reset_stats=1&faults=503@op=PutObject"
run nc-put cp -r "$NC" s3://fault-nc/nc2/
bounded "never-clearing 503 on every PutObject" 90
(cd "$NC" && find . -type f -size -1048576c | sed 's|^\./||' | LC_ALL=C sort |
    while read -r f; do echo "$NC/$f s3://fault-nc/nc2/$f"; done) >"$W/want"
errors_name "never-clearing 503 on every PutObject" "$W/want"
faults_off
"$PY" "$HERE/s3check.py" keys fault-nc nc2/ >"$W/keys"
if [ "$(cat "$W/keys")" = "$(printf 'nc2/big1\nnc2/big2')" ]; then
    ok "never-clearing 503 on every PutObject: only the multipart objects exist"
else
    bad "never-clearing 503 on every PutObject: keys" "$(cat "$W/keys")"
fi

# Every UploadPart of one object is reset halfway: it fails, its upload is aborted.
emu "reset_stats=1&faults=reset-mid@op=UploadPart,key=nc3/big2"
run nc-part cp -r "$NC" s3://fault-nc/nc3/
bounded "never-clearing reset on one object's parts" 60
echo "$NC/big2 s3://fault-nc/nc3/big2" >"$W/want"
errors_name "never-clearing reset on one object's parts" "$W/want"
faults_off
no_uploads "never-clearing reset on one object's parts" fault-nc

# A download whose body is always cut: no partial file, no temp file, the rest arrive.
emu "reset_stats=1&faults=truncate@op=GetObject,key=nc1/big1;reset-mid@op=GetObject,key=nc1/b/g03"
run nc-get cp -r s3://fault-nc/nc1/ "$W/nc-down"
bounded "never-clearing cut downloads" 60
printf '%s\n' "s3://fault-nc/nc1/b/g03 $W/nc-down/b/g03" "s3://fault-nc/nc1/big1 $W/nc-down/big1" |
    LC_ALL=C sort >"$W/want"
errors_name "never-clearing cut downloads" "$W/want"
tree_sums "$W/nc-down" >"$W/got.sums"
grep -v -e '  a/f07$' -e '  big1$' -e '  b/g03$' "$W/nc.sums" >"$W/want.sums"
same_sums "never-clearing cut downloads: no partial or temp file" "$W/want.sums" "$W/got.sums"

# A server-side copy that always fails, single and multipart (--part-size
# keeps big2, 9 MiB, in parts: the copy model alone would send it whole).
emu "reset_stats=1&faults=500@op=CopyObject,key=nc4/a/f01;500@op=UploadPartCopy,key=nc4/big2"
run nc-copy cp -r --part-size 8MiB s3://fault-nc/nc1/ s3://fault-nc/nc4/
bounded "never-clearing 500 on copies" 60
printf '%s\n' "s3://fault-nc/nc1/a/f01 s3://fault-nc/nc4/a/f01" "s3://fault-nc/nc1/big2 s3://fault-nc/nc4/big2" |
    LC_ALL=C sort >"$W/want"
errors_name "never-clearing 500 on copies" "$W/want"
faults_off
no_uploads "never-clearing 500 on copies" fault-nc

# Deletes that always fail: every key named, every key still there.
"$PY" "$HERE/s3check.py" keys fault-nc nc1/ >"$W/keys-before"
emu "reset_stats=1&faults=500@op=DeleteObjects"
run nc-rm rm -r s3://fault-nc/nc1/
bounded "never-clearing 500 on DeleteObjects" 60
sed 's|^|s3://fault-nc/|' "$W/keys-before" | LC_ALL=C sort >"$W/want"
sed -nE 's/^delete failed: ([^ ]*) .*/\1/p' "$ERR" | LC_ALL=C sort >"$W/errs"
if cmp -s "$W/want" "$W/errs" && [ "$(grep -c . "$ERR")" = "$(grep -c . "$W/want")" ]; then
    ok "never-clearing 500 on DeleteObjects: one error line for each of the $(grep -c . "$W/want") keys"
else
    bad "never-clearing 500 on DeleteObjects: error lines (diff want got)" "$(diff "$W/want" "$W/errs" | head; head -n 3 "$ERR")"
fi
faults_off
"$PY" "$HERE/s3check.py" keys fault-nc nc1/ >"$W/keys-after"
if cmp -s "$W/keys-before" "$W/keys-after"; then ok "never-clearing 500 on DeleteObjects: every key still there"
else bad "never-clearing 500 on DeleteObjects: keys changed" "$(diff "$W/keys-before" "$W/keys-after" | head)"; fi

if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error' "$W"/*.err 2>/dev/null; then
    bad "sanitizer reports" "$(grep -lE 'AddressSanitizer|LeakSanitizer|runtime error' "$W"/*.err)"
fi
finish
