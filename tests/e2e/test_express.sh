# tests/e2e/test_express.sh — issue 13: S3 Express One Zone directory buckets
# (BASE--ZONEID--x-s3) in every verb, on s3emu's Express mode (Ceph has no
# directory buckets: skipped there). CreateSession is counted in s3emu's
# stats (ops.CreateSession) and in s3c's --stat ("session" row); sessions are
# made to expire every few seconds (s3emu's express_session_s) so that one run
# crosses several of them. Every download is compared byte for byte with its
# source here, besides the CRC s3c checks itself.
# shellcheck shell=bash

_x_need_emu() { t_store_is s3emu || t_skip "directory buckets need s3emu's Express mode"; }

# _x_bucket VAR TAG: a unique directory bucket name in zone use1-az4 (not created).
_x_bucket() {
    local name="x$E2E_RUN_ID-$T_INDEX-$2--use1-az4--x-s3"
    printf -v "$1" '%s' "${name:0:63}"
    echo "$name" >> "$T_DIR/.xbuckets"
}

# _x_cleanup: remove the test's directory buckets, put s3emu's settings back.
_x_cleanup() {
    local b
    while read -r b; do
        "$S3C" rb --force "s3://$b" >/dev/null 2>&1
    done < "$T_DIR/.xbuckets" 2>/dev/null
    curl -sS -X POST "$S3C_TEST_ENDPOINT/_s3emu/config" \
        -d 'express_session_s=300&express_session_required=1' >/dev/null 2>&1
}

# _x_file PATH SIZE: a file of SIZE random bytes.
_x_file() { head -c "$2" /dev/urandom > "$1"; }

_x_stat() { curl -sS "$S3C_TEST_ENDPOINT/_s3emu/stats" | jq -r "$1"; }
_x_config() { curl -sS -f -X POST "$S3C_TEST_ENDPOINT/_s3emu/config" -d "$1" >/dev/null || t_fail "s3emu refused $1"; }

# _x_tree DIR: 12 files of a few KB to 200 KB in three levels, and one of 12 MB (multipart).
_x_tree() {
    local i
    mkdir -p "$1/a/b" "$1/c"
    for i in 1 2 3 4; do
        _x_file "$1/f$i" $((i * 3000 + 7))
        _x_file "$1/a/g$i" $((i * 50000))
        _x_file "$1/a/b/h$i" $((i * 17))
    done
    _x_file "$1/c/big" $((12 * 1024 * 1024 + 5))
}

test_express_bucket_life_sync_ls_rm() {
    local b n0
    _x_need_emu
    t_at_exit _x_cleanup
    _x_bucket b life
    n0=$(_x_stat '.ops.CreateSession // 0')
    # mb: a directory bucket through the control endpoint (no session needed).
    assert_ok s3c mb "s3://$b"
    assert_eq "make_bucket: $b" "$T_OUT" "mb"
    assert_eq "$n0" "$(_x_stat '.ops.CreateSession // 0')" "CreateSession for mb"
    # Listed by ListDirectoryBuckets, not by ListBuckets.
    assert_ok s3c ls --directory-buckets
    assert_contains "$T_OUT" " $b"
    assert_ok s3c ls
    assert_not_contains "$T_OUT" "$b"
    # sync up: one session for the whole run, counted by s3emu and by --stat.
    _x_tree src
    assert_ok s3c sync --stat src "s3://$b/tree/"
    assert_contains "$T_OUT" "upload: src/c/big to s3://$b/tree/c/big"
    assert_match "$T_OUT" "session +1 +0 +1 "
    assert_eq "$((n0 + 1))" "$(_x_stat '.ops.CreateSession // 0')" "CreateSession after sync up"
    # Nothing to do the second time (the listing, unsorted, was sorted first).
    assert_ok s3c sync src "s3://$b/tree/"
    assert_eq "" "$T_OUT" "second sync up"
    # ls: in key order although the store lists in none; PRE lines first.
    assert_ok s3c ls --recursive "s3://$b/tree/"
    assert_eq "13" "$(wc -l <<<"$T_OUT")" "ls -r line count"
    assert_eq "$(awk '{print $4}' <<<"$T_OUT" | LC_ALL=C sort)" "$(awk '{print $4}' <<<"$T_OUT")" "ls -r order"
    assert_ok s3c ls "s3://$b/tree/a/"
    assert_eq "                           PRE b/" "$(head -n 1 <<<"$T_OUT")" "ls PRE first"
    assert_eq "g1 g2 g3 g4" "$(awk 'NR > 1 {print $4}' <<<"$T_OUT" | xargs)" "ls a/"
    # A prefix that is not a directory: the store takes only ones ending in '/'.
    assert_ok s3c ls "s3://$b/tree/a/g"
    assert_eq "g1 g2 g3 g4" "$(awk '{print $4}' <<<"$T_OUT" | xargs)" "ls a/g"
    assert_ok s3c du "s3://$b/tree/"
    assert_eq "$(du -cb --apparent-size src/f* src/a/g* src/a/b/h* src/c/big | tail -n 1 | cut -f1) bytes in 13 objects: s3://$b/tree/" "$T_OUT" "du"
    # sync down: every byte checked against the CRC the bucket stores.
    assert_ok s3c --debug sync "s3://$b/tree/" dst
    assert_eq "13" "$(grep -c 'verified: CRC64NVME' <<<"$T_ERR")" "objects verified by their stored CRC"
    assert_not_contains "$(grep -v "(no MD5)" <<<"$T_ERR")" "MD5" "an MD5 check of a directory bucket's object"
    assert_eq "$(t_tree_sums src)" "$(t_tree_sums dst)" "downloaded tree"
    # cat, head: a ReadOnly session (the bucket is only read).
    assert_ok s3c --debug cat "s3://$b/tree/f1"
    assert_eq "$(t_sha256 src/f1)" "$(s3c cat "s3://$b/tree/f1" | sha256sum | cut -d' ' -f1)" "cat"
    assert_contains "$T_ERR" "(ReadOnly)"
    assert_ok s3c head "s3://$b/tree/f2"
    assert_contains "$T_OUT" '"StorageClass":"EXPRESS_ONEZONE"'
    # rm: one object, then a "directory" (its prefix goes with its last object).
    assert_ok s3c rm "s3://$b/tree/f1"
    assert_eq "delete: s3://$b/tree/f1" "$T_OUT" "rm one"
    assert_ok s3c rm --recursive "s3://$b/tree/a/"
    assert_eq "8" "$(grep -c '^delete: ' <<<"$T_OUT")" "rm --recursive a/"
    assert_ok s3c ls "s3://$b/tree/"
    assert_not_contains "$T_OUT" "PRE a/"
    # rb: refused while objects remain, then --force.
    assert_exit 1 s3c rb "s3://$b"
    assert_contains "$T_ERR" "BucketNotEmpty"
    assert_ok s3c rb --force "s3://$b"
    assert_contains "$T_OUT" "remove_bucket: $b"
    assert_ok s3c ls --directory-buckets
    assert_not_contains "$T_OUT" "$b"
}

test_express_sessions_expire_during_a_long_run() {
    local b n0 e0 got
    _x_need_emu
    t_at_exit _x_cleanup
    _x_bucket b long
    assert_ok s3c mb "s3://$b"
    mkdir src
    for i in $(seq 1 24); do _x_file "src/f$i" 1000000; done
    _x_file src/big 16000000
    # Sessions of 4 s (refreshed ahead from 2 s on); about 13 s of transfer each
    # way with two requests at a time, so requests keep being signed throughout.
    _x_config 'express_session_s=4'
    n0=$(_x_stat '.ops.CreateSession // 0')
    e0=$(_x_stat '.status["4xx"]')
    assert_ok s3c --debug sync --concurrency 2 --bwlimit 3MB/s --stat src "s3://$b/"
    got=$(( $(_x_stat '.ops.CreateSession // 0') - n0 ))
    [ "$got" -ge 4 ] || t_fail "only $got CreateSession in a run crossing 3 session lifetimes"
    # s3c's own count: a refresh ahead may still be on its way when the
    # table is printed (the store then counts one more).
    assert_match "$T_OUT" "session +($got|$((got - 1))) +0 +($got|$((got - 1))) "
    assert_eq "$e0" "$(_x_stat '.status["4xx"]')" "requests refused (none: sessions replaced before they expire)"
    assert_not_contains "$T_ERR" "try 2"
    n0=$(_x_stat '.ops.CreateSession // 0')
    assert_ok s3c --debug sync --concurrency 2 --bwlimit 3MB/s "s3://$b/" dst
    got=$(( $(_x_stat '.ops.CreateSession // 0') - n0 ))
    [ "$got" -ge 4 ] || t_fail "only $got CreateSession downloading across 3 session lifetimes"
    assert_contains "$T_ERR" "(ReadOnly)"
    assert_eq "25" "$(grep -c 'verified: CRC64NVME' <<<"$T_ERR")" "objects verified by their stored CRC"
    assert_eq "$(t_tree_sums src)" "$(t_tree_sums dst)" "downloaded tree"
    assert_eq "$e0" "$(_x_stat '.status["4xx"]')" "requests refused"
}

test_express_mixed_standard_sync_both_ways() {
    local std x n0
    _x_need_emu
    t_at_exit _x_cleanup
    t_new_bucket std std
    _x_bucket x mixed
    assert_ok s3c mb "s3://$x"
    _x_tree src
    assert_ok s3c sync src "s3://$std/s/"
    # Standard -> Express: server-side copies into the directory bucket.
    n0=$(_x_stat '.ops.CopyObject // 0')
    assert_ok s3c sync "s3://$std/s/" "s3://$x/e/"
    assert_eq "13" "$(grep -c '^copy: ' <<<"$T_OUT")" "copies into Express"
    [ "$(_x_stat '.ops.CopyObject // 0')" -gt "$n0" ] || t_fail "no CopyObject"
    assert_ok s3c sync "s3://$std/s/" "s3://$x/e/"
    assert_eq "" "$T_OUT" "second Standard -> Express sync"
    # Express -> Standard, and back down from there.
    assert_ok s3c sync "s3://$x/e/" "s3://$std/back/"
    assert_eq "13" "$(grep -c '^copy: ' <<<"$T_OUT")" "copies out of Express"
    assert_ok s3c sync "s3://$std/back/" dst
    assert_eq "$(t_tree_sums src)" "$(t_tree_sums dst)" "tree after Standard -> Express -> Standard"
    # A change on one side only: sync --delete both ways agrees with it.
    assert_ok s3c rm "s3://$x/e/f2"
    assert_ok s3c sync --delete "s3://$x/e/" "s3://$std/back/"
    assert_eq "delete: s3://$std/back/f2" "$T_OUT" "sync --delete Express -> Standard"
    # cp and mv across kinds, one object each way.
    assert_ok s3c cp "s3://$std/s/f3" "s3://$x/one"
    assert_ok s3c mv "s3://$x/one" "s3://$std/moved"
    assert_ok s3c cat "s3://$std/moved"
    assert_eq "$(t_sha256 src/f3)" "$(s3c cat "s3://$std/moved" | sha256sum | cut -d' ' -f1)" "moved object"
    assert_exit 1 s3c ls "s3://$x/one"
    # A presigned URL of a directory bucket's object works for its whole life.
    assert_ok s3c presign "s3://$x/e/f1" --expires-in 600
    assert_contains "$T_OUT" "%2Fs3express%2Faws4_request"
    assert_eq "$(t_sha256 src/f1)" "$(curl -sS -f "$T_OUT" | sha256sum | cut -d' ' -f1)" "presigned GET"
}

test_express_refused_flags_and_no_session_auth() {
    local b r0
    _x_need_emu
    t_at_exit _x_cleanup
    _x_bucket b flags
    assert_ok s3c mb "s3://$b"
    _x_file f 1000
    r0=$(_x_stat '.requests')
    # Refused before any request is sent, with exit 2.
    assert_exit 252 s3c cp --acl public-read f "s3://$b/k"
    assert_contains "$T_ERR" "--acl cannot be used with the S3 Express directory bucket $b"
    assert_exit 252 s3c cp --storage-class STANDARD_IA f "s3://$b/k"
    assert_contains "$T_ERR" "EXPRESS_ONEZONE"
    assert_exit 252 s3c sync --sse-c AES256 --sse-c-key 0123456789abcdef0123456789abcdef . "s3://$b/"
    assert_exit 252 s3c cp --request-payer requester "s3://$b/k" out
    assert_exit 252 s3c rm --version-id abc "s3://$b/k"
    assert_exit 252 s3c rm --recursive --all-versions "s3://$b/"
    assert_exit 252 s3c ls --all-versions "s3://$b/"
    assert_exit 252 s3c du --all-versions "s3://$b/"
    assert_eq "$r0" "$(_x_stat '.requests')" "requests sent by refused commands"
    # EXPRESS_ONEZONE and bucket-owner-full-control are what a directory bucket takes.
    assert_ok s3c cp --storage-class EXPRESS_ONEZONE --acl bucket-owner-full-control f "s3://$b/k"
    # The one version id a directory bucket takes: "null" (issue 23 item 3).
    assert_ok s3c cp --version-id null "s3://$b/k" got-null
    cmp -s f got-null || t_fail "cp --version-id null of a directory bucket's object differs"
    assert_ok s3c head --version-id null "s3://$b/k"
    # s3_disable_express_session_auth: IAM keys signed for s3express, no CreateSession.
    _x_config 'express_session_required=0'
    r0=$(_x_stat '.ops.CreateSession // 0')
    AWS_S3_DISABLE_EXPRESS_SESSION_AUTH=true assert_ok s3c cp f "s3://$b/k2"
    AWS_S3_DISABLE_EXPRESS_SESSION_AUTH=true assert_ok s3c cp "s3://$b/k2" back
    cmp -s f back || t_fail "downloaded bytes differ"
    mkdir -p "$HOME/.aws"
    printf '[default]\ns3_disable_express_session_auth = true\n' > "$HOME/.aws/config"
    assert_ok s3c ls "s3://$b/"
    assert_eq "$r0" "$(_x_stat '.ops.CreateSession // 0')" "CreateSession with session auth disabled"
    rm "$HOME/.aws/config"
    # The store demands sessions again: IAM-signed object requests are refused.
    _x_config 'express_session_required=1'
    AWS_S3_DISABLE_EXPRESS_SESSION_AUTH=true assert_exit 254 s3c ls "s3://$b/"
    assert_contains "$T_ERR" "AccessDenied"
    AWS_S3_DISABLE_EXPRESS_SESSION_AUTH=maybe assert_exit 253 s3c ls "s3://$b/"
}

# Issue 23 item 11: a directory bucket's name on a store without S3 Express
# (moto: it creates the bucket, then answers CreateSession with a listing):
# the failure says so, with ls's and cp's own exit codes, not an XML error's 255.
test_express_name_on_a_store_without_express_moto() {
    local b=s3ctest--use1-az4--x-s3
    t_own_store moto
    # shellcheck disable=SC2034  # read by lib.sh (awsx, s3curl, t_store_is)
    S3C_TEST_ENDPOINT=$OWN_URL S3C_TEST_STORE=moto
    export AWS_ENDPOINT_URL=$OWN_URL
    printf x > f
    assert_ok s3c mb "s3://$b"
    assert_exit 254 s3c ls "s3://$b/"
    assert_contains "$T_ERR" "does not speak S3 Express One Zone"
    assert_exit 1 s3c cp f "s3://$b/k"
    assert_contains "$T_ERR" "does not speak S3 Express One Zone"
}
