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

# _ce_pipe_up FILE S3URL: `cat FILE | s3c cp - S3URL` (stdin a pipe, not a file).
_ce_pipe_up() {
    # shellcheck disable=SC2002  # a pipe on purpose
    cat "$1" | s3c cp - "$2"
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
    assert_match "$T_ERR" "^upload failed: tree/[a-z0-9]+ to s3://$b/x/[a-z0-9]+ An error occurred \(NoSuchBucket\) when calling the (PutObject|CreateMultipartUpload) operation: The specified bucket does not exist \(s3://$b\); stopped, nothing more was tried$"
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
    assert_contains "$T_ERR" "when calling the CopyObject operation: The specified bucket does not exist (from s3://$src to s3://$b); stopped"
}

# Wrong keys: SignatureDoesNotMatch or InvalidAccessKeyId stop the run; nothing
# is left in the bucket, no multipart upload either.
test_cp_wrong_credentials_stop_at_once() {
    local b
    t_new_bucket b
    _ce_tree tree 100
    AWS_SECRET_ACCESS_KEY=wrong-secret assert_exit 1 s3c cp -r tree "s3://$b/"
    assert_lines 1 "$T_ERR" "stderr"
    assert_contains "$T_ERR" "operation: The request signature we calculated does not match"
    assert_contains "$T_ERR" "(SignatureDoesNotMatch)"
    AWS_ACCESS_KEY_ID=AKIANOSUCHKEY0000000 assert_exit 1 s3c cp -r tree "s3://$b/"
    assert_lines 1 "$T_ERR" "stderr"
    assert_contains "$T_ERR" "(InvalidAccessKeyId)"
    # Unsigned writes to a private bucket: AccessDenied before anything succeeded.
    assert_exit 1 s3c --no-sign-request cp -r tree "s3://$b/"
    assert_lines 1 "$T_ERR" "stderr"
    assert_contains "$T_ERR" "(AccessDenied)"
    assert_eq "" "$(t_list_keys "$b")" "keys in the bucket"
    assert_eq 0 "$(t_mpu_count "$b")" "multipart uploads left"
}

CE_KEY=0123456789abcdef0123456789abcdef      # 32 bytes: an AES256 customer key
CE_KEY2=fedcba9876543210fedcba9876543210

# SSE-C: a small and a multipart object written with a customer key read back
# with it (by s3c and by the AWS CLI); without it or with another key the store
# refuses, s3c says so, exits 1 and leaves no file.
test_cp_sse_c_round_trip_and_wrong_key() {
    local b small big
    t_new_bucket b
    small=$(t_data 1KB 1000)
    big=$(t_data 20MB 20000000)
    assert_ok s3c cp "$small" "s3://$b/small" --sse-c AES256 --sse-c-key "$CE_KEY"
    assert_ok s3c cp "$big" "s3://$b/big" --sse-c-key "$CE_KEY"
    # The store holds them encrypted: a plain GET is refused.
    s3curl GET "/$b/small" -o /dev/null 2>/dev/null && t_fail "s3://$b/small reads without its key"
    mkdir out
    assert_ok s3c --debug cp "s3://$b/big" out/big --sse-c AES256 --sse-c-key "$CE_KEY"
    # Its ETag is no MD5 (SSE-C): the store's CRC64NVME if it kept one (s3c's uploads carry it), else size only.
    assert_match "$T_ERR" "xfer: s3://$b/big: (verified: CRC64NVME|checked by size only: encrypted with a key)"
    assert_eq "$(t_sha256 out/big)" "$(t_sha256 "$big")" "big bytes"
    assert_ok s3c cp -r "s3://$b/" out2/ --sse-c-key "$CE_KEY"
    assert_eq "$(t_sha256 out2/small)" "$(t_sha256 "$small")" "small bytes"
    assert_eq "$(t_sha256 out2/big)" "$(t_sha256 "$big")" "big bytes (recursive)"
    assert_ok awsx s3 cp --quiet "s3://$b/big" aws-big --sse-c AES256 --sse-c-key "$CE_KEY"
    assert_eq "$(t_sha256 aws-big)" "$(t_sha256 "$big")" "big bytes read by the AWS CLI"
    # And what the AWS CLI wrote, s3c reads.
    assert_ok awsx s3 cp --quiet "$small" "s3://$b/by-aws" --sse-c AES256 --sse-c-key "$CE_KEY2"
    assert_ok s3c cp "s3://$b/by-aws" out/by-aws --sse-c-key "$CE_KEY2"
    assert_eq "$(t_sha256 out/by-aws)" "$(t_sha256 "$small")" "bytes the AWS CLI wrote"
    # No key, or another key: refused, one line each, no file.
    assert_exit 1 s3c cp "s3://$b/big" out/nokey
    assert_lines 1 "$T_ERR" "stderr"
    assert_exit 1 s3c cp "s3://$b/small" out/wrongkey --sse-c-key "$CE_KEY2"
    assert_lines 1 "$T_ERR" "stderr"
    assert_exit 1 s3c cp "s3://$b/big" out/wrongkey --sse-c-key "$CE_KEY2"
    assert_eq "$(cd out && ls -A | LC_ALL=C sort | tr '\n' ' ')" "big by-aws " "files in out/"
    # Keys that cannot be right are usage errors.
    assert_exit 252 s3c cp "$small" "s3://$b/x" --sse-c-key short
    assert_contains "$T_ERR" "an SSE-C key must be 32 bytes (256 bits), not 5"
    assert_exit 252 s3c cp "$small" "s3://$b/x" --sse-c AES256
    assert_contains "$T_ERR" "--sse-c needs --sse-c-key"
    assert_exit 252 s3c cp "$small" "s3://$b/x" --sse-c aws:kms --sse-c-key "$CE_KEY"
}

# Copies of SSE-C objects: the source's key as x-amz-copy-source-..., a new key
# for the copy (CopyObject, and UploadPartCopy for the multipart one).
test_cp_sse_c_copy_source() {
    local b
    t_store_is ceph && t_skip "Ceph 16 answers 501 to CopyObject and InvalidArgument to UploadPartCopy with an SSE-C source (the AWS CLI fails the same way)"
    t_copy_threshold   # 20 MB in UploadPartCopy parts
    t_new_bucket b
    assert_ok s3c cp "$(t_data 1KB 1000)" "s3://$b/small" --sse-c-key "$CE_KEY"
    assert_ok s3c cp "$(t_data 20MB 20000000)" "s3://$b/big" --sse-c-key "$CE_KEY"
    assert_ok s3c cp -r "s3://$b/" "s3://$b/copy/" --exclude 'copy/*' --sse-c-copy-source AES256 \
        --sse-c-copy-source-key "$CE_KEY" --sse-c AES256 --sse-c-key "$CE_KEY2"
    assert_ok s3c cp -r "s3://$b/copy/" out/ --sse-c-key "$CE_KEY2"
    assert_eq "$(t_sha256 out/small)" "$(t_sha256 "$(t_data 1KB 1000)")" "small copy"
    assert_eq "$(t_sha256 out/big)" "$(t_sha256 "$(t_data 20MB 20000000)")" "big copy"
    assert_exit 1 s3c cp "s3://$b/copy/small" out/old --sse-c-key "$CE_KEY"
    # Without the source's key the copy is refused.
    assert_exit 1 s3c cp "s3://$b/small" "s3://$b/plain"
    assert_lines 1 "$T_ERR" "stderr"
}

# Streamed uploads carry a CRC64NVME the store checks: a file PUT as aws-chunked
# with a trailer, a multipart upload created with CRC64NVME (file parts with
# trailers, stdin parts with the header), so the store keeps the whole object's
# CRC64NVME and later downloads are checked against it. Ceph 16 refuses the
# trailer: s3c says so in --debug and goes on with Content-MD5 and ETags.
test_cp_uploads_carry_crc64nvme() {
    local b k f300 f20
    t_new_bucket b
    f300=$(t_data 300KB 300000)
    f20=$(t_data 20MB 20000000)
    assert_ok s3c --debug cp "$f300" "s3://$b/file300k"
    if t_store_is ceph; then
        assert_contains "$T_ERR" "PutObject: the store refuses flexible checksums on streamed bodies (400 XAmzContentSHA256Mismatch)"
    else
        assert_contains "$T_ERR" "x-amz-content-sha256: STREAMING-UNSIGNED-PAYLOAD-TRAILER"
        assert_not_contains "$T_ERR" "refuses"
    fi
    assert_ok s3c cp "$f20" "s3://$b/file20MB"
    assert_ok _ce_pipe_up "$f20" "s3://$b/stdin20MB"
    for k in file300k file20MB stdin20MB; do
        assert_ok s3c head "s3://$b/$k"
        if t_store_is ceph; then
            assert_not_contains "$T_OUT" "ChecksumCRC64NVME" "head of $k"
        else
            assert_contains "$T_OUT" "\"ChecksumType\":\"FULL_OBJECT\"" "head of $k"
            assert_contains "$T_OUT" "\"ChecksumCRC64NVME\":\"" "head of $k"
        fi
    done
    if ! t_store_is ceph; then
        assert_ok s3c --debug cp "s3://$b/file20MB" file20MB
        assert_contains "$T_ERR" "xfer: s3://$b/file20MB: verified: CRC64NVME"
        assert_ok s3c --debug cp "s3://$b/stdin20MB" stdin20MB
        assert_contains "$T_ERR" "xfer: s3://$b/stdin20MB: verified: CRC64NVME"
    else
        assert_ok s3c cp "s3://$b/file20MB" file20MB
        assert_ok s3c cp "s3://$b/stdin20MB" stdin20MB
    fi
    assert_eq "$(t_sha256 file20MB)" "$(t_sha256 "$f20")" "file20MB bytes"
    assert_eq "$(t_sha256 stdin20MB)" "$(t_sha256 "$f20")" "stdin20MB bytes"
    t_get "$b" file300k got300k
    assert_eq "$(t_sha256 got300k)" "$(t_sha256 "$f300")" "file300k bytes"
    # request_checksum_calculation = when_required: none of that.
    mkdir -p "$HOME/.aws"
    printf '[default]\nrequest_checksum_calculation = when_required\n' > "$HOME/.aws/config"
    assert_ok s3c --debug cp "$f300" "s3://$b/plain300k"
    assert_not_contains "$T_ERR" "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
    assert_ok s3c cp "$f20" "s3://$b/plain20MB"
    assert_ok s3c head "s3://$b/plain20MB"
    assert_not_contains "$T_OUT" "ChecksumCRC64NVME"
}

# _ce_streamed_tree DIR N: N files of 70-80 KB under DIR, each a streamed
# PutObject (above what goes whole with Content-MD5, below the multipart threshold).
_ce_streamed_tree() {
    local i src
    src=$(t_data 300KB 300000)
    mkdir -p "$1"
    for i in $(seq 1 "$2"); do head -c $((70000 + i * 313)) "$src" > "$1/f$i"; done
}

# _ce_count TEXT ERE: how many lines of TEXT match ERE.
_ce_count() { grep -Ec -- "$2" <<<"$1"; }

# _ce_put_counts: "PUT-answers trailer-bodies refused" in the --debug output T_ERR.
_ce_put_counts() {
    echo "$(_ce_count "$T_ERR" '^s3c: debug: http: PUT -> ')" \
         "$(_ce_count "$T_ERR" '> x-amz-content-sha256: STREAMING-UNSIGNED-PAYLOAD-TRAILER$')" \
         "$(_ce_count "$T_ERR" '^s3c: debug: http: PUT -> 400 ')"
}

# Whether the store takes a trailer is learned once per run, not per file or
# part: Ceph 16, which refuses it, gets one trailer body in a run of 30 streamed
# uploads (refused, 400) and plain bodies after; s3emu gets a trailer on every
# body. The same with a multipart upload in the run (s3emu: on each file part).
test_cp_trailer_refusal_costs_one_request_per_run() {
    local b puts sums counts refused
    t_new_bucket b
    _ce_streamed_tree tree 30
    puts=$(_ce_emu_ops PutObject)
    assert_ok s3c --debug cp -r tree "s3://$b/one/"
    counts=$(_ce_put_counts)
    if t_store_is ceph; then
        assert_eq "31 1 1" "$counts" "PUT answers, trailer bodies, refused (30 files)"
        assert_lines 1 "$(grep 'refuses flexible checksums' <<<"$T_ERR")" "refusals told"
    else
        assert_eq "30 30 0" "$counts" "PUT answers, trailer bodies, refused (30 files)"
        assert_eq 30 $(($(_ce_emu_ops PutObject) - puts)) "PutObject requests s3emu answered"
        assert_ok s3c head "s3://$b/one/f7"
        assert_contains "$T_OUT" "\"ChecksumCRC64NVME\":\"" "head of one/f7"
    fi
    sums=$(t_tree_sums tree)
    assert_ok awsx s3 cp --recursive --quiet "s3://$b/one/" one/
    assert_eq "$sums" "$(t_tree_sums one)" "tree read back by the AWS CLI"
    # And with a multipart upload in the run: 4 parts.
    cp "$(t_data 20MB 20000000)" tree/big
    assert_ok s3c --debug cp -r tree "s3://$b/two/" --part-size 5MB
    counts=$(_ce_put_counts)
    if t_store_is ceph; then
        # CreateMultipartUpload's answer may tell first: then no trailer is sent at all.
        refused=${counts##* }
        [ "$refused" -le 1 ] || t_fail "$refused trailer bodies refused in one run"
        assert_eq "$((34 + refused)) $refused $refused" "$counts" "PUT answers, trailer bodies, refused (30 files, 4 parts)"
    else
        assert_eq "34 34 0" "$counts" "PUT answers, trailer bodies, refused (30 files, 4 parts)"
        assert_ok s3c head "s3://$b/two/big"
        assert_contains "$T_OUT" "\"ChecksumType\":\"FULL_OBJECT\"" "head of two/big"
    fi
    assert_ok s3c cp -r "s3://$b/two/" two/
    assert_eq "$(t_tree_sums tree)" "$(t_tree_sums two)" "tree read back"
}

# _ce_flip_start MODE N: start tests/e2e/flip_proxy.py in front of the store,
# damaging the first N upload bodies of MODE; F_URL, F_LOG. Stopped when the test ends.
_ce_flip_start() {
    local i out=$T_DIR/flip-$1-$2.out
    F_LOG=$T_DIR/flip-$1-$2.log
    : > "$F_LOG"
    python3 "$E2E_ROOT/tests/e2e/flip_proxy.py" "$S3C_TEST_ENDPOINT" "$1" "$2" "$F_LOG" > "$out" 2>&1 &
    F_PIDS="${F_PIDS:-} $!"
    t_at_exit "kill $F_PIDS 2>/dev/null"
    for ((i = 0; i < 100; i++)); do
        F_URL=$(sed -n 's/^ready //p' "$out")
        [ -n "$F_URL" ] && return 0
        sleep 0.1
    done
    t_fail "flip_proxy.py did not start: $(cat "$out")"
}

# Upload bytes damaged on the way (a relay flips one bit of the body; no
# signature covers it) are caught and sent again: on s3emu by the CRC64NVME
# trailer (400 BadDigest), on Ceph 16, which keeps no flexible checksums, by
# the ETag against the MD5 s3c took while sending. Damaged every time: exit 1
# naming the object, and no multipart upload left.
test_cp_damaged_upload_bytes_are_sent_again() {
    local b f big mode=chunked why
    t_store_is ceph && mode=plain
    t_new_bucket b
    f=$(t_data 300KB 300000)
    big=$(t_data 20MB 20000000)
    if t_store_is ceph; then
        why="the store's ETag [0-9a-f]{32} does not match the MD5 [0-9a-f]{32} of the bytes sent"
    else
        why="The CRC64NVME you specified did not match the calculated checksum."
    fi
    _ce_flip_start "$mode" 1
    assert_ok s3c --debug --endpoint-url "$F_URL" cp "$f" "s3://$b/small"
    assert_eq 1 "$(grep -c '^flip PUT ' "$F_LOG")" "bodies damaged"
    assert_match "$T_ERR" "xfer: s3://$b/small: PutObject: $why; try 2 in"
    t_get "$b" small got-small
    assert_eq "$(t_sha256 "$f")" "$(t_sha256 got-small)" "small bytes"
    _ce_flip_start "$mode" 2
    assert_ok s3c --debug --endpoint-url "$F_URL" cp "$big" "s3://$b/big"
    assert_eq 2 "$(grep -c '^flip PUT .*partNumber=' "$F_LOG")" "parts damaged"
    assert_eq 2 "$(_ce_count "$T_ERR" "xfer: s3://$b/big: UploadPart: $why; try 2 in")" "parts sent again"
    t_get "$b" big got-big
    assert_eq "$(t_sha256 "$big")" "$(t_sha256 got-big)" "big bytes"
    _ce_flip_start "$mode" -1
    assert_exit 1 s3c --endpoint-url "$F_URL" cp "$f" "s3://$b/bad"
    assert_lines 1 "$T_ERR" "stderr"
    assert_match "$T_ERR" "^upload failed: [^ ]+ to s3://$b/bad (An error occurred \(BadDigest\) when calling the PutObject operation: )?$why"
    t_store_is ceph || assert_contains "$T_ERR" "(BadDigest)"
    assert_exit 1 s3c --endpoint-url "$F_URL" cp "$big" "s3://$b/badbig"
    assert_lines 1 "$T_ERR" "stderr"
    assert_match "$T_ERR" "^upload failed: [^ ]+ to s3://$b/badbig "
    assert_eq 0 "$(t_mpu_count "$b")" "multipart uploads left"
    # Ceph 16 checks no digest of a single PUT: it keeps the damaged "bad" (s3c said so, exit 1).
    assert_eq "big small" "$(t_list_keys "$b" | grep -vx bad | tr '\n' ' ' | sed 's/ $//')" "keys"
    t_store_is ceph || assert_eq "" "$(t_list_keys "$b" | grep -x bad)" "the damaged object stored"
}
