# tests/e2e/test_mv_conditional.sh — issue 26 item 3 (mv's part): mv deletes
# an S3 source only while it is still the object that was copied: DeleteObject
# with If-Match: ETAG, or DeleteObjects with each key's <ETag> once the store
# is known to check them. A source changed between the copy and the delete
# answers 412: it is kept, the delete fails (exit 1), the copy stays. A store
# that ignores the header (Ceph 16) or refuses it (501) is learnt from the
# first delete, sent once with an ETag no object has, and said once.
# shellcheck shell=bash
#
# Each test runs on an s3emu of its own: apply_late (a delete applied when its
# delay is over), delete_ignores_if_match and faults are settings of the whole
# emulator.

_mc_warning="s3c: warning: the store %s If-Match on DeleteObject: objects are deleted without checking that they are still what s3c read"

# The source is written again once the copy is made, while mv's delete waits
# (s3emu applies it 1.5 s after it arrives): the delete's If-Match no longer holds, the source is kept
# with its new bytes, the copy has the old ones, and mv exits 1.
test_mv_conditional_source_changed_is_kept() {
    local b pid rc i
    t_own_emu
    t_new_bucket b
    printf one > one
    printf two > two
    assert_ok s3c cp --only-show-errors one "s3://$b/src"
    t_emu_set "apply_late=1&faults=delay@op=DeleteObject,bucket=$b,key=src,ms=1500"
    s3c mv "s3://$b/src" "s3://$b/dst" > mv.out 2> mv.err &
    pid=$!
    # Once the copy is there (its delete then waits 1.5 s twice: the probe, then the real one).
    for ((i = 0; i < 100; i++)); do
        s3curl HEAD "/$b/dst" >/dev/null 2>&1 && break
        sleep 0.05
    done
    assert_ok s3c cp --only-show-errors two "s3://$b/src"
    rc=0
    wait "$pid" || rc=$?
    t_emu_set "faults="
    assert_eq 1 "$rc" "mv's exit code (stderr: $(cat mv.err))"
    assert_eq "move: s3://$b/src to s3://$b/dst" "$(cat mv.out)" "mv's stdout"
    assert_contains "$(cat mv.err)" "delete failed: s3://$b/src An error occurred (PreconditionFailed) when calling the DeleteObject operation: it changed after it was copied (its ETag is no longer \"$(md5sum < one | cut -d' ' -f1)\"), so it is kept"
    assert_ok s3c cp --only-show-errors "s3://$b/src" src.now
    assert_eq two "$(cat src.now)" "the source, as written after the copy"
    assert_ok s3c cp --only-show-errors "s3://$b/dst" dst.now
    assert_eq one "$(cat dst.now)" "the copy"
}

# A store that checks If-Match: one probe, then a conditional DeleteObject per
# source, nothing said. One that ignores it (delete_ignores_if_match, as Ceph
# 16) or refuses it (501 to the first DeleteObject): said once, every source
# deleted all the same, exit 0.
test_mv_conditional_store_that_checks_ignores_or_refuses() {
    local b i before batches
    t_own_emu
    t_new_bucket b
    mkdir t
    for ((i = 0; i < 6; i++)); do printf 'v%d' "$i" > "t/k$i"; done
    assert_ok s3c cp --only-show-errors -r t "s3://$b/a/"

    before=$(t_emu_ops DeleteObject) batches=$(t_emu_ops DeleteObjects)
    assert_ok s3c mv --only-show-errors -r "s3://$b/a/" "s3://$b/b/"
    assert_eq "" "$T_ERR" "stderr where the store checks If-Match"
    # The first source's delete probes (sent twice: an ETag no object has, then its own); the
    # others wait for its answer, and a batch goes once every copy has answered: one
    # DeleteObjects with their <ETag>.
    assert_eq 2 "$(($(t_emu_ops DeleteObject) - before))" "DeleteObject requests: the probe, sent again"
    assert_eq 1 "$(($(t_emu_ops DeleteObjects) - batches))" "DeleteObjects requests: the other 5 sources, in one"
    assert_eq "$(printf 'b/k%d\n' 0 1 2 3 4 5)" "$(t_list_keys "$b")" "keys after the first mv"

    t_emu_set "delete_ignores_if_match=1"
    assert_ok s3c mv --only-show-errors -r "s3://$b/b/" "s3://$b/c/"
    # shellcheck disable=SC2059  # the format is the warning's
    assert_eq "$(printf "$_mc_warning" ignores)" "$T_ERR" "stderr where the store ignores If-Match"
    assert_eq "$(printf 'c/k%d\n' 0 1 2 3 4 5)" "$(t_list_keys "$b")" "keys after the second mv"

    t_emu_set "delete_ignores_if_match=0&faults=501@op=DeleteObject,times=1"
    assert_ok s3c mv --only-show-errors -r "s3://$b/c/" "s3://$b/d/"
    # shellcheck disable=SC2059
    assert_eq "$(printf "$_mc_warning" refuses)" "$T_ERR" "stderr where the store refuses If-Match"
    assert_eq "$(printf 'd/k%d\n' 0 1 2 3 4 5)" "$(t_list_keys "$b")" "keys after the third mv"
    t_emu_set "faults="
}
