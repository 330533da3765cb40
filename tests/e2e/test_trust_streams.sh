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
    assert_contains "$T_ERR" '{"operation":"download","success":true,"source":"s3://'"$b"'/obj","destination":"-","size":3000000}'

    _ts_out_sha s3c --json cat "s3://$b/obj"
    assert_eq "$want" "$T_OUT" "bytes and sha256 of s3c --json cat's stdout"
    assert_contains "$T_ERR" '"operation":"download","success":true'

    _ts_out_sha s3c cp "s3://$b/obj" - --json
    assert_eq 0 "$T_RC" "exit status of cp - --json"
    assert_eq "$want" "$T_OUT" "bytes and sha256 of cp - --json's stdout"
    assert_contains "$T_ERR" '"destination":"-","size":3000000}'

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
    assert_contains "$T_ERR" '"destination":"s3://'"$b"'/up1","size":40000}'
    assert_contains "$T_ERR" '"destination":"s3://'"$b"'/up2","size":40000}'
    assert_contains "$T_ERR" '"source":"s3://'"$b"'/obj","destination":"-","size":3000000}'
    assert_contains "$T_ERR" '"key":"s3://'"$b"'/obj"'
    assert_contains "$T_ERR" '{"operation":"run","lines_ok":6,"lines_failed":0}'
    assert_contains "$T_ERR" '"stat":[{"operation":"upload"'

    _ts_out_sha s3c run cmds --stat
    assert_eq 0 "$T_RC" "exit status of run --stat"
    assert_eq "6000000 $(t_sha256 both)" "$T_OUT" "bytes and sha256 of run --stat's stdout"
    assert_contains "$T_ERR" "upload: $s to s3://$b/up1"
    assert_match "$T_ERR" "^upload +2 +0 +2 +80000"
    assert_match "$T_ERR" "^ +Total Size: "
    assert_match "$T_ERR" "^[0-9]+ bytes in [0-9]+ objects: s3://$b/"
}
