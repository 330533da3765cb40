# tests/e2e/test_verify.sh — issue 4: downloads in ranges are verified whole.
# shellcheck shell=bash
#
# A download above the multipart threshold is fetched in ranges. The engine
# checks the whole file before it renames it into place: against the store's
# full-object CRC when there is one, else against the md5-of-part-md5s ETag
# (ranges cut at the upload's parts: S3 and s3emu say the part size through
# HEAD ?partNumber=1, Ceph 16 does not, so s3c guesses it), else against a
# single-part ETag (the MD5 of the whole, hashed in order). --debug says
# which check ran ("xfer: s3://B/K: verified: ..."); these tests read that
# line, the bytes, and on s3emu the fault counters.

V_MIB=$((1024 * 1024))

# _v_mpu BUCKET KEY FILE PART-BYTES: FILE as a multipart upload by curl (t_mpu).
_v_mpu() { t_mpu "$@"; }

# _v_emu_faults SPEC: set s3emu's fault rules ("" clears them).
_v_emu_faults() {
    curl -sS --fail -X POST --data-binary "$(jq -cn --arg f "$1" '{faults: $f}')" \
        "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null ||
        t_fail "could not set s3emu faults '$1'"
}

# _v_emu_config JSON: change s3emu's model.
_v_emu_config() {
    curl -sS --fail -X POST --data-binary "$1" "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null ||
        t_fail "could not set s3emu config '$1'"
}

# _v_emu_fired KIND: how many faults of KIND s3emu has fired since its start.
_v_emu_fired() {
    curl -sS "$S3C_TEST_ENDPOINT/_s3emu/stats" | jq -r ".faults[\"$1\"]"
}

# _v_no_leftovers DIR: nothing but FILES... in DIR (no temp file left behind).
_v_only_files() {
    local dir=$1; shift
    assert_eq "$(printf '%s\n' "$@" | LC_ALL=C sort)" "$(cd "$dir" && find . -mindepth 1 | sed 's|^\./||' | LC_ALL=C sort)" \
        "files in $dir"
}

# A multipart object written by s3c (8 MiB parts) and one written by the AWS CLI:
# each download is checked against its ETag, part by part.
test_verify_multipart_download_md5_of_parts() {
    local b f
    t_new_bucket b
    f=$(t_data 20MB 20000000)
    # (when_required: no CRC64NVME stored, which would be checked instead)
    AWS_REQUEST_CHECKSUM_CALCULATION=when_required assert_ok s3c cp "$f" "s3://$b/s3c-20MB"
    assert_ok awsx s3 cp --quiet "$(t_data 12MB 12000000)" "s3://$b/awscli-12MB"
    mkdir out
    assert_ok s3c --debug cp "s3://$b/s3c-20MB" out/a
    assert_contains "$T_ERR" "xfer: s3://$b/s3c-20MB: verified: md5 of 3 part MD5s (parts of 8388608 bytes"
    assert_eq "$(t_sha256 out/a)" "$(t_sha256 "$f")" "s3c-20MB bytes"
    assert_ok s3c --debug cp "s3://$b/awscli-12MB" out/b
    assert_contains "$T_ERR" "xfer: s3://$b/awscli-12MB: verified: md5 of 2 part MD5s (parts of 8388608 bytes"
    assert_eq "$(t_sha256 out/b)" "$(t_sha256 "$(t_data 12MB 12000000)")" "awscli-12MB bytes"
    _v_only_files out a b
}

# Parts of 5 MiB (rclone's and the Go SDK's size) and of 7 MiB (nobody's
# default). s3emu says the part size; Ceph does not, so 5 MiB is a right guess
# there and 7 MiB a wrong one: two downloads that agree byte for byte are
# accepted, and --debug says the object could not be verified.
test_verify_multipart_download_other_part_sizes() {
    local b f
    t_new_bucket b
    f=$(t_data 12MB 12000000)
    _v_mpu "$b" five "$f" $((5 * V_MIB))
    _v_mpu "$b" seven "$f" $((7 * V_MIB))
    assert_ok s3c --debug cp "s3://$b/five" five
    assert_contains "$T_ERR" "xfer: s3://$b/five: verified: md5 of 3 part MD5s (parts of 5242880 bytes"
    assert_eq "$(t_sha256 five)" "$(t_sha256 "$f")" "bytes of five"
    assert_ok s3c --debug cp "s3://$b/seven" seven
    if t_store_is ceph; then
        assert_contains "$T_ERR" "the store ignores ?partNumber="
        assert_contains "$T_ERR" "xfer: s3://$b/seven: not verified: the store does not say its part size"
        assert_contains "$T_ERR" "two downloads gave identical bytes"
    else
        assert_contains "$T_ERR" "xfer: s3://$b/seven: verified: md5 of 2 part MD5s (parts of 7340032 bytes)"
    fi
    assert_eq "$(t_sha256 seven)" "$(t_sha256 "$f")" "bytes of seven"
    # Below the threshold, a multipart object is still fetched part by part and checked.
    head -c $((7 * V_MIB)) "$f" > small7
    _v_mpu "$b" small7 small7 $((5 * V_MIB))
    assert_ok s3c --debug cp "s3://$b/small7" small7.out
    assert_contains "$T_ERR" "xfer: s3://$b/small7: verified: md5 of 2 part MD5s (parts of 5242880 bytes"
    assert_eq "$(t_sha256 small7.out)" "$(t_sha256 small7)" "bytes of small7"
}

# s3emu answering ?partNumber= with the whole object (ignore_part_number, as
# Ceph 16 does): s3c guesses the part size from the ETag's part count. 8 MiB
# (s3c's, the AWS CLI's) is a right guess and verifies; 7 MiB is a wrong one:
# two downloads that agree are accepted as unverifiable. A corrupted range of
# the rightly guessed layout is caught and fetched again.
test_verify_store_ignoring_part_number() {
    local b f before
    t_store_is s3emu || t_skip "ignore_part_number is s3emu's"
    t_new_bucket b
    f=$(t_data 20MB 20000000)
    _v_mpu "$b" eight "$f" $((8 * V_MIB))
    _v_mpu "$b" seven "$f" $((7 * V_MIB))
    _v_emu_config '{"ignore_part_number": 1}'
    assert_ok s3c --debug cp "s3://$b/eight" eight
    assert_contains "$T_ERR" "the store ignores ?partNumber="
    assert_contains "$T_ERR" "xfer: s3://$b/eight: verified: md5 of 3 part MD5s (parts of 8388608 bytes, size guessed)"
    assert_eq "$(t_sha256 eight)" "$(t_sha256 "$f")" "bytes of eight"
    assert_ok s3c --debug cp "s3://$b/seven" seven
    assert_contains "$T_ERR" "xfer: s3://$b/seven: not verified: the store does not say its part size"
    assert_contains "$T_ERR" "two downloads gave identical bytes"
    assert_eq "$(t_sha256 seven)" "$(t_sha256 "$f")" "bytes of seven"
    before=$(_v_emu_fired corrupt)
    _v_emu_faults "corrupt@op=GetObject,bucket=$b,key=eight,times=1"
    assert_ok s3c --debug cp "s3://$b/eight" again
    _v_emu_faults ""
    _v_emu_config '{"ignore_part_number": 0}'
    assert_eq "$(_v_emu_fired corrupt)" "$((before + 1))" "corrupt faults fired"
    assert_contains "$T_ERR" "xfer: s3://$b/eight: downloaded bytes give ETag"
    assert_contains "$T_ERR" "(its part size was guessed)"
    assert_contains "$T_ERR" "xfer: s3://$b/eight: verified: md5 of 3 part MD5s (parts of 8388608 bytes, size guessed)"
    assert_eq "$(t_sha256 again)" "$(t_sha256 "$f")" "bytes of eight after a corrupted range"
}

# An object written in one PUT (a single-part MD5 ETag) above the threshold:
# the ranges' bytes are hashed in key order, live at the frontier and re-read
# from the temp file otherwise, and the whole MD5 must match the ETag.
test_verify_ranged_download_of_single_part_object() {
    local b f
    t_new_bucket b
    f=$(t_data 20MB 20000000)
    t_put "$b" plain "$f"
    assert_ok s3c --debug cp "s3://$b/plain" plain
    assert_match "$T_ERR" "xfer: s3://$b/plain: verified: MD5 of the whole \(3 ranges, 20000000 bytes re-read in order from the file by a hash worker\) matches the ETag"
    assert_eq "$(t_sha256 plain)" "$(t_sha256 "$f")" "bytes"
    if t_store_is s3emu; then
        _v_emu_faults "corrupt@op=GetObject,bucket=$b,key=plain,times=1"
        assert_ok s3c --debug cp "s3://$b/plain" again
        _v_emu_faults ""
        assert_contains "$T_ERR" "xfer: s3://$b/plain: downloaded bytes have MD5"
        assert_contains "$T_ERR" "downloading it again"
        assert_eq "$(t_sha256 again)" "$(t_sha256 "$f")" "bytes after a corrupted range"
    fi
}

# A stored full-object CRC (CRC32C, CRC32, CRC64NVME) is checked instead, over
# ranges of s3c's own size, combined out of order. Ceph 16 stores no checksum.
test_verify_multipart_download_full_object_crc() {
    local b f algo
    t_store_is ceph && t_skip "Ceph 16 stores no flexible checksums"
    t_new_bucket b
    f=$(t_data 20MB 20000000)
    assert_ok s3c cp "$f" "s3://$b/src"
    for algo in CRC32C CRC32 CRC64NVME; do
        # A copy with x-amz-checksum-algorithm stores that full-object checksum.
        t_cmd s3curl PUT "/$b/$algo" -H "x-amz-copy-source: /$b/src" -H "x-amz-checksum-algorithm: $algo" \
            -o /dev/null || t_fail "copy with $algo"
        assert_ok s3c --debug cp "s3://$b/$algo" "$algo.out"
        assert_contains "$T_ERR" "xfer: s3://$b/$algo: verified: $algo "
        assert_contains "$T_ERR" "of 3 ranges matches the stored checksum"
        assert_eq "$(t_sha256 "$algo.out")" "$(t_sha256 "$f")" "bytes of $algo"
    done
}

# s3emu flips one byte of one ranged GET: the whole-object check catches it,
# the object is downloaded again, and the file comes out identical. When every
# GET is corrupted, the download fails after its attempts and leaves no file.
test_verify_corrupt_range_is_downloaded_again() {
    local b f before
    t_store_is s3emu || t_skip "faults need s3emu"
    t_new_bucket b
    f=$(t_data 20MB 20000000)
    AWS_REQUEST_CHECKSUM_CALCULATION=when_required assert_ok s3c cp "$f" "s3://$b/obj"
    t_cmd s3curl PUT "/$b/crc" -H "x-amz-copy-source: /$b/obj" -H "x-amz-checksum-algorithm: CRC64NVME" \
        -o /dev/null || t_fail "copy with CRC64NVME"
    mkdir out
    before=$(_v_emu_fired corrupt)
    _v_emu_faults "corrupt@op=GetObject,bucket=$b,key=obj,times=1"
    assert_ok s3c --debug cp "s3://$b/obj" out/obj
    assert_eq "$(_v_emu_fired corrupt)" "$((before + 1))" "corrupt faults fired"
    assert_contains "$T_ERR" "xfer: s3://$b/obj: downloaded bytes give ETag"
    assert_contains "$T_ERR" "downloading it again"
    assert_eq "$(t_sha256 out/obj)" "$(t_sha256 "$f")" "bytes after a corrupted range"
    _v_emu_faults "corrupt@op=GetObject,bucket=$b,key=crc,times=1"
    assert_ok s3c --debug cp "s3://$b/crc" out/crc
    assert_contains "$T_ERR" "xfer: s3://$b/crc: downloaded bytes have CRC64NVME"
    assert_eq "$(t_sha256 out/crc)" "$(t_sha256 "$f")" "bytes after a corrupted range (CRC)"
    # Every ranged GET corrupted: a reported failure, exit 1, nothing left behind.
    _v_emu_faults "corrupt@op=GetObject,bucket=$b,key=obj"
    assert_exit 1 s3c cp "s3://$b/obj" out/bad
    _v_emu_faults ""
    assert_match "$T_ERR" "^download failed: s3://$b/obj to out/bad downloaded bytes give ETag [0-9a-f]{32}-3, the store's is"
    assert_eq "$(grep -c 'failed: ' <<<"$T_ERR")" 1 "error lines"
    _v_only_files out obj crc
    # A one-part multipart object ("hex-1") in one GET: the MD5 of its MD5 is checked.
    head -c 1000 "$f" > one
    _v_mpu "$b" one one 1000
    _v_emu_faults "corrupt@op=GetObject,bucket=$b,key=one,times=1"
    before=$(_v_emu_fired corrupt)
    assert_ok s3c --debug cp "s3://$b/one" one.out
    _v_emu_faults ""
    assert_eq "$(_v_emu_fired corrupt)" "$((before + 1))" "corrupt faults fired"
    assert_contains "$T_ERR" "downloaded bytes have MD5"
    assert_eq "$(t_sha256 one.out)" "$(t_sha256 one)" "bytes of the one-part object"
}

# A whole-object GET (below the multipart threshold) is checked by the stored
# checksum its reply carries (x-amz-checksum-mode), else by its ETag, the MD5
# of the file re-read by a hash worker (or of the body in memory when small).
# A flipped byte is caught either way and the object fetched again.
test_verify_corrupt_whole_get_crc_or_md5() {
    local b f s k
    t_store_is s3emu || t_skip "faults need s3emu"
    t_new_bucket b
    f=$(t_data 3MB 3000000)
    s=$(t_data 40KB 40000)
    assert_ok s3c cp "$f" "s3://$b/crc"
    assert_ok s3c cp "$s" "s3://$b/crc-small"
    AWS_REQUEST_CHECKSUM_CALCULATION=when_required assert_ok s3c cp "$f" "s3://$b/md5"
    AWS_REQUEST_CHECKSUM_CALCULATION=when_required assert_ok s3c cp "$s" "s3://$b/md5-small"
    assert_ok s3c --debug cp "s3://$b/crc" clean.crc
    assert_match "$T_ERR" "xfer: s3://$b/crc: verified: CRC64NVME [^ ]+ of the whole matches the stored checksum \(no MD5\)"
    for k in crc crc-small md5 md5-small; do
        _v_emu_faults "corrupt@op=GetObject,bucket=$b,key=$k,times=1"
        assert_ok s3c --debug cp "s3://$b/$k" "$k.out"
        _v_emu_faults ""
        case $k in
        crc*) assert_contains "$T_ERR" "xfer: s3://$b/$k: GetObject: downloaded bytes have CRC64NVME" ;;
        md5*) assert_contains "$T_ERR" "xfer: s3://$b/$k: GetObject: downloaded bytes have MD5" ;;
        esac
        case $k in
        *small) assert_eq "$(t_sha256 "$k.out")" "$(t_sha256 "$s")" "bytes of $k after a corrupted GET" ;;
        *) assert_eq "$(t_sha256 "$k.out")" "$(t_sha256 "$f")" "bytes of $k after a corrupted GET" ;;
        esac
    done
    # To stdout: an object of one range is held until checked, so a flipped
    # byte is fetched again too, and only the right bytes are written
    # (test_trust_streams.sh has the rest).
    _v_emu_faults "corrupt@op=GetObject,bucket=$b,key=crc-small,times=1"
    assert_ok s3c --debug cp "s3://$b/crc-small" -
    _v_emu_faults ""
    assert_contains "$T_ERR" "xfer: s3://$b/crc-small: GetObject: downloaded bytes have CRC64NVME"
    assert_eq "$(t_sha256 "$s")" "$(t_sha256 "$T_DIR/.out")" "bytes of crc-small on stdout after a corrupted GET"
}
