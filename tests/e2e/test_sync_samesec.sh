# tests/e2e/test_sync_samesec.sh — issue 24 item 2 for sync's same second: an
# entry whose ends have the same size and the same second is copied unless a
# checksum proves them the same (test_trust_proof.sh pins what is copied).
# The proof is the engine's (src/xfer/prove.c): the local files are read by
# the hash workers, and the HEADs that ask for stored CRCs go out in flight
# beside each other, never one by one from the planner; what is copied, what
# is printed and what is sent stay as they were.
# shellcheck shell=bash

# _ss_into_second BUCKET KEY FILE: FILE's time inside the second of s3://BUCKET/KEY's
# LastModified (half a second in: written within it, after the sync that wrote the object).
_ss_into_second() {
    touch -d "@$(date -d "$(t_head_header "$1" "$2" last-modified)" +%s).5" "$3"
}

# Thirty files rewritten within the second of the sync that uploaded them:
# twenty with the same bytes (their MD5 is the ETag: nothing sent for them),
# ten with other bytes of the same size. Those ten each ask the destination
# for its stored CRC, and all ten HEADs are out before the first is answered
# (each answer is held 400 ms); then each is uploaded. A dry run first says
# the same in place (it proves in place: it sends nothing else).
test_sync_samesec_heads_in_flight() {
    local b i heads puts want="" dry_want="" sent first_answer
    t_new_bucket b
    mkdir tree
    for i in $(seq 10 39); do printf 'file %s\n' "$i" > "tree/f$i"; done
    assert_ok s3c sync tree "s3://$b/s/"
    for i in $(seq 10 39); do
        if [ $((i % 3)) = 0 ]; then
            printf 'FILE %s\n' "$i" > "tree/f$i" # same size, other bytes
            want+="upload: tree/f$i to s3://$b/s/f$i"$'\n'
        fi
        _ss_into_second "$b" "s/f$i" "tree/f$i"
    done
    dry_want=$(sed 's/^/(dryrun) /' <<<"${want%$'\n'}")
    heads=$(t_emu_ops HeadObject)
    puts=$(t_emu_ops PutObject)
    assert_ok s3c sync --dryrun tree "s3://$b/s/"
    assert_eq "$dry_want" "$(LC_ALL=C sort <<<"$T_OUT")" "stdout of the dry run"
    t_assert_emu_ops HeadObject "$heads" 10
    t_assert_emu_ops PutObject "$puts" 0
    if t_store_is s3emu; then
        curl -sS --fail-with-body -X POST --data-binary "faults=delay@bucket=$b,op=HeadObject,ms=400" \
            "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null || t_fail "s3emu refused the faults"
    fi
    heads=$(t_emu_ops HeadObject)
    assert_ok s3c --debug sync tree "s3://$b/s/"
    cp "$T_DIR/.err" debug.log
    t_store_is s3emu && curl -sS -X POST --data-binary "faults=" "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null
    assert_eq "${want%$'\n'}" "$(LC_ALL=C sort <<<"$T_OUT")" "stdout"
    t_assert_emu_ops HeadObject "$heads" 10
    t_assert_emu_ops PutObject "$puts" 10
    # In flight: every proof's HEAD sent before the first answer came back (s3emu holds each
    # answer; a store that answers at once may answer one before the last file is hashed).
    sent=$(grep -n 'debug: http: HEAD http' debug.log | cut -d: -f1 | tail -n 1)
    first_answer=$(grep -n 'debug: http: HEAD -> ' debug.log | cut -d: -f1 | head -n 1)
    assert_eq 10 "$(grep -c 'debug: http: HEAD http' debug.log)" "HEADs in the debug lines"
    if t_store_is s3emu; then
        [ -n "$first_answer" ] && [ "$sent" -lt "$first_answer" ] ||
            t_fail "a HEAD was sent after another was answered (one by one, not in flight)"
    fi
    assert_eq 30 "$(grep -c 'phase NEW -> PROVE' debug.log)" "objects whose same second was looked at"
    assert_eq 20 "$(grep -c 'the same bytes at both ends: skipped' debug.log)" "objects proven the same"
    t_get "$b" s/f12 got && assert_eq "FILE 12" "$(cat got)" "s3://$b/s/f12"
    t_get "$b" s/f11 got && assert_eq "file 11" "$(cat got)" "s3://$b/s/f11"
    # Nothing left to do.
    assert_ok s3c sync tree "s3://$b/s/"
    assert_eq "" "$T_OUT" "a sync after the sync"
}

# Files of 20 MiB, the same bytes in their objects' second: one uploaded in
# 8 MiB parts (the md5 of its part MD5s at the guessed part size proves it),
# one in 7 MiB parts, a size no guess finds (its stored full-object CRC64NVME
# against the file's, one HEAD); both ways, nothing moves and no part is sent.
test_sync_samesec_multipart_proven_both_ways() {
    local b heads parts gets f lm
    t_store_is ceph && t_skip "Ceph 16 keeps no flexible checksums: nothing stored proves b by CRC"
    t_new_bucket b
    mkdir up
    cp "$(t_data 20MiB $((20 * 1024 * 1024)))" up/a
    cp up/a up/b
    assert_ok s3c cp up/a "s3://$b/m/a" --part-size 8MiB
    assert_ok s3c cp up/b "s3://$b/m/b" --part-size 7MiB
    for f in a b; do _ss_into_second "$b" "m/$f" "up/$f"; done
    heads=$(t_emu_ops HeadObject)
    parts=$(t_emu_ops UploadPart)
    assert_ok s3c --debug sync up "s3://$b/m/"
    assert_eq "" "$T_OUT" "stdout of the upload sync"
    assert_contains "$T_ERR" "s3://$b/m/a: same second: the md5 of the file's part MD5s is the ETag"
    assert_contains "$T_ERR" "s3://$b/m/b: same second: the file's CRC is the stored one"
    t_assert_emu_ops HeadObject "$heads" 1
    t_assert_emu_ops UploadPart "$parts" 0
    # Down: a download stamps the object's second (--no-preserve: not the mtime the upload
    # recorded, test_fattr.sh); a fraction in it is a rewrite.
    assert_ok s3c sync --no-preserve "s3://$b/m/" down
    for f in a b; do touch -d "@$(stat -c %Y "down/$f").5" "down/$f"; done
    heads=$(t_emu_ops HeadObject)
    gets=$(t_emu_ops GetObject)
    assert_ok s3c sync --no-preserve "s3://$b/m/" down
    assert_eq "" "$T_OUT" "stdout of the download sync"
    t_assert_emu_ops HeadObject "$heads" 1
    t_assert_emu_ops GetObject "$gets" 0
    # One byte changed in place, same size: the stored CRC says so, it comes down again.
    lm=$(stat -c %Y down/b)
    printf 'Z' | dd of=down/b bs=1 seek=100 conv=notrunc 2>/dev/null
    touch -d "@$lm.5" down/b
    assert_ok s3c sync --no-preserve "s3://$b/m/" down
    assert_eq "download: s3://$b/m/b to down/b" "$T_OUT" "the changed file"
    assert_eq "$(t_sha256 up/b)" "$(t_sha256 down/b)" "down/b"
}
