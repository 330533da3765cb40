# tests/e2e/test_resume.sh — issue 6: --resume continues an interrupted multipart upload.
# shellcheck shell=bash
#
# Every multipart upload of a local file is journaled (upload id, source path,
# size, mtime, part size) in the state directory until it completes or is
# aborted. A run killed with -9 leaves the journal and the upload; a later run
# with --resume asks the store which parts it has (ListParts), checks each
# against the MD5 of the local bytes, and sends only the rest. SIGINT aborts
# the upload and drops the journal. A file changed since is uploaded afresh.

# _upload_requests: the engine's request count of the last --debug run.
_upload_requests() { sed -n 's/.*bytes, \([0-9]*\) requests,.*/\1/p' <<< "$T_ERR" | tail -1; }

# _kill_mid_upload FILE DST: start a throttled upload, kill -9 it once a part is in.
_kill_mid_upload() {
    local pid i
    "$S3C" cp "$1" "$2" --bwlimit 8MB/s --concurrency 2 >/dev/null 2>&1 &
    pid=$!
    # The journal appears with the upload id; 50 MB at 8 MB/s takes 6 s more.
    for i in $(seq 1 100); do
        [ -n "$(ls "$S3C_STATE_DIR" 2>/dev/null)" ] && break
        sleep 0.1
    done
    sleep 2.5
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 0
}

test_resume_after_kill_sends_only_missing_parts() {
    local b sum n upid
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    cp "$(t_data 50MB 50000000)" big
    sum=$(t_sha256 big)
    _kill_mid_upload big "s3://$b/big"
    assert_eq 1 "$(ls "$S3C_STATE_DIR" | wc -l)" "one journal left by the killed run"
    upid=$(sed -n 's/^upload_id //p' "$S3C_STATE_DIR"/*.upload)
    assert_ok awsx s3api list-parts --bucket "$b" --key big --upload-id "$upid" --query 'length(Parts)' --output text
    n=$T_OUT
    [ "$n" -ge 1 ] && [ "$n" -lt 6 ] || t_fail "expected some of the 6 parts in the store, found $n"

    assert_ok s3c --debug cp big "s3://$b/big" --resume
    assert_contains "$T_OUT" "upload: big to s3://$b/big"
    # ListParts + the missing parts + Complete: no CreateMultipartUpload, no part twice.
    assert_eq "$((1 + 6 - n + 1))" "$(_upload_requests)" "requests of the resumed upload ($n parts were in)"
    assert_eq 0 "$(ls "$S3C_STATE_DIR" | wc -l)" "journal removed after completion"
    assert_ok s3c cp "s3://$b/big" got
    assert_file_sha256 got "$sum"
    assert_ok awsx s3api list-multipart-uploads --bucket "$b" --query 'length(Uploads || `[]`)' --output text
    assert_eq 0 "$T_OUT" "no multipart upload left"
}

test_resume_never_continues_into_a_changed_file() {
    local b upid
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    cp "$(t_data 50MB 50000000)" big
    _kill_mid_upload big "s3://$b/big"
    upid=$(sed -n 's/^upload_id //p' "$S3C_STATE_DIR"/*.upload)
    [ -n "$upid" ] || t_fail "no journal after the kill"
    # Same size, new bytes and mtime: the old parts must not be reused.
    head -c 1000 /dev/urandom | dd of=big bs=1 seek=0 conv=notrunc status=none
    touch -d '2001-01-01' big
    assert_ok s3c --debug cp big "s3://$b/big" --resume
    assert_eq 8 "$(_upload_requests)" "a fresh upload: Create + 6 parts + Complete"
    assert_ok s3c cp "s3://$b/big" got
    assert_file_sha256 got "$(t_sha256 big)"
    t_cmd awsx s3api abort-multipart-upload --bucket "$b" --key big --upload-id "$upid"
}

test_resume_when_the_upload_is_gone_starts_afresh() {
    local b upid
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    cp "$(t_data 50MB 50000000)" big
    _kill_mid_upload big "s3://$b/big"
    upid=$(sed -n 's/^upload_id //p' "$S3C_STATE_DIR"/*.upload)
    [ -n "$upid" ] || t_fail "no journal after the kill"
    assert_ok awsx s3api abort-multipart-upload --bucket "$b" --key big --upload-id "$upid"
    assert_ok s3c cp big "s3://$b/big" --resume
    assert_ok s3c cp "s3://$b/big" got
    assert_file_sha256 got "$(t_sha256 big)"
    assert_eq 0 "$(ls "$S3C_STATE_DIR" | wc -l)" "journal removed"
}

test_resume_sigint_aborts_and_drops_the_journal() {
    local b pid i
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    cp "$(t_data 50MB 50000000)" big
    "$S3C" cp big "s3://$b/big" --bwlimit 8MB/s >/dev/null 2>&1 &
    pid=$!
    for i in $(seq 1 100); do [ -n "$(ls "$S3C_STATE_DIR" 2>/dev/null)" ] && break; sleep 0.1; done
    sleep 1
    kill -INT "$pid"
    wait "$pid"
    assert_eq 130 "$?" "exit code after SIGINT"
    assert_eq 0 "$(ls "$S3C_STATE_DIR" | wc -l)" "journal dropped"
    assert_ok awsx s3api list-multipart-uploads --bucket "$b" --query 'length(Uploads || `[]`)' --output text
    assert_eq 0 "$T_OUT" "the upload was aborted"
}
