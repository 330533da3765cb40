# shellcheck shell=bash
# tests/e2e/test_trust_streams.sh — streams belong to the data (issue 22, items 6 and 7).
#
# When stdout carries an object (cat, cp s3://b/k -, such a line in a run
# file), nothing else is written there: --json records, --stat tables and a
# run's summary go to stderr, and stdout is the object's bytes exactly. And
# bytes reach stdout only after their check: an object of one range (1 MiB or
# less) is held until its stored CRC or MD5 ETag matches; a corrupted GET is
# fetched again, and one corrupted on every attempt fails with nothing of it
# on stdout. The corruption tests need s3emu's fault injection.

# _ts_out_sha CMD...: CMD with stdout to 'stream.out' (stderr in T_ERR): T_OUT
# is "BYTES SHA256" of what reached stdout.
_ts_out_sha() {
    t_cmd "$@"
    T_OUT="$(stat -c %s "$T_DIR/.out") $(t_sha256 "$T_DIR/.out")"
}

# _ts_faults SPEC: s3emu's fault rules (empty clears them).
_ts_faults() {
    curl -sf -X POST --data-binary "faults=$1" "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null ||
        t_fail "could not set s3emu faults '$1'"
}

# _ts_fired: how many corrupt faults s3emu has played so far.
_ts_fired() { curl -s "$S3C_TEST_ENDPOINT/_s3emu/stats" | jq -r '.faults.corrupt'; }

# A 3,000,000-byte object to stdout with --json or --stat: stdout is its
# 3,000,000 bytes (not 3,000,097), the record or the table is on stderr.
test_trust_streams_json_and_stat_stay_off_stdout() {
    local b f want
    t_new_bucket b
    f=$(t_data 3MB 3000000)
    want="3000000 $(t_sha256 "$f")"
    assert_ok s3c cp "$f" "s3://$b/obj"

    _ts_out_sha s3c cat "s3://$b/obj" --json
    assert_eq 0 "$T_RC" "exit status of cat --json"
    assert_eq "$want" "$T_OUT" "bytes and sha256 of cat --json's stdout"
    assert_contains "$T_ERR" '{"operation":"download","success":true,"source":"s3://'"$b"'/obj","destination":"-","size":3000000,"object":{"size":3000000}}'

    _ts_out_sha s3c --json cat "s3://$b/obj"
    assert_eq "$want" "$T_OUT" "bytes and sha256 of s3c --json cat's stdout"
    assert_contains "$T_ERR" '"operation":"download","success":true'

    _ts_out_sha s3c cp "s3://$b/obj" - --json
    assert_eq 0 "$T_RC" "exit status of cp - --json"
    assert_eq "$want" "$T_OUT" "bytes and sha256 of cp - --json's stdout"
    assert_contains "$T_ERR" '"destination":"-","size":3000000,"object":{"size":3000000}}'

    _ts_out_sha s3c cp "s3://$b/obj" - --stat
    assert_eq 0 "$T_RC" "exit status of cp - --stat"
    assert_eq "$want" "$T_OUT" "bytes and sha256 of cp - --stat's stdout"
    assert_match "$T_ERR" "^Operation +Total +Error +Success +Bytes"
    assert_match "$T_ERR" "^download +1 +0 +1 +3000000"

    _ts_out_sha s3c --json cp "s3://$b/obj" - --stat
    assert_eq "$want" "$T_OUT" "bytes and sha256 of --json cp - --stat's stdout"
    assert_contains "$T_ERR" '"stat":[{"operation":"download","total":1,"success":1,"error":0,"bytes":3000000}]'

    # Nothing to stdout, nothing changes: the record stays there.
    assert_ok s3c cp "s3://$b/obj" copy --json
    assert_contains "$T_OUT" '"operation":"download","success":true'
}

# A run file that mixes cat and cp-to-stdout lines with uploads and a listing:
# stdout is the two objects' bytes, in the file's order, and nothing else;
# every record (the lines before the first stream too), the --stat table, the
# listing and the run's summary are on stderr.
test_trust_streams_run_file_keeps_stdout_for_objects() {
    local b f s
    t_new_bucket b
    f=$(t_data 3MB 3000000)
    s=$(t_data 40KB 40000)
    assert_ok s3c cp "$f" "s3://$b/obj"
    cat "$f" "$f" > both
    printf '%s\n' "# a comment" "cp $s s3://$b/up1" "" "cat s3://$b/obj" "ls --summarize s3://$b/" \
        "cp s3://$b/obj -" "cp $s s3://$b/up2" "du s3://$b/" > cmds

    _ts_out_sha s3c --json run cmds --stat
    assert_eq 0 "$T_RC" "exit status of run --json --stat"
    assert_eq "6000000 $(t_sha256 both)" "$T_OUT" "bytes and sha256 of run's stdout"
    assert_contains "$T_ERR" '"destination":"s3://'"$b"'/up1","size":40000,"object":{"size":40000}}'
    assert_contains "$T_ERR" '"destination":"s3://'"$b"'/up2","size":40000,"object":{"size":40000}}'
    assert_contains "$T_ERR" '"source":"s3://'"$b"'/obj","destination":"-","size":3000000,"object":{"size":3000000}}'
    assert_contains "$T_ERR" '"key":"s3://'"$b"'/obj"'
    assert_contains "$T_ERR" '{"operation":"run","lines_ok":6,"lines_failed":0}'
    assert_contains "$T_ERR" '"stat":[{"operation":"upload"'

    _ts_out_sha s3c run cmds --stat
    assert_eq 0 "$T_RC" "exit status of run --stat"
    assert_eq "6000000 $(t_sha256 both)" "$T_OUT" "bytes and sha256 of run --stat's stdout"
    assert_contains "$T_ERR" "upload: $(realpath -s --relative-to="$(pwd -P)" "$s") to s3://$b/up1" # (as the AWS CLI names it)
    assert_match "$T_ERR" "^upload +2 +0 +2 +80000"
    assert_match "$T_ERR" "^ +Total Size: "
    assert_match "$T_ERR" "^[0-9]+ bytes in [0-9]+ objects: s3://$b/"
}

# _ts_small_cases BUCKET: objects of one range, each with the check it is
# proven by: "crc" (a stored CRC64NVME) and "md5" (only its ETag), 500,000
# bytes, and "mib", 1 MiB exactly with a stored CRC. Leaves SRC_<k> the file.
_ts_small_cases() {
    local b=$1
    SRC_crc=$(t_data 500KB 500000)
    SRC_md5=$SRC_crc
    SRC_mib=$(t_data 1MiB 1048576)
    assert_ok s3c cp "$SRC_crc" "s3://$b/crc"
    AWS_REQUEST_CHECKSUM_CALCULATION=when_required assert_ok s3c cp "$SRC_md5" "s3://$b/md5"
    assert_ok s3c cp "$SRC_mib" "s3://$b/mib"
}

# One GET of an object of 1 MiB or less corrupted: caught before any byte is
# written, fetched again, stdout is the object exactly and the exit 0 (cat
# and cp -, a stored CRC and an MD5 ETag alike).
test_trust_streams_small_corrupt_get_retried_before_stdout() {
    t_store_is s3emu || t_skip "needs s3emu's fault injection"
    local b k src before verb
    t_new_bucket b
    _ts_small_cases "$b"
    for k in crc md5 mib; do
        src=SRC_$k
        for verb in cat cp; do
            before=$(_ts_fired)
            _ts_faults "corrupt@op=GetObject,bucket=$b,key=$k,times=1"
            if [ $verb = cat ]; then
                _ts_out_sha s3c --debug cat "s3://$b/$k"
            else
                _ts_out_sha s3c --debug cp "s3://$b/$k" -
            fi
            _ts_faults ""
            assert_eq $((before + 1)) "$(_ts_fired)" "corrupt faults fired ($verb $k)"
            assert_eq 0 "$T_RC" "exit status of $verb $k with one corrupted GET"
            assert_eq "$(stat -c %s "${!src}") $(t_sha256 "${!src}")" "$T_OUT" "stdout of $verb $k"
            case $k in
            md5) assert_contains "$T_ERR" "xfer: s3://$b/$k: GetObject: downloaded bytes have MD5" ;;
            *) assert_contains "$T_ERR" "xfer: s3://$b/$k: GetObject: downloaded bytes have CRC64NVME" ;;
            esac
        done
    done
}

# Every GET corrupted: exit 1, one error line naming the mismatch, and not a
# byte of the object on stdout (cat and cp -, a stored CRC and an MD5 ETag).
# (Two attempts each: the retries' backoff would cost seconds.)
test_trust_streams_small_corrupt_every_get_writes_nothing() {
    t_store_is s3emu || t_skip "needs s3emu's fault injection"
    local b k verb
    t_new_bucket b
    _ts_small_cases "$b"
    export AWS_MAX_ATTEMPTS=2
    for k in crc md5 mib; do
        for verb in cat cp; do
            _ts_faults "corrupt@op=GetObject,bucket=$b,key=$k"
            if [ $verb = cat ]; then
                _ts_out_sha s3c cat "s3://$b/$k"
            else
                _ts_out_sha s3c cp "s3://$b/$k" -
            fi
            _ts_faults ""
            assert_eq 1 "$T_RC" "exit status of $verb $k with every GET corrupted"
            assert_eq "0 $(t_sha256 /dev/null)" "$T_OUT" "stdout of $verb $k with every GET corrupted"
            case $k in
            md5) assert_match "$T_ERR" "download failed: s3://$b/$k to - downloaded bytes have MD5 [0-9a-f]{32}, the store's ETag is" ;;
            *) assert_match "$T_ERR" "download failed: s3://$b/$k to - downloaded bytes have CRC64NVME .*, the store's checksum is" ;;
            esac
            assert_lines 1 "$T_ERR" "stderr of $verb $k"
        done
    done
}

# _ts_flip_start N: tests/e2e/flip_proxy.py in front of the store, flipping a
# bit in the first N GET answers' bodies (N < 0: every one); F_URL, F_LOG.
# Stopped when the test ends.
_ts_flip_start() {
    local i out=$T_DIR/flip-get-$1.out
    F_LOG=$T_DIR/flip-get-$1.log
    : > "$F_LOG"
    python3 "$E2E_ROOT/tests/e2e/flip_proxy.py" "$S3C_TEST_ENDPOINT" get "$1" "$F_LOG" > "$out" 2>&1 &
    F_PIDS="${F_PIDS:-} $!"
    t_at_exit "kill $F_PIDS 2>/dev/null"
    for ((i = 0; i < 100; i++)); do
        F_URL=$(sed -n 's/^ready //p' "$out")
        [ -n "$F_URL" ] && return 0
        sleep 0.1
    done
    t_fail "flip_proxy.py did not start: $(cat "$out")"
}

# The same on any store, through a relay that flips a bit of a GET's answer
# (no signature covers it): whatever proves the object (a stored CRC on
# s3emu, the MD5 ETag on Ceph 16), a flipped small GET is caught before its
# bytes reach stdout and fetched again; flipped every time, exit 1 and
# nothing on stdout.
test_trust_streams_small_flipped_get_on_any_store() {
    local b f want
    t_new_bucket b
    f=$(t_data 300KB 300000)
    want="300000 $(t_sha256 "$f")"
    assert_ok s3c cp "$f" "s3://$b/obj"
    _ts_flip_start 1
    _ts_out_sha s3c --endpoint-url "$F_URL" cat "s3://$b/obj"
    assert_eq 1 "$(grep -c "^flip GET /$b/obj" "$F_LOG")" "GETs flipped"
    assert_eq 0 "$T_RC" "exit status of cat with one flipped GET"
    assert_eq "$want" "$T_OUT" "stdout of cat with one flipped GET"
    _ts_flip_start -1
    AWS_MAX_ATTEMPTS=2 _ts_out_sha s3c --endpoint-url "$F_URL" cp "s3://$b/obj" -
    assert_eq 2 "$(grep -c "^flip GET /$b/obj" "$F_LOG")" "GETs flipped"
    assert_eq 1 "$T_RC" "exit status of cp - with every GET flipped"
    assert_eq "0 $(t_sha256 /dev/null)" "$T_OUT" "stdout of cp - with every GET flipped"
    assert_match "$T_ERR" "download failed: s3://$b/obj to - downloaded bytes have (MD5|CRC64NVME)"
}
