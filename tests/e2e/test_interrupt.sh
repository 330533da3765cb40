# tests/e2e/test_interrupt.sh — issue 6: signals and kill -9 in the middle of
# transfers.
# shellcheck shell=bash
#
# SIGINT and SIGTERM both make s3c stop its requests, abort its multipart
# uploads, remove its temp files and exit 130 (SIGTERM: 143; README, "Exit codes"). Nothing
# half-written may stay at any destination: no object from a cut upload, no
# partial or temp file from a cut download, no multipart upload open. After
# kill -9 nothing can clean up, but running the same command again must give
# the same result as an uninterrupted run.
#
# --bwlimit (the client's own token bucket) makes a transfer slow enough to
# interrupt on any store; each test waits for a visible sign that the transfer
# is under way (a multipart upload open, a temp file on disk) before it
# signals. (--resume has tests of its own: test_resume.sh.)

TI_MIB=$((1024 * 1024))

# _ti_bg ARGS...: start s3c ARGS in the background; TI_PID, TI_CMD.
_ti_bg() {
    "$S3C" "$@" > bg.out 2> bg.err &
    TI_PID=$!
    TI_CMD="s3c $*"
}

# _ti_wait_for SECONDS CMD...: poll CMD until it succeeds; fail if s3c ends
# first or SECONDS pass.
_ti_wait_for() {
    local limit=$1 i
    shift
    for ((i = 0; i < limit * 10; i++)); do
        "$@" && return 0
        kill -0 "$TI_PID" 2>/dev/null || t_fail "s3c ended before it could be interrupted (waiting for: $*)"
        sleep 0.1
    done
    kill -9 "$TI_PID"
    t_fail "no sign of a transfer under way after $limit s (waiting for: $*)"
}

# _ti_stop SIGNAL: send SIGNAL to s3c, give it 15 s to exit; TI_RC, and the
# last command's details for t_fail.
_ti_stop() {
    local i
    kill -"$1" "$TI_PID"
    for ((i = 0; i < 150; i++)); do
        kill -0 "$TI_PID" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$TI_PID" 2>/dev/null; then
        kill -9 "$TI_PID"
        t_fail "s3c still running 15 s after SIG$1"
    fi
    wait "$TI_PID"
    TI_RC=$?
    # shellcheck disable=SC2034  # read by t_fail
    T_LAST="$TI_CMD (then SIG$1)" T_RC=$TI_RC
    cp bg.out "$T_DIR/.out"
    cp bg.err "$T_DIR/.err"
}

_ti_mpu_open() { [ "$(t_mpu_count "$1")" -gt 0 ]; }
_ti_emu_fired_since() { [ "$(_v_emu_fired "$1")" -gt "$2" ]; }
_ti_tmp_in() { [ -n "$(find "$1" -name '.s3c-*.tmp' 2>/dev/null)" ]; }

# _ti_bucket_sums BUCKET PREFIX: "SHA256  KEY-AFTER-PREFIX" per object, read with curl.
_ti_bucket_sums() {
    local k
    mkdir -p .get
    t_list_keys "$1" | grep "^$2" | LC_ALL=C sort | while IFS= read -r k; do
        s3curl GET "/$1/$k" -o .get/obj || t_fail "could not get s3://$1/$k"
        printf '%s  %s\n' "$(t_sha256 .get/obj)" "${k#"$2"}"
    done
}

# _ti_tree DIR: 20 small files and two of 16 MiB (two parts each).
_ti_tree() {
    local i
    mkdir -p "$1/small"
    for i in $(seq -w 1 20); do printf 'file %s\n' "$i" > "$1/small/f$i"; done
    cp "$(t_data 16MiB-a $((16 * TI_MIB)))" "$1/big-a"
    cp "$(t_data 16MiB-b $((16 * TI_MIB)))" "$1/big-b"
}

test_interrupt_sigterm_recursive_upload_aborts_every_multipart() {
    local b k size
    t_new_bucket b
    mkdir -p tree
    truncate -s 48M tree/a tree/b tree/c        # sparse: quick to make
    printf small > tree/small
    _ti_bg cp -r --bwlimit 16MB/s tree "s3://$b/t/"
    _ti_wait_for 20 _ti_mpu_open "$b"
    sleep 0.5
    _ti_stop TERM
    [ "$TI_RC" = 143 ] || t_fail "exit $TI_RC after SIGTERM, expected 143 (128 + SIGTERM)"
    assert_contains "$(cat bg.err)" "interrupted" "stderr"
    assert_eq 0 "$(t_mpu_count "$b")" "multipart uploads open after SIGTERM"
    # Whatever exists was finished before the signal: whole, never a prefix.
    for k in $(t_list_keys "$b"); do
        size=$(t_head_header "$b" "$k" content-length | tr -d '\r')
        assert_eq "$(stat -c %s "tree/${k#t/}")" "$size" "size of s3://$b/$k"
    done
}

test_interrupt_sigint_stdin_upload_aborts_multipart() {
    local b
    t_new_bucket b
    head -c $((40 * TI_MIB)) /dev/zero | "$S3C" cp --bwlimit 8MB/s - "s3://$b/stdin" > bg.out 2> bg.err &
    TI_PID=$!
    TI_CMD="s3c cp --bwlimit 8MB/s - s3://$b/stdin"
    _ti_wait_for 20 _ti_mpu_open "$b"
    sleep 0.5
    _ti_stop INT
    [ "$TI_RC" = 130 ] || t_fail "exit $TI_RC after SIGINT, expected 130"
    assert_eq 0 "$(t_mpu_count "$b")" "multipart uploads open after SIGINT"
    assert_eq "" "$(t_list_keys "$b")" "keys"
}

test_interrupt_sigint_download_leaves_no_partial_file() {
    local b
    t_new_bucket b
    t_put "$b" big "$(t_data 24MiB $((24 * TI_MIB)))"
    mkdir dl
    _ti_bg cp --bwlimit 8MB/s "s3://$b/big" dl/big
    _ti_wait_for 20 _ti_tmp_in dl
    sleep 0.3
    _ti_stop INT
    [ "$TI_RC" = 130 ] || t_fail "exit $TI_RC after SIGINT, expected 130"
    assert_eq "" "$(find dl -mindepth 1 -type f)" "files left in the destination"
}

test_interrupt_sigterm_recursive_download_keeps_only_whole_files() {
    local b f
    t_new_bucket b
    _ti_tree src
    t_seed_tree "$b" src t/
    t_tree_sums src > want.sums
    _ti_bg cp -r --bwlimit 8MB/s "s3://$b/t/" dl
    _ti_wait_for 20 _ti_tmp_in dl
    sleep 0.3
    _ti_stop TERM
    [ "$TI_RC" = 143 ] || t_fail "exit $TI_RC after SIGTERM, expected 143 (128 + SIGTERM)"
    assert_eq "" "$(find dl -name '.s3c-*')" "temp files left"
    # Every file there is whole: its sum is the source's.
    t_tree_sums dl > got.sums
    while IFS= read -r f; do
        grep -qxF "$f" want.sums || t_fail "a file that is not the source's: $f"
    done < got.sums
    [ "$(grep -c . got.sums)" -lt "$(grep -c . want.sums)" ] ||
        t_fail "every file arrived: the signal came too late to test anything"
}

# kill -9 gives no chance to clean up: a temp file may stay, an upload stay
# open. Running the same sync again must still end with the right tree: the
# temp file is not in the source, so --delete removes it.
test_interrupt_kill9_sync_down_then_same_sync_converges() {
    local b
    t_new_bucket b
    _ti_tree src
    t_seed_tree "$b" src t/
    _ti_bg sync --delete --bwlimit 8MB/s "s3://$b/t/" dl
    _ti_wait_for 20 _ti_tmp_in dl
    sleep 0.3
    _ti_stop KILL
    assert_ok s3c sync --delete "s3://$b/t/" dl
    assert_eq "$(t_tree_sums src)" "$(t_tree_sums dl)" "the tree after the same sync again"
}

test_interrupt_kill9_sync_up_then_same_sync_converges() {
    local b
    t_new_bucket b
    _ti_tree src
    _ti_bg sync --delete --bwlimit 8MB/s src "s3://$b/t/"
    _ti_wait_for 20 _ti_mpu_open "$b"
    sleep 0.3
    _ti_stop KILL
    assert_ok s3c sync --delete src "s3://$b/t/"
    assert_eq "$(t_tree_sums src)" "$(_ti_bucket_sums "$b" t/)" "the bucket after the same sync again"
}

# The signal lands while CreateMultipartUpload is on the wire (s3emu holds
# its answer 3 s): the upload exists at the store but s3c has no id for it
# yet. s3c lets that one request answer, then aborts the upload.
test_interrupt_during_create_aborts_the_upload() {
    local b before
    t_store_is s3emu || t_skip "needs s3emu's delay fault to hold a CreateMultipartUpload"
    t_new_bucket b
    t_at_exit '_v_emu_faults ""'
    _v_emu_faults "delay@op=CreateMultipartUpload,bucket=$b,ms=3000"
    before=$(_v_emu_fired delay)
    truncate -s 20M big
    _ti_bg cp big "s3://$b/big"
    _ti_wait_for 20 _ti_emu_fired_since delay "$before"
    sleep 0.3
    _ti_stop INT
    [ "$TI_RC" = 130 ] || t_fail "exit $TI_RC after SIGINT, expected 130"
    assert_eq 0 "$(t_mpu_count "$b")" "multipart uploads open after SIGINT"
    assert_eq "" "$(t_list_keys "$b")" "keys"
}

# _ti_fired N: s3emu's first fault rule has fired at least N times.
_ti_fired() {
    curl -sS "$S3C_TEST_ENDPOINT/_s3emu/stats" | jq -e "(.rules[0].fired // 0) >= $1" >/dev/null
}

# _ti_stop_quickly SIGNAL SECONDS: _ti_stop, and s3c was gone within SECONDS.
_ti_stop_quickly() {
    local t0=$EPOCHREALTIME secs
    _ti_stop "$1"
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", (b - a) * 1000 }')
    [ "$secs" -lt $(($2 * 1000)) ] || t_fail "s3c took $secs ms to end after SIG$1 (at most $2 s)"
}

# A --all-versions listing's page out on the engine's loop (answered in 30 s)
# is cut off at SIGINT: the run ends at once with 130, the versions left alone.
test_interrupt_sigint_while_a_versions_page_is_out() {
    local b
    [ "$S3C_TEST_STORE" = s3emu ] || t_skip "fault injection is s3emu's"
    t_new_bucket b
    t_versioning "$b" Enabled
    t_put_text "$b" k one
    t_put_text "$b" k two
    curl -sS --fail-with-body -X POST --data-binary "faults=delay@bucket=$b,op=ListObjectVersions,ms=30000" \
        "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null || t_fail "s3emu refused the faults"
    _ti_bg rm -r --all-versions "s3://$b/"
    _ti_wait_for 10 _ti_fired 1
    _ti_stop_quickly INT 3
    curl -sS -X POST --data-binary "faults=" "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null
    assert_eq 130 "$TI_RC" "exit code"
    assert_ok s3c ls --all-versions "s3://$b/k"
    assert_lines 2 "$T_OUT" "both versions still there"
}

# An inventory's data file whose GET is between tries (503s, and s3c's
# backoff after a throttle: up to 1 s, 2 s, 4 s... with jitter) ends at
# SIGINT at once: the backoff is a time the source polls, and a poll after a
# stop ends it (the source closed cuts off a try out).
test_interrupt_sigint_while_an_inventory_file_backs_off() {
    local b c i
    [ "$S3C_TEST_STORE" = s3emu ] || t_skip "fault injection is s3emu's"
    t_new_bucket b
    t_new_bucket c
    mkdir -p tree inv/m inv/data
    for i in 1 2 3; do echo "file $i" > "tree/f$i"; done
    assert_ok s3c cp -r --only-show-errors tree "s3://$b/t/"
    for i in 1 2 3; do
        printf '"%s","t/f%s","%s","2030-01-01T00:00:00.000Z"\n' "$b" "$i" "$(wc -c < "tree/f$i")"
    done | gzip > inv/data/part-0.csv.gz
    printf '{"sourceBucket":"%s","destinationBucket":"arn:aws:s3:::%s","fileFormat":"CSV","fileSchema":"Bucket, Key, Size, LastModifiedDate","files":[{"key":"inv/data/part-0.csv.gz"}]}\n' \
        "$b" "$c" > inv/m/manifest.json
    assert_ok s3c cp -r --only-show-errors inv "s3://$c/inv/"
    curl -sS --fail-with-body -X POST --data-binary "faults=503@bucket=$c,key=inv/data/*,op=GetObject" \
        "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null || t_fail "s3emu refused the faults"
    AWS_MAX_ATTEMPTS=10 _ti_bg cp --from-manifest "s3://$c/inv/m/manifest.json" "s3://$b/t/" down
    _ti_wait_for 10 _ti_fired 3 # in its third backoff (up to 4 s), or its fourth try
    _ti_stop_quickly INT 2
    curl -sS -X POST --data-binary "faults=" "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null
    assert_eq 130 "$TI_RC" "exit code"
    [ ! -e down ] || [ -z "$(ls -A down)" ] || t_fail "a file came down: $(ls down)"
}
