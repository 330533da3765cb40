# tests/e2e/test_mv.sh — issue 4: `s3c mv` end to end.
# shellcheck shell=bash
#
# mv is cp, then the source is deleted — only once its copy is verified. Each
# test checks both ends: the destination has the bytes, the source is gone;
# and when the copy fails or is skipped, the source is still there.
# Helpers (_keys, _assert_object_text, ...) come from test_cp.sh.

test_mv_local_to_s3_removes_local_after_success() {
    local b nob sum
    t_new_bucket b
    t_bucket nob                                # never created
    printf 'move me\n' > f.txt
    sum=$(t_sha256 f.txt)

    # The copy fails (no such bucket): the local file stays.
    assert_exit 1 s3c mv f.txt "s3://$nob/f.txt"
    assert_contains "$T_ERR" "(NoSuchBucket)" "stderr"
    assert_file_sha256 f.txt "$sum"

    # --no-overwrite on an existing key: skipped, so the local file stays.
    printf old > old
    t_put "$b" f.txt old
    assert_ok s3c mv --no-overwrite f.txt "s3://$b/f.txt"
    assert_file_sha256 f.txt "$sum"
    _assert_object_text "$b" f.txt old

    assert_ok s3c mv f.txt "s3://$b/f.txt"
    assert_eq "move: ./f.txt to s3://$b/f.txt" "$T_OUT"
    _assert_gone f.txt
    _assert_object_sha256 "$b" f.txt "$sum"

    # A tree, with a multipart file: every file moves, the directories may stay.
    mkdir -p tree/sub
    printf 1 > tree/a; printf 2 > tree/sub/b
    cp "$(t_data 8MiB+1 $((8 * MIB + 1)))" tree/sub/big
    sum=$(t_sha256 tree/sub/big)
    assert_ok s3c mv --recursive tree "s3://$b/t/"
    assert_lines 3 "$T_OUT" "move lines"
    assert_contains "$T_OUT" "move: tree/sub/big to s3://$b/t/sub/big"
    assert_eq "" "$(find tree -type f)" "files left in tree/"
    assert_eq "$(printf '%s\n' f.txt t/a t/sub/b t/sub/big)" "$(_keys "$b")" "keys"
    _assert_object_sha256 "$b" t/sub/big "$sum"
}

test_mv_s3_to_s3_removes_source() {
    local b b2 nob sum
    t_new_bucket b
    t_new_bucket b2
    t_bucket nob
    printf a > a; printf x > x; printf y > y
    cp "$(t_data 20MB 20000000)" big
    sum=$(t_sha256 big)
    t_put "$b" a a
    t_put "$b" dir/x x
    t_put "$b" dir/y y
    t_put "$b" big big

    # The copy fails: the source stays.
    assert_exit 1 s3c mv "s3://$b/a" "s3://$nob/a"
    assert_eq "$(printf '%s\n' a big dir/x dir/y)" "$(_keys "$b")" "keys after a failed mv"

    assert_ok s3c mv "s3://$b/a" "s3://$b/moved/a"
    assert_eq "move: s3://$b/a to s3://$b/moved/a" "$T_OUT"
    _assert_object_text "$b" moved/a a
    # Multipart copy, across buckets.
    assert_ok s3c mv "s3://$b/big" "s3://$b2/big"
    _assert_object_sha256 "$b2" big "$sum"
    # A prefix.
    assert_ok s3c mv --recursive "s3://$b/dir/" "s3://$b2/d2/"
    assert_lines 2 "$T_OUT" "move lines"
    assert_eq "moved/a" "$(_keys "$b")" "keys left in the source bucket"
    assert_eq "$(printf '%s\n' big d2/x d2/y)" "$(_keys "$b2")" "keys in the destination bucket"
}

test_mv_s3_to_local_removes_source() {
    local b sum
    t_new_bucket b
    printf one > one
    cp "$(t_data 8MiB+1 $((8 * MIB + 1)))" big
    sum=$(t_sha256 big)
    t_put "$b" one one
    t_put "$b" p/big big
    t_put "$b" p/q/one one
    t_put "$b" stay one

    assert_ok s3c mv "s3://$b/one" here.txt
    assert_eq "move: s3://$b/one to ./here.txt" "$T_OUT"
    assert_eq one "$(cat here.txt)" "here.txt"
    _assert_no_key "$b" one

    assert_ok s3c mv --recursive "s3://$b/p/" out
    assert_lines 2 "$T_OUT" "move lines"
    assert_file_sha256 out/big "$sum"
    assert_eq one "$(cat out/q/one)" "out/q/one"
    assert_eq stay "$(_keys "$b")" "keys left"

    # A missing key: exit 1, 404, nothing written.
    assert_exit 1 s3c mv "s3://$b/nope" nope
    assert_lines 1 "$T_ERR" "stderr"
    assert_contains "$T_ERR" "(NoSuchKey)"
    _assert_gone nope
    # A download that cannot be written (its parent is a file) keeps the source.
    printf file > afile
    assert_exit 1 s3c mv "s3://$b/stay" afile/stay
    assert_lines 1 "$T_ERR" "stderr"
    assert_contains "$T_ERR" "afile/stay"
    assert_eq stay "$(_keys "$b")" "the source after a failed download"
}

test_mv_onto_itself_keeps_the_object() {
    local b sum
    t_new_bucket b
    printf small > small
    cp "$(t_data 20MB 20000000)" big
    sum=$(t_sha256 big)
    t_put "$b" small small
    t_put "$b" big big
    # Whatever mv says about a move onto itself, the object must survive it.
    t_cmd s3c mv "s3://$b/small" "s3://$b/small"
    _assert_object_text "$b" small small
    t_cmd s3c mv "s3://$b/big" "s3://$b/big"
    _assert_object_sha256 "$b" big "$sum"
    t_cmd s3c mv --recursive "s3://$b/" "s3://$b/"
    assert_eq "$(printf '%s\n' big small)" "$(_keys "$b")" "keys"
}
