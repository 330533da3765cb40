# tests/e2e/test_cp_keylist_inflight.sh — issue 24 item 1: a plain key list
# (cp/mv/sync --from-manifest with keys and no sizes) learns each source's
# size, time and ETag by a HEAD in flight (an engine request, RK_HEAD_SOURCE),
# not one blocking HEAD after another on the planning thread. One HEAD per
# key, no more (the family takes it as its own); a missing key ends with the
# line, record and exit code it always had; -n & co. look at the destination
# after the source.
# shellcheck shell=bash

# _kl_ops OP: how many OP requests s3emu has answered since its start (0 elsewhere).
_kl_ops() {
    t_store_is s3emu || { echo 0; return; }
    curl -sS "$S3C_TEST_ENDPOINT/_s3emu/stats" | jq -r ".ops[\"$1\"] // 0"
}

# _kl_mark: remember every count _kl_assert compares with.
_kl_mark() {
    local op
    for op in HeadObject HeadBucket GetObject CopyObject ListObjectsV2 PutObject; do
        eval "_kl_at_$op=$(_kl_ops "$op")"
    done
}

# _kl_s3c EXIT ARGS...: s3c --debug ARGS, which must exit EXIT. T_ERR keeps its lines but the
# debug ones (kept in _KL_DEBUG for _kl_resent).
_kl_s3c() {
    local want=$1
    shift
    assert_exit "$want" s3c --debug "$@"
    _KL_DEBUG=$T_ERR
    T_ERR=$(grep -v '^s3c: debug: ' <<<"$T_ERR" || true)
}

# _kl_resent OP: the OP requests the last _kl_s3c run sent again, which s3emu serves too: hedged
# twins of overdue reads (hedged freely) and retries, that a loaded machine may earn.
_kl_resent() { t_resent "$1" "${_KL_DEBUG:-}"; }

# _kl_assert OP WANT: s3emu answered WANT OP requests since _kl_mark, less those the last
# _kl_s3c run sent again (s3emu only).
_kl_assert() {
    t_store_is s3emu || return 0
    local at="_kl_at_$1"
    assert_eq "$2" "$(($(_kl_ops "$1") - ${!at} - $(_kl_resent "$1")))" "$1 requests s3emu answered (less those sent again)"
}

_kl_sorted() { LC_ALL=C sort <<<"$1"; }

# _kl_seed BUCKET N: N small keys m/kI holding "key I", and keys.txt listing them with
# m/missing in the middle.
_kl_seed() {
    local i
    mkdir -p seed
    for i in $(seq 1 "$2"); do printf 'key %s' "$i" > "seed/k$i"; done
    assert_ok s3c cp -r seed "s3://$1/m/"
    for i in $(seq 1 "$2"); do
        echo "m/k$i"
        [ "$i" = 3 ] && echo "m/missing"
    done > keys.txt
}

# Twenty keys and one missing, to a directory and to a bucket: one HeadObject a
# key, one HeadBucket for the missing one (NoSuchKey, as before), no listing,
# and the missing key's line names the destination argument, as it always did.
test_cp_keylist_heads_each_key_once() {
    local b c i want=""
    t_new_bucket b
    t_new_bucket c
    _kl_seed "$b" 20
    for i in $(seq 1 20); do want+="download: s3://$b/m/k$i to dl/k$i"$'\n'; done
    _kl_mark
    _kl_s3c 1 cp --from-manifest keys.txt "s3://$b/m/" dl/
    assert_eq "$(_kl_sorted "${want%$'\n'}")" "$(_kl_sorted "$T_OUT")" "stdout"
    assert_eq "download failed: s3://$b/m/missing to dl/ An error occurred (NoSuchKey) when calling the HeadObject operation: The specified key does not exist." \
        "$T_ERR" "the missing key's line"
    _kl_assert HeadObject 21
    _kl_assert HeadBucket 1
    _kl_assert GetObject 20
    _kl_assert ListObjectsV2 0
    for i in 1 4 20; do assert_eq "key $i" "$(cat "dl/k$i")" "dl/k$i"; done
    # S3 to S3, as --json records.
    _kl_mark
    _kl_s3c 1 cp --json --from-manifest keys.txt "s3://$b/m/" "s3://$c/k/"
    assert_eq 20 "$(jq -c 'select(.success and .size >= 5)' <<<"$T_OUT" | grep -c .)" "copy records with their sizes"
    assert_eq "{\"operation\":\"copy\",\"success\":false,\"source\":\"s3://$b/m/missing\",\"destination\":\"s3://$c/k/\",\"size\":0,\"error\":\"The specified key does not exist.\",\"error_code\":\"NoSuchKey\",\"error_operation\":\"HeadObject\",\"http_status\":404}" \
        "$(jq -c 'select(.success | not)' <<<"$T_OUT")" "the missing key's record"
    _kl_assert HeadObject 21
    _kl_assert HeadBucket 1
    _kl_assert CopyObject 20
    _kl_assert ListObjectsV2 0
    _kl_text "$c" k/k7 "key 7"
    # A bucket that is not there: every key says so (NoSuchBucket), exit 1.
    assert_exit 1 s3c cp --from-manifest keys.txt "s3://$b-none/m/" dl2/
    assert_eq 21 "$(grep -c 'NoSuchBucket' <<<"$T_ERR")" "NoSuchBucket lines"
}

# _kl_text BUCKET KEY TEXT: s3://BUCKET/KEY holds TEXT.
_kl_text() {
    t_get "$1" "$2" "$T_DIR/.got"
    assert_eq "$3" "$(cat "$T_DIR/.got")" "content of s3://$1/$2"
}

# mv from a key list: the keys that moved are gone, the missing one is said, exit 1.
test_mv_keylist_in_flight() {
    local b c
    t_new_bucket b
    t_new_bucket c
    _kl_seed "$b" 6
    _kl_mark
    _kl_s3c 1 mv --from-manifest keys.txt "s3://$b/m/" "s3://$c/mv/"
    assert_lines 6 "$T_OUT" "move lines"
    assert_contains "$T_ERR" "move failed: s3://$b/m/missing to s3://$c/mv/ An error occurred (NoSuchKey)"
    _kl_assert HeadObject 7
    _kl_assert CopyObject 6
    assert_eq "" "$(t_list_keys "$b" | grep '^m/k' || true)" "sources left"
    assert_eq 6 "$(t_list_keys "$c" | grep -c '^mv/k')" "keys moved"
}

# -n, --if-size-differ, --if-source-newer with a key list: the source's HEAD first (its size and
# time), then the destination's (S3) or a stat (local); what is skipped is what a listing skips.
test_cp_keylist_destination_flags_after_the_source() {
    local b c i
    t_new_bucket b
    t_new_bucket c
    _kl_seed "$b" 10
    grep -v missing keys.txt > present.txt
    # S3 to S3 under -n, four destinations there already: a HEAD of each source and of each
    # destination, six copies, the four left as they were.
    for i in 1 2 3 4; do t_put_text "$c" "k/k$i" "old $i"; done
    _kl_mark
    _kl_s3c 0 cp -n --from-manifest present.txt "s3://$b/m/" "s3://$c/k/"
    assert_lines 6 "$T_OUT" "copies under -n"
    _kl_assert HeadObject 20
    _kl_assert CopyObject 6
    _kl_text "$c" k/k2 "old 2"
    _kl_text "$c" k/k5 "key 5"
    # --if-size-differ: "old 1" (5 bytes) is the size of "key 1": skipped; "old 10"... k10 is
    # new. Make k3's destination another size: copied.
    t_put_text "$c" k/k3 "older 3"
    _kl_mark
    _kl_s3c 0 cp --if-size-differ --from-manifest present.txt "s3://$b/m/" "s3://$c/k/"
    assert_eq "copy: s3://$b/m/k3 to s3://$c/k/k3" "$T_OUT" "only the other size is copied"
    _kl_assert HeadObject 20
    _kl_assert CopyObject 1
    _kl_text "$c" k/k3 "key 3"
    _kl_text "$c" k/k1 "old 1"
    # To a directory under -n: three files there; a HEAD of each source, no more, seven GETs.
    mkdir -p dl
    for i in 1 2 3; do printf 'local %s' "$i" > "dl/k$i"; done
    _kl_mark
    _kl_s3c 0 cp -n --from-manifest present.txt "s3://$b/m/" dl/
    assert_lines 7 "$T_OUT" "downloads under -n"
    _kl_assert HeadObject 10
    _kl_assert GetObject 7
    assert_eq "local 2" "$(cat dl/k2)" "dl/k2 kept"
    assert_eq "key 9" "$(cat dl/k9)" "dl/k9"
    # --if-source-newer to a directory: k1 older than its source goes, k2 from the future stays.
    touch -d '2001-01-01' dl/k1
    touch -d '2099-01-01' dl/k2
    assert_ok s3c cp --if-source-newer --from-manifest present.txt "s3://$b/m/" dl/
    assert_contains "$T_OUT" "download: s3://$b/m/k1 to dl/k1"
    assert_not_contains "$T_OUT" "dl/k2"
    assert_eq "key 1" "$(cat dl/k1)" "dl/k1 replaced"
    assert_eq "local 2" "$(cat dl/k2)" "dl/k2 kept"
    # A missing key under -n still says it is missing (the source first).
    _kl_mark
    _kl_s3c 1 cp -n --from-manifest keys.txt "s3://$b/m/" dl/
    assert_eq "" "$T_OUT" "nothing new to download"
    assert_contains "$T_ERR" "download failed: s3://$b/m/missing to dl/ An error occurred (NoSuchKey)"
    _kl_assert HeadObject 11
    _kl_assert GetObject 0
}

# An object past the multipart threshold in a key list: the key's HEAD is the one the ranged
# download (or the copy in parts) would have made; it makes no second.
test_cp_keylist_large_object_one_head() {
    local b c listed keyed
    t_new_bucket b
    t_new_bucket c
    cp "$(t_data 9MiB $((9 * 1024 * 1024)))" big
    assert_ok s3c cp big "s3://$b/m/big"
    echo m/big > big.txt
    _kl_mark
    _kl_s3c 0 cp -r "s3://$b/m/" listed/
    listed=$(($(_kl_ops HeadObject) - _kl_at_HeadObject - $(_kl_resent HeadObject)))
    _kl_mark
    _kl_s3c 0 cp --from-manifest big.txt "s3://$b/m/" keyed/
    keyed=$(($(_kl_ops HeadObject) - _kl_at_HeadObject - $(_kl_resent HeadObject)))
    cmp -s big keyed/big || t_fail "keyed/big differs"
    t_store_is s3emu && assert_eq "$listed" "$keyed" "HEADs of a key list's download (as a listed one's)"
    _kl_mark
    _kl_s3c 0 cp -r "s3://$b/m/" "s3://$c/l/" --part-size 8MiB
    listed=$(($(_kl_ops HeadObject) - _kl_at_HeadObject - $(_kl_resent HeadObject)))
    _kl_mark
    _kl_s3c 0 cp --from-manifest big.txt "s3://$b/m/" "s3://$c/k/" --part-size 8MiB
    keyed=$(($(_kl_ops HeadObject) - _kl_at_HeadObject - $(_kl_resent HeadObject)))
    t_store_is s3emu && assert_eq "$listed" "$keyed" "HEADs of a key list's copy in parts (as a listed one's)"
    t_get "$c" k/big got
    cmp -s big got || t_fail "the copy differs"
}

# sync from a key list: the keys the destination lacks are HEADed in flight and copied; the
# missing one says so as before (sync's line: no HeadBucket); a second sync sends no HEAD.
test_sync_keylist_in_flight() {
    local b i want=""
    t_new_bucket b
    _kl_seed "$b" 12
    for i in $(seq 1 12); do want+="download: s3://$b/m/k$i to sd/k$i"$'\n'; done
    _kl_mark
    _kl_s3c 1 sync --from-manifest keys.txt "s3://$b/m/" sd
    assert_eq "$(_kl_sorted "${want%$'\n'}")" "$(_kl_sorted "$T_OUT")" "stdout"
    assert_eq "download failed: s3://$b/m/missing to sd/missing An error occurred (404) when calling the HeadObject operation: Not Found" \
        "$T_ERR" "the missing key's line"
    _kl_assert HeadObject 13
    _kl_assert HeadBucket 0
    _kl_assert GetObject 12
    assert_eq "key 12" "$(cat sd/k12)" "sd/k12"
    # The files carry the source's time: the same key listed again finds nothing to do.
    assert_ok s3c sync "s3://$b/m/" sd
    assert_eq "" "$T_OUT" "a listed sync after it"
    _kl_mark
    grep -v missing keys.txt > present.txt
    _kl_s3c 0 sync --from-manifest present.txt "s3://$b/m/" sd
    assert_eq "" "$T_OUT" "a second sync from the key list"
    _kl_assert HeadObject 0
    _kl_assert GetObject 0
}

# _kl_secs CMD...: run CMD (assert_ok), print its wall seconds (two decimals).
_kl_secs() {
    local t0 t1
    t0=$(date +%s%N)
    assert_ok "$@"
    t1=$(date +%s%N)
    echo "scale=2; ($t1 - $t0) / 1000000000" | bc
}

# The HEADs overlap: 40 keys at 200 ms first-byte latency, one after another, would take 8 s of
# HEADs alone (the old planning thread's way); in flight, a few round trips. An s3emu of the
# test's own, so that its latency slows no other test. The bound is half the serial floor.
test_keylist_heads_overlap() {
    local b c i s
    t_store_is s3emu || t_skip "runs once, in the s3emu pass"
    t_own_store emu
    # shellcheck disable=SC2034  # read by lib.sh (awsx, s3curl, t_store_is)
    S3C_TEST_ENDPOINT=$OWN_URL
    export AWS_ENDPOINT_URL=$OWN_URL
    t_new_bucket b
    t_new_bucket c
    _kl_seed "$b" 40
    grep -v missing keys.txt > present.txt
    curl -sSf -X POST --data "latency_ms=200" "$OWN_URL/_s3emu/config" >/dev/null || t_fail "s3emu refused latency_ms"
    for i in 1 2 3; do
        case $i in
            1) s=$(_kl_secs s3c cp --from-manifest present.txt "s3://$b/m/" dl/) ;;
            2) s=$(_kl_secs s3c cp --from-manifest present.txt "s3://$b/m/" "s3://$c/k/") ;;
            3) s=$(_kl_secs s3c sync --from-manifest present.txt "s3://$b/m/" sd) ;;
        esac
        t_note "key list run $i: ${s} s"
        [ "$(echo "$s < 4" | bc)" = 1 ] || t_fail "run $i took $s s: the source HEADs went one by one"
    done
    assert_eq 40 "$(find dl -type f | grep -c /k)" "files downloaded"
    assert_eq 40 "$(find sd -type f | grep -c /k)" "files synced"
    assert_eq 40 "$(t_list_keys "$c" | grep -c '^k/k')" "keys copied"
}

# SSE-C sources in a key list: the source's HEAD carries the source's key (a download's own
# --sse-c-key, a copy's --sse-c-copy-source-key); a wrong key is that key's refusal, as before.
test_cp_keylist_sse_c_sources() {
    local b c k1=0123456789abcdef0123456789abcdef k2=fedcba9876543210fedcba9876543210
    t_store_is ceph && t_skip "Ceph 16 refuses copies of SSE-C sources (test_cp_sse_c_copy_source)"
    t_new_bucket b
    t_new_bucket c
    cp "$(t_data 1KB 1000)" small
    assert_ok s3c cp small "s3://$b/m/small" --sse-c-key "$k1"
    assert_ok s3c cp small "s3://$b/m/other" --sse-c-key "$k1"
    printf 'm/small\nm/other\n' > keys.txt
    _kl_mark
    _kl_s3c 0 cp --from-manifest keys.txt "s3://$b/m/" dl/ --sse-c-key "$k1"
    _kl_assert HeadObject 2
    cmp -s small dl/small || t_fail "dl/small differs"
    assert_ok s3c cp --from-manifest keys.txt "s3://$b/m/" "s3://$c/k/" --sse-c-copy-source-key "$k1" \
        --sse-c-key "$k2"
    assert_ok s3c cp "s3://$c/k/other" got --sse-c-key "$k2"
    cmp -s small got || t_fail "the copy differs"
    # The wrong key: each key refused, exit 1, nothing downloaded (moto checks no SSE-C key).
    t_store_is moto && return 0
    assert_exit 1 s3c cp --from-manifest keys.txt "s3://$b/m/" dl2/ --sse-c-key "$k2"
    assert_lines 2 "$T_ERR" "a line per refused key"
    assert_contains "$T_ERR" "download failed: s3://$b/m/small to dl2/"
    [ ! -e dl2 ] || [ -z "$(ls -A dl2)" ] || t_fail "a file was downloaded with the wrong key"
}
