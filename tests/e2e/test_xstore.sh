# tests/e2e/test_xstore.sh — issue 25: copy and sync between two stores, each
# side with its own settings and keys.
# shellcheck shell=bash
#
# The source is the suite's store (s3emu or Ceph RGW), read with a profile of
# its own (--source-profile, --source-endpoint-url); the destination is an
# s3emu of the test's own with other keys (the global flags and the
# environment's keys). Neither side's keys work on the other, so nothing but
# the bytes going through s3c can make the copy: every byte is compared, and
# the destination's request counts are exact.

XS_KEY=xstoredestkey0000001
XS_SECRET='xstore/dest/secret/key/00000000000000000'

# Both sides' settings: the source's as profile "src" of the test's own config
# (the suite store's keys), the destination's in the environment. Sets XS_DST
# (the destination's URL) and XS_SRC_FLAGS.
_xs_setup() {
    t_own_store emu "$XS_KEY" "$XS_SECRET"
    XS_DST=$OWN_URL
    mkdir -p "$HOME/.aws"
    printf '[src]\naws_access_key_id = %s\naws_secret_access_key = %s\n[wrong]\naws_access_key_id = %s\naws_secret_access_key = %s\n' \
        "$S3C_TEST_ACCESS_KEY" "$S3C_TEST_SECRET_KEY" "$XS_KEY" "$XS_SECRET" > "$HOME/.aws/credentials"
    printf '[profile src]\nregion = %s\n[profile wrong]\nregion = %s\n' "$S3C_TEST_REGION" "$S3C_TEST_REGION" \
        > "$HOME/.aws/config"
    export AWS_ACCESS_KEY_ID=$XS_KEY AWS_SECRET_ACCESS_KEY=$XS_SECRET AWS_ENDPOINT_URL=$XS_DST
    XS_SRC_FLAGS=(--source-profile src --source-endpoint-url "$S3C_TEST_ENDPOINT")
}

# _xs_dst METHOD PATH [CURL-ARGS...]: one signed request to the destination store.
_xs_dst() {
    local m=$1 p=$2; shift 2
    curl -sS --fail-with-body --max-time "$E2E_CMD_TIMEOUT" -X "$m" --aws-sigv4 "aws:amz:$S3C_TEST_REGION:s3" \
        --user "$XS_KEY:$XS_SECRET" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@" "$XS_DST$p"
}

# _xs_dst_ops OP: how many OP requests the destination answered so far.
_xs_dst_ops() { curl -sS "$XS_DST/_s3emu/stats" | jq -r ".ops[\"$1\"] // 0"; }

# _xs_same BUCKET KEY FILE: the destination's object holds FILE's bytes, each one.
_xs_same() {
    _xs_dst GET "/$1/$2" -o "$T_DIR/.xs-got" || t_fail "could not get s3://$1/$2 from the destination"
    cmp -s "$T_DIR/.xs-got" "$3" || t_fail "s3://$1/$2 on the destination differs from $3"
}

# _xs_keys BUCKET: the destination bucket's keys, one a line.
_xs_keys() {
    _xs_dst GET "/$1?list-type=2" | grep -o '<Key>[^<]*' | sed 's/<Key>//' | LC_ALL=C sort
}

# _xs_setup, with a source of the test's own too (an s3emu with the suite's keys, whose
# answers the test may spoil): sets src and dst (made), in the caller's locals.
_xs_own_source() {
    _xs_setup
    t_own_store emu "$S3C_TEST_ACCESS_KEY" "$S3C_TEST_SECRET_KEY"
    export S3C_TEST_ENDPOINT=$OWN_URL
    XS_SRC_FLAGS=(--source-profile src --source-endpoint-url "$OWN_URL")
    t_new_bucket src
    t_bucket dst
    _xs_dst PUT "/$dst" >/dev/null || t_fail "could not create the destination bucket"
}

# The source's tree: 0 B, 8 KiB, 20 MiB in one PutObject (an MD5 ETag), and
# 20 MiB in 8 MiB parts (a "-3" ETag), under PREFIX of BUCKET.
_xs_seed() {
    : > f0
    cp "$(t_data 8KiB 8192)" f8k
    cp "$(t_data 20MiB $((20 * 1024 * 1024)))" f20m
    t_put "$1" "${2}f0" f0
    t_put "$1" "${2}f8k" f8k
    t_put "$1" "${2}f20m" f20m
    t_mpu "$1" "${2}mpu20m" f20m $((8 * 1024 * 1024))
}

test_xstore_cp_between_two_stores_streams_and_proves() {
    local src dst before_get
    _xs_setup
    t_new_bucket src
    t_bucket dst
    _xs_dst PUT "/$dst" >/dev/null || t_fail "could not create the destination bucket"
    _xs_seed "$src" p/

    # Without the source's settings the destination's keys list the wrong store.
    assert_exit 1 s3c cp -r "s3://$src/p/" "s3://$dst/q/"

    before_get=$(t_emu_ops GetObject)
    assert_ok s3c cp -r "s3://$src/p/" "s3://$dst/q/" "${XS_SRC_FLAGS[@]}"
    assert_lines 4 "$T_OUT" "copy lines"
    assert_contains "$T_OUT" "copy: s3://$src/p/mpu20m to s3://$dst/q/mpu20m"
    assert_eq "$(printf '%s\n' q/f0 q/f20m q/f8k q/mpu20m)" "$(_xs_keys "$dst")" "destination keys"
    # Exact: the small objects in one PutObject each; each 20 MiB one in 3 parts of 8 MiB
    # (the source's own layout for mpu20m, so its ETag proves what was read).
    assert_eq 2 "$(_xs_dst_ops PutObject)" "PutObjects on the destination"
    assert_eq 2 "$(_xs_dst_ops CreateMultipartUpload)" "CreateMultipartUploads on the destination"
    assert_eq 6 "$(_xs_dst_ops UploadPart)" "UploadParts on the destination"
    assert_eq 2 "$(_xs_dst_ops CompleteMultipartUpload)" "Completes on the destination"
    assert_eq 0 "$(_xs_dst_ops GetObject)" "GetObjects on the destination"
    # The source: one GET per small object, one per part of the big ones.
    t_assert_emu_ops GetObject "$before_get" 8
    assert_not_contains "$T_ERR" "not verified"
    _xs_same "$dst" q/f0 f0
    _xs_same "$dst" q/f8k f8k
    _xs_same "$dst" q/f20m f20m
    _xs_same "$dst" q/mpu20m f20m

    # One object, its metadata kept (from the source's HEAD).
    t_put "$src" typed.txt f8k -H "Content-Type: text/x-xstore" -H "x-amz-meta-color: blue"
    assert_ok s3c cp "s3://$src/typed.txt" "s3://$dst/typed.txt" "${XS_SRC_FLAGS[@]}"
    _xs_same "$dst" typed.txt f8k
    assert_contains "$(_xs_dst HEAD /"$dst"/typed.txt --head | tr -d '\r')" "Content-Type: text/x-xstore"
    assert_contains "$(_xs_dst HEAD /"$dst"/typed.txt --head | tr -d '\r' | tr 'A-Z' 'a-z')" "x-amz-meta-color: blue"
}

test_xstore_wrong_keys_name_their_side() {
    local src dst
    _xs_setup
    t_new_bucket src
    t_bucket dst
    _xs_dst PUT "/$dst" >/dev/null || t_fail "could not create the destination bucket"
    t_put_text "$src" k "hello"

    # The source's keys are the destination's: the source refuses them, and says so.
    assert_exit 1 s3c cp -r "s3://$src/" "s3://$dst/" --source-profile wrong --source-endpoint-url "$S3C_TEST_ENDPOINT"
    assert_lines 1 "$T_ERR" "one error line"
    assert_contains "$T_ERR" "source side:"
    assert_match "$T_ERR" "InvalidAccessKeyId|SignatureDoesNotMatch|AccessDenied"

    # The destination's keys are wrong: it is the destination that says so.
    AWS_SECRET_ACCESS_KEY=wrongwrongwrongwrongwrongwrongwrongwrong \
        assert_exit 1 s3c cp "s3://$src/k" "s3://$dst/k" "${XS_SRC_FLAGS[@]}"
    assert_contains "$T_ERR" "destination side:"
    assert_contains "$T_ERR" "SignatureDoesNotMatch"
    assert_eq "" "$(_xs_keys "$dst")" "nothing written"

    # --debug names the side of each request.
    assert_ok s3c --debug cp "s3://$src/k" "s3://$dst/k" "${XS_SRC_FLAGS[@]}"
    assert_contains "$T_ERR" "s3: source side: HeadObject $src/k"
    assert_contains "$T_ERR" "s3: source side: GetObject $src/k"
    assert_contains "$T_ERR" "s3: destination side: PutObject $dst/k"

    # The source's flags need two buckets.
    printf x > local
    assert_exit 252 s3c cp local "s3://$dst/x" --source-profile src
    assert_contains "$T_ERR" "S3 to S3 only"
}

test_xstore_mv_deletes_source_after_proof() {
    local src dst
    _xs_setup
    t_new_bucket src
    t_bucket dst
    _xs_dst PUT "/$dst" >/dev/null || t_fail "could not create the destination bucket"
    _xs_seed "$src" m/

    assert_ok s3c mv -r "s3://$src/m/" "s3://$dst/m/" "${XS_SRC_FLAGS[@]}"
    assert_lines 4 "$T_OUT" "move lines"
    _xs_same "$dst" m/f0 f0
    _xs_same "$dst" m/f8k f8k
    _xs_same "$dst" m/f20m f20m
    _xs_same "$dst" m/mpu20m f20m
    assert_eq "" "$(t_list_keys "$src")" "source keys left"

    # A destination that refuses the write: nothing proven, the source stays.
    t_put "$src" stay f8k
    curl -sS --fail-with-body -X POST --data-binary "faults=deny@op=PutObject" "$XS_DST/_s3emu/config" >/dev/null ||
        t_fail "the destination refused its faults"
    assert_exit 1 s3c mv "s3://$src/stay" "s3://$dst/stay" "${XS_SRC_FLAGS[@]}"
    assert_contains "$T_ERR" "destination side:"
    assert_eq "stay" "$(t_list_keys "$src")" "source kept"
}

test_xstore_sync_compares_both_listings() {
    local src dst before_put
    _xs_setup
    t_new_bucket src
    t_bucket dst
    _xs_dst PUT "/$dst" >/dev/null || t_fail "could not create the destination bucket"
    _xs_seed "$src" s/

    assert_ok s3c sync "s3://$src/s/" "s3://$dst/s/" "${XS_SRC_FLAGS[@]}"
    assert_lines 4 "$T_OUT" "first sync"
    _xs_same "$dst" s/mpu20m f20m

    # Nothing changed: the listings alone, nothing written.
    before_put=$(_xs_dst_ops PutObject)
    assert_ok s3c sync "s3://$src/s/" "s3://$dst/s/" "${XS_SRC_FLAGS[@]}"
    assert_eq "" "$T_OUT" "second sync"
    assert_eq "$before_put" "$(_xs_dst_ops PutObject)" "PutObjects of the second sync"

    # One changed (another size), one new, one gone: --delete removes it at the destination only.
    printf 'changed\n' > changed
    t_put "$src" s/f8k changed
    t_put "$src" s/new changed
    t_cmd s3curl DELETE "/$src/s/f0" || t_fail "could not delete s3://$src/s/f0"
    assert_ok s3c sync --delete "s3://$src/s/" "s3://$dst/s/" "${XS_SRC_FLAGS[@]}"
    assert_contains "$T_OUT" "copy: s3://$src/s/f8k to s3://$dst/s/f8k"
    assert_contains "$T_OUT" "copy: s3://$src/s/new to s3://$dst/s/new"
    assert_contains "$T_OUT" "delete: s3://$dst/s/f0"
    assert_eq "$(printf '%s\n' s/f20m s/f8k s/mpu20m s/new)" "$(_xs_keys "$dst")" "destination keys"
    assert_eq "$(printf '%s\n' s/f20m s/f8k s/mpu20m s/new)" "$(t_list_keys "$src" | sed -n '/^s\//p')" \
        "source keys"
    _xs_same "$dst" s/f8k changed
}

test_xstore_bytes_read_are_checked() {
    local src dst
    t_store_is s3emu || t_skip "runs once, in the s3emu pass (its stores are the test's own)"
    _xs_own_source
    _xs_seed "$src" c/

    # One byte flipped in the first GET of f8k: caught, read again.
    curl -sS --fail-with-body -X POST --data-binary "faults=corrupt@op=GetObject,key=c/f8k,times=1" \
        "$OWN_URL/_s3emu/config" >/dev/null || t_fail "the source refused its faults"
    assert_ok s3c cp -r "s3://$src/c/" "s3://$dst/c/" "${XS_SRC_FLAGS[@]}"
    _xs_same "$dst" c/f8k f8k
    _xs_same "$dst" c/f20m f20m
    assert_eq 9 "$(curl -sS "$OWN_URL/_s3emu/stats" | jq -r '.ops.GetObject')" \
        "GetObjects on the source (8, and the one read again)"
    assert_eq 2 "$(_xs_dst_ops PutObject)" "PutObjects: the spoilt bytes were never sent"
}

test_xstore_spoilt_part_is_never_completed() {
    local src dst
    t_store_is s3emu || t_skip "runs once, in the s3emu pass (its stores are the test's own)"
    _xs_own_source
    cp "$(t_data 20MiB $((20 * 1024 * 1024)))" f20m
    t_put "$src" big f20m

    # One byte flipped in one range of an object of one PutObject: the MD5 of the bytes read,
    # in order, is not its ETag, so the upload is aborted, never completed.
    curl -sS --fail-with-body -X POST --data-binary "faults=corrupt@op=GetObject,key=big,nth=2" \
        "$OWN_URL/_s3emu/config" >/dev/null || t_fail "the source refused its faults"
    assert_exit 1 s3c mv "s3://$src/big" "s3://$dst/big" "${XS_SRC_FLAGS[@]}"
    assert_contains "$T_ERR" "do not match its ETag"
    assert_eq "" "$(_xs_keys "$dst")" "destination keys"
    assert_eq 0 "$(_xs_dst_ops CompleteMultipartUpload)" "Completes on the destination"
    assert_eq 1 "$(_xs_dst_ops AbortMultipartUpload)" "Aborts on the destination"
    assert_eq "big" "$(t_list_keys "$src")" "the source is kept"
}

# The other way: the source is an s3emu of the test's own with other keys, the destination
# the suite's store (Ceph RGW in its pass) with the suite's keys and endpoint.
test_xstore_into_the_suite_store() {
    local src dst before_put before_parts src_puts
    _xs_setup
    export AWS_ACCESS_KEY_ID=$S3C_TEST_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3C_TEST_SECRET_KEY
    export AWS_ENDPOINT_URL=$S3C_TEST_ENDPOINT
    printf '[own]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$XS_KEY" "$XS_SECRET" \
        >> "$HOME/.aws/credentials"
    t_bucket src
    t_new_bucket dst
    _xs_dst PUT "/$src" >/dev/null || t_fail "could not create the source bucket"
    : > f0
    cp "$(t_data 8KiB 8192)" f8k
    cp "$(t_data 20MiB $((20 * 1024 * 1024)))" f20m
    for f in f0 f8k f20m; do
        _xs_dst PUT "/$src/in/$f" -T "$f" >/dev/null || t_fail "could not put $f on the source"
    done

    before_put=$(t_emu_ops PutObject)
    before_parts=$(t_emu_ops UploadPart)
    src_puts=$(_xs_dst_ops PutObject)
    assert_ok s3c sync "s3://$src/in/" "s3://$dst/out/" --source-profile own --source-endpoint-url "$XS_DST"
    assert_lines 3 "$T_OUT" "sync lines"
    assert_not_contains "$T_ERR" "not verified"
    t_assert_emu_ops PutObject "$before_put" 2
    t_assert_emu_ops UploadPart "$before_parts" 3
    assert_eq "$src_puts" "$(_xs_dst_ops PutObject)" "writes on the source"
    for f in f0 f8k f20m; do
        t_get "$dst" "out/$f" got
        cmp -s got "$f" || t_fail "s3://$dst/out/$f differs from $f"
    done
    assert_ok s3c sync "s3://$src/in/" "s3://$dst/out/" --source-profile own --source-endpoint-url "$XS_DST"
    assert_eq "" "$T_OUT" "second sync"
}

# One service, the source read with a profile of its own: the copy is server-side, until the
# destination's keys are refused it (403 on CopyObject or UploadPartCopy, an account that
# cannot read the other's bucket): then it goes through s3c, this object and the run's next.
test_xstore_one_service_relays_when_copy_is_refused() {
    local src dst
    t_store_is s3emu || t_skip "runs once, in the s3emu pass (its stores are the test's own)"
    _xs_setup
    t_own_store emu "$S3C_TEST_ACCESS_KEY" "$S3C_TEST_SECRET_KEY"
    export S3C_TEST_ENDPOINT=$OWN_URL AWS_ENDPOINT_URL=$OWN_URL
    export AWS_ACCESS_KEY_ID=$S3C_TEST_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3C_TEST_SECRET_KEY
    t_new_bucket src
    t_new_bucket dst
    cp "$(t_data 8KiB 8192)" f8k
    cp "$(t_data 20MiB $((20 * 1024 * 1024)))" f20m
    t_put "$src" a/f8k f8k
    t_mpu "$src" a/mpu20m f20m $((8 * 1024 * 1024))

    # Not refused: server-side, no byte through s3c.
    assert_ok s3c cp -r "s3://$src/a/" "s3://$dst/x/" --source-profile src --source-endpoint-url "$OWN_URL"
    assert_eq 0 "$(t_emu_ops GetObject)" "GetObjects of a server-side copy"

    curl -sS --fail-with-body -X POST --data-binary "faults=deny@op=CopyObject;deny@op=UploadPartCopy" \
        "$OWN_URL/_s3emu/config" >/dev/null || t_fail "the store refused its faults"
    assert_ok s3c --debug cp -r "s3://$src/a/" "s3://$dst/y/" --source-profile src --source-endpoint-url "$OWN_URL"
    assert_contains "$T_ERR" "with the destination's keys: copies go through s3c"
    assert_contains "$T_OUT" "copy: s3://$src/a/f8k to s3://$dst/y/f8k"
    assert_contains "$T_OUT" "copy: s3://$src/a/mpu20m to s3://$dst/y/mpu20m"
    assert_not_contains "$T_ERR" "not verified"
    t_get "$dst" y/f8k got8k
    cmp -s got8k f8k || t_fail "y/f8k differs"
    t_get "$dst" y/mpu20m got20m
    cmp -s got20m f20m || t_fail "y/mpu20m differs"
    assert_eq 0 "$(t_mpu_count "$dst")" "uploads left open"

    # Without source settings of its own the refusal is the copy's answer.
    assert_exit 1 s3c cp "s3://$src/a/f8k" "s3://$dst/z/f8k"
    assert_contains "$T_ERR" "AccessDenied"
}

# _xs_kill_mid_relay SRC-KEY DST-KEY: a relay of the own source's SRC-KEY (5 parts of 8 MiB),
# one request at a time, killed -9 once the destination has two of its parts: every source GET
# after the second waits 60 s (the own source's faults), so no third part can land. Sets UPID,
# the upload its journal names, and LISTED, the parts the destination lists for it.
_xs_kill_mid_relay() {
    local pid i
    _xs_reset_stats
    curl -sS --fail-with-body -X POST --data-binary \
        "faults=delay@op=GetObject,key=$1,times=2,ms=1;delay@op=GetObject,key=$1,ms=60000" \
        "$OWN_URL/_s3emu/config" >/dev/null || t_fail "the source refused its faults"
    "$S3C" cp "s3://$src/$1" "s3://$dst/$2" "${XS_SRC_FLAGS[@]}" --concurrency 1 >/dev/null 2>&1 &
    pid=$!
    for ((i = 0; i < 300; i++)); do
        [ "$(_xs_dst_ops UploadPart)" -ge 2 ] && [ "$(curl -sS "$OWN_URL/_s3emu/stats" | jq -r '.ops.GetObject')" -ge 3 ] &&
            break
        sleep 0.05
    done
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    curl -sS --fail-with-body -X POST --data-binary "faults=" "$OWN_URL/_s3emu/config" >/dev/null ||
        t_fail "the source refused to clear its faults"
    assert_eq 1 "$(find "$S3C_STATE_DIR" -name '*.upload' | wc -l)" "journal records left by the killed relay"
    UPID=$(sed -n 's/^upload_id //p' "$S3C_STATE_DIR"/*.upload)
    LISTED=$(_xs_dst GET "/$dst/$2?uploadId=$UPID" | grep -o '<PartNumber>' | wc -l)
    assert_eq 2 "$LISTED" "parts on the destination when the relay was killed"
}

# _xs_relay_ops: "GETs on the source, UploadParts, Creates, ListParts, Completes, Aborts on the
# destination" so far, the requests sent again (hedged or retried, in $T_ERR's --debug lines) left out.
_xs_relay_ops() {
    echo "$(($(curl -sS "$OWN_URL/_s3emu/stats" | jq -r '.ops.GetObject // 0') - $(t_resent GetObject "$T_ERR")))" \
        "$(($(_xs_dst_ops UploadPart) - $(t_resent UploadPart "$T_ERR")))" \
        "$(_xs_dst_ops CreateMultipartUpload)" "$(_xs_dst_ops ListParts)" \
        "$(_xs_dst_ops CompleteMultipartUpload)" "$(_xs_dst_ops AbortMultipartUpload)"
}

# _xs_reset_stats: both stores' counters from zero.
_xs_reset_stats() {
    curl -sS -X POST --data-binary "reset_stats=1" "$OWN_URL/_s3emu/config" >/dev/null
    curl -sS -X POST --data-binary "reset_stats=1" "$XS_DST/_s3emu/config" >/dev/null
}

# A relay killed -9 is journaled as an upload is: --resume lists the destination's parts and sends
# only the rest. A source in parts (its ETag the MD5 of its parts' MD5s) is not read again where the
# destination has a part: the listed MD5s go into the proof. A source of one PutObject is read
# again whole (the MD5 of all its bytes is its proof), but a part the destination has is not sent.
test_xstore_relay_resume_after_kill() {
    local src dst
    t_store_is s3emu || t_skip "runs once, in the s3emu pass (its stores are the test's own)"
    _xs_own_source
    export S3C_STATE_DIR=$T_DIR/state
    cp "$(t_data 40MiB $((40 * 1024 * 1024)))" f40m
    t_mpu "$src" mpu f40m $((8 * 1024 * 1024))
    t_put "$src" one f40m

    _xs_kill_mid_relay mpu mpu
    _xs_reset_stats
    assert_ok s3c --debug cp "s3://$src/mpu" "s3://$dst/mpu" "${XS_SRC_FLAGS[@]}" --resume
    # 3 GETs and 3 UploadParts for the 3 parts missing; no new upload; one ListParts.
    assert_eq "3 3 0 1 1 0" "$(_xs_relay_ops)" "GETs, UploadParts, Creates, ListParts, Completes, Aborts"
    assert_not_contains "$T_ERR" "unproven"
    assert_not_contains "$T_ERR" "not verified"
    _xs_same "$dst" mpu f40m
    assert_eq 0 "$(find "$S3C_STATE_DIR" -name '*.upload' | wc -l)" "journal records after the resumed relay"

    _xs_kill_mid_relay one one
    _xs_reset_stats
    assert_ok s3c --debug cp "s3://$src/one" "s3://$dst/one" "${XS_SRC_FLAGS[@]}" --resume
    # All 5 parts read again, in order, for the MD5 of the whole; 3 sent.
    assert_eq "5 3 0 1 1 0" "$(_xs_relay_ops)" "GETs, UploadParts, Creates, ListParts, Completes, Aborts"
    assert_not_contains "$T_ERR" "unproven"
    _xs_same "$dst" one f40m
}

# What a resumed relay must not take: a killed relay's upload without --resume (aborted, the copy
# made afresh), a source changed since (another ETag: aborted, afresh), and parts on the
# destination that are not the source's (a part put there by another writer: for a source in
# parts the copy fails and its upload is aborted; for one of one PutObject the part is sent again).
test_xstore_relay_resume_takes_only_the_sources_bytes() {
    local src dst
    t_store_is s3emu || t_skip "runs once, in the s3emu pass (its stores are the test's own)"
    _xs_own_source
    export S3C_STATE_DIR=$T_DIR/state
    cp "$(t_data 40MiB $((40 * 1024 * 1024)))" f40m
    head -c $((8 * 1024 * 1024)) /dev/zero > zeros
    t_mpu "$src" mpu f40m $((8 * 1024 * 1024))
    t_put "$src" one f40m

    # No --resume: the killed run's upload is aborted, then all 5 parts go.
    _xs_kill_mid_relay mpu a
    _xs_reset_stats
    assert_ok s3c --debug cp "s3://$src/mpu" "s3://$dst/a" "${XS_SRC_FLAGS[@]}"
    assert_eq "5 5 1 0 1 1" "$(_xs_relay_ops)" "GETs, UploadParts, Creates, ListParts, Completes, Aborts"
    _xs_same "$dst" a f40m

    # The source changed since the kill: another ETag, never resumed into.
    _xs_kill_mid_relay mpu b
    t_mpu "$src" mpu f40m $((16 * 1024 * 1024))
    _xs_reset_stats
    assert_ok s3c --debug cp "s3://$src/mpu" "s3://$dst/b" "${XS_SRC_FLAGS[@]}" --resume
    # Its layout now: 16 MiB parts, 3 of them.
    assert_eq "3 3 1 0 1 1" "$(_xs_relay_ops)" "GETs, UploadParts, Creates, ListParts, Completes, Aborts"
    assert_not_contains "$T_ERR" "unproven"
    _xs_same "$dst" b f40m
    t_mpu "$src" mpu f40m $((8 * 1024 * 1024))

    # Another writer's part 1 in the upload (the right size, other bytes): the MD5 of the
    # parts' MD5s is not the source's ETag, so nothing is completed.
    _xs_kill_mid_relay mpu c
    _xs_dst PUT "/$dst/c?partNumber=1&uploadId=$UPID" -T zeros >/dev/null || t_fail "could not spoil part 1"
    _xs_reset_stats
    assert_exit 1 s3c cp "s3://$src/mpu" "s3://$dst/c" "${XS_SRC_FLAGS[@]}" --resume
    assert_contains "$T_ERR" "are not the source's"
    assert_eq 0 "$(_xs_dst_ops CompleteMultipartUpload)" "Completes"
    assert_eq 1 "$(_xs_dst_ops AbortMultipartUpload)" "Aborts"
    assert_eq "" "$(_xs_keys "$dst" | grep -x c)" "no object made"
    assert_eq 0 "$(find "$S3C_STATE_DIR" -name '*.upload' | wc -l)" "journal records after the refused resume"

    # The same for a source of one PutObject: its part 2 is read, found not the store's, sent again.
    _xs_kill_mid_relay one d
    _xs_dst PUT "/$dst/d?partNumber=2&uploadId=$UPID" -T zeros >/dev/null || t_fail "could not spoil part 2"
    _xs_reset_stats
    assert_ok s3c --debug cp "s3://$src/one" "s3://$dst/d" "${XS_SRC_FLAGS[@]}" --resume
    assert_contains "$T_ERR" "part 2 on the store is not what the source has there: sent again"
    assert_eq "5 4 0 1 1 0" "$(_xs_relay_ops)" "GETs, UploadParts, Creates, ListParts, Completes, Aborts"
    _xs_same "$dst" d f40m
}

# _xs_dst_tags KEY: the destination object's tags, "k=v" sorted, one a line.
_xs_dst_tags() {
    _xs_dst GET "/$dst/$1?tagging=" | grep -o '<Key>[^<]*</Key><Value>[^<]*' |
        sed 's/<Key>//; s/<\/Key><Value>/=/' | LC_ALL=C sort
}

# A relay keeps the source's tags: a whole object's are asked beside its GET (GetObjectTagging
# and GetObject at once, its PutObject carrying them once both are in), an object in parts's
# before its CreateMultipartUpload. A refused GetObjectTagging fails the copy, nothing written;
# a store without tagging (501) is learnt, and the copies go on without tags.
test_xstore_relay_keeps_tags() {
    local src dst
    t_store_is s3emu || t_skip "runs once, in the s3emu pass (its stores are the test's own)"
    _xs_own_source
    cp "$(t_data 8KiB 8192)" f8k
    cp "$(t_data 20MiB $((20 * 1024 * 1024)))" f20m
    t_put "$src" t/tagged f8k -H "x-amz-tagging: color=blue&size=small"
    t_put "$src" t/plain f8k
    t_mpu "$src" t/big f20m $((8 * 1024 * 1024)) -H "x-amz-tagging: color=red"

    assert_ok s3c cp -r "s3://$src/t/" "s3://$dst/t/" "${XS_SRC_FLAGS[@]}"
    assert_eq 3 "$(curl -sS "$OWN_URL/_s3emu/stats" | jq -r '.ops.GetObjectTagging')" "GetObjectTaggings on the source"
    assert_eq "$(printf '%s\n' color=blue size=small)" "$(_xs_dst_tags t/tagged)" "tags of t/tagged"
    assert_eq "" "$(_xs_dst_tags t/plain)" "tags of t/plain"
    assert_eq "color=red" "$(_xs_dst_tags t/big)" "tags of t/big"
    _xs_same "$dst" t/tagged f8k
    _xs_same "$dst" t/big f20m

    # Its tags refused: the copy fails, and its PutObject (read and checked, waiting) never goes.
    curl -sS --fail-with-body -X POST --data-binary "faults=deny@op=GetObjectTagging,key=t/tagged" \
        "$OWN_URL/_s3emu/config" >/dev/null || t_fail "the source refused its faults"
    _xs_reset_stats
    assert_exit 1 s3c cp "s3://$src/t/tagged" "s3://$dst/u/tagged" "${XS_SRC_FLAGS[@]}"
    assert_contains "$T_ERR" "AccessDenied"
    assert_eq 0 "$(_xs_dst_ops PutObject)" "PutObjects on the destination"
    assert_eq "" "$(_xs_keys "$dst" | grep '^u/')" "nothing written"

    # A store without tagging: learnt from its 501, said in --debug, the object copied untagged.
    curl -sS --fail-with-body -X POST --data-binary "faults=501@op=GetObjectTagging" \
        "$OWN_URL/_s3emu/config" >/dev/null || t_fail "the source refused its faults"
    assert_ok s3c --debug cp -r "s3://$src/t/" "s3://$dst/v/" "${XS_SRC_FLAGS[@]}"
    assert_contains "$T_ERR" "the store has no object tagging"
    _xs_same "$dst" v/tagged f8k
    _xs_same "$dst" v/big f20m
    assert_eq "" "$(_xs_dst_tags v/tagged)" "tags of v/tagged"
}
