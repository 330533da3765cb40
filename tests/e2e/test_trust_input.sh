# tests/e2e/test_trust_input.sh — issue 22, items 15-18: bad input is refused
# before the first request (exit 252, one line, nothing sent, nothing left);
# a file named like a verb or "help" is a file; names are shown escaped on
# stdout as on stderr, and --json is valid JSON whatever a name holds.
# shellcheck shell=bash
#
# "Nothing sent" is seen by pointing s3c at tests/e2e/hostile_server.py,
# which logs every request it gets: its log must stay empty.

# _ti_server MODE: start the hostile server; TI_URL, TI_LOG. Stopped when the test ends.
_ti_server() {
    local i
    TI_LOG=$T_DIR/server-$1.log
    : > "$TI_LOG"
    python3 "$E2E_ROOT/tests/e2e/hostile_server.py" "$1" "$TI_LOG" > "$T_DIR/server.out" 2>&1 &
    t_at_exit "kill $! 2>/dev/null"
    for ((i = 0; i < 100; i++)); do
        TI_URL=$(sed -n 's/^ready //p' "$T_DIR/server.out")
        [ -n "$TI_URL" ] && return 0
        sleep 0.1
    done
    t_fail "hostile_server.py $1 did not start: $(cat "$T_DIR/server.out")"
}

# _ti_refused NEEDLE ARGS...: s3c ARGS against the recording server exits 252
# with one line on stderr that holds NEEDLE, and sends no request at all.
_ti_refused() {
    local needle=$1; shift
    t_cmd s3c --endpoint-url "$TI_URL" "$@"
    [ "$T_RC" = 252 ] || t_fail "s3c $*: exit $T_RC, expected 252 (refused before any request)"
    assert_lines 1 "$T_ERR" "stderr of s3c $*"
    assert_contains "$T_ERR" "$needle" "stderr of s3c $*"
    [ ! -s "$TI_LOG" ] || t_fail "s3c $*: requests were sent: $(head -c 300 "$TI_LOG")"
}

# _ti_printable FILE WHAT: FILE holds printable ASCII and line ends only.
_ti_printable() {
    [ "$(tr -d '\n' < "$1" | LC_ALL=C tr -d '[:print:]' | wc -c)" = 0 ] ||
        t_fail "$2 holds control or non-ASCII bytes: $(od -c "$1" | head -n 6)"
}

# _ti_json_ok FILE WHAT: every line of FILE parses as JSON, with Python's
# json (strict UTF-8) and with jq.
_ti_json_ok() {
    python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1], "rb") if l.strip()]' "$1" \
        2> "$T_DIR/.pyerr" || t_fail "$2 is not valid JSON: $(tail -n 1 "$T_DIR/.pyerr")"
    jq -c . < "$1" > /dev/null || t_fail "$2: jq cannot read it"
}

_ti_once() { t_store_is s3emu || t_skip "needs no store: runs once, in the s3emu pass"; }

# Item 15: every flag that becomes a header refuses CR, LF and the other
# control characters; a --metadata key must be an HTTP token.
test_trust_input_header_values_refused_before_any_request() {
    _ti_once
    export AWS_ACCESS_KEY_ID=AKIDTRUSTINPUT AWS_SECRET_ACCESS_KEY=trust/input/secret
    _ti_server echo-auth
    echo data > f
    mkdir d && echo data > d/g
    _ti_refused "--content-type" cp f s3://bkt/k --content-type $'text/plain\r\nx-amz-acl: public-read'
    _ti_refused "--cache-control" cp f s3://bkt/k --cache-control $'no-cache\n'
    _ti_refused "--content-disposition" cp f s3://bkt/k --content-disposition $'attachment\x01'
    _ti_refused "--content-encoding" cp f s3://bkt/k --content-encoding $'gzip\r'
    _ti_refused "--content-language" cp f s3://bkt/k --content-language $'en\x7f'
    _ti_refused "--expires" cp f s3://bkt/k --expires $'Thu, 01 Dec 2094 16:00:00 GMT\r\nx-amz-acl: public-read'
    _ti_refused "--sse-kms-key-id" cp f s3://bkt/k --sse aws:kms --sse-kms-key-id $'arn:key\nx'
    _ti_refused "--metadata value" cp f s3://bkt/k --metadata $'k=v\r\nx-amz-acl: public-read'
    _ti_refused '--metadata key "clé"' cp f s3://bkt/k --metadata 'clé=v'
    _ti_refused '--metadata key "a b"' cp f s3://bkt/k --metadata 'a b=v'
    _ti_refused "is not UTF-8" cp f s3://bkt/k --metadata "k=caf$(printf '\xe9')"
    _ti_refused "--source-region" cp s3://src/k s3://bkt/k --source-region 'us-east-1.evil.example/'
    # The other verbs that write objects share the checks.
    _ti_refused "--content-type" sync d s3://bkt/p/ --content-type $'a\nb'
    _ti_refused '--metadata key "clé"' mv f s3://bkt/k --metadata 'clé=v'
    [ -f f ] || t_fail "mv removed its source although it was refused"
    _ti_refused "--cache-control" pipe s3://bkt/k --cache-control $'x\ny'
    # The error line shows the value escaped: it stays one line.
    _ti_refused 'text/plain\r\nx-amz-acl: public-read' cp f s3://bkt/k --content-type $'text/plain\r\nx-amz-acl: public-read'
}

# Item 16: --storage-class, --acl, --sse, --sse-c, --request-payer take the
# AWS CLI's choices only, worded as its argparse words a bad one.
test_trust_input_enumerations_refused_before_any_request() {
    _ti_once
    export AWS_ACCESS_KEY_ID=AKIDTRUSTINPUT AWS_SECRET_ACCESS_KEY=trust/input/secret
    _ti_server echo-auth
    echo data > f
    _ti_refused "cp: argument --sse: Invalid choice 'FOO', valid choices are: AES256 | aws:kms" \
        cp f s3://bkt/k --sse FOO
    _ti_refused "argument --storage-class: Invalid choice 'FOO', valid choices are: STANDARD | REDUCED_REDUNDANCY" \
        cp f s3://bkt/k --storage-class FOO
    _ti_refused "argument --storage-class: Invalid choice 'standard'" cp f s3://bkt/k --storage-class standard
    _ti_refused "argument --acl: Invalid choice 'public', valid choices are: private | public-read" \
        cp f s3://bkt/k --acl public
    _ti_refused "argument --sse-c: Invalid choice 'AES128'" \
        cp f s3://bkt/k --sse-c AES128 --sse-c-key 0123456789abcdef0123456789abcdef
    _ti_refused "argument --request-payer: Invalid choice 'me'" cp s3://bkt/k f --request-payer me
    _ti_refused "argument --sse: Invalid choice 'aes256'" sync . s3://bkt/p/ --sse aes256
    _ti_refused "argument --storage-class: Invalid choice 'GLACIER-IR'" mv f s3://bkt/k --storage-class GLACIER-IR
    _ti_refused "rm: argument --request-payer: Invalid choice 'me'" rm s3://bkt/k --request-payer me
    _ti_refused "ls: argument --request-payer: Invalid choice 'me'" ls s3://bkt/ --request-payer me
}

# Item 15 against the store: a refused --metadata leaves nothing behind; a
# non-ASCII value is sent as S3 reads it (RFC 2047), and read back so.
test_trust_input_metadata_non_ascii() {
    local b
    t_new_bucket b
    echo data > f
    assert_exit 252 s3c cp f "s3://$b/k" --metadata 'clé=v'
    assert_contains "$T_ERR" '--metadata key "clé"'
    assert_exit 252 s3c cp f "s3://$b/k" --metadata "note=caf$(printf '\xe9')"
    assert_eq "" "$(t_list_keys "$b")" "keys left in the bucket by refused uploads"
    assert_ok s3c cp f "s3://$b/k" --metadata 'note=café,plain=ok'
    assert_ok awsx s3api head-object --bucket "$b" --key k
    assert_eq "=?UTF-8?B?Y2Fmw6k=?=" "$(jq -r .Metadata.note <<<"$T_OUT")" "the non-ASCII value as stored"
    assert_eq "ok" "$(jq -r .Metadata.plain <<<"$T_OUT")" "the ASCII value as stored"
}

# Item 17: paths are never options or verbs. "help" is help alone after a
# verb (as `aws s3 cp help`), or --help / -h; anywhere else it is a path.
test_trust_input_file_named_help_is_a_path() {
    local b
    t_new_bucket b
    echo "i am a file named help" > help
    echo dash > ./-dash
    assert_ok s3c cp help "s3://$b/help"
    assert_eq "upload: ./help to s3://$b/help" "$T_OUT" "cp help s3://B/help"
    assert_ok s3c cp "s3://$b/help" help
    assert_eq "download: s3://$b/help to ./help" "$T_OUT" "cp s3://B/help help"
    assert_eq "i am a file named help" "$(cat help)" "the file named help"
    assert_ok s3c mv help "s3://$b/moved"
    assert_eq "move: ./help to s3://$b/moved" "$T_OUT" "mv help s3://B/moved"
    [ ! -e help ] || t_fail "mv left its source"
    # After "--", a path that starts with '-' is a path.
    assert_ok s3c cp -- -dash "s3://$b/-dash"
    assert_eq "upload: ./-dash to s3://$b/-dash" "$T_OUT" "cp -- -dash"
    assert_ok s3c ls -- "s3://$b/-dash"
    assert_contains "$T_OUT" " -dash" "ls -- s3://B/-dash"
    assert_eq "$(printf '%s\n' -dash help moved)" "$(t_list_keys "$b" | LC_ALL=C sort)" "keys"
    # Help is still there.
    assert_ok s3c cp help
    assert_match "$T_OUT" '^Usage: s3c cp ' "s3c cp help"
    assert_ok s3c cp --help
    assert_match "$T_OUT" '^Usage: s3c cp ' "s3c cp --help"
    assert_ok s3c cp -h
    assert_match "$T_OUT" '^Usage: s3c cp ' "s3c cp -h"
    assert_ok s3c help cp
    assert_match "$T_OUT" '^Usage: s3c cp ' "s3c help cp"
}

# Item 18: keys a hostile listing holds (line breaks, terminal escapes) are
# shown escaped by ls, as the error lines already showed them; --json keeps
# them exactly.
test_trust_input_ls_shows_keys_escaped() {
    _ti_once
    export AWS_ACCESS_KEY_ID=AKIDTRUSTINPUT AWS_SECRET_ACCESS_KEY=trust/input/secret
    _ti_server list-evilkeys
    assert_ok s3c --endpoint-url "$TI_URL" ls -r s3://bkt/
    assert_lines 4 "$T_OUT" "ls -r stdout"
    _ti_printable "$T_DIR/.out" "ls -r stdout"
    assert_match "$T_OUT" ' evil\\n\\x1b\[2J\\x1b\[31mfake line/\.\./x$' "the key, escaped"
    assert_ok s3c --endpoint-url "$TI_URL" --json ls -r s3://bkt/
    _ti_json_ok "$T_DIR/.out" "ls --json"
    assert_eq $'s3://bkt/evil\n\x1b[2J\x1b[31mfake line/../x' \
        "$(sed -n 2p "$T_DIR/.out" | jq -j .key)" "the key in JSON, exact"
}

# Item 18: result lines on stdout escape what a local name holds (controls,
# bytes that are not UTF-8); --json stays valid JSON and keeps the exact
# bytes in NAME_base64. (Keys that are not UTF-8 are refused by AWS S3, kept
# by s3emu: this part runs in the s3emu pass.)
test_trust_input_result_lines_escaped_json_valid() {
    local b esc=$'esc\x1b[31mred' latin1 e9
    t_store_is s3emu || t_skip "keys that are not UTF-8: s3emu keeps them, S3 refuses them"
    e9=$(printf '\xe9')
    latin1="caf$e9"
    t_new_bucket b
    mkdir src
    echo one > "src/$esc"
    echo two > "src/$latin1"
    assert_ok s3c cp -r src "s3://$b/"
    assert_lines 2 "$T_OUT" "cp -r stdout"
    _ti_printable "$T_DIR/.out" "cp -r stdout"
    assert_contains "$T_OUT" "upload: src/esc\\x1b[31mred to s3://$b/esc\\x1b[31mred"
    assert_contains "$T_OUT" "upload: src/caf\\xe9 to s3://$b/caf\\xe9"
    assert_ok s3c ls "s3://$b/"
    _ti_printable "$T_DIR/.out" "ls stdout"
    assert_contains "$T_OUT" " caf\\xe9"
    assert_ok s3c --json cp -r src "s3://$b/j/"
    _ti_json_ok "$T_DIR/.out" "cp --json"
    assert_eq "src/$latin1" "$(jq -r 'select(.source_base64) | .source_base64' < "$T_DIR/.out" | base64 -d)" \
        "the exact source bytes"
    assert_ok s3c --json ls -r "s3://$b/j/"
    _ti_json_ok "$T_DIR/.out" "ls --json"
    assert_eq "s3://$b/j/$latin1" "$(jq -r 'select(.key_base64) | .key_base64' < "$T_DIR/.out" | base64 -d)" \
        "the exact key bytes"
    assert_eq "s3://$b/j/$esc" "$(jq -r 'select(.key_base64 | not) | .key' < "$T_DIR/.out")" "a UTF-8 key, exact"
    # Error lines too: a missing key named with bytes that are not UTF-8.
    assert_exit 1 s3c cp "s3://$b/gone$e9" dl
    _ti_printable "$T_DIR/.err" "stderr"
    assert_contains "$T_ERR" "s3://$b/gone\\xe9"
    # The harness deletes in batches (XML), which cannot name these keys.
    assert_ok s3c rm -r "s3://$b/"
}
