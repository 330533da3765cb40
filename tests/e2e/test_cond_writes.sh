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
