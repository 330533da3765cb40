# tests/e2e/test_secrets.sh — issue 6: secrets never reach the output.
# shellcheck shell=bash
#
# Runs a full set of commands (transfers every way, listings, head, mb/rb,
# run, errors, --debug, --json, presign when it exists) with distinctive keys
# and a session token, keeps every byte they print, and greps it all for the
# secret key, the session token (also percent-encoded) and every request
# signature s3c sent. The signatures come from tests/e2e/hostile_server.py in
# echo-auth mode, which logs each request and answers 403 with an error body
# that quotes them back, as S3 does (<SignatureProvided>, <StringToSign>...).
# The one thing allowed to hold a signature is presign's URL on stdout.

# _s_forbidden FILE: print each forbidden string found in FILE (none: silent).
_s_forbidden() {
    local f=$1 s
    while IFS= read -r s; do
        [ -n "$s" ] && grep -qF -- "$s" "$f" && echo "$s"
    done < "$T_DIR/forbidden"
}

# _s_forbid STRING: add STRING (and its percent-encoded form) to the list.
_s_forbid() {
    printf '%s\n' "$1" >> "$T_DIR/forbidden"
    jq -rn --arg s "$1" '$s | @uri' >> "$T_DIR/forbidden"
}

# _s_all CMD...: run CMD, append its stdout and stderr to the capture.
_s_all() {
    t_cmd "$@"
    { printf '\n### %s (exit %s)\n' "$T_LAST" "$T_RC"; cat "$T_DIR/.out" "$T_DIR/.err"; } >> "$T_DIR/all"
}

# _s_signatures_sent LOG: every signature in the requests the echo server saw.
_s_signatures_sent() { grep -oE 'Signature=[0-9a-f]{64}' "$1" | cut -d= -f2; }

test_secrets_never_in_any_output() {
    local b b2 u hp i n s presign=0 tok="FwoGZXIvYXdzEXAMPLE-s3c-session-token-$RANDOM$RANDOM"
    t_bucket b
    t_bucket b2
    : > "$T_DIR/forbidden" > "$T_DIR/all"
    mkdir -p tree/sub dl
    printf 'one\n' > tree/one.txt
    printf 'two\n' > tree/sub/two.txt
    cp "$(t_data 9MiB $((9 * 1024 * 1024)))" tree/big.bin

    # 1. The store's own keys, every command, with and without --debug and --json.
    _s_forbid "$S3C_TEST_SECRET_KEY"
    _s_forbid "$S3C_TEST_ACCESS_KEY"
    s3c help presign >/dev/null 2>&1 && presign=1
    for flags in "" "--debug" "--debug --json"; do
        # shellcheck disable=SC2086
        {
            _s_all s3c $flags mb "s3://$b"
            _s_all s3c $flags cp -r tree "s3://$b/t/"
            _s_all s3c $flags cp tree/one.txt "s3://$b/single.txt"
            _s_all s3c $flags ls "s3://$b/"
            _s_all s3c $flags ls -r "s3://$b/"
            _s_all s3c $flags ls
            _s_all s3c $flags head "s3://$b/t/big.bin"
            _s_all s3c $flags head "s3://$b"
            _s_all s3c $flags cp -r "s3://$b/t/" dl/
            _s_all s3c $flags cp "s3://$b/t/one.txt" -
            _s_all s3c $flags cp -r "s3://$b/t/" "s3://$b/copy/"
            _s_all s3c $flags mv "s3://$b/copy/one.txt" "s3://$b/moved.txt"
            _s_all s3c $flags cp "s3://$b/no-such-key" dl/x        # 404
            _s_all s3c $flags rb "s3://$b"                          # 409 not empty
            _s_all s3c $flags ls "s3://$b2/"                        # 404 no bucket
            _s_all s3c $flags rb --force "s3://$b"
        }
        [ "$T_RC" = 0 ] || t_fail "rb --force failed"
    done
    printf 'ls s3://%s/\nmb s3://%s\nrb s3://%s\n' "$b2" "$b2" "$b2" > cmds
    _s_all s3c --debug run cmds
    if [ "$presign" = 1 ]; then
        assert_ok s3c mb "s3://$b"
        assert_ok s3c cp tree/one.txt "s3://$b/p.txt"
        t_cmd s3c --debug presign "s3://$b/p.txt"
        # Its URL is the one place a signature belongs: only stderr is kept.
        { printf '\n### %s (stderr only)\n' "$T_LAST"; cat "$T_DIR/.err"; } >> "$T_DIR/all"
        assert_match "$T_OUT" 'X-Amz-Signature=[0-9a-f]{64}' "presign's URL"
        _s_forbid "$(sed -nE 's/.*X-Amz-Signature=([0-9a-f]{64}).*/\1/p' <<<"$T_OUT")"
        assert_ok s3c rb --force "s3://$b"
    fi

    # 2. A profile from the credentials file, with a session token (s3emu
    # ignores tokens; Ceph refuses one it did not issue: an error path).
    _s_forbid "$tok"
    assert_ok s3c mb "s3://$b"
    mkdir -p "$HOME/.aws"
    printf '[p1]\naws_access_key_id = %s\naws_secret_access_key = %s\naws_session_token = %s\n' \
        "$S3C_TEST_ACCESS_KEY" "$S3C_TEST_SECRET_KEY" "$tok" > "$HOME/.aws/credentials"
    (
        unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY
        _s_all s3c --debug --profile p1 ls
        _s_all s3c --debug --json --profile p1 cp -r tree "s3://$b/t/"
        _s_all s3c --debug --profile p1 ls "s3://$b/"
        _s_all s3c --debug --profile p1 cp -r "s3://$b/t/" dl4/
    )

    # 3. Wrong keys: every answer is an auth error.
    local wrong="wRoNg/s3c+e2e/SecretKey/$RANDOM$RANDOM"
    _s_forbid "$wrong"
    for flags in "--debug" "--debug --json"; do
        # shellcheck disable=SC2086
        AWS_SECRET_ACCESS_KEY=$wrong AWS_SESSION_TOKEN=$tok _s_all s3c $flags ls
        # shellcheck disable=SC2086
        AWS_SECRET_ACCESS_KEY=$wrong AWS_SESSION_TOKEN=$tok _s_all s3c $flags cp -r tree "s3://$b/t/"
        # shellcheck disable=SC2086
        AWS_SECRET_ACCESS_KEY=$wrong _s_all s3c $flags cp -r "s3://$b/t/" dl2/
    done

    # 4. A server that quotes the signatures back in its errors.
    _h_start echo-auth
    for flags in "--debug" "--debug --json" ""; do
        # shellcheck disable=SC2086
        {
            AWS_SESSION_TOKEN=$tok _s_all s3c --endpoint-url "$H_URL" $flags ls s3://bkt/
            AWS_SESSION_TOKEN=$tok _s_all s3c --endpoint-url "$H_URL" $flags cp -r tree s3://bkt/t/
            AWS_SESSION_TOKEN=$tok _s_all s3c --endpoint-url "$H_URL" $flags cp -r s3://bkt/t/ dl3/
            AWS_SESSION_TOKEN=$tok _s_all s3c --endpoint-url "$H_URL" $flags head s3://bkt/k
            AWS_SESSION_TOKEN=$tok _s_all s3c --endpoint-url "$H_URL" $flags mb s3://bkt2
        }
    done
    if [ "$presign" = 1 ]; then
        t_cmd s3c --endpoint-url "$H_URL" presign s3://bkt/k
        curl -s -o /dev/null "$T_OUT"          # the server logs the presigned signature
    fi
    # Equal requests signed in the same second share a signature, so count
    # them all (15 commands) and the distinct ones (one per kind of request
    # at least: ListObjectsV2, PutObject, HeadObject, CreateBucket, presign).
    n=0
    while IFS= read -r s; do
        [ -n "$s" ] && _s_forbid "$s" && n=$((n + 1))
    done < <(_s_signatures_sent "$H_LOG" | sort -u)
    i=$(_s_signatures_sent "$H_LOG" | wc -l)
    [ "$n" -ge 5 ] && [ "$i" -ge 15 ] ||
        t_fail "the echo server saw only $i signatures, $n distinct"
    t_note "the echo server saw $i signatures, $n distinct"
    _h_stop

    # The verdict, over everything printed.
    i=$(_s_forbidden "$T_DIR/all")
    if [ -n "$i" ]; then
        t_note "forbidden strings found: $(head -c 400 <<<"$i")"
        grep -n -F -f <(printf '%s\n' "$i") "$T_DIR/all" | head -n 10 | cut -c1-300 >&2
        t_fail "a secret, token or signature was printed"
    fi
    # Belt and braces: nothing shaped like a signature or a token header.
    if grep -nE '(Signature=|X-Amz-Signature=|SignatureProvided>)[0-9a-f]{64}|x-amz-security-token: [^(]' \
        "$T_DIR/all" | head -n 5 >&2; then
        t_fail "something shaped like a signature was printed"
    fi
    t_note "$(grep -c '^###' "$T_DIR/all") commands, $(wc -c < "$T_DIR/all") bytes of output checked against $(grep -c . "$T_DIR/forbidden") strings"
}
