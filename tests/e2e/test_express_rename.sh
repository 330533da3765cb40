# tests/e2e/test_express_rename.sh — issue 26 item 4: mv within one directory
# bucket is RenameObject (one request, atomic, nothing copied, no delete
# after); a store without it (501) gets the copy and the delete; mv between
# two buckets copies. On s3emu's Express mode (an emulator of the test's own:
# faults are the whole emulator's); Ceph and moto have no directory buckets.
# shellcheck shell=bash

_xr_setup() {
    t_own_emu
    t_at_exit _x_cleanup
}

# mv -r of 13 objects (one of 12 MB) to another prefix of the same directory
# bucket: 13 RenameObject requests, no CopyObject, no delete; every object
# read back byte for byte at its new key, none left at the old.
test_express_rename_mv_within_a_bucket() {
    local b f
    _xr_setup
    _x_bucket b ren
    assert_ok s3c mb "s3://$b"
    _x_tree src
    assert_ok s3c cp --only-show-errors -r src "s3://$b/old/"
    t_emu_set "reset_stats=1"
    assert_ok s3c mv -r "s3://$b/old/" "s3://$b/new/"
    assert_contains "$T_OUT" "move: s3://$b/old/c/big to s3://$b/new/c/big"
    assert_eq 13 "$(t_emu_ops RenameObject)" "RenameObject requests"
    assert_eq 0 "$(t_emu_ops CopyObject)" "CopyObject requests"
    assert_eq 0 "$(($(t_emu_ops DeleteObject) + $(t_emu_ops DeleteObjects)))" "delete requests"
    assert_exit 1 s3c ls -r "s3://$b/old/"
    assert_eq "" "$T_OUT" "keys left under old/"
    assert_ok s3c cp --only-show-errors -r "s3://$b/new/" back
    for f in $(cd src && find . -type f); do
        cmp -s "src/$f" "back/$f" || t_fail "$f read back differs"
    done
}

# --no-overwrite onto a key that exists: RenameObject's If-None-Match: * is
# refused (412), a skip: both objects as they were, exit 0. One object onto a
# free key moves.
test_express_rename_no_overwrite_keeps_both() {
    local b
    _xr_setup
    _x_bucket b nov
    assert_ok s3c mb "s3://$b"
    printf one > one
    printf two > two
    assert_ok s3c cp --only-show-errors one "s3://$b/a"
    assert_ok s3c cp --only-show-errors two "s3://$b/b"
    assert_ok s3c mv --no-overwrite "s3://$b/a" "s3://$b/b"
    assert_ok s3c cat "s3://$b/a"
    assert_eq one "$T_OUT" "the source, kept"
    assert_ok s3c cat "s3://$b/b"
    assert_eq two "$T_OUT" "the destination, kept"
    assert_ok s3c mv --no-overwrite "s3://$b/a" "s3://$b/c"
    assert_ok s3c cat "s3://$b/c"
    assert_eq one "$T_OUT" "moved"
    assert_exit 1 s3c cat "s3://$b/a"
}

# A store without RenameObject (501): asked once (the first rename is the
# probe; the others wait for its answer), then every object is copied and its
# source deleted; mv between two directory buckets
# copies (RenameObject renames within one bucket only).
test_express_rename_store_without_it_and_across_buckets() {
    local b b2 i
    _xr_setup
    _x_bucket b no
    _x_bucket b2 other
    assert_ok s3c mb "s3://$b"
    assert_ok s3c mb "s3://$b2"
    mkdir t
    for ((i = 0; i < 5; i++)); do printf 'v%d' "$i" > "t/k$i"; done
    assert_ok s3c cp --only-show-errors -r t "s3://$b/a/"
    t_emu_set "reset_stats=1&faults=501@op=RenameObject"
    assert_ok s3c mv --only-show-errors -r "s3://$b/a/" "s3://$b/b/"
    t_emu_set "faults="
    assert_eq 1 "$(t_emu_ops RenameObject)" "RenameObject requests: the probe, refused"
    assert_eq 5 "$(t_emu_ops CopyObject)" "CopyObject requests"
    assert_eq "$(printf 'b/k%d\n' 0 1 2 3 4)" "$(s3c ls -r "s3://$b/" | awk '{print $4}')" "keys after the mv"
    t_emu_set "reset_stats=1"
    assert_ok s3c mv --only-show-errors -r "s3://$b/b/" "s3://$b2/c/"
    assert_eq 0 "$(t_emu_ops RenameObject)" "RenameObject requests between buckets"
    assert_eq 5 "$(t_emu_ops CopyObject)" "CopyObject requests between buckets"
    assert_ok s3c cat "s3://$b2/c/k3"
    assert_eq v3 "$T_OUT" "a moved object"
}
