#!/usr/bin/env bash
# tests/tsan/run.sh — the engine's threads under ThreadSanitizer.
#
# The engine is one event loop or several (src/xfer/loops.c: the tests
# test_loops_* start them) plus the workers that put small downloads on
# disk (src/xfer/land.c) and those that compute MD5s (src/xfer/hashpool.c),
# both on one pool (src/base/workpool.c; its own unit tests under TSan:
# `make SAN=thread build-tsan/unit-tests && build-tsan/unit-tests pool`).
# This builds s3c with TSan (`make SAN=thread`, into build-tsan/), starts its
# own s3emu, and runs the e2e tests that drive those workers hardest: trees of
# small files down and up, sync down, a full disk, interrupts while files are
# landing; ranged and whole downloads checked by MD5 and by CRC, corrupted
# bytes, resumed downloads and uploads (their parts re-hashed by the workers),
# interrupted uploads and downloads. Also the
# credentials' refresh thread (src/auth/keyring.c) and the S3 Express
# sessions' refreshes (src/auth/express.c): uploads that outlive several
# lifetimes of short-lived keys (tests/creds/fake_iam.py issues them), keys
# refused as expired and refreshed, syncs that outlive several 4 s sessions.
# A race report makes s3c exit 66 (TSAN_OPTIONS below), which fails the test that ran it.
#
#   tests/tsan/run.sh            all of them
#   tests/tsan/run.sh engine     the engine's workers only
#   tests/tsan/run.sh refresh    the credential and session refreshes only (about
#                                90 s of short-lived keys, mostly waiting: run-all
#                                runs it beside the fuzzers)
#
# Closes with "tsan: N passed, N failed" ("tsan-refresh: ..." for refresh,
# "tsan-engine: ..." for engine). Exit 0 only when nothing failed.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT" || exit 2
SET=${1:-all}
case $SET in
    all) NAME=tsan ;;
    engine | refresh) NAME=tsan-$SET ;;
    *) echo "usage: tests/tsan/run.sh [engine|refresh]" >&2; exit 2 ;;
esac

make -s SAN=thread -j2 build-tsan/s3c >/dev/null || { echo "tsan: build failed" >&2; exit 1; }
[ -x build/s3emu ] || make -s -j2 build/s3emu >/dev/null || { echo "tsan: no build/s3emu" >&2; exit 1; }

WORK=$(mktemp -d)
EMU_PID=""
cleanup() {
    [ -n "$EMU_PID" ] && kill "$EMU_PID" 2>/dev/null && wait "$EMU_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

build/s3emu --port 0 --access-key tsanaccesskey0001 --secret-key tsan/secret/key/0001 \
    > "$WORK/emu.out" 2> "$WORK/emu.err" &
EMU_PID=$!
url=""
for ((i = 0; i < 100; i++)); do
    url=$(sed -nE 's/^ready (http:\/\/[^ ]+).*/\1/p' "$WORK/emu.out" | head -n 1)
    [ -n "$url" ] && break
    sleep 0.1
done
[ -n "$url" ] || { echo "tsan: s3emu did not start" >&2; exit 1; }

export S3C="$ROOT/build-tsan/s3c"
export S3C_TEST_STORE=s3emu S3C_TEST_ENDPOINT=$url S3C_TEST_REGION=us-east-1
export S3C_TEST_ACCESS_KEY=tsanaccesskey0001 S3C_TEST_SECRET_KEY=tsan/secret/key/0001
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
export E2E_RESULT_FILE=$WORK/result
ENGINE=('test_cp_tree_round_trip_mixed_sizes$' 'test_sync_down_mtime_round_trip$' \
    'test_limits_full_disk' 'test_interrupt_sigterm_recursive_download' 'test_interrupt_kill9_sync_down' \
    'test_mv_s3_to_local_removes_source$' 'test_cp_download_refuses_escaping_keys$' \
    'test_verify_' 'test_interrupt_sigint_download_leaves_no_partial_file' \
    'test_interrupt_sigterm_recursive_upload' 'test_resume_download_after_sigint' 'test_resume_download_of_an_md5' \
    'test_resume_download_bad_bytes_on_disk' 'test_cp_damaged_upload_bytes_are_sent_again' \
    'test_cp_uploads_carry_crc64nvme' 'test_cat_sizes_by_sha256' 'test_cat_corrupt_range' \
    'test_pipe_30MB_stream_round_trips' 'test_pipe_parts_carry_content_md5' 'test_interrupt_sigint_stdin_upload' \
    'test_loops_' 'test_resume_after_kill_sends_only_missing_parts' 'test_checksum_resume_of_a_sha_upload')
# Keys of 8 s across a 30 s upload, keys refused as expired, 4 s Express sessions.
REFRESH=('test_creds_transfer_crosses_three_expiries$' 'test_creds_expired_token_is_refreshed_and_retried$'
    'test_express_sessions_expire_during_a_long_run$')
case $SET in
    engine) tests/e2e/run.sh "${ENGINE[@]}" ;;
    refresh) tests/e2e/run.sh "${REFRESH[@]}" ;;
    *) tests/e2e/run.sh "${ENGINE[@]}" "${REFRESH[@]}" ;;
esac
rc=$?
read -r passed failed _ < "$WORK/result" 2>/dev/null || { passed=0; failed=1; }
echo "$NAME: $passed passed, $failed failed"
exit $rc
