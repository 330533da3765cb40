# tests/e2e/test_exits.sh — issue 14, items 4 to 9: exit codes as the AWS
# CLI v2's (checked against /usr/bin/aws on the same failures), messages in
# its shape, --json records for every outcome, wildcards that match nothing,
# global options on run lines, and flags and keys that used to do nothing.
# shellcheck shell=bash
#
# docs/OUTPUT.md has the table these tests check, and the reasons where s3c
# answers differently on purpose.

# _ex_env ENV...: the arguments of env(1) that change the store's keys
# ("-u AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY=wrong"), up to "--".
# _ex_aws ENV... -- ARGS: the AWS CLI against the test store, its keys changed so.
_ex_aws() {
    local envs=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    (
        _t_unset_aws_env
        export AWS_CONFIG_FILE=$E2E_TMP/.awsx/config AWS_SHARED_CREDENTIALS_FILE=$E2E_TMP/.awsx/credentials
        export AWS_ACCESS_KEY_ID=$S3C_TEST_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3C_TEST_SECRET_KEY
        export AWS_DEFAULT_REGION=$S3C_TEST_REGION AWS_EC2_METADATA_DISABLED=true AWS_PAGER=
        exec env "${envs[@]}" "${EX_WRAP[@]}" timeout --foreground -k 5 "$E2E_CMD_TIMEOUT" \
            "$AWS_CLI" --endpoint-url "$S3C_TEST_ENDPOINT" "$@"
    )
}
EX_WRAP=()

# _ex_s3c ENV... -- ARGS: s3c with the same changes to its environment.
_ex_s3c() {
    local envs=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    env "${envs[@]}" "${EX_WRAP[@]}" timeout --foreground -k 5 "$E2E_CMD_TIMEOUT" "$S3C" "$@"
}

# _ex_compare NAME WANT ENV... -- ARGS...: run `aws s3 ARGS` and `s3c ARGS`
# with the environment changes ENV. WANT "same": s3c must exit as the CLI
# did; a number: s3c must exit with it (a documented difference; the CLI's
# code is noted). Each case adds a row to exits.tsv.
_ex_compare() {
    local name=$1 want=$2 aws_rc s3c_rc envs=()
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    t_cmd _ex_aws "${envs[@]}" -- s3 "$@"
    aws_rc=$T_RC
    cp "$T_DIR/.err" "$T_DIR/aws.$name.err"
    t_cmd _ex_s3c "${envs[@]}" -- "$@"
    s3c_rc=$T_RC
    printf '%s\t%s\t%s\n' "$name" "$aws_rc" "$s3c_rc" >> exits.tsv
    t_note "$name: aws $aws_rc, s3c $s3c_rc"
    # Against Ceph RGW the CLI 2.9 fails some error replies with a Python
    # error of its own ("argument of type 'NoneType' is not iterable", 255):
    # nothing to compare with then.
    if [ "$want" = same ] && [ "$aws_rc" = 255 ] && grep -q "NoneType\|Traceback" "$T_DIR/aws.$name.err"; then
        t_note "$name: the AWS CLI failed on its own error, not compared"
        return 0
    fi
    if [ "$want" = same ]; then
        [ "$s3c_rc" = "$aws_rc" ] || t_fail "$name: s3c exited $s3c_rc, the AWS CLI $aws_rc ($(head -c 300 "$T_DIR/aws.$name.err"))"
    else
        [ "$s3c_rc" = "$want" ] || t_fail "$name: s3c exited $s3c_rc, want $want (the AWS CLI: $aws_rc)"
    fi
}

test_exits_as_the_aws_cli_on_the_same_failures() {
    local b nb
    [ -x "$AWS_CLI" ] || t_skip "no AWS CLI at $AWS_CLI"
    t_new_bucket b
    t_bucket nb missing
    printf hello > f.txt
    t_put_text "$b" k hello
    : > exits.tsv
    # A missing bucket: a download (HEAD 404), an upload, listings, a delete.
    _ex_compare dl_missing_bucket same -- cp "s3://$nb/k" dl.txt
    assert_match "$T_ERR" "^download failed: s3://$nb/k to ./dl.txt An error occurred \(NoSuchBucket\) when calling the HeadObject operation: "
    _ex_compare up_missing_bucket same -- cp f.txt "s3://$nb/k"
    assert_match "$T_ERR" "^upload failed: ./f.txt to s3://$nb/k An error occurred \(NoSuchBucket\) when calling the PutObject operation: "
    _ex_compare ls_missing_bucket same -- ls "s3://$nb"
    _ex_compare rb_missing_bucket same -- rb "s3://$nb"
    _ex_compare cp_r_missing_bucket same -- cp --recursive "s3://$nb/p/" d
    assert_match "$T_ERR" "^fatal error: An error occurred \(NoSuchBucket\) when calling the ListObjectsV2 operation: "
    _ex_compare sync_missing_bucket same -- sync "s3://$nb/p" d
    # A missing key.
    _ex_compare dl_missing_key same -- cp "s3://$b/nokey" dl.txt
    assert_match "$T_ERR" "^download failed: s3://$b/nokey to ./dl.txt An error occurred \(NoSuchKey\) when calling the HeadObject operation: "
    _ex_compare ls_missing_key same -- ls "s3://$b/nokey"
    # Bad credentials (a wrong secret: SignatureDoesNotMatch), no credentials at all.
    _ex_compare bad_keys_ls same AWS_SECRET_ACCESS_KEY=wrong -- ls "s3://$b"
    _ex_compare bad_keys_download same AWS_SECRET_ACCESS_KEY=wrong -- cp "s3://$b/k" dl.txt
    _ex_compare bad_keys_upload same AWS_SECRET_ACCESS_KEY=wrong -- cp f.txt "s3://$b/k2"
    _ex_compare no_keys_ls same -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -- ls "s3://$b"
    # The CLI counts a transfer it could not sign as a failed transfer (1);
    # s3c stops before any transfer starts, with the configuration's code.
    _ex_compare no_keys_download 253 -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -- cp "s3://$b/k" dl.txt
    assert_contains "$T_ERR" "Unable to locate credentials"
    # A flag no verb has.
    _ex_compare bad_flag_cp same -- cp --bogus f.txt "s3://$b/k"
    _ex_compare bad_flag_ls same -- ls --bogus "s3://$b"
    # A local file that does not exist: the CLI's RuntimeError is a general
    # error (255); s3c calls a path that is not there a bad argument (252).
    _ex_compare missing_local_file 252 -- cp no-such-file "s3://$b/k"
    # Issue 23 item 4: a file where --recursive or sync wants a directory (2), a
    # directory without --recursive (1), a destination without a bucket (1), mv of an
    # object onto itself (252, refused before any request).
    _ex_compare file_recursive same -- cp --recursive f.txt "s3://$b/r/"
    assert_eq "warning: Skipping file $PWD/f.txt/. File does not exist." "$T_ERR" "stderr"
    _ex_compare sync_file same -- sync f.txt "s3://$b/r/"
    assert_eq "warning: Skipping file $PWD/f.txt/. File does not exist." "$T_ERR" "stderr"
    mkdir -p adir
    printf x > adir/x
    _ex_compare dir_not_recursive same -- cp adir "s3://$b/r/"
    assert_eq "upload failed: adir/ to s3://$b/r/ [Errno 21] Is a directory: '$PWD/adir/'" "$T_ERR" "stderr"
    _ex_compare no_bucket same -- cp f.txt s3://
    assert_match "$T_ERR" "^upload failed: ./f.txt to s3:// Parameter validation failed: Invalid bucket name"
    _ex_compare mv_onto_itself same -- mv "s3://$b/k" "s3://$b/k"
    assert_contains "$T_ERR" "Cannot mv a file onto itself: 's3://$b/k' - 's3://$b/k'"
    t_note "$(column -t exits.tsv 2>/dev/null || cat exits.tsv)"
}

# The tests run as root, whom mode 000 does not keep out: EX_WRAP runs both
# tools without the capabilities that read any file.
_ex_nodac() { setpriv --bounding-set=-dac_override,-dac_read_search -- "$@"; }

test_exits_unreadable_files_are_skipped_with_2() {
    local b
    [ -x "$AWS_CLI" ] || t_skip "no AWS CLI at $AWS_CLI"
    command -v setpriv >/dev/null || t_skip "no setpriv(1)"
    t_new_bucket b
    mkdir tree
    printf a > tree/a
    printf u > tree/u
    chmod 000 tree/u
    if [ "$(id -u)" = 0 ]; then
        _ex_nodac true 2>/dev/null || t_skip "setpriv cannot drop capabilities here"
        ! _ex_nodac cat tree/u >/dev/null 2>&1 || t_skip "mode 000 does not keep this root out"
        EX_WRAP=(setpriv "--bounding-set=-dac_override,-dac_read_search" --)
    fi
    : > exits.tsv
    # One file, a tree, a sync: the file is skipped with a warning, exit 2.
    _ex_compare unreadable_file same -- cp tree/u "s3://$b/u"
    assert_match "$T_ERR" "^warning: Skipping file tree/u\. "
    _ex_compare unreadable_in_tree same -- cp --recursive tree "s3://$b/r/"
    assert_eq 2 "$T_RC" "skipped: exit 2"
    assert_contains "$T_OUT" "upload: tree/a to s3://$b/r/a"
    _ex_compare unreadable_in_sync same -- sync tree "s3://$b/s/"
    assert_eq 2 "$T_RC" "sync skips it too: exit 2"
    EX_WRAP=()
    chmod 644 tree/u
}

test_exits_refused_keys_are_one_rule_for_cp_and_sync() {
    local b
    t_new_bucket b
    printf evil > evil
    printf good > good
    t_put "$b" 'h/../evil' evil --path-as-is
    t_put "$b" h/ok.txt good
    mkdir -p top/in top/sy
    # cp -r and sync both skip the key that would leave the directory: exit 2.
    assert_exit 2 s3c cp --recursive "s3://$b/h/" top/in
    assert_match "$T_ERR" "^warning: Skipping file s3://$b/h/\.\./evil\. "
    assert_contains "$T_OUT" "download: s3://$b/h/ok.txt to top/in/ok.txt"
    assert_exit 2 s3c sync "s3://$b/h/" top/sy
    assert_match "$T_ERR" "^warning: Skipping file s3://$b/h/\.\./evil\. "
    # With --json, the skip is a record too.
    assert_exit 2 s3c --json cp --recursive "s3://$b/h/" top/in
    assert_json_lines "$T_OUT"
    assert_eq true "$(jq -r 'select(.source | endswith("/../evil")) | .skipped' <<<"$T_OUT")" "the skip's record"
    # A failure beats a skip: exit 1 when one object failed too.
    assert_eq evil "$(cat evil)" "nothing written outside"
}

test_exits_interrupted_as_the_aws_cli() {
    local b pid rc_aws rc_s3c i
    [ -x "$AWS_CLI" ] || t_skip "no AWS CLI at $AWS_CLI"
    t_new_bucket b
    head -c $((16 * 1024 * 1024)) /dev/urandom > big
    printf '[default]\ncli_pager =\ns3 =\n  max_bandwidth = 1MB/s\n' > slow.cfg
    # Background jobs start with SIGINT ignored: env --default-signal gives it back.
    (
        _t_unset_aws_env
        export AWS_CONFIG_FILE=$PWD/slow.cfg AWS_SHARED_CREDENTIALS_FILE=$E2E_TMP/.awsx/credentials
        export AWS_ACCESS_KEY_ID=$S3C_TEST_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3C_TEST_SECRET_KEY
        export AWS_DEFAULT_REGION=$S3C_TEST_REGION AWS_EC2_METADATA_DISABLED=true AWS_PAGER=
        exec env --default-signal=INT "$AWS_CLI" --endpoint-url "$S3C_TEST_ENDPOINT" s3 cp big "s3://$b/a"
    ) > aws.out 2> aws.err &
    pid=$!
    sleep 3
    kill -INT "$pid"
    for ((i = 0; i < 150; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && { kill -9 "$pid"; t_fail "the AWS CLI still runs 15 s after SIGINT"; }
    wait "$pid"
    rc_aws=$?
    env --default-signal=INT "$S3C" cp --bwlimit 1MB/s big "s3://$b/s" > s3c.out 2> s3c.err &
    pid=$!
    sleep 3
    kill -INT "$pid"
    for ((i = 0; i < 150; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && { kill -9 "$pid"; t_fail "s3c still runs 15 s after SIGINT"; }
    wait "$pid"
    rc_s3c=$?
    t_note "SIGINT: aws $rc_aws, s3c $rc_s3c"
    # The CLI's documentation says 130; 2.9 counts the cancelled transfer as
    # failed ("cancelled: ctrl-c received") and exits 1. s3c keeps 130, as
    # documented, so that a script can tell an interrupt from a failure.
    [ "$rc_aws" = 130 ] || [ "$rc_aws" = 1 ] || t_fail "the AWS CLI exited $rc_aws after SIGINT"
    assert_eq 130 "$rc_s3c" "s3c's exit after SIGINT"
}

test_exits_usage_errors_are_252() {
    local b
    t_new_bucket b
    assert_exit 252 s3c --bogus ls
    assert_exit 252 s3c cp --bogus a "s3://$b/a"
    assert_exit 252 s3c ls --page-size 0 "s3://$b"
    assert_exit 252 s3c cp onlyone
    assert_exit 252 s3c nosuchverb
    assert_exit 252 s3c --region
    # Configuration: a bad value in the file is 253.
    printf '[default]\nmax_attempts = lots\n' > bad.cfg
    assert_exit 253 env AWS_CONFIG_FILE=bad.cfg "$S3C" ls "s3://$b"
    assert_contains "$T_ERR" "max_attempts"
}

test_exits_messages_name_the_operation_and_the_object() {
    local b nb
    t_new_bucket b
    t_bucket nb missing
    t_put_text "$b" k hello
    # HEAD-based paths: a missing bucket and a missing key are told apart.
    assert_exit 1 s3c cp "s3://$nb/k" dl
    assert_match "$T_ERR" "^download failed: s3://$nb/k to ./dl An error occurred \(NoSuchBucket\) when calling the HeadObject operation: The specified bucket does not exist$"
    assert_exit 1 s3c cp "s3://$b/nokey" dl
    assert_match "$T_ERR" "^download failed: s3://$b/nokey to ./dl An error occurred \(NoSuchKey\) when calling the HeadObject operation: The specified key does not exist\.$"
    assert_exit 254 s3c head "s3://$b/nokey"
    assert_contains "$T_ERR" "NoSuchKey"
    assert_exit 254 s3c head "s3://$nb/nokey"
    assert_contains "$T_ERR" "NoSuchBucket"
    # A copy's source, and rm of a key in a missing bucket.
    assert_exit 1 s3c cp "s3://$b/nokey" "s3://$b/k2"
    assert_match "$T_ERR" "^copy failed: s3://$b/nokey to s3://$b/k2 An error occurred \(NoSuchKey\) when calling the HeadObject operation: "
    assert_exit 1 s3c rm "s3://$nb/k"
    assert_match "$T_ERR" "^delete failed: s3://$nb/k An error occurred \(NoSuchBucket\) when calling the Delete(Object|Objects) operation: "
}

# _ex_faults SPEC: s3emu's fault rules ("" clears them); _ex_ops OP: how many OP requests it answered.
_ex_faults() {
    curl -sS --fail-with-body -X POST --data-binary "faults=$1" \
        "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null || t_fail "s3emu refused faults=$1"
}
_ex_ops() { curl -sS "$S3C_TEST_ENDPOINT/_s3emu/stats" | jq ".ops.$1 // 0"; }

test_exits_5xx_names_the_operation() {
    local b
    [ "$S3C_TEST_STORE" = s3emu ] || t_skip "fault injection is s3emu's"
    t_new_bucket b
    printf hello > f.txt
    head -c $((12 * 1024 * 1024)) /dev/urandom > big
    _ex_faults "500@bucket=$b,op=PutObject;500@bucket=$b,op=CompleteMultipartUpload"
    assert_exit 1 env AWS_MAX_ATTEMPTS=1 "$S3C" cp f.txt "s3://$b/f.txt"
    assert_match "$T_ERR" "^upload failed: ./f.txt to s3://$b/f.txt An error occurred \(InternalError\) when calling the PutObject operation: "
    assert_exit 1 env AWS_MAX_ATTEMPTS=1 "$S3C" cp big "s3://$b/big"
    assert_match "$T_ERR" "^upload failed: ./big to s3://$b/big An error occurred \(InternalError\) when calling the CompleteMultipartUpload operation: "
    assert_exit 1 env AWS_MAX_ATTEMPTS=1 "$S3C" --json cp f.txt "s3://$b/f.txt"
    assert_eq "InternalError PutObject 500" "$(jq -r '[.error_code, .error_operation, .http_status] | join(" ")' <<<"$T_OUT")" "record"
    _ex_faults ""
}

test_exits_json_records_for_every_outcome() {
    local b nb
    t_new_bucket b
    t_bucket nb missing
    t_put_text "$b" p/a hello
    # A failed single download is a record too, with the object's key.
    assert_exit 1 s3c --json cp "s3://$b/p/nokey" dl
    assert_json_lines "$T_OUT"
    assert_lines 1 "$T_OUT" "one record"
    assert_eq "download false s3://$b/p/nokey dl NoSuchKey HeadObject 404" \
        "$(jq -r '[.operation, .success, .source, .destination, .error_code, .error_operation, .http_status] | join(" ")' <<<"$T_OUT")" "the record"
    assert_eq "" "$T_ERR" "no text beside the record"
    # A failed upload, a listing that failed, a delete that failed.
    printf hi > f.txt
    assert_exit 1 s3c --json cp f.txt "s3://$nb/x/f.txt"
    assert_eq "upload false s3://$nb/x/f.txt NoSuchBucket" \
        "$(jq -r '[.operation, .success, .destination, .error_code] | join(" ")' <<<"$T_OUT")" "upload record"
    assert_exit 1 s3c --json cp --recursive "s3://$nb/p/" d
    assert_eq "cp true NoSuchBucket ListObjectsV2" \
        "$(jq -r '[.operation, .fatal, .error_code, .error_operation] | join(" ")' <<<"$T_OUT")" "fatal record"
    assert_exit 1 s3c --json sync "s3://$nb/p/" d
    assert_eq "sync true NoSuchBucket" "$(jq -r '[.operation, .fatal, .error_code] | join(" ")' <<<"$T_OUT")" "sync's"
    assert_exit 0 s3c --json cp --recursive "s3://$b/p/" d
    assert_eq "download true s3://$b/p/a d/a 5" \
        "$(jq -r '[.operation, .success, .source, .destination, .size] | join(" ")' <<<"$T_OUT")" "success record"
}

test_exits_wildcards_matching_nothing_fail() {
    local b
    t_new_bucket b
    t_put_text "$b" x/a.txt hello
    mkdir dl local
    assert_exit 1 s3c cp "s3://$b/x/*.nope" dl/
    assert_match "$T_ERR" "^fatal error: no object matches s3://$b/x/\*\.nope$"
    assert_exit 1 s3c mv "s3://$b/x/*.nope" dl/
    assert_exit 1 s3c rm "s3://$b/x/*.nope"
    assert_contains "$T_ERR" "no object matches s3://$b/x/*.nope"
    assert_exit 1 s3c du "s3://$b/x/*.nope"
    assert_contains "$T_ERR" "no object matches"
    assert_exit 1 s3c ls "s3://$b/x/*.nope"
    assert_exit 1 s3c cp 'local/*.txt' "s3://$b/up/"
    assert_contains "$T_ERR" "no file matches local/*.txt"
    assert_exit 1 s3c --json cp "s3://$b/x/*.nope" dl/
    assert_eq "true no object matches s3://$b/x/*.nope" "$(jq -r '[.fatal, .error] | join(" ")' <<<"$T_OUT")" "json"
    # What matches still works, and a filter that leaves nothing is no error.
    assert_ok s3c cp "s3://$b/x/*.txt" dl/
    assert_ok s3c du "s3://$b/x/*.txt"
    assert_ok s3c cp "s3://$b/x/*.txt" dl/ --exclude '*'
}

test_exits_run_lines_take_output_options() {
    local b
    t_new_bucket b
    printf hello > a
    {
        echo "cp --json a s3://$b/a"
        echo "cp a s3://$b/b"
        echo "cp --quiet a s3://$b/c"
        echo "cp a s3://$b/d --only-show-errors"
    } > cmds
    assert_ok s3c run cmds
    assert_lines 2 "$T_OUT" "one record, one line"
    assert_eq "upload a s3://$b/a" "$(grep '^{' <<<"$T_OUT" | jq -r '[.operation, .source, .destination] | join(" ")')" "the --json line"
    assert_contains "$T_OUT" "upload: ./a to s3://$b/b"
    assert_not_contains "$T_OUT" "s3://$b/c"
    assert_not_contains "$T_OUT" "s3://$b/d"
    # Options of the connection belong to the run: the line fails, named.
    printf 'cp a s3://%s/e --region eu-west-1\nls --json s3://%s/a\n' "$b" "$b" > cmds2
    assert_exit 1 s3c run cmds2
    assert_match "$T_ERR" "^s3c: cmds2:1: cp: .*are the run's"
    assert_eq "s3://$b/a" "$(jq -r .key <<<"$T_OUT")" "ls --json on a barrier line"
}

test_exits_no_progress_on_a_terminal() {
    local b
    command -v script >/dev/null || t_skip "no script(1) for a terminal"
    t_new_bucket b
    head -c $((3 * 1024 * 1024)) /dev/urandom > big
    # script(1) gives s3c a terminal: the live line shows, unless --no-progress.
    script -qec "$(printf '%q ' "$S3C" cp --bwlimit 1MB/s big "s3://$b/one")" /dev/null > with.txt 2>&1
    assert_contains "$(cat with.txt)" "Completed 0 object(s)"
    script -qec "$(printf '%q ' "$S3C" cp --no-progress --bwlimit 1MB/s big "s3://$b/two")" /dev/null > without.txt 2>&1
    assert_not_contains "$(cat without.txt)" "Completed"
    assert_contains "$(cat without.txt)" "upload: ./big to s3://$b/two"
    script -qec "$(printf '%q ' "$S3C" --no-progress cp --bwlimit 1MB/s big "s3://$b/three")" /dev/null > global.txt 2>&1
    assert_not_contains "$(cat global.txt)" "Completed"
}

# _ex_tries ENV...: PutObject requests one failing upload made with ENV (a 500 each time).
_ex_tries() {
    local before after
    before=$(_ex_ops PutObject)
    t_cmd env "$@" "$S3C" cp f.txt "s3://$EX_B/f.txt"
    [ "$T_RC" = 1 ] || t_fail "the upload should fail (exit 1), got $T_RC"
    after=$(_ex_ops PutObject)
    echo $((after - before))
}

test_exits_retry_modes_count_attempts() {
    local b
    [ "$S3C_TEST_STORE" = s3emu ] || t_skip "fault injection is s3emu's"
    t_new_bucket b
    EX_B=$b
    printf hello > f.txt
    _ex_faults "500@bucket=$b,op=PutObject"
    # botocore's counts: standard and adaptive 3 tries, legacy 5; max_attempts wins;
    # no mode: s3c's own 5.
    assert_eq 3 "$(_ex_tries AWS_RETRY_MODE=standard)" "standard's tries"
    assert_eq 5 "$(_ex_tries AWS_RETRY_MODE=legacy)" "legacy's tries"
    assert_eq 3 "$(_ex_tries AWS_RETRY_MODE=adaptive)" "adaptive's tries"
    assert_eq 2 "$(_ex_tries AWS_RETRY_MODE=legacy AWS_MAX_ATTEMPTS=2)" "max_attempts over the mode"
    assert_eq 5 "$(_ex_tries)" "s3c's own"
    # Legacy does not retry what it does not know (501), standard neither; s3c's own does.
    _ex_faults "500@bucket=$b,op=PutObject,times=1"
    assert_ok env AWS_RETRY_MODE=standard "$S3C" cp f.txt "s3://$b/once"
    _ex_faults ""
}

test_exits_adaptive_mode_paces_after_throttling() {
    local b i
    [ "$S3C_TEST_STORE" = s3emu ] || t_skip "fault injection is s3emu's"
    t_new_bucket b
    mkdir tree
    for i in $(seq 1 60); do printf %s "$i" > "tree/f$i"; done
    _ex_faults "503@bucket=$b,op=PutObject,times=3"
    # The limiter engages on the first SlowDown (a --debug line says so) and
    # every object still arrives.
    assert_ok env AWS_RETRY_MODE=adaptive AWS_MAX_ATTEMPTS=10 "$S3C" --debug cp -r tree "s3://$b/t/"
    assert_match "$T_ERR" "adaptive retry mode: the store throttles"
    assert_eq 60 "$(grep -c '^upload: ' <<<"$T_OUT")" "uploads"
    assert_ok env AWS_RETRY_MODE=standard AWS_MAX_ATTEMPTS=10 "$S3C" --debug cp -r tree "s3://$b/u/"
    assert_not_contains "$T_ERR" "adaptive retry mode"
    _ex_faults ""
}

test_exits_payload_signing_covers_file_bodies() {
    local b
    t_new_bucket b
    head -c $((20 * 1024 * 1024)) /dev/urandom > big
    printf small > small
    printf '[default]\ns3 =\n  payload_signing_enabled = true\n  multipart_threshold = 8MB\n  multipart_chunksize = 8MB\n' > sign.cfg
    # The store checks a signed SHA-256 against the bytes: a wrong one fails the upload.
    assert_ok env AWS_CONFIG_FILE=sign.cfg "$S3C" --debug cp big "s3://$b/big"
    assert_not_contains "$(grep -i 'x-amz-content-sha256' <<<"$T_ERR" | grep -iv 'e3b0c442')" "UNSIGNED-PAYLOAD"
    assert_match "$T_ERR" "x-amz-content-sha256: [0-9a-f]{64}"
    assert_ok env AWS_CONFIG_FILE=sign.cfg "$S3C" cp "s3://$b/big" back
    cmp big back || t_fail "the signed upload came back different"
    assert_ok env AWS_CONFIG_FILE=sign.cfg "$S3C" --debug cp small "s3://$b/small"
    assert_match "$T_ERR" "x-amz-content-sha256: [0-9a-f]{64}"
    # Without the key: UNSIGNED-PAYLOAD for file bodies, as before.
    assert_ok "$S3C" --debug cp big "s3://$b/big2"
    assert_contains "$T_ERR" "UNSIGNED-PAYLOAD"
}
