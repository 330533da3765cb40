# tests/e2e/lib.sh — a small bash harness for end-to-end tests of s3c.
# shellcheck shell=bash disable=SC2030,SC2031
#
# Sourced by tests/e2e/run.sh, which sources every tests/e2e/test_*.sh and runs
# their `test_*` functions in the order they are written. Each test runs in a
# subshell of its own with:
#   - a fresh temp dir T_DIR as current directory, and HOME=T_DIR/home, so the
#     user's ~/.aws is never read (AWS_CONFIG_FILE & co. are unset);
#   - the store's endpoint and keys in AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
#     AWS_SECRET_ACCESS_KEY, AWS_REGION (a test may unset or change them);
#   - TZ=UTC, LC_ALL=C.UTF-8, AWS_EC2_METADATA_DISABLED=true.
# Buckets named with t_bucket/t_new_bucket are emptied and deleted after the
# test, whether it passed or not.
#
# The store comes from the environment:
#   S3C_TEST_ENDPOINT   http://127.0.0.1:PORT            (required)
#   S3C_TEST_ACCESS_KEY, S3C_TEST_SECRET_KEY             (required)
#   S3C_TEST_REGION     default us-east-1
#   S3C_TEST_STORE      ceph | s3emu (a label; tests may skip by it)
# Other knobs: S3C (the binary, default build/s3c), AWS_CLI (default
# /usr/bin/aws), E2E_CMD_TIMEOUT (seconds per command, default 60),
# E2E_SUITE_TIMEOUT (seconds; tests not started by then fail, default 3000:
# a guard against a hung suite, not a speed test; the 353 tests under
# ASan beside the Ceph pass took over 1,500 s on a 2-core machine),
# E2E_KEEP=1 (keep temp dirs and buckets), E2E_LOOP_LAG_MS (the loop-lag
# probe's bound, below).
#
# Sanitizer builds (S3C=build-san/s3c): every test exports ASAN_OPTIONS and
# UBSAN_OPTIONS (defaults below: leaks on, UBSan fatal) with log_path in the
# test's own dir, so a report from any s3c it runs lands in a file whatever the
# test did with stderr or expected of the exit code; a test that leaves such a
# report fails, and the report is shown. UBSan reports go to stderr whatever
# log_path says, so t_cmd also looks for them in each command's stderr; UBSan
# errors are fatal (exit 1), which most tests notice too. (Ignored by a normal
# build.)
#
# Writing a test:
#   test_mb_then_ls() {
#       t_bucket b                       # b=<unique name>, cleaned up afterwards
#       assert_ok s3c mb "s3://$b"       # runs it; T_OUT, T_ERR, T_RC hold the result
#       assert_ok awsx s3 ls
#       assert_contains "$T_OUT" "$b"
#   }
# An assertion that fails prints the test name, the message, the last command
# run with t_cmd/assert_* and its exit code and output, then ends the test.

: "${E2E_ROOT:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${S3C:=$E2E_ROOT/build/s3c}"
: "${AWS_CLI:=/usr/bin/aws}"
: "${S3C_TEST_REGION:=us-east-1}"
: "${S3C_TEST_STORE:=ceph}"
: "${E2E_CMD_TIMEOUT:=60}"
: "${E2E_SUITE_TIMEOUT:=3000}"
: "${E2E_KEEP:=0}"
: "${ASAN_OPTIONS:=detect_leaks=1:abort_on_error=0}"
# Nothing blocks an event-loop thread (issue 24), checked two ways for every
# s3c a test runs, both reporting into the test's .lag file:
# - exactly: build/slowcalls.so (E2E_CHECKER), preloaded into every s3c a
#   test runs ($S3C is then a wrapper that sets LD_PRELOAD and execs the
#   binary, so other programs run as they are), learns from s3c which
#   threads are loops and reports each named
#   blocking call one makes (getaddrinfo, fsync, fdatasync, posix_fallocate,
#   fallocate, the sleeps; pread of a file too where a test sets
#   S3C_SLOW_PREAD=1), however short: a "loop-block" line fails the test.
# - by time: the loop-lag probe (src/base/lag.h, S3C_LOOP_LAG_MS) reports a
#   loop thread blocked (asleep outside its poll: neither running nor waiting
#   for a CPU) longer than E2E_LOOP_LAG_MS. It subtracts CPU and run-queue
#   time, so ASan and a busy CPU do not fire it, but a loop waiting for a lock
#   whose holder was preempted, or for the disk under other jobs' writes, is
#   blocked too: on a shared 2-core machine at load 10 it saw 100-800 ms in
#   plain uploads. So its "loop-lag" lines are shown as warnings, and fail
#   the test only with E2E_LOOP_LAG_STRICT=1 (a quiet machine).
: "${E2E_LOOP_LAG_MS:=100}"
: "${E2E_LOOP_LAG_STRICT:=0}"
: "${E2E_CHECKER:=$(dirname "$S3C")/slowcalls.so}"
: "${UBSAN_OPTIONS:=print_stacktrace=1:halt_on_error=1}"

# ------------------------------------------------------------ commands --

# s3c ARGS...: the binary under test, with a time limit. (--foreground keeps
# it in our process group, so stopping the group stops it too.)
s3c() { timeout --foreground -k 5 "$E2E_CMD_TIMEOUT" "$S3C" "$@"; }

# awsx ARGS...: the AWS CLI v2 against the test store, with the store's keys,
# whatever the test did to its own environment or ~/.aws. (The Debian
# /usr/bin/aws, not a shim that may come first on PATH; it ignores
# AWS_ENDPOINT_URL, hence --endpoint-url.)
awsx() {
    (
        _t_unset_aws_env
        export AWS_CONFIG_FILE=$E2E_TMP/.awsx/config
        export AWS_SHARED_CREDENTIALS_FILE=$E2E_TMP/.awsx/credentials
        export AWS_ACCESS_KEY_ID=$S3C_TEST_ACCESS_KEY
        export AWS_SECRET_ACCESS_KEY=$S3C_TEST_SECRET_KEY
        export AWS_DEFAULT_REGION=$S3C_TEST_REGION
        export AWS_EC2_METADATA_DISABLED=true AWS_PAGER=
        exec timeout --foreground -k 5 "$E2E_CMD_TIMEOUT" "$AWS_CLI" --endpoint-url "$S3C_TEST_ENDPOINT" "$@"
    )
}

# s3curl METHOD PATH [CURL-ARGS...]: one signed request to the test store with
# curl (much faster than the AWS CLI, for set-up and clean-up). PATH starts
# with / and is already URL-encoded; its query parameters must be in sorted
# order and '/' in them written %2F (curl 7.88 signs the query as given). Prints the response body; fails on >= 400.
s3curl() {
    local verb=(-X "$1") path=$2; shift 2
    # curl -X HEAD would wait for a body that never comes: --head does not.
    [ "${verb[1]}" = HEAD ] && verb=(--head)
    curl -sS --fail-with-body --max-time "$E2E_CMD_TIMEOUT" "${verb[@]}" \
        --aws-sigv4 "aws:amz:$S3C_TEST_REGION:s3" \
        --user "$S3C_TEST_ACCESS_KEY:$S3C_TEST_SECRET_KEY" \
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
        "$@" "$S3C_TEST_ENDPOINT$path"
}

_t_unset_aws_env() {
    local v
    for v in $(compgen -e); do
        case $v in AWS_*) unset "$v" ;; esac
    done
}

# --------------------------------------------------------- test results --

# t_cmd CMD ARGS...: run a command (or shell function), keep its exit code in
# T_RC and its output in T_OUT / T_ERR (also in files T_DIR/.out, T_DIR/.err).
# Returns the command's exit code.
t_cmd() {
    T_LAST=$(printf '%q ' "$@")
    "$@" >"$T_DIR/.out" 2>"$T_DIR/.err" </dev/null
    T_RC=$?
    T_OUT=$(cat "$T_DIR/.out")
    T_ERR=$(cat "$T_DIR/.err")
    # UBSan's reports ignore log_path (GCC's ASan+UBSan runtime): catch them here.
    grep -qE "$_T_SAN_RE" "$T_DIR/.err" && cp "$T_DIR/.err" "$T_DIR/.san/stderr.$RANDOM"
    return $T_RC
}
_T_SAN_RE='ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:'

# _t_show FILE: print at most 40 lines of a file, indented.
_t_show() {
    local n
    n=$(wc -l < "$1")
    head -n 40 "$1" | sed 's/^/      | /'
    [ "$n" -le 40 ] || echo "      | ... ($n lines)"
}

# t_fail MESSAGE: fail the current test now, with the last command's details.
t_fail() {
    : > "$T_DIR/.failed"
    {
        echo "    FAILED in $T_NAME: $*"
        if [ -n "${T_LAST:-}" ]; then
            echo "    last command: $T_LAST (exit $T_RC)"
            [ "$T_RC" = 124 ] && echo "    (exit 124: killed by the ${E2E_CMD_TIMEOUT}s time limit)"
            echo "    stdout:"; _t_show "$T_DIR/.out"
            echo "    stderr:"; _t_show "$T_DIR/.err"
        fi
    } >&2
    exit 1
}

# t_skip REASON: end the current test as skipped. The reason is shown and
# must be said: a skip without one (or an exit 77 that did not come from
# t_skip) is a failure, so a broken precondition cannot hide tests.
t_skip() {
    [ -n "${*//[[:space:]]/}" ] || t_fail "t_skip without a reason (a skip must say why)"
    echo "$*" > "$T_DIR/.skipped"
    exit 77
}

# t_note TEXT: a line in the test's log (shown when the test fails).
t_note() { echo "    note: $*" >&2; }

# ---------------------------------------------------------- assertions --

# assert_exit CODE CMD ARGS...: run CMD (see t_cmd) and expect exit code CODE.
assert_exit() {
    local want=$1; shift
    t_cmd "$@"
    [ "$T_RC" = "$want" ] || t_fail "expected exit $want, got $T_RC"
}

# assert_ok CMD ARGS...: run CMD and expect exit code 0.
assert_ok() { assert_exit 0 "$@"; }

# assert_eq EXPECTED ACTUAL [WHAT]: the two strings are equal (a diff if not).
assert_eq() {
    [ "$1" == "$2" ] && return 0
    {
        echo "    ${3:-values differ}: diff expected actual:"
        diff <(printf '%s\n' "$1") <(printf '%s\n' "$2") | head -n 40 | sed 's/^/      /'
    } >&2
    t_fail "assert_eq: ${3:-values differ}"
}

# assert_contains HAYSTACK NEEDLE [WHAT]: NEEDLE is a substring of HAYSTACK.
assert_contains() {
    [[ "$1" == *"$2"* ]] && return 0
    t_fail "assert_contains: ${3:-text} does not contain '$2'"
}

# assert_not_contains HAYSTACK NEEDLE [WHAT]
assert_not_contains() {
    [[ "$1" != *"$2"* ]] && return 0
    t_fail "assert_not_contains: ${3:-text} contains '$2'"
}

# assert_match HAYSTACK ERE [WHAT]: some line of HAYSTACK matches the regex.
assert_match() {
    grep -Eq -- "$2" <<<"$1" && return 0
    t_fail "assert_match: ${3:-text} does not match /$2/"
}

# assert_lines N TEXT [WHAT]: TEXT has exactly N non-empty lines.
assert_lines() {
    local n
    n=$(grep -c . <<<"$2")
    [ "$n" = "$1" ] || t_fail "assert_lines: ${3:-text} has $n lines, expected $1"
}

# assert_file_sha256 FILE HEX: the file exists and has this SHA-256.
assert_file_sha256() {
    [ -f "$1" ] || t_fail "assert_file_sha256: no file $1"
    local got
    got=$(sha256sum < "$1" | cut -d' ' -f1)
    [ "$got" = "$2" ] || t_fail "assert_file_sha256: $1 has sha256 $got, expected $2"
}

# assert_json_lines TEXT [WHAT]: every line of TEXT is one JSON object.
assert_json_lines() {
    local line n=0
    while IFS= read -r line; do
        n=$((n + 1))
        jq -e 'type == "object"' <<<"$line" >/dev/null 2>&1 ||
            t_fail "assert_json_lines: ${2:-line} $n is not a JSON object: $line"
    done <<<"$1"
}

# assert_same_output CMD1... -- CMD2...: both commands exit alike and print
# byte-identical stdout (a diff if not). Typical: s3c ls X -- awsx s3 ls X.
assert_same_output() {
    local lhs=() rhs=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do lhs+=("$1"); shift; done
    shift
    rhs=("$@")
    t_cmd "${rhs[@]}"
    local rc_rhs=$T_RC cmd_rhs=$T_LAST
    cp "$T_DIR/.out" "$T_DIR/.expected"
    t_cmd "${lhs[@]}"
    if ! cmp -s "$T_DIR/.expected" "$T_DIR/.out"; then
        {
            echo "    output of: $T_LAST"
            echo "    differs from: $cmd_rhs (diff expected actual):"
            diff "$T_DIR/.expected" "$T_DIR/.out" | head -n 40 | sed 's/^/      /'
        } >&2
        t_fail "assert_same_output: outputs differ"
    fi
    [ "$T_RC" = "$rc_rhs" ] || t_fail "assert_same_output: exit $T_RC, but $cmd_rhs exited $rc_rhs"
}

# ------------------------------------------------------------- buckets --

# t_bucket VAR [TAG]: set VAR to a new bucket name, unique to this run and
# test (not created). The bucket is removed after the test if it exists.
t_bucket() {
    T_NBUCKETS=$((T_NBUCKETS + 1))
    local name="s3c-e2e-$E2E_RUN_ID-$T_INDEX-$T_NBUCKETS${2:+-$2}"
    name=${name:0:63}
    echo "$name" >> "$T_DIR/.buckets"
    printf -v "$1" '%s' "$name"
}

# t_new_bucket VAR [TAG]: as t_bucket, and create it (with curl, not s3c).
t_new_bucket() {
    t_bucket "$1" "${2:-}"
    t_cmd s3curl PUT "/${!1}" || t_fail "could not create bucket ${!1}"
}

# t_mpu BUCKET KEY FILE PART-BYTES [CURL-ARGS...]: write FILE as a multipart
# upload with curl, cut in parts of PART-BYTES (the last one shorter), so the
# layout is the test's; CURL-ARGS go with CreateMultipartUpload (headers).
t_mpu() {
    local b=$1 k=$2 f=$3 p=$4 size id n=0 off=0 xml="" etag
    shift 4
    size=$(stat -c %s "$f")
    id=$(s3curl POST "/$b/$k?uploads=" "$@" | grep -o '<UploadId>[^<]*' | sed 's/<UploadId>//') ||
        t_fail "CreateMultipartUpload s3://$b/$k"
    [ -n "$id" ] || t_fail "no UploadId for s3://$b/$k"
    while [ "$off" -lt "$size" ]; do
        n=$((n + 1))
        tail -c +$((off + 1)) "$f" | head -c "$p" > "$T_DIR/.part"
        etag=$(s3curl PUT "/$b/$k?partNumber=$n&uploadId=$id" -T "$T_DIR/.part" -D - -o /dev/null |
               tr -d '\r' | awk 'tolower($1) == "etag:" { print $2 }') || t_fail "UploadPart $n"
        xml+="<Part><PartNumber>$n</PartNumber><ETag>$etag</ETag></Part>"
        off=$((off + p))
    done
    s3curl POST "/$b/$k?uploadId=$id" -H "Content-Type: application/xml" \
        --data-binary "<CompleteMultipartUpload>$xml</CompleteMultipartUpload>" >/dev/null ||
        t_fail "CompleteMultipartUpload s3://$b/$k"
}

# t_put BUCKET KEY FILE [CURL-ARGS...]: upload FILE as s3://BUCKET/KEY with curl.
t_put() {
    local b=$1 k=$2 f=$3; shift 3
    t_cmd s3curl PUT "/$b/$k" -T "$f" "$@" || t_fail "could not put s3://$b/$k"
}

# t_put_text BUCKET KEY TEXT: upload TEXT as s3://BUCKET/KEY.
t_put_text() {
    printf '%s' "$3" > "$T_DIR/.put"
    t_put "$1" "$2" "$T_DIR/.put"
}

# t_seed_tree BUCKET DIR [PREFIX]: upload every file under DIR to
# s3://BUCKET/PREFIX<relative path>, 32 requests at a time (about 700 small
# files a second on Ceph here, 3x the AWS CLI). Fails the test on any error.
t_seed_tree() {
    local b=$1 dir=$2 prefix=${3:-} cfg=$T_DIR/.seed.curl
    # One curl config entry per file; URL path segments percent-encoded.
    (cd "$dir" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) |
        jq -Rr --arg u "$S3C_TEST_ENDPOINT/$b/" --arg p "$prefix" --arg d "$dir" '
            def q: gsub("\\\\"; "\\\\") | gsub("\""; "\\\"");
            "upload-file = \"\(($d + "/" + .) | q)\"\n" +
            "url = \"\($u)\(($p + .) | split("/") | map(@uri) | join("/") | q)\"\n" +
            "output = \"/dev/null\""' > "$cfg"
    t_cmd curl -sS --fail-with-body --parallel --parallel-max 32 --no-progress-meter \
        --max-time "$E2E_CMD_TIMEOUT" --aws-sigv4 "aws:amz:$S3C_TEST_REGION:s3" \
        --user "$S3C_TEST_ACCESS_KEY:$S3C_TEST_SECRET_KEY" \
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -K "$cfg" ||
        t_fail "seeding s3://$b/$prefix from $dir failed"
}

# _t_xml_to_uri TEXT: XML-unescape TEXT, then percent-encode it.
_t_xml_to_uri() {
    jq -rn --arg t "$1" '$t | gsub("&lt;"; "<") | gsub("&gt;"; ">") | gsub("&quot;"; "\"")
        | gsub("&apos;"; "'"'"'") | gsub("&amp;"; "&") | @uri'
}

# t_list_keys BUCKET: print the bucket's keys, XML-escaped as S3 sends them
# (one a line; paginated ListObjectsV2 with curl).
t_list_keys() {
    local b=$1 tok="" xml q
    while :; do
        # curl's --aws-sigv4 (7.88) does not sort the query: keep it sorted.
        q="list-type=2&max-keys=1000"
        [ -n "$tok" ] && q="continuation-token=$(_t_xml_to_uri "$tok")&$q"
        xml=$(s3curl GET "/$b?$q") || return 1
        grep -o '<Key>[^<]*</Key>' <<<"$xml" | sed 's|</\?Key>||g'
        grep -q '<IsTruncated>true</IsTruncated>' <<<"$xml" || return 0
        tok=$(grep -o '<NextContinuationToken>[^<]*</NextContinuationToken>' <<<"$xml" |
              sed 's|</\?NextContinuationToken>||g')
        [ -n "$tok" ] || return 1
    done
}

# t_purge_bucket BUCKET: delete every object (DeleteObjects, 1000 a request)
# and the bucket. Quiet; returns non-zero if the bucket is still there.
t_purge_bucket() {
    local b=$1 keys body md5
    keys=$(t_list_keys "$b" 2>/dev/null) || {
        # no such bucket: nothing to do
        s3curl HEAD "/$b" -o /dev/null 2>/dev/null || return 0
        return 1
    }
    if [ -n "$keys" ]; then
        while IFS= read -r -d '' body; do
            md5=$(printf '%s' "$body" | openssl dgst -md5 -binary | base64)
            s3curl POST "/$b?delete=" -H "Content-MD5: $md5" \
                -H "Content-Type: application/xml" --data-binary "$body" >/dev/null || return 1
        done < <(awk '
            NR % 1000 == 1 { printf "<Delete><Quiet>true</Quiet>" }
            { printf "<Object><Key>%s</Key></Object>", $0 }
            NR % 1000 == 0 { printf "</Delete>%c", 0 }
            END { if (NR % 1000 != 0) printf "</Delete>%c", 0 }' <<<"$keys")
    fi
    s3curl DELETE "/$b" >/dev/null 2>&1 && return 0
    # A versioned bucket keeps old versions and delete markers: remove those.
    _t_purge_versions "$b"
    s3curl DELETE "/$b" >/dev/null
}

# _t_purge_versions BUCKET: delete every object version and delete marker,
# 1000 a round, listing from the start each time (what was listed is gone).
_t_purge_versions() {
    local b=$1 xml body md5 i
    for ((i = 0; i < 1000; i++)); do
        xml=$(s3curl GET "/$b?max-keys=1000&versions=") || return 1
        # Key and VersionId of each <Version> and <DeleteMarker>, still XML-escaped.
        body=$(awk 'BEGIN { RS = "<(Version|DeleteMarker)>" } NR > 1 {
                   k = $0; sub(/.*<Key>/, "", k); sub(/<\/Key>.*/, "", k)
                   v = $0; sub(/.*<VersionId>/, "", v); sub(/<\/VersionId>.*/, "", v)
                   printf "<Object><Key>%s</Key><VersionId>%s</VersionId></Object>", k, v }' <<<"$xml")
        [ -n "$body" ] || return 0
        body="<Delete><Quiet>true</Quiet>$body</Delete>"
        md5=$(printf '%s' "$body" | openssl dgst -md5 -binary | base64)
        s3curl POST "/$b?delete=" -H "Content-MD5: $md5" \
            -H "Content-Type: application/xml" --data-binary "$body" >/dev/null || return 1
    done
    return 1
}

# t_versioning BUCKET Enabled|Suspended: set the bucket's versioning (with curl).
t_versioning() {
    t_cmd s3curl PUT "/$1?versioning=" -H "Content-Type: application/xml" --data-binary \
        "<VersioningConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Status>$2</Status></VersioningConfiguration>" ||
        t_fail "could not set versioning of $1 to $2"
}

# t_store_is NAME: true when the suite runs against that store (ceph, s3emu).
t_store_is() { [ "$S3C_TEST_STORE" = "$1" ]; }

# t_emu_ops OP: how many OP requests s3emu has answered since its start (0 elsewhere).
t_emu_ops() {
    t_store_is s3emu || { echo 0; return; }
    curl -sS "$S3C_TEST_ENDPOINT/_s3emu/stats" | jq -r ".ops[\"$1\"] // 0"
}

# t_resent OP DEBUG: the OP requests a run sent again, by its --debug lines DEBUG: hedged twins
# of overdue reads (hedged freely) and retries, that a loaded machine may earn; s3emu serves
# them too.
t_resent() {
    grep -cE ": $1: (no answer after [0-9]+ ms .*: (a duplicate sent|its duplicate replaced by another)|.*; try [0-9]+ in [0-9]+ ms)$" \
        <<<"$2" || true
}

# t_assert_emu_ops OP BEFORE WANT: s3emu answered WANT OP requests since BEFORE (s3emu only).
t_assert_emu_ops() {
    t_store_is s3emu || return 0
    assert_eq "$3" "$(($(t_emu_ops "$1") - $2))" "$1 requests s3emu answered"
}

# ------------------------------------------------------------- running --

# _t_san_reports DIR: true (and the reports appended to DIR/.log) when some
# s3c of the test wrote a sanitizer report (see the top of this file).
_t_san_reports() {
    local f
    for f in "$1"/.san/*; do
        [ -s "$f" ] || continue
        echo "    FAILED: sanitizer report ${f##*/}:"
        head -n 60 "$f" | sed 's/^/      | /'
    done >> "$1/.log"
    grep -qs . "$1"/.san/*
}

# _t_checked_s3c: the path of a wrapper that runs $S3C with the checker
# preloaded (made once a run; exec keeps the pid and argv[0]).
_t_checked_s3c() {
    local w=$E2E_TMP/.checked/s3c
    if [ ! -x "$w" ]; then
        mkdir -p "${w%/*}"
        printf '#!/bin/sh\nLD_PRELOAD=%q ASAN_OPTIONS="$ASAN_OPTIONS:verify_asan_link_order=0" exec %q "$@"\n' \
            "$E2E_CHECKER" "$S3C" > "$w.$BASHPID" && chmod +x "$w.$BASHPID" && mv "$w.$BASHPID" "$w"
    fi
    echo "$w"
}

# _t_lag_reports DIR: true (and the lines added to the test's log) when an
# s3c of the test made a blocking call on a loop thread ("loop-block"), or,
# with E2E_LOOP_LAG_STRICT=1, when the probe saw one blocked ("loop-lag");
# probe lines alone are printed as a warning (see E2E_LOOP_LAG_MS above).
_t_lag_reports() {
    [ -s "$1/.lag" ] || return 1
    if [ "$E2E_LOOP_LAG_STRICT" = 1 ] || grep -q 'loop-block' "$1/.lag"; then
        {
            echo "    FAILED: a loop thread was blocked (the checker, or the probe at $E2E_LOOP_LAG_MS ms):"
            head -n 20 "$1/.lag" | sed 's/^/      | /'
        } >> "$1/.log"
        return 0
    fi
    head -n 5 "$1/.lag" | sed 's/^/        warning: /' >> "$1/.warn"
    return 1
}

# t_run INDEX NAME: run test function NAME in a subshell of its own; prints
# one result line and adds to E2E_PASSED / E2E_FAILED / E2E_SKIPPED.
t_run() {
    local index=$1 name=$2 dir rc t0 secs status b
    dir=$(mktemp -d "$E2E_TMP/$name.XXXXXX")
    t0=$EPOCHREALTIME
    (
        T_NAME=$name T_DIR=$dir T_INDEX=$index T_NBUCKETS=0 T_LAST="" T_RC=0
        # shellcheck disable=SC2034  # read by the tests
        T_OUT="" T_ERR=""
        : > "$dir/.out"; : > "$dir/.err"
        cd "$dir" || exit 1
        _t_unset_aws_env
        export HOME=$dir/home
        mkdir -p "$HOME"
        export AWS_ENDPOINT_URL=$S3C_TEST_ENDPOINT
        export AWS_ACCESS_KEY_ID=$S3C_TEST_ACCESS_KEY
        export AWS_SECRET_ACCESS_KEY=$S3C_TEST_SECRET_KEY
        export AWS_REGION=$S3C_TEST_REGION
        export AWS_EC2_METADATA_DISABLED=true AWS_PAGER=
        export TZ=UTC LC_ALL=C.UTF-8
        mkdir -p "$dir/.san"
        export ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$dir/.san/asan"
        export UBSAN_OPTIONS="$UBSAN_OPTIONS:log_path=$dir/.san/ubsan"
        export S3C_LOOP_LAG_MS=$E2E_LOOP_LAG_MS S3C_LOOP_LAG_LOG=$dir/.lag
        [ -f "$E2E_CHECKER" ] && S3C=$(_t_checked_s3c)
        "$name"
    ) > "$dir/.log" 2>&1 </dev/null
    rc=$?
    [ -e "$dir/.failed" ] && [ $rc -eq 0 ] && rc=1
    _t_san_reports "$dir" && rc=1
    _t_lag_reports "$dir" && rc=1

    if [ -s "$dir/.buckets" ] && [ "$E2E_KEEP" != 1 ]; then
        while read -r b; do
            t_purge_bucket "$b" >/dev/null 2>&1 || echo "  warning: could not remove bucket $b"
        done < "$dir/.buckets"
    fi
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')

    if [ $rc -eq 0 ]; then
        status=ok; E2E_PASSED=$((E2E_PASSED + 1))
    elif [ $rc -eq 77 ] && grep -q '[^[:space:]]' "$dir/.skipped" 2>/dev/null; then
        status=skip; E2E_SKIPPED=$((E2E_SKIPPED + 1))
    else
        [ $rc -eq 77 ] && echo "    FAILED in $name: exit 77 (skip) without a reason from t_skip" >> "$dir/.log"
        status=FAIL; E2E_FAILED=$((E2E_FAILED + 1))
        E2E_FAILED_NAMES+=("$name")
    fi
    printf '  %-5s %-44s %6ss\n' "$status" "$name" "$secs"
    [ ! -s "$dir/.warn" ] || cat "$dir/.warn"
    if [ "$status" = skip ]; then
        sed 's/^/        skipped: /' "$dir/.skipped" 2>/dev/null
    elif [ "$status" = FAIL ]; then
        sed 's/^/  /' "$dir/.log"
    fi
    [ "$E2E_KEEP" = 1 ] || rm -rf "$dir"
}

# ------------------------------------------------- files and objects (cp) --

# t_sha256 FILE: print the file's SHA-256 (hex).
t_sha256() { sha256sum < "$1" | cut -d' ' -f1; }

# t_tree_sums DIR: "SHA256  RELATIVE-PATH" for every file under DIR (hidden
# ones too, so a leftover temp file shows), sorted by path.
t_tree_sums() {
    (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum | sed 's|  \./|  |')
}

# t_data NAME SIZE: print the path of a file of SIZE random bytes, made once
# per run in a cache shared by all tests (copy it before changing it).
t_data() {
    local dir=$E2E_TMP/.data f tmp
    f=$dir/$1
    tmp=$f.$BASHPID
    mkdir -p "$dir"
    if [ ! -f "$f" ]; then
        head -c "$2" /dev/urandom > "$tmp" && mv "$tmp" "$f"
    fi
    echo "$f"
}

# t_head_header BUCKET KEY HEADER: print the value of one response header of a
# HEAD of s3://BUCKET/KEY (KEY URL-encoded as needed), or nothing.
t_head_header() {
    s3curl HEAD "/$1/$2" 2>/dev/null | tr -d '\r' |
        awk -v h="$3" 'BEGIN { h = tolower(h) ":" } tolower($1) == h { sub(/^[^:]*: ?/, ""); print; exit }'
}

# t_get BUCKET KEY FILE: download s3://BUCKET/KEY into FILE with curl.
t_get() {
    t_cmd s3curl GET "/$1/$2" -o "$3" || t_fail "could not get s3://$1/$2"
}

# t_mpu_count BUCKET: the number of multipart uploads in progress in BUCKET.
# t_copy_threshold: s3c copies S3 to S3 in parts from 8 MiB up, as the AWS CLI
# does (multipart_threshold = 8MB in the config file of the test's HOME), where
# its model of server-side copies would copy an object of up to 32 MiB in one
# CopyObject. For tests of the multipart copy path with small objects.
t_copy_threshold() {
    mkdir -p "$HOME/.aws"
    printf '[default]\ns3 =\n  multipart_threshold = 8MB\n' > "$HOME/.aws/config"
}

t_mpu_count() {
    s3curl GET "/$1?uploads=" | grep -o '<UploadId>' | wc -l
}

# ------------------------------------------------------ hostile stores --

# hp_start UPSTREAM MODES: a store of this test's own behind a relay that
# misbehaves on purpose (tests/e2e/hostile_proxy.py; MODES as its header says,
# "" for a plain relay). UPSTREAM is emu (build/s3emu, anonymous: the relay may
# rewrite what s3c signed) or moto (moto's server, an S3 model written by
# others). Sets HP_URL (the relay: s3c is pointed there through
# AWS_ENDPOINT_URL), HP_LOG (one JSON line per request the relay saw), and
# points S3C_TEST_ENDPOINT at the store itself, so awsx, s3curl and
# t_new_bucket set up and inspect it without the relay. Both stop when the
# test ends. Tests using it need no shared store: run them in one pass only.
# t_at_exit CMD: run CMD (a shell command line) when the test ends, before
# those given earlier (a bucket's clean-up before the store it is on stops).
# Tests never set an EXIT trap of their own: one would replace the others
# (a store of the test's own was left running when its test set one).
T_AT_EXIT=""
t_at_exit() {
    T_AT_EXIT="$1${T_AT_EXIT:+; $T_AT_EXIT}"
    # shellcheck disable=SC2064
    trap "$T_AT_EXIT" EXIT
}

# t_own_store emu|moto|s3rver [ACCESS-KEY SECRET-KEY]: a store of this test's own,
# stopped when the test ends: build/s3emu (anonymous, or checking signatures
# made with the keys given), moto's server (any keys) or s3rver (npm; its keys
# are S3RVER and S3RVER; its program is $S3RVER, else the one
# tests/run-all.sh installs under build/npm), on a free port. Sets OWN_URL.
# (hp_start puts the hostile relay in front of one.)
t_own_store() {
    local kind=$1 i out=$T_DIR/.own-$1.$RANDOM.out
    OWN_URL=""
    case $kind in
        emu)
            if [ -n "${2:-}" ]; then
                "$E2E_ROOT/build/s3emu" --port 0 --access-key "$2" --secret-key "$3" > "$out" 2>&1 &
            else
                "$E2E_ROOT/build/s3emu" --port 0 --anonymous > "$out" 2>&1 &
            fi
            ;;
        moto)
            command -v moto_server >/dev/null ||
                t_skip "moto_server is not on PATH (it comes with the machine image's Python)"
            moto_server -p 0 > "$out" 2>&1 &
            ;;
        s3rver)
            local bin=${S3RVER:-$E2E_ROOT/build/npm/node_modules/.bin/s3rver}
            [ -x "$bin" ] || t_skip "no s3rver at $bin (tests/run-all.sh installs it with npm; or set S3RVER)"
            mkdir -p "$T_DIR/.s3rver"
            "$bin" -d "$T_DIR/.s3rver" -a 127.0.0.1 -p 0 --no-vhost-buckets > "$out" 2>&1 &
            ;;
        *) t_fail "t_own_store: unknown store '$kind'" ;;
    esac
    HP_PIDS="${HP_PIDS:-} $!"
    t_at_exit "kill $! 2>/dev/null"
    for ((i = 0; i < 200; i++)); do
        OWN_URL=$(sed -nE 's/^ready (http:\/\/[^ ]+).*/\1/p; s/.*Running on (http:\/\/127[^ ]+).*/\1/p;
            s/.*S3rver listening on (127[^ ]+).*/http:\/\/\1/p' "$out" 2>/dev/null | head -n 1)
        [ -n "$OWN_URL" ] && break
        sleep 0.05
    done
    [ -n "$OWN_URL" ] || t_fail "t_own_store: the $kind store did not start: $(tail -n 3 "$out")"
}

# t_own_emu: an s3emu of this test's own (t_own_store emu) that the suite's
# helpers (awsx, s3curl, t_new_bucket, t_emu_ops) and s3c use from then on: for
# tests that change settings of the whole emulator (t_emu_set).
t_own_emu() {
    t_own_store emu
    # shellcheck disable=SC2034  # read by lib.sh (awsx, s3curl, t_store_is)
    S3C_TEST_ENDPOINT=$OWN_URL S3C_TEST_STORE=s3emu
    export AWS_ENDPOINT_URL=$OWN_URL
}

# t_emu_set SETTING=VALUE[&...]: change s3emu's model (POST /_s3emu/config), or fail.
t_emu_set() {
    curl -sS --fail-with-body -X POST --data-binary "$1" "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null ||
        t_fail "s3emu refused $1"
}

hp_start() {
    local modes=$2 i up
    t_own_store "$1"
    up=$OWN_URL
    HP_LOG=$T_DIR/.hp-relay.log
    : > "$HP_LOG"
    python3 "$E2E_ROOT/tests/e2e/hostile_proxy.py" "$up" "$modes" "$HP_LOG" > "$T_DIR/.hp-relay.out" 2>&1 &
    HP_PIDS="$HP_PIDS $!"
    t_at_exit "kill $! 2>/dev/null"
    HP_URL=""
    for ((i = 0; i < 200; i++)); do
        HP_URL=$(sed -n 's/^ready //p' "$T_DIR/.hp-relay.out")
        [ -n "$HP_URL" ] && break
        sleep 0.05
    done
    [ -n "$HP_URL" ] || t_fail "hp_start: the relay did not start: $(cat "$T_DIR/.hp-relay.out")"
    S3C_TEST_ENDPOINT=$up
    export AWS_ENDPOINT_URL=$HP_URL
}

# hp_count JQ-FILTER: how many requests in HP_LOG match (e.g.
# 'select(.method == "DELETE")').
hp_count() { jq -c "$1" "$HP_LOG" | wc -l; }
