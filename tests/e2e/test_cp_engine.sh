# tests/e2e/test_cp_engine.sh — issue 4: engine behaviour seen through cp:
# run-wide errors stop the run at once, and SSE-C keys.
# shellcheck shell=bash

# _ce_tree DIR N: N small files and one of 9 MiB (a multipart upload) under DIR.
_ce_tree() {
    local i
    mkdir -p "$1"
    for i in $(seq 1 "$2"); do printf 'file %s\n' "$i" > "$1/f$i"; done
    head -c $((9 * 1024 * 1024)) /dev/zero > "$1/big"
}

# _ce_emu_ops OP: how many OP requests s3emu has answered since its start (0 on Ceph).
_ce_emu_ops() {
    t_store_is s3emu || { echo 0; return; }
    curl -sS "$S3C_TEST_ENDPOINT/_s3emu/stats" | jq -r ".ops[\"$1\"] // 0"
}

# A tree to a bucket that does not exist: one line naming the operation and the
# bucket, exit 1, within seconds, and far fewer requests than files.
test_cp_missing_bucket_stops_at_once() {
    local b puts t0 secs
    t_bucket b
    _ce_tree tree 300
    puts=$(_ce_emu_ops PutObject)
    t0=$EPOCHREALTIME
    assert_exit 1 s3c cp -r tree "s3://$b/x/"
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", b - a }')
    [ "$secs" -lt 10 ] || t_fail "took $secs s"
    assert_lines 1 "$T_ERR" "stderr"
    assert_match "$T_ERR" "^s3c: ERROR \"cp tree/[a-z0-9]+ s3://$b/x/[a-z0-9]+\": (PutObject|CreateMultipartUpload) in s3://$b: The specified bucket does not exist; stopped, nothing more was tried \(404 NoSuchBucket\)$"
    assert_eq "" "$T_OUT" "stdout"
    if t_store_is s3emu; then
        puts=$(($(_ce_emu_ops PutObject) - puts))
        [ "$puts" -lt 200 ] || t_fail "$puts PutObject requests for 300 files after the first NoSuchBucket"
    fi
    # A copy into a missing bucket stops the same way.
    t_new_bucket src
    t_put_text "$src" a "a"
    t_put_text "$src" b "b"
    assert_exit 1 s3c cp -r "s3://$src/" "s3://$b/"
    assert_lines 1 "$T_ERR" "stderr"
    assert_contains "$T_ERR" "CopyObject from s3://$src to s3://$b: The specified bucket does not exist; stopped"
}

# Wrong keys: SignatureDoesNotMatch or InvalidAccessKeyId stop the run; nothing
# is left in the bucket, no multipart upload either.
test_cp_wrong_credentials_stop_at_once() {
    local b
    t_new_bucket b
    _ce_tree tree 100
    AWS_SECRET_ACCESS_KEY=wrong-secret assert_exit 1 s3c cp -r tree "s3://$b/"
    assert_lines 1 "$T_ERR" "stderr"
    assert_contains "$T_ERR" "in s3://$b: The request signature we calculated does not match"
    assert_contains "$T_ERR" "(403 SignatureDoesNotMatch)"
    AWS_ACCESS_KEY_ID=AKIANOSUCHKEY0000000 assert_exit 1 s3c cp -r tree "s3://$b/"
    assert_lines 1 "$T_ERR" "stderr"
    assert_contains "$T_ERR" "(403 InvalidAccessKeyId)"
    # Unsigned writes to a private bucket: AccessDenied before anything succeeded.
    assert_exit 1 s3c --no-sign-request cp -r tree "s3://$b/"
    assert_lines 1 "$T_ERR" "stderr"
    assert_contains "$T_ERR" "(403 AccessDenied)"
    assert_eq "" "$(t_list_keys "$b")" "keys in the bucket"
    assert_eq 0 "$(t_mpu_count "$b")" "multipart uploads left"
}
