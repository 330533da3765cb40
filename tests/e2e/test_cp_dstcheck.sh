# tests/e2e/test_cp_dstcheck.sh — issue 24 item 1: cp/mv -n, --if-size-differ and
# --if-source-newer learn about S3 destinations from one listing of the
# destination read beside a listed or walked source (plan/dstlist.h), or, where
# that would cost more, in flight (a HEAD per object as an ordinary engine
# request); a single upload under -n by If-None-Match: * alone; what is
# skipped, what goes and what is printed stay as they were.
# shellcheck shell=bash

# _dc_text BUCKET KEY TEXT: s3://BUCKET/KEY holds TEXT.
_dc_text() {
    t_get "$1" "$2" "$T_DIR/.got"
    assert_eq "$3" "$(cat "$T_DIR/.got")" "content of s3://$1/$2"
}

# _dc_sorted TEXT: its lines sorted (results come in the order they finish).
_dc_sorted() { LC_ALL=C sort <<<"$1"; }

# Twenty files, five already there: -n uploads the fifteen others and sends no
# HEAD at all: one listing of the destination finds the five. One file alone
# sends no HEAD either (If-None-Match: * is the check; a 412 is a silent skip).
test_cp_n_upload_sends_no_head() {
    local b i heads puts lists want=""
    t_new_bucket b
    mkdir tree
    for i in $(seq 1 20); do printf 'new %s' "$i" > "tree/f$i"; done
    for i in 1 5 9 13 17; do t_put_text "$b" "p/f$i" "old $i"; done
    for i in $(seq 1 20); do
        case $i in 1 | 5 | 9 | 13 | 17) ;; *) want+="upload: tree/f$i to s3://$b/p/f$i"$'\n' ;; esac
    done
    heads=$(t_emu_ops HeadObject)
    puts=$(t_emu_ops PutObject)
    lists=$(t_emu_ops ListObjectsV2)
    assert_ok s3c cp -r -n tree "s3://$b/p/"
    assert_eq "$(_dc_sorted "${want%$'\n'}")" "$(_dc_sorted "$T_OUT")" "stdout"
    assert_eq "" "$T_ERR" "stderr"
    t_assert_emu_ops HeadObject "$heads" 0
    t_assert_emu_ops PutObject "$puts" 15
    t_assert_emu_ops ListObjectsV2 "$lists" 1
    for i in 1 5 9 13 17; do _dc_text "$b" "p/f$i" "old $i"; done
    for i in 2 20; do _dc_text "$b" "p/f$i" "new $i"; done
    # One file, the same: skipped, silently, exit 0, no HEAD: its PutObject's 412 is the skip.
    heads=$(t_emu_ops HeadObject)
    puts=$(t_emu_ops PutObject)
    assert_ok s3c cp -n tree/f2 "s3://$b/p/f2"
    assert_eq "" "$T_OUT" "stdout of a skipped upload"
    t_assert_emu_ops HeadObject "$heads" 0
    t_assert_emu_ops PutObject "$puts" 1
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
    heads=$(t_emu_ops HeadObject)
    parts=$(t_emu_ops UploadPart)
    assert_ok s3c cp -n big "s3://$b/big"
    assert_eq "" "$T_OUT" "stdout of a skipped upload"
    t_assert_emu_ops HeadObject "$heads" 1
    t_assert_emu_ops UploadPart "$parts" 0
    _dc_text "$b" big "old"
    [ "$(t_mpu_count "$b")" = 0 ] || t_fail "a multipart upload was left behind"
}

# _dc_copy_trees SRC DST: s3://SRC/s/k1..k30 ("src N"), s3://DST/d/ holding every third
# ("old N"); 'want' gets the copy lines of the other twenty.
_dc_copy_trees() {
    local i
    mkdir s d
    for i in $(seq 1 30); do printf 'src %s' "$i" > "s/k$i"; done
    for i in 3 6 9 12 15 18 21 24 27 30; do printf 'old %s' "$i" > "d/k$i"; done
    t_seed_tree "$1" s s/
    t_seed_tree "$2" d d/
    for i in $(seq 1 30); do
        [ $((i % 3)) = 0 ] || want+="copy: s3://$1/s/k$i to s3://$2/d/k$i"$'\n'
    done
}

# S3 to S3 under -n: one listing of the destination beside the source's, no
# HEAD; the existing ones skipped, the rest copied.
test_cp_n_copy_reads_the_destination_listing() {
    local src dst i heads copies lists want=""
    t_new_bucket src
    t_new_bucket dst
    _dc_copy_trees "$src" "$dst"
    heads=$(t_emu_ops HeadObject)
    copies=$(t_emu_ops CopyObject)
    lists=$(t_emu_ops ListObjectsV2)
    assert_ok s3c --debug cp -r -n "s3://$src/s/" "s3://$dst/d/"
    assert_eq "$(_dc_sorted "${want%$'\n'}")" "$(_dc_sorted "$T_OUT")" "stdout"
    t_assert_emu_ops HeadObject "$heads" 0
    t_assert_emu_ops CopyObject "$copies" 20
    t_assert_emu_ops ListObjectsV2 "$lists" 2
    grep -q "destination listing s3://$dst/d/: 30 keys answered by 1 list requests" "$T_DIR/.err" ||
        t_fail "the destination's listing did not answer for the 30 keys: $(grep 'destination listing' "$T_DIR/.err")"
    for i in 3 30; do _dc_text "$dst" "d/k$i" "old $i"; done
    for i in 1 29; do _dc_text "$dst" "d/k$i" "src $i"; done
    # mv -n: skipped sources stay; moved ones go.
    assert_ok s3c mv -r -n "s3://$src/s/" "s3://$dst/d/"
    assert_eq "" "$T_OUT" "stdout: every destination exists now"
    assert_eq 30 "$(t_list_keys "$src" | grep -c .)" "source keys kept by mv -n"
}

# A destination prefix far larger than the source (30,000 keys listed before
# the 30 copied): the listing stops within its allowance and each object is
# HEADed instead, in flight (every check goes out before the second answer is
# taken). s3emu alone makes 30,000 keys quickly.
test_cp_n_copy_heads_in_flight_past_a_large_prefix() {
    local src dst i heads copies lists want="" checks first_answer
    t_store_is s3emu || { t_skip "s3emu's populate makes the large prefix"; return; }
    t_new_bucket src
    t_new_bucket dst
    curl -sSf -X POST "$S3C_TEST_ENDPOINT/_s3emu/populate?bucket=$dst&count=30000&prefix=d/&size=1" >/dev/null ||
        t_fail "populate s3://$dst/d/"
    _dc_copy_trees "$src" "$dst"
    heads=$(t_emu_ops HeadObject)
    copies=$(t_emu_ops CopyObject)
    lists=$(t_emu_ops ListObjectsV2)
    assert_ok s3c --debug cp -r -n "s3://$src/s/" "s3://$dst/d/"
    cp "$T_DIR/.err" debug.log
    assert_eq "$(_dc_sorted "${want%$'\n'}")" "$(_dc_sorted "$T_OUT")" "stdout"
    t_assert_emu_ops HeadObject "$heads" 30
    t_assert_emu_ops CopyObject "$copies" 20
    # Listing it all takes 30 pages at least: it stopped well before (the keys asked, 1, plus 16,
    # plus what went out at once; a hedged page may add one or two).
    i=$(sed -n "s|.*list s3://$dst/d/: \([0-9]*\) requests.*|\1|p" debug.log)
    [ -n "$i" ] && [ "$i" -lt 30 ] ||
        t_fail "the destination's listing went on past its allowance: $(grep 'list s3://' debug.log)"
    i=$(($(t_emu_ops ListObjectsV2) - lists))
    [ "$i" -lt 30 ] || t_fail "s3emu answered $i list requests"
    grep -q "destination listing s3://$dst/d/: off after 1 keys, .*: the prefix holds far more keys than are asked" \
        debug.log || t_fail "no word of the listing stopping: $(grep 'destination listing' debug.log)"
    for i in 3 30; do _dc_text "$dst" "d/k$i" "old $i"; done
    for i in 1 29; do _dc_text "$dst" "d/k$i" "src $i"; done
    checks=$(grep -n 'phase NEW -> CHECK' debug.log | cut -d: -f1 | tail -n 1)
    first_answer=$(grep -n 'phase CHECK -> ' debug.log | cut -d: -f1 | sed -n 2p)
    assert_eq 30 "$(grep -c 'phase NEW -> CHECK' debug.log)" "objects whose destination was checked"
    [ -n "$first_answer" ] && [ "$checks" -lt "$first_answer" ] ||
        t_fail "a check was sent after another was answered (one by one, not in flight)"
    s3c rm -r --quiet "s3://$dst/" # the teardown's listing in shell would take seconds
}

# The listing is merged in S3's order, and a walk yields names in that order
# too ("a-b" < "a.b" < "a/b" < "a/c/d" < "a0" < "b"): the keys there are
# found, whatever their place, and the others written.
test_cp_n_destination_listing_in_s3_order() {
    local b heads want
    t_new_bucket b
    mkdir -p tree/a/c
    for f in a-b a.b a/b a/c/d a0 b; do printf 'new %s' "$f" > "tree/$f"; done
    for f in a.b a/c/d b; do t_put_text "$b" "p/$f" "old $f"; done
    heads=$(t_emu_ops HeadObject)
    assert_ok s3c --debug cp -r -n tree "s3://$b/p"
    want="upload: tree/a-b to s3://$b/p/a-b
upload: tree/a/b to s3://$b/p/a/b
upload: tree/a0 to s3://$b/p/a0"
    assert_eq "$want" "$(_dc_sorted "$T_OUT")" "stdout"
    t_assert_emu_ops HeadObject "$heads" 0
    grep -q "destination listing s3://$b/p/: 6 keys answered" "$T_DIR/.err" ||
        t_fail "the listing did not answer for all six: $(grep 'destination listing' "$T_DIR/.err")"
    for f in a.b a/c/d b; do _dc_text "$b" "p/$f" "old $f"; done
    for f in a-b a/b a0; do _dc_text "$b" "p/$f" "new $f"; done
}

# --if-size-differ and --if-source-newer, to S3, from files and from S3: an
# existing destination is skipped unless its size differs / it is older; a
# missing one is written. No HEAD: the destination's listing says.
test_cp_if_size_differ_and_if_source_newer_to_s3() {
    local b src heads
    t_new_bucket b
    t_new_bucket src
    mkdir up
    printf 'xx' > up/same; printf 'xxx' > up/longer; printf 'n' > up/missing
    t_put_text "$b" u/same "yy"
    t_put_text "$b" u/longer "y"
    heads=$(t_emu_ops HeadObject)
    assert_ok s3c cp -r --if-size-differ up "s3://$b/u/"
    assert_eq "$(_dc_sorted "upload: up/longer to s3://$b/u/longer
upload: up/missing to s3://$b/u/missing")" "$(_dc_sorted "$T_OUT")" "stdout"
    t_assert_emu_ops HeadObject "$heads" 0
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
    heads=$(t_emu_ops HeadObject)
    assert_ok s3c cp -r --if-size-differ "s3://$src/" "s3://$b/c/"
    assert_eq "copy: s3://$src/longer to s3://$b/c/longer" "$T_OUT"
    t_assert_emu_ops HeadObject "$heads" 0
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
