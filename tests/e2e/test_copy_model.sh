# tests/e2e/test_copy_model.sh — issue 24 item 6: how an S3 to S3 copy is made.
# shellcheck shell=bash
#
# s3c picks one CopyObject or a multipart upload of UploadPartCopy parts per
# object from a model of server-side copies (xfer_copy_part_size: a part copies
# for 16 first-byte latencies at 64 MB/s, so 32 MiB at 20 ms; one part's worth
# or less is one CopyObject); a part size or threshold the user set decides as
# for uploads. A store that answers UploadPartCopy with 501 NotImplemented
# (s3rver) gets CopyObject: the refused upload is aborted and the object copied
# again in one request, and the run's next copies go that way at once. Each
# test has an s3emu of its own (exact request counts, its copy model and
# faults set here); the normal path runs once more against moto.

# _cm_store: an s3emu of this test's own, 20 ms first-byte latency, as the
# store every command and helper of the test talks to.
_cm_store() {
    t_store_is s3emu || t_skip "runs once, in the s3emu pass"
    t_own_store emu
    # shellcheck disable=SC2034  # read by lib.sh (awsx, s3curl, t_store_is)
    S3C_TEST_ENDPOINT=$OWN_URL
    export AWS_ENDPOINT_URL=$OWN_URL
    _cm_config "latency_ms=20"
}

# _cm_config KEY=VALUE&...: change the own s3emu's model.
_cm_config() {
    curl -sSf -X POST --data "$1" "$OWN_URL/_s3emu/config" >/dev/null || t_fail "s3emu refused '$1'"
}

# _cm_ops: the own s3emu's request counts since the last call, "Op=N" a line, sorted.
_cm_ops() {
    curl -sSf "$OWN_URL/_s3emu/stats" | jq -r '.ops | to_entries[] | select(.value > 0) | "\(.key)=\(.value)"' |
        LC_ALL=C sort
    curl -sSf -X DELETE "$OWN_URL/_s3emu/stats" >/dev/null
}

# _cm_op OPS NAME: the count of NAME in OPS (0 when absent).
_cm_op() {
    local n
    n=$(sed -n "s/^$2=//p" <<<"$1")
    echo "${n:-0}"
}

# _cm_zeros BUCKET KEY BYTES: an object of BYTES zero bytes, made by the store
# itself (POST /_s3emu/populate: no upload), named KEY000000000.
_cm_zeros() {
    curl -sSf -X POST "$OWN_URL/_s3emu/populate?bucket=$1&count=1&prefix=$2&size=$3" >/dev/null ||
        t_fail "populate s3://$1/$2 ($3 bytes)"
}

# _cm_parts BUCKET KEY: the N of a multipart ETag "…-N", or 1.
_cm_parts() {
    local etag
    etag=$(t_head_header "$1" "$2" etag | tr -d '"')
    [[ $etag == *-* ]] && echo "${etag##*-}" || echo 1
}

# One object at 20 ms: 20 MiB is one CopyObject (the 8 MiB threshold of
# uploads would have cut it in 3 parts), 200 MiB goes in UploadPartCopy parts
# of 32 MiB or more (7 at 20 ms; 4 if the loaded machine made the latency seen
# over 33 ms), the HEAD and GetObjectTagging of a copy that keeps its source's
# properties before them (a single-object cp makes one HEAD to learn the size
# first). --part-size and multipart_threshold are the user's:
# 20 MiB in parts of 8 MiB, and 200 MiB in one CopyObject under a 1 GiB threshold.
test_copy_model_choice() {
    local b ops n
    _cm_store
    t_new_bucket b
    _cm_zeros "$b" small 20971520
    _cm_zeros "$b" big 209715200
    _cm_ops >/dev/null

    assert_ok s3c cp "s3://$b/small000000000" "s3://$b/small-copy"
    ops=$(_cm_ops)
    assert_eq "$(printf '%s\n' CopyObject=1 HeadObject=1)" "$ops" "requests of a 20 MiB copy"
    assert_eq 1 "$(_cm_parts "$b" small-copy)" "parts of the 20 MiB copy"

    assert_ok s3c cp "s3://$b/big000000000" "s3://$b/big-copy"
    ops=$(_cm_ops)
    n=$(_cm_op "$ops" UploadPartCopy)
    [ "$n" = 7 ] || [ "$n" = 4 ] || t_fail "a 200 MiB copy in $n UploadPartCopy parts, not 7 (or 4): $ops"
    assert_eq "$(printf '%s\n' CompleteMultipartUpload=1 CreateMultipartUpload=1 GetObjectTagging=1 HeadObject=2 \
        "UploadPartCopy=$n")" "$ops" "requests of a 200 MiB copy"
    assert_eq "$n" "$(_cm_parts "$b" big-copy)" "parts of the 200 MiB copy"

    # The user's part size: the uploads' threshold (8 MiB) and parts of 8 MiB.
    assert_ok s3c cp --part-size 8MiB "s3://$b/small000000000" "s3://$b/small-parts"
    ops=$(_cm_ops)
    assert_eq 3 "$(_cm_op "$ops" UploadPartCopy)" "UploadPartCopy of 20 MiB in 8 MiB parts: $ops"
    assert_eq 0 "$(_cm_op "$ops" CopyObject)" "CopyObject with --part-size 8MiB: $ops"
    # The user's threshold: 200 MiB under 1 GiB is one CopyObject.
    mkdir -p "$HOME/.aws"
    printf '[default]\ns3 =\n  multipart_threshold = 1GB\n' > "$HOME/.aws/config"
    assert_ok s3c cp "s3://$b/big000000000" "s3://$b/big-one"
    assert_eq "$(printf '%s\n' CopyObject=1 HeadObject=1)" "$(_cm_ops)" \
        "requests of a 200 MiB copy under a 1 GiB threshold"
    assert_eq 1 "$(_cm_parts "$b" big-one)" "parts of the 200 MiB copy under a 1 GiB threshold"
}

# s3emu's copy model (--copy-mbps): a CopyObject of 200 MiB at 100 MB/s takes
# 2.1 s at least, a copy in parts of 32 MiB or more at least one part's 0.34 s
# (how much less than the CopyObject depends on the emulator's CPU, which hashes
# the parts for their ETags: the bench compares); the bytes are the source's
# (downloaded and compared).
test_copy_model_rate_per_request() {
    local b t0 single multi
    _cm_store
    t_new_bucket b
    assert_ok s3c cp "$(t_data 40MB 40000000)" "s3://$b/src"
    _cm_zeros "$b" big 209715200
    _cm_config "copy_mbps=100"
    mkdir -p "$HOME/.aws"
    printf '[default]\ns3 =\n  multipart_threshold = 1GB\n' > "$HOME/.aws/config"
    t0=$EPOCHREALTIME
    assert_ok s3c cp "s3://$b/big000000000" "s3://$b/one"
    single=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", (b - a) * 1000 }')
    [ "$single" -ge 2090 ] || t_fail "a CopyObject of 200 MiB at 100 MB/s took $single ms, under the model's 2,097"
    rm "$HOME/.aws/config"
    t0=$EPOCHREALTIME
    assert_ok s3c cp "s3://$b/big000000000" "s3://$b/parts"
    multi=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", (b - a) * 1000 }')
    [ "$multi" -ge 335 ] || t_fail "a copy of 200 MiB in parts at 100 MB/s took $multi ms, under one part's 335"
    [ "$(_cm_parts "$b" parts)" -gt 1 ] || t_fail "200 MiB copied in one part"
    # A multipart copy of random bytes (2 parts of 32 MiB at 20 ms): the same bytes.
    assert_ok s3c cp "s3://$b/src" "s3://$b/src-copy"
    [ "$(_cm_parts "$b" src-copy)" -gt 1 ] || t_fail "40 MB copied in one part"
    assert_ok s3c cp "s3://$b/src-copy" back
    assert_eq "$(t_sha256 "$(t_data 40MB 40000000)")" "$(t_sha256 back)" "sha256 of the copy"
}

# A store without UploadPartCopy (501 NotImplemented, as s3rver): the first
# large copy's upload is aborted and the object copied with one CopyObject; the
# run learns it, so the other objects go as one CopyObject each (two may have
# started in parts before the first refusal came back: each of those is
# aborted too). No upload stays open, every copy has the source's bytes, and a
# 501 is not retried.
test_copy_model_part_copy_501_falls_back() {
    local b ops creates
    _cm_store
    t_new_bucket b
    assert_ok s3c cp "$(t_data 40MB 40000000)" "s3://$b/one/src"
    _cm_zeros "$b" many/a 104857600
    _cm_zeros "$b" many/b 104857600
    _cm_zeros "$b" many/c 104857600
    _cm_zeros "$b" many/d 20971520
    _cm_config "faults=501@op=UploadPartCopy"
    _cm_ops >/dev/null

    assert_ok s3c --debug cp "s3://$b/one/src" "s3://$b/one/copy"
    assert_contains "$T_ERR" "the store does not implement UploadPartCopy: copies go as one CopyObject each (501 NotImplemented)"
    assert_contains "$T_ERR" "its upload aborted, the copy starts again as one CopyObject"
    ops=$(_cm_ops)
    assert_eq "$(printf '%s\n' AbortMultipartUpload=1 CopyObject=1 CreateMultipartUpload=1 GetObjectTagging=1 \
        HeadObject=1 UploadPartCopy=2)" "$ops" "requests of a 40 MB copy refused in parts"
    assert_ok s3c cp "s3://$b/one/copy" back
    assert_eq "$(t_sha256 "$(t_data 40MB 40000000)")" "$(t_sha256 back)" "sha256 of the copy"
    assert_eq 0 "$(t_mpu_count "$b")" "open uploads"

    assert_ok s3c cp --recursive "s3://$b/many/" "s3://$b/many-copy/"
    assert_lines 4 "$T_OUT" "copy lines"
    ops=$(_cm_ops)
    creates=$(_cm_op "$ops" CreateMultipartUpload)
    [ "$creates" -ge 1 ] || t_fail "no copy was tried in parts: $ops"
    assert_eq "$creates" "$(_cm_op "$ops" AbortMultipartUpload)" "an Abort for each Create: $ops"
    assert_eq 0 "$(_cm_op "$ops" CompleteMultipartUpload)" "Completes: $ops"
    assert_eq 4 "$(_cm_op "$ops" CopyObject)" "CopyObject, one an object: $ops"
    # Each part tried was refused once: nothing retried (the 100 MiB ones have 4 parts at 20 ms).
    [ "$(_cm_op "$ops" UploadPartCopy)" -le $((creates * 4)) ] || t_fail "501s retried: $ops"
    assert_eq 0 "$(t_mpu_count "$b")" "open uploads"
    assert_eq "$(printf '%s\n' 104857600 104857600 104857600 20971520)" \
        "$(s3c ls "s3://$b/many-copy/" | awk '{ print $3 }')" "sizes of the copies"
}

# The normal path against moto's server (an S3 model written by others, with
# UploadPartCopy): a small object is one CopyObject, a larger one goes in parts
# (moto answers within a millisecond: parts of 8 MiB), both with the source's bytes.
test_copy_model_moto() {
    local b
    t_store_is s3emu || t_skip "runs once, in the s3emu pass"
    t_own_store moto
    # shellcheck disable=SC2034  # read by lib.sh (awsx, s3curl, t_store_is)
    S3C_TEST_ENDPOINT=$OWN_URL S3C_TEST_STORE=moto
    export AWS_ENDPOINT_URL=$OWN_URL
    t_new_bucket b
    assert_ok s3c cp "$(t_data 6MB 6000000)" "s3://$b/small"
    assert_ok s3c cp "$(t_data 40MB 40000000)" "s3://$b/big"
    assert_ok s3c cp "s3://$b/small" "s3://$b/small-copy"
    assert_ok s3c cp "s3://$b/big" "s3://$b/big-copy"
    assert_eq 1 "$(_cm_parts "$b" small-copy)" "parts of the small copy"
    [ "$(_cm_parts "$b" big-copy)" -gt 1 ] || t_fail "the 40 MB copy is in one part"
    assert_ok s3c cp --recursive "s3://$b/" back/ --exclude '*' --include '*-copy'
    assert_eq "$(t_sha256 "$(t_data 6MB 6000000)")" "$(t_sha256 back/small-copy)" "sha256 of the small copy"
    assert_eq "$(t_sha256 "$(t_data 40MB 40000000)")" "$(t_sha256 back/big-copy)" "sha256 of the big copy"
}

# The same fallback against s3rver (npm's s3rver 3.7.1, file-backed: t_own_store),
# which answers UploadPartCopy with 501: the copy succeeds with one CopyObject and
# has the source's bytes. (s3rver answers the Abort with 405: s3c warns that the
# upload stays open.)
test_copy_model_s3rver() {
    t_store_is s3emu || t_skip "runs once, in the s3emu pass"
    t_own_store s3rver
    export AWS_ENDPOINT_URL=$OWN_URL AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER
    assert_ok s3c mb s3://copy-model
    assert_ok s3c cp "$(t_data 40MB 40000000)" s3://copy-model/src
    assert_ok s3c --debug cp s3://copy-model/src s3://copy-model/dst
    assert_contains "$T_ERR" "the store does not implement UploadPartCopy: copies go as one CopyObject each (501 NotImplemented)"
    assert_contains "$T_ERR" "its upload aborted, the copy starts again as one CopyObject"
    assert_eq "copy: s3://copy-model/src to s3://copy-model/dst" "$T_OUT" "stdout"
    assert_ok s3c cp s3://copy-model/dst back
    assert_eq "$(t_sha256 "$(t_data 40MB 40000000)")" "$(t_sha256 back)" "sha256 of the copy"
}
