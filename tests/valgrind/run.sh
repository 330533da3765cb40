#!/usr/bin/env bash
# tests/valgrind/run.sh — s3c under valgrind memcheck on a full transfer run.
#
#   tests/valgrind/run.sh            build/s3c against its own build/s3emu
#
# A tree of VG_FILES small files (names with spaces, '+' and UTF-8; a few
# empty) and one file just above the 8 MiB multipart threshold goes through
# cp -r up, cp -r down, sync up, down and S3 to S3 (after a change, with
# --delete), a cp -r up under faults that clear (503s, resets, truncated
# bodies: the retry paths) and one under a fault that never clears (exit 1:
# the error paths), then rm -r of every bucket. Each s3c runs under
#   valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect
# and must end with its own exit code, no memcheck error and no definite or
# indirect leak; the data must arrive (sha256 of every file and object,
# checked with tests/faults/s3check.py, which is not s3c).
#
# Starts its own emulator and stops it by PID on the way out. Last line:
# "valgrind: N passed, N failed"; exit 0 only if none failed.
# Knobs: S3C, S3EMU (binaries), VG_FILES (300), VG_KEEP=1 (keep the work dir),
# VG_CMD_TIMEOUT (seconds per s3c run, 300).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
: "${S3C:=$ROOT/build/s3c}" "${S3EMU:=$ROOT/build/s3emu}"
: "${VG_FILES:=300}" "${VG_KEEP:=0}" "${VG_CMD_TIMEOUT:=300}"
PY=${PY:-python3}
CHECK=$ROOT/tests/faults/s3check.py

W=$(mktemp -d "${TMPDIR:-/tmp}/s3c-valgrind.XXXXXX")
EMU_PID=""
PASS=0
FAIL=0

cleanup() {
    if [ -n "$EMU_PID" ]; then
        kill -TERM "$EMU_PID" 2>/dev/null
        wait "$EMU_PID" 2>/dev/null
    fi
    if [ "$VG_KEEP" = 1 ]; then echo "valgrind: work dir kept: $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

ok() { PASS=$((PASS + 1)); printf 'ok   %4ss  %s\n' "$SECONDS" "$1"; }
bad() {
    FAIL=$((FAIL + 1))
    printf 'FAIL %4ss  %s\n' "$SECONDS" "$1"
    [ $# -lt 2 ] || printf '%s\n' "$2" | head -n 40 | sed 's/^/        | /'
}
finish() { echo "valgrind: $PASS passed, $FAIL failed"; [ "$FAIL" = 0 ]; exit; }

command -v valgrind >/dev/null || { bad "valgrind" "not installed: run scripts/deps.sh"; finish; }
[ -x "$S3C" ] && [ -x "$S3EMU" ] || { bad "binaries" "no $S3C or $S3EMU: run make"; finish; }

# ---------------------------------------------------------------- emulator --
AK=valgrindaccesskey001
SK=valgrind/secret+key/00000000000000000000
"$S3EMU" --port 0 --access-key "$AK" --secret-key "$SK" >"$W/emu.out" 2>"$W/emu.err" &
EMU_PID=$!
URL=""
for _ in $(seq 1 100); do
    URL=$(sed -n 's/^ready //p' "$W/emu.out")
    [ -n "$URL" ] && break
    kill -0 "$EMU_PID" 2>/dev/null || break
    sleep 0.1
done
[ -n "$URL" ] || { bad "s3emu start" "$(tail -n 5 "$W/emu.err")"; finish; }
echo "valgrind: s3emu $URL (pid $EMU_PID), s3c ${S3C#"$ROOT"/}, $VG_FILES files"

for v in $(compgen -e); do case $v in AWS_*) unset "$v" ;; esac; done
export HOME=$W/home AWS_ENDPOINT_URL=$URL AWS_ACCESS_KEY_ID=$AK AWS_SECRET_ACCESS_KEY=$SK
export AWS_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true LC_ALL=C.UTF-8 TZ=UTC
export S3CHECK_ENDPOINT=$URL S3CHECK_ACCESS_KEY=$AK S3CHECK_SECRET_KEY=$SK
mkdir -p "$HOME"

emu() {
    local out
    out=$(curl -sS -X POST --data-binary "$1" -w '\n%{http_code}' "$URL/_s3emu/config") &&
        [ "${out##*$'\n'}" = 200 ] && return 0
    bad "s3emu config '$1'" "$out"
    return 1
}

# ------------------------------------------------------------------ running --
VG_ERR=99
# vg NAME WANT ARGS...: run s3c under memcheck; NAME passes when s3c exits
# WANT and memcheck found no error and no definite or indirect leak.
vg() {
    local name=$1 want=$2 t0=$SECONDS rc
    shift 2
    timeout -k 5 "$VG_CMD_TIMEOUT" valgrind -q --tool=memcheck --leak-check=full \
        --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
        --error-exitcode=$VG_ERR --log-file="$W/$name.vg" \
        "$S3C" "$@" >"$W/$name.out" 2>"$W/$name.err" </dev/null
    rc=$?
    if [ "$rc" = "$want" ] && ! grep -q . "$W/$name.vg"; then
        ok "$name: exit $rc in $((SECONDS - t0)) s, memcheck clean"
        return 0
    fi
    bad "$name: exit $rc in $((SECONDS - t0)) s (want $want; $VG_ERR = memcheck errors)" \
        "$(cat "$W/$name.vg"; head -n 10 "$W/$name.err")"
    return 1
}

# same_tree NAME DIR BUCKET PREFIX: the objects under s3://BUCKET/PREFIX are
# the files of DIR, byte for byte, no more and no fewer.
same_tree() {
    (cd "$2" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum | sed 's|  \./|  |') >"$W/want.sums"
    if ! "$PY" "$CHECK" sums "$3" "$4" >"$W/got.sums" 2>"$W/check.err"; then
        bad "$1: s3check could not read s3://$3/$4" "$(cat "$W/check.err")"
    elif cmp -s "$W/want.sums" "$W/got.sums"; then
        ok "$1: s3://$3/$4 holds the $(wc -l <"$W/want.sums") files of ${2#"$W"/}"
    else
        bad "$1: s3://$3/$4 differs from ${2#"$W"/}" "$(diff "$W/want.sums" "$W/got.sums" | head -n 20)"
    fi
}

# same_dirs NAME A B: the two local trees hold the same files.
same_dirs() {
    if diff -r "$2" "$3" >"$W/diff.out" 2>&1; then
        ok "$1: ${3#"$W"/} equals ${2#"$W"/}"
    else
        bad "$1: ${3#"$W"/} differs from ${2#"$W"/}" "$(head -n 20 "$W/diff.out")"
    fi
}

# -------------------------------------------------------------------- data --
"$PY" - "$W/src" "$VG_FILES" <<'EOF'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(6)
names = ["f", "data file", "a+b=c", "caf\u00e9", "x.bin"]
for i in range(n):
    d = os.path.join(root, "d%d" % (i % 7), "e%d" % (i % 3))
    os.makedirs(d, exist_ok=True)
    size = 0 if i % 40 == 5 else rng.randrange(1, 16 << 10)
    with open(os.path.join(d, "%s-%d" % (names[i % len(names)], i)), "wb") as f:
        f.write(rng.randbytes(size))
with open(os.path.join(root, "big"), "wb") as f:
    f.write(rng.randbytes((8 << 20) + 4097))
EOF
B1=vg-one B2=vg-two B3=vg-three
for b in "$B2" "$B3"; do
    curl -sS --fail-with-body -X PUT --aws-sigv4 "aws:amz:us-east-1:s3" --user "$AK:$SK" \
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$URL/$b" >/dev/null || { bad "create bucket $b"; finish; }
done

# ------------------------------------------------------------------- steps --
vg mb 0 mb "s3://$B1"
vg cp-up 0 cp -r --quiet "$W/src" "s3://$B1/t/" && same_tree cp-up "$W/src" "$B1" t/
vg cp-down 0 cp -r --quiet "s3://$B1/t/" "$W/down" && same_dirs cp-down "$W/src" "$W/down"
vg ls 0 ls -r "s3://$B1/t/"

# Change the tree: one file changed, one removed, one added, then sync it all.
cp -r "$W/src" "$W/src2"
printf 'changed' >"$W/src2/d1/e1/data file-1"
rm -f "$W/src2/d2/e2/a+b=c-2"
printf 'new' >"$W/src2/d0/new file"
vg sync-up 0 sync --delete --quiet "$W/src2" "s3://$B1/t/" && same_tree sync-up "$W/src2" "$B1" t/
vg sync-down 0 sync --delete --quiet "s3://$B1/t/" "$W/down" && same_dirs sync-down "$W/src2" "$W/down"
vg sync-s3 0 sync --delete --quiet "s3://$B1/t/" "s3://$B2/u/" && same_tree sync-s3 "$W/src2" "$B2" u/
vg mv-s3 0 mv -r --quiet "s3://$B2/u/" "s3://$B2/v/" && same_tree mv-s3 "$W/src2" "$B2" v/

# The retry paths: faults that clear.
emu "faults=503@p=0.05;500@p=0.02;reset-mid@p=0.02;truncate@p=0.02;reset-mid@op=UploadPart,nth=1" &&
    vg cp-up-faults 0 cp -r --quiet "$W/src" "s3://$B3/f/"
emu "faults=" && same_tree cp-up-faults "$W/src" "$B3" f/
emu "faults=503@p=0.05;reset-mid@op=GetObject,p=0.05;truncate@op=GetObject,p=0.03" &&
    vg cp-down-faults 0 cp -r --quiet "s3://$B3/f/" "$W/down-f"
emu "faults=" && same_dirs cp-down-faults "$W/src" "$W/down-f"

# The error paths: a fault that never clears ends in exit 1.
emu "faults=500@op=PutObject,key=*-3" &&
    vg cp-up-fails 1 cp -r --quiet "$W/src" "s3://$B3/t/"
emu "faults="

vg rm-r 0 rm -r --quiet "s3://$B1/t/"
vg rb 0 rb --force "s3://$B2"
vg rm-r-3 0 rm -r --quiet "s3://$B3/"
n=$("$PY" "$CHECK" keys "$B1" "" 2>&1 | wc -l)
m=$("$PY" "$CHECK" keys "$B3" "" 2>&1 | wc -l)
[ "$n" = 0 ] && [ "$m" = 0 ] && ok "rm: buckets empty" || bad "rm: $n and $m keys left"
finish
