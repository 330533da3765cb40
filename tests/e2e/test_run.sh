# tests/e2e/test_run.sh — issue 5: `s3c run FILE|-`, many commands in one process.
# shellcheck shell=bash
#
# Lines that move objects run as jobs on one engine; other verbs are barriers
# (everything before them finishes first). Quoting follows the shell's rules
# without expansion, so hostile and unicode keys survive; a bad line fails
# alone, names its line number, and makes the exit code 1.
# Helpers (_keys, _assert_object_text, ...) come from test_cp.sh.

# _unxml: XML entities back to bytes (t_list_keys prints keys as the store escaped them).
_unxml() { sed -e 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g' -e "s/&apos;/'/g" -e 's/&amp;/\&/g'; }

test_run_hostile_keys_parallel_lines_and_barriers() {
    local b i want
    t_bucket b                                  # created by the file's first line
    mkdir -p src
    # Names a shell would mangle: spaces, quotes, $, *, ?, #, +, %, backslash, unicode.
    printf 1 > 'src/sp ace.txt'
    printf 2 > "src/it's.txt"
    printf 3 > 'src/$HOME*?.txt'
    printf 4 > 'src/#hash+plus%25.txt'
    printf 5 > 'src/été 日本.txt'
    printf 6 > 'src/back\slash"q.txt'
    {
        echo "# set up"
        echo "mb s3://$b"
        echo "cp 'src/sp ace.txt' 's3://$b/k/sp ace.txt'"
        echo "cp \"src/it's.txt\" \"s3://$b/k/it's.txt\""
        echo "cp --raw 'src/\$HOME*?.txt' 's3://$b/k/\$HOME*?.txt'"
        echo "cp src/\\#hash+plus%25.txt s3://$b/k/"
        echo "  cp 'src/été 日本.txt'   's3://$b/k/été 日本.txt'  # trailing comment"
        echo "cp 'src/back\\slash\"q.txt' \"s3://$b/k/back\\\\slash\\\"q.txt\""
        echo ""
        for i in $(seq 1 40); do echo "cp src/sp\\ ace.txt s3://$b/many/$i"; done
        echo "ls s3://$b/k/"
    } > cmds
    assert_ok s3c run cmds
    assert_eq "make_bucket: $b" "$(head -1 <<< "$T_OUT")" "mb runs first"
    assert_lines 53 "$T_OUT" "mb, 46 uploads, 6 ls lines"
    # The barrier: ls ran after every upload before it had finished.
    assert_eq 6 "$(tail -6 <<< "$T_OUT" | grep -vc '^upload: ')" "ls lines come last"
    want=$(printf '%s\n' "k/#hash+plus%25.txt" "k/\$HOME*?.txt" "k/back\\slash\"q.txt" "k/it's.txt" \
        "k/sp ace.txt" "k/été 日本.txt" | LC_ALL=C sort)
    assert_eq "$want" "$(_keys "$b" | grep '^k/' | _unxml | LC_ALL=C sort)" "keys survive quoting"
    assert_eq 40 "$(_keys "$b" | grep -c '^many/')" "40 parallel lines"
    # Read back by the AWS CLI, which encodes keys its own way.
    assert_ok awsx s3 cp "s3://$b/k/été 日本.txt" -
    assert_eq 5 "$T_OUT" "unicode key's bytes"
    assert_ok awsx s3 cp "s3://$b/k/back\\slash\"q.txt" -
    assert_eq 6 "$T_OUT" "backslash-and-quote key's bytes"
}

test_run_failures_name_their_lines_and_the_rest_runs() {
    local b
    t_new_bucket b
    printf a > a
    printf 'cp a s3://%s/ok1\ncp missing-file s3://%s/x\ncp --bogus a s3://%s/y\ncp '"'"'open quote\nfrobnicate x\ncp a s3://%s/ok2\n' \
        "$b" "$b" "$b" "$b" > cmds
    assert_exit 1 s3c run cmds
    assert_contains "$T_ERR" "cmds:3" "the bad flag names its line"
    assert_contains "$T_ERR" "cmds:4" "the open quote names its line"
    assert_contains "$T_ERR" "cmds:5" "the unknown verb names its line"
    assert_contains "$T_ERR" "missing-file" "the missing file is named"
    assert_eq "$(printf '%s\n' ok1 ok2)" "$(_keys "$b")" "the good lines ran"
}

test_run_from_stdin_mv_dryrun_and_stat() {
    local b
    t_new_bucket b
    printf 1 > one; printf 2 > two
    t_put "$b" src/one one
    t_put "$b" src/two two
    # From standard input: a dry run changes nothing; mv lines move; --stat sums every line.
    printf '%s\n' "cp --dryrun one s3://$b/dry" "mv s3://$b/src/one s3://$b/dst/one" \
        "mv s3://$b/src/two s3://$b/dst/two" "cp two s3://$b/up/two" > cmds
    t_cmd sh -c 'exec "$0" run - --stat < cmds' "$S3C"
    assert_eq 0 "$T_RC" "exit code"
    assert_contains "$T_OUT" "(dryrun) upload: ./one to s3://$b/dry"
    assert_contains "$T_OUT" "move: s3://$b/src/one to s3://$b/dst/one"
    assert_match "$T_OUT" 'move +2 +0 +2 +2' "stat: two moves"
    assert_match "$T_OUT" 'upload +1 +0 +1 +1' "stat: one upload"
    assert_eq "$(printf '%s\n' dst/one dst/two up/two)" "$(_keys "$b")" "keys"
}

# Lines run in parallel, but what they print comes in line order when stdout
# is no terminal (issue 23, item 7): a slow first line holds back the lines
# after it, their results, errors and --json records alike, and an object
# written to stdout comes after what the lines before it printed.
test_run_output_in_line_order() {
    local b want
    [ "$S3C_TEST_STORE" = s3emu ] || t_skip "the slow line is s3emu's delay fault"
    t_new_bucket b
    printf 1 > one
    t_put_text "$b" seed seedbytes
    _ex_faults "delay@bucket=$b,key=slow,ms=1500"
    printf '%s\n' "cp one s3://$b/slow" "cp one s3://$b/fast1" "cp missing s3://$b/x" \
        "cp --json one s3://$b/fast2" "rm s3://$b/fast1" > cmds
    t_cmd sh -c 'exec "$0" run cmds > out 2>&1' "$S3C"
    _ex_faults ""
    assert_eq 1 "$T_RC" "one line failed"
    want=$(printf '%s\n' "upload: ./one to s3://$b/slow" "upload: ./one to s3://$b/fast1" \
        "s3c: cmds:3: cp: the user-provided path missing does not exist")
    assert_eq "$want" "$(head -3 out)" "the slow line's result first, then the lines after it in order"
    assert_eq "upload" "$(sed -n 4p out | jq -r .operation)" "line 4's record fourth"
    assert_eq "delete: s3://$b/fast1" "$(sed -n 5p out)" "line 5 last"
    # From a pipe (the lines ahead unknown): the object's bytes after the slow line's result.
    _ex_faults "delay@bucket=$b,key=slow,ms=1500"
    printf '%s\n' "cp one s3://$b/slow" "cp s3://$b/seed -" > cmds
    t_cmd sh -c 'cat cmds | "$0" run - > out' "$S3C"
    _ex_faults ""
    assert_eq 0 "$T_RC" "exit code"
    assert_eq "$(printf '%s\n%s' "upload: ./one to s3://$b/slow" seedbytes)" "$(cat out)" "the result, then the bytes"
}

# The held output is bounded (S3C_RUN_HELD_MAX, 16 MiB by default): past it
# the lines behind a slow one get no more work until it ends, and every line
# still runs, in order (an engine that ran dry on such a wait once ended the
# run with the rest of the file unread, exit 0).
test_run_output_bound_holds_lines_back_and_all_run() {
    local b i
    [ "$S3C_TEST_STORE" = s3emu ] || t_skip "the slow line is s3emu's delay fault"
    t_new_bucket b
    printf 1 > one
    mkdir tree
    for i in $(seq 1 50); do printf x > "tree/f$i"; done
    {
        echo "cp one s3://$b/slow"
        for i in $(seq 1 150); do echo "cp one s3://$b/k/$i"; done
        echo "cp -r tree s3://$b/tree/"
        echo "cp one s3://$b/last"
    } > cmds
    _ex_faults "delay@bucket=$b,key=slow,ms=1500"
    t_cmd env S3C_RUN_HELD_MAX=1024 "$S3C" run cmds
    _ex_faults ""
    assert_eq 0 "$T_RC" "exit code"
    assert_lines 202 "$T_OUT" "every line ran"
    assert_eq "$(seq 1 150)" "$(sed -n 2,151p <<<"$T_OUT" | sed "s|.*s3://$b/k/||")" "the lines in order"
    assert_eq "upload: ./one to s3://$b/last" "$(tail -n 1 <<<"$T_OUT")" "the last line last"
    assert_eq 202 "$(t_list_keys "$b" | wc -l)" "every object"
}

# With --json a line that cannot run is a record too (issue 23, item 6): its
# line number, the line as s5cmd's "command", and the error; no text line.
test_run_json_records_for_lines_that_fail_to_parse() {
    local b
    t_new_bucket b
    printf 1 > one
    printf '%s\n' "cp one s3://$b/x" "cp --bogus one s3://$b/y" "cp 'open" "frobnicate x" > cmds
    assert_exit 1 s3c --json run cmds
    assert_eq "" "$T_ERR" "no text lines"
    assert_eq "2 3 4" "$(jq -r 'select(.operation == "run" and .success == false) | .line' <<<"$T_OUT" | xargs)" "a record per failed line"
    assert_eq "cp --bogus one s3://$b/y" "$(jq -r 'select(.line == 2) | .command' <<<"$T_OUT")" "the line as the command"
    assert_contains "$(jq -r 'select(.line == 4) | .error' <<<"$T_OUT")" "frobnicate"
    assert_eq "1 3" "$(jq -r 'select(.lines_ok) | "\(.lines_ok) \(.lines_failed)"' <<<"$T_OUT")" "the summary"
}
