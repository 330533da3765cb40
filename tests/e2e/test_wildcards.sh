# tests/e2e/test_wildcards.sh — issue 23 item 1: wildcards as s5cmd defines
# them. sync takes a wildcard source; a local '*' stops at '/' and does not
# look at (nor warn about) what it cannot match; '\*' is a literal star in
# every verb's source; a wildcard that matches nothing is an error.
# shellcheck shell=bash

# _wc_keys BUCKET [PREFIX]: the bucket's keys under PREFIX, sorted.
_wc_keys() { t_list_keys "$1" | grep "^${2:-}" | LC_ALL=C sort; }

# s5cmd's sync 's3://b/p/*' dir/: what matches, named under p/; with --delete
# only the local names the wildcard would match are deleted; one that matches
# nothing is an error and deletes nothing.
test_sync_s3_wildcard_source() {
    local b
    t_new_bucket b
    mkdir -p seed/p/sub
    printf 1 > seed/p/a.gz; printf 2 > seed/p/b.txt; printf 3 > seed/p/sub/c.gz
    t_seed_tree "$b" seed
    mkdir dl
    printf keep > dl/mine.txt; printf old > dl/stale.gz
    assert_ok s3c sync --delete "s3://$b/p/*.gz" dl/
    assert_eq "$(printf '%s\n' "delete: dl/stale.gz" "download: s3://$b/p/a.gz to dl/a.gz" \
        "download: s3://$b/p/sub/c.gz to dl/sub/c.gz")" "$(LC_ALL=C sort <<<"$T_OUT")" "stdout"
    assert_eq "keep" "$(cat dl/mine.txt)" "a name the wildcard cannot match is kept"
    assert_eq "3" "$(cat dl/sub/c.gz)" "a key's '*' crosses '/'"
    [ ! -e dl/b.txt ] || t_fail "b.txt does not match '*.gz' but was downloaded"
    # A second run has nothing to do.
    assert_ok s3c sync --delete "s3://$b/p/*.gz" dl/
    assert_eq "" "$T_OUT" "a second sync"
    # Everything under p/: s5cmd's own example; mine.txt is not in the source now.
    assert_ok s3c sync --delete "s3://$b/p/*" dl/
    assert_contains "$T_OUT" "delete: dl/mine.txt"
    assert_contains "$T_OUT" "download: s3://$b/p/b.txt to dl/b.txt"
    # Nothing matches: exit 1, a message, nothing deleted.
    assert_exit 1 s3c sync --delete "s3://$b/p/zz*" dl/
    assert_contains "$T_ERR" "no object matches s3://$b/p/zz*"
    assert_eq "$(printf '%s\n' a.gz b.txt sub/c.gz)" "$(cd dl && find . -type f | sed 's|^\./||' | LC_ALL=C sort)" \
        "files after a sync whose wildcard matched nothing"
    # S3 to S3, and --raw takes the star as part of the name (a prefix "p/*/" with nothing under it).
    assert_ok s3c sync "s3://$b/p/*.gz" "s3://$b/copy/"
    assert_eq "$(printf '%s\n' copy/a.gz copy/sub/c.gz)" "$(_wc_keys "$b" copy/)" "copied keys"
    assert_ok s3c sync --raw "s3://$b/p/*" "s3://$b/raw/"
    assert_eq "" "$(_wc_keys "$b" raw/)" "--raw: the star is a character"
}

# A local wildcard source: one component at a time; --delete only among the
# keys it would match.
test_sync_local_wildcard_source() {
    local b
    t_new_bucket b
    mkdir -p src/logs src/other
    printf 1 > src/logs/a.log; printf 2 > src/logs/b.txt; printf 3 > src/other/c.log; printf 4 > src/d.log
    printf x > old.log
    t_put "$b" up/gone.log old.log
    t_put "$b" up/keep.txt old.log
    assert_ok s3c sync --delete 'src/*.log' "s3://$b/up/"
    assert_eq "$(printf '%s\n' "delete: s3://$b/up/gone.log" "upload: src/d.log to s3://$b/up/d.log")" \
        "$(LC_ALL=C sort <<<"$T_OUT")" "stdout"
    assert_ok s3c sync 'src/*/*.log' "s3://$b/two/"
    assert_eq "$(printf '%s\n' two/logs/a.log two/other/c.log)" "$(_wc_keys "$b" two/)" "keys"
    assert_eq "$(printf '%s\n' up/d.log up/keep.txt)" "$(_wc_keys "$b" up/)" "keys under up/"
}

# A local '*' does not look into what it cannot match: a dangling link and an
# unreadable directory elsewhere in the tree are not warned about.
test_cp_local_wildcard_ignores_what_it_cannot_match() {
    local b
    t_new_bucket b
    mkdir -p d1/d2 d1/locked
    printf a > d1/a.txt; printf deep > d1/d2/deep.txt
    ln -s /nonexistent/s3c-e2e d1/d2/dangling.txt
    chmod 000 d1/locked
    assert_ok s3c cp 'd1/*.txt' "s3://$b/w/"
    chmod 755 d1/locked
    assert_eq "upload: d1/a.txt to s3://$b/w/a.txt" "$T_OUT"
    assert_eq "" "$T_ERR" "stderr"
    assert_eq "w/a.txt" "$(_wc_keys "$b" w/)" "keys"
    # Nothing matches: an error with a message, exit 1.
    assert_exit 1 s3c cp 'd1/*.none' "s3://$b/w/"
    assert_contains "$T_ERR" "no file matches d1/*.none"
}

# '\*' is a literal star in every verb's source; the key with a backslash is
# another key, left alone.
test_escaped_star_is_a_star_in_every_verb() {
    local b
    t_new_bucket b
    printf star > star.txt; printf slash > slash.txt; printf other > other.txt
    t_put "$b" 'w/star%2Akey' star.txt   # '*' encoded: curl's signature leaves it as is, Ceph does not
    t_put "$b" 'w/star%5Ckey' slash.txt
    t_put "$b" 'w/starXkey' other.txt
    assert_ok s3c cat 's3://'"$b"'/w/star\*key'
    assert_eq "star" "$T_OUT" "cat"
    assert_ok s3c cp 's3://'"$b"'/w/star\*key' got
    assert_eq "star" "$(cat got)" "cp"
    assert_ok s3c head 's3://'"$b"'/w/star\*key'
    assert_contains "$T_OUT" '"ContentLength":4'
    assert_ok s3c ls 's3://'"$b"'/w/star\*'
    assert_lines 1 "$T_OUT" "ls lines"
    assert_contains "$T_OUT" 'star*key'
    assert_ok s3c rm 's3://'"$b"'/w/star\*key'
    assert_eq "delete: s3://$b/w/star*key" "$T_OUT"
    assert_eq "$(printf '%s\n' 'w/starXkey' 'w/star\key')" "$(_wc_keys "$b" w/)" "keys left"
    # A local file named with a star, without --raw.
    printf s > 'a*b'
    assert_ok s3c cp 'a\*b' "s3://$b/l/"
    assert_eq "upload: ./a*b to s3://$b/l/a*b" "$T_OUT"
}

# cat of a wildcard or a prefix: each object, whole, in key order, one after
# the other (a multipart one among them), as s5cmd's cat.
test_cat_wildcard_concatenates_in_key_order() {
    local b
    t_new_bucket b
    mkdir -p seed/logs/sub
    printf 'first\n' > seed/logs/a-1.log
    head -c $((9 * 1024 * 1024)) /dev/urandom > seed/logs/b-2.log
    printf 'third\n' > seed/logs/sub/c-3.log
    printf 'not a log\n' > seed/logs/d.txt
    t_seed_tree "$b" seed
    cat seed/logs/a-1.log seed/logs/b-2.log seed/logs/sub/c-3.log > want.log
    assert_ok s3c cat --part-size 5MB "s3://$b/logs/*.log" > /dev/null
    cmp -s want.log "$T_DIR/.out" || t_fail "cat of 's3://$b/logs/*.log' is not the three logs in key order"
    # Key order: "logs/d.txt" comes before "logs/sub/c-3.log".
    cat seed/logs/a-1.log seed/logs/b-2.log seed/logs/d.txt seed/logs/sub/c-3.log > want.all
    assert_ok s3c cat "s3://$b/logs/" > /dev/null
    cmp -s want.all "$T_DIR/.out" || t_fail "cat of the prefix is not its four objects in key order"
}
