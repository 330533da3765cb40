# tests/e2e/test_sync.sh — issue 5: `s3c sync` end to end, in all three
# directions (local -> S3, S3 -> local, S3 -> S3).
# shellcheck shell=bash
#
# Each test checks what s3c printed, the local tree and the bucket (keys read
# with curl, never with s3c). Times: the AWS CLI's rules compare the local
# mtime with LastModified, so tests set local mtimes explicitly (touch -d @N,
# whole seconds, hours away from "now") rather than sleep; see plan/merge.h.
# On s3emu, GET /_s3emu/stats counts the requests of each operation, which
# proves a second sync of unchanged data sends nothing but listings.

# ---------------------------------------------------------------- helpers --

# _sy_keys BUCKET [PREFIX]: the bucket's keys (under PREFIX, which is cut off), sorted.
_sy_keys() {
    t_list_keys "$1" | LC_ALL=C sort | { if [ -n "${2:-}" ]; then sed -n "s|^$2||p"; else cat; fi; }
}

# _sy_files DIR: the files under DIR, relative, sorted.
_sy_files() { (cd "$1" && find . -type f | sed 's|^\./||' | LC_ALL=C sort); }

# _sy_sorted TEXT: TEXT's lines in byte order (result lines come in completion order).
_sy_sorted() { LC_ALL=C sort <<<"$1"; }

# _sy_tree DIR: a small tree whose names sort differently per byte ("a-b" <
# "a.b" < "a/b" < "a0"), with an empty file and a nested directory.
_sy_tree() {
    mkdir -p "$1/a" "$1/deep/er/est"
    printf 'dash\n' > "$1/a-b"
    printf 'dot\n' > "$1/a.b"
    printf 'slash\n' > "$1/a/b"
    printf 'zero\n' > "$1/a0"
    : > "$1/empty"
    printf 'deep\n' > "$1/deep/er/est/file.txt"
}

# _sy_age DIR SECONDS: set every file's mtime to SECONDS from now (negative: past).
_sy_age() {
    local t=$(($(date +%s) + $2))
    find "$1" -type f -exec touch -m -d "@$t" {} +
}

# _sy_emu_reset / _sy_emu_ops: zero s3emu's counters / print its per-operation counts as compact JSON.
_sy_emu_reset() { curl -sS -X DELETE "$S3C_TEST_ENDPOINT/_s3emu/stats" >/dev/null || t_fail "stats reset"; }
_sy_emu_ops() { curl -sS "$S3C_TEST_ENDPOINT/_s3emu/stats" | jq -cS '.ops | with_entries(select(.value > 0))'; }

# ------------------------------------------------------------ directions --

test_sync_up_then_noop() {
    local b
    t_new_bucket b
    _sy_tree tree
    assert_ok s3c sync tree "s3://$b/p"
    assert_eq "$(printf '%s\n' "upload: tree/a-b to s3://$b/p/a-b" "upload: tree/a.b to s3://$b/p/a.b" \
        "upload: tree/a/b to s3://$b/p/a/b" "upload: tree/a0 to s3://$b/p/a0" \
        "upload: tree/deep/er/est/file.txt to s3://$b/p/deep/er/est/file.txt" \
        "upload: tree/empty to s3://$b/p/empty")" "$(_sy_sorted "$T_OUT")" "upload lines"
    assert_eq "" "$T_ERR" "stderr"
    assert_eq "$(_sy_files tree)" "$(_sy_keys "$b" p/)" "keys"
    # Unchanged: nothing to do, nothing printed.
    assert_ok s3c sync tree "s3://$b/p/"
    assert_eq "" "$T_OUT" "second sync"
    # One file grows, one is new: only those two move.
    printf 'dot, longer\n' > tree/a.b
    printf 'new\n' > tree/new
    assert_ok s3c sync tree "s3://$b/p"
    assert_eq "$(printf '%s\n' "upload: tree/a.b to s3://$b/p/a.b" "upload: tree/new to s3://$b/p/new")" \
        "$(_sy_sorted "$T_OUT")" "changed files"
    assert_eq "dot, longer" "$(s3curl GET "/$b/p/a.b")" "a.b in the bucket"
    # Run from inside the tree: "./name" for top-level files, as the AWS CLI shows them.
    printf 'again\n' > tree/new
    (cd tree && s3c sync . "s3://$b/p") > out.txt || t_fail "sync . failed"
    assert_eq "upload: ./new to s3://$b/p/new" "$(cat out.txt)" "sync ."
}

test_sync_down_mtime_round_trip() {
    local b lm
    t_new_bucket b
    _sy_tree tree
    t_seed_tree "$b" tree p/
    assert_ok s3c sync "s3://$b/p" dl
    assert_lines 6 "$T_OUT" "download lines"
    assert_contains "$T_OUT" "download: s3://$b/p/a/b to dl/a/b"
    assert_eq "$(t_tree_sums tree)" "$(t_tree_sums dl)" "every file, byte for byte"
    # The file's mtime is the object's LastModified...
    lm=$(t_head_header "$b" p/a0 last-modified)
    assert_eq "$(date -d "$lm" +%s)" "$(stat -c %Y dl/a0)" "mtime of dl/a0 vs LastModified $lm"
    # ...so syncing again, with or without --exact-timestamps, moves nothing.
    assert_ok s3c sync "s3://$b/p" dl
    assert_eq "" "$T_OUT" "second sync"
    assert_ok s3c sync --exact-timestamps "s3://$b/p/" dl/
    assert_eq "" "$T_OUT" "second sync, exact timestamps"
    # A local file newer than its object is replaced (the AWS CLI's download rule)...
    printf 'DASH\n' > dl/a-b
    touch -m -d "@$(($(date +%s) + 3600))" dl/a-b
    assert_ok s3c sync "s3://$b/p" dl
    assert_eq "download: s3://$b/p/a-b to dl/a-b" "$T_OUT" "newer local file"
    assert_eq "dash" "$(cat dl/a-b)" "dl/a-b content"
    # ...an older one of the same size is not, unless --exact-timestamps.
    printf 'DOT\n' > dl/a.b
    touch -m -d @1000000000 dl/a.b
    assert_ok s3c sync "s3://$b/p" dl
    assert_eq "" "$T_OUT" "older local file, same size"
    assert_eq "DOT" "$(cat dl/a.b)" "dl/a.b kept"
    assert_ok s3c sync --exact-timestamps "s3://$b/p" dl
    assert_eq "download: s3://$b/p/a.b to dl/a.b" "$T_OUT" "--exact-timestamps"
    assert_eq "dot" "$(cat dl/a.b)" "dl/a.b content"
    # Into the working directory: "./name" as the AWS CLI shows it.
    mkdir here && cd here || t_fail "cd"
    assert_ok s3c sync "s3://$b/p/a" .
    assert_eq "download: s3://$b/p/a/b to ./b" "$T_OUT" "sync to ."
}

test_sync_s3_to_s3_then_noop() {
    local b c
    t_new_bucket b
    t_new_bucket c
    _sy_tree tree
    t_seed_tree "$b" tree src/
    assert_ok s3c sync "s3://$b/src" "s3://$c/dst/"
    assert_lines 6 "$T_OUT" "copy lines"
    assert_contains "$T_OUT" "copy: s3://$b/src/a/b to s3://$c/dst/a/b"
    assert_eq "$(_sy_files tree)" "$(_sy_keys "$c" dst/)" "keys copied"
    assert_eq "slash" "$(s3curl GET "/$c/dst/a/b")" "a/b copied"
    assert_ok s3c sync "s3://$b/src" "s3://$c/dst"
    assert_eq "" "$T_OUT" "second sync"
    # A source object that grows is copied again; a whole bucket is a source too.
    t_put_text "$b" src/a0 "zero, longer"
    assert_ok s3c sync "s3://$b/src/" "s3://$c/dst"
    assert_eq "copy: s3://$b/src/a0 to s3://$c/dst/a0" "$T_OUT" "changed object"
    assert_ok s3c sync "s3://$c" "s3://$b/whole"
    assert_lines 6 "$T_OUT" "whole-bucket copy lines"
    assert_contains "$T_OUT" "copy: s3://$c/dst/a0 to s3://$b/whole/dst/a0"
}

test_sync_noop_sends_only_listings() {
    t_store_is s3emu || t_skip "request counters are s3emu's (GET /_s3emu/stats)"
    local b c i
    t_new_bucket b
    t_new_bucket c
    # Exact page counts: one page after another (parallel listing cuts the key
    # space into ranges and sends more, smaller requests; test_shard.sh).
    export S3C_LIST_WIDTH=1
    # 1,500 files: two listing pages a side.
    mkdir -p tree/d1 tree/d2
    for i in $(seq 1 750); do printf '%s' "$i" > "tree/d1/f$i"; printf '%s' "$i" > "tree/d2/f$i"; done
    assert_ok s3c sync tree "s3://$b/t"
    assert_lines 1500 "$T_OUT" "first upload"
    # The download in a later second than the upload, as any real one is: a file downloaded in
    # the second of its object's LastModified (listings in whole seconds) cannot be ordered
    # against it, and the next sync asks its recorded mtime with a HEAD (merge.c); on a fast
    # run that was some of the 1,500 files, or all of them.
    local s
    s=$(date +%s)
    while [ "$(date +%s)" = "$s" ]; do sleep 0.05; done
    assert_ok s3c sync "s3://$b/t" dl
    assert_lines 1500 "$T_OUT" "first download"
    assert_ok s3c sync "s3://$b/t" "s3://$c/t"
    assert_lines 1500 "$T_OUT" "first copy"

    _sy_emu_reset
    assert_ok s3c sync tree "s3://$b/t"
    assert_eq "" "$T_OUT" "upload again"
    assert_eq '{"ListObjectsV2":2}' "$(_sy_emu_ops)" "requests of a no-op upload sync"
    _sy_emu_reset
    assert_ok s3c sync "s3://$b/t" dl
    assert_eq "" "$T_OUT" "download again"
    assert_eq '{"ListObjectsV2":2}' "$(_sy_emu_ops)" "requests of a no-op download sync"
    _sy_emu_reset
    assert_ok s3c sync --delete "s3://$b/t" "s3://$c/t"
    assert_eq "" "$T_OUT" "copy again"
    assert_eq '{"ListObjectsV2":4}' "$(_sy_emu_ops)" "requests of a no-op S3-to-S3 sync"
    # And one change costs one request more.
    printf changed > tree/d2/f9
    _sy_emu_reset
    assert_ok s3c sync tree "s3://$b/t"
    assert_eq "upload: tree/d2/f9 to s3://$b/t/d2/f9" "$T_OUT" "one change"
    assert_eq '{"ListObjectsV2":2,"PutObject":1}' "$(_sy_emu_ops)" "requests for one change"
}

# ----------------------------------------------------------------- flags --

test_sync_size_only() {
    local b
    t_new_bucket b
    _sy_tree tree
    assert_ok s3c sync tree "s3://$b/p"
    # Same size, newer: the default copies, --size-only does not.
    printf 'DOT\n' > tree/a.b
    touch -m -d "@$(($(date +%s) + 3600))" tree/a.b
    assert_ok s3c sync --size-only tree "s3://$b/p"
    assert_eq "" "$T_OUT" "--size-only, same size"
    assert_ok s3c sync --dryrun tree "s3://$b/p"
    assert_eq "(dryrun) upload: tree/a.b to s3://$b/p/a.b" "$T_OUT" "default, newer"
    # Another size: copied either way.
    printf 'zero!\n' > tree/a0
    assert_ok s3c sync --size-only tree "s3://$b/p"
    assert_eq "upload: tree/a0 to s3://$b/p/a0" "$T_OUT" "--size-only, other size"
    # Downloads too: a newer local file of the same size stays.
    assert_ok s3c sync "s3://$b/p" dl
    printf 'SLASH\n' > dl/a/b
    touch -m -d "@$(($(date +%s) + 3600))" dl/a/b
    assert_ok s3c sync --size-only "s3://$b/p" dl
    assert_eq "" "$T_OUT" "--size-only download"
    assert_eq "SLASH" "$(cat dl/a/b)" "dl/a/b kept"
}

test_sync_delete_each_direction() {
    local b c
    t_new_bucket b
    t_new_bucket c
    _sy_tree tree
    assert_ok s3c sync tree "s3://$b/p"
    assert_ok s3c sync "s3://$b/p" dl
    assert_ok s3c sync "s3://$b/p" "s3://$c/p"
    t_put_text "$b" p/extra "x"
    t_put_text "$b" other "outside the prefix"
    printf 'x\n' > dl/extra-local
    t_put_text "$c" p/a/extra "x"
    rm tree/a0

    # Without --delete, nothing goes.
    assert_ok s3c sync tree "s3://$b/p"
    assert_eq "" "$T_OUT" "no --delete"
    assert_contains "$(_sy_keys "$b")" "p/extra" "p/extra kept"

    assert_ok s3c sync --delete tree "s3://$b/p"
    assert_eq "$(printf '%s\n' "delete: s3://$b/p/a0" "delete: s3://$b/p/extra")" "$(_sy_sorted "$T_OUT")" "up --delete"
    assert_eq "$(_sy_files tree)" "$(_sy_keys "$b" p/)" "keys after up --delete"
    assert_eq "other" "$(_sy_keys "$b" | grep -v '^p/')" "key outside the prefix untouched"

    assert_ok s3c sync --delete "s3://$b/p" dl
    assert_eq "$(printf '%s\n' "delete: dl/a0" "delete: dl/extra-local")" "$(_sy_sorted "$T_OUT")" "down --delete"
    assert_eq "$(_sy_files tree)" "$(_sy_files dl)" "files after down --delete"

    assert_ok s3c sync --delete "s3://$b/p/" "s3://$c/p/"
    assert_eq "$(printf '%s\n' "delete: s3://$c/p/a/extra" "delete: s3://$c/p/a0")" "$(_sy_sorted "$T_OUT")" \
        "S3-to-S3 --delete"
    assert_eq "$(_sy_keys "$b" p/)" "$(_sy_keys "$c" p/)" "keys after S3-to-S3 --delete"
}

test_sync_delete_never_removes_excluded() {
    local b
    t_new_bucket b
    mkdir -p tree/logs
    printf 1 > tree/a.txt; printf 2 > tree/b.log; printf 3 > tree/logs/c.txt
    t_put_text "$b" p/keep.log "protected by --exclude"
    t_put_text "$b" p/logs/old.txt "protected by --exclude"
    t_put_text "$b" p/gone.txt "deleted"
    t_put_text "$b" p/gone.log "protected"

    # The last matching filter wins: *.log out, logs/ out.
    assert_ok s3c sync --delete --exclude '*.log' --exclude 'logs/*' tree "s3://$b/p"
    assert_eq "$(printf '%s\n' "delete: s3://$b/p/gone.txt" "upload: tree/a.txt to s3://$b/p/a.txt")" \
        "$(_sy_sorted "$T_OUT")" "lines"
    assert_eq "$(printf '%s\n' a.txt gone.log keep.log logs/old.txt)" "$(_sy_keys "$b" p/)" "keys"
    # --include brings some back: they are uploaded, and deleted when only at the destination.
    rm tree/b.log
    printf 4 > tree/logs/new.txt
    assert_ok s3c sync --delete --exclude '*.log' --exclude 'logs/*' --include 'logs/new*' tree "s3://$b/p"
    assert_eq "upload: tree/logs/new.txt to s3://$b/p/logs/new.txt" "$T_OUT" "include"
    # Downloads: a local file excluded is neither replaced nor deleted.
    mkdir dl
    printf 'mine\n' > dl/keep.log
    printf 'stray\n' > dl/stray.txt
    assert_ok s3c sync --delete --exclude '*.log' "s3://$b/p" dl
    assert_eq "$(printf '%s\n' a.txt keep.log logs/new.txt logs/old.txt)" "$(_sy_files dl)" "files"
    assert_eq "mine" "$(cat dl/keep.log)" "dl/keep.log untouched"
}

test_sync_delete_spares_what_the_walk_cannot_read() {
    local b
    t_new_bucket b
    mkdir -p tree/sub
    printf 1 > tree/a.txt; printf 2 > tree/sub/b.txt
    ln -s .. tree/sub/loop                 # a directory loop: reported, not walked
    ln -s no-such-target tree/dangling     # a file that cannot be read
    t_put_text "$b" p/sub/loop/x "under the unreadable directory"
    t_put_text "$b" p/sub/loop/y/z "under the unreadable directory"
    t_put_text "$b" p/dangling "the unreadable file's key"
    t_put_text "$b" p/sub/loopy "outside it: deleted"
    # Both are skipped with a warning (exit 2, as cp's and the AWS CLI's).
    assert_exit 2 s3c sync --delete tree "s3://$b/p"
    assert_lines 2 "$(grep '^warning: Skipping file' <<<"$T_ERR")" "skip lines"
    assert_match "$T_ERR" '^warning: Skipping file tree/dangling\. ' "dangling link"
    assert_match "$T_ERR" '^warning: Skipping file tree/sub/loop/\. ' "loop"
    assert_eq "$(printf '%s\n' "delete: s3://$b/p/sub/loopy" "upload: tree/a.txt to s3://$b/p/a.txt" \
        "upload: tree/sub/b.txt to s3://$b/p/sub/b.txt")" "$(_sy_sorted "$T_OUT")" "lines"
    assert_eq "$(printf '%s\n' a.txt dangling sub/b.txt sub/loop/x sub/loop/y/z)" "$(_sy_keys "$b" p/)" "keys"
}

test_sync_follow_symlinks() {
    local b
    t_new_bucket b
    mkdir -p tree/sub outside
    printf 'real\n' > tree/real.txt
    printf 'linked\n' > outside/target.txt
    ln -s ../outside/target.txt tree/link.txt
    ln -s ../../outside tree/sub/linkdir
    assert_ok s3c sync --no-follow-symlinks tree "s3://$b/n"
    assert_eq "upload: tree/real.txt to s3://$b/n/real.txt" "$T_OUT" "--no-follow-symlinks"
    assert_ok s3c sync tree "s3://$b/f"
    assert_eq "$(printf '%s\n' link.txt real.txt sub/linkdir/target.txt)" "$(_sy_keys "$b" f/)" "followed (the default)"
    assert_eq "linked" "$(s3curl GET "/$b/f/sub/linkdir/target.txt")" "content through the link"
    assert_exit 252 s3c sync --follow-symlinks --no-follow-symlinks tree "s3://$b/f"
}

test_sync_dryrun_changes_nothing() {
    local b c
    t_new_bucket b
    t_new_bucket c
    _sy_tree tree
    t_put_text "$b" p/only-in-s3 "x"
    mkdir dl
    printf 'x\n' > dl/only-here
    assert_ok s3c sync --dryrun --delete tree "s3://$b/p"
    assert_lines 7 "$T_OUT" "lines"
    assert_contains "$T_OUT" "(dryrun) upload: tree/a/b to s3://$b/p/a/b"
    assert_contains "$T_OUT" "(dryrun) delete: s3://$b/p/only-in-s3"
    assert_eq "p/only-in-s3" "$(_sy_keys "$b")" "keys unchanged"
    assert_ok s3c sync --dryrun --delete "s3://$b/p" dl
    assert_eq "$(printf '%s\n' "(dryrun) delete: dl/only-here" "(dryrun) download: s3://$b/p/only-in-s3 to dl/only-in-s3")" \
        "$(_sy_sorted "$T_OUT")" "download lines"
    assert_eq "only-here" "$(_sy_files dl)" "local files unchanged"
    assert_ok s3c sync --dryrun "s3://$b/p" "s3://$c/q"
    assert_eq "(dryrun) copy: s3://$b/p/only-in-s3 to s3://$c/q/only-in-s3" "$T_OUT" "copy line"
    assert_eq "" "$(_sy_keys "$c")" "no keys copied"
    # --json: one object a line.
    assert_ok s3c --json sync --dryrun --delete tree "s3://$b/p"
    assert_json_lines "$T_OUT"
    assert_eq 6 "$(jq -s 'map(select(.operation == "upload" and .dryrun)) | length' <<<"$T_OUT")" "JSON uploads"
    assert_eq 1 "$(jq -s 'map(select(.operation == "delete")) | length' <<<"$T_OUT")" "JSON deletes"
}

test_sync_metadata_flags() {
    local b
    t_new_bucket b
    mkdir tree
    printf 'hello\n' > tree/page.html
    printf 'data\n' > tree/blob
    assert_ok s3c sync --cache-control max-age=60 --metadata owner=sync,tier=2 tree "s3://$b/m"
    assert_eq "max-age=60" "$(t_head_header "$b" m/page.html cache-control)" "Cache-Control"
    assert_eq "sync" "$(t_head_header "$b" m/page.html x-amz-meta-owner)" "x-amz-meta-owner"
    assert_eq "2" "$(t_head_header "$b" m/blob x-amz-meta-tier)" "x-amz-meta-tier"
    assert_eq "text/html" "$(t_head_header "$b" m/page.html content-type)" "guessed Content-Type"
    printf 'more data\n' > tree/blob
    assert_ok s3c sync --content-type application/x-s3c tree "s3://$b/m"
    assert_eq "application/x-s3c" "$(t_head_header "$b" m/blob content-type)" "--content-type"
    assert_exit 252 s3c sync --metadata-directive SOMETIMES tree "s3://$b/m"
}

# ----------------------------------------------------------- names, scale --

test_sync_unicode_and_shell_hostile_names() {
    local b c
    t_new_bucket b
    t_new_bucket c
    mkdir -p "tree/odd names/sub" "tree/日本"
    printf 1 > "tree/odd names/with space.txt"
    printf 2 > "tree/odd names/a+b=c.txt"
    printf 3 > "tree/odd names/100%20%.txt"
    printf 4 > "tree/odd names/sub/#hash#.txt"
    printf 5 > "tree/odd names/ünïcødé ✓.txt"
    printf 6 > "tree/日本/語.txt"
    printf 7 > "tree/odd names/what?.txt"
    printf 8 > "tree/odd names/quote's \"and\" \$dollar & amp.txt"
    assert_ok s3c sync tree "s3://$b/u"
    assert_lines 8 "$T_OUT" "upload lines"
    assert_contains "$T_OUT" "upload: tree/odd names/ünïcødé ✓.txt to s3://$b/u/odd names/ünïcødé ✓.txt"
    assert_contains "$T_OUT" "upload: tree/日本/語.txt to s3://$b/u/日本/語.txt"
    # (Keys are compared by count: stores XML-escape quotes differently; the round trip checks the bytes.)
    assert_eq 8 "$(_sy_keys "$b" u/ | wc -l)" "keys"
    assert_ok s3c sync tree "s3://$b/u"
    assert_eq "" "$T_OUT" "no-op upload"
    assert_ok s3c sync "s3://$b/u" dl
    assert_lines 8 "$T_OUT" "download lines"
    assert_eq "$(t_tree_sums tree)" "$(t_tree_sums dl)" "files"
    assert_ok s3c sync "s3://$b/u" dl
    assert_eq "" "$T_OUT" "no-op download"
    assert_ok s3c sync --delete "s3://$b/u" "s3://$c/u"
    assert_lines 8 "$T_OUT" "copy lines"
    assert_ok s3c sync --delete "s3://$b/u" "s3://$c/u"
    assert_eq "" "$T_OUT" "no-op copy"
    rm "tree/odd names/a+b=c.txt" "tree/日本/語.txt"
    assert_ok s3c sync --delete tree "s3://$b/u"
    assert_eq "$(printf '%s\n' "delete: s3://$b/u/odd names/a+b=c.txt" "delete: s3://$b/u/日本/語.txt")" \
        "$(_sy_sorted "$T_OUT")" "deletes"
}

test_sync_20000_files_10_changed() {
    local b i
    t_new_bucket b
    # 20,000 files of a few bytes: 100 directories of 200.
    mkdir -p tree/d{00..99} empty
    awk 'BEGIN {
        for (d = 0; d < 100; d++)
            for (f = 0; f < 200; f++) { p = sprintf("tree/d%02d/f%03d", d, f); printf "%d.%d\n", d, f > p; close(p) }
    }' || t_fail "could not make the tree"
    assert_ok s3c sync --no-progress tree "s3://$b/big"
    assert_lines 20000 "$T_OUT" "first sync"
    for i in 03 17 29 31 44 58 62 75 86 99; do printf 'changed %s\n' "$i" > "tree/d$i/f1$i"; done
    t_store_is s3emu && _sy_emu_reset
    assert_ok s3c sync tree "s3://$b/big"
    assert_lines 10 "$T_OUT" "changed files moved"
    for i in 03 17 29 31 44 58 62 75 86 99; do
        assert_contains "$T_OUT" "upload: tree/d$i/f1$i to s3://$b/big/d$i/f1$i"
    done
    if t_store_is s3emu; then
        # The listing runs in parallel ranges (more requests than its 20 pages): only the PUTs are exact.
        assert_eq '{"PutObject":10}' "$(_sy_emu_ops | jq -c 'del(.ListObjectsV2)')" "requests: 10 PUTs and listings"
    fi
    assert_eq "changed 44" "$(s3curl GET "/$b/big/d44/f144")" "a changed object"
    assert_ok s3c sync tree "s3://$b/big"
    assert_eq "" "$T_OUT" "then nothing"
    # An empty source with --delete: every key goes, 1,000 a DeleteObjects request, each with the
    # ETag it was listed with; the first key is the conditional deletes' probe (a DeleteObject with
    # an ETag no object has, then with its own: xfer/delete.c).
    t_store_is s3emu && _sy_emu_reset
    assert_ok s3c sync --delete empty "s3://$b/big"
    assert_lines 20000 "$T_OUT" "delete lines"
    assert_contains "$T_OUT" "delete: s3://$b/big/d99/f199"
    if t_store_is s3emu; then
        assert_eq '{"DeleteObject":2,"DeleteObjects":20}' "$(_sy_emu_ops | jq -c 'del(.ListObjectsV2)')" \
            "requests: the probe twice, 20 batches and listings"
    fi
    assert_eq "" "$(_sy_keys "$b")" "keys left"
}

# ------------------------------------------------- agreement with the AWS CLI --

# The same mixed case for s3c and the AWS CLI, all dry runs: both must decide alike.
test_sync_agrees_with_aws_cli() {
    local b now old new
    t_new_bucket b
    now=$(date +%s); old=$((now - 7200)); new=$((now + 7200))
    mkdir -p tree/sub
    for f in same older newer bigger local-only sub/same sub/newer skip.tmp; do printf 'v1 %s\n' "$f" > "tree/$f"; done
    t_seed_tree "$b" tree s3/
    t_put_text "$b" s3/s3-only "x"
    t_put_text "$b" s3/sub/s3-only "x"
    t_put_text "$b" s3/skip2.tmp "x"
    s3curl DELETE "/$b/s3/local-only" >/dev/null
    t_put_text "$b" s3/bigger "v1 bigger, and more"
    find tree -type f -exec touch -m -d "@$old" {} +
    touch -m -d "@$new" tree/newer tree/sub/newer
    touch -m -d "@$new" tree/bigger   # other size and newer

    local args
    for args in "tree s3://$b/s3" "s3://$b/s3 tree" "s3://$b/s3 s3://$b/copy"; do
        # shellcheck disable=SC2086  # word splitting of the two ends on purpose
        assert_same_output _sy_sorted_cmd s3c sync --dryrun --delete --exclude '*.tmp' $args -- \
            _sy_sorted_cmd awsx s3 sync --dryrun --delete --exclude '*.tmp' $args
        [ -n "$T_OUT" ] || t_fail "nothing to compare for: $args"
    done
    assert_same_output _sy_sorted_cmd s3c sync --dryrun --size-only tree "s3://$b/s3" -- \
        _sy_sorted_cmd awsx s3 sync --dryrun --size-only tree "s3://$b/s3"
    assert_same_output _sy_sorted_cmd s3c sync --dryrun --exact-timestamps "s3://$b/s3" tree -- \
        _sy_sorted_cmd awsx s3 sync --dryrun --exact-timestamps "s3://$b/s3" tree
    # For real, then the AWS CLI finds nothing to do (local files dated before the objects).
    find tree -type f -exec touch -m -d "@$old" {} +
    assert_ok s3c sync --delete tree "s3://$b/s3"
    assert_ok awsx s3 sync --dryrun --delete tree "s3://$b/s3"
    assert_eq "" "$T_OUT" "the AWS CLI after s3c's sync up"
    assert_ok s3c sync --delete "s3://$b/s3" dl
    assert_ok awsx s3 sync --dryrun --delete "s3://$b/s3" dl
    assert_eq "" "$T_OUT" "the AWS CLI after s3c's sync down"
}

# _sy_sorted_cmd CMD...: run CMD, print its stdout sorted, keep its exit code.
_sy_sorted_cmd() {
    local out rc
    out=$("$@")
    rc=$?
    [ -z "$out" ] || LC_ALL=C sort <<<"$out"
    return $rc
}

# ---------------------------------------------------------- external sort --

test_sync_external_sort_path() {
    local b c i
    t_new_bucket b
    t_new_bucket c
    mkdir -p tree/x tree/x-y tmp
    for i in $(seq 1 150); do printf '%s' "$i" > "tree/x/$i"; printf '%s' "$i" > "tree/x-y/$i"; done
    _sy_tree tree
    # A 1 KiB budget: every side goes to disk in many sorted runs, merged in passes.
    export S3C_SYNC_SORT_BUDGET=1024 TMPDIR=$T_DIR/tmp
    assert_ok s3c sync tree "s3://$b/p"
    assert_lines 306 "$T_OUT" "upload lines"
    assert_eq "$(_sy_files tree)" "$(_sy_keys "$b" p/)" "keys"
    assert_ok s3c sync tree "s3://$b/p"
    assert_eq "" "$T_OUT" "no-op"
    rm tree/x/77
    assert_ok s3c sync --delete "s3://$b/p" "s3://$c/p"
    assert_lines 306 "$T_OUT" "copy lines"
    assert_ok s3c sync --delete tree "s3://$c/p"
    assert_eq "delete: s3://$c/p/x/77" "$T_OUT" "one delete"
    assert_ok s3c sync --delete "s3://$c/p" dl
    assert_eq "$(t_tree_sums tree)" "$(t_tree_sums dl)" "files"
    assert_eq "" "$(ls -A tmp)" "temp files left behind"
}

# ------------------------------------------------------------------ errors --

test_sync_usage_and_missing_ends() {
    local b
    t_new_bucket b
    mkdir tree
    printf 1 > tree/a
    assert_exit 252 s3c sync tree other-dir
    assert_contains "$T_ERR" "s3://"
    assert_exit 252 s3c sync no-such-dir "s3://$b/p"
    assert_contains "$T_ERR" "does not exist"
    # A file where a directory is wanted: skipped as the AWS CLI skips it (exit 2).
    assert_exit 2 s3c sync tree/a "s3://$b/p"
    assert_contains "$T_ERR" "warning: Skipping file $PWD/tree/a/. File does not exist."
    assert_exit 252 s3c sync - "s3://$b/p"
    assert_exit 252 s3c sync tree
    assert_exit 252 s3c sync --recursive tree "s3://$b/p"
    assert_exit 1 s3c sync tree "s3://$b-missing/p"
    assert_match "$T_ERR" "^fatal error: An error occurred \(NoSuchBucket\) when calling the ListObjectsV2 operation: " "missing bucket"
    assert_exit 1 s3c sync "s3://$b-missing/p" dl
    [ ! -e dl ] || t_fail "dl made for a missing bucket"
}

test_sync_lines_in_run() {
    local b
    t_new_bucket b
    _sy_tree tree
    printf 'sync tree s3://%s/r\nsync --delete tree "s3://%s/r 2"\n' "$b" "$b" > cmds
    assert_ok s3c run cmds
    assert_lines 12 "$T_OUT" "upload lines of both lines"
    assert_contains "$T_OUT" "upload: tree/a/b to s3://$b/r 2/a/b"
    assert_eq "$(_sy_files tree)" "$(_sy_keys "$b" r/)" "keys of the first line"
    assert_ok s3c run cmds
    assert_eq "" "$T_OUT" "both no-ops"
}
