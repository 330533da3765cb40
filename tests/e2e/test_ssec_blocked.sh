# tests/e2e/test_ssec_blocked.sh — issue 26 item 6: since April 2026 new AWS
# buckets block SSE-C writes (PutBucketEncryption's BlockedEncryptionTypes),
# and AWS documents the answer as a plain 403 AccessDenied. s3c's error line
# says the bucket may block SSE-C and how to allow it.
# shellcheck shell=bash
#
# The block is set with PutBucketEncryption on the test's bucket (s3emu models
# it; a store that keeps no BlockedEncryptionTypes is skipped, saying so).

SB_KEY=0123456789abcdef0123456789abcdef      # 32 bytes: an AES256 customer key

# _sb_block BUCKET SSE-C|NONE: block, or allow, SSE-C writes to the bucket.
_sb_block() {
    t_cmd s3curl PUT "/$1?encryption=" -H "Content-Type: application/xml" --data-binary \
        "<ServerSideEncryptionConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm></ApplyServerSideEncryptionByDefault><BlockedEncryptionTypes><EncryptionType>$2</EncryptionType></BlockedEncryptionTypes></Rule></ServerSideEncryptionConfiguration>"
}

# A write with SSE-C to a bucket that blocks it: PutObject, CreateMultipartUpload
# and CopyObject fail with the hint, exit 1, nothing written; reads of what was
# written before the block still work; allowed again, the write goes.
test_ssec_blocked_bucket_says_why() {
    local b hint="the bucket may block SSE-C writes, as new AWS buckets do since April 2026; allow them with put-bucket-encryption (BlockedEncryptionTypes NONE), or use --sse"
    t_new_bucket b
    printf secret > small
    assert_ok s3c cp --only-show-errors small "s3://$b/before" --sse-c AES256 --sse-c-key "$SB_KEY"
    _sb_block "$b" SSE-C
    [ "$T_RC" = 0 ] || t_skip "this store refuses BlockedEncryptionTypes (PutBucketEncryption: $T_ERR$T_OUT)"
    t_cmd s3curl GET "/$b?encryption="
    [[ $T_OUT == *"<EncryptionType>SSE-C</EncryptionType>"* ]] ||
        t_skip "this store keeps no BlockedEncryptionTypes (GetBucketEncryption: $T_OUT)"

    assert_exit 1 s3c cp small "s3://$b/small" --sse-c AES256 --sse-c-key "$SB_KEY"
    assert_contains "$T_ERR" "upload failed: ./small to s3://$b/small An error occurred (AccessDenied) when calling the PutObject operation: Access Denied: $hint"
    assert_exit 1 s3c cp "$(t_data 9MB 9437184)" "s3://$b/big" --sse-c AES256 --sse-c-key "$SB_KEY" --part-size 5MB
    assert_contains "$T_ERR" "when calling the CreateMultipartUpload operation: Access Denied: $hint"
    assert_exit 1 s3c cp "s3://$b/before" "s3://$b/copy" --sse-c-copy-source AES256 --sse-c-copy-source-key "$SB_KEY" \
        --sse-c AES256 --sse-c-key "$SB_KEY"
    assert_contains "$T_ERR" "when calling the CopyObject operation: Access Denied: $hint"
    assert_eq "before" "$(t_list_keys "$b" | tr '\n' ' ' | sed 's/ $//')" "keys after the refused writes"

    # An object written before the block is still read with its key; a write without SSE-C goes.
    assert_ok s3c cp --only-show-errors "s3://$b/before" got --sse-c AES256 --sse-c-key "$SB_KEY"
    assert_eq secret "$(cat got)" "the SSE-C object read back"
    assert_ok s3c cp --only-show-errors small "s3://$b/plain"
    # Any other 403 is not said to be SSE-C's.
    assert_exit 1 s3c cp small "s3://$b/plain2" --no-sign-request
    assert_not_contains "$T_ERR" "SSE-C"

    _sb_block "$b" NONE
    assert_eq 0 "$T_RC" "PutBucketEncryption NONE ($T_ERR)"
    assert_ok s3c cp --only-show-errors small "s3://$b/small" --sse-c AES256 --sse-c-key "$SB_KEY"
}
