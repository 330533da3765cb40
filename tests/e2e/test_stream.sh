# shellcheck shell=bash
# tests/e2e/test_stream.sh — cat, pipe (and cp with '-'), presign.
#
# cat writes an object to stdout from parallel ranged GETs kept in order;
# pipe uploads stdin as a streaming multipart upload; both are checked by
# sha256 against the bytes that went in. presign URLs are fetched with curl.
# Fault tests (a range reset mid-body, a corrupted range) run on s3emu only:
# they need its admin endpoint.

MIB=$((1024 * 1024))

_st_etag() { t_head_header "$1" "$2" etag | tr -d '"'; }

# _st_cat_sha URL [FLAGS...]: `s3c cat URL | sha256sum`; exit status of s3c.
_st_cat_sha() {
    s3c cat "$@" | sha256sum | cut -d' ' -f1
    return "${PIPESTATUS[0]}"
}

# _st_null CMD...: CMD with its stdout thrown away (T_OUT would hold megabytes).
_st_null() { "$@" > /dev/null; }

# _st_head10 CMD...: CMD | head -c 10 > head.out; exit status of CMD.
_st_head10() {
    "$@" | head -c 10 > "$T_DIR/head.out"
    return "${PIPESTATUS[0]}"
}

# _st_emu_stat JQ: a number from s3emu's stats.
_st_emu_stat() { curl -s "$S3C_TEST_ENDPOINT/_s3emu/stats" | jq -r "$1"; }

# _st_emu_faults SPEC: s3emu's fault rules (empty clears them).
_st_emu_faults() {
    curl -sf -X POST --data-binary "faults=$1" "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null ||
        t_fail "could not set s3emu faults '$1'"
}

# ------------------------------------------------------------------- cat --

test_cat_sizes_by_sha256() {
    local b f sum
    t_new_bucket b
    : > empty
    printf 'x' > one
    f=$(t_data 20MB 20000000)
    sum=$(t_sha256 "$f")
    t_put "$b" empty empty
    t_put "$b" one one
    t_put "$b" single "$f"                        # one PUT: its ETag is the MD5
    assert_ok s3c cp "$f" "s3://$b/multi" --part-size 5MB
    [[ $(_st_etag "$b" multi) == *-4 ]] || t_fail "s3://$b/multi is not a 4-part object"

    assert_ok _st_cat_sha "s3://$b/empty"
    assert_eq "$(t_sha256 empty)" "$T_OUT" "sha256 of cat of 0 bytes"
    assert_eq "" "$T_ERR" "stderr"
    assert_ok _st_cat_sha "s3://$b/one"
    assert_eq "$(t_sha256 one)" "$T_OUT" "sha256 of cat of 1 byte"
    assert_ok _st_cat_sha "s3://$b/single"
    assert_eq "$sum" "$T_OUT" "sha256 of cat of 20 MB in one part"
    assert_ok _st_cat_sha "s3://$b/multi"
    assert_eq "$sum" "$T_OUT" "sha256 of cat of 20 MB in 4 parts"
    # Ranges of the configured size, fewer in flight: still in order.
    assert_ok _st_cat_sha "s3://$b/multi" --part-size 5MB --concurrency 2
    assert_eq "$sum" "$T_OUT" "sha256 of cat with 5 MiB ranges, 2 in flight"
    # cp to '-' takes the same path.
    t_cmd bash -c 'set -o pipefail; "$0" cp "$1" - | sha256sum | cut -d" " -f1' "$S3C" "s3://$b/multi"
    assert_eq "$sum" "$T_OUT" "sha256 of cp s3://$b/multi -"
    assert_eq 0 "$T_RC" "exit status of cp to stdout"
    # The AWS CLI reads the same bytes.
    assert_ok awsx s3 cp "s3://$b/multi" got
    assert_file_sha256 got "$sum"
}

test_cat_reader_that_stops_early_ends_quietly() {
    local b f
    t_new_bucket b
    f=$(t_data 20MB 20000000)
    t_put "$b" big "$f"
    assert_ok _st_head10 s3c cat "s3://$b/big"
    assert_eq "" "$T_ERR" "stderr of cat | head -c 10"
    assert_eq "$(head -c 10 "$f" | od -An -tx1)" "$(od -An -tx1 < "$T_DIR/head.out")" "the first 10 bytes"
    assert_ok _st_head10 s3c cp "s3://$b/big" -
    assert_eq "" "$T_ERR" "stderr of cp - | head -c 10"
    # A small object goes in one GET written as it comes: the same.
    head -c 300000 "$f" > small
    t_put "$b" small small
    assert_ok _st_head10 s3c cat "s3://$b/small"
    assert_eq "" "$T_ERR" "stderr of cat small | head -c 10"
}

test_cat_usage_and_missing_key() {
    local b
    t_new_bucket b
    t_put_text "$b" 'a%2Ab' star
    # A wildcard or a prefix prints every object it names, in key order (s5cmd's cat).
    assert_ok s3c cat "s3://$b/a*"
    assert_eq "star" "$T_OUT" "cat of a wildcard"
    # A wildcard to standard output once wrote into a directory named '-' (see test_cp.sh).
    [ ! -e ./- ] || t_fail "a local '-' was created"
    assert_ok s3c cat "s3://$b/"
    assert_eq "star" "$T_OUT" "cat of a prefix"
    assert_exit 1 s3c cat "s3://$b/zz*"
    assert_contains "$T_ERR" "no object matches s3://$b/zz*"
    assert_exit 252 s3c cat "s3://$b/x" "s3://$b/y"
    assert_exit 252 s3c cat ./local
    assert_exit 252 s3c cat "s3://$b/x" --recursive
    assert_ok s3c cat --raw "s3://$b/a*b"
    assert_eq "star" "$T_OUT" "cat --raw of a key with '*'"
    assert_exit 1 s3c cat "s3://$b/no-such-key"
    assert_lines 1 "$T_ERR" "stderr"
    assert_contains "$T_ERR" "s3://$b/no-such-key"
    assert_eq "" "$T_OUT" "stdout"
}

test_cat_retried_range_is_fetched_again_alone() {
    t_store_is s3emu || t_skip "needs s3emu's fault injection"
    local b f sum out0 get0 out1 get1 fired0
    t_new_bucket b
    f=$(t_data 20MB 20000000)
    sum=$(t_sha256 "$f")
    t_put "$b" big "$f"
    _st_emu_faults "reset-mid@op=GetObject,bucket=$b,nth=3"
    out0=$(_st_emu_stat .bytes_out)
    get0=$(_st_emu_stat .ops.GetObject)
    fired0=$(_st_emu_stat '.faults["reset-mid"]')
    t_cmd _st_cat_sha "s3://$b/big"
    _st_emu_faults ""
    assert_eq 0 "$T_RC" "exit status"
    assert_eq "$sum" "$T_OUT" "sha256 of cat with one range reset mid-body"
    assert_eq 1 $(($(_st_emu_stat '.faults["reset-mid"]') - fired0)) "reset-mid faults fired"
    out1=$(_st_emu_stat .bytes_out)
    get1=$(_st_emu_stat .ops.GetObject)
    # Ranges of 3 MiB: 7, one of them twice; the whole object once more would be 40 MB.
    assert_eq 8 $((get1 - get0)) "GetObject requests (7 ranges, 1 retry)"
    [ $((out1 - out0)) -lt $((20000000 + 3 * MIB + 100000)) ] ||
        t_fail "s3emu sent $((out1 - out0)) bytes for a 20 MB object with one range retried"
}

test_cat_corrupt_range_fails_md5_check() {
    t_store_is s3emu || t_skip "needs s3emu's fault injection"
    local b f
    t_new_bucket b
    f=$(t_data 20MB 20000000)
    t_put "$b" big "$f"
    _st_emu_faults "corrupt@op=GetObject,bucket=$b,nth=2"
    t_cmd _st_cat_sha "s3://$b/big"
    _st_emu_faults ""
    assert_eq 1 "$T_RC" "exit status of cat of a corrupted object"
    assert_contains "$T_ERR" "MD5"
    assert_lines 1 "$T_ERR" "stderr"
}

# cat --debug of s3://$1/$2 with one GET corrupted (s3emu fault filter $3):
# fetched again, exit 0, the bytes of sha256 $4.
_st_cat_one_corrupt() {
    local before
    before=$(_st_emu_stat '.faults.corrupt')
    _st_emu_faults "corrupt@op=GetObject,bucket=$1,$3"
    t_cmd _st_cat_sha "s3://$1/$2" --debug
    _st_emu_faults ""
    assert_eq 1 $(($(_st_emu_stat '.faults.corrupt') - before)) "corrupt faults fired"
    assert_eq 0 "$T_RC" "exit status of cat with one corrupted GET"
    assert_eq "$4" "$T_OUT" "sha256 of cat with one corrupted GET"
}

# cat of s3://$1/$2 with every GET of it corrupted (s3emu): exit 1, stderr
# matching $3, not a byte written to stdout.
_st_cat_every_get_corrupt() {
    _st_emu_faults "corrupt@op=GetObject,bucket=$1,key=$2"
    t_cmd bash -c '"$0" cat "$1" > every-corrupt.out' "$S3C" "s3://$1/$2"
    _st_emu_faults ""
    assert_eq 1 "$T_RC" "exit status of cat with every GET corrupted"
    assert_match "$T_ERR" "$3"
    assert_eq 0 "$(stat -c %s every-corrupt.out)" "bytes written to stdout"
}

# _st_mpu_crc64 BUCKET KEY FILE: FILE as a 2-part upload that asked for a CRC64NVME
# (the store keeps the full-object checksum; s3emu computes it at Complete).
_st_mpu_crc64() {
    local b=$1 k=$2 f=$3 id e1 e2 half
    half=$(( $(stat -c %s "$f") / 2 ))
    head -c "$half" "$f" > "$T_DIR/.p1"
    tail -c +$((half + 1)) "$f" > "$T_DIR/.p2"
    id=$(s3curl POST "/$b/$k?uploads=" -H "x-amz-checksum-algorithm: CRC64NVME" |
         grep -o '<UploadId>[^<]*' | cut -d'>' -f2) || t_fail "CreateMultipartUpload"
    e1=$(s3curl PUT "/$b/$k?partNumber=1&uploadId=$id" -T "$T_DIR/.p1" -D - -o /dev/null |
         tr -d '\r' | awk 'tolower($1) == "etag:" { print $2 }')
    e2=$(s3curl PUT "/$b/$k?partNumber=2&uploadId=$id" -T "$T_DIR/.p2" -D - -o /dev/null |
         tr -d '\r' | awk 'tolower($1) == "etag:" { print $2 }')
    s3curl POST "/$b/$k?uploadId=$id" --data-binary "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>$e1</ETag></Part><Part><PartNumber>2</PartNumber><ETag>$e2</ETag></Part></CompleteMultipartUpload>" \
        -o /dev/null || t_fail "CompleteMultipartUpload"
}

# A multipart object's ETag checks no ranges; a stored full-object CRC does.
test_cat_multipart_checked_against_stored_checksum() {
    t_store_is s3emu || t_skip "Ceph 16 stores no flexible checksums; corruption needs s3emu"
    local b f
    t_new_bucket b
    f=$(t_data 20MB 20000000)
    _st_mpu_crc64 "$b" crc "$f"
    assert_ok _st_null s3c --debug cat "s3://$b/crc"
    assert_contains "$T_ERR" "xfer: s3://$b/crc: verified: CRC64NVME "
    assert_contains "$T_ERR" "of 7 ranges matches the stored checksum"
    t_cmd _st_cat_sha "s3://$b/crc"
    assert_eq "$(t_sha256 "$f")" "$T_OUT" "sha256"
    # One range corrupted: the 7 ranges fit the window, so none is written before
    # their CRCs, combined, match the stored one: fetched again, exit 0.
    _st_cat_one_corrupt "$b" crc "nth=4" "$(t_sha256 "$f")"
    assert_match "$T_ERR" "downloaded bytes have CRC64NVME .*, the store's checksum is .*; downloading it again"
    # Every GET corrupted: exit 1, not a byte written.
    _st_cat_every_get_corrupt "$b" crc "downloaded bytes have CRC64NVME .*, the store's checksum is"
    # Without a stored checksum, --debug says what was checked: the md5 of part MD5s.
    # (request_checksum_calculation = when_required: an upload that stores no CRC64NVME)
    AWS_REQUEST_CHECKSUM_CALCULATION=when_required assert_ok s3c cp "$f" "s3://$b/plain" --part-size 5MB
    assert_ok _st_null s3c --debug cat "s3://$b/plain"
    assert_contains "$T_ERR" "xfer: s3://$b/plain: verified: md5 of 4 part MD5s (parts of 5242880 bytes)"
}

# A multipart object with no stored checksum (issue 14, item 3): ranges are the
# upload's parts, each MD5'd by a hash worker before it may go out; an object
# the window holds (here 4 parts of 5 MiB) goes out only once the md5 of its
# part MD5s matches the ETag. One corrupted GET is fetched again (exit 0, the
# object's bytes); a corruption that persists fails the object with nothing
# written. Larger objects are checked when all is out (exit 1 on a mismatch).
test_cat_multipart_md5_parts_checked_before_release() {
    local b f sum big
    t_new_bucket b
    f=$(t_data 20MB 20000000)
    sum=$(t_sha256 "$f")
    AWS_REQUEST_CHECKSUM_CALCULATION=when_required assert_ok s3c cp "$f" "s3://$b/plain" --part-size 5MB
    [[ $(_st_etag "$b" plain) == *-4 ]] || t_fail "s3://$b/plain is not a 4-part object"
    t_cmd _st_cat_sha "s3://$b/plain" --debug
    assert_eq 0 "$T_RC" "exit status of cat"
    assert_eq "$sum" "$T_OUT" "sha256 of cat"
    # (Ceph 16 does not say the part size: 5 MiB is guessed right.)
    assert_contains "$T_ERR" "xfer: s3://$b/plain: verified: md5 of 4 part MD5s (parts of 5242880 bytes"
    t_cmd bash -c 'set -o pipefail; "$0" cp "$1" - | sha256sum | cut -d" " -f1' "$S3C" "s3://$b/plain"
    assert_eq 0 "$T_RC" "exit status of cp to stdout"
    assert_eq "$sum" "$T_OUT" "sha256 of cp s3://$b/plain -"
    t_store_is s3emu || return 0 # the rest needs s3emu's fault injection
    _st_cat_one_corrupt "$b" plain "key=plain,times=1" "$sum"
    assert_contains "$T_ERR" "xfer: s3://$b/plain: downloaded bytes give ETag"
    assert_contains "$T_ERR" "downloading it again"
    # Every GET corrupted: exit 1, one error line, not a byte written.
    _st_cat_every_get_corrupt "$b" plain "downloaded bytes give ETag [0-9a-f]{32}-4, the store's is"
    assert_lines 1 "$T_ERR" "stderr"
    # 14 parts of 5 MiB do not fit the 64 MiB window: checked once all is out.
    big=$(t_data 70MB 70000000)
    AWS_REQUEST_CHECKSUM_CALCULATION=when_required assert_ok s3c cp "$big" "s3://$b/big" --part-size 5MB
    t_cmd _st_cat_sha "s3://$b/big" --debug
    assert_eq 0 "$T_RC" "exit status of cat of 14 parts"
    assert_eq "$(t_sha256 "$big")" "$T_OUT" "sha256 of cat of 14 parts"
    assert_contains "$T_ERR" "xfer: s3://$b/big: verified: md5 of 14 part MD5s (parts of 5242880 bytes)"
    _st_emu_faults "corrupt@op=GetObject,bucket=$b,key=big,times=1"
    t_cmd _st_cat_sha "s3://$b/big"
    _st_emu_faults ""
    assert_eq 1 "$T_RC" "exit status of cat of 14 parts, one corrupted"
    assert_match "$T_ERR" "downloaded bytes give ETag [0-9a-f]{32}-14, the store's is"
}

# ------------------------------------------------------------------ pipe --

# _st_fifo_source N FILE: a fifo 'src.fifo' fed N random bytes (also kept in FILE).
# (The reader must open it inside t_cmd's command: t_cmd gives commands /dev/null as stdin.)
_st_fifo_source() {
    rm -f src.fifo
    mkfifo src.fifo
    (head -c "$1" /dev/urandom | tee "$2" > src.fifo) &
}

test_pipe_30MB_stream_round_trips() {
    local b sum
    t_new_bucket b
    _st_fifo_source 30000000 sent
    t_cmd bash -c '"$0" pipe "$1" < src.fifo' "$S3C" "s3://$b/stream"
    wait
    assert_eq 0 "$T_RC" "exit status of pipe"
    assert_eq "" "$T_OUT" "stdout of pipe (a stream's upload prints nothing, as the AWS CLI's cp -)"
    sum=$(t_sha256 sent)
    [[ $(_st_etag "$b" stream) == *-4 ]] || t_fail "not 4 parts of 8 MiB: ETag $(_st_etag "$b" stream)"
    assert_ok _st_cat_sha "s3://$b/stream"
    assert_eq "$sum" "$T_OUT" "sha256 of the piped stream"
    # cp - takes the same path.
    _st_fifo_source 30000000 sent2
    t_cmd bash -c '"$0" cp - "$1" < src.fifo' "$S3C" "s3://$b/stream2"
    wait
    assert_eq 0 "$T_RC" "exit status of cp -"
    assert_ok _st_cat_sha "s3://$b/stream2"
    assert_eq "$(t_sha256 sent2)" "$T_OUT" "sha256 of cp - of a stream"
}

# Without flexible checksums (as on a store that keeps none), each part goes
# with its Content-MD5, computed by a hash worker before the part is sent.
test_pipe_parts_carry_content_md5_without_flexible_checksums() {
    local b f
    t_new_bucket b
    f=$(t_data 20MB 20000000)
    t_cmd bash -c 'AWS_REQUEST_CHECKSUM_CALCULATION=when_required "$0" --debug pipe "$1" < "$2"' "$S3C" "s3://$b/md5" "$f"
    assert_eq 0 "$T_RC" "exit status of pipe"
    assert_eq 3 "$(grep -c 'http:   > Content-MD5: ' <<< "$T_ERR")" "parts sent with Content-MD5"
    assert_eq 0 "$(grep -c 'x-amz-checksum-crc64nvme' <<< "$T_ERR")" "parts sent with a CRC64NVME"
    assert_ok _st_cat_sha "s3://$b/md5"
    assert_eq "$(t_sha256 "$f")" "$T_OUT" "sha256 of the piped stream"
}

test_pipe_expected_size_picks_the_part_size() {
    local b f
    t_new_bucket b
    f=$(t_data 30MB 30000000)
    # 100 GiB in 10,000 parts needs parts of 11 MiB: 30 MB is then 3 parts, not 4.
    t_cmd bash -c '"$0" pipe --expected-size 100GiB "$1" < "$2"' "$S3C" "s3://$b/k" "$f"
    assert_eq 0 "$T_RC" "exit status"
    [[ $(_st_etag "$b" k) == *-3 ]] || t_fail "not 3 parts of 11 MiB: ETag $(_st_etag "$b" k)"
    assert_ok _st_cat_sha "s3://$b/k"
    assert_eq "$(t_sha256 "$f")" "$T_OUT" "sha256"
    assert_exit 252 s3c pipe --expected-size lots "s3://$b/k"
}

test_pipe_slow_producer_and_object_flags() {
    local b f
    t_new_bucket b
    f=$(t_data 12MB 12000000)
    # Three bursts with pauses: the parts in flight must not wait on stdin.
    t_cmd bash -c 'for i in 0 1 2; do tail -c +$((i * 4000000 + 1)) "$2" | head -c 4000000; sleep 0.4; done |
        "$0" pipe "$1" --part-size 5MB --content-type text/x-s3c --cache-control max-age=60 --metadata origin=pipe' \
        "$S3C" "s3://$b/slow" "$f"
    assert_eq 0 "$T_RC" "exit status"
    [[ $(_st_etag "$b" slow) == *-3 ]] || t_fail "not 3 parts of 5 MiB: ETag $(_st_etag "$b" slow)"
    assert_ok _st_cat_sha "s3://$b/slow"
    assert_eq "$(t_sha256 "$f")" "$T_OUT" "sha256"
    assert_eq "text/x-s3c" "$(t_head_header "$b" slow content-type)" "Content-Type"
    assert_eq "max-age=60" "$(t_head_header "$b" slow cache-control)" "Cache-Control"
    assert_eq "pipe" "$(t_head_header "$b" slow x-amz-meta-origin)" "x-amz-meta-origin"
    # A few bytes: one PUT. A full key is required; cp-only flags are refused.
    t_cmd bash -c 'printf hi | "$0" pipe "$1"' "$S3C" "s3://$b/tiny"
    assert_eq 0 "$T_RC" "exit status of a tiny pipe"
    assert_ok s3c cat "s3://$b/tiny"
    assert_eq "hi" "$T_OUT" "content of tiny"
    assert_exit 252 s3c pipe "s3://$b/dir/"
    assert_exit 252 s3c pipe "s3://$b/k" --recursive
}

# --------------------------------------------------------------- presign --

test_presign_urls_work_with_curl() {
    local b f url sig
    t_new_bucket b
    f=$(t_data 1MB 1000000)
    t_put "$b" "dir/a%20b%2Bc.bin" "$f"
    assert_ok s3c presign "s3://$b/dir/a b+c.bin"
    url=$T_OUT
    assert_match "$url" "X-Amz-Expires=3600&"
    t_cmd curl -sf -o got "$url"
    assert_eq 0 "$T_RC" "curl of the presigned URL"
    assert_file_sha256 got "$(t_sha256 "$f")"

    # Expired: 403.
    assert_ok s3c presign "s3://$b/dir/a b+c.bin" --expires-in 1
    url=$T_OUT
    sleep 2
    assert_eq 403 "$(curl -s -o /dev/null -w '%{http_code}' "$url")" "status of an expired URL"

    # 7 days at most.
    assert_ok s3c presign "s3://$b/dir/a b+c.bin" --expires-in 604800
    assert_match "$T_OUT" "X-Amz-Expires=604800&"
    assert_exit 252 s3c presign "s3://$b/dir/a b+c.bin" --expires-in 604801
    assert_lines 1 "$T_ERR" "stderr"
    assert_contains "$T_ERR" "604800"
    assert_exit 252 s3c presign "s3://$b/dir/a b+c.bin" --expires-in 0
    assert_exit 252 s3c presign "s3://$b/"

    # --debug never shows the signature (it is only in the URL on stdout).
    assert_ok s3c --debug presign "s3://$b/dir/a b+c.bin"
    sig=$(sed -n 's/.*X-Amz-Signature=\([0-9a-f]*\).*/\1/p' <<<"$T_OUT")
    [ ${#sig} = 64 ] || t_fail "no signature in $T_OUT"
    assert_not_contains "$T_ERR" "$sig" "stderr of --debug"

    # The AWS CLI's URL for the same object is accepted too.
    assert_ok awsx s3 presign "s3://$b/dir/a b+c.bin" --expires-in 300
    t_cmd curl -sf -o got2 "$T_OUT"
    assert_eq 0 "$T_RC" "curl of the AWS CLI's presigned URL"
    assert_file_sha256 got2 "$(t_sha256 "$f")"
}

test_presign_session_token_and_addressing() {
    local b url
    t_new_bucket b
    t_put_text "$b" k hello
    # A session token rides along as X-Amz-Security-Token (the store would refuse a made-up one).
    AWS_SESSION_TOKEN='tok/en+=' t_cmd s3c presign "s3://$b/k"
    assert_eq 0 "$T_RC" "exit status"
    assert_contains "$T_OUT" "X-Amz-Security-Token=tok%2Fen%2B%3D&"
    # No credentials: a clear error, no URL (exit 253, as for any command without them).
    assert_exit 253 env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY "$S3C" presign "s3://$b/k"
    assert_eq "" "$T_OUT" "stdout without credentials"
    # Another region is signed for, and named in the credential scope.
    assert_ok s3c presign "s3://$b/k" --region eu-west-3
    assert_contains "$T_OUT" "%2Feu-west-3%2Fs3%2Faws4_request"
    # Virtual-hosted style puts the bucket in the host name (s3emu serves BUCKET.localhost).
    t_store_is s3emu || return 0
    mkdir -p "$HOME/.aws"
    printf '[default]\ns3 =\n    addressing_style = virtual\n' > "$HOME/.aws/config"
    url=$(s3c --endpoint-url "${S3C_TEST_ENDPOINT/127.0.0.1/localhost}" presign "s3://$b/k")
    assert_contains "$url" "://$b.localhost:"
    t_cmd curl -sf "$url"
    assert_eq "hello" "$T_OUT" "object through a virtual-hosted presigned URL"
}

# A stream's upload says nothing when it went (the AWS CLI's cp -), its failure
# what failed, and its --json record the size standard input turned out to have.
test_pipe_json_record_says_the_size() {
    local b
    t_new_bucket b
    head -c 12345 /dev/urandom > in
    t_cmd bash -c '"$0" --json pipe "$1" < in' "$S3C" "s3://$b/k"
    assert_eq 0 "$T_RC" "exit status of pipe"
    assert_eq "upload true - s3://$b/k 12345" \
        "$(jq -r '[.operation, .success, .source, .destination, .size] | join(" ")' <<<"$T_OUT")" "the record"
    t_cmd bash -c '"$0" cp - "$1" < in' "$S3C" "s3://$b/k2"
    assert_eq "0 " "$T_RC $T_OUT" "exit and stdout of cp -"
}
