# tests/e2e/test_shard.sh — issue 16: --shard K/N, --shard auto, parallel
# listing and --from-manifest, end to end.
# shellcheck shell=bash
#
# N shards of one command line must together do every object exactly once:
# the union of their result lines is the whole job with no line twice, and on
# s3emu the request counters agree (PutObject / CopyObject count == objects).

# _sh_emu_reset / _sh_emu_op OP: zero s3emu's counters / one operation's count.
_sh_emu_reset() { curl -sS -X DELETE "$S3C_TEST_ENDPOINT/_s3emu/stats" >/dev/null || t_fail "stats reset"; }
_sh_emu_op() { curl -sS "$S3C_TEST_ENDPOINT/_s3emu/stats" | jq ".ops.$1 // 0"; }

# _sh_tree DIR N: N small files in a few directories, some names with spaces and dots.
_sh_tree() {
    local i
    for i in $(seq 0 $(($2 - 1))); do
        mkdir -p "$1/d$((i % 5))/s $((i % 3))"
        printf 'file %d\n' "$i" > "$1/d$((i % 5))/s $((i % 3))/f.$i.txt"
    done
}

# _sh_all VERB-ARGS...: run the command once per shard 0..3 (the shard flag
# last); the union of stdout in T_ALL, and check each exited 0. Hedging is
# at its default: the buckets whose requests are counted are versioned
# (_sh_new_bucket), where no PutObject may be sent twice, so s3emu's counts
# equal the objects on a loaded machine too (to an unversioned bucket an
# overdue PutObject may be hedged: tests/e2e/test_hedge.sh).
_sh_all() {
    local k all=""
    for k in 0 1 2 3; do
        assert_ok s3c "$@" --shard "$k/4"
        all+=$T_OUT$'\n'
    done
    T_ALL=$(grep . <<<"$all" | LC_ALL=C sort)
}

# _sh_new_bucket VAR: a new bucket with versioning on (see _sh_all).
_sh_new_bucket() {
    t_new_bucket "$1"
    t_versioning "${!1}" Enabled
}

test_shard_cp_up_down_and_copy_once_each() {
    local b lines
    _sh_new_bucket b
    _sh_tree tree 200
    t_store_is s3emu && _sh_emu_reset
    _sh_all cp -r tree "s3://$b/up/"
    assert_lines 200 "$T_ALL" "upload lines of the 4 shards"
    assert_eq 200 "$(sort -u <<<"$T_ALL" | grep -c .)" "distinct upload lines"
    t_store_is s3emu && assert_eq 200 "$(_sh_emu_op PutObject)" "PutObject count"
    assert_eq 200 "$(t_list_keys "$b" | grep -c '^up/')" "keys uploaded"
    # Each shard did some: the hash spreads the names.
    for k in 0 1 2 3; do
        lines=$(s3c cp -r tree "s3://$b/dry/" --dryrun --shard "$k/4" | grep -c .)
        [ "$lines" -gt 20 ] || t_fail "shard $k/4 has only $lines of 200 files"
    done
    t_store_is s3emu && _sh_emu_reset
    _sh_all cp -r "s3://$b/up/" "s3://$b/copy/"
    assert_lines 200 "$T_ALL" "copy lines"
    assert_eq 200 "$(sort -u <<<"$T_ALL" | grep -c .)" "distinct copy lines"
    t_store_is s3emu && assert_eq 200 "$(_sh_emu_op CopyObject)" "CopyObject count"
    _sh_all cp -r "s3://$b/up/" down
    assert_lines 200 "$T_ALL" "download lines"
    assert_eq "" "$(diff -r tree down)" "the downloaded tree"
    # The same object goes to the same shard in both directions (names relative to the root).
    assert_eq "$(s3c cp -r tree "s3://$b/x/" --dryrun --shard 1/4 | sed 's/.* to s3:\/\/[^/]*\/x\///' | sort)" \
        "$(s3c cp -r "s3://$b/up/" x --dryrun --shard 1/4 | sed 's/.* to x\///' | sort)" "shard 1/4 up and down"
}

test_shard_sync_delete_stays_in_its_shard() {
    local b
    _sh_new_bucket b
    _sh_tree tree 120
    assert_ok s3c sync tree "s3://$b/t/"
    # Change 6 files, delete 9, and sync with --delete, shard by shard.
    for i in 0 1 2 3 4 5; do printf 'changed %d, longer\n' "$i" > "tree/d$((i % 5))/s $((i % 3))/f.$i.txt"; done
    for i in $(seq 50 58); do rm "tree/d$((i % 5))/s $((i % 3))/f.$i.txt"; done
    # One shard alone deletes only its own share of the 9.
    assert_ok s3c sync --delete --dryrun tree "s3://$b/t/" --shard 2/4
    local own
    own=$(grep -c '^(dryrun) delete:' <<<"$T_OUT")
    [ "$own" -lt 9 ] || t_fail "shard 2/4 alone would delete all $own"
    t_store_is s3emu && _sh_emu_reset
    _sh_all sync --delete tree "s3://$b/t/"
    assert_eq 6 "$(grep -c '^upload:' <<<"$T_ALL")" "uploads of the 4 shards"
    assert_eq 9 "$(grep -c '^delete:' <<<"$T_ALL")" "deletes of the 4 shards"
    assert_eq 15 "$(sort -u <<<"$T_ALL" | grep -c .)" "no line twice"
    t_store_is s3emu && assert_eq 6 "$(_sh_emu_op PutObject)" "PutObject count"
    assert_eq 111 "$(t_list_keys "$b" | grep -c '^t/')" "keys left"
    # And then every shard has nothing to do.
    _sh_all sync --delete tree "s3://$b/t/"
    assert_eq "" "$T_ALL" "a second pass"
}

test_shard_rm_once_each() {
    local b
    t_new_bucket b
    _sh_tree tree 150
    assert_ok s3c cp -r tree "s3://$b/r/"
    _sh_all rm -r "s3://$b/r/"
    assert_lines 150 "$T_ALL" "delete lines"
    assert_eq 150 "$(sort -u <<<"$T_ALL" | grep -c .)" "distinct delete lines"
    assert_eq 0 "$(t_list_keys "$b" | grep -c .)" "keys left"
}

test_shard_run_passes_its_shard_on() {
    local b k all=""
    t_new_bucket b
    _sh_tree tree 60
    printf 'cp -r tree s3://%s/a/\ncp -r tree s3://%s/b/ --shard 0/1\n' "$b" "$b" > cmds
    for k in 0 1 2; do
        assert_ok s3c run cmds --shard "$k/3"
        all+=$T_OUT$'\n'
    done
    # The first line is sharded (60 in all), the second has its own --shard 0/1 (60 per run).
    assert_eq 60 "$(grep -c "to s3://$b/a/" <<<"$all")" "run's shard on a line without one"
    assert_eq 180 "$(grep -c "to s3://$b/b/" <<<"$all")" "a line's own --shard"
}

test_shard_auto_and_bad_specs() {
    local b
    t_new_bucket b
    _sh_tree tree 40
    (
        unset SLURM_ARRAY_TASK_ID JOB_COMPLETION_INDEX S3C_SHARD_INDEX
        assert_exit 252 s3c cp -r tree "s3://$b/x/" --shard auto
        assert_contains "$T_ERR" "SLURM_ARRAY_TASK_ID"
        assert_contains "$T_ERR" "JOB_COMPLETION_INDEX"
        export JOB_COMPLETION_INDEX=1
        assert_exit 252 s3c sync tree "s3://$b/x/" --shard auto
        assert_contains "$T_ERR" "S3C_SHARD_COUNT"
        for spec in 4/4 -1/2 1/0 x 1/2/3; do
            assert_exit 252 s3c rm -r "s3://$b/x/" --shard "$spec"
        done
    ) || exit 1
    # Slurm's and Kubernetes' variables give the same shards as K/N.
    local want got
    want=$(s3c cp -r tree "s3://$b/x/" --dryrun --shard 2/3 | sort)
    got=$(SLURM_ARRAY_TASK_ID=12 SLURM_ARRAY_TASK_MIN=10 SLURM_ARRAY_TASK_COUNT=3 \
        s3c cp -r tree "s3://$b/x/" --dryrun --shard auto | sort)
    assert_eq "$want" "$got" "Slurm array task 12 of 10..12"
    got=$(JOB_COMPLETION_INDEX=2 S3C_SHARD_COUNT=3 s3c cp -r tree "s3://$b/x/" --dryrun --shard auto | sort)
    assert_eq "$want" "$got" "Kubernetes completion index 2 of 3"
}

test_shard_stat_json_adds_up() {
    local b k all=""
    t_new_bucket b
    _sh_tree tree 80
    for k in 0 1 2 3; do
        assert_ok s3c --json cp -r tree "s3://$b/s/" --stat --shard "$k/4"
        all+=$T_OUT$'\n'
    done
    local sum
    sum=$(jq -s -f "$E2E_ROOT/examples/shard-stat.jq" <<<"$all")
    assert_eq 4 "$(jq .shards <<<"$sum")" "shards"
    assert_eq "[]" "$(jq -c .missing <<<"$sum")" "missing shards"
    assert_eq 80 "$(jq '.stat[] | select(.operation == "upload") | .success' <<<"$sum")" "uploads added up"
}

# The listing is cut into ranges listed at once: whatever the shape of the
# keys, it must yield every key once, in order (compared with one page after another).
test_shard_parallel_listing_matches_sequential() {
    local b
    t_new_bucket b
    if t_store_is s3emu; then
        curl -sS -X POST "$S3C_TEST_ENDPOINT/_s3emu/populate?bucket=$b&count=25000&prefix=flat/" >/dev/null ||
            t_fail "populate"
    else
        t_skip "needs s3emu's populate"
    fi
    _sh_tree tree 300
    assert_ok s3c cp -r tree "s3://$b/tree/"
    export S3C_LIST_WIDTH=1
    assert_ok s3c rm -r --dryrun "s3://$b/"
    unset S3C_LIST_WIDTH
    local seq=$T_OUT
    assert_lines 25300 "$seq" "keys, one page after another"
    _sh_emu_reset
    assert_ok s3c rm -r --dryrun "s3://$b/"
    assert_eq "$seq" "$T_OUT" "the parallel listing, in order"
    [ "$(_sh_emu_op ListObjectsV2)" -gt 26 ] || t_fail "the listing was not cut ($(_sh_emu_op ListObjectsV2) requests)"
    export S3C_LIST_WIDTH=3
    assert_ok s3c rm --dryrun "s3://$b/flat/00001*"
    unset S3C_LIST_WIDTH
    assert_eq "$(grep "flat/00001" <<<"$seq")" "$T_OUT" "a narrow prefix, width 3"
}

test_shard_from_manifest() {
    local b c
    t_new_bucket b
    t_new_bucket c
    _sh_tree tree 50
    assert_ok s3c cp -r tree "s3://$b/m/"
    # A plain key list, some keys outside the source prefix (skipped), one missing.
    t_list_keys "$b" | grep '/s 1/' > keys.txt
    echo "elsewhere/x" >> keys.txt
    local n
    n=$(grep -c '^m/' keys.txt)
    t_store_is s3emu && _sh_emu_reset
    assert_ok s3c cp --from-manifest keys.txt "s3://$b/m/" "s3://$c/k/"
    assert_lines "$n" "$T_OUT" "copies from a key list"
    t_store_is s3emu && assert_eq 0 "$(_sh_emu_op ListObjectsV2)" "no listing"
    # An inventory report (gzip'd CSV, URL-encoded keys), in S3 like a real one.
    mkdir -p inv/2024-01-01T00-00Z inv/data
    t_list_keys "$b" | grep '/s 0/' | while IFS= read -r k; do
        printf '"%s","%s","%s","2030-01-01T00:00:00.000Z"\n' "$b" "$(jq -rn --arg k "$k" '$k | @uri')" \
            "$(s3c ls "s3://$b/$k" | awk '{print $3}')"
    done | gzip > inv/data/part-0.csv.gz
    printf '{"sourceBucket":"%s","destinationBucket":"arn:aws:s3:::%s","fileFormat":"CSV","fileSchema":"Bucket, Key, Size, LastModifiedDate","files":[{"key":"inv/data/part-0.csv.gz"}]}\n' \
        "$b" "$c" > inv/2024-01-01T00-00Z/manifest.json
    assert_ok s3c cp -r inv "s3://$c/inv/"
    n=$(t_list_keys "$b" | grep -c '/s 0/')
    t_store_is s3emu && _sh_emu_reset
    assert_ok s3c sync --from-manifest "s3://$c/inv/2024-01-01T00-00Z/manifest.json" "s3://$b/m/" inv-down
    assert_lines "$n" "$T_OUT" "downloads from an inventory"
    t_store_is s3emu && assert_eq 1 "$(_sh_emu_op ListObjectsV2 | sed 's/^0$/1/')" "no source listing"
    assert_eq "$n" "$(find inv-down -type f | grep -c .)" "files down"
    # The local copy of the report too, sharded: each key once over 2 shards.
    local all=""
    for k in 0 1; do
        assert_ok s3c rm --from-manifest inv/2024-01-01T00-00Z/manifest.json "s3://$b/m/" --shard "$k/2"
        all+=$T_OUT$'\n'
    done
    assert_eq "$n" "$(grep -c '^delete:' <<<"$all")" "deletes from the local report"
    assert_eq 0 "$(t_list_keys "$b" | grep -c '/s 0/')" "keys of the report left"
    # Not an S3 source: a usage error.
    assert_exit 252 s3c cp --from-manifest keys.txt tree "s3://$b/z/"
}
