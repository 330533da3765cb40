# tests/e2e/test_hostile.sh — issue 6: a server that lies, floods or sends
# garbage; a configuration that is not what it should be.
# shellcheck shell=bash
#
# The server is tests/e2e/hostile_server.py (one mode per test case), not a
# store: these tests do not depend on Ceph or s3emu, so they run once, in the
# s3emu pass. Each s3c run must end on its own within the command time
# limit, with exit 1 and one error line, a peak RSS well under what the
# server sent (every reply has a cap), and no file left behind.

# _h_start MODE: start the hostile server; H_URL, H_LOG. Stopped when the test ends.
_h_start() {
    local i
    H_LOG=$T_DIR/hostile-$1.log
    python3 "$E2E_ROOT/tests/e2e/hostile_server.py" "$1" "$H_LOG" > "$T_DIR/hostile.out" 2>&1 &
    H_PIDS="${H_PIDS:-} $!"
    t_at_exit "kill $H_PIDS 2>/dev/null"
    for ((i = 0; i < 100; i++)); do
        H_URL=$(sed -n 's/^ready //p' "$T_DIR/hostile.out")
        [ -n "$H_URL" ] && return 0
        sleep 0.1
    done
    t_fail "hostile_server.py $1 did not start: $(cat "$T_DIR/hostile.out")"
}

_h_stop() {
    # shellcheck disable=SC2086
    [ -n "${H_PIDS:-}" ] && kill $H_PIDS 2>/dev/null
    H_PIDS=""
}

# _h_rss_cap_kb: the peak RSS allowed (the sanitizer build needs much more).
_h_rss_cap_kb() { case $S3C in *san*) echo 600000 ;; *) echo 150000 ;; esac; }

# _h_run ARGS...: s3c ARGS against the hostile server, timed; T_RC, T_OUT,
# T_ERR, H_RSS (peak RSS in kB).
_h_run() {
    t_cmd /usr/bin/time -o "$T_DIR/.rss" -f %M timeout -k 5 "$E2E_CMD_TIMEOUT" \
        "$S3C" --endpoint-url "$H_URL" "$@"
    H_RSS=$(tail -n 1 "$T_DIR/.rss")
    T_ERR=$(grep -v 'Command exited with non-zero status' <<<"$T_ERR")
}

# _h_expect_clean_failure WHAT [CODES]: exit 1 (or one of CODES, an ERE: ls says
# 254 or 255, as the AWS CLI's ls), exactly one error line, RSS under the cap.
_h_expect_clean_failure() {
    [[ $T_RC =~ ^(${2:-1})$ ]] || t_fail "$1: exit $T_RC, expected ${2:-1}"
    assert_lines 1 "$T_ERR" "$1: stderr"
    assert_match "$T_ERR" '^(s3c: ERROR "|[a-z]+ failed: |fatal error: )' "$1: stderr"
    [ "$H_RSS" -lt "$(_h_rss_cap_kb)" ] || t_fail "$1: peak RSS $H_RSS kB, over $(_h_rss_cap_kb) kB"
    t_note "$1: $(head -c 200 <<<"$T_ERR"), peak RSS $H_RSS kB"
}

_h_skip_unless_once() {
    t_store_is s3emu || t_skip "needs no store: runs once, in the s3emu pass"
    [ -x /usr/bin/time ] || t_skip "no /usr/bin/time (Debian package time): run scripts/deps.sh"
}

test_hostile_listings_hit_caps() {
    local m
    _h_skip_unless_once
    export AWS_ACCESS_KEY_ID=AKIDHOSTILE AWS_SECRET_ACCESS_KEY=hostile/secret
    for m in list-endless list-hugekey list-deep list-garbage headers-endless header-huge error-huge; do
        _h_start "$m"
        _h_run ls s3://bkt/
        _h_expect_clean_failure "ls against $m" '25[45]'
        if [[ $m == list-* ]]; then             # cp -r lists through plan/lister
            mkdir -p "dl-$m"
            _h_run cp -r s3://bkt/ "dl-$m/"
            _h_expect_clean_failure "cp -r against $m"
            assert_eq "" "$(find "dl-$m" -mindepth 1)" "files left by cp -r against $m"
        fi
        _h_stop
    done
}

test_hostile_content_length_lie() {
    _h_skip_unless_once
    export AWS_ACCESS_KEY_ID=AKIDHOSTILE AWS_SECRET_ACCESS_KEY=hostile/secret
    _h_start length-lie
    mkdir dl
    _h_run cp s3://bkt/big dl/
    _h_expect_clean_failure "cp of a 1 PB object"
    _h_run cp -r s3://bkt/ dl/
    _h_expect_clean_failure "cp -r of a 1 PB object"
    assert_eq "" "$(find dl -mindepth 1)" "files left"
}

test_hostile_keys_refused_siblings_land_one_line_each() {
    _h_skip_unless_once
    export AWS_ACCESS_KEY_ID=AKIDHOSTILE AWS_SECRET_ACCESS_KEY=hostile/secret
    _h_start list-evilkeys
    mkdir -p dl/inner
    _h_run cp -r s3://bkt/ dl/inner/
    [ "$T_RC" = 2 ] || t_fail "exit $T_RC, expected 2 (keys skipped)"
    # Two refused keys, one line each: the line break and the escapes in a
    # key are shown escaped, never sent to the terminal.
    assert_lines 2 "$T_ERR" "stderr"
    assert_match "$T_ERR" '^warning: Skipping file s3://bkt/evil\\n\\x1b\[2J\\x1b\[31mfake line/\.\./x\. ' "the key, escaped"
    assert_match "$T_ERR" '^warning: Skipping file s3://bkt/a/\.\./\.\./escape\. ' "stderr"
    [ "$(tr -d '\n' < "$T_DIR/.err" | tr -d '[:print:]' | wc -c)" = 0 ] ||
        t_fail "stderr holds control bytes: $(od -c "$T_DIR/.err" | head -n 5)"
    assert_eq "$(printf '%s\n' "content of ok1" "content of ok2")" "$(cat dl/inner/ok1 dl/inner/ok2)" "the siblings"
    assert_eq "$(printf '%s\n' dl/inner/ok1 dl/inner/ok2)" "$(find dl -type f | LC_ALL=C sort)" "files"
}

test_hostile_config_value_one_line_exit_2() {
    _h_skip_unless_once
    mkdir -p "$HOME/.aws"
    printf '[default]\nregion = us-east-1\nmax_attempts = 3\n  \033[31mred\n  second line\n' > "$HOME/.aws/config"
    assert_exit 253 s3c ls s3://bkt/
    assert_lines 1 "$T_ERR" "stderr"
    assert_contains "$T_ERR" 'max_attempts' "stderr"
    [ "$(tr -d '\n' < "$T_DIR/.err" | tr -d '[:print:]' | wc -c)" = 0 ] || t_fail "stderr holds control bytes"
}
