# tests/e2e/test_sync_checksum.sh — issue 26 item 1: `sync --checksum` decides
# "changed" by content wherever a checksum can say (the stored full-object
# CRC against the file's, a single-part MD5 ETag against the file's MD5, two
# stored CRCs or ETags S3 to S3), so a change that keeps size and time is
# found; where no usable checksum exists, size and time decide and a warning
# counts them. Request counts are s3emu's; the same tests run on Ceph and
# moto, where the stores' own answers decide which checksum is used.
# shellcheck shell=bash

# _sc_keep_time FILE TEXT: rewrite FILE with TEXT (same length), its mtime as before.
_sc_keep_time() {
    local t
    t=$(stat -c %Y "$1")
    printf '%s' "$2" > "$1"
    touch -d "@$t" "$1"
}

# 10,000 files uploaded; 100 of them rewritten with other bytes of the same size, their mtimes
# put back, and a 12 MiB multipart file likewise. Without --checksum sync sees nothing (the AWS
# CLI's rule: same size, the local file not newer); with it exactly those 101 go up, the small
# ones found by their MD5 (no request unless it differs: then one HEAD for the stored CRC), the
# multipart one by a HEAD and its stored CRC. Run again, it sends nothing.
test_sync_checksum_finds_changes_that_keep_size_and_time() {
    local b i t want="" heads puts debug last=19999 step=100
    t_new_bucket b
    mkdir -p tree/d
    # 10,000 on s3emu; a real store's 10,000 PUTs take minutes on CI's 2 cores: 1,000 there.
    t_store_is s3emu || { last=10999; step=10; }
    for i in $(seq 10000 "$last"); do printf 'file %s\n' "$i" > "tree/d/f$i"; done
    head -c $((12 * 1048576)) "$(t_data cks-big $((12 * 1048576)))" > tree/big
    touch -d '2 hours ago' tree/big tree/d/*
    assert_ok s3c sync --part-size 5MiB tree "s3://$b/s/"
    for i in $(seq 10000 "$step" "$last"); do
        _sc_keep_time "tree/d/f$i" "FILE $i"$'\n'
        want+="upload: tree/d/f$i to s3://$b/s/d/f$i"$'\n'
    done
    t=$(stat -c %Y tree/big)
    printf 'changed' | dd of=tree/big bs=1 seek=7000000 conv=notrunc status=none
    touch -d "@$t" tree/big
    # Ceph 16 keeps no flexible checksums, and moto answers a multipart upload's CRC64NVME with
    # 4 bytes: a multipart object there has no usable CRC (the md5 of its part MD5s cannot tell
    # a change from a wrong guess), so size and time decide, and a warning says so.
    t_store_is ceph || t_store_is moto || want+="upload: tree/big to s3://$b/s/big"$'\n'
    want=$(LC_ALL=C sort <<<"${want%$'\n'}")

    puts=$(t_emu_ops PutObject)
    assert_ok s3c sync tree "s3://$b/s/"
    assert_eq "" "$T_OUT" "sync without --checksum: size and time see no change"
    t_assert_emu_ops PutObject "$puts" 0

    assert_ok s3c sync --checksum --dryrun tree "s3://$b/s/"
    assert_eq "$(sed 's/^/(dryrun) /' <<<"$want")" "$(LC_ALL=C sort <<<"$T_OUT")" "the dry run"
    heads=$(t_emu_ops HeadObject)
    puts=$(t_emu_ops PutObject)
    assert_ok s3c --debug sync --checksum --part-size 5MiB tree "s3://$b/s/"
    debug=$(grep '^s3c: debug: ' <<<"$T_ERR" || true)
    T_ERR=$(grep -v '^s3c: debug: ' <<<"$T_ERR" || true)
    assert_eq "$want" "$(LC_ALL=C sort <<<"$T_OUT")" "sync --checksum: the changed files"
    # (less the requests sent again: an overdue read is hedged, and so is an overdue PutObject
    # into a bucket known to be unversioned, where its twin leaves no trace; s3emu serves both.
    # On a loaded CI machine that made 101 PutObjects for 100 files.)
    t_assert_emu_ops HeadObject "$((heads + $(t_resent HeadObject "$debug")))" 101
    t_assert_emu_ops PutObject "$((puts + $(t_resent PutObject "$debug")))" 100
    if t_store_is ceph || t_store_is moto; then
        assert_contains "$T_ERR" "warning: sync --checksum: 1 object had no checksum to compare" "the warning"
    else
        assert_not_contains "$T_ERR" "warning" "every object had a checksum"
        assert_ok s3c cp "s3://$b/s/big" big.back
        cmp -s big.back tree/big || t_fail "the multipart file's change did not go up"
    fi
    assert_ok s3c cp "s3://$b/s/d/f$((10000 + step))" f.back
    assert_eq "FILE $((10000 + step))" "$(cat f.back)" "a small file's change went up"

    heads=$(t_emu_ops HeadObject)
    puts=$(t_emu_ops PutObject)
    assert_ok s3c sync --checksum tree "s3://$b/s/"
    assert_eq "" "$T_OUT" "the second sync --checksum"
    t_assert_emu_ops HeadObject "$heads" 1 # the multipart object's stored CRC
    t_assert_emu_ops PutObject "$puts" 0
}

# Download and S3 to S3: a destination rewritten with other bytes of the same size, its time
# such that size and time call it up to date, is put back by --checksum and only by it.
test_sync_checksum_download_and_copy() {
    local b t
    t_new_bucket b
    mkdir src
    for i in 1 2 3; do printf 'object %s\n' "$i" > "src/o$i"; done
    assert_ok s3c sync src "s3://$b/a/"
    assert_ok s3c sync "s3://$b/a/" down/
    _sc_keep_time down/o2 "OBJECT 2"$'\n'
    assert_ok s3c sync "s3://$b/a/" down/
    assert_eq "" "$T_OUT" "download without --checksum"
    assert_ok s3c sync --checksum "s3://$b/a/" down/
    assert_eq "download: s3://$b/a/o2 to down/o2" "$T_OUT" "download with --checksum"
    assert_eq "object 2" "$(cat down/o2)" "the file's bytes put back"

    assert_ok s3c sync "s3://$b/a/" "s3://$b/c/"
    printf 'OBJECT 3\n' > o3x
    sleep 1.1 # (the destination newer than its source: size and time say it is up to date)
    assert_ok s3c cp o3x "s3://$b/c/o3"
    assert_ok s3c sync "s3://$b/a/" "s3://$b/c/"
    assert_eq "" "$T_OUT" "S3 to S3 without --checksum"
    assert_ok s3c sync --checksum "s3://$b/a/" "s3://$b/c/"
    assert_eq "copy: s3://$b/a/o3 to s3://$b/c/o3" "$T_OUT" "S3 to S3 with --checksum"
    assert_ok s3c cat "s3://$b/c/o3"
    assert_eq "object 3" "$T_OUT" "the copy's bytes"
    assert_ok s3c sync --checksum "s3://$b/a/" "s3://$b/c/"
    assert_eq "" "$T_OUT" "nothing left to copy"
}

# An object with no usable checksum (put in 6 MiB parts, a size no guess tries, with no
# flexible checksum): size and time decide for it, and the warning counts it; --quiet hides
# the warning. --checksum with --size-only is refused.
test_sync_checksum_without_a_checksum_size_and_time_decide() {
    local b
    t_new_bucket b
    mkdir tree
    head -c $((13 * 1048576)) "$(t_data cks-6mib $((13 * 1048576)))" > tree/odd
    t_mpu "$b" s/odd tree/odd $((6 * 1048576))
    touch -d '1 hour ago' tree/odd
    printf 'x' | dd of=tree/odd bs=1 seek=100 conv=notrunc status=none
    touch -d '1 hour ago' tree/odd
    assert_ok s3c sync --checksum tree "s3://$b/s/"
    assert_eq "" "$T_OUT" "left alone: its time says it is up to date"
    assert_contains "$T_ERR" "warning: sync --checksum: 1 object had no checksum to compare" "the warning"
    assert_ok s3c sync --checksum --quiet tree "s3://$b/s/"
    assert_eq "" "$T_ERR$T_OUT" "--quiet prints nothing"
    touch tree/odd # newer now: size and time say copy
    assert_ok s3c sync --checksum tree "s3://$b/s/"
    assert_eq "upload: tree/odd to s3://$b/s/odd" "$T_OUT" "copied: its time says so"
    assert_exit 252 s3c sync --checksum --size-only tree "s3://$b/s/"
    assert_contains "$T_ERR" "--checksum and --size-only contradict each other" "the refusal"
}
