# tests/e2e/test_looplag.sh — issue 24 item 2: nothing blocks an event-loop
# thread. The suite checks every s3c for blocking calls on loop threads (the
# checker build/slowcalls.so and the loop-lag probe: lib.sh). These tests
# also make the checked calls slow (S3C_SLOW_CALLS_MS=300: a slow DNS server,
# NFS, a slow disk), drive s3c through the paths that make them, and prove
# from the checker's count that each call was made, on some thread, without
# a report: made on a loop thread, it would leave one (and block 300 ms).
# shellcheck shell=bash

# _ll_s3c ARGS...: s3c with the checked calls slow, counted in $T_DIR/.slow.
_ll_s3c() {
    [ -f "$E2E_CHECKER" ] || t_fail "no $E2E_CHECKER (make builds it)"
    S3C_SLOW_CALLS_MS=300 S3C_SLOW_CALLS_LOG=$T_DIR/.slow s3c "$@" # $S3C preloads the checker (lib.sh)
}

# _ll_made NAME: the shim saw at least one call of NAME (any thread).
_ll_made() {
    grep -qx "$1" "$T_DIR/.slow" 2>/dev/null || t_fail "no $1 call reached the shim: the test missed its point"
}

# _ll_emu_ops OP: how many OP requests s3emu has answered since its start (0 elsewhere).
_ll_emu_ops() {
    t_store_is s3emu || { echo 0; return; }
    curl -sS "$S3C_TEST_ENDPOINT/_s3emu/stats" | jq -r ".ops[\"$1\"] // 0"
}

# _ll_no_lag: no loop thread was blocked so far (the harness checks again at the end).
_ll_no_lag() {
    [ ! -s "$T_DIR/.lag" ] || t_fail "a loop thread was blocked: $(cat "$T_DIR/.lag")"
}

# Names resolve on a thread of the resolver's own, never on the loop (the
# endpoint named "localhost", which the resolver cache asks getaddrinfo for).
test_looplag_dns_off_the_loop() {
    local b i
    [[ $S3C_TEST_ENDPOINT == *//127.0.0.1:* ]] || t_skip "the endpoint is not on 127.0.0.1: no name to give it"
    t_new_bucket b
    mkdir tree
    for i in $(seq 1 40); do echo "file $i" > "tree/f$i"; done
    export AWS_ENDPOINT_URL=${S3C_TEST_ENDPOINT/\/\/127.0.0.1:/\/\/localhost:}
    assert_ok _ll_s3c cp -r tree "s3://$b/t/"
    assert_ok _ll_s3c cp -r "s3://$b/t/" back
    assert_eq "$(t_tree_sums tree)" "$(t_tree_sums back)" "every file back"
    _ll_made getaddrinfo
    _ll_no_lag
}

# A large download's temp file is reserved with fallocate(2), which fails at
# once where glibc's posix_fallocate would write a byte a block on the loop.
test_looplag_no_emulated_preallocation() {
    local b
    t_new_bucket b
    cp "$(t_data 3MB 3000000)" src
    t_put "$b" big src
    assert_ok _ll_s3c cp "s3://$b/big" got
    assert_eq "$(t_sha256 src)" "$(t_sha256 got)" "the bytes"
    ! grep -qx posix_fallocate "$T_DIR/.slow" 2>/dev/null || t_fail "posix_fallocate called (on the loop: $(cat "$T_DIR/.lag" 2>/dev/null))"
    _ll_no_lag
}

# A journaled download (--resume) syncs its temp file before each record, off the loop.
test_looplag_journal_sync_off_the_loop() {
    local b
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    cp "$(t_data 24MB 24000000)" src
    assert_ok s3c cp src "s3://$b/big" --part-size 5MiB
    assert_ok _ll_s3c cp "s3://$b/big" got --part-size 5MiB --resume --bwlimit 12MB/s --concurrency 2
    assert_eq "$(t_sha256 src)" "$(t_sha256 got)" "the bytes"
    _ll_made fdatasync
    _ll_no_lag
}

# sync's same second: forty files rewritten with the same bytes within their
# objects' second are each read whole and MD5'd to prove them unchanged, by
# the hash workers (pread), never on the loop: the planner's next() read
# them there with read(2) once. With S3C_SLOW_READ=1 and S3C_SLOW_PREAD=1 the
# checker reports either call on a loop thread.
test_looplag_sync_same_second_reads_off_the_loop() {
    local b i puts heads
    t_new_bucket b
    mkdir tree
    for i in $(seq 1 40); do echo "file $i" > "tree/f$i"; done
    assert_ok s3c sync tree "s3://$b/t/"
    for i in $(seq 1 40); do
        touch -d "@$(date -d "$(t_head_header "$b" "t/f$i" last-modified)" +%s).5" "tree/f$i"
    done
    puts=$(_ll_emu_ops PutObject)
    heads=$(_ll_emu_ops HeadObject)
    S3C_SLOW_READ=1 S3C_SLOW_PREAD=1 S3C_SLOW_CALLS_MS=1 S3C_SLOW_CALLS_LOG=$T_DIR/.slow \
        assert_ok s3c sync tree "s3://$b/t/"
    assert_eq "" "$T_OUT" "stdout: every file proven the same"
    assert_eq 0 "$(($(_ll_emu_ops PutObject) - puts))" "PutObject requests s3emu answered"
    assert_eq 0 "$(($(_ll_emu_ops HeadObject) - heads))" "HeadObject requests s3emu answered"
    _ll_made pread
    _ll_no_lag
}

# _ll_inventory SRC DST NFILES: 20 x NFILES files in tree/, uploaded to
# s3://SRC/t/, and an S3 Inventory report of them in s3://DST/inv/ (its
# manifest.json in inv/m/, NFILES gzip'd data files of 20 rows in inv/data/).
_ll_inventory() {
    local b=$1 c=$2 n=$3 i f files=""
    mkdir -p tree inv/m inv/data
    for i in $(seq 1 $((n * 20))); do echo "file $i" > "tree/f$i"; done
    assert_ok s3c cp -r --only-show-errors tree "s3://$b/t/"
    for ((f = 0; f < n; f++)); do
        for i in $(seq $((f * 20 + 1)) $((f * 20 + 20))); do
            printf '"%s","t/f%s","%s","2030-01-01T00:00:00.000Z"\n' "$b" "$i" "$(wc -c < "tree/f$i")"
        done | gzip > "inv/data/part-$f.csv.gz"
        files="$files${files:+,}{\"key\":\"inv/data/part-$f.csv.gz\"}"
    done
    printf '{"sourceBucket":"%s","destinationBucket":"arn:aws:s3:::%s","fileFormat":"CSV","fileSchema":"Bucket, Key, Size, LastModifiedDate","files":[%s]}\n' \
        "$b" "$c" "$files" > inv/m/manifest.json
    assert_ok s3c cp -r --only-show-errors inv "s3://$c/inv/"
}

# A retried request of the source (here the inventory's second data file,
# fetched as the first one's objects are in flight) waits out its backoff
# as a time the source polls, not in a sleep that would hold every transfer
# of the home loop.
test_looplag_retry_backoff_waits_on_the_loop() {
    local b c
    [ "$S3C_TEST_STORE" = s3emu ] || t_skip "fault injection is s3emu's"
    t_new_bucket b
    t_new_bucket c
    _ll_inventory "$b" "$c" 2
    curl -sS --fail-with-body -X POST --data-binary "faults=500@bucket=$c,key=inv/data/part-1*,op=GetObject,times=2" \
        "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null || t_fail "s3emu refused the faults"
    assert_ok s3c cp --from-manifest "s3://$c/inv/m/manifest.json" "s3://$b/t/" down
    curl -sS "$S3C_TEST_ENDPOINT/_s3emu/stats" > stats.json
    curl -sS -X POST --data-binary "faults=" "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null
    assert_eq 2 "$(jq '[.rules[] | .fired // 0] | add' stats.json)" "the second data file's GETs answered 500 (each retried)"
    assert_eq "$(t_tree_sums tree)" "$(t_tree_sums down)" "every object down"
    _ll_no_lag
}

# A resumed upload re-reads each part the store already has and hashes it (its
# ETag against the MD5 of the local bytes: up to 5 GiB a part) on the hash
# workers, never on the loop. Here every part is in (the run was killed while
# it retried its Complete, which s3emu answered 500), so no loop reads a
# part body, and the checker
# (S3C_SLOW_PREAD=1) reports any pread of the file on a loop thread.
test_looplag_resumed_upload_checks_parts_off_the_loop() {
    local b pid i
    [ "$S3C_TEST_STORE" = s3emu ] || t_skip "fault injection is s3emu's"
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    cp "$(t_data 24MB 24000000)" src
    curl -sS --fail-with-body -X POST --data-binary "faults=500@bucket=$b,op=CompleteMultipartUpload" \
        "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null || t_fail "s3emu refused the faults"
    # Retries enough that the run is still retrying its Complete when killed, however loaded the machine.
    AWS_MAX_ATTEMPTS=30 "$S3C" cp src "s3://$b/big" --part-size 5MiB >/dev/null 2>&1 &
    pid=$!
    for i in $(seq 1 300); do
        curl -sS "$S3C_TEST_ENDPOINT/_s3emu/stats" | jq -e '[.rules[] | .fired // 0] | add >= 1' >/dev/null && break
        sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    curl -sS -X POST --data-binary "faults=" "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null
    assert_eq 1 "$(ls "$S3C_STATE_DIR" | wc -l)" "one journal left by the killed run"
    # 1 ms a pread (the checker's report is exact; 300 would make each slice slow).
    S3C_SLOW_PREAD=1 S3C_SLOW_CALLS_MS=1 S3C_SLOW_CALLS_LOG=$T_DIR/.slow assert_ok s3c --debug cp src "s3://$b/big" --part-size 5MiB --resume
    assert_eq 0 "$(grep -c 'debug: http: PUT -> ' <<< "$T_ERR")" "no part sent again: all 5 were checked and ours"
    assert_ok s3c cp "s3://$b/big" got
    assert_eq "$(t_sha256 src)" "$(t_sha256 got)" "the bytes"
    _ll_made pread
    _ll_no_lag
}

# A resumed download's parts taken from the killed run are re-read into the
# whole-object check (here the stored CRC64NVME, combined per part) by a hash
# worker, never on the loop (it read 8 MiB a loop step there).
test_looplag_resumed_download_rereads_parts_off_the_loop() {
    local b pid i hex=""
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    cp "$(t_data 24MB 24000000)" src
    assert_ok s3c cp src "s3://$b/big" --part-size 5MiB
    s3c cp "s3://$b/big" got --part-size 5MiB --resume --bwlimit 4MB/s --concurrency 1 >/dev/null 2>&1 &
    pid=$!
    for i in $(seq 1 300); do # until the journal records a part on disk
        hex=$(sed -n 's/^done //p' "$S3C_STATE_DIR"/*.download 2>/dev/null)
        [[ $hex == *[1-9a-f]* ]] && break
        sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    [[ $hex == *[1-9a-f]* ]] || t_fail "the killed run recorded no part"
    # 1 ms a pread (the checker's report is exact; 300 would make each slice slow).
    S3C_SLOW_PREAD=1 S3C_SLOW_CALLS_MS=1 S3C_SLOW_CALLS_LOG=$T_DIR/.slow assert_ok s3c --debug cp "s3://$b/big" got --part-size 5MiB --resume
    assert_contains "$T_ERR" "parts already in"
    assert_eq "$(t_sha256 src)" "$(t_sha256 got)" "the bytes"
    _ll_made pread
    _ll_no_lag
}

# A download's temp file is made, and its space reserved with fallocate(2)
# (many ms for a 100 GB file on ext4 or xfs), by a land worker, the object
# waiting in PH_OPEN: one GET into a temp file, and a journaled ranged one
# (--resume, whose earlier record is looked for there too).
test_looplag_temp_file_made_off_the_loop() {
    local b
    t_new_bucket b
    export S3C_STATE_DIR=$T_DIR/state
    cp "$(t_data 3MB 3000000)" one
    cp "$(t_data 24MB 24000000)" ranged
    t_put "$b" one one
    assert_ok s3c cp ranged "s3://$b/ranged" --part-size 5MiB
    assert_ok _ll_s3c --debug cp "s3://$b/one" got1
    assert_contains "$T_ERR" "phase OPEN -> SINGLE"
    assert_ok _ll_s3c --debug cp "s3://$b/ranged" got2 --part-size 5MiB --resume
    assert_contains "$T_ERR" "phase OPEN -> PROBE"
    assert_eq "$(t_sha256 one)" "$(t_sha256 got1)" "the bytes of one"
    assert_eq "$(t_sha256 ranged)" "$(t_sha256 got2)" "the bytes of ranged"
    _ll_made fallocate
    assert_eq 2 "$(grep -cx fallocate "$T_DIR/.slow")" "one reservation a download"
    _ll_no_lag
}

# _ll_next_s3c ARGS...: s3c with every wait of the home loop inside the
# engine's call to its source's next() reported as a loop-block (the checker,
# S3C_CHECK_NEXT_WAITS=1): a source that ran a request to its end there
# would step the loop from inside the engine's turn (its answers, hedges and
# fills stalled meanwhile). "next" in $T_DIR/.slow proves the checker heard.
_ll_next_s3c() {
    [ -f "$E2E_CHECKER" ] || t_fail "no $E2E_CHECKER (make builds it)"
    S3C_CHECK_NEXT_WAITS=1 S3C_SLOW_CALLS_LOG=$T_DIR/.slow s3c "$@"
}

# _ll_rules: the fault rules' [matched, fired] as "m/f m/f ...", in order.
_ll_rules() {
    curl -sS "$S3C_TEST_ENDPOINT/_s3emu/stats" | jq -r '[.rules[] | "\(.matched // 0)/\(.fired // 0)"] | join(" ")'
}

# _ll_faults SPEC: s3emu's fault rules from now on ("" for none).
_ll_faults() {
    curl -sS --fail-with-body -X POST --data-binary "faults=$1" "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null ||
        t_fail "s3emu refused the faults"
}

# rm --all-versions on the engine: each ListObjectVersions page (here 2,
# the second answered 503 once and retried after its backoff) is a request
# the source polls, answering XFER_NEXT_LATER while it is out, never one it
# waits for inside next(); every version goes, each page asked for once
# more than it failed.
test_looplag_versions_pages_not_waited_in_next() {
    local b i
    [ "$S3C_TEST_STORE" = s3emu ] || t_skip "fault injection is s3emu's"
    t_new_bucket b
    t_versioning "$b" Enabled
    mkdir tree
    for i in $(seq 1 600); do echo "file $i" > "tree/f$i"; done
    assert_ok s3c cp -r --only-show-errors tree "s3://$b/t/"
    assert_ok s3c cp -r --only-show-errors tree "s3://$b/t/" # 1,200 versions: two pages
    curl -sS --fail-with-body -X POST --data-binary \
        "faults=503@bucket=$b,op=ListObjectVersions,nth=2;delay@bucket=$b,op=ListObjectVersions,ms=300" \
        "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null || t_fail "s3emu refused the faults"
    assert_ok _ll_next_s3c rm -r --all-versions "s3://$b/t/"
    local rules
    rules=$(_ll_rules)
    curl -sS -X POST --data-binary "faults=" "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null
    assert_eq "3/1 2/2" "$rules" "pages asked: 2, and the second once more after its 503"
    assert_lines 1200 "$T_OUT" "a delete line a version"
    assert_ok s3c ls --all-versions -r "s3://$b/"
    assert_eq "" "$T_OUT" "no version left"
    _ll_made next
    _ll_no_lag
}

# cp --from-manifest of an inventory of three data files on the engine: each
# data file is a request the source polls (the second answered 503 once and
# retried after its backoff), fetched while the rows of the one before are
# read, never waited for inside next(); each file asked for once, the second
# twice.
test_looplag_inventory_files_not_waited_in_next() {
    local b c
    [ "$S3C_TEST_STORE" = s3emu ] || t_skip "fault injection is s3emu's"
    t_new_bucket b
    t_new_bucket c
    _ll_inventory "$b" "$c" 3
    curl -sS --fail-with-body -X POST --data-binary \
        "faults=503@bucket=$c,key=inv/data/part-1*,op=GetObject,times=1;delay@bucket=$c,key=inv/data/*,op=GetObject,ms=300;delay@bucket=$b,op=GetObject,ms=200" \
        "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null || t_fail "s3emu refused the faults"
    assert_ok _ll_next_s3c cp --from-manifest "s3://$c/inv/m/manifest.json" "s3://$b/t/" down
    local rules
    rules=$(_ll_rules)
    curl -sS -X POST --data-binary "faults=" "$S3C_TEST_ENDPOINT/_s3emu/config" >/dev/null
    assert_eq "2/1 3/3 60/60" "$rules" "data files asked: 3, the second once more after its 503; 60 objects"
    assert_eq "$(t_tree_sums tree)" "$(t_tree_sums down)" "every object down"
    _ll_made next
    _ll_no_lag
}

# A run file's job starts inside the engine's next() (run reads its lines as
# the engine asks for work), and a single object's source is HEADed as the
# job starts: that HEAD (here answered 503 once, then late) is a request the
# job polls, answering XFER_NEXT_LATER while it is out, never one waited for
# inside next() while the line before it has its GETs in flight; asked once
# more than it failed. A key that is not there fails as it did (its HEAD's
# 404 explained by a HeadBucket, in flight too), and the other lines go on.
test_looplag_run_single_object_head_not_waited_in_next() {
    local b i rules
    [ "$S3C_TEST_STORE" = s3emu ] || t_skip "fault injection is s3emu's"
    t_new_bucket b
    mkdir tree
    for i in $(seq 1 20); do echo "file $i" > "tree/f$i"; done
    assert_ok s3c cp -r --only-show-errors tree "s3://$b/t/"
    cp "$(t_data 1MB 1000000)" one
    t_put "$b" one one
    t_put "$b" two one
    _ll_faults "503@bucket=$b,key=one,op=HeadObject,times=1;delay@bucket=$b,key=one,op=HeadObject,ms=300;delay@bucket=$b,key=t/*,op=GetObject,ms=200"
    printf '%s\n' "cp -r s3://$b/t/ down/" "cp s3://$b/one got" "mv s3://$b/two s3://$b/moved" "cp s3://$b/missing nothing" > cmds
    assert_exit 1 _ll_next_s3c run cmds
    rules=$(_ll_rules)
    _ll_faults ""
    # (a request meets the first rule that fires: the delay's was the second HEAD)
    assert_eq "2/1 1/1 20/20" "$rules" "one's HEAD asked twice, after its 503; 20 GETs of t/"
    assert_contains "$T_ERR" "cmds:4: download failed: s3://$b/missing to ./nothing An error occurred (NoSuchKey) when calling the HeadObject operation"
    assert_contains "$T_OUT" "download: s3://$b/one to ./got"
    assert_contains "$T_OUT" "move: s3://$b/two to s3://$b/moved"
    assert_eq "$(t_sha256 one)" "$(t_sha256 got)" "the bytes of one"
    assert_eq "$(t_tree_sums tree)" "$(t_tree_sums down)" "every object of t/ down"
    [ ! -e nothing ] || t_fail "the missing key made a file"
    _ll_made next
    _ll_no_lag
}

# An s3:// key list (--from-manifest) opened inside next(): rm opens each
# argument there, a run file's cp starts its job there. The list (answered
# 503 once, then late) is a request the source polls, answering LATER while
# it is out; each list asked for once more than it failed; every key
# deleted, every object down. A list that is not there fails each line as
# it did, the other lines going on.
test_looplag_manifest_open_not_waited_in_next() {
    local b c i rules
    [ "$S3C_TEST_STORE" = s3emu ] || t_skip "fault injection is s3emu's"
    t_new_bucket b
    t_new_bucket c
    mkdir tree
    for i in $(seq 1 30); do echo "file $i" > "tree/f$i"; done
    assert_ok s3c cp -r --only-show-errors tree "s3://$b/t/"
    for i in $(seq 1 30); do echo "t/f$i"; done > keys.txt
    t_put "$c" keys.txt keys.txt
    _ll_faults "503@bucket=$c,key=keys.txt,op=GetObject,nth=1;delay@bucket=$c,key=keys.txt,op=GetObject,ms=300;delay@bucket=$b,op=GetObject,ms=100"
    printf '%s\n' "cp -r s3://$b/t/ first/" "cp --from-manifest s3://$c/keys.txt s3://$b/ down/" \
        "cp --from-manifest s3://$c/nope s3://$b/ none/" > cmds
    assert_exit 1 _ll_next_s3c run cmds
    assert_contains "$T_ERR" "cmds:3: ERROR \"cp s3://$b/ none/\": The specified key does not exist. (404 NoSuchKey)"
    assert_eq "$(t_tree_sums tree)" "$(t_tree_sums down/t)" "every listed object down"
    assert_eq "$(t_tree_sums tree)" "$(t_tree_sums first)" "every object of the first line down"
    assert_ok _ll_next_s3c rm --from-manifest "s3://$c/keys.txt" "s3://$b/"
    rules=$(_ll_rules)
    _ll_faults ""
    # (a request meets the first rule that fires)
    assert_eq "3/1 2/2 60/60" "$rules" "the list asked for once a command, once more after its 503; 60 GETs of t/"
    assert_lines 30 "$T_OUT" "a delete line a key"
    assert_ok s3c ls -r "s3://$b/"
    assert_eq "" "$T_OUT" "no key left"
    _ll_made next
    _ll_no_lag
}

# _ll_two_trees B C N: N files in tree/, uploaded to s3://B/s/, and 20 in
# ttree/, uploaded to s3://C/t/ (what the first line of a run file gets,
# its GETs made late, while the line after it starts).
_ll_two_trees() {
    local i
    mkdir tree ttree
    for i in $(seq 1 "$3"); do echo "file $i" > "tree/f$i"; done
    for i in $(seq 1 20); do echo "t file $i" > "ttree/f$i"; done
    assert_ok s3c cp -r --only-show-errors tree "s3://$1/s/"
    assert_ok s3c cp -r --only-show-errors ttree "s3://$2/t/"
}

# sync's external sort (here forced on a listing: S3C_SYNC_SORT_BUDGET, as
# for a directory bucket or an inventory) reads its side whole before its
# first decision. A run file's sync starts inside the engine's next(), the
# line before it with GETs in flight: its side is read in by the job's
# next() (two pages, the second answered 503 once, then late), answering
# XFER_NEXT_LATER while a page is out, its batches sorted and written by
# the sorter's own thread; never a wait inside next(). Each page asked for
# once more than it failed; every object down on both lines.
test_looplag_run_sync_sort_not_waited_in_next() {
    local b c i rules
    [ "$S3C_TEST_STORE" = s3emu ] || t_skip "fault injection is s3emu's"
    t_new_bucket b
    t_new_bucket c
    mkdir "$T_DIR/tmp"
    _ll_two_trees "$b" "$c" 1100
    _ll_faults "503@bucket=$b,op=ListObjectsV2,nth=2;delay@bucket=$b,op=ListObjectsV2,ms=300;delay@bucket=$c,op=GetObject,ms=200"
    printf '%s\n' "cp -r s3://$c/t/ down/" "sync --only-show-errors s3://$b/s/ synced/" > cmds
    S3C_SYNC_SORT_BUDGET=4096 TMPDIR=$T_DIR/tmp assert_ok _ll_next_s3c run cmds
    rules=$(_ll_rules)
    _ll_faults ""
    # (a request meets the first rule that fires)
    assert_eq "3/1 2/2 20/20" "$rules" "the sync's pages asked: 2, the second once more after its 503; 20 GETs of t/"
    assert_eq "$(t_tree_sums tree)" "$(t_tree_sums synced)" "every object synced"
    assert_eq "$(t_tree_sums ttree)" "$(t_tree_sums down)" "every object of the first line down"
    assert_eq "" "$(ls -A "$T_DIR/tmp")" "no sort file left"
    _ll_made next
    _ll_no_lag
}

# A run file's dry-run line is read as the others are, a step at a time in
# run's next() (its objects straight to their "(dryrun)" lines), not run
# whole inside next() as its job starts: its listing's page (answered 503
# once, then late) and a single object's HEAD are requests in flight while
# the line before has its GETs out; never a wait inside next().
test_looplag_run_dryrun_line_not_waited_in_next() {
    local b c i rules
    [ "$S3C_TEST_STORE" = s3emu ] || t_skip "fault injection is s3emu's"
    t_new_bucket b
    t_new_bucket c
    _ll_two_trees "$b" "$c" 30
    _ll_faults "503@bucket=$b,op=ListObjectsV2,nth=1;delay@bucket=$b,op=ListObjectsV2,ms=300;delay@bucket=$b,op=HeadObject,ms=300;delay@bucket=$c,op=GetObject,ms=200"
    printf '%s\n' "cp -r s3://$c/t/ down/" "rm --dryrun -r s3://$b/s/" "cp --dryrun s3://$b/s/f1 x" > cmds
    assert_ok _ll_next_s3c run cmds
    rules=$(_ll_rules)
    _ll_faults ""
    # (a request meets the first rule that fires)
    assert_eq "2/1 1/1 1/1 20/20" "$rules" "the page asked twice, after its 503; one HEAD; 20 GETs of t/"
    assert_eq 30 "$(grep -c "^(dryrun) delete: s3://$b/s/f" <<< "$T_OUT")" "a dry-run line a key"
    assert_contains "$T_OUT" "(dryrun) download: s3://$b/s/f1 to ./x"
    assert_eq "$(t_tree_sums ttree)" "$(t_tree_sums down)" "every object of the first line down"
    assert_ok s3c ls -r "s3://$b/s/"
    assert_lines 30 "$T_OUT" "every key still there"
    _ll_made next
    _ll_no_lag
}

# A relayed copy (each side a store of its own, with its own keys) hashes what it reads and
# what it sends on the hash workers, never on a loop: the MD5 of an object of one PutObject,
# taken in order a part at a time (its ETag proves what was read), and the MD5 and CRC of a
# whole object of 4 MiB, hashed once (its stored CRC, or its ETag, and what the destination
# is sent). Over 1 MiB hashed in one call on a loop thread leaves a "loop-block" line (the
# probe: base/lag.h, lag_hashed), which fails the test; before, both did.
test_looplag_relay_hashes_off_the_loop() {
    local b c key=looplagrelaykey00001 secret='looplag/relay/secret/key/000000000000000'
    t_new_bucket b
    cp "$(t_data 20MiB $((20 * 1024 * 1024)))" f20m
    cp "$(t_data 4MiB $((4 * 1024 * 1024)))" f4m
    t_put "$b" r/f20m f20m
    assert_ok s3c cp f4m "s3://$b/r/f4m" # with its CRC64NVME, stored where the store keeps one
    t_own_store emu "$key" "$secret"
    mkdir -p "$HOME/.aws"
    printf '[src]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$S3C_TEST_ACCESS_KEY" "$S3C_TEST_SECRET_KEY" \
        > "$HOME/.aws/credentials"
    printf '[profile src]\nregion = %s\n' "$S3C_TEST_REGION" > "$HOME/.aws/config"
    t_bucket c
    curl -sS --fail-with-body -X PUT --aws-sigv4 "aws:amz:$S3C_TEST_REGION:s3" --user "$key:$secret" \
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$OWN_URL/$c" >/dev/null || t_fail "could not create $c"
    AWS_ACCESS_KEY_ID=$key AWS_SECRET_ACCESS_KEY=$secret AWS_ENDPOINT_URL=$OWN_URL \
        assert_ok s3c cp -r "s3://$b/r/" "s3://$c/r/" --source-profile src --source-endpoint-url "$S3C_TEST_ENDPOINT"
    assert_lines 2 "$T_OUT" "copy lines"
    assert_not_contains "$T_ERR" "not verified"
    for f in f20m f4m; do
        curl -sS --fail-with-body --aws-sigv4 "aws:amz:$S3C_TEST_REGION:s3" --user "$key:$secret" \
            -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -o got "$OWN_URL/$c/r/$f" || t_fail "could not get r/$f"
        cmp -s got "$f" || t_fail "r/$f differs"
    done
    _ll_no_lag
}
