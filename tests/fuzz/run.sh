#!/usr/bin/env bash
# tests/fuzz/run.sh — build every libFuzzer target (tests/fuzz/Makefile) and
# run each for FUZZ_SECONDS (20) from its committed corpus
# (tests/fuzz/corpus/NAME/, which also holds every input a fuzzer ever found
# a bug with, so each run replays them first). FUZZ_JOBS (2) targets run at
# once. A crash, a leak, a timeout (10 s on one input) or an out-of-memory
# (2 GB) fails the target; its input is kept in the work dir and printed in
# base64, ready to add to the corpus once fixed.
#
#   tests/fuzz/run.sh                 all targets
#   FUZZ_SECONDS=300 tests/fuzz/run.sh sigv4 uri
#
# Needs clang with libFuzzer (scripts/deps.sh --fuzz). Last line:
# "fuzz: N passed, N failed"; exit 0 only if none failed.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 1
: "${FUZZ_SECONDS:=20}" "${FUZZ_JOBS:=2}" "${FUZZ_KEEP:=0}"
B=build-fuzz
ALL=(xml wild uri cfg sigv4 manifest creds journal hosts run fattr)
[ $# -gt 0 ] && ALL=("$@")

W=$(mktemp -d "${TMPDIR:-/tmp}/s3c-fuzz.XXXXXX")
PIDS=()
cleanup() {
    local p
    for p in "${PIDS[@]+"${PIDS[@]}"}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    [ "$FUZZ_KEEP" = 1 ] && echo "fuzz: work dir kept: $W" || rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
PASS=0
FAIL=0

if ! command -v clang >/dev/null; then
    echo "FAIL no clang: run scripts/deps.sh --fuzz"
    echo "fuzz: 0 passed, 1 failed"
    exit 1
fi
t0=$SECONDS
if ! make -s -f tests/fuzz/Makefile -j"${JOBS:-2}" "${ALL[@]/#/$B/fuzz_}" >"$W/build.log" 2>&1; then
    tail -n 30 "$W/build.log"
    echo "FAIL build"
    echo "fuzz: 0 passed, 1 failed"
    exit 1
fi
echo "fuzz: built ${#ALL[@]} targets in $((SECONDS - t0)) s; ${FUZZ_SECONDS} s each, $FUZZ_JOBS at a time"

# fuzz NAME: run one target; writes $W/NAME.log and $W/NAME.rc.
fuzz() {
    local t=$1 dict=()
    mkdir -p "$W/corpus-$t" "$W/art-$t"
    [ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
    "$B/fuzz_$t" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 "${dict[@]}" -artifact_prefix="$W/art-$t/" \
        "$W/corpus-$t" "tests/fuzz/corpus/$t" >"$W/$t.log" 2>&1
    echo $? >"$W/$t.rc"
}

# report NAME: one line; on a finding the reproducer and the report's top.
report() {
    local t=$1 rc runs art
    rc=$(cat "$W/$t.rc" 2>/dev/null || echo "?")
    runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$W/$t.log" | tail -n 1)
    art=$(find "$W/art-$t" -type f | head -n 1)
    if [ "$rc" = 0 ] && [ -z "$art" ]; then
        PASS=$((PASS + 1))
        echo "ok   $t: ${runs:-?} inputs, corpus $(ls "tests/fuzz/corpus/$t" | wc -l) seeds + $(ls "$W/corpus-$t" | wc -l) new"
        return
    fi
    FAIL=$((FAIL + 1))
    echo "FAIL $t: exit $rc${art:+, finding ${art##*/}}"
    grep -m1 -E 'ERROR|SUMMARY|Timeout|out-of-memory' "$W/$t.log" | sed 's/^/        | /'
    grep -E '^    #[0-9]+ .* in ' "$W/$t.log" | grep -v -E 'libFuzzer|fuzzer::|__sanitizer|libc' |
        head -n 8 | sed 's/^/        | /'
    [ -n "$art" ] && echo "        | input (base64): $(base64 -w0 < "$art" | head -c 600)"
}

running=0
for t in "${ALL[@]}"; do
    if [ ! -x "$B/fuzz_$t" ]; then
        echo "FAIL $t: no $B/fuzz_$t"
        FAIL=$((FAIL + 1))
        continue
    fi
    fuzz "$t" &
    PIDS+=($!)
    running=$((running + 1))
    if [ "$running" -ge "$FUZZ_JOBS" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait
PIDS=()
for t in "${ALL[@]}"; do [ -x "$B/fuzz_$t" ] && report "$t"; done
echo "fuzz: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
