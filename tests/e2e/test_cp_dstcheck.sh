# tests/e2e/test_cp_dstcheck.sh — issue 24 item 1: cp/mv -n, --if-size-differ and
# --if-source-newer learn about S3 destinations in flight (a HEAD per object
# as an ordinary engine request), and uploads under -n by If-None-Match: *
# alone; what is skipped, what goes and what is printed stay as they were.
# shellcheck shell=bash

# _dc_emu_ops OP: how many OP requests s3emu has answered since its start (0 elsewhere).
_dc_emu_ops() {
    t_store_is s3emu || { echo 0; return; }
    curl -sS "$S3C_TEST_ENDPOINT/_s3emu/stats" | jq -r ".ops[\"$1\"] // 0"
}

# _dc_assert_ops OP BEFORE WANT: s3emu answered WANT OP requests since BEFORE (s3emu only).
_dc_assert_ops() {
    t_store_is s3emu || return 0
    assert_eq "$3" "$(($(_dc_emu_ops "$1") - $2))" "$1 requests s3emu answered"
}

# _dc_text BUCKET KEY TEXT: s3://BUCKET/KEY holds TEXT.
_dc_text() {
    t_get "$1" "$2" "$T_DIR/.got"
    assert_eq "$3" "$(cat "$T_DIR/.got")" "content of s3://$1/$2"
}

# _dc_sorted TEXT: its lines sorted (results come in the order they finish).
_dc_sorted() { LC_ALL=C sort <<<"$1"; }

# Twenty files, five already there: -n uploads the fifteen others and sends no
# HEAD at all (If-None-Match: * is the check; a 412 is a silent skip).
test_cp_n_upload_sends_no_head() {
    local b i heads puts want=""
    t_new_bucket b
    mkdir tree
    for i in $(seq 1 20); do printf 'new %s' "$i" > "tree/f$i"; done
    for i in 1 5 9 13 17; do t_put_text "$b" "p/f$i" "old $i"; done
    for i in $(seq 1 20); do
        case $i in 1 | 5 | 9 | 13 | 17) ;; *) want+="upload: tree/f$i to s3://$b/p/f$i"$'\n' ;; esac
    done
    heads=$(_dc_emu_ops HeadObject)
    puts=$(_dc_emu_ops PutObject)
    assert_ok s3c cp -r -n tree "s3://$b/p/"
    assert_eq "$(_dc_sorted "${want%$'\n'}")" "$(_dc_sorted "$T_OUT")" "stdout"
    assert_eq "" "$T_ERR" "stderr"
    _dc_assert_ops HeadObject "$heads" 0
    _dc_assert_ops PutObject "$puts" 20
    for i in 1 5 9 13 17; do _dc_text "$b" "p/f$i" "old $i"; done
    for i in 2 20; do _dc_text "$b" "p/f$i" "new $i"; done
    # One file, the same: skipped, silently, exit 0, no HEAD.
    heads=$(_dc_emu_ops HeadObject)
    assert_ok s3c cp -n tree/f2 "s3://$b/p/f2"
    assert_eq "" "$T_OUT" "stdout of a skipped upload"
    _dc_assert_ops HeadObject "$heads" 0
    # mv -n: the skipped file stays where it is, the others move.
    printf 'moved' > tree/new1
    assert_ok s3c mv -n tree/f1 "s3://$b/p/f1"
    assert_eq "" "$T_OUT" "stdout of a skipped move"
    [ -f tree/f1 ] || t_fail "mv -n removed the file it skipped"
    assert_ok s3c mv -n tree/new1 "s3://$b/p/new1"
    assert_eq "move: tree/new1 to s3://$b/p/new1" "$T_OUT"
    [ ! -e tree/new1 ] || t_fail "mv -n kept a file it moved"
    _dc_text "$b" p/f1 "old 1"
}

# A file past the multipart threshold under -n: one HEAD first, so an existing
# object costs no parts (If-None-Match on Complete would come after them all).
test_cp_n_multipart_upload_heads_first() {
    local b heads parts
    t_new_bucket b
    cp "$(t_data 8MiB+1 $((8 * 1024 * 1024 + 1)))" big
    t_put_text "$b" big "old"
    heads=$(_dc_emu_ops HeadObject)
    parts=$(_dc_emu_ops UploadPart)
    assert_ok s3c cp -n big "s3://$b/big"
    assert_eq "" "$T_OUT" "stdout of a skipped upload"
    _dc_assert_ops HeadObject "$heads" 1
    _dc_assert_ops UploadPart "$parts" 0
    _dc_text "$b" big "old"
    [ "$(t_mpu_count "$b")" = 0 ] || t_fail "a multipart upload was left behind"
}

# S3 to S3 under -n: one HEAD per object, sent together (every check goes out
# before the second answer is taken), the existing ones skipped, the rest copied.
test_cp_n_copy_checks_in_flight() {
    local src dst i heads copies want="" checks first_answer
    t_new_bucket src
    t_new_bucket dst
    for i in $(seq 1 30); do t_put_text "$src" "s/k$i" "src $i"; done
    for i in 3 6 9 12 15 18 21 24 27 30; do t_put_text "$dst" "d/k$i" "old $i"; done
    for i in $(seq 1 30); do
        [ $((i % 3)) = 0 ] || want+="copy: s3://$src/s/k$i to s3://$dst/d/k$i"$'\n'
    done
    heads=$(_dc_emu_ops HeadObject)
    copies=$(_dc_emu_ops CopyObject)
    assert_ok s3c --debug cp -r -n "s3://$src/s/" "s3://$dst/d/"
    cp "$T_DIR/.err" debug.log
    assert_eq "$(_dc_sorted "${want%$'\n'}")" "$(_dc_sorted "$T_OUT")" "stdout"
    _dc_assert_ops HeadObject "$heads" 30
    _dc_assert_ops CopyObject "$copies" 20
    for i in 3 30; do _dc_text "$dst" "d/k$i" "old $i"; done
    for i in 1 29; do _dc_text "$dst" "d/k$i" "src $i"; done
    # In flight: the first check goes alone (the engine learns where the bucket is
    # first), the 29 others all before any of those is answered.
    checks=$(grep -n 'phase NEW -> CHECK' debug.log | cut -d: -f1 | tail -n 1)
    first_answer=$(grep -n 'phase CHECK -> ' debug.log | cut -d: -f1 | sed -n 2p)
    assert_eq 30 "$(grep -c 'phase NEW -> CHECK' debug.log)" "objects whose destination was checked"
    [ -n "$first_answer" ] && [ "$checks" -lt "$first_answer" ] ||
        t_fail "a check was sent after another was answered (one by one, not in flight)"
    # mv -n: skipped sources stay; moved ones go.
    assert_ok s3c mv -r -n "s3://$src/s/" "s3://$dst/d/"
    assert_eq "" "$T_OUT" "stdout: every destination exists now"
    assert_eq 30 "$(t_list_keys "$src" | grep -c .)" "source keys kept by mv -n"
}

# --if-size-differ and --if-source-newer, to S3, from files and from S3: an
# existing destination is skipped unless its size differs / it is older; a
# missing one is written. One HEAD per object, from the engine.
test_cp_if_size_differ_and_if_source_newer_to_s3() {
    local b src heads
    t_new_bucket b
    t_new_bucket src
    mkdir up
    printf 'xx' > up/same; printf 'xxx' > up/longer; printf 'n' > up/missing
    t_put_text "$b" u/same "yy"
    t_put_text "$b" u/longer "y"
    heads=$(_dc_emu_ops HeadObject)
    assert_ok s3c cp -r --if-size-differ up "s3://$b/u/"
    assert_eq "$(_dc_sorted "upload: up/longer to s3://$b/u/longer
upload: up/missing to s3://$b/u/missing")" "$(_dc_sorted "$T_OUT")" "stdout"
    _dc_assert_ops HeadObject "$heads" 3
    _dc_text "$b" u/same "yy"
    _dc_text "$b" u/longer "xxx"

    # Newer: a file from 2000 is older than any object; one from tomorrow is newer.
    printf 'old file' > up/same; touch -d '2000-01-01' up/same
    printf 'new file' > up/longer; touch -d 'tomorrow' up/longer
    rm up/missing
    assert_ok s3c cp -r --if-source-newer up "s3://$b/u/"
    assert_eq "upload: up/longer to s3://$b/u/longer" "$T_OUT"
    _dc_text "$b" u/same "yy"
    _dc_text "$b" u/longer "new file"

    # S3 to S3, by size.
    t_put_text "$src" same "ab"
    t_put_text "$src" longer "abc"
    t_put_text "$b" c/same "cd"
    t_put_text "$b" c/longer "c"
    heads=$(_dc_emu_ops HeadObject)
    assert_ok s3c cp -r --if-size-differ "s3://$src/" "s3://$b/c/"
    assert_eq "copy: s3://$src/longer to s3://$b/c/longer" "$T_OUT"
    _dc_assert_ops HeadObject "$heads" 2
    _dc_text "$b" c/same "cd"
    _dc_text "$b" c/longer "abc"
    # S3 to S3, by time: n/a is newer than its source, n/b older; n/c missing.
    t_put_text "$b" n/b "dst b"
    t_put_text "$src" t/a "src a"
    sleep 1.2
    t_put_text "$b" n/a "dst a"
    t_put_text "$src" t/b "src b"
    t_put_text "$src" t/c "src c"
    assert_ok s3c cp -r --if-source-newer "s3://$src/t/" "s3://$b/n/"
    assert_eq "$(_dc_sorted "copy: s3://$src/t/b to s3://$b/n/b
copy: s3://$src/t/c to s3://$b/n/c")" "$(_dc_sorted "$T_OUT")" "stdout"
    _dc_text "$b" n/a "dst a"
    _dc_text "$b" n/b "src b"
    # --dryrun looks at the destination too, and writes nothing.
    assert_ok s3c cp -r --dryrun --if-size-differ "s3://$src/" "s3://$b/c/"
    assert_eq "$(_dc_sorted "(dryrun) copy: s3://$src/t/a to s3://$b/c/t/a
(dryrun) copy: s3://$src/t/b to s3://$b/c/t/b
(dryrun) copy: s3://$src/t/c to s3://$b/c/t/c")" "$(_dc_sorted "$T_OUT")" "dry run"
}
