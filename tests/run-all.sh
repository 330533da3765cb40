#!/usr/bin/env bash
# tests/run-all.sh — install what is missing, build, and run every test suite.
#
# The README's test command. Run it as root from anywhere on a Debian 12
# machine (a fresh one is fine: it installs its own dependencies):
#
#     bash tests/run-all.sh
#
# Steps: scripts/deps.sh (and scripts/deps-arm64.sh); make; unit tests; the
# packaging suite (tests/pkg/run.sh); the arm64 build under qemu
# (tests/arm64/run.sh); ASan+UBSan build and unit tests
# under it; the e2e suite (tests/e2e/run.sh) against build/s3emu with the
# ASan+UBSan build of s3c (any sanitizer report fails the test), and, at the
# same time, against a throw-away Ceph RADOS Gateway on a free loopback port
# with the normal build; the emulator's own suite; the fault campaign
# (tests/faults/run.sh), also with the sanitizer build; s3c under valgrind
# memcheck (tests/valgrind/run.sh); a sharded sync as a Slurm job array
# (tests/slurm/run.sh); the libFuzzer targets; last, that the run
# left no untracked file in the checkout (tests/tree-clean.sh: every test
# writes under a temporary directory). Every server it
# starts is stopped by PID on every way out. The last line is the sum over all
# suites, "N passed, N failed"; the exit status is non-zero when anything
# failed.
#
# Knobs (environment):
#   S3C_SKIP_DEPS=1   do not run scripts/deps.sh
#   S3C_SAN=0         skip the ASan+UBSan build and its runs (default 1; the
#                     s3emu e2e suite then runs build/s3c)
#   S3C_E2E_SAN=1     run both e2e suites with build-san/s3c (implies S3C_SAN=1);
#                     by default only the s3emu one does, when S3C_SAN=1
#   S3C_EMU_SHARDS=N  split the s3emu e2e suite into N runs side by side, each
#                     with an s3emu of its own (default 3: the suite mostly waits)
#   S3C_CEPH_SHARDS=N split the Ceph e2e suite into N runs on the one gateway,
#                     each as an S3 user of its own (default 2)
#   S3C_E2E_PARALLEL=0  run the two e2e suites one after the other (default:
#                     the s3emu one in the background while Ceph starts and
#                     its suite runs; they share no port, dir or HOME)
#   S3C_VALGRIND=0    skip the valgrind memcheck run (tests/valgrind/run.sh)
#   S3C_TSAN=0        skip the ThreadSanitizer run (tests/tsan/run.sh: the engine's workers,
#                     credential and Express session refreshes)
#   S3C_SLURM=0       skip the Slurm suite (tests/slurm/run.sh: a sharded sync run
#                     as a 4-task job array on a one-node cluster; also checks the
#                     Kubernetes example); scripts/deps.sh then skips its packages
#   S3C_EMU_SUITE=0   skip the emulator's own suite (tests/emu/run.sh)
#   S3C_BOTODIFF_IAM=0  skip the differential tests of the server-backed
#                     credential providers (tests/creds/botodiff_iam.py)
#   S3C_CEPH=0        skip the Ceph store (and its e2e run)
#   S3C_S3EMU=0       skip the s3emu store
#   S3C_MOTO=0        skip the drop-in differential suite (tests/e2e/test_dropin*.sh,
#                     s3c beside the AWS CLI) against moto's server
#   S3C_FAULTS=0      skip the fault campaign (tests/faults/run.sh), and its
#                     short pass with the ASan+UBSan build
#   S3C_FUZZ=0        skip the libFuzzer runs (tests/fuzz/run.sh; FUZZ_SECONDS each, 12 here)
#   S3C_BOTODIFF=0    skip the credential chain's differential run against
#                     botocore (tests/creds/botodiff.py)
#   S3C_PKG=0         skip the packaging suite (tests/pkg/run.sh: make install,
#                     man page, completions, the .deb built, linted, installed, purged)
#   S3C_ARM64=0       skip the arm64 suite (tests/arm64/run.sh: make ARCH=arm64, the
#                     unit tests and an e2e subset under qemu-user, the arm64 .deb);
#                     scripts/deps-arm64.sh then is not run either
#   S3C_TREE_CHECK=0  skip the check that the run left no untracked files in
#                     the checkout (tests/tree-clean.sh; files that were there
#                     before the run never count)
#   S3C_KEEP=1        keep the work dir (server logs) after the run
#   JOBS=N            make -jN (default: number of cores)
#   E2E_FILTER='re'   run only the e2e tests whose names match
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
exec </dev/null

: "${S3C_SKIP_DEPS:=0}" "${S3C_SAN:=1}" "${S3C_E2E_SAN:=0}" "${S3C_CEPH:=1}"
: "${S3C_S3EMU:=1}" "${S3C_KEEP:=0}" "${E2E_FILTER:=}" "${S3C_FAULTS:=1}" "${S3C_FUZZ:=1}"
: "${S3C_E2E_PARALLEL:=1}" "${S3C_VALGRIND:=1}" "${S3C_EMU_SUITE:=1}" "${S3C_TSAN:=1}"
: "${S3C_BOTODIFF:=1}" "${S3C_SLURM:=1}" "${S3C_MOTO:=1}"
export S3C_SLURM
: "${S3C_PKG:=1}" "${S3C_EMU_SHARDS:=3}" "${S3C_CEPH_SHARDS:=2}"
: "${S3C_ARM64:=1}"
: "${S3C_TREE_CHECK:=1}"
: "${S3C_BOTODIFF_IAM:=1}"
: "${JOBS:=$(nproc 2>/dev/null || echo 2)}"
[ "$S3C_E2E_SAN" = 1 ] && S3C_SAN=1

T_START=$SECONDS
PASSED=0
FAILED=0
SUMMARY=()              # one line per suite, printed at the end
SERVER_DIRS=()          # dirs of servers to stop with scripts/server-stop.sh
EMU_PIDS=()             # the s3emu processes, one per shard of its e2e suite
WORK=$(mktemp -d "${TMPDIR:-/tmp}/s3c-run-all.XXXXXX")

CHILD=""                # the running step: its PID is also its process group
BG=()                   # steps running in the background (each its own group)

# The sanitizer runtimes' options for every run of a SAN=1 binary: leaks on,
# UBSan fatal with a stack. (tests/e2e/lib.sh adds a log_path per test.)
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# run_step CMD ARGS...: run CMD in a process group of its own and wait for it.
# Waiting with the `wait` builtin lets a signal interrupt us at once; the trap
# then stops the whole step (its group) and the servers.
run_step() {
    setsid -w "$@" &
    CHILD=$!
    wait "$CHILD"
    local rc=$?
    CHILD=""
    return $rc
}

cleanup() {
    local d p
    for p in "$CHILD" "${BG[@]+"${BG[@]}"}"; do
        [ -n "$p" ] || continue
        kill -TERM -- "-$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    for d in "${SERVER_DIRS[@]+"${SERVER_DIRS[@]}"}"; do
        scripts/server-stop.sh "$d" || echo "run-all: could not stop the server in $d" >&2
    done
    for p in "${EMU_PIDS[@]+"${EMU_PIDS[@]}"}"; do
        kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null
    done
    if [ "$S3C_KEEP" = 1 ]; then
        echo "run-all: work dir kept: $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT
trap 'echo "run-all: interrupted" >&2; exit 130' INT
trap 'echo "run-all: terminated" >&2; exit 143' TERM HUP

step() { printf '\n== %s  [%d s]\n' "$*" $((SECONDS - T_START)); }

# record NAME PASSED FAILED [NOTE]: add a suite's counts to the totals.
record() {
    PASSED=$((PASSED + $2))
    FAILED=$((FAILED + $3))
    SUMMARY+=("$(printf '  %-14s %s passed, %s failed%s' "$1" "$2" "$3" "${4:+  ($4)}")")
}
note() { SUMMARY+=("$(printf '  %-14s %s' "$1" "$2")"); }

summary() {
    printf '\n== summary  [%d s]\n' $((SECONDS - T_START))
    printf '%s\n' "${SUMMARY[@]}"
    echo "$PASSED passed, $FAILED failed"
}

# finish: print the summary and exit with the right status.
finish() {
    summary
    [ "$FAILED" -eq 0 ] && exit 0
    exit 1
}

# run_unit NAME BINARY: run a unit-test binary, count from its "unit: N passed,
# N failed" line; a crash without that line counts as one failure.
run_unit() {
    local name=$1 bin=$2 out line rc
    out=$WORK/$name.log
    run_step "$bin" > "$out" 2>&1
    rc=$?
    cat "$out"
    line=$(grep -E '^unit: [0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
    if [ -z "$line" ]; then
        record "$name" 0 1 "no summary line, exit $rc"
        return
    fi
    local p f
    p=$(sed -E 's/^unit: ([0-9]+) passed, ([0-9]+) failed.*/\1/' <<<"$line")
    f=$(sed -E 's/^unit: ([0-9]+) passed, ([0-9]+) failed.*/\2/' <<<"$line")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        record "$name" "$p" 1 "exit $rc"
    else
        record "$name" "$p" "$f"
    fi
}

# free_port: print a loopback port P such that P and P+1 are both free
# (below the kernel's ephemeral range, so outgoing connections don't race us).
free_port() {
    local p i
    for ((i = 0; i < 100; i++)); do
        p=$((20000 + RANDOM % 12000))
        (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && continue
        (exec 3<>"/dev/tcp/127.0.0.1/$((p + 1))") 2>/dev/null && continue
        echo "$p"
        return 0
    done
    return 1
}

# e2e_cmd STORE ENV_FILE BINARY [SHARD]: the command that runs
# tests/e2e/run.sh with s3c BINARY against the store whose S3C_TEST_*
# variables ENV_FILE exports (only shard SHARD, I/N, of its tests if given).
e2e_cmd() {
    rm -f "$WORK/e2e-$1.result"
    # shellcheck disable=SC2016
    E2E_CMD=(env S3C="$3" E2E_SHARD="${4:-}" E2E_RESULT_FILE="$WORK/e2e-$1.result" bash -c
        'set -a; . "$1"; set +a; shift; exec tests/e2e/run.sh "$@"' _ "$2")
    # shellcheck disable=SC2206
    E2E_CMD+=($E2E_FILTER)
}

# run_e2e STORE ENV_FILE BINARY: run the suite now (output as it goes) and
# record its counts.
run_e2e() {
    e2e_cmd "$@"
    run_step "${E2E_CMD[@]}"
    record_e2e "$1"
}

# bg_e2e STORE ENV_FILE BINARY [SHARD]: start the suite in the background, in
# a process group of its own, its output in WORK/e2e-STORE.log; sets BG_E2E.
bg_e2e() {
    e2e_cmd "$@"
    setsid -w "${E2E_CMD[@]}" > "$WORK/e2e-$1.log" 2>&1 &
    BG_E2E=$!
    BG+=("$BG_E2E")
}

# record_e2e STORE [N]: record the counts the suite wrote to its result file
# (the sums of its N shards' files, STORE-0 .. STORE-N-1, when N is given).
record_e2e() {
    local store=$1 p f s k res tp=0 tf=0 ts=0 lost=0
    local files=("$WORK/e2e-$1.result")
    if [ -n "${2:-}" ]; then
        files=()
        for ((k = 0; k < $2; k++)); do files+=("$WORK/e2e-$1-$k.result"); done
    fi
    for res in "${files[@]}"; do
        if [ -s "$res" ]; then
            read -r p f s < "$res"
            tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
        else
            lost=$((lost + 1))
        fi
    done
    if [ $lost -gt 0 ]; then
        record "e2e($store)" "$tp" $((tf + lost)) "$lost of ${#files[@]} runs did not finish"
    else
        record "e2e($store)" "$tp" "$tf" "$( [ "$ts" -gt 0 ] && echo "$ts skipped")"
    fi
}

# bg_shards STORE N BINARY ENV_FILE...: start N runs of the suite in the
# background, run K against the store of the Kth ENV_FILE (the last one for
# any K beyond them), each with shard K/N of the tests; sets SHARD_PIDS.
bg_shards() {
    local store=$1 n=$2 bin=$3 k env
    shift 3
    SHARD_PIDS=()
    for ((k = 0; k < n; k++)); do
        env=${*:k + 1:1}
        [ -n "$env" ] || env=${*: -1}
        bg_e2e "$store-$k" "$env" "$bin" "$k/$n"
        SHARD_PIDS+=("$BG_E2E")
    done
}

# wait_shards STORE PID...: wait for the runs bg_shards started, show their
# output one after the other, record their summed counts.
wait_shards() {
    local store=$1 k=0 p keep=() q
    shift
    for p in "$@"; do
        wait "$p"
        for q in "${BG[@]}"; do [ "$q" = "$p" ] || keep+=("$q"); done
        BG=("${keep[@]+"${keep[@]}"}")
        keep=()
        cat "$WORK/e2e-$store-$k.log"
        k=$((k + 1))
    done
    record_e2e "$store" $#
}

# run_counted NAME CMD...: run a suite that ends with "NAME: N passed, N
# failed"; show its failures and summary (every check is in its log), record it.
run_counted() {
    local name=$1 log=$WORK/$1.log line p f rc
    shift
    run_step "$@" > "$log" 2>&1
    rc=$?
    grep -vE '^ok ' "$log"
    line=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed" "$log" | tail -n 1)
    if [ -z "$line" ]; then
        record "$name" 0 1 "no summary line, exit $rc"
        return
    fi
    p=$(sed -E 's/^[^:]*: ([0-9]+) passed, ([0-9]+) failed.*/\1/' <<<"$line")
    f=$(sed -E 's/^[^:]*: ([0-9]+) passed, ([0-9]+) failed.*/\2/' <<<"$line")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        record "$name" "$p" 1 "exit $rc"
    else
        record "$name" "$p" "$f"
    fi
}

# bg_counted NAME CMD...: start a suite like run_counted's in the background,
# in a process group of its own (for suites that mostly wait: they overlap a
# step that computes); sets BG_PID. wait_counted NAME PID: wait, then record it.
bg_counted() {
    local name=$1
    shift
    setsid -w "$@" > "$WORK/$name.log" 2>&1 &
    BG_PID=$!
    BG+=("$BG_PID")
}
wait_counted() {
    local name=$1 pid=$2 log=$WORK/$1.log line p f rc keep=() q
    wait "$pid"
    rc=$?
    for q in "${BG[@]}"; do [ "$q" = "$pid" ] || keep+=("$q"); done
    BG=("${keep[@]+"${keep[@]}"}")
    grep -vE '^ok ' "$log"
    line=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed" "$log" | tail -n 1)
    if [ -z "$line" ]; then
        record "$name" 0 1 "no summary line, exit $rc"
        return
    fi
    p=$(sed -E 's/^[^:]*: ([0-9]+) passed, ([0-9]+) failed.*/\1/' <<<"$line")
    f=$(sed -E 's/^[^:]*: ([0-9]+) passed, ([0-9]+) failed.*/\2/' <<<"$line")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        record "$name" "$p" 1 "exit $rc"
    else
        record "$name" "$p" "$f"
    fi
}

echo "s3c run-all: $(date -u '+%Y-%m-%d %H:%M:%S') UTC, $(nproc) cores, CI=${CI:-}"

# Suites turned off by the environment are named in the summary, so a run
# that skipped them says so (and why) instead of looking complete.
off=()
for v in S3C_SAN S3C_CEPH S3C_S3EMU S3C_MOTO S3C_EMU_SUITE S3C_FAULTS S3C_FUZZ S3C_VALGRIND S3C_TSAN \
    S3C_BOTODIFF S3C_BOTODIFF_IAM S3C_SLURM S3C_PKG S3C_ARM64 S3C_TREE_CHECK; do
    [ "${!v}" = 1 ] || off+=("$v=${!v}")
done
[ ${#off[@]} -eq 0 ] || note "not run" "${off[*]} (set in the environment)"
[ -z "$E2E_FILTER" ] || note "e2e filter" "only the e2e tests matching E2E_FILTER='$E2E_FILTER'"

# The untracked files already in the checkout: the last step counts only new ones.
if [ "$S3C_TREE_CHECK" = 1 ]; then
    tests/tree-clean.sh --list > "$WORK/untracked.before" 2>/dev/null
    n_before=$(grep -c . "$WORK/untracked.before")
    [ "$n_before" -eq 0 ] ||
        note tree-before "$n_before untracked file(s) were there before the run: not counted"
fi

# ------------------------------------------------------------------ deps --
if [ "$S3C_SKIP_DEPS" != 1 ]; then
    step "dependencies"
    deps_args=()
    [ "$S3C_FUZZ" = 1 ] && deps_args=(--fuzz)
    if ! run_step scripts/deps.sh "${deps_args[@]+"${deps_args[@]}"}"; then
        record deps 0 1 "scripts/deps.sh failed"
        finish
    fi
    if [ "$S3C_ARM64" = 1 ] && ! run_step scripts/deps-arm64.sh; then
        record deps-arm64 0 1 "scripts/deps-arm64.sh failed"
        finish
    fi
fi

# ----------------------------------------------------------------- build --
step "build: make -j$JOBS"
if ! run_step make -j"$JOBS"; then
    record build 0 1 "make failed"
    finish
fi

# ---------------------------------------------------------------- s3rver --
# s3rver (npm; an S3 written by others, without UploadPartCopy) for the e2e
# tests that pair stores (tests/e2e/test_xpair.sh, test_copy_model_s3rver):
# installed with npm under build/npm, never globally, once (kept until make
# clean), in the background while lint and the unit tests run (about 13 s).
# node and npm come with the machine image; without npm those tests skip.
S3RVER_VERSION=3.7.1
NPM_PID=""
if [ -x build/npm/node_modules/.bin/s3rver ]; then
    :
elif command -v npm >/dev/null; then
    mkdir -p build/npm
    npm install --prefix build/npm --no-audit --no-fund --loglevel=error "s3rver@$S3RVER_VERSION" \
        > "$WORK/npm.log" 2>&1 &
    NPM_PID=$!
    BG+=("$NPM_PID")
else
    note s3rver "npm is not on PATH: the tests with s3rver skip"
fi

# ------------------------------------------------------------------ lint --
# make lint: no banned function in any tracked source (strcpy, sprintf, ...)
# and the layer check (scripts/check-layers.sh: the engine's files call each
# other one way), on the objects the build just made.
step "lint: make lint"
if run_step make -s lint; then record lint 1 0; else record lint 0 1 "make lint failed"; fi

# ------------------------------------------------------------------ unit --
step "unit tests"
run_unit unit build/unit-tests

# -------------------------------------------------------------- botodiff --
if [ "$S3C_BOTODIFF" = 1 ]; then
    step "credential chain against botocore (tests/creds/botodiff.py)"
    out=$WORK/botodiff.log
    run_step tests/creds/botodiff.py --s3c build/s3c -n 200 > "$out" 2>&1
    rc=$?
    cat "$out"
    line=$(grep -E '^botodiff: [0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
    if [ -z "$line" ]; then
        record botodiff 0 1 "no summary line, exit $rc"
    else
        record botodiff "$(sed -E 's/^botodiff: ([0-9]+) passed.*/\1/' <<<"$line")" \
            "$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")"
    fi
fi

# ------------------------------------------------------------------- pkg --
# tests/pkg/run.sh: make install's layout, s3c(1) rendered by man, the
# completions of bash, zsh and fish (s3:// from an s3emu of its own), and the
# .deb built in a copy of the tree, linted, installed, run and purged.
if [ "$S3C_PKG" = 1 ]; then
    step "packaging: make install, man page, completions, .deb"
    JOBS=$JOBS run_counted pkg tests/pkg/run.sh
fi

# ----------------------------------------------------------------- arm64 --
# tests/arm64/run.sh: make ARCH=arm64 (a multiarch cross build), its unit
# tests under qemu-aarch64-static, `s3c version` naming the aarch64 kernels,
# an e2e subset with the arm64 s3c under qemu against build/s3emu, and the
# arm64 .deb (dpkg-buildpackage -a arm64, lintian, run under qemu).
if [ "$S3C_ARM64" = 1 ]; then
    step "arm64: cross build, unit tests and e2e subset under qemu, .deb"
    JOBS=$JOBS run_counted arm64 tests/arm64/run.sh
fi

SAN_OK=0
if [ "$S3C_SAN" = 1 ]; then
    step "ASan+UBSan build: make SAN=1 -j$JOBS"
    if run_step make SAN=1 -j"$JOBS"; then
        SAN_OK=1
        step "unit tests under ASan+UBSan"
        run_unit unit-san build-san/unit-tests
    else
        record unit-san 0 1 "make SAN=1 failed"
    fi
fi

# The s3c each e2e suite runs: s3emu's with the sanitizer build (when there is
# one), Ceph's with the normal build, so both builds meet a real store.
E2E_BIN_CEPH=$ROOT/build/s3c
E2E_BIN_EMU=$ROOT/build/s3c
[ "$SAN_OK" = 1 ] && E2E_BIN_EMU=$ROOT/build-san/s3c
[ "$S3C_E2E_SAN" = 1 ] && E2E_BIN_CEPH=$ROOT/build-san/s3c

if [ -n "$NPM_PID" ]; then
    step "s3rver: npm install under build/npm"
    wait "$NPM_PID"
    keep=()
    for p in "${BG[@]}"; do [ "$p" = "$NPM_PID" ] || keep+=("$p"); done
    BG=("${keep[@]+"${keep[@]}"}")
    if [ -x build/npm/node_modules/.bin/s3rver ]; then
        record s3rver 1 0
    else
        cat "$WORK/npm.log"
        record s3rver 0 1 "npm install s3rver@$S3RVER_VERSION failed: the tests with s3rver skip"
    fi
fi

# ------------------------------------------------------------------ s3emu --
# `s3emu --port 0 --access-key K --secret-key S` prints "ready http://HOST:PORT"
# on stdout when it listens, and runs until SIGTERM. Its e2e suite runs as
# S3C_EMU_SHARDS runs side by side, each against an s3emu of its own (tests
# change the emulator's model and count what it served), started first, in the
# background when S3C_E2E_PARALLEL=1, and collected after Ceph's; the runs use
# different stores, ports, temp dirs and HOMEs. The suite mostly waits (for
# latency it asks the emulator for, for timeouts, for the AWS CLI's start):
# on 2 cores, 3 runs take about a third of the time of one.
EMU_E2E=""              # "bg": its suite runs in the background; "now": run it after Ceph
EMU_ENVS=()             # one env file per s3emu started
# start_emu K: start s3emu number K; its env in WORK/s3emu-K.env.
start_emu() {
    local k=$1 emu_ak=s3emutestaccesskey01
    local emu_sk=s3emu/test/secret+key/000000000000000000000
    local emu_out=$WORK/s3emu-$k.out emu_url="" i rc pid
    if [ ! -x build/s3emu ]; then     # make succeeded: a missing emulator is a failure
        record "e2e(s3emu)" 0 1 "no build/s3emu after make"
        return 1
    fi
    build/s3emu --port 0 --access-key "$emu_ak" --secret-key "$emu_sk" \
        > "$emu_out" 2> "$WORK/s3emu-$k.err" &
    pid=$!
    EMU_PIDS+=("$pid")
    for ((i = 0; i < 100; i++)); do        # up to 10 s
        emu_url=$(sed -nE 's/^ready (http:\/\/[^ ]+).*/\1/p' "$emu_out" | head -n 1)
        [ -n "$emu_url" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if [ -n "$emu_url" ]; then
        echo "s3emu $k: pid $pid, $emu_url"
        cat > "$WORK/s3emu-$k.env" <<ENV
S3C_TEST_STORE=s3emu
S3C_TEST_ENDPOINT=$emu_url
S3C_TEST_ACCESS_KEY='$emu_ak'
S3C_TEST_SECRET_KEY='$emu_sk'
S3C_TEST_REGION=us-east-1
ENV
        EMU_ENVS+=("$WORK/s3emu-$k.env")
        return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
        wait "$pid"
        rc=$?
        record "e2e(s3emu)" 0 1 "build/s3emu exited $rc at once"
    else
        record "e2e(s3emu)" 0 1 "build/s3emu printed no 'ready' line in 10 s"
    fi
    tail -n 5 "$WORK/s3emu-$k.err" >&2
    return 1
}
# stop_emus: stop every s3emu; say how one that died in the middle ended (it
# fails every test of its run after).
stop_emus() {
    local p k=0
    for p in "${EMU_PIDS[@]+"${EMU_PIDS[@]}"}"; do
        if kill -0 "$p" 2>/dev/null; then
            kill -TERM "$p"
            wait "$p" 2>/dev/null
        else
            wait "$p" 2>/dev/null
            echo "s3emu $k (pid $p) died during its e2e run, exit status $?; its last words:" >&2
            tail -n 20 "$WORK/s3emu-$k.err" >&2
        fi
        k=$((k + 1))
    done
    EMU_PIDS=()
}

if [ "$S3C_S3EMU" = 1 ]; then
    step "s3emu: $S3C_EMU_SHARDS of them"
    emu_ok=1
    for ((k = 0; k < S3C_EMU_SHARDS; k++)); do start_emu "$k" || { emu_ok=0; break; }; done
    if [ $emu_ok = 1 ]; then
        EMU_E2E="now"
        if [ "$S3C_E2E_PARALLEL" = 1 ] && [ "$S3C_CEPH" = 1 ]; then
            step "e2e against s3emu (${E2E_BIN_EMU#"$ROOT"/}), $S3C_EMU_SHARDS runs in the background"
            bg_shards s3emu "$S3C_EMU_SHARDS" "$E2E_BIN_EMU" "${EMU_ENVS[@]}"
            EMU_E2E="bg"
            EMU_SHARD_PIDS=("${SHARD_PIDS[@]}")
        fi
    else
        stop_emus
    fi
fi

# ------------------------------------------------------------------ ceph --
if [ "$S3C_CEPH" = 1 ]; then
    step "Ceph RADOS Gateway (memstore) on loopback"
    ceph_dir=$WORK/ceph
    ceph_ok=0
    for attempt in 1 2; do
        port=$(free_port) || break
        SERVER_DIRS+=("$ceph_dir")
        t0=$SECONDS
        if S3_USERS=$S3C_CEPH_SHARDS run_step scripts/ceph-rgw-start.sh "$ceph_dir" "$port"; then
            echo "ceph: up on port $port in $((SECONDS - t0)) s"
            ceph_ok=1
            break
        fi
        scripts/server-stop.sh "$ceph_dir"
        echo "ceph: start attempt $attempt failed" >&2
    done
    if [ $ceph_ok = 1 ]; then
        step "e2e against Ceph (${E2E_BIN_CEPH#"$ROOT"/}), $S3C_CEPH_SHARDS runs on the one gateway, a user each"
        ceph_envs=("$ceph_dir/s3.env")
        for ((k = 1; k < S3C_CEPH_SHARDS; k++)); do ceph_envs+=("$ceph_dir/s3-$k.env"); done
        bg_shards ceph "$S3C_CEPH_SHARDS" "$E2E_BIN_CEPH" "${ceph_envs[@]}"
        wait_shards ceph "${SHARD_PIDS[@]}"
    else
        record "e2e(ceph)" 0 1 "Ceph did not start"
    fi
    scripts/server-stop.sh "$ceph_dir"
fi

if [ "$EMU_E2E" = bg ]; then
    step "e2e against s3emu (${E2E_BIN_EMU#"$ROOT"/}): waiting for the background runs"
    wait_shards s3emu "${EMU_SHARD_PIDS[@]}"
elif [ "$EMU_E2E" = now ]; then
    step "e2e against s3emu (${E2E_BIN_EMU#"$ROOT"/}), $S3C_EMU_SHARDS runs"
    bg_shards s3emu "$S3C_EMU_SHARDS" "$E2E_BIN_EMU" "${EMU_ENVS[@]}"
    wait_shards s3emu "${SHARD_PIDS[@]}"
fi
stop_emus

# ------------------------------------------------------------------ moto --
# The drop-in differential suite (tests/e2e/test_dropin*.sh: the same
# commands through s3c and /usr/bin/aws, outputs and exits compared) once
# more against moto's server, an S3 model written by others (issue 23), and
# sync --checksum's tests (issue 26: test_sync_checksum*) and the mtimes and
# modes kept in metadata (test_fattr*, with rclone and s3cmd), with build/s3c.
# moto_server comes with the machine image's Python.
if [ "$S3C_MOTO" = 1 ]; then
    step "e2e drop-in suite against moto's server"
    if ! command -v moto_server >/dev/null; then
        note "e2e(moto)" "moto_server is not on PATH: not run"
    elif port=$(free_port); then
        (cd "$WORK" && exec setsid moto_server -p "$port") > "$WORK/moto.log" 2>&1 &
        MOTO_PID=$!
        BG+=("$MOTO_PID")
        for ((i = 0; i < 200; i++)); do
            curl -s -o /dev/null "http://127.0.0.1:$port/" && break
            sleep 0.1
        done
        printf '%s\n' "S3C_TEST_STORE=moto" "S3C_TEST_ENDPOINT=http://127.0.0.1:$port" \
            "S3C_TEST_ACCESS_KEY=testing" "S3C_TEST_SECRET_KEY=testing" "S3C_TEST_REGION=us-east-1" > "$WORK/moto.env"
        saved_filter=$E2E_FILTER
        E2E_FILTER='test_dropin|test_sync_checksum|test_fattr'
        run_e2e moto "$WORK/moto.env" "$ROOT/build/s3c"
        E2E_FILTER=$saved_filter
        kill -TERM -- "-$MOTO_PID" 2>/dev/null
        wait "$MOTO_PID" 2>/dev/null
        keep=()
        for p in "${BG[@]}"; do [ "$p" = "$MOTO_PID" ] || keep+=("$p"); done
        BG=("${keep[@]+"${keep[@]}"}")
    else
        record "e2e(moto)" 0 1 "no free port for moto_server"
    fi
fi

# ------------------------------------------------------- the emulator's suite --
# tests/emu/run.sh starts its own build/s3emu and checks it against the S3
# API with the AWS CLI and curl (faults, latency, SigV4, presign, aws-chunked).
# With the ASan+UBSan build (S3C_SAN=1, the default) it runs the sanitizer
# build of the emulator, build-san/s3emu: a sanitizer report on its stderr
# fails the suite. (build/s3emu meets every e2e test, the fault campaign
# and valgrind's run besides.)
run_emu_suite() {
    local name=$1 emu_log=$WORK/$1.log line p f
    shift
    run_step env "$@" tests/emu/run.sh > "$emu_log" 2>&1
    grep -vE '^ok ' "$emu_log"   # failures and the summary; every check is in the log
    line=$(grep -E '^emu: [0-9]+ passed, [0-9]+ failed' "$emu_log" | tail -n 1)
    if [ -n "$line" ]; then
        p=$(sed -E 's/^emu: ([0-9]+) passed, ([0-9]+) failed.*/\1/' <<<"$line")
        f=$(sed -E 's/^emu: ([0-9]+) passed, ([0-9]+) failed.*/\2/' <<<"$line")
        record "$name" "$p" "$f"
    else
        record "$name" 0 1 "no summary line"
    fi
}
if [ "$S3C_S3EMU" = 1 ] && [ "$S3C_EMU_SUITE" = 1 ]; then
    if [ "$SAN_OK" = 1 ] && [ -x build-san/s3emu ]; then
        step "s3emu conformance suite, ASan+UBSan build (build-san/s3emu)"
        run_emu_suite emu-suite-san S3EMU="$ROOT/build-san/s3emu"
    else
        step "s3emu conformance suite"
        run_emu_suite emu-suite S3EMU="$ROOT/build/s3emu"
    fi
fi

# ------------------------------------------ credential providers vs botocore --
# tests/creds/botodiff_iam.py starts its own tests/creds/fake_iam.py (STS,
# SSO, container, IMDS on loopback) and compares `s3c configure list` with
# Debian's botocore on generated profiles and environments (about 20 s).
if [ "$S3C_BOTODIFF_IAM" = 1 ]; then
    step "credential providers against botocore (tests/creds/botodiff_iam.py)"
    run_counted botodiff-iam /usr/bin/python3 tests/creds/botodiff_iam.py --s3c build/s3c
fi

# --------------------------------------------------------- the fault campaign --
# tests/faults/run.sh starts its own build/s3emu with faults on, moves 5,000
# files up, down, S3 to S3 and with mv, and checks every byte with a reader of
# its own; then faults that never clear must end in exit 1 naming each object.
if [ "$S3C_FAULTS" = 1 ]; then
    step "fault campaign"
    run_counted faults tests/faults/run.sh
    # The same with the sanitizer build on a small tree (a sanitizer report
    # on stderr fails it): cp and mv up, down and S3 to S3 under faults.
    if [ "$SAN_OK" = 1 ]; then
        step "fault campaign, ASan+UBSan build, 300 files"
        S3C=$ROOT/build-san/s3c FAULT_FILES=300 FAULT_NAME=faults-san run_counted faults-san tests/faults/run.sh
    fi
fi

# ---------------------------------------------------------------- valgrind --
# tests/valgrind/run.sh: build/s3c under memcheck (--leak-check=full; definite
# and indirect leaks are errors) on cp -r up and down, sync up, down and S3 to
# S3, mv, cp under faults that clear and that never clear, and rm -r of a few
# hundred files against its own build/s3emu.
if [ "$S3C_VALGRIND" = 1 ]; then
    step "valgrind memcheck, ${VG_FILES:-300} files"
    run_counted valgrind tests/valgrind/run.sh
fi

# -------------------------------------------------------------------- tsan --
# tests/tsan/run.sh: build-tsan/s3c (make SAN=thread) on the e2e tests that
# drive the threads that put small downloads on disk (src/xfer/land.c): trees
# down, sync down, a full disk, interrupts; and those that drive the
# credentials' refresh thread (src/auth/keyring.c) and S3 Express session
# refreshes (src/auth/express.c) with short-lived keys and sessions; a race
# report fails its test.
if [ "$S3C_TSAN" = 1 ]; then
    step "ThreadSanitizer: the engine's workers"
    run_counted tsan-engine tests/tsan/run.sh engine
    # The refreshes mostly wait for keys and sessions to age (about 90 s):
    # they run in the background, beside Slurm's suite and the fuzzers.
    step "ThreadSanitizer: credential and Express session refreshes, in the background"
    bg_counted tsan-refresh tests/tsan/run.sh refresh
    TSAN_REFRESH_PID=$BG_PID
fi

# ------------------------------------------------------------------- slurm --
# tests/slurm/run.sh: a one-node Slurm cluster on loopback (munged, slurmctld,
# slurmd: scripts/slurm-start.sh, stopped by PID) runs examples/slurm/sync-array.sh
# as a 4-task job array against its own s3emu, three times (up, again, changes
# with --delete); s3emu's counters and the tasks' lines must show each object
# done once. Also validates examples/kubernetes/indexed-job.yaml. About 20 s.
if [ "$S3C_SLURM" = 1 ]; then
    step "Slurm: a sharded sync as a 4-task job array"
    run_counted slurm timeout -k 10 180 tests/slurm/run.sh
fi

# ----------------------------------------------------------------- fuzzing --
# tests/fuzz/run.sh: each libFuzzer target (XML replies, wildcards, s3:// and
# URLs and local paths, the config files, SigV4, S3 Inventory manifests and
# CSV, credential JSON of processes, IMDS, containers and the caches, the
# resume journal, the hosts file, `run` lines) for FUZZ_SECONDS from its
# committed corpus; any crash, leak or timeout fails it.
# 12 s each (tests/fuzz/run.sh's own default is 20): ten targets two at a
# time take a minute, about what five took at 20 s.
if [ "$S3C_FUZZ" = 1 ]; then
    step "libFuzzer targets, ${FUZZ_SECONDS:-12} s each"
    FUZZ_SECONDS=${FUZZ_SECONDS:-12} JOBS=$JOBS run_counted fuzz tests/fuzz/run.sh
fi

if [ -n "${TSAN_REFRESH_PID:-}" ]; then
    step "ThreadSanitizer: credential and Express session refreshes: waiting for the background run"
    wait_counted tsan-refresh "$TSAN_REFRESH_PID"
fi

# ------------------------------------------------------------ a clean tree --
# Every suite writes under a temporary directory; a file it leaves in the
# checkout gets committed by mistake (as '-/slow' once was). Last, so that
# it sees what every suite left.
if [ "$S3C_TREE_CHECK" = 1 ]; then
    step "work tree: no untracked files left by the run"
    run_counted tree tests/tree-clean.sh "$WORK/untracked.before"
fi

finish
