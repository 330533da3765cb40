# tests/e2e/test_trust_mpujournal.sh — issue 22 item 14: a multipart upload
# left open by `kill -9` is never left open for good.
# shellcheck shell=bash
#
# Every multipart upload of a local file is journaled (xfer/journal.h) until
# it completes or is aborted. After kill -9 the record and the upload stay;
# the same command again WITHOUT --resume must abort that upload (the record
# names it) before it uploads afresh, and drop the record only once the store
# confirmed the abort (or said the upload is gone). An abort that fails keeps
# the record, with a warning, so that the next run tries again. A record that
# a live run holds (it is uploading that key right now) is left alone.

TJ_MIB=$((1024 * 1024))

# _tj_uploads BUCKET: the ids of the multipart uploads open in BUCKET, sorted.
_tj_uploads() {
    s3curl GET "/$1?uploads=" | grep -o '<UploadId>[^<]*' | sed 's/<UploadId>//' | LC_ALL=C sort
}

# _tj_record_id: the upload id of the one record in $S3C_STATE_DIR ("" if none).
_tj_record_id() {
    cat "$S3C_STATE_DIR"/*.upload 2>/dev/null | sed -n 's/^upload_id //p'
}

# _tj_kill_mid_upload FILE DST FLAGS...: start `s3c cp FILE DST FLAGS...`,
# kill -9 it once its upload is journaled and open and some parts are on the
# way; TJ_ID is the id of the upload it left.
_tj_kill_mid_upload() {
    local pid i
    "$S3C" cp "$@" > kill.out 2> kill.err &
    pid=$!
    for ((i = 0; i < 200; i++)); do
        [ -n "$(_tj_record_id)" ] && break
        kill -0 "$pid" 2>/dev/null || t_fail "s3c ended before it could be killed: $(cat kill.err)"
        sleep 0.1
    done
    sleep 1
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    TJ_ID=$(_tj_record_id)
    [ -n "$TJ_ID" ] || t_fail "no journal record of the killed upload"
}

# kill -9 mid-upload, then the same command without --resume: the upload the
# killed run left is aborted, the new one lands, nothing stays open.
test_trust_mpujournal_kill9_then_same_cp_aborts_the_left_upload() {
    local b sum
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    cp "$(t_data 64MiB $((64 * TJ_MIB)))" big
    sum=$(t_sha256 big)
    _tj_kill_mid_upload big "s3://$b/big" --part-size 5MiB --concurrency 2 --bwlimit 16MB/s
    assert_eq "$TJ_ID" "$(_tj_uploads "$b")" "uploads open after kill -9 (the journaled one)"

    assert_ok s3c cp big "s3://$b/big" --part-size 5MiB --concurrency 2 --bwlimit 16MB/s
    assert_contains "$T_OUT" "upload: ./big to s3://$b/big"
    assert_not_contains "$T_ERR" "warning" "stderr"
    assert_eq "" "$(_tj_uploads "$b")" "uploads open after the same command again"
    assert_eq "" "$(ls -A "$S3C_STATE_DIR")" "the state directory (record and lock gone)"
    t_get "$b" big got
    assert_file_sha256 got "$sum"
}

# Several files: each record is its key's. A run that uploads one key
# aborts only that key's left upload; the others stay (records and uploads)
# until a run uploads their keys.
test_trust_mpujournal_records_are_per_key() {
    local b pid i n ids
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    mkdir src
    for f in a b c; do cp "$(t_data 16MiB-$f $((16 * TJ_MIB)))" "src/big-$f"; done
    "$S3C" cp -r src "s3://$b/t/" --part-size 5MiB --concurrency 6 --bwlimit 16MB/s > kill.out 2> kill.err &
    pid=$!
    for ((i = 0; i < 200; i++)); do
        [ "$(find "$S3C_STATE_DIR" -name '*.upload' 2>/dev/null | wc -l)" = 3 ] && break
        sleep 0.1
    done
    sleep 0.5
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    n=$(find "$S3C_STATE_DIR" -name '*.upload' | wc -l)
    [ "$n" = 3 ] || t_fail "expected 3 journal records after kill -9, found $n"
    ids=$(cat "$S3C_STATE_DIR"/*.upload | sed -n 's/^upload_id //p' | LC_ALL=C sort)
    assert_eq "$ids" "$(_tj_uploads "$b")" "uploads open after kill -9 (the journaled ones)"

    assert_ok s3c cp src/big-a "s3://$b/t/big-a" --part-size 5MiB
    assert_eq 2 "$(find "$S3C_STATE_DIR" -name '*.upload' | wc -l)" "records left after uploading big-a alone"
    assert_eq "$(cat "$S3C_STATE_DIR"/*.upload | sed -n 's/^upload_id //p' | LC_ALL=C sort)" \
        "$(_tj_uploads "$b")" "uploads open: those of the other two records"

    assert_ok s3c cp -r src "s3://$b/t/" --part-size 5MiB
    assert_eq "" "$(_tj_uploads "$b")" "uploads open after the whole tree again"
    assert_eq "" "$(ls -A "$S3C_STATE_DIR")" "the state directory"
    assert_eq "$(t_tree_sums src)" "$(cd src && for f in big-a big-b big-c; do
        s3curl GET "/$b/t/$f" | sha256sum | sed "s|  -|  $f|"; done)" "the objects"
}

# The abort of the left upload fails (s3emu answers 500 to every
# AbortMultipartUpload): the new upload still lands, a warning names the
# upload, and its record stays for the next run, which aborts it.
test_trust_mpujournal_failed_abort_keeps_the_record_and_warns() {
    local b sum
    t_store_is s3emu || t_skip "needs s3emu's faults to refuse AbortMultipartUpload"
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    cp "$(t_data 64MiB $((64 * TJ_MIB)))" big
    sum=$(t_sha256 big)
    _tj_kill_mid_upload big "s3://$b/big" --part-size 5MiB --concurrency 2 --bwlimit 16MB/s
    t_at_exit '_tj_emu_faults ""'
    _tj_emu_faults "500@op=AbortMultipartUpload,bucket=$b"

    assert_ok s3c cp big "s3://$b/big" --part-size 5MiB
    assert_contains "$T_ERR" "warning: could not abort multipart upload $TJ_ID of s3://$b/big" "stderr"
    assert_contains "$T_ERR" "its journal record is kept" "stderr"
    assert_eq "$TJ_ID" "$(_tj_record_id)" "the record after a failed abort"
    assert_eq "$TJ_ID" "$(_tj_uploads "$b")" "uploads open (the one that could not be aborted)"
    t_get "$b" big got
    assert_file_sha256 got "$sum"

    _tj_emu_faults ""
    assert_ok s3c cp big "s3://$b/big" --part-size 5MiB
    assert_not_contains "$T_ERR" "warning" "stderr"
    assert_eq "" "$(_tj_uploads "$b")" "uploads open after the next run"
    assert_eq "" "$(ls -A "$S3C_STATE_DIR")" "the state directory"
}

# The store cannot be reached for the abort (nothing listens at the
# endpoint): the run fails, the record stays, and the next run, with the
# store back, aborts the upload.
test_trust_mpujournal_unreachable_store_keeps_the_record() {
    local b port
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    cp "$(t_data 64MiB $((64 * TJ_MIB)))" big
    _tj_kill_mid_upload big "s3://$b/big" --part-size 5MiB --concurrency 2 --bwlimit 16MB/s
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

    AWS_ENDPOINT_URL=http://127.0.0.1:$port assert_exit 1 s3c cp big "s3://$b/big" --part-size 5MiB
    assert_eq "$TJ_ID" "$(_tj_record_id)" "the record after a run that could not reach the store"
    assert_eq "$TJ_ID" "$(_tj_uploads "$b")" "uploads open"

    assert_ok s3c cp big "s3://$b/big" --part-size 5MiB
    assert_eq "" "$(_tj_uploads "$b")" "uploads open once the store is back"
    assert_eq "" "$(ls -A "$S3C_STATE_DIR")" "the state directory"
}

# A record whose upload the store no longer knows (aborted by someone else,
# or by a lifecycle rule): the abort answers NoSuchUpload, and the record goes.
test_trust_mpujournal_record_of_a_gone_upload_is_dropped() {
    local b
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    cp "$(t_data 64MiB $((64 * TJ_MIB)))" big
    _tj_kill_mid_upload big "s3://$b/big" --part-size 5MiB --concurrency 2 --bwlimit 16MB/s
    assert_ok awsx s3api abort-multipart-upload --bucket "$b" --key big --upload-id "$TJ_ID"

    assert_ok s3c --debug cp big "s3://$b/big" --part-size 5MiB
    assert_not_contains "$T_ERR" "warning" "stderr"
    assert_contains "$T_ERR" "is gone already" "the debug log"
    assert_eq "" "$(_tj_uploads "$b")" "uploads open"
    assert_eq "" "$(ls -A "$S3C_STATE_DIR")" "the state directory"
}

# A record held by a live run is not a left one: a second run uploading the
# same key meanwhile neither aborts the first run's upload nor touches its
# record, and both end well.
test_trust_mpujournal_live_run_upload_is_not_aborted() {
    local b pid rc sum i
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    cp "$(t_data 64MiB $((64 * TJ_MIB)))" big
    sum=$(t_sha256 big)
    "$S3C" cp big "s3://$b/big" --part-size 5MiB --concurrency 2 --bwlimit 16MB/s > first.out 2> first.err &
    pid=$!
    for ((i = 0; i < 200; i++)); do
        [ -n "$(_tj_record_id)" ] && break
        sleep 0.1
    done
    [ -n "$(_tj_record_id)" ] || { kill -9 "$pid"; t_fail "the first run journaled no upload"; }
    assert_ok s3c --debug cp big "s3://$b/big" --part-size 5MiB
    assert_contains "$T_ERR" "is uploading to this key: its journal record is left alone" "the second run's debug log"
    kill -0 "$pid" 2>/dev/null || t_fail "the first run ended before the second: nothing was tested"
    wait "$pid"
    rc=$?
    assert_eq 0 "$rc" "the first run's exit code ($(cat first.err))"
    assert_eq "" "$(_tj_uploads "$b")" "uploads open"
    assert_eq "" "$(ls -A "$S3C_STATE_DIR")" "the state directory"
    t_get "$b" big got
    assert_file_sha256 got "$sum"
}

# SIGINT, and the run's own Abort fails (s3emu answers 500): the upload stays
# open, so its record stays too and a warning says so; the next run aborts it.
test_trust_mpujournal_sigint_with_failed_abort_keeps_the_record() {
    local b pid rc i id
    t_store_is s3emu || t_skip "needs s3emu's faults to refuse AbortMultipartUpload"
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    cp "$(t_data 64MiB $((64 * TJ_MIB)))" big
    t_at_exit '_tj_emu_faults ""'
    _tj_emu_faults "500@op=AbortMultipartUpload,bucket=$b"
    "$S3C" cp big "s3://$b/big" --part-size 5MiB --concurrency 2 --bwlimit 16MB/s > int.out 2> int.err &
    pid=$!
    for ((i = 0; i < 200; i++)); do
        [ -n "$(_tj_record_id)" ] && break
        sleep 0.1
    done
    id=$(_tj_record_id)
    [ -n "$id" ] || { kill -9 "$pid"; t_fail "no journal record of the upload"; }
    sleep 0.5
    kill -INT "$pid"
    wait "$pid"
    rc=$?
    assert_eq 130 "$rc" "exit code after SIGINT ($(cat int.err))"
    assert_contains "$(cat int.err)" "warning: could not abort multipart upload $id of s3://$b/big" "stderr"
    assert_contains "$(cat int.err)" "its journal record is kept" "stderr"
    assert_eq "$id" "$(_tj_record_id)" "the record after the failed abort"
    assert_eq "$id" "$(_tj_uploads "$b")" "uploads open"

    _tj_emu_faults ""
    assert_ok s3c cp big "s3://$b/big" --part-size 5MiB
    assert_eq "" "$(_tj_uploads "$b")" "uploads open after the next run"
    assert_eq "" "$(ls -A "$S3C_STATE_DIR")" "the state directory"
}

# _tj_emu_faults SPEC: set s3emu's fault rules ("" for none).
_tj_emu_faults() {
    curl -sS --fail -X POST --data-binary "$(jq -cn --arg f "$1" '{faults: $f}')" \
        "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null ||
        t_fail "could not set s3emu faults '$1'"
}
