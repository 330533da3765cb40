# tests/e2e/test_trust_proof.sh — issue 22 items 2, 3 and 4: delete only after
# proof; the user's names are the user's; sync never misses a change.
# shellcheck shell=bash
#
# Item 2 runs against a store of its own behind tests/e2e/hostile_proxy.py
# (hp_start), on s3emu and on moto's server: "no-etag" keeps what is written
# but strips the ETag and checksums from the answers to PutObject, CopyObject
# and CompleteMultipartUpload; "put-blackhole" answers them 200 and keeps
# nothing. mv must then keep its source and exit 1; cp says the copy is not
# verified. Helpers (_keys, _assert_object_text, ...) come from test_cp.sh.

# _tp_mv_keeps UPSTREAM MODE: mv local -> S3 (one PUT, and multipart), and
# S3 -> S3 (CopyObject), through MODE: each keeps its source, says why, exits 1.
_tp_mv_keeps() {
    local b sum
    hp_start "$1" "$2"
    t_new_bucket b
    printf 'move me\n' > f.txt
    assert_exit 1 s3c mv f.txt "s3://$b/f.txt"
    assert_lines 1 "$T_ERR" "one line says why"
    assert_contains "$T_ERR" "no ETag"
    assert_contains "$T_ERR" "source is kept"
    assert_eq "move me" "$(cat f.txt)" "the source after an unproven mv"
    assert_eq "" "$T_OUT" "no move line"

    # In parts (Complete's answer carries no ETag, as Ceph RGW 16's always
    # does); --part-size keeps it small. Where the object's ETag read back
    # (HEAD) is the one our parts make, that is the proof; where HEAD shows
    # none either, or finds nothing, the source stays.
    cp "$(t_data 11MiB $((11 * MIB)))" big
    sum=$(t_sha256 big)
    if [ "$2" = no-etag ]; then
        assert_ok s3c mv --part-size 5MiB big "s3://$b/big"
        [ ! -e big ] || t_fail "mv in parts, proven by the ETag read back, kept its source"
        [ "$(hp_count 'select(.method == "HEAD" and (.target | endswith("/big")))')" -ge 1 ] ||
            t_fail "no HEAD of s3://$b/big after a Complete without ETag"
        assert_ok s3c cp "s3://$b/big" big.back
        assert_file_sha256 big.back "$sum"
    else
        assert_exit 1 s3c mv --part-size 5MiB big "s3://$b/big"
        assert_contains "$T_ERR" "CompleteMultipartUpload"
        assert_file_sha256 big "$sum"
    fi

    # A tree: every file stays.
    mkdir -p tree/sub
    printf 1 > tree/a; printf 2 > tree/sub/b
    assert_exit 1 s3c mv -r tree "s3://$b/t/"
    assert_eq 2 "$(find tree -type f | wc -l)" "files left in tree/"

    # S3 -> S3: CopyObject's answer has no ETag (no-etag) or no result at all.
    printf 'stay\n' > stay
    t_put "$b" src/stay stay
    t_cmd s3c mv "s3://$b/src/stay" "s3://$b/dst/stay"
    [ "$T_RC" != 0 ] || t_fail "mv S3 -> S3 through $2 exited 0"
    assert_contains "$(_keys "$b")" "src/stay" "the source key after an unproven copy"

    # cp through the same store: the line is there, and a warning says it is not verified.
    if [ "$2" = no-etag ]; then
        assert_ok s3c cp f.txt "s3://$b/c.txt"
        assert_eq "upload: ./f.txt to s3://$b/c.txt" "$T_OUT"
        assert_contains "$T_ERR" "not verified"
    fi
}

test_trust_mv_no_etag_keeps_source_emu() {
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    _tp_mv_keeps emu no-etag
}

test_trust_mv_no_etag_keeps_source_moto() {
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    _tp_mv_keeps moto no-etag
}

# No ETag in the answers to writes, nor in those to reads (HEAD, GET): no proof anywhere.
test_trust_mv_no_etag_anywhere_keeps_source_emu() {
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    _tp_mv_keeps emu no-etag,get-no-etag
}

test_trust_mv_no_etag_anywhere_keeps_source_moto() {
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    _tp_mv_keeps moto no-etag,get-no-etag
}

test_trust_mv_put_blackhole_keeps_source_emu() {
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    _tp_mv_keeps emu put-blackhole
}

test_trust_mv_put_blackhole_keeps_source_moto() {
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    _tp_mv_keeps moto put-blackhole
}

# _tp_mv_moves UPSTREAM: the same relay without a mode: every mv proves its copy
# and deletes its source (one PUT, in parts, S3 -> S3, S3 -> local).
_tp_mv_moves() {
    local b
    hp_start "$1" ""
    t_new_bucket b
    printf 'move me\n' > f.txt
    cp "$(t_data 11MiB $((11 * MIB)))" big
    assert_ok s3c mv f.txt "s3://$b/f.txt"
    _assert_gone f.txt
    assert_ok s3c mv --part-size 5MiB big "s3://$b/big"
    _assert_gone big
    assert_ok s3c mv "s3://$b/f.txt" "s3://$b/g.txt"
    assert_ok s3c mv "s3://$b/g.txt" back.txt
    assert_eq "move me" "$(cat back.txt)" "moved down"
    assert_eq "big" "$(_keys "$b")" "keys after the moves"
}

test_trust_mv_plain_relay_moves_emu() {
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    _tp_mv_moves emu
}

test_trust_mv_plain_relay_moves_moto() {
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    _tp_mv_moves moto
}

# Item 3: a user's file named like s3c's temp files is the user's: uploaded by
# cp -r and sync, never deleted by sync --delete, either way. (Temp files are
# known by what made them: a lock a running s3c holds, or the --resume journal.)
test_trust_user_file_named_like_a_temp_file() {
    local b n=.s3c-x.12345678.tmp
    t_new_bucket b
    mkdir -p tree/sub
    printf 'mine\n' > "tree/$n"
    printf 'mine too\n' > "tree/sub/$n"
    printf 'a\n' > tree/a
    assert_ok s3c cp -r tree "s3://$b/c/"
    assert_eq "$(printf '%s\n' "c/$n" c/a "c/sub/$n")" "$(_keys "$b")" "keys after cp -r"
    assert_ok s3c sync tree "s3://$b/s/"
    assert_contains "$(_keys "$b")" "s/$n" "keys after sync"
    assert_contains "$(_keys "$b")" "s/sub/$n" "keys after sync"
    # --delete with the files still there: nothing goes.
    assert_ok s3c sync --delete tree "s3://$b/c/"
    assert_ok s3c sync --delete tree "s3://$b/s/"
    assert_eq "" "$T_OUT" "a second sync --delete"
    assert_eq "$(printf '%s\n' "c/$n" c/a "c/sub/$n" "s/$n" s/a "s/sub/$n")" "$(_keys "$b")" "keys after sync --delete"
    _assert_object_text "$b" "s/$n" mine

    # Down: downloaded like any key, kept by sync --delete, and then up again as it is.
    assert_ok s3c sync "s3://$b/s/" down
    assert_eq "mine" "$(cat "down/$n")" "downloaded"
    assert_ok s3c sync --delete "s3://$b/s/" down
    assert_eq "" "$T_OUT" "a second sync --delete down"
    assert_eq "mine too" "$(cat "down/sub/$n")" "kept"
    assert_ok s3c cp -r down "s3://$b/d/"
    assert_contains "$(_keys "$b")" "d/sub/$n" "keys after cp -r of the download"
}

# _tp_lm BUCKET KEY: the object's LastModified, in seconds since 1970.
_tp_lm() { date -d "$(t_head_header "$1" "$2" last-modified)" +%s; }

# Item 4: a file rewritten with the same size within the second of the last
# sync is a change (S3 keeps whole seconds; the file's nanoseconds say it was
# written within that second, not before it). touch -d with a fraction puts it
# there without sleeping.
test_trust_sync_same_second_rewrite_is_uploaded() {
    local b lm
    t_new_bucket b
    mkdir tree
    printf 'aaaa\n' > tree/f
    printf 'keep\n' > tree/g
    assert_ok s3c sync tree "s3://$b/s/"
    lm=$(_tp_lm "$b" s/f)
    printf 'bbbb\n' > tree/f
    touch -d "@$lm.7" tree/f
    # g: same bytes, in its object's second: the MD5 proves it unchanged.
    touch -d "@$(_tp_lm "$b" s/g).4" tree/g
    assert_ok s3c sync tree "s3://$b/s/"
    assert_eq "upload: tree/f to s3://$b/s/f" "$T_OUT" "the second sync"
    _assert_object_text "$b" s/f bbbb
    # --size-only: sizes alone, as the AWS CLI.
    printf 'cccc\n' > tree/f
    touch -d "@$(_tp_lm "$b" s/f).2" tree/f
    assert_ok s3c sync --size-only tree "s3://$b/s/"
    assert_eq "" "$T_OUT" "sync --size-only"
}

# The other way: a local file written within its object's second is newer for
# the AWS CLI's rule (a download stamps the object's second, no fraction), so
# it is downloaded again; a file as a download left it is not.
test_trust_sync_same_second_local_change_is_downloaded() {
    local b lm flag
    t_new_bucket b
    printf 'cccc\n' > c
    t_put "$b" d/f c
    lm=$(_tp_lm "$b" d/f)
    for flag in "" --exact-timestamps; do
        rm -rf down
        # shellcheck disable=SC2086
        assert_ok s3c sync $flag "s3://$b/d/" down
        # shellcheck disable=SC2086
        assert_ok s3c sync $flag "s3://$b/d/" down
        assert_eq "" "$T_OUT" "a sync after a download ($flag)"
        printf 'dddd\n' > down/f
        touch -d "@$lm.5" down/f
        # shellcheck disable=SC2086
        assert_ok s3c sync $flag "s3://$b/d/" down
        assert_eq "download: s3://$b/d/f to down/f" "$T_OUT" "the changed file ($flag)"
        assert_eq cccc "$(cat down/f)" "down/f ($flag)"
        # The same bytes in that second: the MD5 says so, nothing moves.
        touch -d "@$lm.5" down/f
        # shellcheck disable=SC2086
        assert_ok s3c sync $flag "s3://$b/d/" down
        assert_eq "" "$T_OUT" "same bytes, same second ($flag)"
    done
}

# S3 -> local: the download's own check is the proof. A store whose GET and
# HEAD carry no ETag and no checksum leaves nothing to check: the file is
# written (cp says it is not verified), and mv keeps the object, exit 1.
_tp_mv_down_keeps() {
    local b
    hp_start "$1" get-no-etag
    t_new_bucket b
    printf 'stay\n' > stay
    t_put "$b" k stay
    assert_exit 1 s3c mv "s3://$b/k" got
    assert_lines 1 "$T_ERR" "one line says why"
    assert_contains "$T_ERR" "source is kept"
    assert_eq "k" "$(_keys "$b")" "the object after an unproven download"
    assert_ok s3c cp "s3://$b/k" got2
    assert_contains "$T_ERR" "not verified"
    assert_eq stay "$(cat got2)" "the bytes, unchecked"
}

test_trust_mv_down_unverifiable_keeps_source_emu() {
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    _tp_mv_down_keeps emu
}

test_trust_mv_down_unverifiable_keeps_source_moto() {
    t_store_is s3emu || t_skip "a store of its own: runs once, in the s3emu pass"
    _tp_mv_down_keeps moto
}
