# tests/e2e/test_trust_copyopts.sh — issue 22 item 5: an S3 to S3 copy applies
# what it is asked.
# shellcheck shell=bash
#
# --storage-class, --sse, --sse-kms-key-id, --acl and --metadata-directive
# (with the metadata flags) reach the destination object, in cp, mv and sync,
# whether the copy is one CopyObject (an object under an 8 MiB multipart_threshold,
# t_copy_threshold) or a multipart upload of UploadPartCopy parts (9 MB). Each destination is read
# back: head-object with the AWS CLI, GetObjectAcl with curl. Changing an object's
# class or encryption in place (cp s3://b/k s3://b/k --storage-class X) works,
# as with the AWS CLI; a copy onto itself that changes nothing is refused.
# The same checks run once more against moto's server, an S3 model written by
# others (test_trust_copyopts_moto).

CO_BIG=9000000      # above the 8 MiB multipart threshold: UploadPartCopy parts

# _co_seed BUCKET KEY SIZE: an object of SIZE bytes, with a Content-Type and
# user metadata that a copy keeping its source's metadata must keep.
_co_seed() {
    t_put "$1" "$2" "$(t_data "co-$3" "$3")" -H "Content-Type: text/x-orig" -H "x-amz-meta-color: blue"
}

# _co_copy VERB BUCKET FLAGS...: seed src-VERB/small and src-VERB/big, then
# copy them with VERB to dst-VERB/ (cp and mv one object at a time, sync the
# prefix), with FLAGS.
_co_copy() {
    local verb=$1 b=$2 k
    shift 2
    _co_seed "$b" "src-$verb/small" 100
    _co_seed "$b" "src-$verb/big" "$CO_BIG"
    if [ "$verb" = sync ]; then
        assert_ok s3c sync "$@" "s3://$b/src-$verb/" "s3://$b/dst-$verb/"
        assert_lines 2 "$T_OUT" "sync's copy lines"
    else
        for k in small big; do
            assert_ok s3c "$verb" "$@" "s3://$b/src-$verb/$k" "s3://$b/dst-$verb/$k"
        done
    fi
    # The big one went in parts (else this test would check CopyObject twice).
    [[ $(t_head_header "$b" "dst-$verb/big" ETag) == *-[0-9]* ]] ||
        t_fail "s3://$b/dst-$verb/big was not copied in parts"
    if [ "$verb" = mv ]; then
        [ -z "$(t_head_header "$b" "src-$verb/small" ETag)" ] || t_fail "mv left its source small"
    fi
}

# _co_head BUCKET KEY FIELDS: the FIELDS ("A, B") of what head-object says of
# the object, as one sorted JSON line (StorageClass STANDARD shown as such: S3
# omits it).
_co_head() {
    t_cmd awsx s3api head-object --bucket "$1" --key "$2" || t_fail "head-object s3://$1/$2"
    jq -cS ".StorageClass //= \"STANDARD\" | {$3}" <<<"$T_OUT"
}

# _co_assert_public BUCKET KEY: GetObjectAcl (with curl: the AWS CLI is slow)
# grants AllUsers READ, as the canned ACL public-read does.
_co_assert_public() {
    t_cmd s3curl GET "/$1/$2?acl=" || t_fail "GetObjectAcl s3://$1/$2"
    tr -d '\r\n' <<<"$T_OUT" | sed 's|</Grant>|&\n|g' | grep 'groups/global/AllUsers<' |
        grep -q '<Permission>READ</Permission>' ||
        t_fail "s3://$1/$2 is not public-read"
}

test_trust_copyopts_class_and_sse() {
    local b verb k want
    t_copy_threshold   # the multipart copy path at these sizes
    # Measured on the CI's Ceph RGW 16.2: any class but STANDARD is refused
    # (400 InvalidArgument: no other placement class is configured), and
    # without SSL and a KMS, PutObject with SSE is refused (InvalidRequest)
    # while CopyObject accepts SSE headers and stores nothing: no class or
    # encryption can be set there, so none can be checked.
    t_store_is ceph && t_skip "Ceph RGW here stores no storage class but STANDARD and no SSE (no SSL, no KMS)"
    t_new_bucket b
    want='{"CacheControl":null,"ContentType":"text/x-orig","Metadata":{"color":"blue"},"SSEKMSKeyId":"s3c-test-key",'
    want+='"ServerSideEncryption":"aws:kms","StorageClass":"STANDARD_IA"}'
    for verb in cp mv sync; do
        _co_copy "$verb" "$b" --storage-class STANDARD_IA --sse aws:kms --sse-kms-key-id s3c-test-key
        for k in small big; do
            assert_eq "$want" "$(_co_head "$b" "dst-$verb/$k" \
                "StorageClass, ServerSideEncryption, SSEKMSKeyId, ContentType, CacheControl, Metadata")" \
                "$verb of $k: class, encryption and metadata"
        done
    done
}

# cp s3://b/k s3://b/k --storage-class X (or --sse) changes the object in
# place, one CopyObject or in parts, as with the AWS CLI.
test_trust_copyopts_in_place() {
    local b k
    t_copy_threshold   # the multipart copy path at these sizes
    t_store_is ceph && t_skip "Ceph RGW here stores no storage class but STANDARD and no SSE (no SSL, no KMS)"
    t_new_bucket b
    _co_seed "$b" small 100
    _co_seed "$b" big "$CO_BIG"
    for k in small big; do
        assert_ok s3c cp --storage-class GLACIER_IR "s3://$b/$k" "s3://$b/$k"
        assert_eq "copy: s3://$b/$k to s3://$b/$k" "$T_OUT"
        # (The encryption is the store's default now: none on s3emu, AES256 on moto as on S3.)
        assert_eq '{"ContentType":"text/x-orig","Metadata":{"color":"blue"},"StorageClass":"GLACIER_IR"}' \
            "$(_co_head "$b" "$k" "StorageClass, ContentType, Metadata")" "$k, class changed in place"
        assert_ok s3c cp --sse AES256 "s3://$b/$k" "s3://$b/$k"
        assert_eq '{"ContentType":"text/x-orig","Metadata":{"color":"blue"},"ServerSideEncryption":"AES256"}' \
            "$(_co_head "$b" "$k" "ServerSideEncryption, ContentType, Metadata")" \
            "$k, encrypted in place"
    done
    [[ $(t_head_header "$b" big ETag) == *-[0-9]* ]] || t_fail "s3://$b/big was not copied in parts"
    _co_onto_itself "$b" small
}

# _co_onto_itself BUCKET KEY: a copy onto itself that changes nothing (exit 1)
# and any move onto itself (exit 252) are refused, the object intact, as S3 and
# the AWS CLI refuse them.
_co_onto_itself() {
    local etag
    etag=$(t_head_header "$1" "$2" ETag)
    assert_exit 1 s3c cp "s3://$1/$2" "s3://$1/$2"
    assert_contains "$T_ERR" "same object" "stderr"
    assert_exit 1 s3c cp --acl public-read "s3://$1/$2" "s3://$1/$2"    # an ACL is no change to S3
    # mv onto itself: refused before any request, as the AWS CLI v2 refuses it (exit 252).
    assert_exit 252 s3c mv --storage-class STANDARD "s3://$1/$2" "s3://$1/$2"
    assert_contains "$T_ERR" "Cannot mv a file onto itself: 's3://$1/$2' - 's3://$1/$2'" "stderr"
    assert_eq "$etag" "$(t_head_header "$1" "$2" ETag)" "ETag of s3://$1/$2 after copies onto itself"
}

test_trust_copyopts_acl_and_metadata() {
    local b verb k
    t_copy_threshold   # the multipart copy path at these sizes
    t_new_bucket b
    # --acl alone: the source's metadata kept, the ACL applied.
    for verb in cp mv sync; do
        _co_copy "$verb" "$b" --acl public-read
        for k in small big; do
            _co_assert_public "$b" "dst-$verb/$k"
            assert_eq "text/x-orig blue" "$(t_head_header "$b" "dst-$verb/$k" Content-Type) $(
                t_head_header "$b" "dst-$verb/$k" x-amz-meta-color)" "$verb of $k: metadata kept"
        done
    done

    # REPLACE: the command line's metadata and nothing of the source's, and the ACL.
    t_new_bucket b
    for verb in cp mv sync; do
        _co_copy "$verb" "$b" --metadata-directive REPLACE --content-type text/x-new --cache-control max-age=9 \
            --metadata shape=round --content-disposition attachment --expires "Wed, 01 Jan 2031 00:00:00 GMT" \
            --acl public-read
        for k in small big; do
            _co_assert_public "$b" "dst-$verb/$k"
            assert_eq '{"CacheControl":"max-age=9","ContentDisposition":"attachment","ContentType":"text/x-new",'\
'"Expires":"2031-01-01T00:00:00+00:00","Metadata":{"shape":"round"}}' \
                "$(_co_head "$b" "dst-$verb/$k" "CacheControl, ContentDisposition, ContentType, Expires, Metadata")" \
                "$verb of $k with REPLACE"
        done
    done
    # In place, REPLACE is how metadata is changed (S3 and the AWS CLI alike).
    assert_ok s3c cp --metadata-directive REPLACE --content-type text/x-again "s3://$b/dst-cp/small" \
        "s3://$b/dst-cp/small"
    assert_eq '{"ContentType":"text/x-again","Metadata":{}}' \
        "$(_co_head "$b" dst-cp/small "ContentType, Metadata")" "metadata replaced in place"
    _co_onto_itself "$b" dst-cp/small
}

# The same checks against moto's server (its own, started here on a free port
# and stopped by its PID): an S3 model written by others, which keeps storage
# classes, SSE and ACLs.
test_trust_copyopts_moto() {
    t_copy_threshold   # the multipart copy path at these sizes
    t_store_is s3emu || t_skip "runs once, in the s3emu pass"
    t_own_store moto
    # shellcheck disable=SC2034  # read by lib.sh (awsx, s3curl, t_store_is)
    S3C_TEST_ENDPOINT=$OWN_URL S3C_TEST_STORE=moto
    export AWS_ENDPOINT_URL=$OWN_URL
    test_trust_copyopts_class_and_sse
    test_trust_copyopts_in_place
    test_trust_copyopts_acl_and_metadata
}
