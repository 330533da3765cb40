#!/usr/bin/env bash
# tests/arm64/run.sh — s3c for arm64 (Graviton, Ampere), built and tested on
# an x86-64 machine: cross-built with Debian's multiarch and run under
# qemu-user (scripts/deps-arm64.sh installs both). Run as root from anywhere.
# Prints "ok NAME" or "FAIL NAME: why" per check, each step's seconds, and
# ends with "arm64: N passed, N failed" (exit 1 on a failure).
#
#   1. make ARCH=arm64: build-arm64/s3c, unit-tests, s3emu, the docs
#   2. build-arm64/unit-tests under qemu-aarch64-static (with the CRC kernel
#      tests: qemu emulates the CRC32 and PMULL instructions, so each kernel
#      is held to the bitwise CRC)
#   3. `s3c version` under qemu names aarch64 and the kernels in use
#   4. a subset of the e2e suite (ARM64_E2E below) with the arm64 s3c under
#      qemu against the native build/s3emu (which must exist: run make first)
#   5. dpkg-buildpackage -a arm64 in a temp copy of the tree; lintian finds
#      no error; the .deb is arm64; dpkg -i installs it here (a foreign
#      architecture to dpkg), the installed /usr/bin/s3c runs under qemu,
#      dpkg --purge leaves none of its files (S3C_ARM64_PKG=0 skips this step)
#
# The e2e subset: what differs on arm64 and the paths that carry it. Every
# checksum algorithm on every upload path and the downloads that verify
# them (the aarch64 CRC kernels, the x86-64 emulator checks them); MD5 of
# parts and full-object CRCs combined on download; a tree of mixed sizes up
# and down (the hash and land workers' hand-offs on a weakly ordered CPU);
# sync both ways. The checksum test goes through the CRCs only
# (ARM64_CK_ALGOS): SHA-1 and SHA-256 are OpenSSL's, the same code on both
# architectures, and with them the test took 242 s of the subset's 362 s.
# Not the rest: under qemu an s3c start costs about 0.1 s and its CPU work
# 5-20 times more, the whole suite would take over an hour; ls and rm of
# 2,500 keys spend their time in the AWS CLI, and the corrupt-GET test
# (three minutes) repeats what the first one covers.
#
# Measured on the 2-core dev machine. Quiet (load 1): unit tests 9 s, the
# e2e subset 37 s (the checksum test 15 s of it), the .deb 46 s, the whole
# script 99 s with build-arm64/ up to date; a build from scratch about 70 s,
# scripts/deps-arm64.sh's first install 48 s. At load 17-20 (other jobs):
# the build 178 s, unit tests 70-83 s, the subset 362 s with all five
# algorithms, the .deb 105 s.
#
# Environment: JOBS (make -jN, default 2), ARM64_E2E (the e2e regex),
# ARM64_CK_ALGOS, S3C_ARM64_PKG=0, S3C_ARM64_KEEP=1 (keep the work dir).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 1
exec </dev/null

: "${JOBS:=2}" "${S3C_ARM64_PKG:=1}" "${S3C_ARM64_KEEP:=0}"
: "${ARM64_CK_ALGOS:=CRC32 CRC32C CRC64NVME}"
: "${ARM64_E2E:=^test_(version|checksum_algorithm_on_every_upload_path|verify_multipart_download_md5_of_parts|verify_multipart_download_full_object_crc|cp_uploads_carry_crc64nvme|cp_tree_round_trip_mixed_sizes|sync_up_then_noop|sync_down_mtime_round_trip)$}"
QEMU=qemu-aarch64-static
PASSED=0
FAILED=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/s3c-arm64.XXXXXX")
EMU_PID=""
PKG_INSTALLED=0

cleanup() {
    [ "$PKG_INSTALLED" = 0 ] || dpkg --purge s3c >/dev/null 2>&1
    if [ -n "$EMU_PID" ] && kill -0 "$EMU_PID" 2>/dev/null; then
        kill -TERM "$EMU_PID" 2>/dev/null
        wait "$EMU_PID" 2>/dev/null
    fi
    if [ "$S3C_ARM64_KEEP" = 1 ]; then
        echo "arm64: work dir kept: $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ok() { echo "ok $1"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL $1: $2"; FAILED=$((FAILED + 1)); }
finish() {
    echo "arm64: $PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ]
    exit $?
}
# timed NAME CMD...: run CMD with its output in WORK/NAME.log; say how long it took.
timed() {
    local name=$1 t0=$SECONDS rc
    shift
    "$@" > "$WORK/$name.log" 2>&1
    rc=$?
    echo "arm64: $name took $((SECONDS - t0)) s"
    return $rc
}

for t in aarch64-linux-gnu-gcc "$QEMU"; do
    command -v "$t" >/dev/null || { fail "tools" "no $t: run scripts/deps-arm64.sh"; finish; }
done

# ---------------------------------------------------------------- 1. build --
if ! timed build make ARCH=arm64 -j"$JOBS"; then
    fail "make ARCH=arm64" "$(grep -E 'error|\*\*\*' "$WORK/build.log" | head -n 5 | tr '\n' ' ')"
    finish
fi
if file -L build-arm64/s3c | grep -q 'ARM aarch64'; then
    ok "make ARCH=arm64: build-arm64/s3c is an aarch64 program"
else
    fail "make ARCH=arm64" "build-arm64/s3c: $(file -L build-arm64/s3c)"
fi

# ----------------------------------------------------------------- 2. unit --
timed unit "$QEMU" build-arm64/unit-tests
line=$(grep -E '^unit: [0-9]+ passed, [0-9]+ failed' "$WORK/unit.log" | tail -n 1)
if [ -n "$line" ] && [[ $line == *", 0 failed" ]]; then
    ok "unit tests under qemu ($line)"
else
    fail "unit tests under qemu" "$(grep -E '^FAIL' "$WORK/unit.log" | head -n 5 | tr '\n' ' ')${line:-no summary line}"
fi

# -------------------------------------------------------------- 3. version --
# qemu emulates a CPU with CRC32 and PMULL: the fast kernels must be the ones in use.
version=$("$QEMU" build-arm64/s3c version 2>&1)
if grep -qE '^cpu: aarch64 .*crc32' <<<"$version" &&
    grep -qxF 'kernels: crc armv8-crc32+pmull, md5 lanes neon' <<<"$version"; then
    ok "s3c version under qemu: aarch64, ARMv8 CRC32, PMULL and NEON kernels"
else
    fail "s3c version under qemu" "$(tr '\n' ' ' <<<"$version")"
fi

# ------------------------------------------------------------------ 4. e2e --
# No binfmt_misc in a container: a wrapper runs the arm64 s3c under qemu.
# The blocking-call checker (build/slowcalls.so, preloaded) is x86-64 code:
# E2E_CHECKER points nowhere, so it is not used (the x86-64 runs use it).
start_emu() {
    local i url=""
    [ -x build/s3emu ] || { echo "no build/s3emu: run make first"; return 1; }
    build/s3emu --port 0 --access-key s3emutestaccesskey01 \
        --secret-key 's3emu/test/secret+key/000000000000000000000' > "$WORK/s3emu.out" 2> "$WORK/s3emu.err" &
    EMU_PID=$!
    for ((i = 0; i < 100; i++)); do
        url=$(sed -nE 's/^ready (http:\/\/[^ ]+).*/\1/p' "$WORK/s3emu.out" | head -n 1)
        [ -n "$url" ] && break
        sleep 0.1
    done
    [ -n "$url" ] || { echo "s3emu printed no ready line"; return 1; }
    EMU_URL=$url
}
if start_emu > "$WORK/emu-start.log" 2>&1; then
    mkdir -p "$WORK/bin" "$WORK/tmp"
    printf '#!/bin/sh\nexec %q %q "$@"\n' "$(command -v "$QEMU")" "$ROOT/build-arm64/s3c" > "$WORK/bin/s3c"
    chmod +x "$WORK/bin/s3c"
    timed e2e env S3C="$WORK/bin/s3c" E2E_CHECKER=/nonexistent TMPDIR="$WORK/tmp" CK_ALGOS="$ARM64_CK_ALGOS" \
        E2E_RESULT_FILE="$WORK/e2e.result" S3C_TEST_STORE=s3emu S3C_TEST_ENDPOINT="$EMU_URL" \
        S3C_TEST_ACCESS_KEY=s3emutestaccesskey01 \
        S3C_TEST_SECRET_KEY='s3emu/test/secret+key/000000000000000000000' S3C_TEST_REGION=us-east-1 \
        tests/e2e/run.sh "$ARM64_E2E"
    grep -E '^  (ok|FAIL|skip) ' "$WORK/e2e.log"
    if [ -s "$WORK/e2e.result" ]; then
        read -r p f s < "$WORK/e2e.result"
        if [ "$f" = 0 ] && [ "$p" -gt 0 ]; then
            ok "e2e subset under qemu against s3emu: $p passed, $s skipped"
        else
            fail "e2e subset under qemu against s3emu" "$p passed, $f failed"
            sed -n '/FAILED/,$p' "$WORK/e2e.log" | head -n 40
        fi
    else
        fail "e2e subset under qemu" "the suite did not finish: $(tail -n 3 "$WORK/e2e.log" | tr '\n' ' ')"
    fi
    kill -TERM "$EMU_PID" 2>/dev/null
    wait "$EMU_PID" 2>/dev/null
    EMU_PID=""
else
    fail "s3emu for the e2e subset" "$(tr '\n' ' ' < "$WORK/emu-start.log")"
fi

# -------------------------------------------------------------- 5. package --
pkg_build() {
    mkdir -p "$WORK/pkg/src" &&
        git ls-files -z | xargs -0 cp --parents -t "$WORK/pkg/src" &&
        (cd "$WORK/pkg/src" && dpkg-buildpackage -a arm64 -us -uc -b -j"$JOBS")
}
# pkg_install DEB: dpkg -i the arm64 .deb on this x86-64 machine (dpkg knows
# arm64 from scripts/deps-arm64.sh, and the :arm64 libraries it depends on
# came with the -dev packages), run the installed /usr/bin/s3c under qemu,
# find its man page and completion, purge it and find nothing of it left.
# Not when an s3c package is installed here already (the x86-64 one, say).
pkg_install() {
    local deb=$1 files out f left=()
    if dpkg -s s3c >/dev/null 2>&1; then
        fail "dpkg -i the arm64 .deb" "an s3c package is installed here already: $(dpkg-query -W -f '${Package}:${Architecture} ${Version}' s3c)"
        return
    fi
    files=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }')
    PKG_INSTALLED=1
    if ! timed pkg-install dpkg -i "$deb"; then
        fail "dpkg -i the arm64 .deb" "$(tail -n 5 "$WORK/pkg-install.log" | tr '\n' ' ')"
        dpkg --purge s3c >/dev/null 2>&1
        PKG_INSTALLED=0
        return
    fi
    out=$(dpkg-query -W -f '${Package}:${Architecture} ${Status}' s3c 2>&1)
    if [ "$out" = "s3c:arm64 install ok installed" ]; then
        ok "dpkg -i installs the arm64 .deb ($out)"
    else
        fail "dpkg -i the arm64 .deb" "dpkg says: $out"
    fi
    out=$("$QEMU" /usr/bin/s3c version 2>&1)
    if head -n 1 <<<"$out" | grep -qxF "s3c $VERSION" && grep -q '^cpu: aarch64' <<<"$out"; then
        ok "the installed /usr/bin/s3c runs under qemu: s3c $VERSION on aarch64"
    else
        fail "the installed /usr/bin/s3c under qemu" "$(head -n 3 <<<"$out" | tr '\n' ' ')"
    fi
    if [ -f /usr/share/man/man1/s3c.1.gz ] && [ -f /usr/share/bash-completion/completions/s3c ]; then
        ok "installed: the man page and the bash completion"
    else
        fail "installed" "no /usr/share/man/man1/s3c.1.gz or bash completion"
    fi
    PKG_INSTALLED=0
    if ! dpkg --purge s3c > "$WORK/pkg-purge.log" 2>&1; then
        fail "dpkg --purge s3c (arm64)" "$(tail -n 3 "$WORK/pkg-purge.log" | tr '\n' ' ')"
        return
    fi
    for f in $files; do [ ! -e "$f" ] || left+=("$f"); done
    if [ ${#left[@]} = 0 ] && ! dpkg -s s3c >/dev/null 2>&1; then
        ok "dpkg --purge removes every file of the arm64 .deb"
    else
        fail "dpkg --purge s3c (arm64)" "left: ${left[*]}"
    fi
}
if [ "$S3C_ARM64_PKG" = 1 ]; then
    VERSION=$(cat VERSION)
    deb=$WORK/pkg/s3c_${VERSION}_arm64.deb
    if timed pkg-build pkg_build && [ -f "$deb" ]; then
        ok "dpkg-buildpackage -a arm64: $(basename "$deb")"
        if lintian --fail-on error "$deb" > "$WORK/lintian.log" 2>&1; then
            ok "lintian: no error in the arm64 .deb"
        else
            fail "lintian" "$(grep -E '^E:' "$WORK/lintian.log" | head -n 5 | tr '\n' ' ')"
        fi
        arch=$(dpkg-deb -f "$deb" Architecture)
        [ "$arch" = arm64 ] && ok "the .deb's Architecture is arm64" || fail "the .deb's Architecture" "$arch"
        pkg_install "$deb"
    else
        fail "dpkg-buildpackage -a arm64" "$(tail -n 5 "$WORK/pkg-build.log" | tr '\n' ' ')"
    fi
fi

finish
