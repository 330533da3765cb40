# tests/e2e/test_resume.sh — issue 6: --resume continues an interrupted multipart upload.
# shellcheck shell=bash
#
# Every multipart upload of a local file is journaled (upload id, source path,
# size, mtime, part size) in the state directory until it completes or is
# aborted. A run killed with -9 leaves the journal and the upload; a later run
# with --resume asks the store which parts it has (ListParts), checks each
# against the MD5 of the local bytes, and sends only the rest. SIGINT aborts
# the upload and drops the journal. A file changed since is uploaded afresh,
# and the upload the journal names is aborted first.

# _upload_requests: the requests the last --debug run chose to send: the
# engine's count less the same requests sent again (retries, hedged twins,
# slow re-sends), which a loaded machine may earn and which store no part twice.
_upload_requests() {
    sed -n 's/.*bytes, \([0-9]*\) requests, \([0-9]*\) retries, \([0-9]*\) hedged ([0-9]* answered first), \([0-9]*\) slow sent again,.*/\1 \2 \3 \4/p' <<< "$T_ERR" |
        tail -1 | awk '{ print $1 - $2 - $3 - $4 }'
}

# _proof_heads: the HEAD that proves a Complete whose answer named no ETag
# (Ceph RGW 16 answers <ETag></ETag>): 1 there, 0 where Complete names one.
# Sets HEADS.
_proof_heads() {
    HEADS=$(grep -c 'debug: http: HEAD -> ' <<< "$T_ERR")
    if t_store_is ceph; then
        [ "$HEADS" = 1 ] || t_fail "expected one HEAD proving the Complete on Ceph, found $HEADS"
    else
        [ "$HEADS" = 0 ] || t_fail "expected no HEAD after a Complete that names its ETag, found $HEADS"
    fi
}

# _kill_mid_upload FILE DST [FLAGS...]: start a throttled upload, kill -9 it once a part is in.
_kill_mid_upload() {
    local pid i
    "$S3C" cp "$1" "$2" "${@:3}" --bwlimit 8MB/s --concurrency 2 >/dev/null 2>&1 &
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
    assert_contains "$T_OUT" "upload: ./big to s3://$b/big"
    # ListParts + the missing parts + Complete: no CreateMultipartUpload, no part twice.
    _proof_heads
    assert_eq "$((1 + 6 - n + 1 + HEADS))" "$(_upload_requests)" "requests of the resumed upload ($n parts were in)"
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
    _proof_heads
    assert_eq "$((9 + HEADS))" "$(_upload_requests)" "a fresh upload: Abort of the old one + Create + 6 parts + Complete"
    assert_ok s3c cp "s3://$b/big" got
    assert_file_sha256 got "$(t_sha256 big)"
    # The old upload is not left open and billed (issue 22 item 14).
    assert_eq 0 "$(t_mpu_count "$b")" "multipart uploads open"
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

# ------------------------------------------------------------- downloads --
#
# A ranged download run with --resume journals itself per destination (the
# object's ETag and size, the part size, its hidden temp file, the parts on
# disk, recorded after an fdatasync). An interrupted run keeps the temp file;
# the next --resume fetches only the parts not recorded, and the whole-object
# check re-reads the others from the temp file. The object is 10 parts of
# 5 MiB (uploaded so), which the download's ranges follow on both stores
# (s3emu says its part size; on Ceph, --part-size 5MiB makes the first guess).

_DL_SIZE=48000000 _DL_PART=5242880 _DL_PARTS=10

# _dl_put BUCKET: upload the test object (10 parts) as s3://BUCKET/big from ./src.
_dl_put() {
    cp "$(t_data 48MB $_DL_SIZE)" src
    assert_ok s3c cp src "s3://$1/big" --part-size 5MiB
}

# _dl_done_parts: the part numbers the download journal records as on disk.
_dl_done_parts() {
    local hex i k v
    hex=$(sed -n 's/^done //p' "$S3C_STATE_DIR"/*.download 2>/dev/null)
    for ((i = 0; i < ${#hex}; i++)); do
        v=$((16#${hex:i:1}))
        for k in 0 1 2 3; do
            (( v & (8 >> k) )) && echo $((4 * i + k + 1))
        done
    done
    return 0
}

# _dl_missing_bytes: the bytes of the parts the journal does not record.
_dl_missing_bytes() {
    local n bytes=$_DL_SIZE
    for n in $(_dl_done_parts); do
        if [ "$n" -eq $_DL_PARTS ]; then
            bytes=$((bytes - (_DL_SIZE - (_DL_PARTS - 1) * _DL_PART)))
        else
            bytes=$((bytes - _DL_PART))
        fi
    done
    echo $bytes
}

# _dl_interrupt SIGNAL BUCKET [FLAGS...]: start a throttled download of
# s3://BUCKET/big into ./got, and send SIGNAL once the journal records 2 parts
# (without --resume: after 2.5 s). Sets DL_RC to its exit code.
_dl_interrupt() {
    local sig=$1 b=$2 pid i
    shift 2
    "$S3C" cp "s3://$b/big" got --part-size 5MiB --bwlimit 8MB/s --concurrency 2 --no-progress "$@" \
        >/dev/null 2>&1 &
    pid=$!
    for i in $(seq 1 100); do
        if [[ " $* " == *" --resume "* ]]; then
            [ "$(_dl_done_parts | wc -l)" -ge 2 ] && break
        else
            [ "$i" -ge 25 ] && break
        fi
        sleep 0.1
    done
    kill "-$sig" "$pid" 2>/dev/null
    wait "$pid"
    DL_RC=$?
}

# _dl_gets_reset / _dl_gets: s3emu's count of GetObject requests (exact).
_dl_gets_reset() {
    t_store_is s3emu || return 0
    curl -sS -X DELETE "$S3C_TEST_ENDPOINT/_s3emu/stats" >/dev/null || t_fail "stats reset"
}
_dl_gets() { curl -sS "$S3C_TEST_ENDPOINT/_s3emu/stats" | jq -r '.ops.GetObject // 0'; }

# _dl_check_resumed MISSING_BYTES MISSING_PARTS: the last --debug run fetched
# exactly the missing parts (each once; on s3emu counted by the store too).
_dl_check_resumed() {
    assert_eq "$1" "$(sed -n 's/.* failed, \([0-9]*\) bytes,.*/\1/p' <<< "$T_ERR" | tail -1)" "bytes fetched"
    assert_eq "$2" "$(grep -c 'http: GET -> 206' <<< "$T_ERR")" "ranged GETs sent"
    if t_store_is s3emu; then
        assert_eq "$2" "$(_dl_gets)" "GetObject requests s3emu served"
    fi
}

_dl_resume_after() {
    local sig=$1 b n missing sum
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    _dl_put "$b"
    sum=$(t_sha256 src)
    _dl_interrupt "$sig" "$b" --resume
    [ "$sig" = INT ] && assert_eq 130 "$DL_RC" "exit code after SIGINT"
    [ ! -e got ] || t_fail "the destination holds partial data after SIG$sig"
    assert_eq 1 "$(ls -A . | grep -c '^\.s3c-got\..*\.tmp$')" "the hidden temp file kept for --resume"
    n=$(_dl_done_parts | wc -l)
    [ "$n" -ge 2 ] && [ "$n" -lt $_DL_PARTS ] || t_fail "expected some of the $_DL_PARTS parts recorded, found $n"
    missing=$(_dl_missing_bytes)
    _dl_gets_reset
    assert_ok s3c --debug cp "s3://$b/big" got --part-size 5MiB --resume
    assert_contains "$T_OUT" "download: s3://$b/big to ./got"
    assert_contains "$T_ERR" "resumed: $n of $_DL_PARTS parts already in"
    assert_contains "$T_ERR" "verified:"
    _dl_check_resumed "$missing" $((_DL_PARTS - n))
    [ "$missing" -lt $_DL_SIZE ] || t_fail "the resumed download fetched the whole object"
    assert_file_sha256 got "$sum"
    assert_eq "" "$(ls -A . | grep '^\.s3c-')" "no temp file left"
    assert_eq 0 "$(ls "$S3C_STATE_DIR" | wc -l)" "journal removed after the download"
}

test_resume_download_after_sigint_fetches_only_missing_parts() { _dl_resume_after INT; }
test_resume_download_after_kill9_fetches_only_missing_parts() { _dl_resume_after KILL; }

test_resume_download_of_a_changed_object_starts_afresh() {
    local b
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    _dl_put "$b"
    _dl_interrupt INT "$b" --resume
    [ "$(_dl_done_parts | wc -l)" -ge 2 ] || t_fail "no parts recorded before the change"
    # Same size, other bytes (a new ETag): not one old part may be reused.
    head -c 1000 /dev/urandom | dd of=src bs=1 seek=6000000 conv=notrunc status=none
    assert_ok s3c cp src "s3://$b/big" --part-size 5MiB
    _dl_gets_reset
    assert_ok s3c --debug cp "s3://$b/big" got --part-size 5MiB --resume
    assert_not_contains "$T_ERR" "resumed:"
    _dl_check_resumed $_DL_SIZE $_DL_PARTS
    assert_file_sha256 got "$(t_sha256 src)"
    assert_eq "" "$(ls -A . | grep '^\.s3c-')" "the stale temp file removed"
    assert_eq 0 "$(ls "$S3C_STATE_DIR" | wc -l)" "journal removed"
}

test_resume_download_plain_rerun_is_fresh_and_cleans_up() {
    local b
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    _dl_put "$b"
    _dl_interrupt KILL "$b" --resume
    [ "$(_dl_done_parts | wc -l)" -ge 2 ] || t_fail "no parts recorded before the kill"
    _dl_gets_reset
    assert_ok s3c --debug cp "s3://$b/big" got --part-size 5MiB
    _dl_check_resumed $_DL_SIZE $_DL_PARTS
    assert_file_sha256 got "$(t_sha256 src)"
    assert_eq "" "$(ls -A . | grep '^\.s3c-')" "the earlier run's temp file removed"
    assert_eq 0 "$(ls "$S3C_STATE_DIR" | wc -l)" "its journal removed"
}

test_resume_download_sigint_without_resume_removes_the_temp_file() {
    local b
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    _dl_put "$b"
    _dl_interrupt INT "$b"
    assert_eq 130 "$DL_RC" "exit code after SIGINT"
    assert_eq "" "$(ls -A . | grep -E '^(got|\.s3c-)')" "no partial file, hidden or not"
    assert_eq 0 "$(ls "$S3C_STATE_DIR" 2>/dev/null | wc -l)" "no download journal"
}

test_resume_download_bad_bytes_on_disk_are_caught_and_fetched_again() {
    local b tmp n
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    _dl_put "$b"
    _dl_interrupt INT "$b" --resume
    n=$(_dl_done_parts | head -1)
    [ -n "$n" ] || t_fail "no parts recorded"
    # Damage a recorded part on disk: the whole-object check must catch it.
    tmp=$(ls -A . | grep '^\.s3c-got\.')
    printf 'XXXXXXXX' | dd of="$tmp" bs=1 seek=$(((n - 1) * _DL_PART + 100)) conv=notrunc status=none
    assert_ok s3c --debug cp "s3://$b/big" got --part-size 5MiB --resume
    assert_contains "$T_ERR" "downloading it again"
    assert_file_sha256 got "$(t_sha256 src)"
    assert_eq "" "$(ls -A . | grep '^\.s3c-')" "no temp file left"
}

test_resume_download_kept_temp_file_is_never_a_source() {
    local b
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    _dl_put "$b"
    mkdir d && cd d || t_fail "no directory"
    _dl_interrupt INT "$b" --resume
    cd .. || t_fail "no way back"
    assert_eq 1 "$(ls -A d | grep -c '^\.s3c-got\.')" "the temp file kept"
    printf 'x' > d/other
    # Partial data must not reach the store as an object: only d/other goes up.
    assert_ok s3c sync d "s3://$b/up/"
    assert_ok s3c cp -r d "s3://$b/up2/"
    assert_ok s3c ls -r "s3://$b/"
    assert_not_contains "$T_OUT" ".s3c-"
    assert_contains "$T_OUT" "up/other"
    assert_contains "$T_OUT" "up2/other"
}

test_resume_download_sync_delete_resume_continues_not_deletes() {
    local b pid i
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    _dl_put "$b"
    "$S3C" sync "s3://$b/" d --resume --part-size 5MiB --bwlimit 8MB/s --concurrency 2 --no-progress \
        >/dev/null 2>&1 &
    pid=$!
    for i in $(seq 1 100); do [ "$(_dl_done_parts | wc -l)" -ge 2 ] && break; sleep 0.1; done
    kill -INT "$pid"
    wait "$pid"
    assert_eq 1 "$(ls -A d | grep -c '^\.s3c-big\.')" "the temp file kept"
    # --delete must not take the temp file for a stray local file: it is continued.
    assert_ok s3c --debug sync "s3://$b/" d --resume --delete --part-size 5MiB
    assert_contains "$T_ERR" "resumed: "
    assert_file_sha256 d/big "$(t_sha256 src)"
    assert_eq "big" "$(ls -A d)" "only the finished file in the destination"
}

test_resume_download_missing_or_resized_temp_file_starts_afresh() {
    local b tmp
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    _dl_put "$b"
    # The temp file gone: the record is stale.
    _dl_interrupt INT "$b" --resume
    tmp=$(ls -A . | grep '^\.s3c-got\.')
    [ -n "$tmp" ] || t_fail "no temp file kept"
    rm -f "$tmp"
    _dl_gets_reset
    assert_ok s3c --debug cp "s3://$b/big" got --part-size 5MiB --resume
    assert_not_contains "$T_ERR" "resumed:"
    _dl_check_resumed $_DL_SIZE $_DL_PARTS
    assert_file_sha256 got "$(t_sha256 src)"
    # The temp file of another size: not the one the record describes.
    rm -f got
    _dl_interrupt INT "$b" --resume
    tmp=$(ls -A . | grep '^\.s3c-got\.')
    [ -n "$tmp" ] || t_fail "no temp file kept"
    truncate -s 1000 "$tmp"
    _dl_gets_reset
    assert_ok s3c --debug cp "s3://$b/big" got --part-size 5MiB --resume
    assert_not_contains "$T_ERR" "resumed:"
    _dl_check_resumed $_DL_SIZE $_DL_PARTS
    assert_file_sha256 got "$(t_sha256 src)"
    assert_eq "got" "$(ls -A . | grep -E '^(got|\.s3c-)')" "the stale temp file removed"
    assert_eq 0 "$(ls "$S3C_STATE_DIR" | wc -l)" "journal removed"
}

# An object PUT in one piece with a stored CRC32 (s3emu keeps it: the ranges
# are ours, checked by the CRC combined from each part's; Ceph keeps none:
# checked by its single-part ETag, the MD5 of the whole hashed in key order).
# Resumed parts are re-read into that check, so bytes damaged on disk are
# caught on both stores.
# An object uploaded in parts without flexible checksums: checked by its
# md5-of-part-MD5s ETag; the resumed parts' MD5s come from the hash workers,
# so bytes damaged on disk are caught there too.
test_resume_download_of_an_md5_checked_object() {
    local b tmp n missing
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    cp "$(t_data 48MB $_DL_SIZE)" src
    AWS_REQUEST_CHECKSUM_CALCULATION=when_required assert_ok s3c cp src "s3://$b/big" --part-size 5MiB
    _dl_interrupt INT "$b" --resume
    n=$(_dl_done_parts | wc -l)
    [ "$n" -ge 2 ] || t_fail "no parts recorded"
    missing=$(_dl_missing_bytes)
    _dl_gets_reset
    assert_ok s3c --debug cp "s3://$b/big" got --part-size 5MiB --resume
    assert_contains "$T_ERR" "resumed: $n of $_DL_PARTS parts"
    assert_contains "$T_ERR" "verified: md5 of $_DL_PARTS part MD5s"
    _dl_check_resumed "$missing" $((_DL_PARTS - n))
    assert_file_sha256 got "$(t_sha256 src)"
    rm -f got
    _dl_interrupt INT "$b" --resume
    n=$(_dl_done_parts | head -1)
    [ -n "$n" ] || t_fail "no parts recorded"
    tmp=$(ls -A . | grep '^\.s3c-got\.')
    printf 'XXXXXXXX' | dd of="$tmp" bs=1 seek=$(((n - 1) * _DL_PART + 7)) conv=notrunc status=none
    assert_ok s3c --debug cp "s3://$b/big" got --part-size 5MiB --resume
    assert_contains "$T_ERR" "downloading it again"
    assert_file_sha256 got "$(t_sha256 src)"
}

test_resume_download_of_a_crc_checked_object() {
    local b tmp n missing
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    cp "$(t_data 48MB $_DL_SIZE)" src
    assert_ok awsx s3api put-object --bucket "$b" --key big --body src --checksum-algorithm CRC32
    _dl_interrupt INT "$b" --resume
    n=$(_dl_done_parts | wc -l)
    [ "$n" -ge 2 ] || t_fail "no parts recorded"
    missing=$(_dl_missing_bytes)
    _dl_gets_reset
    assert_ok s3c --debug cp "s3://$b/big" got --part-size 5MiB --resume
    assert_contains "$T_ERR" "resumed: $n of $_DL_PARTS parts"
    if t_store_is s3emu; then
        assert_contains "$T_ERR" "verified: CRC32"
    else
        assert_contains "$T_ERR" "verified: MD5 of the whole"
    fi
    _dl_check_resumed "$missing" $((_DL_PARTS - n))
    assert_file_sha256 got "$(t_sha256 src)"
    rm -f got
    _dl_interrupt INT "$b" --resume
    n=$(_dl_done_parts | head -1)
    [ -n "$n" ] || t_fail "no parts recorded"
    tmp=$(ls -A . | grep '^\.s3c-got\.')
    printf 'XXXXXXXX' | dd of="$tmp" bs=1 seek=$(((n - 1) * _DL_PART + 7)) conv=notrunc status=none
    assert_ok s3c --debug cp "s3://$b/big" got --part-size 5MiB --resume
    assert_contains "$T_ERR" "downloading it again"
    assert_file_sha256 got "$(t_sha256 src)"
}

test_resume_download_record_claiming_every_part_is_still_checked() {
    local b
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    _dl_put "$b"
    _dl_interrupt INT "$b" --resume
    [ "$(_dl_done_parts | wc -l)" -ge 2 ] || t_fail "no parts recorded"
    # A record that lies (every part on disk): nothing is fetched at first, the
    # check of the re-read bytes fails, and the object is downloaded again.
    sed -i 's/^done .*/done ffc/' "$S3C_STATE_DIR"/*.download
    _dl_gets_reset
    assert_ok s3c --debug cp "s3://$b/big" got --part-size 5MiB --resume
    assert_contains "$T_ERR" "resumed: $_DL_PARTS of $_DL_PARTS parts"
    assert_contains "$T_ERR" "downloading it again"
    _dl_check_resumed $_DL_SIZE $_DL_PARTS
    assert_file_sha256 got "$(t_sha256 src)"
}

# A download of an old version (--version-id, issue 23 item 3) resumes as that version: the journal
# records it, and the resumed run's ranges ask for it (?versionId=), though a newer version of the
# same size now answers for the key; a plain --resume of the key is another object, started afresh.
test_resume_download_of_an_old_version() {
    local b v1 sum
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    t_versioning "$b" Enabled
    _dl_put "$b"
    sum=$(t_sha256 src)
    assert_ok s3c ls --all-versions --json "s3://$b/big"
    v1=$(jq -r 'select(.is_latest).version_id' <<<"$T_OUT")
    head -c 1000 /dev/urandom | dd of=src bs=1 seek=6000000 conv=notrunc status=none
    assert_ok s3c cp src "s3://$b/big" --part-size 5MiB
    _dl_interrupt INT "$b" --resume --version-id "$v1"
    assert_contains "$(cat "$S3C_STATE_DIR"/*.download)" "$v1"
    [ "$(_dl_done_parts | wc -l)" -ge 2 ] || t_fail "no parts recorded before the interrupt"
    assert_ok s3c --debug cp --version-id "$v1" "s3://$b/big" got --part-size 5MiB --resume
    assert_contains "$T_ERR" "resumed:"
    assert_file_sha256 got "$sum"
    rm got
    _dl_interrupt INT "$b" --resume --version-id "$v1"
    assert_ok s3c --debug cp "s3://$b/big" got --part-size 5MiB --resume
    assert_not_contains "$T_ERR" "resumed:"
    assert_file_sha256 got "$(t_sha256 src)"
    assert_eq "" "$(ls -A . | grep '^\.s3c-')" "the other version's temp file removed"
}
