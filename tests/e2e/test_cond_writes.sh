# tests/e2e/test_cond_writes.sh — issue 26 item 3: a conditional write that
# raced another write of its key (409 ConditionalRequestConflict) is sent
# again, as S3 says; the write it lost to makes it a skip (412), never a
# failure that leaves half of it, and never an overwrite.
# shellcheck shell=bash
#
# Each test runs on an s3emu of its own: faults are settings of the whole
# emulator. Its fault 409 answers ConditionalRequestConflict without running
# the operation; on CompleteMultipartUpload the upload goes too (S3 tells the
# client to create the upload again).

# -n's PutObject (If-None-Match: *) and CopyObject answered 409 once: each is
# sent again and lands; exit 0, each object as sent, the 409 said in --debug.
test_cond_writes_409_put_and_copy_sent_again() {
    local b
    t_own_emu
    t_new_bucket b
    printf 'small file\n' > f
    t_emu_set "faults=409@op=PutObject,times=1"
    assert_ok s3c --debug cp -n f "s3://$b/k"
    assert_contains "$T_ERR" "PutObject: A conflicting operation occurred. If using PutObject you can retry the request."
    assert_eq 2 "$(t_emu_ops PutObject)" "PutObject requests: the one answered 409, then the one that landed"
    assert_ok s3c cp --only-show-errors "s3://$b/k" back
    assert_eq "small file" "$(cat back)" "the object"

    t_emu_set "faults=409@op=CopyObject,times=1"
    assert_ok s3c cp -n "s3://$b/k" "s3://$b/k2"
    assert_eq 2 "$(t_emu_ops CopyObject)" "CopyObject requests: the one answered 409, then the one that landed"
    assert_ok s3c cp --only-show-errors "s3://$b/k2" back2
    assert_eq "small file" "$(cat back2)" "the copy"
    t_emu_set "faults="
}

# A multipart upload under -n whose Complete is answered 409 while another
# writer creates the key: the Complete is sent again and finds its upload
# gone, the key holds the other writer's object, so this upload is a skip
# (exit 0, the other object kept, no upload left open).
test_cond_writes_409_complete_key_taken_by_another_is_a_skip() {
    local b pid rc i
    t_own_emu
    t_new_bucket b
    t_copy_threshold
    head -c $((20 << 20)) /dev/urandom > big
    # The first part waits 2 s: time for the other writer, once the upload exists.
    t_emu_set "faults=409@op=CompleteMultipartUpload,times=1;delay@op=UploadPart,nth=1,ms=2000"
    s3c cp -n big "s3://$b/k" > cp.out 2> cp.err &
    pid=$!
    for ((i = 0; i < 200; i++)); do
        [ "$(t_mpu_count "$b")" -gt 0 ] && break
        sleep 0.02
    done
    printf 'the other writer\n' > other
    s3curl PUT "/$b/k" --data-binary @other >/dev/null || t_fail "the other writer's PUT failed"
    rc=0
    wait "$pid" || rc=$?
    t_emu_set "faults="
    assert_eq 0 "$rc" "cp's exit code (stderr: $(cat cp.err))"
    assert_eq "" "$(cat cp.err)" "cp's stderr"
    assert_ok s3c cp --only-show-errors "s3://$b/k" back
    assert_eq "the other writer" "$(cat back)" "the object: the other writer's, not overwritten"
    assert_eq 0 "$(t_mpu_count "$b")" "uploads left open"
    assert_eq 2 "$(t_emu_ops CompleteMultipartUpload)" "Complete requests: the one answered 409, the one sent again"
}

# The same Complete answered 409 with no other object taking the key (the
# other write failed): nothing is written, the upload is not left open, and cp
# fails with a line that says what happened and to run again (exit 1).
test_cond_writes_409_complete_upload_gone_fails_cleanly() {
    local b
    t_own_emu
    t_new_bucket b
    t_copy_threshold
    head -c $((20 << 20)) /dev/urandom > big
    t_emu_set "faults=409@op=CompleteMultipartUpload,times=1"
    assert_exit 1 s3c cp -n big "s3://$b/k"
    t_emu_set "faults="
    assert_contains "$T_ERR" "upload failed: ./big to s3://$b/k"
    assert_contains "$T_ERR" "CompleteMultipartUpload raced another write of the key (409 ConditionalRequestConflict) and the store dropped the upload; nothing was written: run again"
    assert_eq "" "$(t_list_keys "$b")" "keys"
    assert_eq 0 "$(t_mpu_count "$b")" "uploads left open"
    # Run again: it lands.
    assert_ok s3c cp --only-show-errors -n big "s3://$b/k"
    assert_ok s3c cp --only-show-errors "s3://$b/k" back
    cmp -s big back || t_fail "the object read back is not the file"
}

# _cw_sync_delete_racing B CMD...: the bucket B holds keep, x1 and x2 ("old\n"); sync --delete of a
# source with keep alone runs while another client runs CMD on x2 (in the test's dir): x1, the first
# delete, is the probe (DeleteObject); x2's DeleteObjects is held 2 s (apply_late), and CMD runs once
# x1 is gone. Sets SYNC_RC; the sync's output is in sync.out and sync.err.
_cw_sync_delete_racing() {
    local b=$1 pid i
    shift
    mkdir src
    printf 'kept\n' > src/keep
    printf 'old\n' > x2
    assert_ok s3c cp --only-show-errors src/keep "s3://$b/keep"
    assert_ok s3c cp --only-show-errors x2 "s3://$b/x1"
    assert_ok s3c cp --only-show-errors x2 "s3://$b/x2"
    t_emu_set "apply_late=1&faults=delay@op=DeleteObjects,ms=2000"
    s3c sync --delete src "s3://$b/" > sync.out 2> sync.err &
    pid=$!
    for ((i = 0; i < 300; i++)); do
        s3curl HEAD "/$b/x1" >/dev/null 2>&1 || break
        sleep 0.02
    done
    sleep 0.3
    "$@" >/dev/null || t_fail "the other client's $* failed"
    SYNC_RC=0
    wait "$pid" || SYNC_RC=$?
    t_emu_set "apply_late=0&faults="
}

# sync --delete deletes only what it listed: each key goes with the ETag it
# was listed with (the first as the conditional deletes' probe, a
# DeleteObject; the others in DeleteObjects with <ETag>). A key written again
# between the listing and its delete is kept with its new bytes, the sync says
# so and exits 1; the other key is deleted. 30 more keys go in batches, not
# one request each: the first probes, the 30 others wait for its answer and
# then go in one DeleteObjects.
test_cond_writes_sync_delete_keeps_a_key_written_since_listed() {
    local b i SYNC_RC
    t_own_emu
    t_new_bucket b
    printf 'new\n' > x2.new
    _cw_sync_delete_racing "$b" s3curl PUT "/$b/x2" --data-binary @x2.new
    assert_eq 1 "$SYNC_RC" "sync's exit code (stderr: $(cat sync.err))"
    assert_contains "$(cat sync.err)" "delete failed: s3://$b/x2 An error occurred (PreconditionFailed): it is no longer the object s3c read (its ETag is no longer \"$(md5sum < x2 | cut -d' ' -f1)\"), so it is kept"
    assert_eq "$(printf 'keep\nx2')" "$(t_list_keys "$b")" "keys after the sync"
    assert_ok s3c cp --only-show-errors "s3://$b/x2" x2.back
    assert_eq new "$(cat x2.back)" "x2: its new bytes"

    mkdir many
    for ((i = 0; i < 30; i++)); do printf '%d' "$i" > "many/k$i"; done
    assert_ok s3c cp --only-show-errors -r many "s3://$b/"
    local del1 dels
    del1=$(t_emu_ops DeleteObject) dels=$(t_emu_ops DeleteObjects)
    assert_ok s3c sync --only-show-errors --delete src "s3://$b/"
    assert_eq "$(printf 'keep')" "$(t_list_keys "$b")" "keys after the second sync"
    assert_eq 2 "$(($(t_emu_ops DeleteObject) - del1))" "DeleteObject requests: the probe, sent again with the real ETag"
    assert_eq 1 "$(($(t_emu_ops DeleteObjects) - dels))" "DeleteObjects requests: the other 30 keys, in one"
}

# A store that ignores conditional deletes (Ceph 16): sync --delete deletes
# every key it listed all the same, says so once, and exits 0.
test_cond_writes_sync_delete_where_the_store_ignores_etags() {
    local b i
    t_own_emu
    t_new_bucket b
    mkdir src many
    printf 'kept\n' > src/keep
    for ((i = 0; i < 5; i++)); do printf '%d' "$i" > "many/k$i"; done
    assert_ok s3c cp --only-show-errors -r many "s3://$b/"
    t_emu_set "delete_ignores_if_match=1"
    assert_ok s3c sync --only-show-errors --delete src "s3://$b/"
    t_emu_set "delete_ignores_if_match=0"
    assert_eq "s3c: warning: the store ignores If-Match on DeleteObject: objects are deleted without checking that they are still what s3c read" "$T_ERR" "stderr"
    assert_eq "keep" "$(t_list_keys "$b")" "keys"
}

# A key listed for deletion that another client deletes first: its conditional
# delete finds no object (s3emu answers NoSuchKey for that key, as DeleteObject
# with If-Match answers 404): gone, as asked; the sync says so and exits 0.
test_cond_writes_sync_delete_of_a_key_gone_since_listed() {
    local b SYNC_RC
    t_own_emu
    t_new_bucket b
    _cw_sync_delete_racing "$b" s3curl DELETE "/$b/x2"
    assert_eq 0 "$SYNC_RC" "sync's exit code (stderr: $(cat sync.err))"
    assert_eq "" "$(cat sync.err)" "sync's stderr"
    assert_eq "$(printf 'delete: s3://%s/x1\ndelete: s3://%s/x2' "$b" "$b")" "$(sort sync.out)" "sync's stdout"
    assert_eq "keep" "$(t_list_keys "$b")" "keys after the sync"
}
